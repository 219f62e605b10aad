#include "index/methodology.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "index/capped_weights.h"
#include "index/fixing_trades.h"
#include "index/wide_uint.h"

namespace cfx::index {
namespace {

using internal::DayTrades;
using internal::FirmSlots;
using internal::Gcd;
using internal::Item;
using internal::ItemAgeOrder;
using internal::ItemPriceOrder;
using internal::kMaxPoolDays;
using internal::MaxFirm;
using internal::PrepareDay;
using internal::Uint128;
using internal::WeightFactor;
using internal::WeightScale;

// The explain view shows weights in micro-GPU-hours.
constexpr int64_t kMicrosPerGpuHour = 1'000'000;
// Published values and USD per million tokens are multiples of $0.001.
constexpr int64_t kValueUnit = 1'000;

// ---- Statistics of a level's input set ----

struct Summary {
  uint32_t trades = 0;
  uint32_t sellers = 0;
  uint32_t buyers = 0;
  int64_t gpu_hours = 0;
};

Summary Summarize(std::span<const Item> items) {
  Summary s;
  const uint32_t max_firm = MaxFirm(items);
  FirmSlots sellers(max_firm);
  FirmSlots buyers(max_firm);
  for (const Item& item : items) {
    sellers.Slot(item.seller);
    buyers.Slot(item.buyer);
    s.gpu_hours += item.gpu_hours;
  }
  s.trades = static_cast<uint32_t>(items.size());
  s.sellers = sellers.count();
  s.buyers = buyers.count();
  return s;
}

// The failed sufficiency tests, e.g. "7 trades < 10, 2 sellers < 3"; empty
// when every test passes (all inclusive).
std::string Shortfall(const MethodologyConfig& c, const Summary& s) {
  std::string out;
  const auto add = [&out](const std::string& have, const char* what,
                          const std::string& need) {
    if (!out.empty()) out += ", ";
    out += have + " " + what + " < " + need;
  };
  if (s.trades < c.min_trades) {
    add(std::to_string(s.trades), "trades", std::to_string(c.min_trades));
  }
  if (s.sellers < c.min_sellers) {
    add(std::to_string(s.sellers), "sellers", std::to_string(c.min_sellers));
  }
  if (s.buyers < c.min_buyers) {
    add(std::to_string(s.buyers), "buyers", std::to_string(c.min_buyers));
  }
  if (s.gpu_hours < c.min_gpu_hours) {
    add(std::to_string(s.gpu_hours), "GPU-hours",
        std::to_string(c.min_gpu_hours));
  }
  return out;
}

// Adds trade j's exact weight x `times` (4 at most) to `acc`, on the
// level's scale.
void AddWeight(const WeightScale& w, const Item& item, uint64_t times,
               WideUint* acc) {
  acc->AddMul(w.scaled[item.cls],
              static_cast<uint64_t>(item.gpu_hours) * times);
}

// Σ w_j x f(item_j) on the level's scale, f(item) an exact 128-bit integer
// of the trade (q, q x price, ...): summed per weight class first, so that
// each class costs one wide product.
template <typename F>
WideUint SumByClass(std::span<const Item> items, const WeightScale& w, F f) {
  std::vector<Uint128> sums(w.scaled.size(), 0);
  for (const Item& item : items) sums[item.cls] += f(item);
  WideUint out;
  for (std::size_t k = 0; k < sums.size(); ++k) {
    if (sums[k] != 0) out.Add(w.scaled[k] * WideUint(sums[k]));
  }
  return out;
}

WideUint TotalWeight(std::span<const Item> items, const WeightScale& w) {
  return SumByClass(items, w, [](const Item& item) {
    return static_cast<Uint128>(item.gpu_hours);
  });
}

// An exact weight quantity (on the level's scale) in micro-GPU-hours,
// rounded half-up: the explain view's figure.
int64_t DisplayMicros(const WideUint& scaled, const WeightScale& w) {
  WideUint num = scaled;
  num = num * WideUint(static_cast<Uint128>(kMicrosPerGpuHour));
  int64_t out = 0;
  return RoundHalfUp(num, w.denominator, 1, &out) ? out : INT64_MAX;
}

// The median rule at 1/4 and 3/4 over `items` in price order, in one
// pass: for each, the first i with 4 x cum_i >= W (3W), exactly; on
// equality, the mean with the next price. Returns twice the prices, so
// that a mean of two prices stays exact. REQUIRES: total = W > 0.
std::pair<Int128, Int128> TwiceQuartiles(std::span<const Item> items,
                                         const WeightScale& w,
                                         const WideUint& total) {
  WideUint three;
  three.AddMul(total, 3);
  const WideUint* rhs[2] = {&total, &three};
  Int128 twice[2] = {0, 0};
  std::size_t found = 0;  // quartiles found, in order
  WideUint cum;           // 4 x the cumulative weight
  for (std::size_t i = 0; i < items.size() && found < 2; ++i) {
    AddWeight(w, items[i], 4, &cum);
    while (found < 2) {
      const int cmp = Compare(cum, *rhs[found]);
      if (cmp < 0) break;
      const Int128 p = items[i].price;
      twice[found++] =
          cmp == 0 && i + 1 < items.size() ? p + items[i + 1].price : 2 * p;
    }
  }
  for (; found < 2; ++found) {
    twice[found] = items.empty() ? 0 : 2 * Int128{items.back().price};
  }
  return {twice[0], twice[1]};
}

// T exactly: the weight-average of the sellers' attested throughput over
// the trades that have one, in lowest terms; none when no trade has one.
// The level's common denominator cancels.
ExactRatio AttestedTokens(std::span<const Item> items, const WeightScale& w) {
  ExactRatio t;
  t.num = SumByClass(items, w, [](const Item& item) {
    return static_cast<Uint128>(item.gpu_hours) * item.milli_tokens;
  });
  t.den = SumByClass(items, w, [](const Item& item) {
    return item.milli_tokens == 0 ? Uint128{0}
                                  : static_cast<Uint128>(item.gpu_hours);
  });
  return ReducedRatio(std::move(t.num), std::move(t.den));
}

// The ids of `items`, ascending. The items point into in.days, whose spans
// are usually in id order already (the order trades matched), so the ids
// are collected by position there and sorted only when that was not so.
std::vector<uint64_t> AscendingIds(const FixingInput& in,
                                   std::span<const Item> items) {
  std::vector<std::vector<bool>> marks(in.days.size());
  for (std::size_t a = 0; a < in.days.size(); ++a) {
    marks[a].assign(in.days[a].size(), false);
  }
  for (const Item& item : items) {
    marks[item.age]
         [static_cast<std::size_t>(item.trade - in.days[item.age].data())] =
             true;
  }
  std::vector<uint64_t> ids;
  ids.reserve(items.size());
  for (std::size_t a = in.days.size(); a-- > 0;) {  // oldest day first
    for (std::size_t i = 0; i < marks[a].size(); ++i) {
      if (marks[a][i]) ids.push_back(in.days[a][i].trade_id);
    }
  }
  if (!std::is_sorted(ids.begin(), ids.end())) {
    std::sort(ids.begin(), ids.end());
  }
  return ids;
}

// Fills the published description of a level's input set (in price
// order, with the level's weights).
void Describe(const FixingInput& in, std::span<const Item> items,
              const WeightScale& w, Print* p) {
  const Summary s = Summarize(items);
  p->trade_count = s.trades;
  p->sellers = s.sellers;
  p->buyers = s.buyers;
  p->gpu_hours = s.gpu_hours;
  const WideUint total = TotalWeight(items, w);
  if (!total.is_zero()) {
    const auto [p25, p75] = TwiceQuartiles(items, w, total);
    p->p25 = exchange::IndexPrice{RoundHalfUp(p25, 2, 1)};
    p->p75 = exchange::IndexPrice{RoundHalfUp(p75, 2, 1)};
  }
  p->trade_ids = AscendingIds(in, items);
  p->attested_tokens = AttestedTokens(items, w);
}

// The explanation's list of contributing trades; nothing when `ex` is null.
// kept4[i] is items[i]'s kept weight x 4 in micro-GPU-hours (1b/2), or
// empty (1a).
void ListContributing(std::span<const Item> items, const WeightScale& w,
                      std::span<const int64_t> kept4, Explanation* ex) {
  if (ex == nullptr) return;
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&items](std::size_t a, std::size_t b) {
    return ItemAgeOrder(items[a], items[b]);
  });
  ex->trades.clear();
  ex->trades.reserve(items.size());
  for (const std::size_t i : order) {
    const Item& item = items[i];
    ContributingTrade t;
    t.trade = *item.trade;
    t.age = item.age;
    t.gpu_hours = item.gpu_hours;
    WideUint weight;
    AddWeight(w, item, 1, &weight);
    t.weight = DisplayMicros(weight, w);
    t.kept_weight = kept4.empty() ? 0 : kept4[i];
    t.partition = item.partition;
    ex->trades.push_back(t);
  }
}

