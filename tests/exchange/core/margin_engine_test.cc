// The engine's collateral and pre-trade margin check (DESIGN.md §5,
// docs/matching.md): kCollateral commands, INSUFFICIENT_MARGIN on new
// orders and replaces, snapshot and state hash.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/core/engine_config.h"
#include "tests/support/engine_fixture.h"

namespace cfx::exchange {
namespace {

using testing::Cents;
using testing::EngineDriver;
using testing::OfType;

constexpr AccountId kTrader{1};
constexpr AccountId kRich{2};
constexpr InstrumentId kJan{1};   // XB2S 2027-01, margin group 1
constexpr InstrumentId kFeb{2};   // XB2S 2027-02, margin group 1
constexpr InstrumentId kSpot{3};  // not margined
constexpr InstrumentId kPrm{4};   // XB2P 2027-01, margin group 2

// One contract at the $5.80 initial reference: 730 GPU-hours x $5.80 x 15 %
// = $635.10.
constexpr int64_t kOneLot = 635'100'000;
constexpr int64_t kDay = 20'800;  // a settlement date: 2026-12-13

EngineConfig MarginConfig(int64_t trader_collateral) {
  EngineConfig c;
  c.limits.max_orders = 1'000;
  c.limits.max_accounts = 4;
  c.limits.max_instruments = 5;
  c.limits.max_client_order_ids = 1'000;
  auto future = [](uint32_t id, uint32_t group, int32_t month) {
    InstrumentConfig ic;
    ic.id = InstrumentId{id};
    ic.kind = InstrumentKind::kFuture;
    ic.margin_group = group;
    ic.maturity_month = month;
    return ic;
  };
  c.instruments.push_back(future(1, 1, 2027 * 12 + 0));
  c.instruments.push_back(future(2, 1, 2027 * 12 + 1));
  InstrumentConfig spot;
  spot.id = kSpot;
  spot.kind = InstrumentKind::kSpot;
  spot.gpu_hours_per_lot = 192;
  c.instruments.push_back(spot);
  c.instruments.push_back(future(4, 2, 2027 * 12 + 0));
  c.accounts = {
      AccountConfig{kTrader, StpMode::kCancelNewest, Amount{trader_collateral}},
      AccountConfig{kRich, StpMode::kCancelNewest,
                    Amount{1'000'000 * kMicrosPerUsd}},
  };
  return c;
}

class MarginEngineTest : public ::testing::Test {
 protected:
  void Start(int64_t trader_collateral) {
    d_ = std::make_unique<EngineDriver>(MarginConfig(trader_collateral));
    ASSERT_TRUE(d_->ok());
  }

  // The one result of applying `c`.
  Event Result(const Command& c) {
    const std::vector<Event> events = d_->Apply(c);
    for (const Event& e : events) {
      if (IsResult(e.type)) return e;
    }
    ADD_FAILURE() << "no result";
    return Event{};
  }

  // Applies `c`, expects it refused with `code` and nothing changed.
  void ExpectRejected(const Command& c, RejectCode code) {
    const uint64_t hash = d_->engine().StateHash();
    const std::size_t resting = d_->engine().resting_orders();
    const std::vector<Event> events = d_->Apply(c);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].type, EventType::kRejected);
    EXPECT_EQ(events[0].reject_code(), code)
        << RejectCodeName(events[0].reject_code());
    EXPECT_EQ(d_->engine().StateHash(), hash);
    EXPECT_EQ(d_->engine().resting_orders(), resting);
  }

  void ExpectAccepted(const Command& c) {
    const Event e = Result(c);
    EXPECT_TRUE(e.type == EventType::kOrderAccepted ||
                e.type == EventType::kOrderReplaced ||
                e.type == EventType::kCollateralChanged)
        << e;
  }

  // The trader buys (or sells) `lots` of `inst` from (to) the rich account
  // at $5.80, leaving the trader with that position.
  void Fill(InstrumentId inst, Side side, int64_t lots) {
    ExpectAccepted(
        EngineDriver::Limit(kRich, inst, Opposite(side), Cents(580), lots));
    const std::vector<Event> events =
        d_->Apply(EngineDriver::Limit(kTrader, inst, side, Cents(580), lots));
    ASSERT_EQ(OfType(events, EventType::kTrade).size(), 1u);
  }

