// Hand-written scenarios of docs/matching.md, checked on the reference book
// with exact event lists. Every command also goes to the real Engine, which
// must emit the same events, so these double as engine unit tests.

#include "tests/support/reference_book.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "tests/support/engine_fixture.h"

namespace cfx::exchange::testing {
namespace {

using Texts = std::vector<std::string>;

constexpr InstrumentId kInst{1};
constexpr InstrumentId kInst2{2};  // tick $0.05, odd bands, position limit
constexpr AccountId kNewest{1};    // account default: cancel-newest
constexpr AccountId kOldest{2};    // cancel-oldest
constexpr AccountId kBoth{3};      // cancel-both
constexpr AccountId kDecrement{4};
constexpr AccountId kOther{5};  // cancel-newest
constexpr int64_t kT0 = 1'800'000'000'000'000'000;

EngineConfig ScenarioConfig() {
  EngineConfig c;
  c.limits.max_orders = 10;
  c.limits.max_accounts = 8;
  c.limits.max_instruments = 4;
  InstrumentConfig i1;
  i1.id = kInst;
  i1.tick = Price{100};
  i1.max_price = Price{200'000};
  i1.reference_price = Price{100'000};  // $10.00: band $1.00, protection $0.50
  i1.min_quantity = Quantity{1};
  i1.max_quantity = Quantity{100};
  i1.band_bps = 1'000;
  i1.market_band_bps = 500;
  InstrumentConfig i2 = i1;
  i2.id = kInst2;
  i2.kind = InstrumentKind::kSpot;
  i2.tick = Price{500};
  i2.band_bps = 777;  // 7,770 units, rounded down to 7,500
  i2.market_band_bps = 333;
  i2.position_limit = Quantity{10};
  i2.gpu_hours_per_lot = 192;
  c.instruments = {i1, i2};
  c.accounts = {{kNewest, StpMode::kCancelNewest},
                {kOldest, StpMode::kCancelOldest},
                {kBoth, StpMode::kCancelBoth},
                {kDecrement, StpMode::kDecrement},
                {kOther, StpMode::kCancelNewest}};
  return c;
}

// Event text without seq and ts, for readable expectations.
std::string Text(Event e) {
  e.seq = Seq{0};
  e.ts = Timestamp{0};
  return DescribeEvent(e);
}

// The reject or cancel reason name of the first event, e.g. "INVALID_SIDE".
std::string FirstReason(const Texts& texts) {
  if (texts.empty()) return "(no events)";
  const std::string& t = texts[0];
  const std::size_t from = t.find("reason=");
  if (from == std::string::npos) return "(no reason)";
  return t.substr(from + 7, t.find('(', from) - from - 7);
}

class ReferenceBookTest : public ::testing::Test {
 protected:
  ReferenceBookTest() : config_(ScenarioConfig()), ref_(config_) {
    auto r = Engine::Create(config_);
    if (r.has_value()) engine_ = std::move(r).value();
  }

  // Applies `c` at the next seq and 1 µs later (unless `c.ts` is set) to
  // both the reference and the engine; returns the reference's events.
  Texts Apply(Command c) {
    if (c.seq.value == 0) c.seq = Seq{++seq_};
    if (c.ts.nanos == 0) {
      ts_ += 1'000;
      c.ts = Timestamp{ts_};
    }
    std::vector<Event> want;
    ref_.Apply(c, want);
    if (engine_ != nullptr) {
      engine_->Apply(c, collector_.sink());
      const std::vector<Event> got = collector_.Take();
      bool same = got.size() == want.size();
      for (std::size_t i = 0; same && i < got.size(); ++i) {
        same = DiffEvents(got[i], want[i]).empty();
      }
      if (!same) {
        std::string msg = "engine and reference differ on " +
                          DescribeCommand(c) + "\n  engine:\n";
        for (const Event& e : got) msg += "    " + Text(e) + "\n";
        msg += "  reference:\n";
        for (const Event& e : want) msg += "    " + Text(e) + "\n";
        ADD_FAILURE() << msg;
      } else if (engine_->StateHash() != ref_.StateHash()) {
        ADD_FAILURE() << "state hashes differ after " << DescribeCommand(c);
      }
    } else {
      ADD_FAILURE() << "Engine::Create failed";
    }
    Texts out;
    for (const Event& e : want) out.push_back(Text(e));
    return out;
  }

  static Command Limit(AccountId a, Side side, int64_t cents, int64_t lots,
                       TimeInForce tif = TimeInForce::kGtc,
                       InstrumentId inst = kInst) {
    return EngineDriver::Limit(a, inst, side, Cents(cents), lots, tif);
  }
  static Command Gtd(AccountId a, Side side, int64_t cents, int64_t lots,
                     int64_t expire) {
    Command c = Limit(a, side, cents, lots, TimeInForce::kGtd);
    c.set_expire_time(Timestamp{expire});
    return c;
  }

  EngineConfig config_;
  ReferenceEngine ref_;
  std::unique_ptr<Engine> engine_;
  EventCollector collector_;
  uint64_t seq_ = 0;
  int64_t ts_ = kT0;
};

TEST_F(ReferenceBookTest, CrossTradesAtRestingPriceAndFullFillNeverShows) {
  EXPECT_EQ(Apply(Limit(kNewest, Side::kSell, 1000, 10)),
            (Texts{"OrderAccepted{side=Sell order_type=Limit tif=Gtc "
                   "instrument=1 account=1 order_id=1 "
                   "price=100000 quantity=10 leaves=10}",
                   "BookLevel{side=Sell instrument=1 count=1 price=100000 "
                   "quantity=10}"}));
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 1001, 4)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=5 order_id=2 "
                   "price=100100 quantity=4 leaves=4}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=5 "
                   "order_id=2 price=100000 quantity=4 filled=4 "
                   "counter_account=1 counter_order_id=1 counter_leaves=6 "
                   "counter_filled=4}",
                   "BookLevel{side=Sell instrument=1 count=1 price=100000 "
                   "quantity=6}"}));
  EXPECT_EQ(ref_.position(kOther, kInst), 4);
  EXPECT_EQ(ref_.position(kNewest, kInst), -4);
}

