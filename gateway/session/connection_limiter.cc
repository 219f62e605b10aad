#include "gateway/session/connection_limiter.h"

namespace cfx::gateway {

ConnectionLimiter::Verdict ConnectionLimiter::Admit(
    uint64_t id, const asio::ip::address& source, uint64_t* evicted) {
  if (by_id_.count(id) != 0) return Verdict::kAdmitted;
  auto src = by_source_.find(source);
  if (src != by_source_.end() &&
      src->second >= limits_.max_pre_logon_per_source) {
    return Verdict::kSourceFull;
  }
  Verdict verdict = Verdict::kAdmitted;
  if (by_id_.size() >= limits_.max_pre_logon && !by_id_.empty()) {
    *evicted = by_id_.begin()->first;
    Drop(by_id_.begin());
    verdict = Verdict::kAdmittedEvicted;
  }
  by_id_.emplace(id, source);
  ++by_source_[source];
  return verdict;
}

void ConnectionLimiter::Forget(uint64_t id) {
  auto it = by_id_.find(id);
  if (it != by_id_.end()) Drop(it);
}

void ConnectionLimiter::Drop(
    std::map<uint64_t, asio::ip::address>::iterator it) {
  auto src = by_source_.find(it->second);
  if (src != by_source_.end() && --src->second == 0) by_source_.erase(src);
  by_id_.erase(it);
}

}  // namespace cfx::gateway
