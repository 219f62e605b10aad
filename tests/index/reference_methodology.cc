#include "tests/index/reference_methodology.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

// The first, plainly written implementation of the methodology, kept as the
// reference that index/methodology.cc is compared with on random inputs.
// It copies, sorts and maps freely; only its results matter.

namespace cfx::index::reference {
namespace {

__extension__ using Uint128 = unsigned __int128;

// Weights are micro-GPU-hours.
constexpr int64_t kMicrosPerGpuHour = 1'000'000;
// Published values and USD per million tokens are multiples of $0.001.
constexpr int64_t kValueUnit = 1'000;
// The arithmetic range. A trade outside it is excluded as INVALID, so that
// every exact product and sum below fits in 128 bits.
constexpr int64_t kMaxTradeGpuHours = 1'000'000'000;
constexpr int64_t kMaxPriceMicros = 1'000'000'000'000'000;  // $1e9/GPU-hour
constexpr uint64_t kMaxMilliTokens = 1'000'000'000'000;
// Level 2 ages weights by 2^(pooled days - 1 - age); no more days than this
// are pooled, which keeps an aged weight within 64 bits.
constexpr uint32_t kMaxPoolDays = 8;

// ---- 256-bit helpers for the one exact rounding of a capped weight ----

struct U256 {
  Uint128 hi = 0;
  Uint128 lo = 0;
};

U256 Mul(Uint128 a, Uint128 b) {
  const Uint128 mask = ~uint64_t{0};
  const Uint128 a0 = a & mask;
  const Uint128 a1 = a >> 64;
  const Uint128 b0 = b & mask;
  const Uint128 b1 = b >> 64;
  const Uint128 p00 = a0 * b0;
  const Uint128 p01 = a0 * b1;
  const Uint128 p10 = a1 * b0;
  const Uint128 p11 = a1 * b1;
  const Uint128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 out;
  out.lo = (p00 & mask) | (mid << 64);
  out.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return out;
}

bool Less(const U256& a, const U256& b) {
  return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
}

U256 Sub(const U256& a, const U256& b) {
  U256 out;
  out.lo = a.lo - b.lo;
  out.hi = a.hi - b.hi - (a.lo < b.lo ? 1 : 0);
  return out;
}

U256 ShiftLeft1(const U256& a) {
  U256 out;
  out.hi = (a.hi << 1) | (a.lo >> 127);
  out.lo = a.lo << 1;
  return out;
}

// n / d rounded half-up. REQUIRES: d > 0, d < 2^254 and a quotient below
// 2^127 (the callers' quotients are at most a trade's micro-GPU-hours).
Uint128 DivRoundHalfUp(const U256& n, const U256& d) {
  if (n.hi == 0 && d.hi == 0) {  // the common case: 128 bits suffice
    const Uint128 q = n.lo / d.lo;
    const Uint128 r = n.lo % d.lo;
    return r >= d.lo - r ? q + 1 : q;
  }
  U256 rem;
  Uint128 quot = 0;
  for (int i = 255; i >= 0; --i) {
    const Uint128 bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
    rem = ShiftLeft1(rem);
    rem.lo |= bit;
    quot <<= 1;
    if (!Less(rem, d)) {
      rem = Sub(rem, d);
      quot |= 1;
    }
  }
  if (!Less(ShiftLeft1(rem), d)) ++quot;
  return quot;
}

// ---- The trades of one computation ----

// Price order with the trade id as tie-break; the remaining fields only
// make the order total, so that even duplicated ids cannot make the result
// depend on the input order.
bool PriceOrder(const IndexTrade& a, const IndexTrade& b) {
  return std::tie(a.price_micros, a.trade_id, a.ts_ns, a.lots, a.seller,
                  a.buyer, a.seller_group, a.buyer_group, a.seller_milli_tokens,
                  a.busted_at_ns) <
         std::tie(b.price_micros, b.trade_id, b.ts_ns, b.lots, b.seller,
                  b.buyer, b.seller_group, b.buyer_group, b.seller_milli_tokens,
                  b.busted_at_ns);
}

// An eligible trade as a level uses it.
struct Item {
  const IndexTrade* trade = nullptr;
  int64_t age = 0;
  int64_t gpu_hours = 0;  // q
  int64_t weight = 0;     // the level's weight, micro-GPU-hours
  int64_t kept4 = 0;      // 1b/2: kept weight x 4
  uint32_t partition = 0;
};

bool ItemPriceOrder(const Item& a, const Item& b) {
  return PriceOrder(*a.trade, *b.trade);
}

bool ItemAgeOrder(const Item& a, const Item& b) {
  if (a.age != b.age) return a.age < b.age;
  return PriceOrder(*a.trade, *b.trade);
}

// One day's eligible (with capped weights) and excluded trades, each in
// price order.
struct DayTrades {
  std::vector<Item> eligible;
  std::vector<ExcludedTrade> excluded;
};

bool Invalid(const MethodologyConfig& c, const IndexTrade& t) {
  return t.lots <= 0 || t.price_micros <= 0 ||
         t.price_micros > kMaxPriceMicros || c.gpu_hours_per_lot <= 0 ||
         t.lots > kMaxTradeGpuHours / c.gpu_hours_per_lot ||
         t.seller_milli_tokens > kMaxMilliTokens;
}

// Why `t` is out of the computation, or "" when it is eligible. `ref` is the
// previous print the erroneous-print filter compares with (may be null).
std::string_view ExclusionReason(const MethodologyConfig& c,
                                 const IndexTrade& t, int64_t as_of_ns,
                                 const Print* ref) {
  if (Invalid(c, t)) return "INVALID";
  if (t.busted_at_ns != 0 && t.busted_at_ns < as_of_ns) return "BUSTED";
  if (t.seller == t.buyer) return "SAME_FIRM";
  if (t.seller_group == t.buyer_group) return "AFFILIATED";
  if (ref != nullptr && ref->has_value) {
    // Kept iff I / ratio <= p <= I x ratio, exactly.
    const Int128 p = t.price_micros;
    const Int128 i = ref->value_micros;
    if (p * c.filter_ratio_den > i * c.filter_ratio_num ||
        p * c.filter_ratio_num < i * c.filter_ratio_den) {
      return "ERRONEOUS_PRINT";
    }
  }
  return {};
}

// min(1, c Q / Q_x) as a fraction, c = cap_bp / 10,000.
struct Factor {
  Uint128 num = 1;
  Uint128 den = 1;
};

Factor CapFactor(int64_t cap_bp, Int128 total, Int128 firm) {
  const Int128 num = static_cast<Int128>(std::max<int64_t>(cap_bp, 0)) * total;
  const Int128 den = Int128{10'000} * firm;
  if (num >= den) return {};
  return {static_cast<Uint128>(num), static_cast<Uint128>(den)};
}

// The trades of day `in.day - age`: those inside the day's window, split
// into eligible and excluded, the eligible ones with capped weights.
DayTrades PrepareDay(const MethodologyConfig& c, const FixingInput& in,
                     int64_t age) {
  DayTrades out;
  const auto a = static_cast<std::size_t>(age);
  const int64_t day = in.day - age;
  const int64_t begin = c.FixingNs(day - 1);
  const int64_t end = c.FixingNs(day);
  const Print* ref = a < in.prev.size() ? in.prev[a] : nullptr;

  std::vector<const IndexTrade*> trades;
  if (a < in.days.size()) {
    for (const IndexTrade& t : in.days[a]) {
      if (t.ts_ns >= begin && t.ts_ns < end) trades.push_back(&t);
    }
  }
  std::sort(trades.begin(), trades.end(),
            [](const IndexTrade* x, const IndexTrade* y) {
              return PriceOrder(*x, *y);
            });
  for (const IndexTrade* t : trades) {
    const std::string_view reason = ExclusionReason(c, *t, in.as_of_ns, ref);
    if (!reason.empty()) {
      out.excluded.push_back(ExcludedTrade{*t, age, reason});
      continue;
    }
    Item item;
    item.trade = t;
    item.age = age;
    item.gpu_hours = t->lots * c.gpu_hours_per_lot;
    out.eligible.push_back(item);
  }

  // The cap: Q and each firm's Q_x (both sides) over this day's eligible
  // trades, once, with no renormalisation.
  Int128 total = 0;
  std::map<uint32_t, Int128> by_firm;
  for (const Item& item : out.eligible) {
    total += item.gpu_hours;
    by_firm[item.trade->seller] += item.gpu_hours;
    by_firm[item.trade->buyer] += item.gpu_hours;
  }
  for (Item& item : out.eligible) {
    const Factor s = CapFactor(c.cap_bp, total, by_firm[item.trade->seller]);
    const Factor b = CapFactor(c.cap_bp, total, by_firm[item.trade->buyer]);
    const Uint128 q =
        static_cast<Uint128>(item.gpu_hours) * kMicrosPerGpuHour * s.num;
    item.weight =
        static_cast<int64_t>(DivRoundHalfUp(Mul(q, b.num), Mul(s.den, b.den)));
  }
  return out;
}

// ---- Statistics of a level's input set ----

struct Summary {
  uint32_t trades = 0;
  uint32_t sellers = 0;
  uint32_t buyers = 0;
  int64_t gpu_hours = 0;
};

uint32_t Distinct(std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  return static_cast<uint32_t>(std::unique(ids.begin(), ids.end()) -
                               ids.begin());
}

Summary Summarize(const std::vector<Item>& items) {
  Summary s;
  std::vector<uint32_t> sellers;
  std::vector<uint32_t> buyers;
  for (const Item& item : items) {
    sellers.push_back(item.trade->seller);
    buyers.push_back(item.trade->buyer);
    s.gpu_hours += item.gpu_hours;
  }
  s.trades = static_cast<uint32_t>(items.size());
  s.sellers = Distinct(std::move(sellers));
  s.buyers = Distinct(std::move(buyers));
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

Int128 TotalWeight(const std::vector<Item>& items) {
  Int128 total = 0;
  for (const Item& item : items) total += item.weight;
  return total;
}

// The median rule at num/den over `items` in price order: the first i with
// den x cum_i >= num x total; on equality, the mean with the next price.
// Returns twice the price, so that a mean of two prices stays exact.
// REQUIRES: total = the items' total weight > 0.
Int128 TwiceQuantile(const std::vector<Item>& items, Int128 total, int64_t num,
                     int64_t den) {
  Int128 cum = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    cum += items[i].weight;
    const Int128 lhs = den * cum;
    const Int128 rhs = num * total;
    if (lhs < rhs) continue;
    const Int128 p = items[i].trade->price_micros;
    if (lhs == rhs && i + 1 < items.size()) {
      return p + items[i + 1].trade->price_micros;
    }
    return 2 * p;
  }
  return items.empty() ? 0 : 2 * Int128{items.back().trade->price_micros};
}

// T: the weight-average of the sellers' attested throughput over the
// trades that have one; 0 when none has.
uint64_t AttestedMilliTokens(const std::vector<Item>& items) {
  Int128 num = 0;
  Int128 den = 0;
  for (const Item& item : items) {
    if (item.trade->seller_milli_tokens == 0) continue;
    num += Int128{item.weight} *
           static_cast<Int128>(item.trade->seller_milli_tokens);
    den += item.weight;
  }
  return den > 0 ? static_cast<uint64_t>(RoundHalfUp(num, den, 1)) : 0;
}

// Fills the published description of a level's input set (in price
// order, with the level's weights).
void Describe(const std::vector<Item>& items, Print* p) {
  const Summary s = Summarize(items);
  p->trade_count = s.trades;
  p->sellers = s.sellers;
  p->buyers = s.buyers;
  p->gpu_hours = s.gpu_hours;
  const Int128 total = TotalWeight(items);
  if (total > 0) {
    p->p25_micros = RoundHalfUp(TwiceQuantile(items, total, 1, 4), 2, 1);
    p->p75_micros = RoundHalfUp(TwiceQuantile(items, total, 3, 4), 2, 1);
  }
  p->trade_ids.clear();
  for (const Item& item : items) p->trade_ids.push_back(item.trade->trade_id);
  std::sort(p->trade_ids.begin(), p->trade_ids.end());
  p->attested_milli_tokens = AttestedMilliTokens(items);
}

void ListContributing(std::vector<Item> items, Explanation* ex) {
  std::sort(items.begin(), items.end(), ItemAgeOrder);
  ex->trades.clear();
  for (const Item& item : items) {
    ContributingTrade t;
    t.trade = *item.trade;
    t.age = item.age;
    t.gpu_hours = item.gpu_hours;
    t.weight = item.weight;
    t.kept_weight = item.kept4;
    t.partition = item.partition;
    ex->trades.push_back(t);
  }
}

// ---- The levels ----

// 1a: the plain mean of the partitions' volume-weighted medians. Returns
// false, with the reason in `note`, when too few partitions qualify.
bool Level1a(const MethodologyConfig& c, const FixingInput& in,
             const std::vector<Item>& eligible, Print* p, Explanation* ex,
             std::string* note) {
  const int64_t begin = c.FixingNs(in.day - 1);
  std::map<uint32_t, std::vector<Item>> parts;  // eligible is in price order
  if (c.partitions > 0) {
    for (Item item : eligible) {
      const Int128 offset = item.trade->ts_ns - begin;  // in [0, 1 day)
      item.partition =
          static_cast<uint32_t>(offset * c.partitions / kNanosPerDay) + 1;
      parts[item.partition].push_back(item);
    }
  }
  const uint32_t min_trades = std::max<uint32_t>(c.min_partition_trades, 1);
  std::vector<Item> used;
  std::vector<PartitionValue> values;
  Int128 twice_sum = 0;
  uint32_t mask = 0;
  for (const auto& [k, items] : parts) {
    if (items.size() < min_trades) continue;
    const Int128 total = TotalWeight(items);
    if (total <= 0) continue;
    const Int128 twice = TwiceQuantile(items, total, 1, 2);
    twice_sum += twice;
    values.push_back(PartitionValue{k, static_cast<uint32_t>(items.size()),
                                    RoundHalfUp(twice, 2, 1)});
    if (k <= 32) mask |= uint32_t{1} << (k - 1);
    used.insert(used.end(), items.begin(), items.end());
  }
  const auto count = static_cast<uint32_t>(values.size());
  if (count < std::max<uint32_t>(c.min_partitions, 1)) {
    *note = "1a: " + std::to_string(count) +
            " partitions with >= " + std::to_string(c.min_partition_trades) +
            " trades < " + std::to_string(c.min_partitions);
    return false;
  }
  std::sort(used.begin(), used.end(), ItemPriceOrder);
  p->level = Level::k1a;
  p->has_value = true;
  p->value_micros = RoundHalfUp(twice_sum, 2 * Int128{count}, kValueUnit);
  p->partitions_used = mask;
  Describe(used, p);
  ListContributing(used, ex);
  ex->partitions = std::move(values);
  return true;
}

// 1b and Level 2: the volume-weighted mean of the central half of the
// weight, boundary trades split pro rata. `items` are in price order with
// the level's weights. Returns false with a note when there is no weight.
bool TrimmedMean(Level level, std::vector<Item> items, Print* p,
                 Explanation* ex, std::string* note) {
  const Int128 total = TotalWeight(items);
  if (total <= 0) {
    *note = std::string(LevelName(level)) + ": total weight 0";
    return false;
  }
  // In units of a quarter of a weight unit the cut points W/4 and 3W/4 are
  // the integers W and 3W.
  Int128 cum4 = 0;
  Int128 sum = 0;
  for (Item& item : items) {
    const Int128 from = cum4;
    cum4 += 4 * Int128{item.weight};
    const Int128 kept =
        std::max<Int128>(0, std::min(cum4, 3 * total) - std::max(from, total));
    item.kept4 = static_cast<int64_t>(kept);
    sum += kept * item.trade->price_micros;
  }
  // value = Σ (kept4 / 4) x p / (W / 2) = Σ kept4 x p / (2 W).
  p->level = level;
  p->has_value = true;
  p->value_micros = RoundHalfUp(sum, 2 * total, kValueUnit);
  Describe(items, p);
  ListContributing(std::move(items), ex);
  return true;
}

void SetUsdPerMillionTokens(Print* p) {
  p->has_upm = p->has_value && p->attested_milli_tokens > 0;
  p->usd_per_million_tokens_micros = 0;
  if (!p->has_upm) return;
  // USD/GPU-hour x 10^6 / (3,600 x tokens/s/GPU); T is in thousandths.
  p->usd_per_million_tokens_micros =
      RoundHalfUp(Int128{p->value_micros} * 1'000'000'000,
                  Int128{3'600} * static_cast<Int128>(p->attested_milli_tokens),
                  kValueUnit);
}

}  // namespace

Print ReferenceFixing(const MethodologyConfig& config, const FixingInput& input,
                      Explanation* explain) {
  Print p;
  p.grade = input.grade;
  p.day = input.day;
  Explanation ex;

  std::vector<DayTrades> days;
  days.push_back(PrepareDay(config, input, 0));
  bool done = false;

  // Level 1.
  const std::string shortfall = Shortfall(config, Summarize(days[0].eligible));
  if (shortfall.empty()) {
    std::string note;
    done = Level1a(config, input, days[0].eligible, &p, &ex, &note);
    if (!done) {
      ex.notes.push_back(std::move(note));
      done = TrimmedMean(Level::k1b, days[0].eligible, &p, &ex, &note);
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
      std::vector<Item> pool;
      for (const DayTrades& day : days) {
        for (Item item : day.eligible) {
          // x 0.5^age, up to the common factor 2^(n - 1).
          item.weight <<= static_cast<int64_t>(n) - 1 - item.age;
          pool.push_back(item);
        }
      }
      std::sort(pool.begin(), pool.end(), ItemPriceOrder);
      const std::string pool_shortfall = Shortfall(config, Summarize(pool));
      if (pool_shortfall.empty()) {
        std::string note;
        done = TrimmedMean(Level::k2, std::move(pool), &p, &ex, &note);
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
               other_prev->value_micros <= 0) {
      ex.notes.push_back(
          "3: the reference grade has no print for the previous day");
    } else if (prev == nullptr || !prev->has_value) {
      ex.notes.push_back("3: no previous print");
    } else {
      p.level = Level::k3;
      p.has_value = true;
      p.value_micros =
          RoundHalfUp(Int128{prev->value_micros} * today->value_micros,
                      other_prev->value_micros, kValueUnit);
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
    p.value_micros = p.has_value ? prev->value_micros : 0;
    p.carry_run = (prev != nullptr ? prev->carry_run : 0) + 1;
  }
  if (!FromTrades(p.level)) {
    p.attested_milli_tokens = prev != nullptr ? prev->attested_milli_tokens : 0;
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

}  // namespace cfx::index::reference
