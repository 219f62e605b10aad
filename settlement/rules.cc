#include "settlement/rules.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"

namespace cfx::settlement {

namespace internal {

__extension__ typedef __int128 Int128;

constexpr Int128 kInt64Max = std::numeric_limits<int64_t>::max();
constexpr Int128 kInt64Min = std::numeric_limits<int64_t>::min();

// Floor division and modulo (the quotient rounds toward -infinity, the
// remainder has the sign of the divisor). REQUIRES: d > 0.
constexpr Int128 FloorDiv(Int128 n, Int128 d) {
  Int128 q = n / d;
  if (n % d != 0 && n < 0) --q;
  return q;
}

constexpr int64_t FloorMod(int64_t n, int64_t d) {
  const int64_t r = n % d;
  return r < 0 ? r + d : r;
}

// Clamps an exact value into int64 (the documented saturation for results
// outside the REQUIRES range).
constexpr int64_t Saturate(Int128 v) {
  if (v > kInt64Max) return std::numeric_limits<int64_t>::max();
  if (v < kInt64Min) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Monday = 0 ... Sunday = 6; day 0 (1970-01-01) is a Thursday (3).
constexpr int64_t Weekday(int64_t day) { return FloorMod(day + 3, 7); }

// The first day of (year, month) and of the month after it. A month outside
// 1-12 is normalised (month 13 = January of the next year, month 0 =
// December of the previous one), so every input names some month.
std::pair<int64_t, int64_t> MonthBounds(int year, int month) {
  const int64_t m0 = static_cast<int64_t>(month) - 1;
  const int64_t y =
      static_cast<int64_t>(year) + static_cast<int64_t>(FloorDiv(m0, 12));
  const int64_t m = FloorMod(m0, 12) + 1;
  const int64_t first = exchange::DaysFromCivil(y, m, 1);
  const int64_t next =
      m == 12 ? exchange::DaysFromCivil(y + 1, 1, 1)
              : exchange::DaysFromCivil(y, m + 1, 1);
  return {first, next};
}

// Rounds the exact rational num / den (den > 0) to a multiple of `tick`
// (> 0): the nearer multiple, and exactly half way the one nearer `prior`
// (when `prior` is itself exactly half way, the lower). Returns nullopt when
// the result does not fit in int64.
std::optional<int64_t> RoundToTick(Int128 num, Int128 den, int64_t tick,
                                   int64_t prior) {
  // v = num / den; k = floor(v / tick); r / step = the fraction above k.
  const Int128 step = den * tick;
  const Int128 k = FloorDiv(num, step);
  const Int128 r = num - k * step;  // 0 <= r < step
  const Int128 lower = k * tick;
  // Out of int64 whichever way it rounds (and keeps 2 x lower in range).
  if (lower > kInt64Max || lower < kInt64Min - tick) return std::nullopt;
  Int128 result = lower;
  if (r != 0) {
    const Int128 twice_r = 2 * r;
    if (twice_r > step) {
      result = lower + tick;
    } else if (twice_r == step) {
      // The midpoint is lower + tick / 2; prior is nearer the upper tick iff
      // 2 x prior > 2 x lower + tick.
      const Int128 twice_prior = 2 * static_cast<Int128>(prior);
      if (twice_prior > 2 * lower + tick) result = lower + tick;
    }
  }
  if (result > kInt64Max || result < kInt64Min) return std::nullopt;
  return static_cast<int64_t>(result);
}

}  // namespace internal

using internal::Int128;

// ---- Business days ----

BusinessCalendar::BusinessCalendar(std::vector<int64_t> holidays)
    : holidays_(std::move(holidays)) {
  std::sort(holidays_.begin(), holidays_.end());
  holidays_.erase(std::unique(holidays_.begin(), holidays_.end()),
                  holidays_.end());
}

bool BusinessCalendar::IsBusinessDay(int64_t day) const {
  return internal::Weekday(day) < 5 &&
         !std::binary_search(holidays_.begin(), holidays_.end(), day);
}

// Both walks end: the holidays are finite and every week has five weekdays.
int64_t BusinessCalendar::NextOrSame(int64_t day) const {
  while (!IsBusinessDay(day)) ++day;
  return day;
}

int64_t BusinessCalendar::Previous(int64_t day) const {
  --day;
  while (!IsBusinessDay(day)) --day;
  return day;
}

int64_t BusinessCalendar::DayOfFill(int64_t ts_ns,
                                    int64_t settle_seconds) const {
  // The first calendar day c whose settlement instant (c x day + settle) lies
  // after ts: c = floor((ts - settle) / day) + 1. The fill belongs to the
  // first business day >= c: every day in [c, that day) is not a business
  // day, so the previous business day settled at or before ts.
  const Int128 settle_ns =
      static_cast<Int128>(settle_seconds) * kNanosPerSecond;
  const Int128 c =
      internal::FloorDiv(static_cast<Int128>(ts_ns) - settle_ns, kNanosPerDay) +
      1;
  return NextOrSame(internal::Saturate(c));
}

std::vector<int64_t> BusinessCalendar::DaysOfMonth(int year, int month) const {
  const auto [first, next] = internal::MonthBounds(year, month);
  std::vector<int64_t> days;
  days.reserve(23);
  for (int64_t d = first; d < next; ++d) {
    if (IsBusinessDay(d)) days.push_back(d);
  }
  return days;
}

int64_t BusinessCalendar::LastOfMonth(int year, int month) const {
  // The last business day before the first day of the next month; a month
  // without any business day yields the last business day before it.
  return Previous(internal::MonthBounds(year, month).second);
}

// ---- Daily settlement price ----

std::optional<Dsp> TradedDsp(const DspInput& in) {
  // A tick below one price unit cannot be rounded to; treat it as one unit.
  const int64_t tick = std::max<int64_t>(in.tick.units, 1);
  const int64_t prior = in.prior.units;
  // Tier 1. A window with a non-positive notional is not a real window (the
  // engine never produces one) and is ignored.
  if (in.window_lots > 0 && in.window_notional > 0) {
    const std::optional<int64_t> price =
        internal::RoundToTick(in.window_notional, in.window_lots, tick, prior);
    if (price.has_value()) return Dsp{exchange::Price{*price}, DspTier::k1};
  }
  // Tier 2. A side <= 0 is empty and does not clip; a crossed book clips by
  // the bid first, then by the offer.
  if (in.last_trade.units > 0) {
    int64_t price = in.last_trade.units;
    const int64_t bid = in.best_bid.units;
    const int64_t ask = in.best_ask.units;
    if (bid > 0 && price < bid) price = bid;
    if (ask > 0 && price > ask) price = ask;
    const std::optional<int64_t> rounded =
        internal::RoundToTick(price, 1, tick, prior);
    if (rounded.has_value()) return Dsp{exchange::Price{*rounded}, DspTier::k2};
  }
  return std::nullopt;
}

std::vector<Dsp> SettleRoot(std::span<const DspInput> months) {
  const std::size_t n = months.size();
  std::vector<Dsp> out(n);
  std::vector<bool> traded(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const std::optional<Dsp> dsp = TradedDsp(months[i]);
    if (dsp.has_value()) {
      out[i] = *dsp;
      traded[i] = true;
    }
  }
  // The months whose change a Tier 3 month may take.
  std::vector<bool> source(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    source[i] = traded[i] && !months[i].expiring;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (traded[i]) continue;
    const DspInput& in = months[i];
    // The nearest traded month by index distance; at equal distance the
    // earlier month (i - d) is looked at first.
    Int128 change = 0;
    for (std::size_t d = 1; d < n; ++d) {
      if (d <= i && source[i - d]) {
        change = static_cast<Int128>(out[i - d].price.units) -
                 months[i - d].prior.units;
        break;
      }
      if (i + d < n && source[i + d]) {
        change = static_cast<Int128>(out[i + d].price.units) -
                 months[i + d].prior.units;
        break;
      }
    }
    const int64_t tick = std::max<int64_t>(in.tick.units, 1);
    const Int128 raw = static_cast<Int128>(in.prior.units) + change;
    // On the tick (a no-op when the prior and the change are on it), and at
    // least one tick: a settlement price is never zero or negative.
    std::optional<int64_t> price =
        internal::RoundToTick(raw, 1, tick, in.prior.units);
    if (!price.has_value()) {
      price =
          raw > 0 ? std::numeric_limits<int64_t>::max() / tick * tick : tick;
    }
    out[i] = Dsp{exchange::Price{std::max(*price, tick)}, DspTier::k3};
  }
  return out;
}

// ---- Variation margin ----

exchange::Amount VariationMargin(int64_t gpu_hours, int64_t previous_position,
                                 exchange::Price previous_settle,
                                 exchange::Price settle,
                                 std::span<const Fill> fills) {
  // The bracket in price units x lots, then x gpu_hours x micro-dollars per
  // price unit, exact in 128 bits; every step is checked so that inputs
  // outside the documented range saturate instead of wrapping.
  bool overflow = false;
  Int128 bracket = 0;
  const auto add_term = [&](int64_t lots, exchange::Price from) {
    Int128 term = 0;
    overflow |= __builtin_mul_overflow(
        static_cast<Int128>(lots),
        static_cast<Int128>(settle.units) - from.units, &term);
    overflow |= __builtin_add_overflow(bracket, term, &bracket);
  };
  add_term(previous_position, previous_settle);
  for (const Fill& f : fills) add_term(f.lots, f.price);
  Int128 money = 0;
  overflow |=
      __builtin_mul_overflow(bracket, static_cast<Int128>(gpu_hours), &money);
  overflow |= __builtin_mul_overflow(
      money, static_cast<Int128>(kMicrosPerPriceUnit), &money);
  if (overflow) {
    const bool negative = (bracket < 0) != (gpu_hours < 0);
    return exchange::Amount{negative ? std::numeric_limits<int64_t>::min()
                                     : std::numeric_limits<int64_t>::max()};
  }
  return exchange::Amount{internal::Saturate(money)};
}

// ---- Final settlement price ----

Fsp FinalSettlementPrice(std::span<const MonthFixing> fixings,
                         exchange::IndexPrice carried_in) {
  Fsp fsp;
  if (fixings.empty() ||
      fixings.size() > std::numeric_limits<uint32_t>::max()) {
    return fsp;
  }
  fsp.days = static_cast<uint32_t>(fixings.size());
  bool ok = true;
  // The last published value; 0 = none (an index value is always > 0).
  int64_t carry = carried_in.micros > 0 ? carried_in.micros : 0;
  Int128 sum = 0;
  for (std::size_t i = 0; i < fixings.size(); ++i) {
    const MonthFixing& f = fixings[i];
    // The days must be the month's business days in ascending order: the
    // carried value depends on it.
    if (i > 0 && f.day <= fixings[i - 1].day) ok = false;
    if (f.has_value) {
      if (f.value.micros <= 0) {
        ok = false;  // not a value the index can publish
      } else {
        carry = f.value.micros;
      }
      if (f.from_trades) ++fsp.qualifying;
    }
    if (carry == 0) ok = false;  // nothing published yet: never invent one
    sum += carry;
  }
  // Strictly fewer than 75 %: 4 x qualifying < 3 x days.
  fsp.disrupted = 4 * static_cast<uint64_t>(fsp.qualifying) <
                  3 * static_cast<uint64_t>(fsp.days);
  if (!ok) return fsp;
  // mean / 1,000 micros, half-up: floor((2 x sum + 1,000 x days) / (2,000 x
  // days)) thousandths of a dollar; one thousandth = 10 price units.
  const Int128 days = fsp.days;
  const Int128 thousandths =
      internal::FloorDiv(2 * sum + 1'000 * days, 2'000 * days);
  fsp.price = exchange::Price{internal::Saturate(thousandths * kFspStep)};
  fsp.ok = true;
  return fsp;
}

// ---- Spot cash ----

exchange::Amount SpotNotional(exchange::Price price, int64_t gpu_hours_per_lot,
                              int64_t lots) {
  Int128 v = 0;
  if (__builtin_mul_overflow(
          static_cast<Int128>(price.units) * kMicrosPerPriceUnit,
          static_cast<Int128>(gpu_hours_per_lot) * lots, &v)) {
    const bool negative =
        (price.units < 0) != ((gpu_hours_per_lot < 0) != (lots < 0));
    return exchange::Amount{negative ? std::numeric_limits<int64_t>::min()
                                     : std::numeric_limits<int64_t>::max()};
  }
  return exchange::Amount{internal::Saturate(v)};
}

int64_t SpotCashDay(const BusinessCalendar& calendar, int64_t delivery_day) {
  return calendar.NextOrSame(delivery_day);
}

}  // namespace cfx::settlement