// ---- The levels ----

// 1a: the plain mean of the partitions' volume-weighted medians. Returns
// false, with the reason in `note`, when too few partitions qualify.
// `eligible` is day d's, in price order, with partitions. `ex` may be null.
bool Level1a(const MethodologyConfig& c, const FixingInput& in,
             const std::vector<Item>& eligible, const WeightScale& w, Print* p,
             Explanation* ex, std::string* note) {
  const uint32_t n_parts = c.partitions;
  const std::size_t slots = std::size_t{n_parts} + 1;
  // Per partition k (1-based): trades, total weight, and whether it counts.
  // The totals are summed per (partition, class) as GPU-hours first.
  std::vector<uint32_t> trades(slots, 0);
  std::vector<WideUint> totals(slots);
  const std::size_t classes = w.scaled.size();
  if (n_parts > 0) {
    std::vector<Uint128> q(slots * classes, 0);
    for (const Item& item : eligible) {
      ++trades[item.partition];
      q[item.partition * classes + item.cls] +=
          static_cast<Uint128>(item.gpu_hours);
    }
    for (std::size_t k = 0; k < slots; ++k) {
      for (std::size_t cls = 0; cls < classes; ++cls) {
        const Uint128 sum = q[k * classes + cls];
        if (sum != 0) totals[k].Add(w.scaled[cls] * WideUint(sum));
      }
    }
  }
  const uint32_t min_trades = std::max<uint32_t>(c.min_partition_trades, 1);
  std::vector<bool> qualifies(slots, false);
  uint32_t count = 0;
  for (uint32_t k = 1; k <= n_parts; ++k) {
    qualifies[k] = trades[k] >= min_trades && !totals[k].is_zero();
    if (qualifies[k]) ++count;
  }
  if (count < std::max<uint32_t>(c.min_partitions, 1)) {
    *note = "1a: " + std::to_string(count) +
            " partitions with >= " + std::to_string(c.min_partition_trades) +
            " trades < " + std::to_string(c.min_partitions);
    return false;
  }

  // Each partition's median in one pass over the price order: the first
  // trade with 2 x cum >= total, exactly; on equality the mean with the
  // partition's next price (TwiceQuantile at 1/2).
  enum : uint8_t { kSearching, kPending, kDone };
  std::vector<uint8_t> state(slots, kSearching);
  std::vector<WideUint> cum2(slots);
  std::vector<Int128> twice(slots, 0);
  uint32_t remaining = count;
  for (std::size_t i = 0; i < eligible.size() && remaining > 0; ++i) {
    const Item& item = eligible[i];
    const uint32_t k = item.partition;
    if (!qualifies[k] || state[k] == kDone) continue;
    if (state[k] == kPending) {
      twice[k] += item.price;
      state[k] = kDone;
      --remaining;
      continue;
    }
    AddWeight(w, item, 2, &cum2[k]);
    const int cmp = Compare(cum2[k], totals[k]);
    if (cmp < 0) continue;
    if (cmp == 0) {
      twice[k] = item.price;  // the next price of k is added to it
      state[k] = kPending;
    } else {
      twice[k] = 2 * Int128{item.price};
      state[k] = kDone;
      --remaining;
    }
  }
  std::vector<PartitionValue> values;
  Int128 twice_sum = 0;
  uint32_t mask = 0;
  for (uint32_t k = 1; k <= n_parts; ++k) {
    if (!qualifies[k]) continue;
    if (state[k] == kPending) twice[k] *= 2;  // the partition's last trade
    twice_sum += twice[k];
    values.push_back(PartitionValue{
        k, trades[k], exchange::IndexPrice{RoundHalfUp(twice[k], 2, 1)}});
    if (k <= 32) mask |= uint32_t{1} << (k - 1);
  }

  // The used trades, still in price order.
  std::vector<Item> filtered;
  std::span<const Item> used = eligible;
  if (count != n_parts) {
    filtered.reserve(eligible.size());
    for (const Item& item : eligible) {
      if (qualifies[item.partition]) filtered.push_back(item);
    }
    used = filtered;
  }
  p->level = Level::k1a;
  p->has_value = true;
  p->value.micros = RoundHalfUp(twice_sum, 2 * Int128{count}, kValueUnit);
  p->partitions_used = mask;
  Describe(in, used, w, p);
  ListContributing(used, w, {}, ex);
  if (ex != nullptr) ex->partitions = std::move(values);
  return true;
}

