#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>  // before Asio (gateway/asio.h)

#include "gateway/asio.h"

namespace cfx::gateway {

struct ConnectionLimits {
  // Pre-logon connections (accepted, not yet logged on; on the HTTP port:
  // waiting for a request) at most, over all sources. When full, the oldest
  // one is closed to make room for the newcomer, so a flood of idle
  // connections cannot keep a genuine client out. Default: no limit.
  std::size_t max_pre_logon = SIZE_MAX;
  // Pre-logon connections from one source address at most; one more is
  // refused. Default: no limit.
  std::size_t max_pre_logon_per_source = SIZE_MAX;
};

// The pre-logon budget of one listening port: which connections have not
// logged on yet, from where, and in which order they came. Logged-on
// connections are not counted here (the port's own session limit counts
// them), so a pre-logon flood cannot take their capacity.
//
// Thread: one owner (the acceptor's io thread); no locks.
// Memory: one entry per pre-logon connection and one per source that has
// any, so both tables are bounded by max_pre_logon.
class ConnectionLimiter {
 public:
  enum class Verdict {
    kAdmitted,         // counted as pre-logon
    kAdmittedEvicted,  // counted, and *evicted must be closed now
    kSourceFull,       // refused: its source is at max_pre_logon_per_source
  };

  explicit ConnectionLimiter(const ConnectionLimits& limits)
      : limits_(limits) {}

  // Counts connection `id` (new, or back to idle) from `source` as
  // pre-logon. On kAdmittedEvicted the oldest other pre-logon connection
  // was forgotten and its id stored in *evicted: the caller closes it.
  // An id already counted stays counted (kAdmitted).
  Verdict Admit(uint64_t id, const asio::ip::address& source,
                uint64_t* evicted);

  // `id` is no longer pre-logon (logged on, or closed). Unknown ids are
  // ignored.
  void Forget(uint64_t id);

  std::size_t pre_logon() const { return by_id_.size(); }
  std::size_t sources() const { return by_source_.size(); }
  const ConnectionLimits& limits() const { return limits_; }

 private:
  void Drop(std::map<uint64_t, asio::ip::address>::iterator it);

  ConnectionLimits limits_;
  // Connection id (increasing: the first entry is the oldest) -> source.
  std::map<uint64_t, asio::ip::address> by_id_;
  std::map<asio::ip::address, std::size_t> by_source_;
};

}  // namespace cfx::gateway