TEST_F(ReferenceBookTest, RemainderRestsAndDepthFollowsTouchOrder) {
  Apply(Limit(kNewest, Side::kSell, 1000, 10));
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 1000, 15)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=5 order_id=2 "
                   "price=100000 quantity=15 leaves=15}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=5 "
                   "order_id=2 price=100000 quantity=10 leaves=5 filled=10 "
                   "counter_account=1 counter_order_id=1 counter_filled=10}",
                   "BookLevel{side=Sell instrument=1 price=100000}",
                   "BookLevel{side=Buy instrument=1 count=1 price=100000 "
                   "quantity=5}"}));
}

TEST_F(ReferenceBookTest, BestPriceFirstThenFifo) {
  Apply(Limit(kNewest, Side::kSell, 1001, 3));  // 1
  Apply(Limit(kOldest, Side::kSell, 1000, 4));  // 2
  Apply(Limit(kBoth, Side::kSell, 1000, 5));    // 3
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 1001, 10)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=5 order_id=4 "
                   "price=100100 quantity=10 leaves=10}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=5 "
                   "order_id=4 price=100000 quantity=4 leaves=6 filled=4 "
                   "counter_account=2 counter_order_id=2 counter_filled=4}",
                   "Trade{side=Buy instrument=1 trade_id=2 account=5 "
                   "order_id=4 price=100000 quantity=5 leaves=1 filled=9 "
                   "counter_account=3 counter_order_id=3 counter_filled=5}",
                   "Trade{side=Buy instrument=1 trade_id=3 account=5 "
                   "order_id=4 price=100100 quantity=1 filled=10 "
                   "counter_account=1 counter_order_id=1 counter_leaves=2 "
                   "counter_filled=1}",
                   "BookLevel{side=Sell instrument=1 price=100000}",
                   "BookLevel{side=Sell instrument=1 count=1 price=100100 "
                   "quantity=2}"}));
}

TEST_F(ReferenceBookTest, StpCancelNewestCancelsIncomingRemainder) {
  Apply(Limit(kNewest, Side::kSell, 1000, 5));
  Apply(Limit(kOther, Side::kSell, 1000, 5));
  EXPECT_EQ(Apply(Limit(kNewest, Side::kBuy, 1000, 8)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=1 order_id=3 "
                   "price=100000 quantity=8 leaves=8}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Buy "
                   "instrument=1 account=1 order_id=3 price=100000 "
                   "quantity=8}"}));
}

