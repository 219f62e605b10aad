#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "index/wide_uint.h"

namespace cfx::index::internal {

// The exact capped weights of the methodology (DESIGN.md §4.2), without
// rounding: w_j = q_j x min(1, cQ/Q_seller) x min(1, cQ/Q_buyer).
//
// A day has few distinct factors (fewer than 2/c firms can be above the
// cap c, since the Q_x add up to 2Q), so its trades fall into few weight
// classes, one per pair of factors. A level puts its classes on one
// integer scale: trade j of class k weighs q_j x scaled[k] / denominator,
// so every sum and comparison of weights is an exact integer one.

// A non-negative fraction num / den, den > 0, in lowest terms.
struct WeightFactor {
  WideUint num = WideUint(1);
  WideUint den = WideUint(1);
};

// min(1, c Q / Q_x) for a firm with `firm` GPU-hours of a day's `total`,
// c = cap_bp / 10,000. REQUIRES: total, firm > 0.
WeightFactor CapFactor(int64_t cap_bp, WideUint::U128 total,
                       WideUint::U128 firm);
// The product of a seller's and a buyer's factors, in lowest terms.
WeightFactor ClassFactor(const WeightFactor& seller, const WeightFactor& buyer);

// The weight classes of a day's trades: a class per pair (seller's
// factor, buyer's factor) that occurs.
struct DayClasses {
  std::vector<uint32_t> cls;          // per trade
  std::vector<WeightFactor> factors;  // per class
};
// `total` is the day's Q, by_firm[f] firm slot f's Q_x (both sides), and
// sides[i] trade i's (seller slot, buyer slot). REQUIRES: every Q_x > 0.
DayClasses ClassifyTrades(int64_t cap_bp, WideUint::U128 total,
                          std::span<const WideUint::U128> by_firm,
                          std::span<const std::pair<uint32_t, uint32_t>> sides);

struct WeightScale {
  std::vector<WideUint> scaled;        // per class: factor x denominator
  WideUint denominator = WideUint(1);  // the lcm of the factors' denominators
};
// The common scale of `factors` (one per class).
WeightScale CommonScale(std::span<const WeightFactor> factors);

}  // namespace cfx::index::internal
