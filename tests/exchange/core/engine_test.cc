#include "exchange/core/engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "exchange/core/keyed_hash.h"
#include "tests/support/engine_fixture.h"

namespace cfx::exchange {
namespace {

using testing::Cents;
using testing::CountResults;
using testing::EngineDriver;
using testing::OfType;
using D = EngineDriver;

constexpr InstrumentId kFut{1};
constexpr InstrumentId kSpot{2};
constexpr AccountId kA{1};
constexpr AccountId kB{2};
constexpr AccountId kC{3};
constexpr AccountId kDecrementer{4};

EngineConfig TestConfig() {
  EngineConfig c;
  c.limits.max_orders = 64;
  c.limits.max_accounts = 8;
  c.limits.max_instruments = 4;
  InstrumentConfig fut;
  fut.id = kFut;
  fut.kind = InstrumentKind::kFuture;
  fut.reference_price = Cents(580);  // band ±58c, market band ±29c
  fut.max_quantity = Quantity{100};
  fut.position_limit = Quantity{50};
  InstrumentConfig spot = fut;
  spot.id = kSpot;
  spot.kind = InstrumentKind::kSpot;
  spot.gpu_hours_per_lot = 192;
  spot.position_limit = Quantity{0};
  c.instruments = {fut, spot};
  c.accounts = {{kA, StpMode::kCancelNewest},
                {kB, StpMode::kCancelNewest},
                {kC, StpMode::kCancelOldest},
                {kDecrementer, StpMode::kDecrement}};
  return c;
}

class EngineTest : public ::testing::Test {
 protected:
  EngineTest() : d_(TestConfig()) {}

  // Places a resting GTC limit order and returns its id.
  OrderId Rest(AccountId a, Side side, Price p, int64_t lots,
               InstrumentId i = kFut) {
    auto ev = d_.Apply(D::Limit(a, i, side, p, lots));
    auto acc = OfType(ev, EventType::kOrderAccepted);
    EXPECT_EQ(acc.size(), 1u);
    EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
    return acc.empty() ? OrderId{} : acc[0].order_id;
  }

  // Applies `cmd`, expects a reject with `code`, and that the state hash
  // did not move.
  void ExpectReject(Command cmd, RejectCode code) {
    const uint64_t hash_before = d_.engine().StateHash();
    auto ev = d_.Apply(cmd);
    ASSERT_EQ(ev.size(), 1u) << ev[0];
    EXPECT_EQ(ev[0].type, EventType::kRejected);
    EXPECT_EQ(RejectCodeName(ev[0].reject_code()), RejectCodeName(code));
    EXPECT_EQ(d_.engine().StateHash(), hash_before);
  }

  D d_;
};

TEST_F(EngineTest, RestingLimitOrderIsAcceptedAndShowsInDepth) {
  auto ev = d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(579), 3));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
  EXPECT_EQ(ev[0].order_id.value, 1u);
  EXPECT_EQ(ev[0].leaves.lots, 3);
  EXPECT_EQ(ev[1].type, EventType::kBookLevel);
  EXPECT_EQ(ev[1].side, Side::kBuy);
  EXPECT_EQ(ev[1].price, Cents(579));
  EXPECT_EQ(ev[1].quantity.lots, 3);
  EXPECT_EQ(ev[1].count, 1u);
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kBuy), Cents(579));
}

TEST_F(EngineTest, CrossingOrderTradesAtRestingPrice) {
  const OrderId maker = Rest(kA, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(590), 2));
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].price, Cents(581));
  EXPECT_EQ(trades[0].quantity.lots, 2);
  EXPECT_EQ(trades[0].side, Side::kBuy);
  EXPECT_EQ(trades[0].counter_order_id, maker);
  EXPECT_EQ(trades[0].counter_account, kA);
  EXPECT_EQ(trades[0].counter_leaves.lots, 3);
  EXPECT_EQ(trades[0].leaves.lots, 0);
  EXPECT_EQ(trades[0].trade_id.value, 1u);
  EXPECT_EQ(d_.engine().position(kB, kFut), 2);
  EXPECT_EQ(d_.engine().position(kA, kFut), -2);
}

TEST_F(EngineTest, FullyFilledIncomingOrderNeverShowsInDepth) {
  Rest(kA, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(581), 5));
  auto levels = OfType(ev, EventType::kBookLevel);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].side, Side::kSell);
  EXPECT_EQ(levels[0].quantity.lots, 0);
  EXPECT_EQ(levels[0].count, 0u);
  EXPECT_EQ(d_.engine().resting_orders(), 0u);
}

TEST_F(EngineTest, PartialFillRestsOnlyTheRemainderInDepth) {
  Rest(kA, Side::kSell, Cents(581), 2);
  auto ev = d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(582), 5));
  auto levels = OfType(ev, EventType::kBookLevel);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].side, Side::kSell);
  EXPECT_EQ(levels[0].quantity.lots, 0);
  EXPECT_EQ(levels[1].side, Side::kBuy);
  EXPECT_EQ(levels[1].price, Cents(582));
  EXPECT_EQ(levels[1].quantity.lots, 3);
}