TEST_F(ReferenceBookTest, StpCancelOldestCancelsRestingAndGoesOn) {
  Apply(Limit(kOldest, Side::kSell, 1000, 5));  // 1
  Apply(Limit(kNewest, Side::kSell, 1000, 4));  // 2
  EXPECT_EQ(Apply(Limit(kOldest, Side::kBuy, 1000, 6)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=2 order_id=3 "
                   "price=100000 quantity=6 leaves=6}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Sell "
                   "instrument=1 account=2 order_id=1 price=100000 "
                   "quantity=5}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=2 "
                   "order_id=3 price=100000 quantity=4 leaves=2 filled=4 "
                   "counter_account=1 counter_order_id=2 counter_filled=4}",
                   "BookLevel{side=Sell instrument=1 price=100000}",
                   "BookLevel{side=Buy instrument=1 count=1 price=100000 "
                   "quantity=2}"}));
}

TEST_F(ReferenceBookTest, StpCancelBothCancelsRestingThenIncoming) {
  Apply(Limit(kNewest, Side::kSell, 999, 2));  // 1
  Apply(Limit(kBoth, Side::kSell, 1000, 5));   // 2
  EXPECT_EQ(Apply(Limit(kBoth, Side::kBuy, 1000, 6)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=3 order_id=3 "
                   "price=100000 quantity=6 leaves=6}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=3 "
                   "order_id=3 price=99900 quantity=2 leaves=4 filled=2 "
                   "counter_account=1 counter_order_id=1 counter_filled=2}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Sell "
                   "instrument=1 account=3 order_id=2 price=100000 "
                   "quantity=5}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Buy "
                   "instrument=1 account=3 order_id=3 price=100000 "
                   "quantity=4 filled=2}",
                   "BookLevel{side=Sell instrument=1 price=99900}",
                   "BookLevel{side=Sell instrument=1 price=100000}"}));
}

TEST_F(ReferenceBookTest, StpDecrementReducesBothRestingFirst) {
  Apply(Limit(kDecrement, Side::kSell, 1000, 3));   // 1
  Apply(Limit(kDecrement, Side::kSell, 1000, 10));  // 2
  Apply(Limit(kNewest, Side::kSell, 1000, 2));      // 3
  EXPECT_EQ(Apply(Limit(kDecrement, Side::kBuy, 1000, 7)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=4 order_id=4 "
                   "price=100000 quantity=7 leaves=7}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Sell "
                   "instrument=1 account=4 order_id=1 price=100000 "
                   "quantity=3}",
                   "OrderRestated{reason=SELF_TRADE_PREVENTION(5) side=Buy "
                   "instrument=1 account=4 order_id=4 price=100000 "
                   "quantity=3 leaves=4}",
                   "OrderRestated{reason=SELF_TRADE_PREVENTION(5) side=Sell "
                   "instrument=1 account=4 order_id=2 price=100000 "
                   "quantity=4 leaves=6}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Buy "
                   "instrument=1 account=4 order_id=4 price=100000 "
                   "quantity=4}",
                   "BookLevel{side=Sell instrument=1 count=2 price=100000 "
                   "quantity=8}"}));
  // Decrement takes leaves only: the order quantity stays as entered.
  const RefOrder* o = ref_.FindOrder(OrderId{2});
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->quantity.lots, 10);
  EXPECT_EQ(o->leaves.lots, 6);
}

TEST_F(ReferenceBookTest, FokThatCannotFillIsCancelledAndChangesNothing) {
  Apply(Limit(kNewest, Side::kSell, 1000, 5));
  const uint64_t before = ref_.StateHash();
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 1000, 6, TimeInForce::kFok)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Fok "
                   "instrument=1 account=5 order_id=2 "
                   "price=100000 quantity=6 leaves=6}",
                   "OrderCancelled{reason=FOK_NOT_FILLED(4) side=Buy "
                   "instrument=1 account=5 order_id=2 price=100000 "
                   "quantity=6}"}));
  // Only the order id counter moved.
  EXPECT_NE(ref_.StateHash(), before);
  EXPECT_EQ(ref_.level_quantity(kInst, Side::kSell, Cents(1000)).lots, 5);
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 1000, 5, TimeInForce::kFok)).size(),
            3u);  // accepted, trade, level gone
}

