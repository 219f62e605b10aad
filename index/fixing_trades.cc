#include "index/fixing_trades.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace cfx::index::internal {
namespace {

// The arithmetic range. A trade outside it is excluded as INVALID, so that
// a trade's q x 4 fits in 64 bits and its q x price (< 2^80) and q x tokens
// (< 2^70) in 128, as do their per-class sums over fewer than 2^47 trades
// (a print counts its trades in 32 bits). Weights and every sum or product
// of them are WideUint: exact at any size, so no day is out of range; the
// cost grows with the number of capped firms (fewer than 2/c).
constexpr int64_t kMaxTradeGpuHours = 1'000'000'000;
constexpr int64_t kMaxPriceMicros = 1'000'000'000'000'000;  // $1e9/GPU-hour
constexpr uint64_t kMaxMilliTokens = 1'000'000'000'000;

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

bool Invalid(const MethodologyConfig& c, const IndexTrade& t) {
  return t.lots <= 0 || t.price.micros <= 0 ||
         t.price.micros > kMaxPriceMicros || c.gpu_hours_per_lot <= 0 ||
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
    const Int128 p = t.price.micros;
    const Int128 i = ref->value.micros;
    if (p * c.filter_ratio_den > i * c.filter_ratio_num ||
        p * c.filter_ratio_num < i * c.filter_ratio_den) {
      return "ERRONEOUS_PRINT";
    }
  }
  return {};
}

}  // namespace

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
      item.price = t.price.micros;
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
  std::vector<Uint128> by_firm;
  Uint128 total = 0;
  for (std::size_t i = 0; i < out.eligible.size(); ++i) {
    const Item& item = out.eligible[i];
    const auto q = static_cast<Uint128>(item.gpu_hours);
    sides[i] = {slots.Slot(item.seller), slots.Slot(item.buyer)};
    by_firm.resize(slots.count());
    total += q;
    by_firm[sides[i].first] += q;
    by_firm[sides[i].second] += q;
  }
  internal::DayClasses classes =
      internal::ClassifyTrades(c.cap_bp, total, by_firm, sides);
  for (std::size_t i = 0; i < out.eligible.size(); ++i) {
    out.eligible[i].cls = classes.cls[i];
  }
  out.factors = std::move(classes.factors);
  return out;
}

}  // namespace cfx::index::internal