  std::unique_ptr<EngineDriver> d_;
};

TEST_F(MarginEngineTest, OrderWithinCollateralIsAccepted) {
  Start(kOneLot);
  // Worst case with the order: one long contract, $635.10 = the collateral.
  ExpectAccepted(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1));
}

TEST_F(MarginEngineTest, OrderBeyondCollateralIsRejectedAndChangesNothing) {
  Start(kOneLot - 1);
  // $635.10 needed, $635.099999 held.
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1),
                 RejectCode::kInsufficientMargin);
  Start(kOneLot);
  ExpectAccepted(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1));
  // A second buy: 2 x $635.10 = $1,270.20 > $635.10.
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, MarketOrdersAreCheckedAtTheReferencePrice) {
  Start(0);
  ExpectRejected(EngineDriver::Market(kTrader, kJan, Side::kBuy, 1),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, OpenBuysAndSellsDoNotAddTheWorstSideCounts) {
  // $1,905.30 = 3 contracts.
  Start(3 * kOneLot);
  ExpectAccepted(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(570), 3));
  // Every buy filling: long 3 ($1,905.30); every sell filling: short 3
  // ($1,905.30). The worst of the two, not their sum, fits.
  ExpectAccepted(
      EngineDriver::Limit(kTrader, kJan, Side::kSell, Cents(590), 3));
  // One more sell makes the sell side short 4: $2,540.40.
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kSell, Cents(590), 1),
                 RejectCode::kInsufficientMargin);
  // One more buy makes the buy side long 4: also too much.
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(570), 1),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, ClosingAPositionPassesWhenUnderCollateralised) {
  Start(kOneLot);
  Fill(kJan, Side::kBuy, 1);
  // A settlement run books a $635.10 loss: collateral 0, a margin call.
  const Event booked =
      Result(EngineDriver::Collateral(kTrader, -kOneLot, kDay));
  ASSERT_EQ(booked.type, EventType::kCollateralChanged);
  EXPECT_EQ(booked.leaves.lots, 0);
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1),
                 RejectCode::kInsufficientMargin);
  // Selling the contract: worst case long 1 ($635.10), as without it.
  ExpectAccepted(
      EngineDriver::Limit(kTrader, kJan, Side::kSell, Cents(590), 1));
  // Selling two more would leave short 2 ($1,270.20) if every sell fills.
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kSell, Cents(590), 2),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, TheOtherLegOfASpreadPassesWhenUnderCollateralised) {
  Start(kOneLot);
  Fill(kJan, Side::kBuy, 1);
  ASSERT_EQ(Result(EngineDriver::Collateral(kTrader, -kOneLot, kDay)).type,
            EventType::kCollateralChanged);
  // Short Feb against long Jan: the sell side is a spread, 40 % x
  // ($635.10 + $635.10) = $508.08; the buy side stays long 1 Jan, $635.10.
  // Worst $635.10, as without the order.
  ExpectAccepted(
      EngineDriver::Limit(kTrader, kFeb, Side::kSell, Cents(590), 1));
  // Short Jan of another root (group 2) is no spread: long 1 + short 1.
  ExpectRejected(EngineDriver::Limit(kTrader, kPrm, Side::kSell, Cents(590), 1),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, SpreadCreditLowersTheRequirement) {
  Start(2 * kOneLot);
  Fill(kJan, Side::kBuy, 2);
  // Selling Feb against it: while the sell rests, the buy side (long 2 Jan,
  // $1,270.20) is the worst case; once it fills both sides are 2 spreads.
  Fill(kFeb, Side::kSell, 2);
  // Long 2 Jan + short 2 Feb: 4 x $635.10 = $2,540.40 gross, credit 60 % =
  // $1,524.24, IM $1,016.16: $254.04 of the $1,270.20 is free.
  ExpectRejected(EngineDriver::Collateral(kTrader, -254'040'001),
                 RejectCode::kInsufficientMargin);
  ExpectAccepted(EngineDriver::Collateral(kTrader, -254'040'000));
  EXPECT_EQ(d_->engine().collateral(kTrader).micros, 1'016'160'000);
}

TEST_F(MarginEngineTest, ReferencePriceSetByCommandChangesTheCheck) {
  Start(kOneLot);
  // DSP $5.81: 730 x $5.81 x 15 % = $636.195 > $635.10.
  ASSERT_EQ(Result(EngineDriver::SetReference(kJan, Cents(581))).type,
            EventType::kReferencePriceSet);
  ExpectRejected(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1),
                 RejectCode::kInsufficientMargin);
  // DSP $5.79: $634.005 fits.
  ASSERT_EQ(Result(EngineDriver::SetReference(kJan, Cents(579))).type,
            EventType::kReferencePriceSet);
  ExpectAccepted(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1));
}

