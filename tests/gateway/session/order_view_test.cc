// The day's order view (gateway/session/order_view.h): states, the notional
// behind AvgPx, the ClOrdID index and the end of the trading day.

#include "gateway/session/order_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>

#include "gateway/fix/fix_fields.h"

namespace cfx::gateway {
namespace {

using exchange::Event;
using exchange::EventType;

Event Accepted(uint64_t order, uint32_t account, uint64_t clordid) {
  Event e;
  e.type = EventType::kOrderAccepted;
  e.order_id = exchange::OrderId{order};
  e.account = exchange::AccountId{account};
  e.client_order_id = exchange::ClientOrderId{clordid};
  e.quantity = exchange::Quantity{10};
  e.leaves = exchange::Quantity{10};
  return e;
}

// A replace of `order` to 5 lots under client order id `clordid`.
Event Replaced(uint64_t order, uint32_t account, uint64_t clordid) {
  Event e;
  e.type = EventType::kOrderReplaced;
  e.order_id = exchange::OrderId{order};
  e.account = exchange::AccountId{account};
  e.client_order_id = exchange::ClientOrderId{clordid};
  e.quantity = exchange::Quantity{5};
  e.leaves = exchange::Quantity{5};
  return e;
}

Event Trade(uint64_t order, uint64_t counter, int64_t price, int64_t lots,
            int64_t leaves) {
  Event e;
  e.type = EventType::kTrade;
  e.order_id = exchange::OrderId{order};
  e.counter_order_id = exchange::OrderId{counter};
  e.price = exchange::Price{price};
  e.quantity = exchange::Quantity{lots};
  e.leaves = exchange::Quantity{leaves};
  e.filled = exchange::Quantity{10 - leaves};
  e.counter_leaves = exchange::Quantity{leaves};
  e.counter_filled = exchange::Quantity{10 - leaves};
  return e;
}

TEST(OrderView, FillsAddTheirNotional) {
  OrderView view;
  view.OnEvent(Accepted(1, 7, 100));
  view.OnEvent(Accepted(2, 8, 200));
  view.OnEvent(Trade(1, 2, 58'000, 4, 6));
  view.OnEvent(Trade(1, 2, 58'100, 6, 0));
  const OrderRecord* o = view.Find(exchange::OrderId{1});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->state, OrderState::kFilled);
  EXPECT_TRUE(o->done());
  EXPECT_TRUE(o->notional == Int128{58'000} * 4 + Int128{58'100} * 6);
}

TEST(OrderView, TheIndexFindsEveryClientOrderIdOfTheDay) {
  OrderView view(/*index_client_order_ids=*/true);
  view.OnEvent(Accepted(1, 7, 100));
  view.OnEvent(Replaced(1, 7, 101));
  const exchange::AccountId a{7};
  EXPECT_EQ(view.FindByClientOrderId(a, exchange::ClientOrderId{100}),
            view.Find(exchange::OrderId{1}));
  EXPECT_EQ(view.FindByClientOrderId(a, exchange::ClientOrderId{101}),
            view.Find(exchange::OrderId{1}));
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{8},
                                     exchange::ClientOrderId{101}),
            nullptr);
  // The day ends: a resting order keeps only its current id.
  Event end;
  end.type = EventType::kSessionEnded;
  view.OnEvent(end);
  EXPECT_EQ(view.FindByClientOrderId(a, exchange::ClientOrderId{100}), nullptr);
  EXPECT_NE(view.FindByClientOrderId(a, exchange::ClientOrderId{101}), nullptr);
}

TEST(OrderView, AReplaceKeepsTheClientOrderIdItReplaced) {
  OrderView view;
  view.OnEvent(Accepted(1, 7, 100));
  EXPECT_EQ(view.Find(exchange::OrderId{1})->previous_client_order_id.value,
            0u);
  view.OnEvent(Replaced(1, 7, 101));
  view.OnEvent(Replaced(1, 7, 102));
  const OrderRecord* o = view.Find(exchange::OrderId{1});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->client_order_id.value, 102u);
  EXPECT_EQ(o->previous_client_order_id.value, 101u);
}

TEST(OrderView, TheDaysEndDropsFinishedOrders) {
  OrderView view(true);
  view.OnEvent(Accepted(1, 7, 100));
  view.OnEvent(Accepted(2, 8, 200));
  view.OnEvent(Trade(1, 2, 58'000, 10, 0));
  view.OnEvent(Accepted(3, 7, 300));
  Event end;
  end.type = EventType::kSessionEnded;
  view.OnEvent(end);
  EXPECT_EQ(view.size(), 1u);
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{7},
                                     exchange::ClientOrderId{100}),
            nullptr);
  EXPECT_NE(view.Find(exchange::OrderId{3}), nullptr);
}

// Orders still resting at the day's end move out of the day's chunks and
// are found beside the next day's orders, under their current ids only.
TEST(OrderView, OrdersRestingOverTheDaysEndAreFoundBesideTheNextDays) {
  OrderView view(true);
  const uint64_t n = 3 * OrderView::kChunk + 5;  // spans four chunks
  for (uint64_t id = 1; id <= n; ++id) view.OnEvent(Accepted(id, 7, 1000 + id));
  // Every other order fills; the rest rest over the day's end.
  for (uint64_t id = 2; id <= n; id += 2) {
    view.OnEvent(Trade(id, 0, 58'000, 10, 0));
  }
  Event end;
  end.type = EventType::kSessionEnded;
  view.OnEvent(end);
  EXPECT_EQ(view.size(), (n + 1) / 2);
  for (uint64_t id = n + 1; id <= n + 10; ++id) {
    view.OnEvent(Accepted(id, 7, 1000 + id));
  }
  EXPECT_EQ(view.size(), (n + 1) / 2 + 10);
  const exchange::AccountId a{7};
  for (uint64_t id = 1; id <= n + 10; ++id) {
    const bool kept = id > n || id % 2 == 1;
    const OrderRecord* o = view.Find(exchange::OrderId{id});
    ASSERT_EQ(o != nullptr, kept) << id;
    ASSERT_EQ(view.FindByClientOrderId(a, exchange::ClientOrderId{1000 + id}),
              o)
        << id;
    if (kept) {
      EXPECT_EQ(o->id.value, id);
    }
  }
  std::size_t visited = 0;
  view.ForEach([&](const OrderRecord& o) {
    ++visited;
    EXPECT_TRUE(o.id.value > n || o.id.value % 2 == 1) << o.id.value;
  });
  EXPECT_EQ(visited, view.size());
}

// An order id far past the day's run (the engine never skips that many,
// but the view must not allocate the gap) starts a new run; the orders of
// the old one stay found.
TEST(OrderView, AnOrderIdFarPastTheRunKeepsTheEarlierOrders) {
  OrderView view(true);
  view.OnEvent(Accepted(1, 7, 100));
  view.OnEvent(Accepted(2, 7, 101));
  const uint64_t far = 3 + OrderView::kChunk + OrderView::kMaxGap;
  view.OnEvent(Accepted(far, 7, 102));
  view.OnEvent(Accepted(far + 1, 7, 103));
  view.OnEvent(Trade(1, far, 58'000, 4, 6));
  EXPECT_EQ(view.size(), 4u);
  ASSERT_NE(view.Find(exchange::OrderId{1}), nullptr);
  EXPECT_EQ(view.Find(exchange::OrderId{1})->leaves.lots, 6);
  EXPECT_EQ(view.Find(exchange::OrderId{far})->leaves.lots, 6);
  EXPECT_EQ(view.Find(exchange::OrderId{3}), nullptr);
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{7},
                                     exchange::ClientOrderId{101}),
            view.Find(exchange::OrderId{2}));
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{7},
                                     exchange::ClientOrderId{103}),
            view.Find(exchange::OrderId{far + 1}));
}

TEST(OrderView, WithoutTheIndexNothingIsFoundByClientOrderId) {
  OrderView view;
  view.OnEvent(Accepted(1, 7, 100));
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{7},
                                     exchange::ClientOrderId{100}),
            nullptr);
}

