// Margin calls end to end (DESIGN.md §5, docs/settlement.md "Margin
// calls"), on the simulated clock from 2026-12-01T00:00:00Z: FIRM-A opens
// with $1,500 of collateral and buys 2 XB2SZ6 at $5.80; the day settles at
// $5.25, so FIRM-A pays $803.00 of variation margin and its $697.00 no
// longer cover its initial margin of $1,149.75: a margin call of $452.75.
// Until it is met the account may only reduce risk; a deposit meets it.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;

constexpr int64_t kNanosPerDay = int64_t{86'400} * 1'000'000'000;
constexpr int64_t kMinuteNs = int64_t{60} * 1'000'000'000;
constexpr int64_t kDec1 = 20'788;  // 2026-12-01

ServerConfig ShortOfCollateral() {
  ServerConfig c = DemoConfig();
  const exchange::AccountId id = c.FindAccount("FIRM-A")->id;
  for (AccountInfo& a : c.accounts) {
    if (a.id == id) a.collateral.micros = 1'500'000'000;  // $1,500
  }
  for (exchange::AccountConfig& a : c.engine.accounts) {
    if (a.id == id) a.collateral.micros = 1'500'000'000;
  }
  return c;
}

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogon(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

std::optional<w::MarginCallList> Calls(client::Client& c,
                                       const std::string& account = "") {
  static uint64_t id = 2000;
  w::Envelope e;
  w::MarginCallQuery* q = e.mutable_margin_call_query();
  q->set_request_id(++id);
  q->set_account(account);
  if (!c.Send(e).ok()) return std::nullopt;
  const uint64_t want = id;
  auto m = c.ReceiveUntil(
      [want](const w::Envelope& x) {
        return (x.has_margin_call_list() &&
                x.margin_call_list().request_id() == want) ||
               x.has_reference_ack();
      },
      kWait);
  if (!m.has_value() || !m.value().has_margin_call_list()) {
    ADD_FAILURE() << (m.has_value() ? Describe(m.value())
                                    : m.error().ToString());
    return std::nullopt;
  }
  return m.value().margin_call_list();
}

TEST(MarginCall, AnAccountUnderCallMayOnlyReduceRiskUntilADepositMeetsIt) {
  TestServer server(ShortOfCollateral());
  ASSERT_TRUE(server.Start().ok());
  ClientPtr admin = MustLogOn(server.port(), "admin");
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ClientPtr b = MustLogOn(server.port(), "trader-b");
  ClientPtr c = MustLogOn(server.port(), "trader-c");
  ClientPtr cm1 = MustLogOn(server.port(), "clear-1");
  ClientPtr cm2 = MustLogOn(server.port(), "clear-2");
  ASSERT_TRUE(admin && a && b && c && cm1 && cm2);

  // 10:00: FIRM-A buys 2 at $5.80 from FIRM-C (IM $1,270.20 <= $1,500).
  ASSERT_TRUE(
      SetClock(*admin, kDec1 * kNanosPerDay + 10 * 60 * kMinuteNs).ok());
  auto sell = SendOrder(*c, NewOrder(1, w::SIDE_SELL, 58'000, 2));
  ASSERT_TRUE(sell.has_value());
  ASSERT_EQ(sell.value().exec_type(), w::EXEC_TYPE_NEW);
  auto buy = SendOrder(*a, NewOrder(1, w::SIDE_BUY, 58'000, 2));
  ASSERT_TRUE(buy.has_value());
  ASSERT_EQ(buy.value().exec_type(), w::EXEC_TYPE_NEW)
      << buy.value().ShortDebugString();
  // 20:50, in the DSP window: FIRM-B buys 1 at $5.25 from FIRM-C.
  ASSERT_TRUE(
      SetClock(*admin, kDec1 * kNanosPerDay + (20 * 60 + 50) * kMinuteNs).ok());
  ASSERT_TRUE(SendOrder(*c, NewOrder(2, w::SIDE_SELL, 52'500, 1)).has_value());
  ASSERT_TRUE(SendOrder(*b, NewOrder(1, w::SIDE_BUY, 52'500, 1)).has_value());
  // 21:00: the day settles at $5.25.
  ASSERT_TRUE(
      SetClock(*admin, kDec1 * kNanosPerDay + 21 * 60 * kMinuteNs + 1).ok());
  ASSERT_TRUE(AwaitSettlementStatus(*cm1, [](const w::SettlementStatus& s) {
                return s.latest_date() == "2026-12-01";
              }).has_value());

  auto calls = Calls(*cm1);
  ASSERT_TRUE(calls.has_value());
  EXPECT_EQ(calls->date(), "2026-12-01");
  ASSERT_EQ(calls->calls_size(), 1) << calls->ShortDebugString();
  const w::MarginCall& call = calls->calls(0);
  EXPECT_EQ(call.account(), "FIRM-A");
  EXPECT_EQ(call.clearing_member(), "CM-1");
  EXPECT_EQ(call.initial_margin(), "1149.750000");
  EXPECT_EQ(call.collateral(), "697.000000");
  EXPECT_EQ(call.amount_due(), "452.750000");
  EXPECT_EQ(call.outstanding(), "452.750000");
  EXPECT_FALSE(call.met());
  // CM-2 sees no call of CM-1's account: the same answer as for an account
  // that does not exist.
  auto other = Calls(*cm2, "FIRM-A");
  auto missing = Calls(*cm2, "NO-SUCH");
  ASSERT_TRUE(other.has_value() && missing.has_value());
  EXPECT_EQ(other->calls_size(), 0);
  EXPECT_EQ(other->calls_size(), missing->calls_size());
  EXPECT_EQ(other->date(), missing->date());
  EXPECT_EQ(Calls(*cm2)->calls_size(), 0);

  // Under the call, adding risk is refused and reducing it passes.
  auto more = SendOrder(*a, NewOrder(2, w::SIDE_BUY, 52'500, 1));
  ASSERT_TRUE(more.has_value());
  EXPECT_EQ(more.value().exec_type(), w::EXEC_TYPE_REJECTED);
  EXPECT_EQ(more.value().reject_reason(), w::REJECT_REASON_INSUFFICIENT_MARGIN)
      << more.value().ShortDebugString();
  auto less = SendOrder(*a, NewOrder(3, w::SIDE_SELL, 55'000, 1));
  ASSERT_TRUE(less.has_value());
  EXPECT_EQ(less.value().exec_type(), w::EXEC_TYPE_NEW)
      << less.value().ShortDebugString();

  // CM-1 deposits $500: the call shows MET at the next query.
  w::Envelope deposit;
  w::CollateralRequest* d = deposit.mutable_collateral_request();
  d->set_request_id(7);
  d->set_account("FIRM-A");
  d->set_action(w::COLLATERAL_ACTION_DEPOSIT);
  d->set_amount("500");
  ASSERT_TRUE(cm1->Send(deposit).ok());
  auto ack = cm1->ReceiveUntil(
      [](const w::Envelope& x) { return x.has_collateral_ack(); }, kWait);
  ASSERT_TRUE(ack.has_value());
  ASSERT_TRUE(ack.value().collateral_ack().accepted()) << Describe(ack.value());
  EXPECT_EQ(ack.value().collateral_ack().collateral_after(), "1197.000000");
  calls = Calls(*cm1);
  ASSERT_TRUE(calls.has_value());
  ASSERT_EQ(calls->calls_size(), 1);
  EXPECT_TRUE(calls->calls(0).met());
  EXPECT_EQ(calls->calls(0).collateral_now(), "1197.000000");
  EXPECT_EQ(calls->calls(0).outstanding(), "0.000000");
  EXPECT_EQ(calls->calls(0).amount_due(), "452.750000");
  ASSERT_TRUE(server.Stop().ok());
}

}  // namespace
}  // namespace cfx::gateway::server_test