TEST_F(MarginEngineTest, SpotOrdersAreNeverMarginChecked) {
  Start(0);
  ExpectAccepted(
      EngineDriver::Limit(kTrader, kSpot, Side::kBuy, Cents(575), 50));
  ExpectAccepted(
      EngineDriver::Limit(kTrader, kSpot, Side::kSell, Cents(590), 50));
}

TEST_F(MarginEngineTest, ReplaceIsCheckedOnItsNewLeaves) {
  Start(2 * kOneLot);
  const Event accepted =
      Result(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 2));
  ASSERT_EQ(accepted.type, EventType::kOrderAccepted);
  // 3 lots would need $1,905.30.
  ExpectRejected(
      EngineDriver::Replace(kTrader, accepted.order_id, Cents(575), 3),
      RejectCode::kInsufficientMargin);
  // A new price, the same lots: no risk added.
  ExpectAccepted(
      EngineDriver::Replace(kTrader, accepted.order_id, Cents(576), 2));
  // Fewer lots pass even once the collateral is gone.
  ASSERT_EQ(Result(EngineDriver::Collateral(kTrader, -2 * kOneLot, kDay)).type,
            EventType::kCollateralChanged);
  ExpectAccepted(
      EngineDriver::Replace(kTrader, accepted.order_id, Cents(576), 1));
}

TEST_F(MarginEngineTest, ExpiredInstrumentsNoLongerNeedMargin) {
  Start(kOneLot);
  Fill(kJan, Side::kBuy, 1);
  ExpectRejected(EngineDriver::Limit(kTrader, kFeb, Side::kBuy, Cents(575), 1),
                 RejectCode::kInsufficientMargin);
  ASSERT_EQ(
      Result(EngineDriver::SetState(kJan, InstrumentState::kExpired)).type,
      EventType::kInstrumentStateChanged);
  ExpectAccepted(EngineDriver::Limit(kTrader, kFeb, Side::kBuy, Cents(575), 1));
}

// ---- kCollateral ----

TEST_F(MarginEngineTest, DepositAndWithdrawalChangeTheCollateral) {
  Start(kOneLot);
  Command deposit = EngineDriver::Collateral(kTrader, 1'000'000);
  deposit.client_order_id = ClientOrderId{77};
  const std::vector<Event> events = d_->Apply(deposit);
  ASSERT_EQ(events.size(), 1u);
  const Event& e = events[0];
  EXPECT_EQ(e.type, EventType::kCollateralChanged);
  EXPECT_EQ(e.account, kTrader);
  EXPECT_EQ(e.quantity.lots, 1'000'000);
  EXPECT_EQ(e.leaves.lots, kOneLot + 1'000'000);  // $636.10
  EXPECT_EQ(e.count, 0u);
  EXPECT_EQ(e.client_order_id, ClientOrderId{77});
  EXPECT_EQ(d_->engine().collateral(kTrader).micros, kOneLot + 1'000'000);

  const Event w = Result(EngineDriver::Collateral(kTrader, -kOneLot));
  EXPECT_EQ(w.type, EventType::kCollateralChanged);
  EXPECT_EQ(w.quantity.lots, -kOneLot);
  EXPECT_EQ(w.leaves.lots, 1'000'000);
  EXPECT_EQ(d_->engine().settled_date(kTrader), 0);
}

