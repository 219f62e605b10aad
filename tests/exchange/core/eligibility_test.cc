// Spot listing and grade eligibility in the engine (DESIGN.md §2-3): the
// registry's rows decide which spot sells are accepted, and a lost
// eligibility cancels exactly the resting sells it no longer covers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/core/reference/attestation.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/default_market.h"
#include "tests/support/attestation_fixture.h"
#include "tests/support/engine_fixture.h"

namespace cfx::exchange {
namespace {

using testing::Cents;
using testing::EngineDriver;
using testing::OfType;
using D = EngineDriver;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kDay = 86'400 * kSecond;
constexpr uint32_t kStd = 0;
constexpr uint32_t kPrm = 1;
// Slots: STD and PRM for delivery day kDeliveryDay, STD for the day after.
constexpr InstrumentId kStdSlot{1};
constexpr InstrumentId kPrmSlot{2};
constexpr InstrumentId kStdNextSlot{3};
constexpr InstrumentId kFut{4};
constexpr AccountId kTrader{1};
constexpr AccountId kProvA{4};
constexpr AccountId kProvB{5};
// 2027-01-16, the day after the driver's clock starts.
constexpr int64_t kStart = 1'800'000'000 * kSecond;
constexpr int64_t kDeliveryDay = kStart / kDay + 1;
const std::string kKeyId = "ed25519:0123456789abcdef";

EngineConfig Config() {
  EngineConfig c;
  c.limits.max_orders = 64;
  c.limits.max_accounts = 8;
  c.limits.max_instruments = 8;
  InstrumentConfig spot;
  spot.kind = InstrumentKind::kSpot;
  spot.gpu_hours_per_lot = 192;
  spot.reference_price = Cents(580);
  spot.initial_state = InstrumentState::kNone;
  spot.id = kStdSlot;
  spot.grade = kStd;
  InstrumentConfig prm = spot;
  prm.id = kPrmSlot;
  prm.grade = kPrm;
  prm.reference_price = Cents(640);
  InstrumentConfig next = spot;
  next.id = kStdNextSlot;
  InstrumentConfig fut;
  fut.id = kFut;
  c.instruments = {spot, prm, next, fut};
  for (uint32_t a = 1; a <= 6; ++a) {
    c.accounts.push_back({AccountId{a}, StpMode::kCancelNewest});
  }
  c.reference.grades = DesignGrades();
  c.reference.providers = {{"PROV-A", kProvA}, {"PROV-B", kProvB}};
  return c;
}

Command ReferenceCommand(std::string_view payload) {
  Command c;
  c.type = CommandType::kReferenceData;
  c.quantity = Quantity{static_cast<int64_t>(payload.size())};
  c.client_order_id = ClientOrderId{77};
  return c;
}

Command List(InstrumentId slot, int64_t day) {
  Command c;
  c.type = CommandType::kListInstrument;
  c.instrument = slot;
  c.target = static_cast<uint64_t>(day);
  return c;
}

class EligibilityTest : public ::testing::Test {
 protected:
  EligibilityTest() : d_(Config()) {
    d_.set_time(Timestamp{kStart});
    ExpectOne(d_.Apply(List(kStdSlot, kDeliveryDay)),
              EventType::kInstrumentListed);
    ExpectOne(d_.Apply(List(kPrmSlot, kDeliveryDay)),
              EventType::kInstrumentListed);
    ExpectOne(d_.Apply(List(kStdNextSlot, kDeliveryDay + 1)),
              EventType::kInstrumentListed);
    AttesterKeyRegister key;
    key.key_id = kKeyId;
    key.public_key = std::string(32, 'k');
    key.attester = "ATTEST";
    Accept(key);
  }

  static void ExpectOne(const std::vector<Event>& ev, EventType type) {
    ASSERT_FALSE(ev.empty());
    EXPECT_EQ(ev[0].type, type) << "reject reason " << ev[0].reason;
  }

  std::vector<Event> Submit(const ReferenceMessage& m) {
    const std::string payload = EncodeReferencePayload(m);
    return d_.Apply(ReferenceCommand(payload), payload);
  }

  std::vector<Event> Accept(const ReferenceMessage& m) {
    auto ev = Submit(m);
    EXPECT_EQ(OfType(ev, EventType::kReferenceAccepted).size(), 1u);
    EXPECT_TRUE(OfType(ev, EventType::kRejected).empty());
    return ev;
  }

