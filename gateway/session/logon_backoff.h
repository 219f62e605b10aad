#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cfx::gateway {

// The refusal text of a logon refused because its back-off runs:
// "too many failed logons from this address; try again later (in N s)",
// N = the wait rounded up to whole seconds.
std::string BackoffText(int64_t retry_after_ns);

// The refusal text of a logon refused because its key already has
// BackoffPolicy::max_in_flight checks running: no check failed.
inline constexpr char kInFlightText[] =
    "too many logons from this address are being checked at once; try again "
    "later";

// The refusal text of a logon refused because the credential checks'
// queue is full (credential_check.h).
inline constexpr char kChecksBusyText[] =
    "the exchange is busy checking logons; try again later";

// Why LogonBackoff::Begin() refused a check (kNone: it did not).
enum class BackoffRefusal : uint8_t {
  kNone,
  kBackingOff,  // a failed check's back-off runs: BackoffText()
  kInFlight,    // max_in_flight checks of the key run: kInFlightText
};

// The LogonReject text of `why` (not kNone); `retry_after_ns` is the wait
// Begin() gave.
std::string RefusalText(BackoffRefusal why, int64_t retry_after_ns);

// How one kind of key backs off after failed logons.
struct BackoffPolicy {
  // Failed checks without a back-off. Default: 0 (the first failure
  // already backs off).
  uint32_t free_failures = 0;
  // The back-off after the first failure beyond the free ones; it doubles
  // with each further failure. Default: 1 s.
  int64_t base_ns = 1'000'000'000;
  // The longest back-off. Default: 60 s.
  int64_t cap_ns = 60'000'000'000;
  // A key without a failure for this long starts again from zero.
  // Default: 15 minutes.
  int64_t forget_ns = 900'000'000'000;
  // Checks of one key running at once at most; one more waits like a
  // back-off. Default: 2.
  uint32_t max_in_flight = 2;
};

// Exponential back-off of logon checks, per key: a source address, or a
// user at a source address (docs/fix.md and docs/protocol.md, "Logon
// back-off"). A key whose check failed is refused checks until its
// back-off ends: base_ns after the first failure beyond free_failures,
// doubling with each further one, at most cap_ns. A check that passes
// forgets the key.
//
// Bounded: a fixed table of `capacity` entries holding a 128-bit keyed
// digest of each key (SHA-256 of a per-process random salt and the key), so
// neither a spray of addresses nor chosen keys can grow memory or steer
// collisions. When the slots a key may use are full, the entry whose
// back-off ends first is forgotten.
//
// Thread: the gateway thread only. Memory: the table, allocated once.
class LogonBackoff {
 public:
  struct Key {
    uint64_t hi = 0;
    uint64_t lo = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };

  // REQUIRES: capacity is a power of two >= 8. Default: 4096 entries.
  explicit LogonBackoff(std::size_t capacity = 4096);

  Key KeyOf(std::string_view key) const;

  // Before a check of `key`: kBackingOff while its back-off runs, kInFlight
  // while policy.max_in_flight checks of it are running, either with the
  // wait left (ns, >= 1; for kInFlight: policy.base_ns) in *retry_after_ns;
  // else kNone, and one more check of it counts as running until End() or
  // Abandon().
  BackoffRefusal Begin(const Key& key, const BackoffPolicy& policy,
                       int64_t now_ns, int64_t* retry_after_ns);
  // The result of a check that Begin() let run.
  void End(const Key& key, bool passed, const BackoffPolicy& policy,
           int64_t now_ns);
  // A check that Begin() let run but that did not run.
  void Abandon(const Key& key);

  // Failed checks of `key` counted now (for tests and metrics).
  uint32_t failures(const Key& key) const;

 private:
  struct Entry {
    Key key;
    int64_t until_ns = 0;         // refused checks until then
    int64_t last_failure_ns = 0;  // 0: no failure counted
    uint32_t failures = 0;
    uint32_t in_flight = 0;
    bool used = false;
  };
  Entry* Find(const Key& key);
  const Entry* Find(const Key& key) const;
  // The entry of `key`, made (possibly by forgetting another) if missing.
  Entry& Get(const Key& key, const BackoffPolicy& policy, int64_t now_ns);

  std::string salt_;
  std::vector<Entry> table_;
  std::size_t mask_;
};

}  // namespace cfx::gateway
