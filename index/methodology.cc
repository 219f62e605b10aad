#include "index/methodology.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cfx::index {
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
  if (a.price_micros != b.price_micros) return a.price_micros < b.price_micros;
  if (a.trade_id != b.trade_id) return a.trade_id < b.trade_id;
  return std::tie(a.ts_ns, a.lots, a.seller, a.buyer, a.seller_group,
                  a.buyer_group, a.seller_milli_tokens, a.busted_at_ns) <
         std::tie(b.ts_ns, b.lots, b.seller, b.buyer, b.seller_group,
                  b.buyer_group, b.seller_milli_tokens, b.busted_at_ns);
}

// An eligible trade as a level uses it: the fields the levels read, copied
// next to each other (one cache line), so that passes in price order do not
// chase pointers. `trade` points into FixingInput::days[age].
struct Item {
  const IndexTrade* trade = nullptr;
  int64_t price = 0;      // micro-dollars
  uint64_t id = 0;        // trade id
  int64_t gpu_hours = 0;  // q
  int64_t weight = 0;     // the level's weight, micro-GPU-hours
  uint64_t milli_tokens = 0;
  uint32_t seller = 0;
  uint32_t buyer = 0;
  uint32_t partition = 0;  // 1-based for day d's trades (1a), else 0
  uint16_t age = 0;        // < kMaxPoolDays
};

bool ItemPriceOrder(const Item& a, const Item& b) {
  if (a.price != b.price) return a.price < b.price;
  if (a.id != b.id) return a.id < b.id;
  return PriceOrder(*a.trade, *b.trade);
}

bool ItemAgeOrder(const Item& a, const Item& b) {
  if (a.age != b.age) return a.age < b.age;
  return ItemPriceOrder(a, b);
}

