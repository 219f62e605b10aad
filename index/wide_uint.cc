#include "index/wide_uint.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace cfx::index {

using U128 = WideUint::U128;

WideUint::WideUint(U128 v) {
  while (v != 0) {
    limb_.push_back(static_cast<uint64_t>(v));
    v >>= 64;
  }
}

WideUint WideUint::FromLimbs(std::vector<uint64_t> limbs) {
  WideUint out;
  out.limb_ = std::move(limbs);
  out.Trim();
  return out;
}

void WideUint::Trim() {
  while (!limb_.empty() && limb_.back() == 0) limb_.pop_back();
}

uint32_t WideUint::BitWidth() const {
  if (limb_.empty()) return 0;
  return static_cast<uint32_t>(64 * limb_.size()) -
         static_cast<uint32_t>(__builtin_clzll(limb_.back()));
}

bool WideUint::ToU128(U128* out) const {
  if (limb_.size() > 2) return false;
  U128 v = 0;
  for (std::size_t i = limb_.size(); i-- > 0;) v = (v << 64) | limb_[i];
  *out = v;
  return true;
}

void WideUint::Add(const WideUint& a) {
  if (limb_.size() < a.limb_.size()) limb_.resize(a.limb_.size(), 0);
  uint64_t carry = 0;
  std::size_t i = 0;
  for (; i < a.limb_.size(); ++i) {
    const U128 s = U128{limb_[i]} + a.limb_[i] + carry;
    limb_[i] = static_cast<uint64_t>(s);
    carry = static_cast<uint64_t>(s >> 64);
  }
  for (; carry != 0 && i < limb_.size(); ++i) {
    limb_[i] += carry;
    carry = limb_[i] == 0 ? 1 : 0;
  }
  if (carry != 0) limb_.push_back(carry);
}

void WideUint::Sub(const WideUint& a) {
  uint64_t borrow = 0;
  for (std::size_t i = 0; i < limb_.size(); ++i) {
    const uint64_t x = i < a.limb_.size() ? a.limb_[i] : 0;
    if (x == 0 && borrow == 0 && i >= a.limb_.size()) break;
    const uint64_t d = limb_[i] - x - borrow;
    borrow = (limb_[i] < x || (limb_[i] == x && borrow != 0)) ? 1 : 0;
    limb_[i] = d;
  }
  Trim();
}

void WideUint::ShiftLeft(uint32_t bits) {
  if (limb_.empty() || bits == 0) return;
  const std::size_t words = bits / 64;
  const uint32_t rest = bits % 64;
  if (rest != 0) {
    uint64_t carry = 0;
    for (uint64_t& l : limb_) {
      const uint64_t next = l >> (64 - rest);
      l = (l << rest) | carry;
      carry = next;
    }
    if (carry != 0) limb_.push_back(carry);
  }
  limb_.insert(limb_.begin(), words, 0);
}

void WideUint::ShiftRight(uint32_t bits) {
  const std::size_t words = bits / 64;
  if (words >= limb_.size()) {
    limb_.clear();
    return;
  }
  limb_.erase(limb_.begin(),
              limb_.begin() + static_cast<std::ptrdiff_t>(words));
  const uint32_t rest = bits % 64;
  if (rest != 0) {
    for (std::size_t i = 0; i < limb_.size(); ++i) {
      const uint64_t hi = i + 1 < limb_.size() ? limb_[i + 1] : 0;
      limb_[i] = (limb_[i] >> rest) | (hi << (64 - rest));
    }
  }
  Trim();
}

uint32_t WideUint::TrailingZeros() const {
  for (std::size_t i = 0; i < limb_.size(); ++i) {
    if (limb_[i] != 0) {
      return static_cast<uint32_t>(64 * i) +
             static_cast<uint32_t>(__builtin_ctzll(limb_[i]));
    }
  }
  return 0;
}

WideUint operator*(const WideUint& a, const WideUint& b) {
  WideUint out;
  if (a.limb_.empty() || b.limb_.empty()) return out;
  out.limb_.assign(a.limb_.size() + b.limb_.size(), 0);
  for (std::size_t i = 0; i < a.limb_.size(); ++i) {
    uint64_t carry = 0;
    for (std::size_t j = 0; j < b.limb_.size(); ++j) {
      const U128 s = U128{a.limb_[i]} * b.limb_[j] + out.limb_[i + j] + carry;
      out.limb_[i + j] = static_cast<uint64_t>(s);
      carry = static_cast<uint64_t>(s >> 64);
    }
    out.limb_[i + b.limb_.size()] = carry;
  }
  out.Trim();
  return out;
}

void WideUint::DivMod(const WideUint& n, const WideUint& d, WideUint* quot,
                      WideUint* rem) {
  U128 n128 = 0;
  U128 d128 = 0;
  if (n.ToU128(&n128) && d.ToU128(&d128)) {  // the common case
    if (quot != nullptr) *quot = WideUint(n128 / d128);
    if (rem != nullptr) *rem = WideUint(n128 % d128);
    return;
  }
  WideUint q;
  WideUint r;
  if (Compare(n, d) >= 0) {
    // Shift and subtract, one bit at a time: the numbers here are a few
    // hundred bits and the divisions few.
    const uint32_t bits = n.BitWidth();
    q.limb_.assign(n.limb_.size(), 0);
    for (uint32_t i = bits; i-- > 0;) {
      r.ShiftLeft(1);
      if ((n.limb_[i / 64] >> (i % 64)) & 1) {
        if (r.limb_.empty()) r.limb_.push_back(0);
        r.limb_[0] |= 1;
      }
      if (Compare(r, d) >= 0) {
        r.Sub(d);
        q.limb_[i / 64] |= uint64_t{1} << (i % 64);
      }
    }
    q.Trim();
  } else {
    r = n;
  }
  if (quot != nullptr) *quot = std::move(q);
  if (rem != nullptr) *rem = std::move(r);
}

WideUint Gcd(WideUint a, WideUint b) {
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  const uint32_t shift = std::min(a.TrailingZeros(), b.TrailingZeros());
  a.ShiftRight(a.TrailingZeros());
  while (!b.is_zero()) {  // binary gcd: a stays odd
    b.ShiftRight(b.TrailingZeros());
    if (Compare(a, b) > 0) std::swap(a, b);
    b.Sub(a);
  }
  a.ShiftLeft(shift);
  return a;
}

bool RoundHalfUp(const WideUint& num, const WideUint& den, int64_t unit,
                 int64_t* out) {
  if (den.is_zero() || unit <= 0) return false;
  WideUint d = den;
  d = d * WideUint(static_cast<U128>(unit));
  WideUint q;
  WideUint r;
  WideUint::DivMod(num, d, &q, &r);
  r.ShiftLeft(1);
  if (Compare(r, d) >= 0) q.Add(WideUint(1));
  U128 v = 0;
  if (!q.ToU128(&v) || v > static_cast<U128>(INT64_MAX / unit)) return false;
  *out = static_cast<int64_t>(v) * unit;
  return true;
}

}  // namespace cfx::index
