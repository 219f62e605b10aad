#pragma once

// A graded spot market in process, for end-to-end tests of grade
// eligibility and the index: an ExchangeServer on the simulated clock from
// 2026-12-01T00:00:00Z (spot days listed from 2026-12-02), protobuf
// sessions for the admin, the rating agency, the three demo providers and
// trader-a, an attester key registered by the admin, and helpers to rate,
// attest, sell and wait for listings.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/tools/attest/measurement_json.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/attestation_fixture.h"

namespace cfx::gateway::server_test {

using ClientPtr = std::unique_ptr<client::Client>;

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kDay = 86'400 * kSecond;
// 2026-12-01T00:00:00Z, the simulated clock's start.
inline constexpr int64_t kStart = int64_t{1'796'083'200} * kSecond;
inline constexpr const char* kStd = "B200-STD-20261202";
inline constexpr const char* kPrm = "B200-PRM-20261202";
inline constexpr const char* kStdLater = "B200-STD-20261205";
inline constexpr int64_t kSpotPrice = 60'000;  // $6.00

inline ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogonOptOut(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

class GradedMarketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    LogOnAll();
    auto k = crypto::GenerateKeyPair();
    ASSERT_TRUE(k.has_value());
    key_ = k.value();
    w::AttesterKeyRegister* r = nullptr;
    w::Envelope e;
    r = e.mutable_attester_key_register();
    r->set_request_id(1);
    r->set_public_key(key_.public_key);
    r->set_attester("ATTEST");
    const w::ReferenceAck ack = Ask(*admin_, e);
    ASSERT_TRUE(ack.accepted()) << ack.text();
    key_id_ = ack.key_id();
    ASSERT_EQ(key_id_, attest::AttesterKeyId(key_.public_key));
    AwaitListed(kPrm);
  }

  void LogOnAll() {
    admin_ = MustLogOn(server_.port(), "admin");
    rater_ = MustLogOn(server_.port(), "rater");
    prov_a_ = MustLogOn(server_.port(), "provider-a");
    prov_b_ = MustLogOn(server_.port(), "provider-b");
    prov_c_ = MustLogOn(server_.port(), "provider-c");
    trader_ = MustLogOn(server_.port(), "trader-a");
  }

  // Sets the simulated clock to `t` (the admin's ClockRequest) and waits
  // for its ClockReport.
  void SetTime(int64_t t) {
    w::Envelope e;
    e.mutable_clock_request()->set_set_time_ns(t);
    ASSERT_TRUE(admin_->Send(e).ok());
    auto r = admin_->ReceiveUntil(
        [](const w::Envelope& x) { return x.has_clock_report(); }, kWait);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
  }

  // Sends `e` and returns the ReferenceAck of its request id.
  w::ReferenceAck Ask(client::Client& c, w::Envelope e) {
    uint64_t id = ++next_request_;
    switch (e.body_case()) {
      case w::Envelope::kRatingSet:
        e.mutable_rating_set()->set_request_id(id);
        break;
      case w::Envelope::kRatingRevoke:
        e.mutable_rating_revoke()->set_request_id(id);
        break;
      case w::Envelope::kAttesterKeyRegister:
        e.mutable_attester_key_register()->set_request_id(id);
        break;
      case w::Envelope::kAttesterKeyRevoke:
        e.mutable_attester_key_revoke()->set_request_id(id);
        break;
      case w::Envelope::kAttestationSubmit:
        e.mutable_attestation_submit()->set_request_id(id);
        break;
      case w::Envelope::kSpotFailureReport:
        e.mutable_spot_failure_report()->set_request_id(id);
        break;
      default:
        ADD_FAILURE() << "not a reference request";
    }
    EXPECT_TRUE(c.Send(e).ok());
    auto r = c.ReceiveUntil(
        [id](const w::Envelope& m) {
          return m.has_reference_ack() && m.reference_ack().request_id() == id;
        },
        kWait, [this](const w::Envelope& m) { others_.push_back(m); });
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() ? r.value().reference_ack() : w::ReferenceAck{};
  }

  exchange::Attestation Measurement(const std::string& firm,
                                    const std::string& node, int tokens,
                                    int64_t age) {
    return exchange::testing::TestAttestation(
        firm, node, static_cast<uint64_t>(tokens),
        exchange::Timestamp{kStart - age}, key_id_, ++serial_);
  }

  std::string Signed(const exchange::Attestation& a) {
    auto s = attest::SignAttestationJson(a, key_.private_key);
    EXPECT_TRUE(s.has_value()) << s.error().ToString();
    return s.has_value() ? s.value() : "";
  }

  w::ReferenceAck Submit(client::Client& c, const std::string& signed_json) {
    w::Envelope e;
    e.mutable_attestation_submit()->set_signed_attestation(signed_json);
    return Ask(c, e);
  }

  // `nodes` attested nodes of `firm` at `tokens` tokens/s/GPU, measured
  // `age` before the start.
  void Attest(client::Client& c, const std::string& firm, int nodes, int tokens,
              int64_t age = kDay) {
    for (int n = 0; n < nodes; ++n) {
      const w::ReferenceAck ack = Submit(
          c,
          Signed(Measurement(firm, "node-" + std::to_string(n), tokens, age)));
      ASSERT_TRUE(ack.accepted()) << ack.text();
    }
  }

  w::ReferenceAck Rate(const std::string& firm, w::RatingTier tier,
                       const std::string& reference) {
    w::Envelope e;
    w::RatingSet* r = e.mutable_rating_set();
    r->set_operator_firm(firm);
    r->set_tier(tier);
    r->set_expires_ns(kStart + 365 * kDay);
    r->set_reference(reference);
    return Ask(*rater_, e);
  }

  Result<w::ExecutionReport> Sell(client::Client& c, const char* symbol,
                                  int64_t lots) {
    return SendOrder(
        c, NewOrder(++next_order_, w::SIDE_SELL, kSpotPrice, lots, symbol),
        &others_);
  }

  void ExpectSellAccepted(client::Client& c, const char* symbol,
                          int64_t lots = 1) {
    auto r = Sell(c, symbol, lots);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_EQ(r.value().exec_type(), w::EXEC_TYPE_NEW)
        << symbol << ": " << r.value().text();
  }

  // A spot sell refused GRADE_NOT_ELIGIBLE, naming `missing`.
  void ExpectNotEligible(client::Client& c, const char* symbol,
                         std::string_view missing, int64_t lots = 1) {
    auto r = Sell(c, symbol, lots);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_EQ(r.value().exec_type(), w::EXEC_TYPE_REJECTED) << symbol;
    EXPECT_EQ(r.value().reject_reason(), w::REJECT_REASON_GRADE_NOT_ELIGIBLE);
    EXPECT_NE(r.value().text().find(missing), std::string::npos)
        << r.value().text();
  }

  void AwaitListed(const std::string& symbol) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      w::Envelope e;
      e.mutable_instrument_list_request();
      ASSERT_TRUE(trader_->Send(e).ok());
      auto r = trader_->ReceiveUntil(
          [](const w::Envelope& m) { return m.has_instrument_list(); }, kWait);
      ASSERT_TRUE(r.has_value());
      for (const w::Instrument& i : r.value().instrument_list().instruments()) {
        if (i.symbol() == symbol) return;
      }
    }
    FAIL() << symbol << " never listed";
  }

  w::AttestationList List(client::Client& c) {
    w::Envelope e;
    e.mutable_attestation_list_request()->set_request_id(++next_request_);
    EXPECT_TRUE(c.Send(e).ok());
    auto r = c.ReceiveUntil(
        [](const w::Envelope& m) { return m.has_attestation_list(); }, kWait);
    EXPECT_TRUE(r.has_value());
    return r.has_value() ? r.value().attestation_list() : w::AttestationList{};
  }

  TestServer server_;
  ClientPtr admin_, rater_, prov_a_, prov_b_, prov_c_, trader_;
  crypto::Ed25519KeyPair key_;
  std::string key_id_;
  uint64_t next_request_ = 100;
  uint64_t next_order_ = 1'000;
  int serial_ = 0;
  std::vector<w::Envelope> others_;
};

}  // namespace cfx::gateway::server_test