TEST_F(ReferenceBookTest, FokWalkEndsAtOwnOrderUnlessCancelOldest) {
  Apply(Limit(kNewest, Side::kSell, 1000, 2));  // 1: own, first in line
  Apply(Limit(kOther, Side::kSell, 1000, 10));  // 2
  EXPECT_EQ(Apply(Limit(kNewest, Side::kBuy, 1000, 5, TimeInForce::kFok)),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Fok "
                   "instrument=1 account=1 order_id=3 "
                   "price=100000 quantity=5 leaves=5}",
                   "OrderCancelled{reason=FOK_NOT_FILLED(4) side=Buy "
                   "instrument=1 account=1 order_id=3 price=100000 "
                   "quantity=5}"}));
  Command oldest = Limit(kNewest, Side::kBuy, 1000, 5, TimeInForce::kFok);
  oldest.stp = StpMode::kCancelOldest;
  EXPECT_EQ(Apply(oldest),
            (Texts{"OrderAccepted{side=Buy order_type=Limit tif=Fok "
                   "instrument=1 account=1 order_id=4 "
                   "price=100000 quantity=5 leaves=5}",
                   "OrderCancelled{reason=SELF_TRADE_PREVENTION(5) side=Sell "
                   "instrument=1 account=1 order_id=1 price=100000 "
                   "quantity=2}",
                   "Trade{side=Buy instrument=1 trade_id=1 account=1 "
                   "order_id=4 price=100000 quantity=5 filled=5 "
                   "counter_account=5 counter_order_id=2 counter_leaves=5 "
                   "counter_filled=5}",
                   "BookLevel{side=Sell instrument=1 count=1 price=100000 "
                   "quantity=5}"}));
}

TEST_F(ReferenceBookTest, ReplaceDownKeepsPriorityReplaceUpLosesIt) {
  Apply(Limit(kNewest, Side::kSell, 1000, 5));  // 1
  Apply(Limit(kOldest, Side::kSell, 1000, 5));  // 2
  Apply(Limit(kBoth, Side::kSell, 1000, 5));    // 3
  EXPECT_EQ(Apply(EngineDriver::Replace(kNewest, OrderId{1}, Cents(1000), 4)),
            (Texts{"OrderReplaced{side=Sell instrument=1 account=1 order_id=1 "
                   "price=100000 quantity=4 leaves=4}",
                   "BookLevel{side=Sell instrument=1 count=3 price=100000 "
                   "quantity=14}"}));
  Apply(EngineDriver::Replace(kOldest, OrderId{2}, Cents(1000), 6));
  const std::vector<RefOrder> asks = ref_.RestingOrders(kInst, Side::kSell);
  ASSERT_EQ(asks.size(), 3u);
  EXPECT_EQ(asks[0].id.value, 1u);
  EXPECT_EQ(asks[1].id.value, 3u);
  EXPECT_EQ(asks[2].id.value, 2u);
}

TEST_F(ReferenceBookTest, ReplaceQuantityIsNewTotalIncludingFilled) {
  Apply(Limit(kNewest, Side::kSell, 1000, 10));
  Apply(Limit(kOther, Side::kBuy, 1000, 4));
  EXPECT_EQ(Apply(EngineDriver::Replace(kNewest, OrderId{1}, Cents(1000), 8)),
            (Texts{"OrderReplaced{side=Sell instrument=1 account=1 order_id=1 "
                   "price=100000 quantity=8 leaves=4 filled=4}",
                   "BookLevel{side=Sell instrument=1 count=1 price=100000 "
                   "quantity=4}"}));
  EXPECT_EQ(Apply(EngineDriver::Replace(kNewest, OrderId{1}, Cents(1000), 4)),
            (Texts{"Rejected{command=Replace "
                   "reason=REPLACE_QUANTITY_NOT_ABOVE_FILLED(3003) account=1 "
                   "order_id=1 price=100000 quantity=4}"}));
  EXPECT_EQ(Apply(EngineDriver::Replace(kNewest, OrderId{1}, Cents(1000), 8)),
            (Texts{"Rejected{command=Replace reason=REPLACE_NO_CHANGE(3004) "
                   "account=1 order_id=1 price=100000 quantity=8}"}));
  // Another account's order is indistinguishable from a missing one.
  EXPECT_EQ(Apply(EngineDriver::Replace(kOther, OrderId{1}, Cents(1000), 9)),
            (Texts{"Rejected{command=Replace reason=UNKNOWN_ORDER(3002) "
                   "account=5 order_id=1 price=100000 quantity=9}"}));
}