TEST_F(EngineTest, BetterPriceThenEarlierOrderFillsFirst) {
  const OrderId first = Rest(kA, Side::kSell, Cents(582), 1);
  const OrderId second = Rest(kC, Side::kSell, Cents(582), 1);
  const OrderId better = Rest(kC, Side::kSell, Cents(581), 1);
  auto trades = OfType(d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(582), 3)),
                       EventType::kTrade);
  ASSERT_EQ(trades.size(), 3u);
  EXPECT_EQ(trades[0].counter_order_id, better);
  EXPECT_EQ(trades[1].counter_order_id, first);
  EXPECT_EQ(trades[2].counter_order_id, second);
}

TEST_F(EngineTest, IocRemainderNeverRests) {
  Rest(kA, Side::kSell, Cents(581), 2);
  auto ev = d_.Apply(
      D::Limit(kB, kFut, Side::kBuy, Cents(581), 5, TimeInForce::kIoc));
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kIocRemainder);
  EXPECT_EQ(cancels[0].quantity.lots, 3);
  EXPECT_EQ(cancels[0].filled.lots, 2);
  EXPECT_EQ(d_.engine().resting_orders(), 0u);
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kBuy), Price{});
}

TEST_F(EngineTest, FokThatCannotFillCompletelyChangesNothing) {
  Rest(kA, Side::kSell, Cents(581), 2);
  Rest(kA, Side::kSell, Cents(590), 10);  // beyond the FOK's limit
  auto ev = d_.Apply(
      D::Limit(kB, kFut, Side::kBuy, Cents(585), 3, TimeInForce::kFok));
  EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kFokNotFilled);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kSell, Cents(581)).lots, 2);
  EXPECT_TRUE(OfType(ev, EventType::kBookLevel).empty());
}

TEST_F(EngineTest, FokThatCanFillFillsCompletelyAcrossLevels) {
  Rest(kA, Side::kSell, Cents(581), 2);
  Rest(kA, Side::kSell, Cents(582), 2);
  auto ev = d_.Apply(
      D::Limit(kB, kFut, Side::kBuy, Cents(585), 3, TimeInForce::kFok));
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 2u);
  EXPECT_EQ(trades[1].leaves.lots, 0);
  EXPECT_TRUE(OfType(ev, EventType::kOrderCancelled).empty());
}

TEST_F(EngineTest, FokCountsNoOwnLiquidityUnderCancelNewest) {
  Rest(kA, Side::kSell, Cents(581), 5);
  Rest(kB, Side::kSell, Cents(581), 1);
  auto ev = d_.Apply(
      D::Limit(kA, kFut, Side::kBuy, Cents(581), 1, TimeInForce::kFok));
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kFokNotFilled);
}

TEST_F(EngineTest, MarketOrderNeverFillsBeyondItsProtectionBand) {
  // Reference $5.80, market band 5 % = 29c: a market buy reaches $6.09.
  Rest(kA, Side::kSell, Cents(600), 1);
  Rest(kA, Side::kSell, Cents(609), 1);
  Rest(kA, Side::kSell, Cents(610), 5);
  auto ev = d_.Apply(D::Market(kB, kFut, Side::kBuy, 4));
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 2u);
  EXPECT_EQ(trades[0].price, Cents(600));
  EXPECT_EQ(trades[1].price, Cents(609));
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kMarketProtection);
  EXPECT_EQ(cancels[0].quantity.lots, 2);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kSell, Cents(610)).lots, 5);
}

TEST_F(EngineTest, MarketOrderIntoEmptyBookIsCancelledAsIocRemainder) {
  auto ev = d_.Apply(D::Market(kB, kFut, Side::kSell, 4));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
  EXPECT_EQ(ev[0].price, Price{});
  EXPECT_EQ(ev[1].cancel_reason(), CancelReason::kIocRemainder);
}

TEST_F(EngineTest, MarketOrderMustBeIocOrFok) {
  ExpectReject(D::Market(kB, kFut, Side::kBuy, 1, TimeInForce::kGtc),
               RejectCode::kMarketOrderNeedsIocOrFok);
}

TEST_F(EngineTest, PostOnlyThatWouldCrossIsRejected) {
  Rest(kA, Side::kSell, Cents(581), 1);
  Command c = D::Limit(kB, kFut, Side::kBuy, Cents(581), 1);
  c.flags = kFlagPostOnly;
  ExpectReject(c, RejectCode::kPostOnlyWouldCross);
  c.price = Cents(580);
  auto ev = d_.Apply(c);
  EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
}

TEST_F(EngineTest, PostOnlyIocIsRejected) {
  Command c = D::Limit(kB, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc);
  c.flags = kFlagPostOnly;
  ExpectReject(c, RejectCode::kPostOnlyNotAllowed);
}

TEST_F(EngineTest, ReplaceQuantityDownKeepsTimePriority) {
  const OrderId first = Rest(kA, Side::kSell, Cents(581), 5);
  Rest(kC, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Replace(kA, first, Cents(581), 3));
  ASSERT_EQ(ev[0].type, EventType::kOrderReplaced);
  EXPECT_EQ(ev[0].leaves.lots, 3);
  auto trades = OfType(d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(581), 1)),
                       EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].counter_order_id, first);
}

TEST_F(EngineTest, ReplaceQuantityUpLosesTimePriority) {
  const OrderId first = Rest(kA, Side::kSell, Cents(581), 5);
  const OrderId second = Rest(kC, Side::kSell, Cents(581), 5);
  d_.Apply(D::Replace(kA, first, Cents(581), 6));
  auto trades = OfType(d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(581), 1)),
                       EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].counter_order_id, second);
}