// Euclid's algorithm, for uint64_t and Uint128 (std::gcd takes neither
// 128-bit type in strict C++20).
template <typename U>
U Gcd(U a, U b) {
  while (b != 0) {
    const U r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// Sorts `items` into price order (ItemPriceOrder). When the ids increase
// strictly (the order trades matched) and the prices sit on a grid of at
// most kMaxBuckets steps (they are on a tick), a stable counting sort by
// price gives that order in linear time; otherwise a comparison sort.
void SortByPrice(std::vector<Item>& items) {
  constexpr uint64_t kMaxBuckets = uint64_t{1} << 20;
  const std::size_t n = items.size();
  if (n < 2) return;
  bool increasing = true;
  int64_t lo = items[0].price;
  int64_t hi = items[0].price;
  for (std::size_t i = 1; i < n; ++i) {
    increasing = increasing && items[i - 1].id < items[i].id;
    lo = std::min(lo, items[i].price);
    hi = std::max(hi, items[i].price);
  }
  uint64_t step = 0;  // gcd of (price - lo)
  if (increasing) {
    for (const Item& item : items) {
      const auto d = static_cast<uint64_t>(item.price - lo);
      if (step == 0 || d % step != 0) step = Gcd(step, d);
    }
  }
  const uint64_t buckets =
      step == 0 ? 1 : static_cast<uint64_t>(hi - lo) / step + 1;
  if (!increasing || buckets > std::max<uint64_t>(n, 1'024) ||
      buckets > kMaxBuckets) {
    std::sort(items.begin(), items.end(), ItemPriceOrder);
    return;
  }
  std::vector<uint32_t> bucket(n);
  std::vector<std::size_t> start(buckets + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t d = static_cast<uint64_t>(items[i].price - lo);
    bucket[i] = static_cast<uint32_t>(step == 0 ? 0 : d / step);
    ++start[bucket[i] + 1];
  }
  for (uint64_t b = 1; b <= buckets; ++b) start[b] += start[b - 1];
  std::vector<Item> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[start[bucket[i]]++] = items[i];
  items.swap(sorted);
}

// Numbers firm ids 0, 1, 2, ... in the order they are first seen: a plain
// table for ids below kDenseLimit (the usual case), a hash map above.
class FirmSlots {
 public:
  explicit FirmSlots(uint32_t max_id) : dense_(max_id < kDenseLimit) {
    if (dense_) slot_.assign(std::size_t{max_id} + 1, kNone);
  }
  uint32_t Slot(uint32_t id) {
    if (dense_) {
      uint32_t& s = slot_[id];
      if (s == kNone) s = count_++;
      return s;
    }
    const auto [it, inserted] = map_.try_emplace(id, count_);
    if (inserted) ++count_;
    return it->second;
  }
  uint32_t count() const { return count_; }

 private:
  static constexpr uint32_t kDenseLimit = uint32_t{1} << 20;
  static constexpr uint32_t kNone = ~uint32_t{0};
  bool dense_;
  uint32_t count_ = 0;
  std::vector<uint32_t> slot_;
  std::unordered_map<uint32_t, uint32_t> map_;
};

uint32_t MaxFirm(std::span<const Item> items) {
  uint32_t m = 0;
  for (const Item& item : items) m = std::max({m, item.seller, item.buyer});
  return m;
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

// min(1, c Q / Q_x) as a fraction in lowest terms, c = cap_bp / 10,000.
struct Factor {
  Uint128 num = 1;
  Uint128 den = 1;
  bool one() const { return num == den; }
};

Factor CapFactor(int64_t cap_bp, Int128 total, Int128 firm) {
  const Int128 num = static_cast<Int128>(std::max<int64_t>(cap_bp, 0)) * total;
  const Int128 den = Int128{10'000} * firm;
  if (num >= den) return {};
  if (num == 0) return {0, 1};
  const Uint128 g = Gcd(static_cast<Uint128>(num), static_cast<Uint128>(den));
  return {static_cast<Uint128>(num) / g, static_cast<Uint128>(den) / g};
}

// round(q x s x b) half-up, q in micro-GPU-hours, exactly.
int64_t CappedWeight(int64_t q_micros, const Factor& s, const Factor& b) {
  const auto q = static_cast<Uint128>(q_micros);
  if (s.one() && b.one()) return q_micros;
  Uint128 num;
  Uint128 den;
  if (!__builtin_mul_overflow(q, s.num, &num) &&
      !__builtin_mul_overflow(num, b.num, &num) &&
      !__builtin_mul_overflow(s.den, b.den, &den)) {
    const Uint128 quot = num / den;
    const Uint128 rem = num % den;
    return static_cast<int64_t>(rem >= den - rem ? quot + 1 : quot);
  }
  return static_cast<int64_t>(
      DivRoundHalfUp(Mul(q * s.num, b.num), Mul(s.den, b.den)));
}

// The trades of day `in.day - age`: those inside the day's window, split
// into eligible and excluded, the eligible ones with capped weights.
DayTrades PrepareDay(const MethodologyConfig& c, const FixingInput& in,
                     uint32_t age) {
  DayTrades out;
  const int64_t day = in.day - age;
  const int64_t begin = c.FixingNs(day - 1);
  const int64_t end = c.FixingNs(day);
  const Print* ref = age < in.prev.size() ? in.prev[age] : nullptr;

  // One pass in input order (sequential memory), then the compact items
  // are put in price order.
  const bool with_partitions = age == 0 && c.partitions > 0;
  const int64_t parts = with_partitions ? c.partitions : 1;
  if (age < in.days.size()) {
    out.eligible.reserve(in.days[age].size());
    for (const IndexTrade& t : in.days[age]) {
      if (t.ts_ns < begin || t.ts_ns >= end) continue;
      const std::string_view reason = ExclusionReason(c, t, in.as_of_ns, ref);
      if (!reason.empty()) {
        out.excluded.push_back(ExcludedTrade{t, age, reason});
        continue;
      }
      Item item;
      item.trade = &t;
      item.price = t.price_micros;
      item.id = t.trade_id;
      item.gpu_hours = t.lots * c.gpu_hours_per_lot;
      item.milli_tokens = t.seller_milli_tokens;
      item.seller = t.seller;
      item.buyer = t.buyer;
      item.age = static_cast<uint16_t>(age);
      if (with_partitions) {
        const Int128 offset = t.ts_ns - begin;  // in [0, 1 day)
        item.partition =
            static_cast<uint32_t>(offset * parts / kNanosPerDay + 1);
      }
      out.eligible.push_back(item);
    }
  }
  SortByPrice(out.eligible);
  std::sort(out.excluded.begin(), out.excluded.end(),
            [](const ExcludedTrade& x, const ExcludedTrade& y) {
              return PriceOrder(x.trade, y.trade);
            });

  // The cap: Q and each firm's Q_x (both sides) over this day's eligible
  // trades, once, with no renormalisation; one factor per firm.
  FirmSlots slots(MaxFirm(out.eligible));
  std::vector<std::pair<uint32_t, uint32_t>> sides(out.eligible.size());
  std::vector<Int128> by_firm;
  Int128 total = 0;
  for (std::size_t i = 0; i < out.eligible.size(); ++i) {
    const Item& item = out.eligible[i];
    sides[i] = {slots.Slot(item.seller), slots.Slot(item.buyer)};
    by_firm.resize(slots.count());
    total += item.gpu_hours;
    by_firm[sides[i].first] += item.gpu_hours;
    by_firm[sides[i].second] += item.gpu_hours;
  }
  std::vector<Factor> factors(by_firm.size());
  for (std::size_t f = 0; f < by_firm.size(); ++f) {
    factors[f] = CapFactor(c.cap_bp, total, by_firm[f]);
  }
  for (std::size_t i = 0; i < out.eligible.size(); ++i) {
    Item& item = out.eligible[i];
    item.weight =
        CappedWeight(item.gpu_hours * kMicrosPerGpuHour,
                     factors[sides[i].first], factors[sides[i].second]);
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

Int128 TotalWeight(std::span<const Item> items) {
  Int128 total = 0;
  for (const Item& item : items) total += item.weight;
  return total;
}

// The median rule at num/den over `items` in price order: the first i with
// den x cum_i >= num x total; on equality, the mean with the next price.
// Returns twice the price, so that a mean of two prices stays exact.
// REQUIRES: total = the items' total weight > 0.
Int128 TwiceQuantile(std::span<const Item> items, Int128 total, int64_t num,
                     int64_t den) {
  Int128 cum = 0;
  const Int128 rhs = num * total;
  for (std::size_t i = 0; i < items.size(); ++i) {
    cum += items[i].weight;
    const Int128 lhs = den * cum;
    if (lhs < rhs) continue;
    const Int128 p = items[i].price;
    if (lhs == rhs && i + 1 < items.size()) return p + items[i + 1].price;
    return 2 * p;
  }
  return items.empty() ? 0 : 2 * Int128{items.back().price};
}

// T: the weight-average of the sellers' attested throughput over the
// trades that have one; 0 when none has.
uint64_t AttestedMilliTokens(std::span<const Item> items) {
  Int128 num = 0;
  Int128 den = 0;
  for (const Item& item : items) {
    if (item.milli_tokens == 0) continue;
    num += Int128{item.weight} * static_cast<Int128>(item.milli_tokens);
    den += item.weight;
  }
  return den > 0 ? static_cast<uint64_t>(RoundHalfUp(num, den, 1)) : 0;
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
void Describe(const FixingInput& in, std::span<const Item> items, Print* p) {
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
  p->trade_ids = AscendingIds(in, items);
  p->attested_milli_tokens = AttestedMilliTokens(items);
}

// The explanation's list of contributing trades; nothing when `ex` is null.
// kept4[i] is items[i]'s kept weight x 4 (1b/2), or empty (1a).
void ListContributing(std::span<const Item> items,
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
    t.weight = item.weight;
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
             const std::vector<Item>& eligible, Print* p, Explanation* ex,
             std::string* note) {
  const uint32_t n_parts = c.partitions;
  const std::size_t slots = std::size_t{n_parts} + 1;
  // Per partition k (1-based): trades, total weight, and whether it counts.
  std::vector<uint32_t> trades(slots, 0);
  std::vector<Int128> totals(slots, 0);
  if (n_parts > 0) {
    for (const Item& item : eligible) {
      ++trades[item.partition];
      totals[item.partition] += item.weight;
    }
  }
  const uint32_t min_trades = std::max<uint32_t>(c.min_partition_trades, 1);
  std::vector<bool> qualifies(slots, false);
  uint32_t count = 0;
  for (uint32_t k = 1; k <= n_parts; ++k) {
    qualifies[k] = trades[k] >= min_trades && totals[k] > 0;
    if (qualifies[k]) ++count;
  }
  if (count < std::max<uint32_t>(c.min_partitions, 1)) {
    *note = "1a: " + std::to_string(count) +
            " partitions with >= " + std::to_string(c.min_partition_trades) +
            " trades < " + std::to_string(c.min_partitions);
    return false;
  }

  // Each partition's median in one pass over the price order: the first
  // trade with 2 x cum >= total, on equality the mean with the partition's
  // next price (TwiceQuantile at 1/2).
  enum : uint8_t { kSearching, kPending, kDone };
  std::vector<uint8_t> state(slots, kSearching);
  std::vector<Int128> cum(slots, 0);
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
    cum[k] += item.weight;
    const Int128 lhs = 2 * cum[k];
    if (lhs < totals[k]) continue;
    if (lhs == totals[k]) {
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
    values.push_back(PartitionValue{k, trades[k], RoundHalfUp(twice[k], 2, 1)});
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
  p->value_micros = RoundHalfUp(twice_sum, 2 * Int128{count}, kValueUnit);
  p->partitions_used = mask;
  Describe(in, used, p);
  ListContributing(used, {}, ex);
  if (ex != nullptr) ex->partitions = std::move(values);
  return true;
}

// 1b and Level 2: the volume-weighted mean of the central half of the
// weight, boundary trades split pro rata. `items` are in price order with
// the level's weights. Returns false with a note when there is no weight.
// `ex` may be null.
bool TrimmedMean(Level level, const FixingInput& in, std::vector<Item>& items,
                 Print* p, Explanation* ex, std::string* note) {
  const Int128 total = TotalWeight(items);
  if (total <= 0) {
    *note = std::string(LevelName(level)) + ": total weight 0";
    return false;
  }
  // In units of a quarter of a weight unit the cut points W/4 and 3W/4 are
  // the integers W and 3W.
  Int128 cum4 = 0;
  Int128 sum = 0;
  std::vector<int64_t> kept4(ex != nullptr ? items.size() : 0);
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    item.partition = 0;  // partitions are 1a's
    const Int128 from = cum4;
    cum4 += 4 * Int128{item.weight};
    const Int128 kept =
        std::max<Int128>(0, std::min(cum4, 3 * total) - std::max(from, total));
    if (!kept4.empty()) kept4[i] = static_cast<int64_t>(kept);
    sum += kept * item.price;
  }
  // value = Σ (kept4 / 4) x p / (W / 2) = Σ kept4 x p / (2 W).
  p->level = level;
  p->has_value = true;
  p->value_micros = RoundHalfUp(sum, 2 * total, kValueUnit);
  Describe(in, items, p);
  ListContributing(items, kept4, ex);
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
    done = Level1a(config, input, days[0].eligible, &p, listing, &note);
    if (!done) {
      ex.notes.push_back(std::move(note));
      done =
          TrimmedMean(Level::k1b, input, days[0].eligible, &p, listing, &note);
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
          item.weight <<= n - 1 - item.age;
          pool.push_back(item);
        }
      }
      std::sort(pool.begin(), pool.end(), ItemPriceOrder);
      const std::string pool_shortfall = Shortfall(config, Summarize(pool));
      if (pool_shortfall.empty()) {
        std::string note;
        done = TrimmedMean(Level::k2, input, pool, &p, listing, &note);
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

}  // namespace cfx::index