  std::vector<Event> Rate(const std::string& firm, Tier tier,
                          const std::string& reference,
                          int64_t effective_offset = -kDay) {
    RatingSet r;
    r.operator_firm = firm;
    r.tier = tier;
    r.effective = Timestamp{d_.time().nanos + effective_offset};
    r.expires = Timestamp{d_.time().nanos + 365 * kDay};
    r.agency = "RATER";
    r.reference = reference;
    return Accept(r);
  }

  // Attests `nodes` nodes of `firm` at `tokens` (whole tokens/s per GPU),
  // measured `age` ago.
  std::vector<Event> Attest(const std::string& firm, int nodes, uint64_t tokens,
                            int64_t age = kDay) {
    std::vector<Event> all;
    for (int n = 0; n < nodes; ++n) {
      const Attestation a = testing::TestAttestation(
          firm, "node-" + std::to_string(n), tokens,
          Timestamp{d_.time().nanos - age}, kKeyId, ++attestations_);
      AttestationSubmit s;
      s.submitter = firm;
      s.canonical = EncodeCanonicalAttestation(a);
      s.signature = std::string(64, 's');
      auto ev = Accept(s);
      all.insert(all.end(), ev.begin(), ev.end());
    }
    return all;
  }

  // A resting spot sell; returns its id (0 if not accepted).
  OrderId Sell(AccountId a, InstrumentId i, int64_t lots,
               Price p = Cents(600)) {
    auto ev = d_.Apply(D::Limit(a, i, Side::kSell, p, lots));
    auto acc = OfType(ev, EventType::kOrderAccepted);
    return acc.empty() ? OrderId{} : acc[0].order_id;
  }

  // Expects a spot sell to be rejected GRADE_NOT_ELIGIBLE for `why`, with
  // nothing changed.
  void ExpectNotEligible(AccountId a, InstrumentId i, int64_t lots,
                         Eligibility why) {
    const uint64_t before = d_.engine().StateHash();
    auto ev = d_.Apply(D::Limit(a, i, Side::kSell, Cents(600), lots));
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, EventType::kRejected);
    EXPECT_EQ(ev[0].reject_code(), RejectCode::kGradeNotEligible);
    EXPECT_EQ(ev[0].count, static_cast<uint32_t>(why))
        << "got " << EligibilityName(static_cast<Eligibility>(ev[0].count));
    EXPECT_EQ(d_.engine().StateHash(), before);
  }

  D d_;
  int attestations_ = 0;
};

TEST_F(EligibilityTest, ListingOpensTheSlotForItsDeliveryDay) {
  EXPECT_EQ(d_.engine().state(kStdSlot), InstrumentState::kOpen);
  EXPECT_EQ(d_.engine().delivery_day(kStdSlot), kDeliveryDay);
  EXPECT_EQ(d_.engine().delivery_day(kStdNextSlot), kDeliveryDay + 1);
}

TEST_F(EligibilityTest, LiveSlotCannotBeListedAgainUntilItExpires) {
  const uint64_t before = d_.engine().StateHash();
  auto ev = d_.Apply(List(kStdSlot, kDeliveryDay + 8));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kInvalidListing);
  EXPECT_EQ(d_.engine().StateHash(), before);
  // A futures instrument is never listed by command.
  ev = d_.Apply(List(kFut, kDeliveryDay));
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kInvalidListing);

  d_.Apply(D::Limit(kTrader, kStdSlot, Side::kBuy, Cents(590), 2));
  ev = d_.Apply(D::SetState(kStdSlot, InstrumentState::kExpired));
  EXPECT_EQ(OfType(ev, EventType::kOrderCancelled).size(), 1u);
  ev = d_.Apply(List(kStdSlot, kDeliveryDay + 8));
  ASSERT_EQ(ev[0].type, EventType::kInstrumentListed);
  EXPECT_EQ(ev[0].count, kDeliveryDay + 8);
  EXPECT_EQ(d_.engine().best_price(kStdSlot, Side::kBuy), Price{});
}

TEST_F(EligibilityTest, UnratedProviderCannotSell) {
  Attest("PROV-A", 2, 300);
  ExpectNotEligible(kProvA, kStdSlot, 1, Eligibility::kNoRating);
}