TEST_F(MarginEngineTest, WithdrawalMayNotGoBelowTheRequirementOrZero) {
  Start(2 * kOneLot);
  // A resting buy of 1: the requirement is $635.10.
  ExpectAccepted(EngineDriver::Limit(kTrader, kJan, Side::kBuy, Cents(575), 1));
  ExpectRejected(EngineDriver::Collateral(kTrader, -kOneLot - 1),
                 RejectCode::kInsufficientMargin);
  ExpectAccepted(EngineDriver::Collateral(kTrader, -kOneLot));
  EXPECT_EQ(d_->engine().collateral(kTrader).micros, kOneLot);
  // Without positions or orders the floor is zero.
  ExpectAccepted(EngineDriver::Collateral(kRich, -1'000'000 * kMicrosPerUsd));
  ExpectRejected(EngineDriver::Collateral(kRich, -1),
                 RejectCode::kInsufficientMargin);
}

TEST_F(MarginEngineTest, SettlementBookingsApplyOncePerDate) {
  Start(kOneLot);
  const Event first =
      Result(EngineDriver::Collateral(kTrader, -2 * kOneLot, kDay));
  EXPECT_EQ(first.type, EventType::kCollateralChanged);
  EXPECT_EQ(first.leaves.lots, -kOneLot);  // below zero: a margin call
  EXPECT_EQ(first.count, static_cast<uint32_t>(kDay));
  EXPECT_EQ(d_->engine().settled_date(kTrader), kDay);
  // The same date again, or an earlier one: nothing changes.
  ExpectRejected(EngineDriver::Collateral(kTrader, -2 * kOneLot, kDay),
                 RejectCode::kAlreadySettled);
  ExpectRejected(EngineDriver::Collateral(kTrader, 5, kDay - 1),
                 RejectCode::kAlreadySettled);
  // Dates are per account.
  ExpectAccepted(EngineDriver::Collateral(kRich, 5, kDay));
  // The next date applies.
  const Event next =
      Result(EngineDriver::Collateral(kTrader, 3 * kOneLot, kDay + 1));
  EXPECT_EQ(next.leaves.lots, 2 * kOneLot);
  EXPECT_EQ(d_->engine().settled_date(kTrader), kDay + 1);
}

TEST_F(MarginEngineTest, BadCollateralCommandsAreRejected) {
  Start(kOneLot);
  ExpectRejected(EngineDriver::Collateral(kTrader, 0),
                 RejectCode::kInvalidAmount);
  ExpectRejected(EngineDriver::Collateral(kTrader, 0, kDay),
                 RejectCode::kInvalidAmount);
  ExpectRejected(EngineDriver::Collateral(AccountId{3}, 1),
                 RejectCode::kUnknownAccount);
  ExpectRejected(EngineDriver::Collateral(AccountId{99}, 1),
                 RejectCode::kUnknownAccount);
  ExpectRejected(
      EngineDriver::Collateral(kTrader, std::numeric_limits<int64_t>::max()),
      RejectCode::kInvalidAmount);
  // 2,932,897 is 10000-01-01.
  ExpectRejected(EngineDriver::Collateral(kTrader, 1, 2'932'897),
                 RejectCode::kInvalidSettlementDate);
  EXPECT_EQ(d_->engine().collateral(kTrader).micros, kOneLot);
}

// The admin's re-run of a refused settlement date (docs/settlement.md,
// "Operator recovery"): the engine only checks the date and echoes it for
// the settlement service; nothing of its own state changes.
TEST_F(MarginEngineTest, SettlementRerunEchoesItsDateAndChangesNothing) {
  Start(kOneLot);
  Command c;
  c.type = CommandType::kSettlementRerun;
  c.target = kDay;
  c.client_order_id = ClientOrderId{7};
  const uint64_t hash = d_->engine().StateHash();
  const Event e = Result(c);
  EXPECT_EQ(e.type, EventType::kSettlementRerun);
  EXPECT_EQ(e.count, static_cast<uint32_t>(kDay));
  EXPECT_EQ(e.client_order_id.value, 7u);
  EXPECT_EQ(d_->engine().StateHash(), hash);
  for (const uint64_t bad : {uint64_t{0}, uint64_t{2'932'897}}) {
    c.target = bad;
    ExpectRejected(c, RejectCode::kInvalidSettlementDate);
  }
}

