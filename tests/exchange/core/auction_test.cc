// Pre-open and the opening auction (docs/matching.md, "Pre-open and the
// opening auction"): golden cases of the opening price's rules and ties,
// the call period, scheduled opens, and snapshots of a pre-open.

#include <gtest/gtest.h>

#include <vector>

#include "exchange/core/engine.h"
#include "tests/support/engine_fixture.h"

namespace cfx::exchange {
namespace {

using testing::Cents;
using testing::EngineDriver;
using testing::OfType;
using D = EngineDriver;

constexpr InstrumentId kFut{1};
constexpr AccountId kA{1};
constexpr AccountId kB{2};
constexpr AccountId kC{3};

EngineConfig TestConfig() {
  EngineConfig c;
  c.limits.max_orders = 64;
  c.limits.max_accounts = 8;
  c.limits.max_instruments = 4;
  InstrumentConfig fut;
  fut.id = kFut;
  fut.kind = InstrumentKind::kFuture;
  fut.reference_price = Cents(580);  // band +-58c
  fut.max_quantity = Quantity{100};
  c.instruments = {fut};
  c.accounts = {{kA, StpMode::kCancelNewest},
                {kB, StpMode::kCancelNewest},
                {kC, StpMode::kCancelNewest}};
  return c;
}

class AuctionTest : public ::testing::Test {
 protected:
  AuctionTest() : d_(TestConfig()) {}

  void PreOpen(uint64_t length_ns = 0) {
    Command c = D::SetState(kFut, InstrumentState::kPreOpen);
    c.set_pre_open_nanos(length_ns);
    auto ev = d_.Apply(c);
    ASSERT_FALSE(ev.empty());
    ASSERT_EQ(ev[0].type, EventType::kInstrumentStateChanged) << ev[0];
  }
  // Rests a GTC limit order; the book must not trade.
  OrderId Order(AccountId a, Side side, Price p, int64_t lots) {
    auto ev = d_.Apply(D::Limit(a, kFut, side, p, lots));
    auto acc = OfType(ev, EventType::kOrderAccepted);
    EXPECT_EQ(acc.size(), 1u);
    EXPECT_TRUE(OfType(ev, EventType::kTrade).empty());
    last_ = ev;
    return acc.empty() ? OrderId{} : acc[0].order_id;
  }
  std::vector<Event> Open() {
    return d_.Apply(D::SetState(kFut, InstrumentState::kOpen));
  }
  static Event Opened(const std::vector<Event>& ev) {
    auto o = OfType(ev, EventType::kInstrumentOpened);
    EXPECT_EQ(o.size(), 1u);
    return o.empty() ? Event{} : o[0];
  }

  D d_;
  std::vector<Event> last_;
};

TEST_F(AuctionTest, PreOpenRestsCrossingOrdersAndPublishesTheIndicative) {
  PreOpen();
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kB, Side::kSell, Cents(570), 4);
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kBuy), Cents(590));
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kSell), Cents(570));
  auto ind = OfType(last_, EventType::kIndicativeOpen);
  ASSERT_EQ(ind.size(), 1u);
  // 4 lots trade anywhere in [5.70, 5.90]; nearest the reference 5.80.
  EXPECT_EQ(ind[0].price, Cents(580));
  EXPECT_EQ(ind[0].quantity.lots, 4);
  EXPECT_EQ(ind[0].side, Side::kBuy);
  EXPECT_EQ(ind[0].leaves.lots, 6);
  // The indicative comes after the level changes.
  EXPECT_EQ(last_.back().type, EventType::kIndicativeOpen);
}

TEST_F(AuctionTest, AnUncrossedPreOpenBookPublishesNoPrice) {
  PreOpen();
  Order(kA, Side::kBuy, Cents(570), 10);
  auto ind = OfType(last_, EventType::kIndicativeOpen);
  ASSERT_EQ(ind.size(), 1u);
  EXPECT_EQ(ind[0].price.units, 0);
  EXPECT_EQ(ind[0].quantity.lots, 0);
  EXPECT_EQ(ind[0].side, Side::kNone);
}

