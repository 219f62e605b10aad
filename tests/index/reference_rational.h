#pragma once

#include <cstdint>
#include <vector>

namespace cfx::index::reference {

// The reference methodology's own exact arithmetic, written for clarity and
// independent of index/wide_uint.h: a natural number in base 2^32 (least
// significant digit first, no leading zero digit) and a non-negative
// fraction always kept in lowest terms.
class Nat {
 public:
  Nat() = default;
  Nat(uint64_t v);  // NOLINT: numbers convert implicitly

  bool zero() const { return d_.empty(); }
  const std::vector<uint32_t>& digits() const { return d_; }

  friend Nat operator+(const Nat& a, const Nat& b);
  friend Nat operator-(const Nat& a, const Nat& b);  // REQUIRES: a >= b
  friend Nat operator*(const Nat& a, const Nat& b);
  friend Nat operator/(const Nat& a, const Nat& b);  // REQUIRES: b != 0
  friend Nat operator%(const Nat& a, const Nat& b);  // REQUIRES: b != 0
  friend int Cmp(const Nat& a, const Nat& b);
  friend bool operator==(const Nat& a, const Nat& b) { return Cmp(a, b) == 0; }
  friend bool operator<(const Nat& a, const Nat& b) { return Cmp(a, b) < 0; }
  friend bool operator<=(const Nat& a, const Nat& b) { return Cmp(a, b) <= 0; }
  // The value when it fits in 64 bits (else the low 64 bits).
  uint64_t Low64() const;

 private:
  static void DivMod(const Nat& a, const Nat& b, Nat* q, Nat* r);
  void Trim();
  std::vector<uint32_t> d_;
};

Nat GcdOf(Nat a, Nat b);

class Frac {
 public:
  Frac() : num_(0), den_(1) {}
  Frac(Nat n, Nat d = 1);  // NOLINT: REQUIRES d != 0

  const Nat& num() const { return num_; }
  const Nat& den() const { return den_; }

  friend Frac operator+(const Frac& a, const Frac& b);
  friend Frac operator-(const Frac& a, const Frac& b);  // REQUIRES: a >= b
  friend Frac operator*(const Frac& a, const Frac& b);
  friend Frac operator/(const Frac& a, const Frac& b);  // REQUIRES: b != 0
  friend int Cmp(const Frac& a, const Frac& b);
  friend bool operator==(const Frac& a, const Frac& b) {
    return Cmp(a, b) == 0;
  }
  friend bool operator<(const Frac& a, const Frac& b) { return Cmp(a, b) < 0; }
  friend bool operator<=(const Frac& a, const Frac& b) {
    return Cmp(a, b) <= 0;
  }

  // floor(x / unit + 1/2) x unit: half-up to a multiple of `unit`.
  int64_t RoundHalfUp(int64_t unit) const;

 private:
  Nat num_;
  Nat den_;
};

inline const Frac& Min(const Frac& a, const Frac& b) { return b < a ? b : a; }
inline const Frac& Max(const Frac& a, const Frac& b) { return a < b ? b : a; }

}  // namespace cfx::index::reference