TEST_F(EligibilityTest, RatedProviderWithoutAttestationCannotSell) {
  Rate("PROV-A", Tier::kGold, "r1");
  ExpectNotEligible(kProvA, kStdSlot, 1, Eligibility::kNoAttestation);
}

TEST_F(EligibilityTest, GoldWith300TokensCanSellPremiumAndStandard) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300);
  EXPECT_EQ(d_.engine().eligibility(kProvA, kPrm).status,
            Eligibility::kEligible);
  EXPECT_NE(Sell(kProvA, kPrmSlot, 1), OrderId{});
  EXPECT_NE(Sell(kProvA, kStdNextSlot, 2), OrderId{});
}

TEST_F(EligibilityTest, BronzeWith210TokensCanSellOnlyStandard) {
  Rate("PROV-A", Tier::kBronze, "r1");
  Attest("PROV-A", 1, 210);
  EXPECT_NE(Sell(kProvA, kStdSlot, 1), OrderId{});
  ExpectNotEligible(kProvA, kPrmSlot, 1, Eligibility::kRatingBelowTier);
}

TEST_F(EligibilityTest, GoldWith210TokensIsBelowThePremiumFloor) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 1, 210);
  ExpectNotEligible(kProvA, kPrmSlot, 1, Eligibility::kBelowPerformanceFloor);
}

TEST_F(EligibilityTest, UnderperformCanSellNeither) {
  Rate("PROV-A", Tier::kUnderperform, "r1");
  Attest("PROV-A", 2, 300);
  ExpectNotEligible(kProvA, kStdSlot, 1, Eligibility::kRatingBelowTier);
  ExpectNotEligible(kProvA, kPrmSlot, 1, Eligibility::kRatingBelowTier);
}

TEST_F(EligibilityTest, CapacityBeyondAttestedNodesIsRejected) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300);
  ExpectNotEligible(kProvA, kStdSlot, 3, Eligibility::kCapacityExceeded);
  EXPECT_NE(Sell(kProvA, kStdSlot, 2), OrderId{});
  ExpectNotEligible(kProvA, kStdSlot, 1, Eligibility::kCapacityExceeded);
  // The same nodes cannot be sold again in the other grade for that day...
  ExpectNotEligible(kProvA, kPrmSlot, 1, Eligibility::kCapacityExceeded);
  // ...but may be for another delivery day.
  EXPECT_NE(Sell(kProvA, kStdNextSlot, 2), OrderId{});
}

TEST_F(EligibilityTest, SoldLotsStillCountAgainstTheNodes) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300);
  d_.Apply(D::Limit(kTrader, kStdSlot, Side::kBuy, Cents(600), 2));
  auto ev = d_.Apply(D::Limit(kProvA, kStdSlot, Side::kSell, Cents(600), 2));
  ASSERT_EQ(OfType(ev, EventType::kTrade).size(), 1u);
  ExpectNotEligible(kProvA, kStdSlot, 1, Eligibility::kCapacityExceeded);
}

TEST_F(EligibilityTest, BuyersNeedNoEligibility) {
  auto ev = d_.Apply(D::Limit(kTrader, kPrmSlot, Side::kBuy, Cents(600), 5));
  EXPECT_EQ(OfType(ev, EventType::kOrderAccepted).size(), 1u);
}

TEST_F(EligibilityTest, ReplaceUpBeyondTheNodesIsRejected) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300);
  const OrderId id = Sell(kProvA, kStdSlot, 1);
  auto ev = d_.Apply(D::Replace(kProvA, id, Cents(600), 3));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kGradeNotEligible);
  EXPECT_EQ(ev[0].count, static_cast<uint32_t>(Eligibility::kCapacityExceeded));
  ev = d_.Apply(D::Replace(kProvA, id, Cents(600), 2));
  EXPECT_EQ(OfType(ev, EventType::kOrderReplaced).size(), 1u);
}