TEST_F(EngineTest, ReplacePriceChangeLosesTimePriority) {
  const OrderId first = Rest(kA, Side::kSell, Cents(582), 5);
  const OrderId second = Rest(kC, Side::kSell, Cents(581), 5);
  d_.Apply(D::Replace(kA, first, Cents(581), 5));
  auto trades = OfType(d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(581), 1)),
                       EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].counter_order_id, second);
}

TEST_F(EngineTest, ReplaceUsesLeavesNotOriginalQuantity) {
  const OrderId maker = Rest(kA, Side::kSell, Cents(581), 10);
  d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(581), 4));  // fills 4
  // New total 8 with 4 filled: 4 leaves, not 8.
  auto ev = d_.Apply(D::Replace(kA, maker, Cents(581), 8));
  ASSERT_EQ(ev[0].type, EventType::kOrderReplaced);
  EXPECT_EQ(ev[0].leaves.lots, 4);
  EXPECT_EQ(ev[0].filled.lots, 4);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kSell, Cents(581)).lots, 4);
  // A new total at or below what already filled is refused.
  ExpectReject(D::Replace(kA, maker, Cents(581), 4),
               RejectCode::kReplaceQuantityNotAboveFilled);
}

TEST_F(EngineTest, ReplaceToCrossingPriceTradesThenRests) {
  Rest(kA, Side::kSell, Cents(585), 2);
  const OrderId bid = Rest(kB, Side::kBuy, Cents(579), 5);
  auto ev = d_.Apply(D::Replace(kB, bid, Cents(586), 5));
  ASSERT_EQ(ev[0].type, EventType::kOrderReplaced);
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].order_id, bid);
  EXPECT_EQ(trades[0].price, Cents(585));
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kBuy, Cents(586)).lots, 3);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kBuy, Cents(579)).lots, 0);
  EXPECT_EQ(CountResults(ev), 1);
}

TEST_F(EngineTest, ReplaceWithNoChangeIsRejected) {
  const OrderId id = Rest(kA, Side::kSell, Cents(585), 2);
  ExpectReject(D::Replace(kA, id, Cents(585), 2), RejectCode::kReplaceNoChange);
}

TEST_F(EngineTest, CancelOfUnknownOrderIsRejected) {
  ExpectReject(D::Cancel(kA, OrderId{999}), RejectCode::kUnknownOrder);
}

TEST_F(EngineTest, CancelOfAnotherAccountsOrderLooksUnknown) {
  const OrderId id = Rest(kA, Side::kSell, Cents(585), 2);
  ExpectReject(D::Cancel(kB, id), RejectCode::kUnknownOrder);
  ExpectReject(D::Replace(kB, id, Cents(586), 2), RejectCode::kUnknownOrder);
  auto ev = d_.Apply(D::Cancel(kA, id));
  ASSERT_EQ(ev[0].type, EventType::kCancelAccepted);
  EXPECT_EQ(ev[0].quantity.lots, 2);
  ExpectReject(D::Cancel(kA, id), RejectCode::kUnknownOrder);
}

TEST_F(EngineTest, MassCancelPerInstrumentLeavesOtherInstruments) {
  Rest(kA, Side::kBuy, Cents(570), 1);
  Rest(kA, Side::kSell, Cents(590), 1);
  Rest(kA, Side::kBuy, Cents(570), 1, kSpot);
  Rest(kB, Side::kBuy, Cents(571), 1);
  auto ev = d_.Apply(D::MassCancel(kA, kFut));
  EXPECT_EQ(OfType(ev, EventType::kOrderCancelled).size(), 2u);
  auto done = OfType(ev, EventType::kMassCancelDone);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].count, 2u);
  EXPECT_EQ(d_.engine().resting_orders(), 2u);
  ev = d_.Apply(D::MassCancel(kA, InstrumentId{0}));
  EXPECT_EQ(OfType(ev, EventType::kMassCancelDone)[0].count, 1u);
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
}

TEST_F(EngineTest, SelfTradeCancelNewestCancelsIncoming) {
  const OrderId resting = Rest(kA, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(581), 2));
  EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_NE(cancels[0].order_id, resting);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kSelfTradePrevention);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kSell, Cents(581)).lots, 5);
}

TEST_F(EngineTest, SelfTradeCancelOldestCancelsRestingAndKeepsMatching) {
  const OrderId own = Rest(kC, Side::kSell, Cents(581), 5);
  const OrderId other = Rest(kA, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Limit(kC, kFut, Side::kBuy, Cents(581), 2));
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].order_id, own);
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].counter_order_id, other);
}

TEST_F(EngineTest, SelfTradeCancelBothCancelsBoth) {
  const OrderId own = Rest(kA, Side::kSell, Cents(581), 5);
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(581), 2);
  c.stp = StpMode::kCancelBoth;
  auto cancels = OfType(d_.Apply(c), EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 2u);
  EXPECT_EQ(cancels[0].order_id, own);
  EXPECT_EQ(d_.engine().resting_orders(), 0u);
}

