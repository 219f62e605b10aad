#include "index/capped_weights.h"

#include <algorithm>
#include <unordered_map>

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

DayClasses ClassifyTrades(
    int64_t cap_bp, U128 total, std::span<const U128> by_firm,
    std::span<const std::pair<uint32_t, uint32_t>> sides) {
  // Capped firms are numbered 1..m; the uncapped share number 0 (factor 1).
  std::vector<uint32_t> capped(by_firm.size(), 0);
  std::vector<WeightFactor> firm_factor(1);
  for (std::size_t f = 0; f < by_firm.size(); ++f) {
    WeightFactor factor = CapFactor(cap_bp, total, by_firm[f]);
    if (factor.num == factor.den) continue;
    capped[f] = static_cast<uint32_t>(firm_factor.size());
    firm_factor.push_back(std::move(factor));
  }
  // A class per pair that occurs: a table of (m + 1)^2 entries, or a hash
  // map when that would be large (a cap far below 0.30).
  const uint64_t m1 = firm_factor.size();
  constexpr uint32_t kNoClass = ~uint32_t{0};
  constexpr uint64_t kDenseClasses = uint64_t{1} << 16;
  std::vector<uint32_t> dense(m1 * m1 <= kDenseClasses ? m1 * m1 : 0, kNoClass);
  std::unordered_map<uint64_t, uint32_t> sparse;
  DayClasses out;
  out.cls.resize(sides.size());
  for (std::size_t i = 0; i < sides.size(); ++i) {
    const uint32_t s = capped[sides[i].first];
    const uint32_t b = capped[sides[i].second];
    const uint64_t key = s * m1 + b;
    uint32_t& cls = dense.empty()
                        ? sparse.try_emplace(key, kNoClass).first->second
                        : dense[key];
    if (cls == kNoClass) {
      cls = static_cast<uint32_t>(out.factors.size());
      out.factors.push_back(ClassFactor(firm_factor[s], firm_factor[b]));
    }
    out.cls[i] = cls;
  }
  return out;
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