TEST_F(EligibilityTest, DowngradeCancelsExactlyThePremiumSells) {
  Rate("PROV-A", Tier::kGold, "r1");
  Rate("PROV-B", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300);
  Attest("PROV-B", 2, 300);
  const OrderId prm = Sell(kProvA, kPrmSlot, 1);
  const OrderId std_next = Sell(kProvA, kStdNextSlot, 2);
  const OrderId other = Sell(kProvB, kPrmSlot, 1, Cents(610));
  d_.Apply(D::Limit(kTrader, kPrmSlot, Side::kBuy, Cents(590), 1));
  ASSERT_NE(prm, OrderId{});
  ASSERT_NE(std_next, OrderId{});
  ASSERT_NE(other, OrderId{});
  // A newer rating of PROV-A: Silver.
  auto ev = Rate("PROV-A", Tier::kSilver, "r2", /*effective_offset=*/0);
  auto cancelled = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0].order_id, prm);
  EXPECT_EQ(cancelled[0].cancel_reason(), CancelReason::kGradeEligibilityLost);
  auto changed = OfType(ev, EventType::kEligibilityChanged);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].account, kProvA);
  EXPECT_EQ(changed[0].count, kPrm);
  EXPECT_EQ(changed[0].reason,
            static_cast<uint16_t>(Eligibility::kRatingBelowTier));
  EXPECT_EQ(d_.engine().resting_orders(), 3u);  // std_next, other, the buy
}

TEST_F(EligibilityTest, LostNodesCancelTheNewestSellsUntilTheRestFits) {
  Rate("PROV-A", Tier::kGold, "r1");
  AttesterKeyRegister second;
  second.key_id = "ed25519:fedcba9876543210";
  second.public_key = std::string(32, 'q');
  second.attester = "ATTEST";
  Accept(second);
  Attest("PROV-A", 2, 300);  // nodes 0 and 1 under kKeyId
  const OrderId first = Sell(kProvA, kStdSlot, 1, Cents(600));
  const OrderId newest = Sell(kProvA, kStdSlot, 1, Cents(605));
  ASSERT_NE(newest, OrderId{});
  // Revoking the key leaves no node: both go.
  AttesterKeyRevoke revoke;
  revoke.key_id = kKeyId;
  auto ev = Accept(revoke);
  auto cancelled = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancelled.size(), 2u);
  EXPECT_EQ(cancelled[0].order_id, newest);
  EXPECT_EQ(cancelled[1].order_id, first);
}

TEST_F(EligibilityTest, AttestationExpiryCancelsPremiumSellsOnATimer) {
  Rate("PROV-A", Tier::kGold, "r1");
  Attest("PROV-A", 1, 300, /*age=*/6 * kDay);
  const OrderId prm = Sell(kProvA, kPrmSlot, 1);
  const OrderId std_next = Sell(kProvA, kStdNextSlot, 1);
  ASSERT_NE(prm, OrderId{});
  ASSERT_NE(std_next, OrderId{});
  const Timestamp due = d_.engine().next_expiry();
  ASSERT_NE(due.nanos, 0);
  EXPECT_LE(due.nanos, d_.time().nanos + kDay);
  Command t = D::Timer();
  t.ts = Timestamp{due.nanos - 1};
  auto ev = d_.Apply(t);
  EXPECT_TRUE(OfType(ev, EventType::kOrderCancelled).empty());
  t.ts = due;
  ev = d_.Apply(t);
  auto cancelled = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0].order_id, prm);
  EXPECT_EQ(cancelled[0].cancel_reason(), CancelReason::kGradeEligibilityLost);
  EXPECT_EQ(d_.engine().eligibility(kProvA, kPrm).status,
            Eligibility::kAttestationExpired);
  EXPECT_EQ(d_.engine().eligibility(kProvA, kStd).status,
            Eligibility::kEligible);
}

TEST_F(EligibilityTest, RejectedReferenceDataChangesNothing) {
  const uint64_t before = d_.engine().StateHash();
  RatingSet r;
  r.operator_firm = "FIRM-Z";
  r.tier = Tier::kGold;
  r.effective = d_.time();
  r.expires = Timestamp{d_.time().nanos + kDay};
  r.agency = "RATER";
  r.reference = "x";
  auto ev = Submit(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kUnknownOperator);
  EXPECT_EQ(ev[0].client_order_id, ClientOrderId{77});
  ev = d_.Apply(ReferenceCommand("garbage"), "garbage");
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kMalformedReferenceData);
  EXPECT_EQ(d_.engine().StateHash(), before);
}

