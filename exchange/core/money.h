// Prices as money: the one conversion between price units (1/10,000 USD,
// types.h) and micro-dollars (index prices, types.h), and the notional of an
// order or trade. Every part of CFX that turns a price into micro-dollars,
// or an index price into a price, calls these.

#pragma once

#include <cstdint>
#include <optional>

#include "exchange/core/types.h"

namespace cfx::exchange {

// Micro-dollars per price unit (100).
inline constexpr int64_t kMicrosPerPriceUnit =
    kMicrosPerUsd / kPriceUnitsPerUsd;

// `price` on the index's grid, in micro-dollars per GPU-hour (exact).
// REQUIRES: the result fits in int64 (|price.units| <= INT64_MAX / 100).
constexpr IndexPrice ToIndexPrice(Price price) {
  return IndexPrice{price.units * kMicrosPerPriceUnit};
}

// The whole price units in `price`, rounded toward zero.
constexpr Price PriceFromIndex(IndexPrice price) {
  return Price{price.micros / kMicrosPerPriceUnit};
}

// The notional of `quantity` lots of `gpu_hours_per_lot` GPU-hours each at
// `price` per GPU-hour, in micro-dollars; nullopt when it leaves int64 at a
// step of price in micro-dollars, times lots, times GPU-hours (so a zero
// factor does not rescue an overflow before it).
constexpr std::optional<Amount> Notional(Price price, Quantity quantity,
                                         int64_t gpu_hours_per_lot) {
  int64_t v = 0;
  if (__builtin_mul_overflow(price.units, kMicrosPerPriceUnit, &v) ||
      __builtin_mul_overflow(v, quantity.lots, &v) ||
      __builtin_mul_overflow(v, gpu_hours_per_lot, &v)) {
    return std::nullopt;
  }
  return Amount{v};
}

}  // namespace cfx::exchange