TEST_F(MarginEngineTest, CollateralAndSettledDateSurviveASnapshot) {
  Start(kOneLot);
  Fill(kJan, Side::kBuy, 1);
  ASSERT_EQ(Result(EngineDriver::Collateral(kTrader, 123, kDay)).type,
            EventType::kCollateralChanged);
  const std::string snap = d_->engine().SaveSnapshot();
  EngineDriver restored(MarginConfig(0));
  ASSERT_TRUE(restored.engine().LoadSnapshot(snap).ok());
  EXPECT_EQ(restored.engine().collateral(kTrader).micros, kOneLot + 123);
  EXPECT_EQ(restored.engine().settled_date(kTrader), kDay);
  EXPECT_EQ(restored.engine().StateHash(), d_->engine().StateHash());
  EXPECT_EQ(restored.engine().SaveSnapshot(), snap);
}

TEST_F(MarginEngineTest, StateHashCoversCollateralAndSettledDate) {
  Start(kOneLot);
  EngineDriver twin(MarginConfig(kOneLot));
  EXPECT_EQ(twin.engine().StateHash(), d_->engine().StateHash());
  EngineDriver richer(MarginConfig(kOneLot + 1));
  EXPECT_NE(richer.engine().StateHash(), d_->engine().StateHash());
  // +1 then -1 the same day: equal money, but one booked a date.
  ASSERT_EQ(Result(EngineDriver::Collateral(kTrader, 1)).type,
            EventType::kCollateralChanged);
  twin.Apply(EngineDriver::Collateral(kTrader, 1, kDay));
  EXPECT_EQ(twin.engine().collateral(kTrader),
            d_->engine().collateral(kTrader));
  EXPECT_NE(twin.engine().StateHash(), d_->engine().StateHash());
}

// ---- config ----

TEST(MarginConfig, RejectsBadMarginSettings) {
  auto error = [](const EngineConfig& c) {
    const Status s = ValidateEngineConfig(c);
    return s.ok() ? std::string() : s.message();
  };
  EXPECT_EQ(error(MarginConfig(0)), "");
  EngineConfig c = MarginConfig(-1);
  EXPECT_EQ(error(c), "account 1: collateral must be >= 0");
  c = MarginConfig(0);
  c.instruments[2].margin_group = 1;
  EXPECT_EQ(error(c),
            "instrument 3: margin_group must be 0 on a spot instrument");
  c = MarginConfig(0);
  c.instruments[1].maturity_month = c.instruments[0].maturity_month;
  EXPECT_EQ(error(c),
            "instrument 2: another instrument has the same margin_group and "
            "maturity_month");
  c = MarginConfig(0);
  c.margin.initial_margin_bp = 10'001;
  EXPECT_EQ(error(c), "margin.initial_margin_bp must be in [0, 10000]");
  c = MarginConfig(0);
  c.margin.spread_credit_bp = -1;
  EXPECT_EQ(error(c), "margin.spread_credit_bp must be in [0, 10000]");
  c = MarginConfig(0);
  c.limits.max_instruments = 100;
  c.instruments.clear();
  for (uint32_t i = 1; i <= 65; ++i) {
    InstrumentConfig ic;
    ic.id = InstrumentId{i};
    ic.margin_group = 1;
    ic.maturity_month = static_cast<int32_t>(i);
    ic.max_price = Price{10'000 * 100};
    c.instruments.push_back(ic);
  }
  EXPECT_EQ(error(c),
            "instrument 65: more than 64 instruments with a margin_group");
}

}  // namespace
}  // namespace cfx::exchange
