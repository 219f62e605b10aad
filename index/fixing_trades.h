#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "index/capped_weights.h"
#include "index/methodology.h"

// The trades one fixing computation uses (ComputeFixing, methodology.h):
// each day's trades inside its window, split into eligible and excluded
// (with the reason), the eligible ones compact, in price order and with
// their capped weight classes. Pure functions.
namespace cfx::index::internal {

__extension__ using Uint128 = unsigned __int128;

// Level 2 ages weights by 2^(pooled days - 1 - age); no more days than this
// are pooled.
inline constexpr uint32_t kMaxPoolDays = 8;

// Price order with the trade id as tie-break; the remaining fields only
// make the order total, so that even duplicated ids cannot make the result
// depend on the input order.
inline bool PriceOrder(const IndexTrade& a, const IndexTrade& b) {
  if (a.price != b.price) return a.price < b.price;
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
  int64_t price = 0;      // IndexTrade::price, micro-dollars
  uint64_t id = 0;        // trade id
  int64_t gpu_hours = 0;  // q
  uint32_t cls = 0;       // weight class: index into the level's WeightScale
  uint64_t milli_tokens = 0;
  uint32_t seller = 0;
  uint32_t buyer = 0;
  uint32_t partition = 0;  // 1-based for day d's trades (1a), else 0
  uint16_t age = 0;        // < kMaxPoolDays
};

inline bool ItemPriceOrder(const Item& a, const Item& b) {
  if (a.price != b.price) return a.price < b.price;
  if (a.id != b.id) return a.id < b.id;
  return PriceOrder(*a.trade, *b.trade);
}

inline bool ItemAgeOrder(const Item& a, const Item& b) {
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

inline uint32_t MaxFirm(std::span<const Item> items) {
  uint32_t m = 0;
  for (const Item& item : items) m = std::max({m, item.seller, item.buyer});
  return m;
}

// One day's eligible and excluded trades, each in price order. An eligible
// trade weighs q x factors[cls] exactly.
struct DayTrades {
  std::vector<Item> eligible;
  std::vector<ExcludedTrade> excluded;
  std::vector<WeightFactor> factors;  // per weight class
};

// The trades of day `in.day - age`: those inside the day's window, split
// into eligible and excluded, the eligible ones with capped weights.
DayTrades PrepareDay(const MethodologyConfig& c, const FixingInput& in,
                     uint32_t age);

}  // namespace cfx::index::internal
