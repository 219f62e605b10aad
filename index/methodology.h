#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/types.h"
#include "index/wide_uint.h"

namespace cfx::index {

// The CFX-<grade> index methodology (DESIGN.md §4, published as
// docs/index-methodology.md) as a pure function: the same inputs give the
// same print, byte for byte, whatever the order of the trades.
//
// Prices are exchange::IndexPrice (integer micro-dollars per GPU-hour);
// published values are rounded half-up to $0.001 (1,000 micro-dollars).
// Everything before publication is exact: capped weights are exact fractions
// (index/capped_weights.h), put on one integer scale per level, and every sum,
// comparison, median tie test, trimmed mean and T is exact integer arithmetic
// (WideUint). Each published figure is rounded once.

__extension__ using Int128 = __int128;

// A non-negative rational num / den in lowest terms; den = 0 (and num = 0)
// when there is none.
struct ExactRatio {
  WideUint num;
  WideUint den;
  bool known() const { return !den.is_zero(); }
  friend bool operator==(const ExactRatio&, const ExactRatio&) = default;
};
// num / den in lowest terms; none when den = 0.
ExactRatio ReducedRatio(WideUint num, WideUint den);

inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr int64_t kNanosPerDay = 86'400 * kNanosPerSecond;

// Part of the wire contract (cfx.wire.v1.IndexLevel): append only.
enum class Level : uint8_t {
  kNone = 0,
  k1a = 1,
  k1b = 2,
  k2 = 3,
  k3 = 4,
  k4 = 5,
  kDisrupted = 6,
};

// "1a", "1b", "2", "3", "4", "DISRUPTED"; "" for kNone.
std::string_view LevelName(Level level);
// True for 1a, 1b and 2: built from the grade's own trades.
constexpr bool FromTrades(Level l) {
  return l == Level::k1a || l == Level::k1b || l == Level::k2;
}

// One completed spot trade of the grade as the index sees it.
struct IndexTrade {
  uint64_t trade_id = 0;
  int64_t ts_ns = 0;  // match time (the sequenced time of the command)
  exchange::IndexPrice price;
  int64_t lots = 0;
  uint32_t seller = 0;  // participant (firm) ids, any numbering
  uint32_t buyer = 0;
  // Affiliation groups; a firm outside any group has a group of its own
  // (e.g. its firm id). Same group on both sides = excluded.
  uint32_t seller_group = 0;
  uint32_t buyer_group = 0;
  // The seller's attested output tokens/s/GPU for the grade at match time,
  // in thousandths.
  uint64_t seller_milli_tokens = 0;
  int64_t busted_at_ns = 0;  // 0 = not busted
};

struct MethodologyConfig {
  // Fixing time, seconds after 00:00 UTC. Day d covers
  // [d-1 at fixing, d at fixing).
  int64_t fixing_seconds = 21 * 3600;
  // GPU-hours per lot (192 = 8 GPUs x 24 h).
  int64_t gpu_hours_per_lot = 192;
  // Concentration cap c in basis points (3,000 = 0.30).
  int64_t cap_bp = 3'000;
  // Level 1 sufficiency (inclusive).
  uint32_t min_trades = 10;
  uint32_t min_sellers = 3;
  uint32_t min_buyers = 3;
  int64_t min_gpu_hours = 3'840;
  // 1a: partitions of the day and how many must qualify.
  uint32_t partitions = 6;
  uint32_t min_partition_trades = 2;
  uint32_t min_partitions = 4;
  // Erroneous-print filter: |ln(p / I_{d-1})| > ln(ratio) is dropped; a
  // price of exactly ratio x or / ratio is kept. Ratio as num/den (3/2).
  int64_t filter_ratio_num = 3;
  int64_t filter_ratio_den = 2;
  // Level 2 pools this many days (d, d-1, ...), weights x 0.5^age.
  uint32_t level2_days = 3;
  // Level 4 carries while fewer than this many immediately preceding prints
  // are Level 4 or DISRUPTED.
  uint32_t max_carry_days = 3;
  // Restatement (applied by the service): a bust at fixing <= t <
  // restate_until_seconds (after 00:00 UTC of d) republishes when the
  // published value moves strictly more than restate_threshold_bp.
  int64_t restate_until_seconds = 23 * 3600;
  int64_t restate_threshold_bp = 25;  // 0.25 %