TEST_F(EngineTest, SelfTradeDecrementReducesBothBySmaller) {
  const OrderId own = Rest(kDecrementer, Side::kSell, Cents(581), 5);
  auto ev = d_.Apply(D::Limit(kDecrementer, kFut, Side::kBuy, Cents(581), 2));
  auto restated = OfType(ev, EventType::kOrderRestated);
  ASSERT_EQ(restated.size(), 1u);
  EXPECT_EQ(restated[0].order_id, own);
  EXPECT_EQ(restated[0].quantity.lots, 2);
  EXPECT_EQ(restated[0].leaves.lots, 3);
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);  // the incoming order reached zero
  EXPECT_EQ(cancels[0].quantity.lots, 2);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kSell, Cents(581)).lots, 3);
  EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
}

TEST_F(EngineTest, OffTickPriceIsRejected) {
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Price{57'950}, 1),
               RejectCode::kPriceNotOnTick);
}

TEST_F(EngineTest, PriceBandRejectsAggressiveSideOnly) {
  // ref $5.80, band 58c: buys above $6.38 and sells below $5.22 rejected.
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Cents(639), 1),
               RejectCode::kPriceOutsideBand);
  ExpectReject(D::Limit(kA, kFut, Side::kSell, Cents(521), 1),
               RejectCode::kPriceOutsideBand);
  EXPECT_EQ(d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(638), 1))[0].type,
            EventType::kOrderAccepted);
  EXPECT_EQ(d_.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(100), 1))[0].type,
            EventType::kOrderAccepted);
  EXPECT_EQ(d_.Apply(D::Limit(kB, kFut, Side::kSell, Cents(900), 1))[0].type,
            EventType::kOrderAccepted);
}

TEST_F(EngineTest, ReferencePriceMovesTheBand) {
  d_.Apply(D::SetReference(kFut, Cents(700)));
  EXPECT_EQ(d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(760), 1))[0].type,
            EventType::kOrderAccepted);
  ExpectReject(D::SetReference(kFut, Price{0}),
               RejectCode::kInvalidReferencePrice);
}

TEST_F(EngineTest, QuantityBoundsAreEnforced) {
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Cents(570), 0),
               RejectCode::kQuantityBelowMinimum);
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Cents(570), 101),
               RejectCode::kQuantityAboveMaximum);
}

TEST_F(EngineTest, PositionLimitCountsPositionAndOpenOrders) {
  Rest(kA, Side::kBuy, Cents(570), 30);
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Cents(570), 21),
               RejectCode::kPositionLimitExceeded);
  EXPECT_EQ(d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(570), 20))[0].type,
            EventType::kOrderAccepted);
  // Sells are measured against the short side: 50 lots may still be sold.
  EXPECT_EQ(d_.Apply(D::Limit(kA, kFut, Side::kSell, Cents(600), 50))[0].type,
            EventType::kOrderAccepted);
}

TEST_F(EngineTest, UnknownInstrumentAndAccountAreRejected) {
  ExpectReject(D::Limit(kA, InstrumentId{3}, Side::kBuy, Cents(570), 1),
               RejectCode::kUnknownInstrument);
  ExpectReject(D::Limit(AccountId{7}, kFut, Side::kBuy, Cents(570), 1),
               RejectCode::kUnknownAccount);
  ExpectReject(D::Limit(AccountId{100}, kFut, Side::kBuy, Cents(570), 1),
               RejectCode::kUnknownAccount);
}

TEST_F(EngineTest, InvalidEnumsAreRejected) {
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.side = static_cast<Side>(9);
  ExpectReject(c, RejectCode::kInvalidSide);
  c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.order_type = static_cast<OrderType>(7);
  ExpectReject(c, RejectCode::kInvalidOrderType);
  c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.tif = TimeInForce::kNone;
  ExpectReject(c, RejectCode::kInvalidTimeInForce);
  c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.stp = static_cast<StpMode>(5);
  ExpectReject(c, RejectCode::kInvalidStpMode);
  c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.flags = 0x80;
  ExpectReject(c, RejectCode::kInvalidFlags);
  c = Command{};
  c.type = static_cast<CommandType>(42);
  ExpectReject(c, RejectCode::kUnknownCommand);
}

TEST_F(EngineTest, HaltedInstrumentRejectsNewOrdersButAcceptsCancels) {
  const OrderId id = Rest(kA, Side::kBuy, Cents(570), 1);
  d_.Apply(D::SetState(kFut, InstrumentState::kHalted));
  ExpectReject(D::Limit(kB, kFut, Side::kSell, Cents(570), 1),
               RejectCode::kInstrumentNotOpen);
  ExpectReject(D::Replace(kA, id, Cents(571), 1),
               RejectCode::kInstrumentNotOpen);
  EXPECT_EQ(d_.Apply(D::Cancel(kA, id))[0].type, EventType::kCancelAccepted);
}

TEST_F(EngineTest, ClosingExpiresDayOrdersOnly) {
  Rest(kA, Side::kBuy, Cents(570), 1);  // GTC
  auto day = d_.Apply(
      D::Limit(kA, kFut, Side::kBuy, Cents(571), 1, TimeInForce::kDay));
  auto ev = d_.Apply(D::SetState(kFut, InstrumentState::kClosed));
  ASSERT_EQ(ev[0].type, EventType::kInstrumentStateChanged);
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].order_id, day[0].order_id);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kExpired);
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
}