TEST_F(AuctionTest, PreOpenRefusesOrdersThatCannotWaitForTheAuction) {
  PreOpen();
  Order(kA, Side::kBuy, Cents(590), 10);
  Command post_only = D::Limit(kB, kFut, Side::kSell, Cents(600), 1);
  post_only.flags = kFlagPostOnly;
  for (const Command& c :
       {D::Market(kB, kFut, Side::kSell, 1),
        D::Limit(kB, kFut, Side::kSell, Cents(570), 1, TimeInForce::kIoc),
        D::Limit(kB, kFut, Side::kSell, Cents(570), 1, TimeInForce::kFok),
        post_only}) {
    const uint64_t before = d_.engine().StateHash();
    auto ev = d_.Apply(c);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(RejectCodeName(ev[0].reject_code()), "NOT_ALLOWED_IN_PRE_OPEN");
    EXPECT_EQ(d_.engine().StateHash(), before);
  }
}

TEST_F(AuctionTest, OpensAtTheMostExecutableQuantity) {
  PreOpen();
  const OrderId b1 = Order(kA, Side::kBuy, Cents(590), 10);
  Order(kA, Side::kBuy, Cents(580), 5);
  const OrderId s1 = Order(kB, Side::kSell, Cents(570), 8);
  const OrderId s2 = Order(kC, Side::kSell, Cents(585), 6);
  // Executable: 8 lots in [5.70, 5.84], 10 in [5.85, 5.90].
  auto ev = Open();
  ASSERT_EQ(ev[0].type, EventType::kInstrumentStateChanged);
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 2u);
  EXPECT_EQ(trades[0].price, Cents(585));
  EXPECT_EQ(trades[0].quantity.lots, 8);
  // The newer order of the pair is the aggressor.
  EXPECT_EQ(trades[0].order_id, s1);
  EXPECT_EQ(trades[0].counter_order_id, b1);
  EXPECT_EQ(trades[0].side, Side::kSell);
  EXPECT_EQ(trades[1].price, Cents(585));
  EXPECT_EQ(trades[1].quantity.lots, 2);
  EXPECT_EQ(trades[1].order_id, s2);
  const Event opened = Opened(ev);
  EXPECT_EQ(opened.price, Cents(585));
  EXPECT_EQ(opened.quantity.lots, 10);
  EXPECT_EQ(d_.engine().state(kFut), InstrumentState::kOpen);
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kBuy), Cents(580));
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kSell), Cents(585));
  EXPECT_EQ(d_.engine().position(kA, kFut), 10);
  // Continuous trading again: an order that crosses now matches.
  auto next = d_.Apply(D::Limit(kB, kFut, Side::kSell, Cents(580), 5));
  EXPECT_EQ(OfType(next, EventType::kTrade).size(), 1u);
}

TEST_F(AuctionTest, LeastImbalanceBeatsNearnessToTheReference) {
  d_.Apply(D::SetReference(kFut, Cents(572)));
  PreOpen();
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kA, Side::kBuy, Cents(575), 4);
  Order(kB, Side::kSell, Cents(570), 10);
  // 10 lots everywhere in [5.70, 5.90]; imbalance 4 up to 5.75, 0 above.
  const Event opened = Opened(Open());
  EXPECT_EQ(opened.price, Cents(576));
  EXPECT_EQ(opened.quantity.lots, 10);
}

TEST_F(AuctionTest, TheReferencePriceItselfWhenItIsInTheBestRange) {
  PreOpen();
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kB, Side::kSell, Cents(570), 10);
  EXPECT_EQ(Opened(Open()).price, Cents(580));
}

TEST_F(AuctionTest, TheBoundNearestTheReferenceWhenItIsOutside) {
  PreOpen();
  Order(kA, Side::kBuy, Cents(630), 10);
  Order(kB, Side::kSell, Cents(600), 10);
  EXPECT_EQ(Opened(Open()).price, Cents(600));
}

