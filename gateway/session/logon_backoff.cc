#include "gateway/session/logon_backoff.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cfx::gateway {

namespace {

// Slots probed from a key's home slot.
constexpr std::size_t kProbe = 8;

}  // namespace

std::string BackoffText(int64_t retry_after_ns) {
  const int64_t seconds =
      std::max<int64_t>(1, (retry_after_ns + 999'999'999) / 1'000'000'000);
  return "too many failed logons from this address; try again later (in " +
         std::to_string(seconds) + " s)";
}

std::string RefusalText(BackoffRefusal why, int64_t retry_after_ns) {
  return why == BackoffRefusal::kInFlight ? std::string(kInFlightText)
                                          : BackoffText(retry_after_ns);
}

LogonBackoff::LogonBackoff(std::size_t capacity)
    : table_(capacity), mask_(capacity - 1) {
  unsigned char salt[16];
  if (capacity < kProbe || (capacity & (capacity - 1)) != 0 ||
      RAND_bytes(salt, sizeof salt) != 1) {
    // A bad capacity is a bug; no randomness would make the keys
    // predictable.
    std::fputs("cfx: LogonBackoff: bad capacity or no randomness\n", stderr);
    std::abort();
  }
  salt_.assign(reinterpret_cast<const char*>(salt), sizeof salt);
}

LogonBackoff::Key LogonBackoff::KeyOf(std::string_view key) const {
  std::string salted = salt_;
  salted.append(key);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(salted.data()), salted.size(),
         digest);
  Key k;
  std::memcpy(&k.hi, digest, sizeof k.hi);
  std::memcpy(&k.lo, digest + sizeof k.hi, sizeof k.lo);
  return k;
}

LogonBackoff::Entry* LogonBackoff::Find(const Key& key) {
  for (std::size_t i = 0; i < kProbe; ++i) {
    Entry& e = table_[(key.lo + i) & mask_];
    if (e.used && e.key == key) return &e;
  }
  return nullptr;
}

const LogonBackoff::Entry* LogonBackoff::Find(const Key& key) const {
  return const_cast<LogonBackoff*>(this)->Find(key);
}

LogonBackoff::Entry& LogonBackoff::Get(const Key& key,
                                       const BackoffPolicy& policy,
                                       int64_t now_ns) {
  if (Entry* e = Find(key)) {
    if (e->in_flight == 0 && e->failures > 0 &&
        now_ns - e->last_failure_ns >= policy.forget_ns) {
      *e = Entry{key, 0, 0, 0, 0, true};
    }
    return *e;
  }
  // A free slot, else the one whose back-off ends first (running checks
  // are kept when possible: their End() would find nothing).
  Entry* victim = nullptr;
  for (std::size_t i = 0; i < kProbe; ++i) {
    Entry& e = table_[(key.lo + i) & mask_];
    if (!e.used) {
      victim = &e;
      break;
    }
    const bool forgettable = e.in_flight == 0;
    if (victim == nullptr || (forgettable && victim->in_flight != 0) ||
        (forgettable == (victim->in_flight == 0) &&
         e.until_ns < victim->until_ns)) {
      victim = &e;
    }
  }
  *victim = Entry{key, 0, 0, 0, 0, true};
  return *victim;
}

BackoffRefusal LogonBackoff::Begin(const Key& key, const BackoffPolicy& policy,
                                   int64_t now_ns, int64_t* retry_after_ns) {
  Entry& e = Get(key, policy, now_ns);
  if (now_ns < e.until_ns) {
    *retry_after_ns = e.until_ns - now_ns;
    return BackoffRefusal::kBackingOff;
  }
  if (e.in_flight >= policy.max_in_flight) {
    *retry_after_ns = std::max<int64_t>(1, policy.base_ns);
    return BackoffRefusal::kInFlight;
  }
  ++e.in_flight;
  return BackoffRefusal::kNone;
}

void LogonBackoff::End(const Key& key, bool passed, const BackoffPolicy& policy,
                       int64_t now_ns) {
  Entry* e = Find(key);
  if (e == nullptr) {
    if (passed) return;
    e = &Get(key, policy, now_ns);
  }
  if (e->in_flight > 0) --e->in_flight;
  if (passed) {
    const uint32_t in_flight = e->in_flight;
    *e = Entry{key, 0, 0, 0, in_flight, true};
    if (in_flight == 0) e->used = false;
    return;
  }
  if (e->failures < UINT32_MAX) ++e->failures;
  e->last_failure_ns = now_ns;
  if (e->failures <= policy.free_failures) return;
  const uint32_t doublings = e->failures - policy.free_failures - 1;
  int64_t wait = policy.base_ns;
  for (uint32_t i = 0; i < doublings && wait < policy.cap_ns; ++i) wait *= 2;
  wait = std::min(wait, policy.cap_ns);
  e->until_ns = std::max(e->until_ns, now_ns + wait);
}

void LogonBackoff::Abandon(const Key& key) {
  Entry* e = Find(key);
  if (e != nullptr && e->in_flight > 0) --e->in_flight;
}

uint32_t LogonBackoff::failures(const Key& key) const {
  const Entry* e = Find(key);
  return e == nullptr ? 0 : e->failures;
}

}  // namespace cfx::gateway