// 1b and Level 2: the volume-weighted mean of the central half of the
// weight, boundary trades split pro rata, exactly. `items` are in price
// order with the level's weights. Returns false with a note when there is
// no weight. `ex` may be null.
bool TrimmedMean(Level level, const FixingInput& in, std::vector<Item>& items,
                 const WeightScale& w, Print* p, Explanation* ex,
                 std::string* note) {
  const WideUint total = TotalWeight(items, w);
  if (total.is_zero()) {
    *note = std::string(LevelName(level)) + ": total weight 0";
    return false;
  }
  // In quarter units the cut points W/4 and 3W/4 are W and 3W. A trade
  // wholly inside [W, 3W] keeps its whole weight, summed per class as
  // q x price; the few that straddle a cut keep a part, summed directly.
  WideUint low = total;
  WideUint high;
  high.AddMul(total, 3);
  WideUint cum4;
  WideUint split_sum;  // Σ kept x 4 x price over the straddling trades
  std::vector<Uint128> inside(w.scaled.size(), 0);  // Σ q x price per class
  std::vector<int64_t> kept4(ex != nullptr ? items.size() : 0, 0);
  // Whether the cumulative weight before the trade, from4, is >= W; while
  // it is not, from4 is kept.
  bool from_past_low = false;
  WideUint from4;
  for (Item& item : items) item.partition = 0;  // partitions are 1a's
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    if (!from_past_low) from4 = cum4;
    AddWeight(w, item, 4, &cum4);
    if (Compare(cum4, low) <= 0) continue;  // wholly below W/4
    const bool to_within_high = Compare(cum4, high) <= 0;
    if (from_past_low && to_within_high) {
      inside[item.cls] += static_cast<Uint128>(item.gpu_hours) *
                          static_cast<Uint128>(item.price);
      if (!kept4.empty()) {
        WideUint k;
        AddWeight(w, item, 4, &k);
        kept4[i] = DisplayMicros(k, w);
      }
      continue;
    }
    // A trade across a cut: kept = min(cum, 3W) - max(from, W).
    WideUint kept = to_within_high ? cum4 : high;
    if (from_past_low) {
      WideUint from = cum4;
      WideUint weight4;
      AddWeight(w, item, 4, &weight4);
      from.Sub(weight4);
      kept.Sub(from);
    } else {
      kept.Sub(Compare(from4, low) >= 0 ? from4 : low);
    }
    split_sum.AddMul(kept, static_cast<uint64_t>(item.price));
    if (!kept4.empty()) kept4[i] = DisplayMicros(kept, w);
    from_past_low = true;
    if (!to_within_high) break;  // the rest are wholly above 3W/4
  }
  // value = Σ (kept4 / 4) x p / (W / 2) = Σ kept4 x p / (2 W).
  WideUint sum = split_sum;
  for (std::size_t k = 0; k < inside.size(); ++k) {
    if (inside[k] != 0) sum.Add(w.scaled[k] * WideUint(inside[k] * 4));
  }
  WideUint den;
  den.AddMul(total, 2);
  p->level = level;
  p->has_value = true;
  if (!RoundHalfUp(sum, den, kValueUnit, &p->value.micros)) {
    p->value.micros = 0;  // unreachable: the value is within the prices
  }
  Describe(in, items, w, p);
  ListContributing(items, w, kept4, ex);
  return true;
}