TEST_F(EngineTest, ExpiringInstrumentCancelsEverythingAndIsTerminal) {
  Rest(kA, Side::kBuy, Cents(570), 1);
  Rest(kB, Side::kSell, Cents(590), 1);
  auto ev = d_.Apply(D::SetState(kFut, InstrumentState::kExpired));
  EXPECT_EQ(OfType(ev, EventType::kOrderCancelled).size(), 2u);
  EXPECT_EQ(d_.engine().resting_orders(), 0u);
  ExpectReject(D::SetState(kFut, InstrumentState::kOpen),
               RejectCode::kInvalidStateTransition);
  ExpectReject(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1),
               RejectCode::kInstrumentExpired);
}

TEST_F(EngineTest, GtdOrderExpiresAtItsTimeBeforeTheNextCommand) {
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kGtd);
  c.set_expire_time(Timestamp{d_.time().nanos + 10'000});
  const OrderId id = d_.Apply(c)[0].order_id;
  Command timer = D::Timer();
  timer.ts = Timestamp{d_.time().nanos + 5'000};
  auto ev = d_.Apply(timer);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].count, 0u);
  // A sell that would have crossed arrives after the expiry time.
  Command sell = D::Limit(kB, kFut, Side::kSell, Cents(570), 1);
  sell.ts = Timestamp{d_.time().nanos + 20'000};
  ev = d_.Apply(sell);
  ASSERT_GE(ev.size(), 2u);
  EXPECT_EQ(ev[0].type, EventType::kOrderCancelled);
  EXPECT_EQ(ev[0].order_id, id);
  EXPECT_EQ(ev[0].cancel_reason(), CancelReason::kExpired);
  EXPECT_EQ(ev[1].type, EventType::kOrderAccepted);
  EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
}

TEST_F(EngineTest, GtdNeedsAFutureExpireTime) {
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kGtd);
  ExpectReject(c, RejectCode::kMissingExpireTime);
  c.set_expire_time(Timestamp{1});
  ExpectReject(c, RejectCode::kExpireTimeInPast);
}

TEST_F(EngineTest, SequenceThatDoesNotAdvanceIsRejected) {
  d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1));
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.seq = Seq{1};
  const uint64_t hash = d_.engine().StateHash();
  auto ev = d_.Apply(c);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kSequenceOutOfOrder);
  EXPECT_EQ(d_.engine().StateHash(), hash);
}

TEST_F(EngineTest, FullOrderPoolRejectsOrdersThatCouldRest) {
  for (int i = 0; i < 64; ++i) Rest(kB, Side::kBuy, Cents(530), 1, kSpot);
  ExpectReject(D::Limit(kA, kSpot, Side::kBuy, Cents(530), 1),
               RejectCode::kOrderBookFull);
  // An IOC needs no slot and still trades.
  auto ev = d_.Apply(
      D::Limit(kA, kSpot, Side::kSell, Cents(530), 1, TimeInForce::kIoc));
  EXPECT_EQ(OfType(ev, EventType::kTrade).size(), 1u);
}

TEST(EngineConfig, NotionalOverflowIsRejected) {
  EngineConfig c = TestConfig();
  c.instruments[0].max_quantity = Quantity{int64_t{1} << 40};
  c.instruments[0].position_limit = Quantity{0};
  D d(c);
  ASSERT_TRUE(d.ok());
  // $5.80 x 2^39 contracts x 730 GPU-hours is about 2.3e21 micro-dollars.
  auto ev =
      d.Apply(D::Limit(kA, kFut, Side::kSell, Cents(580), int64_t{1} << 39));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kNotionalOverflow);
}

TEST(EngineConfig, InvalidConfigNamesTheInstrument) {
  EngineConfig c = TestConfig();
  c.instruments[1].tick = Price{300};
  auto r = Engine::Create(c);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("instrument 2"), std::string::npos);
}

TEST_F(EngineTest, EveryCommandHasExactlyOneResult) {
  std::vector<Command> cmds = {
      D::Limit(kA, kFut, Side::kSell, Cents(581), 5),
      D::Limit(kB, kFut, Side::kBuy, Cents(590), 7),
      D::Market(kC, kFut, Side::kSell, 3),
      D::Cancel(kB, OrderId{2}),
      D::Cancel(kB, OrderId{2}),
      D::MassCancel(kA, InstrumentId{0}),
      D::SetState(kSpot, InstrumentState::kHalted),
      D::Timer(),
      D::SetReference(kSpot, Cents(600)),
  };
  for (const Command& c : cmds) {
    auto ev = d_.Apply(c);
    EXPECT_EQ(CountResults(ev), 1)
        << "command type " << static_cast<int>(c.type);
  }
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

TEST_F(EngineTest, EndOfSessionExpiresDayOrdersOfEveryInstrument) {
  Rest(kA, Side::kBuy, Cents(570), 1);  // GTC stays
  auto day_fut = d_.Apply(
      D::Limit(kA, kFut, Side::kBuy, Cents(571), 1, TimeInForce::kDay));
  auto day_spot = d_.Apply(
      D::Limit(kB, kSpot, Side::kSell, Cents(600), 1, TimeInForce::kDay));
  Command eos;
  eos.type = CommandType::kEndOfSession;
  auto ev = d_.Apply(eos);
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 2u);
  EXPECT_EQ(cancels[0].order_id, day_fut[0].order_id);
  EXPECT_EQ(cancels[1].order_id, day_spot[0].order_id);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kExpired);
  auto done = OfType(ev, EventType::kSessionEnded);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].count, 2u);
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
  EXPECT_EQ(d_.engine().state(kFut), InstrumentState::kOpen);  // still trading
}

