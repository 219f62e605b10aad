#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exchange/core/money.h"

namespace cfx::settlement {

// The clearing rules of DESIGN.md §5 as pure functions (docs/settlement.md
// states the same). Prices are cfx::exchange::Price (price units, 1/10,000
// USD per GPU-hour); money is cfx::exchange::Amount (integer micro-dollars).
// Both are defined, and converted into each other, in exchange/core/
// (types.h, money.h).

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr int64_t kNanosPerDay = 86'400 * kNanosPerSecond;
// Micro-dollars per price unit.
using exchange::kMicrosPerPriceUnit;

// ---- Business days ----

// Mon-Fri minus the configured holidays. Days are days since 1970-01-01
// (1970-01-01 was a Thursday).
class BusinessCalendar {
 public:
  BusinessCalendar() = default;
  // `holidays`: any order, duplicates allowed.
  explicit BusinessCalendar(std::vector<int64_t> holidays);

  bool IsBusinessDay(int64_t day) const;
  // The first business day >= day.
  int64_t NextOrSame(int64_t day) const;
  // The last business day < day.
  int64_t Previous(int64_t day) const;
  // The business day a futures fill at `ts_ns` belongs to: t such that
  // ts is in [Previous(t) at settle, t at settle); weekend and holiday
  // fills belong to the next business day. `settle_seconds` = seconds after
  // 00:00 UTC (21:00 = 75,600). Days before 1970 use floor division.
  int64_t DayOfFill(int64_t ts_ns, int64_t settle_seconds) const;
  // The business days of the calendar month (year, month 1-12), ascending;
  // UTC civil dates, no time zones. A month outside 1-12 is normalised
  // (13 = January of year + 1, 0 = December of year - 1).
  std::vector<int64_t> DaysOfMonth(int year, int month) const;
  // The last business day of the month; for a month without any business
  // day (all its weekdays holidays), the last business day before it.
  int64_t LastOfMonth(int year, int month) const;
  // The holidays, ascending, each once.
  const std::vector<int64_t>& holidays() const { return holidays_; }

 private:
  std::vector<int64_t> holidays_;  // sorted, unique
};

// ---- Daily settlement price (DSP) ----

enum class DspTier : uint8_t { kNone = 0, k1 = 1, k2 = 2, k3 = 3, kFinal = 4 };

// What the DSP of one contract on one business day sees.
struct DspInput {
  exchange::Price tick{100};
  // The prior DSP, or (on the contract's first day) the initial reference:
  // the tie-break of Tier 1 and the base of Tier 3.
  exchange::Price prior;
  // Tier 1: Σ price units x lots and Σ lots of the fills in [settle - 15
  // min, settle).
  __extension__ __int128 window_notional = 0;
  int64_t window_lots = 0;
  // Tier 2: the day's last fill price (0 = none today), and the closing
  // best bid and offer (0 = that side empty).
  exchange::Price last_trade;
  exchange::Price best_bid;
  exchange::Price best_ask;
  // Today is the contract's last trading day: it settles FINAL at the FSP,
  // so it is never the month whose change a Tier 3 month takes.
  bool expiring = false;
};

struct Dsp {
  exchange::Price price;
  DspTier tier = DspTier::kNone;
};

// Tier 1 or 2 when the contract traded today, else nullopt (Tier 3 is
// decided across the root by SettleRoot). Tier 1: the window VWAP rounded
// to the tick, a half tick toward the prior. Tier 2: the last trade clipped
// into [best bid, best offer] (a missing side does not clip), on the tick.
std::optional<Dsp> TradedDsp(const DspInput& in);

// One root's months on one business day, in maturity order: Tier 1/2 where
// they traded; Tier 3 elsewhere = prior + the change (DSP - prior) of the
// nearest month of the root settled today at Tier 1 or 2 (equally near:
// the earlier month), or the prior when none did. An expiring month gets
// its traded DSP here but is never that nearest month (it settles FINAL).
// Same length and order as `months`.
std::vector<Dsp> SettleRoot(std::span<const DspInput> months);

// ---- Variation margin ----

struct Fill {
  int64_t lots = 0;  // signed: buys > 0
  exchange::Price price;
};

// VM_t = gpu_hours x [position_{t-1} x (S_t - S_{t-1}) + Σ fills x (S_t -
// fill price)], in micro-dollars (exact). On the contract's first day
// `previous_position` is 0 and `previous_settle` is ignored.
// REQUIRES: prices in [0, 2^62), |previous_position| + Σ |lots| < 2^62 and
// the exact result fits in int64 (|VM| < $9.2 trillion); outside that the
// result saturates at INT64_MIN / INT64_MAX.
exchange::Amount VariationMargin(int64_t gpu_hours, int64_t previous_position,
                                 exchange::Price previous_settle,
                                 exchange::Price settle,
                                 std::span<const Fill> fills);

// ---- Final settlement price (FSP) ----

// One business day of the delivery month as the index published it.
struct MonthFixing {
  int64_t day = 0;
  bool has_value = false;  // false: no print at all that day
  exchange::IndexPrice value;
  bool from_trades = false;  // Level 1a, 1b or 2
};

// The FSP's grid: $0.001, in price units.
inline constexpr int64_t kFspStep = 10;

struct Fsp {
  exchange::Price price;   // a multiple of kFspStep ($0.001)
  bool disrupted = false;  // fewer than 75 % (strictly) of days qualify
  uint32_t days = 0;
  uint32_t qualifying = 0;  // days with a Level 1a/1b/2 fixing
  // false (and price 0): empty input, a day with no value and none published
  // before it, a value <= 0, or days not in ascending order.
  bool ok = false;
};

// The FSP: the exact mean of the month's business-day values, half-up to
// $0.001. A day without a print takes the last published value before it
// (`carried_in`, the value before the month, may be 0 = none) and does not
// qualify. `fixings` are the month's business days in ascending order.
Fsp FinalSettlementPrice(std::span<const MonthFixing> fixings,
                         exchange::IndexPrice carried_in);

// ---- Spot cash ----

// Notional of a spot trade: price x gpu_hours_per_lot x lots, micro-dollars
// (price x 100 x gpu_hours_per_lot x lots, exact). REQUIRES: the result fits
// in int64; otherwise it saturates at INT64_MIN / INT64_MAX.
exchange::Amount SpotNotional(exchange::Price price, int64_t gpu_hours_per_lot,
                              int64_t lots);

// The business day whose run pays a spot trade delivered on `delivery_day`:
// that day, or the next business day.
int64_t SpotCashDay(const BusinessCalendar& calendar, int64_t delivery_day);

}  // namespace cfx::settlement