void SetUsdPerMillionTokens(Print* p) {
  const ExactRatio& t = p->attested_tokens;
  p->attested_milli_tokens = 0;
  p->has_upm = false;
  p->usd_per_million_tokens_micros = 0;
  if (t.den.is_zero() || t.num.is_zero()) return;
  int64_t milli = 0;
  if (RoundHalfUp(t.num, t.den, 1, &milli)) {
    p->attested_milli_tokens = static_cast<uint64_t>(milli);
  }
  if (!p->has_value || p->value.micros <= 0) return;
  // USD/GPU-hour x 10^6 / (3,600 x tokens/s/GPU), T = num / den
  // thousandths: value x 10^9 x den / (3,600 x num), rounded once.
  WideUint num = t.den;
  num = num * WideUint(static_cast<Uint128>(p->value.micros) * 1'000'000'000);
  WideUint den = t.num;
  den = den * WideUint(3'600);
  p->has_upm =
      RoundHalfUp(num, den, kValueUnit, &p->usd_per_million_tokens_micros);
  if (!p->has_upm) p->usd_per_million_tokens_micros = 0;
}

}  // namespace

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::k1a:
      return "1a";
    case Level::k1b:
      return "1b";
    case Level::k2:
      return "2";
    case Level::k3:
      return "3";
    case Level::k4:
      return "4";
    case Level::kDisrupted:
      return "DISRUPTED";
    case Level::kNone:
      break;
  }
  return "";
}

