#include "tests/index/reference_methodology.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/index/reference_rational.h"

// A plainly written implementation of the methodology, kept as the
// reference that index/methodology.cc is compared with on random inputs.
// It copies, sorts and maps freely, and computes every weight, sum and
// ratio as a fraction in lowest terms (reference_rational.h, its own
// arithmetic), straight from DESIGN.md §4: nothing is rounded before a
// published figure. Only its results matter.

namespace cfx::index::reference {
namespace {

// The explain view shows weights in micro-GPU-hours.
constexpr int64_t kMicrosPerGpuHour = 1'000'000;
// Published values and USD per million tokens are multiples of $0.001.
constexpr int64_t kValueUnit = 1'000;
// The arithmetic range: a trade outside it is excluded as INVALID.
constexpr int64_t kMaxTradeGpuHours = 1'000'000'000;
constexpr int64_t kMaxPriceMicros = 1'000'000'000'000'000;  // $1e9/GPU-hour
constexpr uint64_t kMaxMilliTokens = 1'000'000'000'000;
// Level 2 pools at most this many days.
constexpr uint32_t kMaxPoolDays = 8;

// Half of twice a price (a mean of two prices), half-up to a micro-dollar.
int64_t Half(Int128 twice) {
  return Frac(static_cast<uint64_t>(twice), 2).RoundHalfUp(1);
}

std::string Name(Level level) {
  switch (level) {
    case Level::k1a:
      return "1a";
    case Level::k1b:
      return "1b";
    case Level::k2:
      return "2";
    default:
      return "?";
  }
}

bool BuiltFromTrades(Level l) {
  return l == Level::k1a || l == Level::k1b || l == Level::k2;
}

// ---- The trades of one computation ----

// Price order with the trade id as tie-break; the remaining fields only
// make the order total, so that even duplicated ids cannot make the result
// depend on the input order.
bool PriceOrder(const IndexTrade& a, const IndexTrade& b) {
  return std::tie(a.price.micros, a.trade_id, a.ts_ns, a.lots, a.seller,
                  a.buyer, a.seller_group, a.buyer_group, a.seller_milli_tokens,
                  a.busted_at_ns) <
         std::tie(b.price.micros, b.trade_id, b.ts_ns, b.lots, b.seller,
                  b.buyer, b.seller_group, b.buyer_group, b.seller_milli_tokens,
                  b.busted_at_ns);
}

// An eligible trade as a level uses it.
struct Item {
  const IndexTrade* trade = nullptr;
  int64_t age = 0;
  int64_t gpu_hours = 0;  // q
  Frac weight;            // the level's weight, GPU-hours, exact
  Frac kept;              // 1b/2: the part of the weight kept
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

// The rulebook's bounds on one trade, with the trade's GPU-hours as an
// exact product rather than a quotient of the bound.
bool Invalid(const MethodologyConfig& c, const IndexTrade& t) {
  if (t.lots <= 0 || c.gpu_hours_per_lot <= 0) return true;
  if (t.price.micros <= 0 || t.price.micros > kMaxPriceMicros) return true;
  const Frac gpu_hours = Frac(static_cast<uint64_t>(t.lots)) *
                         Frac(static_cast<uint64_t>(c.gpu_hours_per_lot));
  if (Frac(static_cast<uint64_t>(kMaxTradeGpuHours)) < gpu_hours) return true;
  return t.seller_milli_tokens > kMaxMilliTokens;
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
    // Kept iff I / r <= p <= I x r with r the filter ratio, as fractions.
    const Frac p(static_cast<uint64_t>(t.price.micros));
    const Frac i(static_cast<uint64_t>(ref->value.micros));
    const Frac r(static_cast<uint64_t>(c.filter_ratio_num),
                 static_cast<uint64_t>(c.filter_ratio_den));
    if (i * r < p || p * r < i) return "ERRONEOUS_PRINT";
  }
  return {};
}

// min(1, c Q / Q_x), c = cap_bp / 10,000.
Frac CapFactor(int64_t cap_bp, int64_t total, int64_t firm) {
  const Frac f(Nat(static_cast<uint64_t>(std::max<int64_t>(cap_bp, 0))) *
                   Nat(static_cast<uint64_t>(total)),
               Nat(10'000) * Nat(static_cast<uint64_t>(firm)));
  return Min(f, Frac(1));
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
  int64_t total = 0;
  std::map<uint32_t, int64_t> by_firm;
  for (const Item& item : out.eligible) {
    total += item.gpu_hours;
    by_firm[item.trade->seller] += item.gpu_hours;
    by_firm[item.trade->buyer] += item.gpu_hours;
  }
  for (Item& item : out.eligible) {
    item.weight = Frac(static_cast<uint64_t>(item.gpu_hours)) *
                  CapFactor(c.cap_bp, total, by_firm[item.trade->seller]) *
                  CapFactor(c.cap_bp, total, by_firm[item.trade->buyer]);
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

Frac TotalWeight(const std::vector<Item>& items) {
  Frac total;
  for (const Item& item : items) total = total + item.weight;
  return total;
}

// The median rule at num/den over `items` in price order: the first i with
// cum_i >= (num/den) x total; on equality, the mean with the next price.
// Returns twice the price, so that a mean of two prices stays exact.
// REQUIRES: total = the items' total weight > 0.
Int128 TwiceQuantile(const std::vector<Item>& items, const Frac& total,
                     uint64_t num, uint64_t den) {
  const Frac target = total * Frac(num, den);
  Frac cum;
  for (std::size_t i = 0; i < items.size(); ++i) {
    cum = cum + items[i].weight;
    if (cum < target) continue;
    const Int128 p = items[i].trade->price.micros;
    if (cum == target && i + 1 < items.size()) {
      return p + items[i + 1].trade->price.micros;
    }
    return 2 * p;
  }
  return items.empty() ? 0 : 2 * Int128{items.back().trade->price.micros};
}

// T: the weight-average of the sellers' attested throughput over the
// trades that have one, exactly; none when no trade has one.
ExactRatio AttestedTokens(const std::vector<Item>& items) {
  Frac num;
  Frac den;
  for (const Item& item : items) {
    if (item.trade->seller_milli_tokens == 0) continue;
    num = num + item.weight * Frac(item.trade->seller_milli_tokens);
    den = den + item.weight;
  }
  ExactRatio t;
  if (den.num().zero()) return t;
  const Frac avg = num / den;
  const auto wide = [](const Nat& n) {
    std::vector<uint64_t> limbs;
    const std::vector<uint32_t>& d = n.digits();
    for (std::size_t i = 0; i < d.size(); i += 2) {
      limbs.push_back(d[i] | (i + 1 < d.size() ? uint64_t{d[i + 1]} << 32 : 0));
    }
    return WideUint::FromLimbs(std::move(limbs));
  };
  t.num = wide(avg.num());
  t.den = wide(avg.den());
  return t;
}

// Micro-GPU-hours, rounded half-up: the explain view's figure.
int64_t DisplayMicros(const Frac& gpu_hours) {
  return (gpu_hours * Frac(kMicrosPerGpuHour)).RoundHalfUp(1);
}

// Fills the published description of a level's input set (in price
// order, with the level's weights).
void Describe(const std::vector<Item>& items, Print* p) {
  const Summary s = Summarize(items);
  p->trade_count = s.trades;
  p->sellers = s.sellers;
  p->buyers = s.buyers;
  p->gpu_hours = s.gpu_hours;
  const Frac total = TotalWeight(items);
  if (!total.num().zero()) {
    p->p25.micros = Half(TwiceQuantile(items, total, 1, 4));
    p->p75.micros = Half(TwiceQuantile(items, total, 3, 4));
  }
  p->trade_ids.clear();
  for (const Item& item : items) p->trade_ids.push_back(item.trade->trade_id);
  std::sort(p->trade_ids.begin(), p->trade_ids.end());
  p->attested_tokens = AttestedTokens(items);
}

void ListContributing(std::vector<Item> items, Explanation* ex) {
  std::sort(items.begin(), items.end(), ItemAgeOrder);
  ex->trades.clear();
  for (const Item& item : items) {
    ContributingTrade t;
    t.trade = *item.trade;
    t.age = item.age;
    t.gpu_hours = item.gpu_hours;
    t.weight = DisplayMicros(item.weight);
    t.kept_weight = DisplayMicros(item.kept * Frac(4));
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
    const Frac total = TotalWeight(items);
    if (total.num().zero()) continue;
    const Int128 twice = TwiceQuantile(items, total, 1, 2);
    twice_sum += twice;
    values.push_back(
        PartitionValue{k, static_cast<uint32_t>(items.size()), Half(twice)});
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
  p->value.micros = Frac(static_cast<uint64_t>(twice_sum), uint64_t{2} * count)
                        .RoundHalfUp(kValueUnit);
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
  const Frac total = TotalWeight(items);
  if (total.num().zero()) {
    *note = Name(level) + ": total weight 0";
    return false;
  }
  // Each trade keeps the part of [cum_{i-1}, cum_i] inside [W/4, 3W/4].
  const Frac low = total * Frac(1, 4);
  const Frac high = total * Frac(3, 4);
  Frac cum;
  Frac sum;
  for (Item& item : items) {
    const Frac from = cum;
    cum = cum + item.weight;
    const Frac& a = Max(from, low);
    const Frac& b = Min(cum, high);
    item.kept = a < b ? b - a : Frac();
    sum =
        sum + item.kept * Frac(static_cast<uint64_t>(item.trade->price.micros));
  }
  // value = Σ kept x p / (W / 2).
  const int64_t value = (sum / (total * Frac(1, 2))).RoundHalfUp(kValueUnit);
  p->level = level;
  p->has_value = true;
  p->value.micros = value;
  Describe(items, p);
  ListContributing(std::move(items), ex);
  return true;
}

void SetUsdPerMillionTokens(Print* p) {
  p->has_upm = false;
  p->usd_per_million_tokens_micros = 0;
  p->attested_milli_tokens = 0;
  const ExactRatio& t = p->attested_tokens;
  if (!t.known() || t.num.is_zero()) return;
  const auto nat = [](const WideUint& w) {
    Nat n;
    for (std::size_t i = w.limbs().size(); i-- > 0;) {
      n = n * Nat(uint64_t{1} << 32) * Nat(uint64_t{1} << 32) +
          Nat(w.limbs()[i]);
    }
    return n;
  };
  const Frac milli(nat(t.num), nat(t.den));
  p->attested_milli_tokens = static_cast<uint64_t>(milli.RoundHalfUp(1));
  if (!p->has_value || p->value.micros <= 0) return;
  // USD/GPU-hour x 10^6 / (3,600 x tokens/s/GPU), T = milli / 1,000.
  p->has_upm = true;
  p->usd_per_million_tokens_micros =
      (Frac(static_cast<uint64_t>(p->value.micros)) * Frac(1'000'000) /
       (Frac(3'600) * milli / Frac(1'000)))
          .RoundHalfUp(kValueUnit);
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
          // x 0.5^age, shown (as the explain view does) up to the
          // common factor 2^(n - 1).
          item.weight =
              item.weight *
              Frac(uint64_t{1} << (static_cast<int64_t>(n) - 1 - item.age));
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
    if (today == nullptr || !BuiltFromTrades(today->level) ||
        !today->has_value) {
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
      p.value.micros = (Frac(static_cast<uint64_t>(prev->value.micros)) *
                        Frac(static_cast<uint64_t>(today->value.micros),
                             static_cast<uint64_t>(other_prev->value.micros)))
                           .RoundHalfUp(kValueUnit);
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
    p.value.micros = p.has_value ? prev->value.micros : 0;
    p.carry_run = (prev != nullptr ? prev->carry_run : 0) + 1;
  }
  if (!BuiltFromTrades(p.level) && prev != nullptr) {
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

}  // namespace cfx::index::reference
