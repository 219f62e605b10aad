// Grade eligibility end to end over the protobuf gateway (DESIGN.md §3,
// docs/attestations.md): the admin registers an attester key, providers
// submit signed attestations, the rating agency rates them, and what each may
// sell in spot follows; downgrades and expiries cancel resting sells, also
// across a restart; spot trades are busted by either side. On the simulated
// clock from 2026-12-01T00:00:00Z, where the server lists spot days from
// 2026-12-02.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/tools/attest/measurement_json.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/server/graded_market.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/attestation_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using ReferenceDeskTest = GradedMarketTest;

TEST_F(ReferenceDeskTest, RatingAndAttestedSpeedDecideWhichGradesMaySell) {
  // Gold at 300 tokens/s: both grades.
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  Attest(*prov_a_, "PROV-A", 2, 300);
  ExpectSellAccepted(*prov_a_, kPrm);
  ExpectSellAccepted(*prov_a_, kStdLater);
  // Bronze at 210: standard only, premium names the rating.
  ASSERT_TRUE(Rate("PROV-B", w::RATING_TIER_BRONZE, "b1").accepted());
  Attest(*prov_b_, "PROV-B", 1, 210);
  ExpectSellAccepted(*prov_b_, kStd);
  ExpectNotEligible(*prov_b_, kPrm, "RATING_BELOW_TIER");
  // Underperform: neither.
  ASSERT_TRUE(Rate("PROV-C", w::RATING_TIER_UNDERPERFORM, "c1").accepted());
  Attest(*prov_c_, "PROV-C", 2, 300);
  ExpectNotEligible(*prov_c_, kStd, "RATING_BELOW_TIER");
  ExpectNotEligible(*prov_c_, kPrm, "RATING_BELOW_TIER");

  // The providers see their standing.
  const w::AttestationList b = List(*prov_b_);
  ASSERT_EQ(b.standing_size(), 2);
  EXPECT_TRUE(b.standing(0).eligible());
  EXPECT_EQ(b.standing(0).attested_nodes(), 1u);
  EXPECT_FALSE(b.standing(1).eligible());
  EXPECT_EQ(b.standing(1).missing(), "RATING_BELOW_TIER");
}

TEST_F(ReferenceDeskTest, UnratedOrUnattestedProvidersCannotSell) {
  ExpectNotEligible(*prov_a_, kStd, "NO_RATING");
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  ExpectNotEligible(*prov_a_, kStd, "NO_ATTESTATION");
}

TEST_F(ReferenceDeskTest, CapacityBeyondTheAttestedNodesIsRejected) {
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  Attest(*prov_a_, "PROV-A", 1, 300);
  ExpectNotEligible(*prov_a_, kStd, "CAPACITY_EXCEEDED", 2);
  ExpectSellAccepted(*prov_a_, kStd, 1);
  ExpectNotEligible(*prov_a_, kPrm, "CAPACITY_EXCEEDED", 1);
}

