#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gateway/session/logon_backoff.h"

namespace cfx::gateway {

// The source addresses a logon passed from lately, by the back-off's keyed
// digest (LogonBackoff::KeyOf): a firm's own hosts. Their password checks
// skip the credential checker's CPU budget (credential_check.h), so that a
// flood of wrong passwords from other addresses, which spends the budget,
// does not keep a firm out that has logged on before. A source counts as
// known from a passed check until `ttl_ns` later or until a check from it
// fails, whichever comes first; only a right password makes one, so a
// flood cannot.
//
// Bounded: a fixed table of `capacity` entries; when the slots a key may
// use are full, the one that passed longest ago is forgotten.
//
// Thread: the gateway thread only. Memory: the table, allocated once.
class KnownSources {
 public:
  // REQUIRES: capacity is a power of two >= 8. Defaults: 1,024 sources,
  // known for 24 hours.
  explicit KnownSources(std::size_t capacity = 1024,
                        int64_t ttl_ns = int64_t{86'400} * 1'000'000'000);

  bool Known(const LogonBackoff::Key& key, int64_t now_ns) const;
  // A check of a logon from `key` passed, or failed.
  void Passed(const LogonBackoff::Key& key, int64_t now_ns);
  void Failed(const LogonBackoff::Key& key);

 private:
  struct Entry {
    LogonBackoff::Key key;
    int64_t passed_ns = 0;
    bool used = false;
  };
  const Entry* Find(const LogonBackoff::Key& key) const;

  std::vector<Entry> table_;
  std::size_t mask_;
  int64_t ttl_ns_;
};

}  // namespace cfx::gateway