int64_t MethodologyConfig::DayOf(int64_t ts_ns) const {
  // d - 1 = floor((ts - fixing offset) / 1 day).
  const Int128 x = Int128{ts_ns} - Int128{fixing_seconds} * kNanosPerSecond;
  Int128 q = x / kNanosPerDay;
  if (x % kNanosPerDay < 0) --q;
  return static_cast<int64_t>(q + 1);
}

ExactRatio ReducedRatio(WideUint num, WideUint den) {
  ExactRatio r;
  if (den.is_zero()) return r;
  const WideUint g = Gcd(num, den);
  WideUint::DivMod(num, g, &r.num, nullptr);
  WideUint::DivMod(den, g, &r.den, nullptr);
  return r;
}

int64_t RoundHalfUp(Int128 num, Int128 den, int64_t unit) {
  if (den <= 0 || unit <= 0) return 0;
  const Int128 d = den * unit;
  Int128 q = num / d;
  Int128 r = num % d;
  if (r < 0) {  // floor, so that half-up also holds below zero
    r += d;
    --q;
  }
  if (2 * r >= d) ++q;
  return static_cast<int64_t>(q * unit);
}

Print ComputeFixing(const MethodologyConfig& config, const FixingInput& input,
                    Explanation* explain) {
  Print p;
  p.grade = input.grade;
  p.day = input.day;
  // Notes are always kept (they are short); trades only when asked for.
  Explanation ex;
  Explanation* listing = explain != nullptr ? &ex : nullptr;

  std::vector<DayTrades> days;
  days.push_back(PrepareDay(config, input, 0));
  bool done = false;

  // Level 1.
  const std::string shortfall = Shortfall(config, Summarize(days[0].eligible));
  if (shortfall.empty()) {
    std::string note;
    const WeightScale w = internal::CommonScale(days[0].factors);
    done = Level1a(config, input, days[0].eligible, w, &p, listing, &note);
    if (!done) {
      ex.notes.push_back(std::move(note));
      done = TrimmedMean(Level::k1b, input, days[0].eligible, w, &p, listing,
                         &note);
      if (!done) ex.notes.push_back(std::move(note));
    }
  } else {
    ex.notes.push_back("1: " + shortfall);
    // Level 2: only when Level 1 sufficiency fails.
    const uint32_t n = std::min(config.level2_days, kMaxPoolDays);
    for (uint32_t a = 1; a < n; ++a) {
      days.push_back(PrepareDay(config, input, a));
    }
    if (n > 0) {
      // One list of weight classes for the pool: each day's, x 0.5^age
      // up to the common factor 2^(n - 1).
      std::vector<Item> pool;
      std::vector<WeightFactor> factors;
      for (uint32_t a = 0; a < days.size(); ++a) {
        const auto offset = static_cast<uint32_t>(factors.size());
        for (Item item : days[a].eligible) {
          item.cls += offset;
          pool.push_back(item);
        }
        for (const WeightFactor& f : days[a].factors) {
          factors.push_back(f);
          factors.back().num.ShiftLeft(n - 1 - a);
        }
      }
      std::sort(pool.begin(), pool.end(), ItemPriceOrder);
      const std::string pool_shortfall = Shortfall(config, Summarize(pool));
      if (pool_shortfall.empty()) {
        std::string note;
        const WeightScale w = internal::CommonScale(factors);
        done = TrimmedMean(Level::k2, input, pool, w, &p, listing, &note);
        if (!done) ex.notes.push_back(std::move(note));
      } else {
        ex.notes.push_back("2: " + pool_shortfall);
      }
    }
  }

  const Print* prev = input.prev.empty() ? nullptr : input.prev[0];
  if (!done) {
    // Level 3: the reference grade's move applied to the last print.
    const Print* today = input.other_today;
    const Print* other_prev = input.other_prev;
    if (today == nullptr || !FromTrades(today->level) || !today->has_value) {
      ex.notes.push_back("3: the reference grade has no Level 1-2 print today");
    } else if (other_prev == nullptr || !other_prev->has_value ||
               other_prev->value.micros <= 0) {
      ex.notes.push_back(
          "3: the reference grade has no print for the previous day");
    } else if (prev == nullptr || !prev->has_value) {
      ex.notes.push_back("3: no previous print");
    } else {
      p.level = Level::k3;
      p.has_value = true;
      p.value.micros =
          RoundHalfUp(Int128{prev->value.micros} * today->value.micros,
                      other_prev->value.micros, kValueUnit);
      done = true;
    }
  }
  if (!done) {
    // Level 4, then DISRUPTED: carry the last value.
    if (prev != nullptr && prev->has_value &&
        prev->carry_run < config.max_carry_days) {
      p.level = Level::k4;
    } else {
      if (prev == nullptr) {
        ex.notes.push_back("4: no previous print");
      } else if (!prev->has_value) {
        ex.notes.push_back("4: the previous print has no value");
      } else {
        ex.notes.push_back("4: " + std::to_string(prev->carry_run) +
                           " prints in a row at 4 or DISRUPTED, not < " +
                           std::to_string(config.max_carry_days));
      }
      p.level = Level::kDisrupted;
    }
    p.has_value = prev != nullptr && prev->has_value;
    p.value = p.has_value ? prev->value : exchange::IndexPrice{};
    p.carry_run = (prev != nullptr ? prev->carry_run : 0) + 1;
  }
  if (!FromTrades(p.level) && prev != nullptr) {
    p.attested_tokens = prev->attested_tokens;
  }
  SetUsdPerMillionTokens(&p);

  if (explain != nullptr) {
    for (DayTrades& day : days) {
      for (ExcludedTrade& e : day.excluded) ex.excluded.push_back(e);
    }
    *explain = std::move(ex);
  }
  return p;
}

}  // namespace cfx::index