TEST_F(ReferenceDeskTest, BadAttestationsGetTheirReasonAndAreStoredNowhere) {
  const exchange::Attestation good = Measurement("PROV-A", "n1", 300, kDay);
  struct Case {
    std::string name;
    std::string json;
    w::RejectReason reason;
  };
  std::vector<Case> cases;
  {  // Forged: the signature of another measurement.
    exchange::Attestation other = good;
    other.output_milli_tokens_per_s_per_gpu = 400'000;
    auto forged_sig = crypto::Sign(key_.private_key,
                                   exchange::EncodeCanonicalAttestation(other));
    ASSERT_TRUE(forged_sig.has_value());
    cases.push_back({"forged signature",
                     attest::SignedAttestationJson(good, forged_sig.value()),
                     w::REJECT_REASON_BAD_SIGNATURE});
  }
  {  // Signed by a key the exchange does not know.
    auto other = crypto::GenerateKeyPair();
    ASSERT_TRUE(other.has_value());
    exchange::Attestation a = good;
    a.attester_key_id = attest::AttesterKeyId(other.value().public_key);
    auto s = attest::SignAttestationJson(a, other.value().private_key);
    ASSERT_TRUE(s.has_value());
    cases.push_back(
        {"unknown key", s.value(), w::REJECT_REASON_UNKNOWN_ATTESTER_KEY});
  }
  cases.push_back({"stale", Signed(Measurement("PROV-A", "n1", 300, 31 * kDay)),
                   w::REJECT_REASON_ATTESTATION_STALE});
  {
    exchange::Attestation a = good;
    a.gpu_model = "NVIDIA H100";
    cases.push_back(
        {"wrong GPU model", Signed(a), w::REJECT_REASON_WRONG_GPU_MODEL});
  }
  cases.push_back({"malformed JSON", "{\"measurement\": {",
                   w::REJECT_REASON_MALFORMED_REFERENCE_DATA});
  cases.push_back({"another provider's",
                   Signed(Measurement("PROV-B", "n1", 300, kDay)),
                   w::REJECT_REASON_PROVIDER_MISMATCH});
  for (const Case& c : cases) {
    const w::ReferenceAck ack = Submit(*prov_a_, c.json);
    EXPECT_FALSE(ack.accepted()) << c.name;
    EXPECT_EQ(ack.reason(), c.reason)
        << c.name << ": " << w::RejectReason_Name(ack.reason()) << " "
        << ack.text();
  }
  // A replayed nonce: the second submission of the same measurement.
  const std::string once = Signed(good);
  ASSERT_TRUE(Submit(*prov_a_, once).accepted());
  exchange::Attestation again = good;
  again.attestation_id = "another-id";
  const w::ReferenceAck replay = Submit(*prov_a_, Signed(again));
  EXPECT_EQ(replay.reason(), w::REJECT_REASON_NONCE_REUSED) << replay.text();
  // A revoked key.
  w::Envelope revoke;
  revoke.mutable_attester_key_revoke()->set_key_id(key_id_);
  ASSERT_TRUE(Ask(*admin_, revoke).accepted());
  const w::ReferenceAck revoked =
      Submit(*prov_a_, Signed(Measurement("PROV-A", "n2", 300, kDay)));
  EXPECT_EQ(revoked.reason(), w::REJECT_REASON_ATTESTER_KEY_REVOKED);

  // Only the one good attestation is stored.
  const w::AttestationList list = List(*prov_a_);
  ASSERT_EQ(list.attestations_size(), 1);
  EXPECT_EQ(list.attestations(0).attestation_id(), good.attestation_id);
  EXPECT_EQ(list.attestations(0).output_tokens_per_s_per_gpu(), "300.000");
}

TEST_F(ReferenceDeskTest, OnlyTheirRolesMayRateRegisterOrAttest) {
  w::Envelope rate;
  rate.mutable_rating_set()->set_operator_firm("PROV-A");
  rate.mutable_rating_set()->set_tier(w::RATING_TIER_GOLD);
  rate.mutable_rating_set()->set_expires_ns(kStart + kDay);
  rate.mutable_rating_set()->set_reference("self");
  EXPECT_EQ(Ask(*prov_a_, rate).reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  w::Envelope reg;
  reg.mutable_attester_key_register()->set_public_key(std::string(32, 'k'));
  reg.mutable_attester_key_register()->set_attester("X");
  EXPECT_EQ(Ask(*rater_, reg).reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  EXPECT_EQ(
      Submit(*trader_, Signed(Measurement("PROV-A", "n", 300, kDay))).reason(),
      w::REJECT_REASON_NOT_AUTHORIZED);
}

TEST_F(ReferenceDeskTest, AProviderSeesOnlyItsOwnAttestationsAndRatings) {
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  Attest(*prov_a_, "PROV-A", 1, 300);
  EXPECT_EQ(List(*prov_a_).attestations_size(), 1);
  EXPECT_EQ(List(*prov_b_).attestations_size(), 0);
  w::Envelope q;
  q.mutable_rating_query()->set_operator_firm("PROV-A");
  ASSERT_TRUE(prov_b_->Send(q).ok());
  auto r = prov_b_->ReceiveUntil(
      [](const w::Envelope& m) { return m.has_rating_report(); }, kWait);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r.value().rating_report().ratings_size(), 0);
  EXPECT_EQ(r.value().rating_report().standing_size(), 0);
  ASSERT_TRUE(prov_a_->Send(q).ok());
  r = prov_a_->ReceiveUntil(
      [](const w::Envelope& m) { return m.has_rating_report(); }, kWait);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r.value().rating_report().ratings_size(), 1);
  EXPECT_TRUE(r.value().rating_report().ratings(0).in_force());
}