  // The fixing instant of day d (days since 1970-01-01).
  int64_t FixingNs(int64_t day) const {
    return day * kNanosPerDay + fixing_seconds * kNanosPerSecond;
  }
  // The day a trade at `ts_ns` belongs to: the first d with ts < FixingNs(d).
  int64_t DayOf(int64_t ts_ns) const;
};

// One published print (DESIGN.md §4.5). A print with has_value = false is
// a DISRUPTED print with nothing to carry.
struct Print {
  uint32_t grade = 0;
  int64_t day = 0;             // UTC date of the fixing, days since 1970-01-01
  uint32_t revision = 0;       // 0 = the fixing; 1, 2, ... restatements
  int64_t computed_at_ns = 0;  // fixing instant, or the restating bust's
  Level level = Level::kNone;
  bool has_value = false;
  exchange::IndexPrice value;  // a multiple of 1,000 micro-dollars
  // The level's input set (empty for 3, 4, DISRUPTED).
  uint32_t trade_count = 0;
  uint32_t sellers = 0;
  uint32_t buyers = 0;
  int64_t gpu_hours = 0;
  exchange::IndexPrice p25;  // volume-weighted, the median rule at 1/4, 3/4
  exchange::IndexPrice p75;
  uint32_t partitions_used = 0;  // 1a: bit k-1 set = partition k used
  // USD per million output tokens = value x 10^6 / (3,600 x T), from the
  // published value and the exact T, rounded half-up to $0.001; has_upm =
  // false when no attested throughput is known.
  bool has_upm = false;
  int64_t usd_per_million_tokens_micros = 0;
  // T: the level's weight-average of the sellers' attested tokens/s/GPU,
  // exactly, in thousandths (num / den); carried by 3, 4 and DISRUPTED
  // (none when no print had one).
  ExactRatio attested_tokens;
  // T as published: attested_tokens rounded half-up to a thousandth (0 =
  // none). Derived: ComputeFixing sets it from attested_tokens.
  uint64_t attested_milli_tokens = 0;
  // Consecutive prints at 4 or DISRUPTED ending with this one (0 at 1a-3).
  uint32_t carry_run = 0;
  std::vector<uint64_t> trade_ids;  // ascending

  friend bool operator==(const Print&, const Print&) = default;
};

// What a fixing of `grade` for `day` sees.
struct FixingInput {
  uint32_t grade = 0;
  int64_t day = 0;
  // A trade busted at t < as_of_ns is out; a fixing is computed as of its
  // fixing instant, a restatement as of its bust's time + 1 ns.
  int64_t as_of_ns = 0;
  // days[a] = the grade's trades of day - a (any order; busted ones
  // included, as_of decides), for a < level2_days. Missing days: empty.
  std::vector<std::span<const IndexTrade>> days;
  // prev[a] = the published print (latest revision) of day - 1 - a, for a <
  // level2_days; nullptr when there is none. prev[0] is I_{d-1}: the
  // filter of day d - a uses prev[a].
  std::vector<const Print*> prev;
  // Level 3: the reference grade's print of day d when it is at 1a, 1b or 2
  // (nullptr otherwise), and its print of day d - 1 (any level).
  const Print* other_today = nullptr;
  const Print* other_prev = nullptr;
};

// How the print came about, for `cfx index explain`.
struct ContributingTrade {
  IndexTrade trade;
  int64_t age = 0;        // 0 = day d, 1 = d - 1, ...
  int64_t gpu_hours = 0;  // q
  // The capped (and aged) weight in micro-GPU-hours, rounded half-up for
  // the view: the computation uses it exactly.
  int64_t weight = 0;
  // 1b/2: the part of the weight kept after trimming, x 4, in
  // micro-GPU-hours rounded half-up for the view (exactly: value =
  // Σ kept x 4 x price / (2 x Σ weight)). 0 for 1a.
  int64_t kept_weight = 0;
  uint32_t partition = 0;  // 1-6 (1a), 0 otherwise
};
struct ExcludedTrade {
  IndexTrade trade;
  int64_t age = 0;
  // "BUSTED", "SAME_FIRM", "AFFILIATED", "ERRONEOUS_PRINT", or "INVALID"
  // (lots or price not positive, or beyond the arithmetic range: more than
  // 10^9 GPU-hours, a price above $10^9, or more than 10^9 attested
  // tokens/s/GPU). Points to a string literal.
  std::string_view reason;
};
struct PartitionValue {
  uint32_t partition = 0;  // 1-6
  uint32_t trades = 0;
  exchange::IndexPrice vwm;  // volume-weighted median (may end in 5,000)
};
struct Explanation {
  std::vector<ContributingTrade> trades;  // sorted by (age, price, id)
  std::vector<ExcludedTrade> excluded;
  std::vector<PartitionValue> partitions;  // 1a: those used
  // Why each higher level did not apply, in waterfall order, e.g.
  // "1: 7 trades < 10".
  std::vector<std::string> notes;
};

// Computes the print of input.grade for input.day: the first level of the
// waterfall that applies. revision and computed_at_ns are left 0; the
// caller sets them. `explain` may be null.
Print ComputeFixing(const MethodologyConfig& config, const FixingInput& input,
                    Explanation* explain);

// Half-up rounding of num/den (den > 0, num >= 0) to a multiple of `unit`.
// (WideUint's RoundHalfUp does the same for wider values.)
int64_t RoundHalfUp(Int128 num, Int128 den, int64_t unit);

}  // namespace cfx::index
