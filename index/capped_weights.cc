#include "index/capped_weights.h"

#include <algorithm>

namespace cfx::index::internal {

using U128 = WideUint::U128;

WeightFactor CapFactor(int64_t cap_bp, U128 total, U128 firm) {
  const WideUint num =
      WideUint(static_cast<U128>(std::max<int64_t>(cap_bp, 0))) *
      WideUint(total);
  const WideUint den = WideUint(10'000) * WideUint(firm);
  if (Compare(num, den) >= 0) return {};
  if (num.is_zero()) return {WideUint(), WideUint(1)};
  const WideUint g = Gcd(num, den);
  WeightFactor f;
  WideUint::DivMod(num, g, &f.num, nullptr);
  WideUint::DivMod(den, g, &f.den, nullptr);
  return f;
}

WeightFactor ClassFactor(const WeightFactor& seller,
                         const WeightFactor& buyer) {
  // Both are in lowest terms, so only a numerator and the other
  // denominator can share a factor.
  const WideUint g1 = Gcd(seller.num, buyer.den);
  const WideUint g2 = Gcd(buyer.num, seller.den);
  WideUint sn, bd, bn, sd;
  WideUint::DivMod(seller.num, g1, &sn, nullptr);
  WideUint::DivMod(buyer.den, g1, &bd, nullptr);
  WideUint::DivMod(buyer.num, g2, &bn, nullptr);
  WideUint::DivMod(seller.den, g2, &sd, nullptr);
  WeightFactor f{sn * bn, sd * bd};
  if (f.num.is_zero()) f.den = WideUint(1);
  return f;
}

WeightScale CommonScale(std::span<const WeightFactor> factors) {
  WeightScale s;
  for (const WeightFactor& f : factors) {
    const WideUint g = Gcd(s.denominator, f.den);
    WideUint part;
    WideUint::DivMod(f.den, g, &part, nullptr);
    s.denominator = s.denominator * part;
  }
  s.scaled.reserve(factors.size());
  for (const WeightFactor& f : factors) {
    WideUint multiple;
    WideUint::DivMod(s.denominator, f.den, &multiple, nullptr);
    s.scaled.push_back(f.num * multiple);
  }
  return s;
}

}  // namespace cfx::index::internal