// The downgrade comes before a restart, the expiry after it: each cancels
// exactly the resting sells it affects.
TEST_F(ReferenceDeskTest,
       DowngradeAndExpiryCancelTheAffectedSellsAcrossARestart) {
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  ASSERT_TRUE(Rate("PROV-B", w::RATING_TIER_GOLD, "b1").accepted());
  // Measured 6.5 days before the start: premium (7 days) until 12:00.
  Attest(*prov_a_, "PROV-A", 2, 300, /*age=*/6 * kDay + kDay / 2);
  Attest(*prov_b_, "PROV-B", 1, 300);
  auto a_prm = Sell(*prov_a_, kPrm, 1);
  auto a_std = Sell(*prov_a_, kStdLater, 1);
  auto b_prm = Sell(*prov_b_, kPrm, 1);
  ASSERT_TRUE(a_prm.has_value() && a_std.has_value() && b_prm.has_value());
  ASSERT_EQ(b_prm.value().exec_type(), w::EXEC_TYPE_NEW);

  // PROV-B downgraded to Silver: its premium sell goes, nothing else.
  w::Envelope down;
  w::RatingSet* r = down.mutable_rating_set();
  r->set_operator_firm("PROV-B");
  r->set_tier(w::RATING_TIER_SILVER);
  r->set_expires_ns(kStart + 365 * kDay);  // effective now: the latest wins
  r->set_reference("b2");
  ASSERT_TRUE(Ask(*rater_, down).accepted());
  auto cancelled = AwaitReport(*prov_b_, [](const w::ExecutionReport& x) {
    return x.exec_type() == w::EXEC_TYPE_CANCELED;
  });
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled.value().order_id(), b_prm.value().order_id());
  EXPECT_EQ(cancelled.value().cancel_reason(),
            w::CANCEL_REASON_GRADE_ELIGIBILITY_LOST);

  // Restart; then at 12:00 PROV-A's attestations are too old for the
  // premium grade (7 days), not for the standard one (30). (The spot days
  // themselves are listed until 00:00 of 2 December.)
  admin_.reset();
  rater_.reset();
  prov_a_.reset();
  prov_b_.reset();
  prov_c_.reset();
  trader_.reset();
  ASSERT_TRUE(server_.Stop().ok());
  ASSERT_TRUE(server_.Start().ok());
  LogOnAll();
  auto status = QueryStatus(*prov_a_, a_prm.value().order_id());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status.value().order_status(), w::ORDER_STATUS_NEW);
  w::Envelope clock;
  clock.mutable_clock_request()->set_advance_ns(kDay / 2);
  ASSERT_TRUE(admin_->Send(clock).ok());
  cancelled = AwaitReport(*prov_a_, [](const w::ExecutionReport& x) {
    return x.exec_type() == w::EXEC_TYPE_CANCELED;
  });
  ASSERT_TRUE(cancelled.has_value());
  EXPECT_EQ(cancelled.value().order_id(), a_prm.value().order_id());
  EXPECT_EQ(cancelled.value().cancel_reason(),
            w::CANCEL_REASON_GRADE_ELIGIBILITY_LOST);
  status = QueryStatus(*prov_a_, a_std.value().order_id());
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status.value().order_status(), w::ORDER_STATUS_NEW);
}