TEST_F(ReferenceBookTest, CrossingReplaceReportsReplacedBeforeTrades) {
  Apply(Limit(kNewest, Side::kSell, 1001, 5));  // 1
  Apply(Limit(kOther, Side::kBuy, 1000, 5));    // 2
  EXPECT_EQ(
      Apply(EngineDriver::Replace(kOther, OrderId{2}, Cents(1001), 5)),
      (Texts{"OrderReplaced{side=Buy instrument=1 account=5 order_id=2 "
             "price=100100 quantity=5 leaves=5}",
             "Trade{side=Buy instrument=1 trade_id=1 account=5 order_id=2 "
             "price=100100 quantity=5 filled=5 counter_account=1 "
             "counter_order_id=1 counter_filled=5}",
             "BookLevel{side=Buy instrument=1 price=100000}",
             "BookLevel{side=Sell instrument=1 price=100100}"}));
}

TEST_F(ReferenceBookTest, MarketOrderStopsAtProtectionPrice) {
  Apply(Limit(kNewest, Side::kSell, 1020, 2));  // 1: within $10.50
  Apply(Limit(kNewest, Side::kSell, 1060, 3));  // 2: beyond it
  EXPECT_EQ(
      Apply(EngineDriver::Market(kOther, kInst, Side::kBuy, 5)),
      (Texts{"OrderAccepted{side=Buy order_type=Market tif=Ioc instrument=1 "
             "account=5 order_id=3 "
             "quantity=5 leaves=5}",
             "Trade{side=Buy instrument=1 trade_id=1 account=5 order_id=3 "
             "price=102000 quantity=2 leaves=3 filled=2 counter_account=1 "
             "counter_order_id=1 counter_filled=2}",
             "OrderCancelled{reason=MARKET_PROTECTION(6) side=Buy "
             "instrument=1 account=5 order_id=3 quantity=3 filled=2}",
             "BookLevel{side=Sell instrument=1 price=102000}"}));
  // Nothing on the other side at all: a plain IOC remainder.
  EXPECT_EQ(
      Apply(EngineDriver::Market(kOther, kInst, Side::kSell, 4)),
      (Texts{"OrderAccepted{side=Sell order_type=Market tif=Ioc instrument=1 "
             "account=5 order_id=4 "
             "quantity=4 leaves=4}",
             "OrderCancelled{reason=IOC_REMAINDER(3) side=Sell instrument=1 "
             "account=5 order_id=4 quantity=4}"}));
}