TEST_F(AuctionTest, EquallyNearTwoTicksTakesTheLower) {
  d_.Apply(D::SetReference(kFut, Price{58'050}));  // $5.805
  PreOpen();
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kB, Side::kSell, Cents(570), 10);
  EXPECT_EQ(Opened(Open()).price, Cents(580));
}

TEST_F(AuctionTest, OrdersOfOneAccountDoNotTradeTheNewerIsCancelled) {
  PreOpen();
  const OrderId bid = Order(kA, Side::kBuy, Cents(590), 10);
  const OrderId ask = Order(kA, Side::kSell, Cents(570), 4);
  Order(kB, Side::kSell, Cents(575), 3);
  auto ev = Open();
  auto cancels = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancels.size(), 1u);
  EXPECT_EQ(cancels[0].order_id, ask);
  EXPECT_EQ(cancels[0].cancel_reason(), CancelReason::kSelfTradePrevention);
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  EXPECT_EQ(trades[0].counter_order_id, bid);
  EXPECT_EQ(trades[0].quantity.lots, 3);
  EXPECT_EQ(Opened(ev).quantity.lots, 3);
}

TEST_F(AuctionTest, AScheduledOpenRunsBeforeTheFirstCommandAtItsTime) {
  PreOpen(/*length_ns=*/1'000'000);
  EXPECT_EQ(d_.engine().next_expiry().nanos, d_.time().nanos + 1'000'000);
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kB, Side::kSell, Cents(570), 10);
  d_.set_time(Timestamp{d_.engine().next_expiry().nanos - 1'000});
  auto ev = d_.Apply(D::Timer());  // lands on the open time
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev[0].type, EventType::kTrade);
  EXPECT_EQ(Opened(ev).price, Cents(580));
  EXPECT_EQ(OfType(ev, EventType::kTimerDone).size(), 1u);
  EXPECT_EQ(d_.engine().state(kFut), InstrumentState::kOpen);
  EXPECT_EQ(d_.engine().next_expiry().nanos, 0);
}

TEST_F(AuctionTest, APreOpenLengthIsForPreOpenOnlyAndAtMostADay) {
  Command halt = D::SetState(kFut, InstrumentState::kHalted);
  halt.set_pre_open_nanos(1'000);
  Command too_long = D::SetState(kFut, InstrumentState::kPreOpen);
  too_long.set_pre_open_nanos(kMaxPreOpenNanos + 1);
  for (const Command& c : {halt, too_long}) {
    const uint64_t before = d_.engine().StateHash();
    auto ev = d_.Apply(c);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(RejectCodeName(ev[0].reject_code()), "INVALID_PRE_OPEN_LENGTH");
    EXPECT_EQ(d_.engine().StateHash(), before);
  }
}

TEST_F(AuctionTest, HaltedTakesCancelsButNoOrders) {
  const OrderId id = Order(kA, Side::kBuy, Cents(570), 10);
  d_.Apply(D::SetState(kFut, InstrumentState::kHalted));
  auto ev = d_.Apply(D::Limit(kB, kFut, Side::kSell, Cents(590), 1));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(RejectCodeName(ev[0].reject_code()), "INSTRUMENT_NOT_OPEN");
  ev = d_.Apply(D::Replace(kA, id, Cents(571), 10));
  EXPECT_EQ(RejectCodeName(ev[0].reject_code()), "INSTRUMENT_NOT_OPEN");
  ev = d_.Apply(D::Cancel(kA, id));
  EXPECT_EQ(ev[0].type, EventType::kCancelAccepted);
}

TEST_F(AuctionTest, ASnapshotKeepsTheCrossedBookAndTheScheduledOpen) {
  PreOpen(/*length_ns=*/1'000'000);
  Order(kA, Side::kBuy, Cents(590), 10);
  Order(kB, Side::kSell, Cents(570), 10);
  D copy(TestConfig());
  ASSERT_TRUE(copy.engine().LoadSnapshot(d_.engine().SaveSnapshot()).ok());
  EXPECT_EQ(copy.engine().StateHash(), d_.engine().StateHash());
  EXPECT_EQ(copy.engine().next_expiry(), d_.engine().next_expiry());
  Command timer = D::Timer();
  timer.seq = Seq{d_.next_seq()};
  timer.ts = d_.engine().next_expiry();
  auto a = d_.Apply(timer);
  auto b = copy.Apply(timer);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(Opened(b).price, Cents(580));
  EXPECT_EQ(copy.engine().StateHash(), d_.engine().StateHash());
}

}  // namespace
}  // namespace cfx::exchange
