#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cfx::exchange {

// SipHash (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012):
// a keyed hash for tables whose keys clients choose. Without the 128-bit
// key an attacker cannot compute which inputs collide, so a table keyed by
// client values keeps its expected probe lengths whatever the client sends
// (docs/matching.md, "Client order ids").
//
// SipHash<2, 4> is the paper's SipHash-2-4 (tested against its reference
// vectors); the tables use SipHash-1-3, the same construction with fewer
// rounds, as Rust's and Python's hash tables do.
//
// Thread: pure functions. Memory: none.
struct SipKey {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
  friend bool operator==(const SipKey&, const SipKey&) = default;
};

namespace internal {

inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

struct SipState {
  uint64_t v0, v1, v2, v3;

  explicit SipState(const SipKey& k)
      : v0(k.k0 ^ 0x736f6d6570736575ull),
        v1(k.k1 ^ 0x646f72616e646f6dull),
        v2(k.k0 ^ 0x6c7967656e657261ull),
        v3(k.k1 ^ 0x7465646279746573ull) {}

  void Round() {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  }

  template <int C>
  void Compress(uint64_t m) {
    v3 ^= m;
    for (int i = 0; i < C; ++i) Round();
    v0 ^= m;
  }

  template <int D>
  uint64_t Finish() {
    v2 ^= 0xff;
    for (int i = 0; i < D; ++i) Round();
    return v0 ^ v1 ^ v2 ^ v3;
  }
};

inline uint64_t LoadLe64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace internal

// SipHash-C-D of the bytes of `m` under `key`, 64-bit output.
template <int C, int D>
uint64_t SipHash(const SipKey& key, std::string_view m) {
  internal::SipState s(key);
  const auto* p = reinterpret_cast<const unsigned char*>(m.data());
  const std::size_t n = m.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) s.Compress<C>(internal::LoadLe64(p + i));
  uint64_t last = uint64_t{n & 0xff} << 56;
  for (std::size_t j = 0; i + j < n; ++j) last |= uint64_t{p[i + j]} << (8 * j);
  s.Compress<C>(last);
  return s.Finish<D>();
}

// SipHash-1-3 of the 16 bytes a, b (each little-endian): what the tables
// hash. Equal to SipHash<1, 3>() of those bytes, without the byte loop.
inline uint64_t SipHash13(const SipKey& key, uint64_t a, uint64_t b) {
  internal::SipState s(key);
  s.Compress<1>(a);
  s.Compress<1>(b);
  s.Compress<1>(uint64_t{16} << 56);
  return s.Finish<3>();
}

}  // namespace cfx::exchange