TEST_F(ReferenceDeskTest,
       EitherSideBustsASpotTradeAndBothSidesAndTheirMembersHear) {
  ClientPtr clear1 = MustLogOn(server_.port(), "clear-1");
  ClientPtr clear2 = MustLogOn(server_.port(), "clear-2");
  ClientPtr trader_b = MustLogOn(server_.port(), "trader-b");
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  Attest(*prov_a_, "PROV-A", 2, 300);
  ExpectSellAccepted(*prov_a_, kStd, 2);
  auto buy = SendOrder(
      *trader_, NewOrder(++next_order_, w::SIDE_BUY, kSpotPrice, 2, kStd));
  ASSERT_TRUE(buy.has_value());
  auto fill = AwaitReport(*trader_, [](const w::ExecutionReport& x) {
    return x.exec_type() == w::EXEC_TYPE_TRADE;
  });
  ASSERT_TRUE(fill.has_value());
  const uint64_t trade_id = fill.value().trade_id();
  ASSERT_NE(trade_id, 0u);

  w::Envelope report;
  report.mutable_spot_failure_report()->set_trade_id(trade_id);
  // Another firm cannot: the trade is not its own.
  EXPECT_EQ(Ask(*trader_b, report).reason(), w::REJECT_REASON_UNKNOWN_TRADE);
  const w::ReferenceAck ack = Ask(*trader_, report);
  ASSERT_TRUE(ack.accepted()) << ack.text();
  EXPECT_EQ(ack.trade_id(), trade_id);

  auto bust_of = [](client::Client& c) -> std::optional<w::TradeBust> {
    auto m = c.ReceiveUntil(
        [](const w::Envelope& e) { return e.has_trade_bust(); }, kWait);
    if (!m.has_value()) return std::nullopt;
    return m.value().trade_bust();
  };
  auto seller = bust_of(*prov_a_);
  ASSERT_TRUE(seller.has_value());
  EXPECT_EQ(seller->trade_id(), trade_id);
  EXPECT_EQ(seller->symbol(), kStd);
  EXPECT_EQ(seller->delivery_date(), "2026-12-02");
  EXPECT_EQ(seller->seller_account(), "PROV-A");
  EXPECT_EQ(seller->buyer_account(), "");  // not the other side's account
  EXPECT_EQ(seller->reported_by(), w::SIDE_BUY);
  // The buyer already read its ack; its bust follows.
  bool buyer_heard = false;
  for (const w::Envelope& e : others_) buyer_heard |= e.has_trade_bust();
  if (!buyer_heard) buyer_heard = bust_of(*trader_).has_value();
  EXPECT_TRUE(buyer_heard);
  // trader-a clears through CM-1, PROV-A through CM-2.
  auto cm1 = bust_of(*clear1);
  ASSERT_TRUE(cm1.has_value());
  EXPECT_EQ(cm1->buyer_account(), "FIRM-A");
  EXPECT_EQ(cm1->seller_account(), "");
  auto cm2 = bust_of(*clear2);
  ASSERT_TRUE(cm2.has_value());
  EXPECT_EQ(cm2->seller_account(), "PROV-A");
  EXPECT_EQ(cm2->buyer_account(), "");

  EXPECT_EQ(Ask(*prov_a_, report).reason(),
            w::REJECT_REASON_TRADE_ALREADY_BUSTED);
}