// Numeric ClOrdIDs that are multiples of the bucket count all shared bucket
// 0 under the old unkeyed hash (id + (account << 40)): the keyed hash
// spreads them, and every lookup still finds its own entry.
TEST(OrderView, ClientOrderKeysCollidingUnderTheUnkeyedHashSpread) {
  std::unordered_map<ClientOrderKey, uint64_t, ClientOrderKeyHash> table;
  table.reserve(20'000);
  const uint64_t buckets = table.bucket_count();
  for (uint64_t k = 1; k <= 10'000; ++k) table[{7, k * buckets}] = k;
  ASSERT_EQ(table.bucket_count(), buckets);
  std::size_t longest = 0;
  for (std::size_t b = 0; b < table.bucket_count(); ++b) {
    longest = std::max(longest, table.bucket_size(b));
  }
  // 10k keys in >= 20k buckets at random: chains of a handful at most.
  EXPECT_LT(longest, 12u);
  for (uint64_t k = 1; k <= 10'000; ++k) {
    ASSERT_EQ(table.at({7, k * buckets}), k);
  }
}

TEST(OrderView, TheIndexAnswersForNumericClOrdIdsOnOneStride) {
  OrderView view(/*index_client_order_ids=*/true);
  // The ClOrdIDs "2000003", "4000006", ...: digits, so the id is the number.
  constexpr uint64_t kStride = 2'000'003;
  for (uint64_t k = 1; k <= 5'000; ++k) {
    const std::string text = std::to_string(k * kStride);
    ASSERT_EQ(fix::ClientOrderIdForClOrdId(text), k * kStride);
    view.OnEvent(Accepted(k, 7, k * kStride));
  }
  for (uint64_t k = 1; k <= 5'000; ++k) {
    const OrderRecord* o = view.FindByClientOrderId(
        exchange::AccountId{7}, exchange::ClientOrderId{k * kStride});
    ASSERT_NE(o, nullptr) << k;
    EXPECT_EQ(o->id, exchange::OrderId{k});
    EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{8},
                                       exchange::ClientOrderId{k * kStride}),
              nullptr);
  }
  EXPECT_EQ(view.FindByClientOrderId(exchange::AccountId{7},
                                     exchange::ClientOrderId{kStride + 1}),
            nullptr);
}

}  // namespace
}  // namespace cfx::gateway
