// Operator recovery end to end (docs/settlement.md, "Operator recovery"),
// on the simulated clock from 2026-12-01T00:00:00Z. FIRM-B's clearing
// member is misconfigured ("CM-9", which does not exist), so the ledger
// refuses its variation margin of Dec 1 (an account it does not know) and
// the run of Dec 1 is refused; Dec 2 waits behind it. The operator fixes the
// config, restarts, and the admin re-runs Dec 1: both dates settle, Dec 3
// settles at its fixing, and another restart reproduces it all from the
// journal.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gateway/server/exchange_server.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;

constexpr int64_t kNanosPerDay = int64_t{86'400} * 1'000'000'000;
constexpr int64_t kMinuteNs = int64_t{60} * 1'000'000'000;
constexpr int64_t kDec1 = 20'788;  // 2026-12-01

ServerConfig Misconfigured() {
  ServerConfig c = DemoConfig();
  for (AccountInfo& a : c.accounts) {
    if (a.name == "FIRM-B") a.clearing_member = "CM-9";
  }
  return c;
}

Result<std::unique_ptr<ExchangeServer>> StartOn(const ServerConfig& config,
                                                const std::string& dir) {
  ServerOptions options;
  options.data_dir = dir;
  options.simulated_clock = true;
  options.protobuf_port = 0;
  options.fix_port = 0;
  options.http_port = 0;
  return ExchangeServer::Start(config, options);
}

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogon(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

int64_t At(int64_t day, int64_t hour, int64_t minute) {
  return day * kNanosPerDay + (hour * 60 + minute) * kMinuteNs;
}

// `buyer` buys 1 XB2SZ6 from FIRM-C at `price` at 20:50 of `day` (in the
// settlement window), then the clock passes that day's 21:00.
void TradeAndSettle(client::Client& admin, client::Client& buyer,
                    client::Client& seller, int64_t day, int64_t price,
                    uint64_t id) {
  ASSERT_TRUE(SetClock(admin, At(day, 20, 50)).ok());
  auto sell = SendOrder(seller, NewOrder(id, w::SIDE_SELL, price, 1));
  ASSERT_TRUE(sell.has_value());
  ASSERT_EQ(sell.value().exec_type(), w::EXEC_TYPE_NEW);
  auto buy = SendOrder(buyer, NewOrder(id, w::SIDE_BUY, price, 1));
  ASSERT_TRUE(buy.has_value());
  ASSERT_EQ(buy.value().exec_type(), w::EXEC_TYPE_NEW);
  ASSERT_TRUE(SetClock(admin, At(day, 21, 0) + 1).ok());
}

w::SettlementRerunAck Rerun(client::Client& c, const std::string& date) {
  w::Envelope e;
  e.mutable_settlement_rerun_request()->set_request_id(31);
  e.mutable_settlement_rerun_request()->set_date(date);
  EXPECT_TRUE(c.Send(e).ok());
  auto ack = c.ReceiveUntil(
      [](const w::Envelope& x) { return x.has_settlement_rerun_ack(); }, kWait);
  EXPECT_TRUE(ack.has_value());
  return ack.has_value() ? ack.value().settlement_rerun_ack()
                         : w::SettlementRerunAck();
}

std::vector<std::string> Dates(const w::SettlementStatus& s) {
  return {s.settled_dates().begin(), s.settled_dates().end()};
}

TEST(SettlementRecovery, ARefusedRunIsRerunByTheAdminOnceItsCauseIsFixed) {
  cfx::testing::TempDir dir;
  const std::string data = dir.Sub("data");
  {
    auto server = StartOn(Misconfigured(), data);
    ASSERT_TRUE(server.has_value()) << server.error().ToString();
    const uint16_t port = server.value()->protobuf_port();
    ClientPtr admin = MustLogOn(port, "admin");
    ClientPtr a = MustLogOn(port, "trader-a");
    ClientPtr b = MustLogOn(port, "trader-b");
    ClientPtr c = MustLogOn(port, "trader-c");
    ClientPtr cm1 = MustLogOn(port, "clear-1");
    ASSERT_TRUE(admin && a && b && c && cm1);
    // Dec 1: FIRM-B buys 1 at $5.80 and FIRM-A 1 at $5.90 in the window:
    // the DSP is $5.85 and FIRM-B receives $36.50.
    ASSERT_TRUE(SetClock(*admin, At(kDec1, 20, 45)).ok());
    ASSERT_TRUE(
        SendOrder(*c, NewOrder(9, w::SIDE_SELL, 58'000, 1)).has_value());
    ASSERT_TRUE(SendOrder(*b, NewOrder(9, w::SIDE_BUY, 58'000, 1)).has_value());
    TradeAndSettle(*admin, *a, *c, kDec1, 59'000, 1);
    auto refused = AwaitSettlementStatus(
        *admin, [](const w::SettlementStatus& s) { return !s.ok(); });
    ASSERT_TRUE(refused.has_value()) << refused.error().ToString();
    EXPECT_NE(refused.value().error().find("unknown account"),
              std::string::npos)
        << refused.value().error();
    EXPECT_EQ(refused.value().refused_date(), "2026-12-01");
    TradeAndSettle(*admin, *a, *c, kDec1 + 1, 59'500, 2);
    auto waiting =
        AwaitSettlementStatus(*admin, [](const w::SettlementStatus& s) {
          return s.waiting_dates_size() == 2;
        });
    ASSERT_TRUE(waiting.has_value()) << waiting.error().ToString();
    EXPECT_EQ(waiting.value().waiting_dates(1), "2026-12-02");
    EXPECT_TRUE(waiting.value().settled_dates().empty());
    // Only the admin may re-run; re-running before the fix refuses again.
    const w::SettlementRerunAck member = Rerun(*cm1, "2026-12-01");
    EXPECT_FALSE(member.accepted());
    EXPECT_EQ(member.reason(), w::REJECT_REASON_NOT_AUTHORIZED);
    const w::SettlementRerunAck early = Rerun(*admin, "2026-12-01");
    EXPECT_TRUE(early.accepted()) << early.ShortDebugString();
    auto still = AwaitSettlementStatus(
        *admin, [](const w::SettlementStatus&) { return true; });
    ASSERT_TRUE(still.has_value());
    EXPECT_FALSE(still.value().ok());
    EXPECT_EQ(still.value().refused_date(), "2026-12-01");
    ASSERT_TRUE(server.value()->Stop().ok());
  }
  std::string report;
  {
    // The fix: FIRM-B clears through CM-1 again. The refusal survived the
    // restart; the admin's re-run settles both dates, and Dec 3 settles.
    auto server = StartOn(DemoConfig(), data);
    ASSERT_TRUE(server.has_value()) << server.error().ToString();
    const uint16_t port = server.value()->protobuf_port();
    ClientPtr admin = MustLogOn(port, "admin");
    ClientPtr a = MustLogOn(port, "trader-a");
    ClientPtr c = MustLogOn(port, "trader-c");
    ASSERT_TRUE(admin && a && c);
    auto before = AwaitSettlementStatus(
        *admin, [](const w::SettlementStatus&) { return true; });
    ASSERT_TRUE(before.has_value());
    EXPECT_EQ(before.value().refused_date(), "2026-12-01");
    EXPECT_EQ(Rerun(*admin, "2026-12-02").reason(),
              w::REJECT_REASON_NOTHING_TO_RERUN);
    const w::SettlementRerunAck ack = Rerun(*admin, "2026-12-01");
    EXPECT_TRUE(ack.accepted()) << ack.ShortDebugString();
    EXPECT_GT(ack.seq(), 0u);
    auto resumed = AwaitSettlementStatus(
        *admin, [](const w::SettlementStatus& s) { return s.ok(); });
    ASSERT_TRUE(resumed.has_value()) << resumed.error().ToString();
    EXPECT_EQ(Dates(resumed.value()),
              (std::vector<std::string>{"2026-12-01", "2026-12-02"}));
    EXPECT_EQ(resumed.value().refused_date(), "");
    TradeAndSettle(*admin, *a, *c, kDec1 + 2, 60'000, 3);
    auto later =
        AwaitSettlementStatus(*admin, [](const w::SettlementStatus& s) {
          return s.latest_date() == "2026-12-03";
        });
    ASSERT_TRUE(later.has_value()) << later.error().ToString();
    EXPECT_TRUE(later.value().ok());
    ASSERT_TRUE(server.value()->Stop().ok());
    report =
        settlement::ReportJson(server.value()->settlement().config(),
                               *server.value()->settlement().Report(kDec1 + 1));
    // FIRM-B's fill of Dec 1 counted: long 1.
    EXPECT_EQ(server.value()->settlement().Position(
                  DemoConfig().FindAccount("FIRM-B")->id.value,
                  DemoConfig().FindInstrument(kSymbol)->id.value),
              1);
  }
  // A restart reproduces it: nothing is stopped, the same reports.
  auto server = StartOn(DemoConfig(), data);
  ASSERT_TRUE(server.has_value()) << server.error().ToString();
  ASSERT_TRUE(server.value()->Stop().ok());
  const settlement::SettlementService& svc = server.value()->settlement();
  EXPECT_TRUE(svc.status().ok()) << svc.status().ToString();
  EXPECT_EQ(svc.SettledDates().size(), 3u);
  ASSERT_NE(svc.Report(kDec1 + 1), nullptr);
  EXPECT_EQ(settlement::ReportJson(svc.config(), *svc.Report(kDec1 + 1)),
            report);
}

}  // namespace
}  // namespace cfx::gateway::server_test