TEST_F(EngineTest, EndOfSessionOfOneInstrumentLeavesTheOthers) {
  d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(571), 1, TimeInForce::kDay));
  d_.Apply(D::Limit(kB, kSpot, Side::kSell, Cents(600), 1, TimeInForce::kDay));
  Command eos;
  eos.type = CommandType::kEndOfSession;
  eos.instrument = kSpot;
  auto ev = d_.Apply(eos);
  EXPECT_EQ(OfType(ev, EventType::kSessionEnded)[0].count, 1u);
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
  eos.instrument = InstrumentId{3};
  ExpectReject(eos, RejectCode::kUnknownInstrument);
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// ---- client order ids (docs/matching.md, "Client order ids") ----

Command WithClientOrderId(Command c, uint64_t id) {
  c.client_order_id = ClientOrderId{id};
  return c;
}

Command EndOfSession(InstrumentId i = InstrumentId{}) {
  Command c;
  c.type = CommandType::kEndOfSession;
  c.instrument = i;
  return c;
}

TEST_F(EngineTest, DuplicateClientOrderIdIsRejectedAndChangesNothing) {
  auto ev = d_.Apply(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  ASSERT_EQ(ev[0].type, EventType::kOrderAccepted);
  // A resend, and a different order under the same id: both refused.
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7),
      RejectCode::kDuplicateClientOrderId);
  ExpectReject(WithClientOrderId(D::Limit(kA, kSpot, Side::kSell, Cents(600), 3,
                                          TimeInForce::kIoc),
                                 7),
               RejectCode::kDuplicateClientOrderId);
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
}

TEST_F(EngineTest, DuplicateIsReportedBeforeStateAndRiskChecks) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  d_.Apply(D::SetState(kFut, InstrumentState::kHalted));
  // The resend learns that its original was accepted, not that the
  // instrument is halted or the price now outside the band.
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7),
      RejectCode::kDuplicateClientOrderId);
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(9'000), 1), 7),
      RejectCode::kDuplicateClientOrderId);
  // Unknown instrument and invalid fields still come first.
  ExpectReject(WithClientOrderId(
                   D::Limit(kA, InstrumentId{3}, Side::kBuy, Cents(570), 1), 7),
               RejectCode::kUnknownInstrument);
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kNone, Cents(570), 1), 7),
      RejectCode::kInvalidSide);
}

TEST_F(EngineTest, SameClientOrderIdOnAnotherAccountIsAccepted) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  auto ev = d_.Apply(
      WithClientOrderId(D::Limit(kB, kFut, Side::kBuy, Cents(570), 1), 7));
  ASSERT_EQ(ev[0].type, EventType::kOrderAccepted);
  EXPECT_EQ(ev[0].client_order_id, ClientOrderId{7});
}

TEST_F(EngineTest, ClientOrderIdOfARejectedOrderCanBeUsedAgain) {
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Price{57'001}, 1), 9),
      RejectCode::kPriceNotOnTick);
  auto ev = d_.Apply(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 9));
  EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
}

TEST_F(EngineTest, ClientOrderIdStaysUsedAfterItsOrderIsGone) {
  // Accepted and cancelled at once (an IOC into an empty book), or
  // cancelled by the user: the id stays used for the rest of the day.
  auto ioc = d_.Apply(WithClientOrderId(
      D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc), 11));
  ASSERT_EQ(ioc[0].type, EventType::kOrderAccepted);
  auto rest = d_.Apply(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(560), 1), 12));
  ASSERT_EQ(rest[0].type, EventType::kOrderAccepted);
  ASSERT_EQ(d_.Apply(D::Cancel(kA, rest[0].order_id))[0].type,
            EventType::kCancelAccepted);
  ASSERT_EQ(d_.engine().resting_orders(), 0u);
  for (uint64_t id : {11u, 12u}) {
    ExpectReject(
        WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), id),
        RejectCode::kDuplicateClientOrderId);
  }
}

TEST_F(EngineTest, ClientOrderIdZeroIsNeverChecked) {
  for (int i = 0; i < 3; ++i) {
    auto ev = d_.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1));
    EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
  }
}

TEST_F(EngineTest, ClientOrderIdIsReusableAfterEndOfSessionOfAllInstruments) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  d_.Apply(EndOfSession());
  auto ev = d_.Apply(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  EXPECT_EQ(ev[0].type, EventType::kOrderAccepted);
  // And it is remembered again for the new day.
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7),
      RejectCode::kDuplicateClientOrderId);
}

TEST_F(EngineTest, EndOfSessionOfOneInstrumentKeepsClientOrderIds) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  d_.Apply(EndOfSession(kFut));
  d_.Apply(EndOfSession(kSpot));
  ExpectReject(
      WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7),
      RejectCode::kDuplicateClientOrderId);
  // A rejected EndOfSession forgets nothing either.
  ExpectReject(EndOfSession(InstrumentId{3}), RejectCode::kUnknownInstrument);
}

