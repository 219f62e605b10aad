#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cfx::index {

// A non-negative integer of any width, for the index's exact arithmetic
// (capped weights over a common denominator, their sums and products).
// Limbs are 64-bit, least significant first, with no leading zero limb, so
// equal values have equal limbs.
//
// Memory: the limbs live on the heap; the in-place operations (Add,
// AddMul) allocate only when the value outgrows what it held before, so an
// accumulator reused over a pass allocates a few times at most.
// Thread: a value; no shared state.
class WideUint {
 public:
  __extension__ using U128 = unsigned __int128;

  WideUint() = default;
  explicit WideUint(U128 v);
  // From limbs, least significant first (leading zeros are dropped).
  static WideUint FromLimbs(std::vector<uint64_t> limbs);

  const std::vector<uint64_t>& limbs() const { return limb_; }
  bool is_zero() const { return limb_.empty(); }
  // Bits needed: 0 for zero.
  uint32_t BitWidth() const;
  // True, with the value in *out, when it fits in 128 bits.
  bool ToU128(U128* out) const;

  // *this += a.
  void Add(const WideUint& a);
  // *this += a x m. Inline: the passes over a day's trades call it once
  // per trade.
  void AddMul(const WideUint& a, uint64_t m) {
    const std::size_t n = a.limb_.size();
    if (m == 0 || n == 0) return;
    if (limb_.size() < n) limb_.resize(n, 0);
    uint64_t carry = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const U128 s = U128{a.limb_[i]} * m + limb_[i] + carry;
      limb_[i] = static_cast<uint64_t>(s);
      carry = static_cast<uint64_t>(s >> 64);
    }
    // a's top limb is not zero, so neither is the sum's: no trimming.
    for (std::size_t i = n; carry != 0 && i < limb_.size(); ++i) {
      const U128 s = U128{limb_[i]} + carry;
      limb_[i] = static_cast<uint64_t>(s);
      carry = static_cast<uint64_t>(s >> 64);
    }
    if (carry != 0) limb_.push_back(carry);
  }
  // *this -= a. REQUIRES: a <= *this.
  void Sub(const WideUint& a);
  // *this <<= bits.
  void ShiftLeft(uint32_t bits);

  friend WideUint operator*(const WideUint& a, const WideUint& b);
  // -1, 0 or 1 as a <, ==, > b.
  friend int Compare(const WideUint& a, const WideUint& b) {
    if (a.limb_.size() != b.limb_.size()) {
      return a.limb_.size() < b.limb_.size() ? -1 : 1;
    }
    for (std::size_t i = a.limb_.size(); i-- > 0;) {
      if (a.limb_[i] != b.limb_[i]) return a.limb_[i] < b.limb_[i] ? -1 : 1;
    }
    return 0;
  }
  friend bool operator==(const WideUint&, const WideUint&) = default;

  // *quot = n / d, *rem = n % d (either may be null). REQUIRES: d != 0.
  static void DivMod(const WideUint& n, const WideUint& d, WideUint* quot,
                     WideUint* rem);
  // The greatest common divisor (gcd(0, b) = b).
  friend WideUint Gcd(WideUint a, WideUint b);

 private:
  void Trim();
  void ShiftRight(uint32_t bits);
  uint32_t TrailingZeros() const;

  std::vector<uint64_t> limb_;
};

// num / den rounded half-up to a multiple of `unit` into *out: the one
// rounding of an exact value at publication. Returns false (and leaves
// *out) when den or unit is not positive or the result does not fit
// int64_t.
[[nodiscard]] bool RoundHalfUp(const WideUint& num, const WideUint& den,
                               int64_t unit, int64_t* out);

}  // namespace cfx::index
