#pragma once

// Client order ids that all land in one slot of the engine's client order
// id table as it was hashed before the table got its key: murmur3's 64-bit
// finalizer over id ^ (account x golden ratio), unkeyed and invertible, so
// a client could compute such ids. The hash-flood tests and the
// `cfx-bench abuse --workload hash-flood` attacker use them to show that
// the keyed table spreads them.

#include <cstdint>
#include <vector>

namespace cfx::exchange::testing {

// The table's hash before it was keyed.
inline uint64_t UnkeyedClientOrderHash(uint32_t account, uint64_t id) {
  uint64_t x = id ^ (uint64_t{account} * 0x9E3779B97F4A7C15ull);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

// The inverse of multiplying by odd `c` modulo 2^64 (Newton's iteration:
// each step doubles the bits that are right: 3, 6, 12, 24, 48, 96).
inline uint64_t InverseOdd(uint64_t c) {
  uint64_t inv = c;  // correct to 3 bits for odd c
  for (int i = 0; i < 6; ++i) inv *= 2 - c * inv;
  return inv;
}

// The id whose unkeyed hash for `account` is `h`: each step of the
// finalizer undone (x ^= x >> 33 is its own inverse, since 33 >= 32).
inline uint64_t InvertUnkeyedClientOrderHash(uint32_t account, uint64_t h) {
  uint64_t x = h;
  x ^= x >> 33;
  x *= InverseOdd(0xc4ceb9fe1a85ec53ull);
  x ^= x >> 33;
  x *= InverseOdd(0xff51afd7ed558ccdull);
  x ^= x >> 33;
  return x ^ (uint64_t{account} * 0x9E3779B97F4A7C15ull);
}

// `n` distinct non-zero client order ids of `account` whose unkeyed hashes
// share their low 40 bits: one probe run in any table of up to 2^40 slots.
inline std::vector<uint64_t> CollidingClientOrderIds(uint32_t account,
                                                     uint32_t n) {
  std::vector<uint64_t> ids;
  ids.reserve(n);
  for (uint64_t k = 1; ids.size() < n; ++k) {
    const uint64_t id = InvertUnkeyedClientOrderHash(account, k << 40);
    if (id != 0) ids.push_back(id);
  }
  return ids;
}

}  // namespace cfx::exchange::testing