TEST_F(EngineTest, StateHashCoversRememberedClientOrderIds) {
  // An IOC into an empty book leaves the book as it was, but its id is now
  // used: the state differs from a twin's that took the IOC without an id,
  // until the day ends.
  D twin(TestConfig());
  d_.Apply(WithClientOrderId(
      D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc), 5));
  twin.Apply(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc));
  EXPECT_NE(d_.engine().StateHash(), twin.engine().StateHash());
  d_.Apply(EndOfSession());
  twin.Apply(EndOfSession());
  EXPECT_EQ(d_.engine().StateHash(), twin.engine().StateHash());
}

TEST_F(EngineTest, SnapshotRoundTripKeepsClientOrderIds) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  d_.Apply(WithClientOrderId(
      D::Limit(kB, kFut, Side::kSell, Cents(600), 1, TimeInForce::kIoc), 8));
  d_.Apply(
      WithClientOrderId(D::Limit(kC, kSpot, Side::kSell, Cents(600), 2), 7));
  const std::string snap = d_.engine().SaveSnapshot();

  D restored(TestConfig());
  ASSERT_TRUE(restored.engine().LoadSnapshot(snap).ok());
  EXPECT_EQ(restored.engine().StateHash(), d_.engine().StateHash());
  EXPECT_EQ(restored.engine().SaveSnapshot(), snap);
  Command resend =
      WithClientOrderId(D::Limit(kB, kFut, Side::kSell, Cents(600), 1), 8);
  resend.seq = Seq{d_.engine().last_seq().value + 1};
  auto ev = restored.Apply(resend);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kDuplicateClientOrderId);
  // Ids remembered after the load still reach the snapshot.
  Command fresh =
      WithClientOrderId(D::Limit(kB, kFut, Side::kSell, Cents(600), 1), 9);
  fresh.seq = Seq{resend.seq.value + 1};
  ASSERT_EQ(restored.Apply(fresh)[0].type, EventType::kOrderAccepted);
  D again(TestConfig());
  ASSERT_TRUE(
      again.engine().LoadSnapshot(restored.engine().SaveSnapshot()).ok());
  EXPECT_EQ(again.engine().StateHash(), restored.engine().StateHash());
}

TEST_F(EngineTest, SnapshotWithBadClientOrderIdEntriesIsDataLoss) {
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 7));
  d_.Apply(WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(571), 1), 8));
  const std::string snap = d_.engine().SaveSnapshot();
  // The two entries (u32 account, u64 id each) are followed by the spot
  // trade count (u32, 0), the four accounts' collateral (u32 count, then
  // u32 account, i64 collateral, i64 settled date, u8 kill switch each) and
  // the empty reference-data registry.
  std::string registry;
  Registry(ReferenceConfig{}).Save(&registry);
  const std::size_t accounts = 4 + 4 * 21;
  const std::size_t second = snap.size() - 4 - accounts - registry.size() - 12;
  auto load = [](std::string bytes) {
    D fresh(TestConfig());
    return fresh.engine().LoadSnapshot(bytes);
  };
  std::string dup = snap;
  dup[second + 4] = 7;  // id 8 -> 7: the same pair twice
  EXPECT_EQ(load(dup).code(), StatusCode::kDataLoss);
  std::string zero = snap;
  zero[second + 4] = 0;  // id 0 is never remembered
  EXPECT_EQ(load(zero).code(), StatusCode::kDataLoss);
  std::string account = snap;
  account[second] = 6;  // not a configured account
  EXPECT_EQ(load(account).code(), StatusCode::kDataLoss);
  EXPECT_TRUE(load(snap).ok());
}