// The same commands with and without a snapshot-and-restart in the middle
// give the same events and the same state: the restart falls between the
// resting orders and the downgrade and expiry that cancel them.
TEST_F(EligibilityTest, DowngradeAndExpiryReplayAcrossASnapshotRestart) {
  Rate("PROV-A", Tier::kGold, "r1");
  Rate("PROV-B", Tier::kGold, "r1");
  Attest("PROV-A", 2, 300, /*age=*/6 * kDay);
  Attest("PROV-B", 1, 300);
  Sell(kProvA, kPrmSlot, 1);
  Sell(kProvA, kStdNextSlot, 1);
  Sell(kProvB, kPrmSlot, 1, Cents(610));
  const std::string snapshot = d_.engine().SaveSnapshot();

  // The tail: PROV-B is downgraded, then PROV-A's attestations age out.
  RatingSet down;
  down.operator_firm = "PROV-B";
  down.tier = Tier::kBronze;
  down.effective = d_.time();
  down.expires = Timestamp{d_.time().nanos + 365 * kDay};
  down.agency = "RATER";
  down.reference = "r2";
  const std::string payload = EncodeReferencePayload(down);
  Command c1 = ReferenceCommand(payload);
  c1.seq = Seq{d_.next_seq()};
  c1.ts = Timestamp{d_.time().nanos + kSecond};
  Command c2 = D::Timer();
  c2.seq = Seq{c1.seq.value + 1};
  c2.ts = Timestamp{d_.time().nanos + 2 * kDay};

  auto live1 = d_.Apply(c1, payload);
  auto live2 = d_.Apply(c2);
  ASSERT_EQ(OfType(live1, EventType::kOrderCancelled).size(), 1u);
  ASSERT_EQ(OfType(live2, EventType::kOrderCancelled).size(), 1u);

  D restarted(Config());
  ASSERT_TRUE(restarted.engine().LoadSnapshot(snapshot).ok());
  auto again1 = restarted.Apply(c1, payload);
  auto again2 = restarted.Apply(c2);
  auto same = [](const std::vector<Event>& a, const std::vector<Event>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (std::memcmp(&a[i], &b[i], sizeof(Event)) != 0) return false;
    }
    return true;
  };
  EXPECT_TRUE(same(live1, again1));
  EXPECT_TRUE(same(live2, again2));
  EXPECT_EQ(restarted.engine().StateHash(), d_.engine().StateHash());
  EXPECT_EQ(restarted.engine().SaveSnapshot(), d_.engine().SaveSnapshot());
}

Command ReportFailure(AccountId a, TradeId id) {
  Command c;
  c.type = CommandType::kReportFailure;
  c.account = a;
  c.target = id.value;
  c.client_order_id = ClientOrderId{5};
  return c;
}

class SpotTradeTest : public EligibilityTest {
 protected:
  // PROV-A sells 2 nodes of kStdSlot to the trader; returns the trade.
  Event Trade() {
    Rate("PROV-A", Tier::kGold, "r1");
    Attest("PROV-A", 2, 300);
    Sell(kProvA, kStdSlot, 2);
    auto ev = d_.Apply(D::Limit(kTrader, kStdSlot, Side::kBuy, Cents(600), 2));
    auto trades = OfType(ev, EventType::kTrade);
    EXPECT_EQ(trades.size(), 1u);
    return trades.empty() ? Event{} : trades[0];
  }

  static void ExpectRejected(const std::vector<Event>& ev, RejectCode code) {
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, EventType::kRejected);
    EXPECT_EQ(ev[0].reject_code(), code);
  }
};

TEST_F(SpotTradeTest, EitherSideCanBustBeforeTheDeadline) {
  const Event t = Trade();
  auto ev = d_.Apply(ReportFailure(kTrader, t.trade_id));
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_EQ(ev[0].type, EventType::kTradeBusted);
  EXPECT_EQ(ev[0].trade_id, t.trade_id);
  EXPECT_EQ(ev[0].account, kTrader);         // buyer
  EXPECT_EQ(ev[0].counter_account, kProvA);  // seller
  EXPECT_EQ(ev[0].side, Side::kBuy);         // who reported
  EXPECT_EQ(ev[0].price, Cents(600));
  EXPECT_EQ(ev[0].quantity, Quantity{2});
  EXPECT_EQ(ev[0].count, kDeliveryDay);
  EXPECT_EQ(ev[0].client_order_id, ClientOrderId{5});
  ExpectRejected(d_.Apply(ReportFailure(kProvA, t.trade_id)),
                 RejectCode::kTradeAlreadyBusted);
}

