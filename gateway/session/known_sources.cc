#include "gateway/session/known_sources.h"

#include <cstdio>
#include <cstdlib>

namespace cfx::gateway {

namespace {

// Slots probed from a key's home slot.
constexpr std::size_t kProbe = 8;

}  // namespace

KnownSources::KnownSources(std::size_t capacity, int64_t ttl_ns)
    : table_(capacity), mask_(capacity - 1), ttl_ns_(ttl_ns) {
  if (capacity < kProbe || (capacity & (capacity - 1)) != 0) {
    std::fputs("cfx: KnownSources: bad capacity\n", stderr);
    std::abort();
  }
}

const KnownSources::Entry* KnownSources::Find(
    const LogonBackoff::Key& key) const {
  for (std::size_t i = 0; i < kProbe; ++i) {
    const Entry& e = table_[(key.lo + i) & mask_];
    if (e.used && e.key == key) return &e;
  }
  return nullptr;
}

bool KnownSources::Known(const LogonBackoff::Key& key, int64_t now_ns) const {
  const Entry* e = Find(key);
  return e != nullptr && now_ns - e->passed_ns < ttl_ns_;
}

void KnownSources::Passed(const LogonBackoff::Key& key, int64_t now_ns) {
  Entry* slot = const_cast<Entry*>(Find(key));
  for (std::size_t i = 0; slot == nullptr && i < kProbe; ++i) {
    Entry& e = table_[(key.lo + i) & mask_];
    if (!e.used) slot = &e;
  }
  if (slot == nullptr) {
    // Every slot it may use is taken: the one that passed longest ago.
    slot = &table_[key.lo & mask_];
    for (std::size_t i = 1; i < kProbe; ++i) {
      Entry& e = table_[(key.lo + i) & mask_];
      if (e.passed_ns < slot->passed_ns) slot = &e;
    }
  }
  *slot = Entry{key, now_ns, true};
}

void KnownSources::Failed(const LogonBackoff::Key& key) {
  if (Entry* e = const_cast<Entry*>(Find(key))) e->used = false;
}

}  // namespace cfx::gateway