TEST(EngineClientOrderIds, FullTableRejectsWithClientOrderIdLimit) {
  EngineConfig config = TestConfig();
  config.limits.max_client_order_ids = 3;
  D d(config);
  ASSERT_TRUE(d.ok());
  for (uint64_t id = 1; id <= 3; ++id) {
    auto ev = d.Apply(
        WithClientOrderId(D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), id));
    ASSERT_EQ(ev[0].type, EventType::kOrderAccepted);
  }
  const uint64_t hash = d.engine().StateHash();
  auto full = d.Apply(
      WithClientOrderId(D::Limit(kB, kFut, Side::kBuy, Cents(570), 1), 4));
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(RejectCodeName(full[0].reject_code()), "CLIENT_ORDER_ID_LIMIT");
  EXPECT_EQ(d.engine().StateHash(), hash);
  // A duplicate is still named as such; an order without an id needs no
  // room; other checks still come first.
  EXPECT_EQ(d.Apply(WithClientOrderId(
                D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), 2))[0]
                .reject_code(),
            RejectCode::kDuplicateClientOrderId);
  EXPECT_EQ(d.Apply(D::Limit(kB, kFut, Side::kBuy, Cents(570), 1))[0].type,
            EventType::kOrderAccepted);
  EXPECT_EQ(d.Apply(WithClientOrderId(
                D::Limit(kB, kFut, Side::kBuy, Cents(9'000), 1), 4))[0]
                .reject_code(),
            RejectCode::kPriceOutsideBand);
  // The next trading day has room again.
  d.Apply(EndOfSession());
  EXPECT_EQ(d.Apply(WithClientOrderId(
                D::Limit(kB, kFut, Side::kBuy, Cents(570), 1), 4))[0]
                .type,
            EventType::kOrderAccepted);
}

TEST(EngineClientOrderIds, TableSizeMustBeInRange) {
  EngineConfig config = TestConfig();
  config.limits.max_client_order_ids = 0;
  auto r = Engine::Create(config);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.error().message().find("max_client_order_ids"),
            std::string::npos);
}

// The table's probing is bounded (ClientOrderIdSet::kMaxProbe): an id
// whose run of slots is full is refused like one for a full table, and
// changes nothing. Only a test that knows the key can find such ids.
TEST(EngineClientOrderIds, FullProbeRunRejectsWithClientOrderIdLimit) {
  EngineConfig config = TestConfig();
  config.limits.max_client_order_ids = 512;  // 1,024 slots
  D d(config);
  ASSERT_TRUE(d.ok());
  const SipKey key{0xC0FFEE, 0xF00D};
  ASSERT_TRUE(d.engine().SetTableKey(key).ok());
  EXPECT_EQ(d.engine().table_key(), key);
  constexpr uint32_t kRun = internal::ClientOrderIdSet::kMaxProbe;
  std::vector<uint64_t> ids;  // ids of kA whose home slot is 7
  for (uint64_t id = 1; ids.size() <= kRun; ++id) {
    if ((SipHash13(key, id, kA.value) & 1023) == 7) ids.push_back(id);
  }
  for (uint32_t k = 0; k < kRun; ++k) {
    const auto ev = d.Apply(WithClientOrderId(
        D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc),
        ids[k]));
    ASSERT_EQ(ev[0].type, EventType::kOrderAccepted) << k;
  }
  const uint64_t hash = d.engine().StateHash();
  const auto refused = d.Apply(WithClientOrderId(
      D::Limit(kA, kFut, Side::kBuy, Cents(570), 1, TimeInForce::kIoc),
      ids[kRun]));
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(RejectCodeName(refused[0].reject_code()), "CLIENT_ORDER_ID_LIMIT");
  EXPECT_EQ(d.engine().StateHash(), hash);
  // The run's ids are still remembered; another home slot has room.
  EXPECT_EQ(d.Apply(WithClientOrderId(
                D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), ids[0]))[0]
                .reject_code(),
            RejectCode::kDuplicateClientOrderId);
  uint64_t elsewhere = ids[kRun] + 1;
  while ((SipHash13(key, elsewhere, kA.value) & 1023) < 400) ++elsewhere;
  EXPECT_EQ(d.Apply(WithClientOrderId(
                D::Limit(kA, kFut, Side::kBuy, Cents(570), 1), elsewhere))[0]
                .type,
            EventType::kOrderAccepted);
}

// The table key is set once, on a fresh engine; it travels in the snapshot
// and counts in the state hash.
TEST(EngineClientOrderIds, TheTableKeyIsSetOnceAndTravelsInTheSnapshot) {
  D d(TestConfig());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.engine().SetTableKey(SipKey{}).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(d.engine().SetTableKey(SipKey{1, 2}).ok());
  EXPECT_TRUE(d.engine().SetTableKey(SipKey{1, 2}).ok());  // the same again
  EXPECT_EQ(d.engine().SetTableKey(SipKey{3, 4}).code(),
            StatusCode::kFailedPrecondition);
  D unseeded(TestConfig());
  for (uint64_t id = 1; id <= 20; ++id) {
    const Command c = WithClientOrderId(
        D::Limit(kA, kFut, Side::kBuy, Cents(560), 1), id * 7919);
    ASSERT_EQ(d.Apply(c)[0].type, EventType::kOrderAccepted);
    ASSERT_EQ(unseeded.Apply(c)[0].type, EventType::kOrderAccepted);
  }
  EXPECT_EQ(d.engine().SetTableKey(SipKey{5, 6}).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_NE(d.engine().StateHash(), unseeded.engine().StateHash());
  const std::string snap = d.engine().SaveSnapshot();
  D loaded(TestConfig());
  ASSERT_TRUE(loaded.engine().LoadSnapshot(snap).ok());
  EXPECT_EQ(loaded.engine().table_key(), (SipKey{1, 2}));
  EXPECT_EQ(loaded.engine().StateHash(), d.engine().StateHash());
  D other(TestConfig());
  ASSERT_TRUE(other.engine().SetTableKey(SipKey{3, 4}).ok());
  EXPECT_EQ(other.engine().LoadSnapshot(snap).code(), StatusCode::kDataLoss);
}

TEST(EngineClientOrderIds, RejectCodesKeepTheirWireNumbers) {
  EXPECT_EQ(static_cast<uint16_t>(RejectCode::kDuplicateClientOrderId), 1020);
  EXPECT_EQ(static_cast<uint16_t>(RejectCode::kClientOrderIdLimit), 9003);
  EXPECT_EQ(RejectCodeName(RejectCode::kDuplicateClientOrderId),
            "DUPLICATE_CLIENT_ORDER_ID");
  EXPECT_EQ(RejectCodeName(RejectCode::kClientOrderIdLimit),
            "CLIENT_ORDER_ID_LIMIT");
}

}  // namespace
}  // namespace cfx::exchange