// A provider lists capacity over FIX (a NewOrderSingle on a spot symbol);
// the bust reaches it and its clearing member's drop copy over FIX as a
// trade cancel (ExecType H).
TEST_F(ReferenceDeskTest, ProviderListsOverFixAndHearsTheBustOverFix) {
  using fix_test::FixMessage;
  using fix_test::FixTestClient;
  constexpr Millis kFixWait{5'000};
  cfx::testing::TempDir dir;
  auto fix_client = [&](const std::string& comp_id, const std::string& user) {
    fix_test::FixClientOptions o;
    o.sender_comp_id = comp_id;
    o.port = server_.fix_port();
    o.username = user;
    o.password = "demo-" + user;
    o.store_dir = dir.Sub(comp_id);
    std::error_code ec;
    std::filesystem::create_directories(o.store_dir, ec);
    auto c = std::make_unique<FixTestClient>(o);
    std::string error;
    EXPECT_TRUE(c->Start(&error)) << error;
    EXPECT_TRUE(c->WaitLoggedOn(kFixWait)) << comp_id;
    return c;
  };
  auto provider = fix_client("PROVIDER_A", "provider-a");
  auto clearing = fix_client("CLEAR_2", "clear-2");
  ASSERT_TRUE(Rate("PROV-A", w::RATING_TIER_GOLD, "a1").accepted());
  Attest(*prov_a_, "PROV-A", 1, 300);

  auto sell = [&](const std::string& id, const std::string& symbol) {
    EXPECT_TRUE(provider->Send("D", {{11, id},
                                     {55, symbol},
                                     {54, "2"},
                                     {38, "1"},
                                     {40, "2"},
                                     {44, "6.00"},
                                     {59, "1"},
                                     {60, fix_test::FixUtcNow()}}));
    FixMessage m;
    EXPECT_TRUE(provider->Await(
        [id](const FixMessage& x) { return x.type == "8" && x.Get(11) == id; },
        kFixWait, &m))
        << provider->Describe();
    return m;
  };
  // Premium needs more than the one node already sold in standard below;
  // first the standard sell rests.
  FixMessage ack = sell("S1", kStd);
  ASSERT_EQ(ack.Get(150), "0") << ack.ToString();
  ack = sell("S2", kPrm);
  EXPECT_EQ(ack.Get(150), "8");
  EXPECT_NE(ack.Get(58).find("GRADE_NOT_ELIGIBLE: CAPACITY_EXCEEDED"),
            std::string::npos)
      << ack.ToString();

  auto buy = SendOrder(
      *trader_, NewOrder(++next_order_, w::SIDE_BUY, kSpotPrice, 1, kStd));
  ASSERT_TRUE(buy.has_value());
  auto fill = AwaitReport(*trader_, [](const w::ExecutionReport& x) {
    return x.exec_type() == w::EXEC_TYPE_TRADE;
  });
  ASSERT_TRUE(fill.has_value());
  w::Envelope report;
  report.mutable_spot_failure_report()->set_trade_id(fill.value().trade_id());
  ASSERT_TRUE(Ask(*prov_a_, report).accepted());

  const std::string trade_id = std::to_string(fill.value().trade_id());
  auto is_bust = [trade_id](const FixMessage& m) {
    return m.type == "8" && m.Get(150) == "H" && m.Get(880) == trade_id;
  };
  FixMessage bust;
  ASSERT_TRUE(provider->Await(is_bust, kFixWait, &bust))
      << provider->Describe();
  EXPECT_EQ(bust.Get(11), "S1");
  EXPECT_EQ(bust.Get(55), kStd);
  EXPECT_EQ(bust.Get(32), "1");
  EXPECT_NE(bust.Get(58).find("reported by the seller"), std::string::npos);
  FixMessage copy;
  ASSERT_TRUE(clearing->Await(is_bust, kFixWait, &copy))
      << clearing->Describe();
  EXPECT_EQ(copy.Get(797), "Y");
  EXPECT_EQ(copy.Get(1), "PROV-A");
  provider->Logout(kFixWait);
  clearing->Logout(kFixWait);
}

}  // namespace
}  // namespace cfx::gateway::server_test