TEST_F(ReferenceBookTest, GtdExpiresFirstByExpireTimeThenIdEvenOnReject) {
  Apply(Gtd(kNewest, Side::kSell, 1010, 1, kT0 + 50'000));  // 1
  Apply(Gtd(kOldest, Side::kSell, 1011, 1, kT0 + 30'000));  // 2
  Apply(Gtd(kBoth, Side::kSell, 1012, 1, kT0 + 50'000));    // 3
  Command cancel = EngineDriver::Cancel(kOther, OrderId{99});
  cancel.ts = Timestamp{kT0 + 50'000};
  EXPECT_EQ(Apply(cancel),
            (Texts{"OrderCancelled{reason=EXPIRED(9) side=Sell instrument=1 "
                   "account=2 order_id=2 price=101100 quantity=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Sell instrument=1 "
                   "account=1 order_id=1 price=101000 quantity=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Sell instrument=1 "
                   "account=3 order_id=3 price=101200 quantity=1}",
                   "Rejected{command=Cancel reason=UNKNOWN_ORDER(3002) "
                   "account=5 order_id=99}",
                   "BookLevel{side=Sell instrument=1 price=101100}",
                   "BookLevel{side=Sell instrument=1 price=101000}",
                   "BookLevel{side=Sell instrument=1 price=101200}"}));
}

TEST_F(ReferenceBookTest, TimerReportsHowManyExpired) {
  ts_ = kT0 + 100'000;
  Apply(Gtd(kNewest, Side::kBuy, 990, 2, kT0 + 102'500));
  EXPECT_EQ(Apply(EngineDriver::Timer()), (Texts{"TimerDone{}"}));
  EXPECT_EQ(Apply(EngineDriver::Timer()),
            (Texts{"OrderCancelled{reason=EXPIRED(9) side=Buy instrument=1 "
                   "account=1 order_id=1 price=99000 quantity=2}",
                   "TimerDone{count=1}",
                   "BookLevel{side=Buy instrument=1 price=99000}"}));
}

TEST_F(ReferenceBookTest, LevelThatEndsWhereItStartedEmitsNoDepth) {
  Apply(Gtd(kNewest, Side::kBuy, 999, 5, kT0 + 2'000));  // ts kT0 + 1,000
  EXPECT_EQ(Apply(Limit(kOther, Side::kBuy, 999, 5)),    // ts kT0 + 2,000
            (Texts{"OrderCancelled{reason=EXPIRED(9) side=Buy instrument=1 "
                   "account=1 order_id=1 price=99900 quantity=5}",
                   "OrderAccepted{side=Buy order_type=Limit tif=Gtc "
                   "instrument=1 account=5 order_id=2 "
                   "price=99900 quantity=5 leaves=5}"}));
}

TEST_F(ReferenceBookTest, CloseExpiresDayOrdersBidsDownThenAsksUp) {
  Apply(Limit(kNewest, Side::kBuy, 999, 1, TimeInForce::kDay));    // 1
  Apply(Limit(kNewest, Side::kBuy, 999, 1, TimeInForce::kGtc));    // 2
  Apply(Limit(kOldest, Side::kBuy, 1000, 1, TimeInForce::kDay));   // 3
  Apply(Limit(kOldest, Side::kSell, 1002, 1, TimeInForce::kDay));  // 4
  Apply(Limit(kBoth, Side::kSell, 1001, 1, TimeInForce::kDay));    // 5
  EXPECT_EQ(Apply(EngineDriver::SetState(kInst, InstrumentState::kClosed)),
            (Texts{"InstrumentStateChanged{state=Closed instrument=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Buy instrument=1 "
                   "account=2 order_id=3 price=100000 quantity=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Buy instrument=1 "
                   "account=1 order_id=1 price=99900 quantity=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Sell instrument=1 "
                   "account=3 order_id=5 price=100100 quantity=1}",
                   "OrderCancelled{reason=EXPIRED(9) side=Sell instrument=1 "
                   "account=2 order_id=4 price=100200 quantity=1}",
                   "BookLevel{side=Buy instrument=1 price=100000}",
                   "BookLevel{side=Buy instrument=1 count=1 price=99900 "
                   "quantity=1}",
                   "BookLevel{side=Sell instrument=1 price=100100}",
                   "BookLevel{side=Sell instrument=1 price=100200}"}));
  EXPECT_EQ(Apply(Limit(kNewest, Side::kBuy, 999, 1)),
            (Texts{"Rejected{command=NewOrder reason=INSTRUMENT_NOT_OPEN(4001) "
                   "side=Buy instrument=1 account=1 price=99900 quantity=1}"}));
  // Cancels are accepted in every state.
  EXPECT_EQ(Apply(EngineDriver::Cancel(kNewest, OrderId{2})),
            (Texts{"CancelAccepted{reason=USER_REQUEST(1) side=Buy "
                   "instrument=1 account=1 order_id=2 price=99900 quantity=1}",
                   "BookLevel{side=Buy instrument=1 price=99900}"}));
}

TEST_F(ReferenceBookTest, ExpiredIsTerminalAndCancelsEverything) {
  Apply(Limit(kNewest, Side::kBuy, 999, 1));    // 1
  Apply(Limit(kOldest, Side::kSell, 1001, 2));  // 2
  EXPECT_EQ(Apply(EngineDriver::SetState(kInst, InstrumentState::kExpired)),
            (Texts{"InstrumentStateChanged{state=Expired instrument=1}",
                   "OrderCancelled{reason=INSTRUMENT_EXPIRED(7) side=Buy "
                   "instrument=1 account=1 order_id=1 price=99900 quantity=1}",
                   "OrderCancelled{reason=INSTRUMENT_EXPIRED(7) side=Sell "
                   "instrument=1 account=2 order_id=2 price=100100 quantity=2}",
                   "BookLevel{side=Buy instrument=1 price=99900}",
                   "BookLevel{side=Sell instrument=1 price=100100}"}));
  EXPECT_EQ(Apply(Limit(kNewest, Side::kBuy, 999, 1)),
            (Texts{"Rejected{command=NewOrder reason=INSTRUMENT_EXPIRED(4002) "
                   "side=Buy instrument=1 account=1 price=99900 quantity=1}"}));
  EXPECT_EQ(Apply(EngineDriver::SetState(kInst, InstrumentState::kOpen)),
            (Texts{"Rejected{command=SetInstrumentState "
                   "reason=INVALID_STATE_TRANSITION(4003) instrument=1}"}));
}

TEST_F(ReferenceBookTest, TransitionToCurrentStateIsRejected) {
  EXPECT_EQ(Apply(EngineDriver::SetState(kInst, InstrumentState::kOpen)),
            (Texts{"Rejected{command=SetInstrumentState "
                   "reason=INVALID_STATE_TRANSITION(4003) instrument=1}"}));
  EXPECT_EQ(
      Apply(EngineDriver::SetState(kInst, static_cast<InstrumentState>(9))),
      (Texts{"Rejected{command=SetInstrumentState "
             "reason=INVALID_INSTRUMENT_STATE(1018) instrument=1}"}));
}

TEST_F(ReferenceBookTest, StaleSeqChangesNothingNotEvenExpiry) {
  Apply(Gtd(kNewest, Side::kBuy, 999, 1, kT0 + 5'000));  // seq 1
  Command stale = EngineDriver::Timer();
  stale.seq = Seq{1};
  stale.ts = Timestamp{kT0 + 9'000};
  const uint64_t before = ref_.StateHash();
  EXPECT_EQ(Apply(stale), (Texts{"Rejected{command=Timer "
                                 "reason=SEQUENCE_OUT_OF_ORDER(9002)}"}));
  EXPECT_EQ(ref_.StateHash(), before);
  EXPECT_EQ(ref_.last_seq().value, 1u);
  EXPECT_EQ(ref_.resting_orders(), 1u);
}

TEST_F(ReferenceBookTest, MassCancelGoesByOrderIdThenReportsCount) {
  Apply(Limit(kNewest, Side::kSell, 1001, 1));                           // 1
  Apply(Limit(kNewest, Side::kBuy, 995, 2, TimeInForce::kGtc, kInst2));  // 2
  Apply(Limit(kOther, Side::kBuy, 998, 1));   // 3: not ours
  Apply(Limit(kNewest, Side::kBuy, 998, 3));  // 4
  EXPECT_EQ(
      Apply(EngineDriver::MassCancel(kNewest, InstrumentId{0})),
      (Texts{"OrderCancelled{reason=MASS_CANCEL(2) side=Sell instrument=1 "
             "account=1 order_id=1 price=100100 quantity=1}",
             "OrderCancelled{reason=MASS_CANCEL(2) side=Buy instrument=2 "
             "account=1 order_id=2 price=99500 quantity=2}",
             "OrderCancelled{reason=MASS_CANCEL(2) side=Buy instrument=1 "
             "account=1 order_id=4 price=99800 quantity=3}",
             "MassCancelDone{count=3 account=1}",
             "BookLevel{side=Sell instrument=1 price=100100}",
             "BookLevel{side=Buy instrument=2 price=99500}",
             "BookLevel{side=Buy instrument=1 count=1 price=99800 "
             "quantity=1}"}));
}

TEST_F(ReferenceBookTest, PriceBandRoundsDownToWholeTick) {
  // Instrument 2: ref $10.00, 7.77 % = 7,770 units, a band of 7,500.
  EXPECT_EQ(
      Apply(Limit(kNewest, Side::kBuy, 1075, 1, TimeInForce::kGtc, kInst2))[0],
      "OrderAccepted{side=Buy order_type=Limit tif=Gtc instrument=2 account=1 "
      "order_id=1 "
      "price=107500 quantity=1 leaves=1}");
  EXPECT_EQ(
      Apply(Limit(kNewest, Side::kBuy, 1080, 1, TimeInForce::kGtc, kInst2)),
      (Texts{"Rejected{command=NewOrder reason=PRICE_OUTSIDE_BAND(2001) "
             "side=Buy instrument=2 account=1 price=108000 "
             "quantity=1}"}));
  EXPECT_EQ(
      Apply(Limit(kOther, Side::kSell, 920, 1, TimeInForce::kGtc, kInst2)),
      (Texts{"Rejected{command=NewOrder reason=PRICE_OUTSIDE_BAND(2001) "
             "side=Sell instrument=2 account=5 price=92000 "
             "quantity=1}"}));
  // A sell far above (or a buy far below) the reference is fine.
  EXPECT_EQ(
      Apply(Limit(kOther, Side::kSell, 2000, 1, TimeInForce::kGtc, kInst2))
          .size(),
      2u);
}

TEST_F(ReferenceBookTest, PositionLimitCountsPositionAndOpenOrders) {
  Apply(Limit(kNewest, Side::kBuy, 1000, 6, TimeInForce::kGtc, kInst2));
  EXPECT_EQ(
      Apply(Limit(kNewest, Side::kBuy, 995, 5, TimeInForce::kGtc, kInst2)),
      (Texts{"Rejected{command=NewOrder "
             "reason=POSITION_LIMIT_EXCEEDED(2002) side=Buy "
             "instrument=2 account=1 price=99500 quantity=5}"}));
  Apply(Limit(kOther, Side::kSell, 1000, 6, TimeInForce::kGtc, kInst2));
  EXPECT_EQ(ref_.position(kNewest, kInst2), 6);
  // Position 6 + open 0 + 4 = 10: at the limit is allowed.
  EXPECT_EQ(Apply(Limit(kNewest, Side::kBuy, 995, 4, TimeInForce::kGtc, kInst2))
                .size(),
            2u);
  // Selling reduces the position: -6 + 0 + 16 = 10.
  EXPECT_EQ(
      Apply(Limit(kNewest, Side::kSell, 1050, 16, TimeInForce::kGtc, kInst2))
          .size(),
      2u);
}

TEST_F(ReferenceBookTest, PostOnlyThatWouldCrossIsRejected) {
  Apply(Limit(kNewest, Side::kSell, 1000, 5));
  Command cross = Limit(kOther, Side::kBuy, 1000, 1);
  cross.flags = kFlagPostOnly;
  EXPECT_EQ(
      Apply(cross),
      (Texts{"Rejected{command=NewOrder reason=POST_ONLY_WOULD_CROSS(3001) "
             "side=Buy instrument=1 account=5 price=100000 "
             "quantity=1}"}));
  Command ioc = Limit(kOther, Side::kBuy, 999, 1, TimeInForce::kIoc);
  ioc.flags = kFlagPostOnly;
  EXPECT_EQ(
      Apply(ioc),
      (Texts{"Rejected{command=NewOrder reason=POST_ONLY_NOT_ALLOWED(1016) "
             "side=Buy instrument=1 account=5 price=99900 "
             "quantity=1}"}));
}

TEST_F(ReferenceBookTest, FullPoolRejectsOnlyOrdersThatCouldRest) {
  for (int i = 0; i < 10; ++i) Apply(Limit(kNewest, Side::kBuy, 990 - i, 1));
  EXPECT_EQ(Apply(Limit(kNewest, Side::kSell, 1000, 1)),
            (Texts{"Rejected{command=NewOrder reason=ORDER_BOOK_FULL(3005) "
                   "side=Sell instrument=1 account=1 price=100000 "
                   "quantity=1}"}));
  // An IOC never rests, so it needs no slot.
  EXPECT_EQ(Apply(Limit(kOther, Side::kSell, 990, 1, TimeInForce::kIoc)).size(),
            3u);  // accepted, trade, level gone
}

TEST_F(ReferenceBookTest, ChecksRunInTheDocumentedOrder) {
  Command c = Limit(kNewest, static_cast<Side>(7), 1000, 0);
  c.instrument = InstrumentId{3};
  EXPECT_EQ(FirstReason(Apply(c)), "UNKNOWN_INSTRUMENT");
  c.instrument = kInst;
  c.account = AccountId{7};
  EXPECT_EQ(FirstReason(Apply(c)), "UNKNOWN_ACCOUNT");
  c.account = kNewest;
  EXPECT_EQ(FirstReason(Apply(c)), "INVALID_SIDE");
  c.side = Side::kBuy;
  EXPECT_EQ(FirstReason(Apply(c)), "QUANTITY_BELOW_MINIMUM");
  // A market order names no price; DAY is the first thing wrong with it.
  Command m =
      EngineDriver::Market(kNewest, kInst, Side::kBuy, 1, TimeInForce::kDay);
  EXPECT_EQ(FirstReason(Apply(m)), "MARKET_ORDER_NEEDS_IOC_OR_FOK");
  Command gtd = Gtd(kNewest, Side::kBuy, 1000, 1, 0);
  EXPECT_EQ(FirstReason(Apply(gtd)), "MISSING_EXPIRE_TIME");
  gtd.set_expire_time(Timestamp{ts_ + 1'000});  // == the command's ts
  EXPECT_EQ(FirstReason(Apply(gtd)), "EXPIRE_TIME_IN_PAST");
}

}  // namespace
}  // namespace cfx::exchange::testing