TEST_F(SpotTradeTest, SellerMayReportToo) {
  const Event t = Trade();
  auto ev = d_.Apply(ReportFailure(kProvA, t.trade_id));
  ASSERT_EQ(ev[0].type, EventType::kTradeBusted);
  EXPECT_EQ(ev[0].side, Side::kSell);
}

TEST_F(SpotTradeTest, AnotherFirmsTradeIsUnknown) {
  const Event t = Trade();
  const uint64_t before = d_.engine().StateHash();
  ExpectRejected(d_.Apply(ReportFailure(kProvB, t.trade_id)),
                 RejectCode::kUnknownTrade);
  ExpectRejected(d_.Apply(ReportFailure(kTrader, TradeId{999})),
                 RejectCode::kUnknownTrade);
  EXPECT_EQ(d_.engine().StateHash(), before);
}

TEST_F(SpotTradeTest, FuturesTradesCannotBeReportedFailed) {
  d_.Apply(D::Limit(kTrader, kFut, Side::kBuy, Cents(580), 1));
  auto ev = d_.Apply(D::Limit(kProvB, kFut, Side::kSell, Cents(580), 1));
  auto trades = OfType(ev, EventType::kTrade);
  ASSERT_EQ(trades.size(), 1u);
  ExpectRejected(d_.Apply(ReportFailure(kTrader, trades[0].trade_id)),
                 RejectCode::kUnknownTrade);
}

TEST_F(SpotTradeTest, DeadlineIsNoonOfTheDeliveryDay) {
  const Event t = Trade();
  Command late = ReportFailure(kTrader, t.trade_id);
  late.ts = Timestamp{kDeliveryDay * kDay + 12 * 3600 * kSecond};
  const uint64_t before = d_.engine().StateHash();
  ExpectRejected(d_.Apply(late), RejectCode::kFailureDeadlinePassed);
  EXPECT_EQ(d_.engine().StateHash(), before);
}

TEST_F(SpotTradeTest, OneNanosecondBeforeNoonStillBusts) {
  const Event t = Trade();
  Command in_time = ReportFailure(kTrader, t.trade_id);
  in_time.ts = Timestamp{kDeliveryDay * kDay + 12 * 3600 * kSecond - 1};
  EligibilityTest::ExpectOne(d_.Apply(in_time), EventType::kTradeBusted);
}

TEST_F(SpotTradeTest, ABustSurvivesASnapshotAndTheTradeLeavesWithItsSlot) {
  const Event t = Trade();
  d_.Apply(ReportFailure(kTrader, t.trade_id));
  D restarted(Config());
  ASSERT_TRUE(restarted.engine().LoadSnapshot(d_.engine().SaveSnapshot()).ok());
  EXPECT_EQ(restarted.engine().StateHash(), d_.engine().StateHash());
  Command again = ReportFailure(kProvA, t.trade_id);
  again.seq = Seq{d_.next_seq()};
  again.ts = Timestamp{d_.time().nanos + kSecond};
  ExpectRejected(restarted.Apply(again), RejectCode::kTradeAlreadyBusted);
  // Delivered and listed again eight days later: the trade is gone.
  Command expire = D::SetState(kStdSlot, InstrumentState::kExpired);
  expire.seq = Seq{again.seq.value + 1};
  expire.ts = Timestamp{(kDeliveryDay + 1) * kDay};
  restarted.Apply(expire);
  Command relist = List(kStdSlot, kDeliveryDay + 8);
  relist.seq = Seq{expire.seq.value + 1};
  relist.ts = expire.ts;
  EligibilityTest::ExpectOne(restarted.Apply(relist),
                             EventType::kInstrumentListed);
  Command gone = ReportFailure(kTrader, t.trade_id);
  gone.seq = Seq{relist.seq.value + 1};
  gone.ts = relist.ts;
  ExpectRejected(restarted.Apply(gone), RejectCode::kUnknownTrade);
}

}  // namespace
}  // namespace cfx::exchange
