// `cfx demo` (gateway/tools/cli/demo.h) in process against an in-process
// ExchangeServer on the simulated clock and ephemeral loopback ports: three
// business days must fix the B200-STD index at Level 1a, trader-a's FIX
// trades must show as its futures positions in settlement, and each
// clearing member's summary must list its own accounts only.

#include "gateway/tools/cli/demo.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gateway/tools/cli/commands.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::cli {
namespace {

namespace w = cfx::wire::v1;
using server_test::kWait;
using server_test::TestServer;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The text from the line starting with `title` to the next line starting
// with `next` (or the end).
std::string Section(const std::string& text, const std::string& title,
                    const std::string& next) {
  const std::size_t at = text.find("\n" + title);
  if (at == std::string::npos) return std::string();
  const std::size_t end =
      next.empty() ? std::string::npos : text.find("\n" + next, at + 1);
  return text.substr(
      at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

// The latest settlement report of a clearing member, asked independently
// of the demo.
w::SettlementReport LatestReport(uint16_t port, const std::string& user) {
  auto c = server_test::LogOn(port, server_test::DemoLogon(user));
  EXPECT_TRUE(c.has_value()) << c.error().ToString();
  if (!c.has_value()) return {};
  w::Envelope e;
  e.mutable_settlement_query()->set_request_id(7);
  EXPECT_TRUE(c.value()->Send(e).ok());
  w::SettlementReport report;
  for (;;) {
    auto r = c.value()->ReceiveUntil(
        [](const w::Envelope& m) {
          return m.has_settlement_report() || m.has_reference_ack() ||
                 m.has_session_reject();
        },
        kWait);
    EXPECT_TRUE(r.has_value() && r.value().has_settlement_report())
        << (r.has_value() ? r.value().ShortDebugString()
                          : r.error().ToString());
    if (!r.has_value() || !r.value().has_settlement_report()) return report;
    report.set_date(r.value().settlement_report().date());
    for (const auto& a : r.value().settlement_report().accounts()) {
      *report.add_accounts() = a;
    }
    if (!r.value().settlement_report().more()) return report;
  }
}

std::map<std::string, int64_t> Positions(const w::SettlementReport& r,
                                         const std::string& account) {
  std::map<std::string, int64_t> out;
  for (const w::AccountSettlement& a : r.accounts()) {
    if (a.account() != account) continue;
    for (const w::PositionLine& p : a.positions()) {
      out[p.symbol()] = p.position();
    }
  }
  return out;
}

TEST(Demo, ThreeDaysFixAtLevelOneATradeOverFixAndSettlePerMember) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  DemoOptions o;
  o.port = server.port();
  o.fix_port = server.fix_port();
  o.days = 3;
  o.progress = DemoProgress::kNone;
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(RunDemo(o, out, err), kExitOk) << err.str() << "\n" << out.str();
  const std::string text = out.str();
  EXPECT_EQ(err.str(), "");  // --quiet

  // The index history: each of the three days fixed at Level 1a.
  const std::string history =
      Section(text, "CFX-B200-STD index history", "trading:");
  std::map<std::string, std::string> levels;
  for (const std::string& line : Lines(history)) {
    const std::vector<std::string> f = Words(line);
    if (f.size() >= 3 && f[0].rfind("2026-12-", 0) == 0) levels[f[0]] = f[2];
  }
  const std::map<std::string, std::string> want = {
      {"2026-12-01", "1a"}, {"2026-12-02", "1a"}, {"2026-12-03", "1a"}};
  EXPECT_EQ(levels, want) << text;

  // trader-a's futures came over FIX only: its settled positions are what
  // the demo counted from its FIX fills, and FIRM-C holds the other side.
  const w::SettlementReport cm1 = LatestReport(server.port(), "clear-1");
  const w::SettlementReport cm2 = LatestReport(server.port(), "clear-2");
  EXPECT_EQ(cm1.date(), "2026-12-03");
  const auto firm_a = Positions(cm1, "FIRM-A");
  const auto firm_c = Positions(cm2, "FIRM-C");
  ASSERT_EQ(firm_a.size(), 2u) << text;
  for (const auto& [symbol, position] : firm_a) {
    EXPECT_NE(position, 0) << symbol;
    EXPECT_EQ(firm_c.at(symbol), -position) << symbol;
    EXPECT_NE(text.find(symbol + " " + (position > 0 ? "+" : "") +
                        std::to_string(position) + " "),
              std::string::npos)
        << symbol << " " << position << "\n"
        << text;
  }
  EXPECT_NE(text.find("trader-a over FIX: "), std::string::npos) << text;
  EXPECT_EQ(text.find("trader-a over FIX: 0 fills"), std::string::npos);
  EXPECT_NE(text.find("final settlement XB2SZ6 (last trading day 2026-12-31): "
                      "not yet"),
            std::string::npos)
      << text;

  // Each member's summary lists its own accounts and no other.
  const std::string s1 =
      Section(text, "clearing member CM-1", "clearing member CM-2");
  const std::string s2 = Section(text, "clearing member CM-2", "");
  ASSERT_FALSE(s1.empty()) << text;
  ASSERT_FALSE(s2.empty()) << text;
  EXPECT_NE(s1.find("settlement 2026-12-03"), std::string::npos) << s1;
  EXPECT_NE(s2.find("settlement 2026-12-03"), std::string::npos) << s2;
  for (const char* mine : {"FIRM-A", "FIRM-B", "PROV-C"}) {
    EXPECT_NE(s1.find(mine), std::string::npos) << mine << "\n" << s1;
    EXPECT_EQ(s2.find(mine), std::string::npos) << mine << "\n" << s2;
  }
  for (const char* theirs : {"FIRM-C", "PROV-A", "PROV-B"}) {
    EXPECT_NE(s2.find(theirs), std::string::npos) << theirs << "\n" << s2;
    EXPECT_EQ(s1.find(theirs), std::string::npos) << theirs << "\n" << s1;
  }
}

// The demo's business days are the exchange's: with the demo config,
// Christmas (Friday 2026-12-25) is skipped like the weekend after it.
TEST(Demo, FollowsTheExchangeCalendarOverChristmas) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  // 2026-12-23T00:00:00Z.
  auto clock = server_test::AdminClock(server.port(),
                                       int64_t{1'797'984'000} * 1'000'000'000);
  ASSERT_TRUE(clock.has_value()) << clock.error().ToString();
  DemoOptions o;
  o.port = server.port();
  o.fix_port = server.fix_port();
  o.days = 3;
  o.progress = DemoProgress::kLines;
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(RunDemo(o, out, err), kExitOk) << err.str() << "\n" << out.str();
  std::vector<std::string> days;
  for (const std::string& line : Lines(err.str())) {
    const std::vector<std::string> f = Words(line);
    if (f.size() >= 5 && f[2] == "day") days.push_back(f[4].substr(0, 10));
  }
  EXPECT_EQ(days, (std::vector<std::string>{"2026-12-23", "2026-12-24",
                                            "2026-12-28"}))
      << err.str();
  EXPECT_EQ(LatestReport(server.port(), "clear-1").date(), "2026-12-28");
}

TEST(Demo, RefusesAServerOnTheWallClock) {
  cfx::testing::TempDir dir;
  ServerOptions options;
  options.data_dir = dir.Sub("data");
  options.simulated_clock = false;
  options.protobuf_port = 0;
  options.fix_port = 0;
  options.http_port = 0;
  auto server = ExchangeServer::Start(server_test::DemoConfig(), options);
  ASSERT_TRUE(server.has_value()) << server.error().ToString();
  DemoOptions o;
  o.port = server.value()->protobuf_port();
  o.fix_port = server.value()->fix_port();
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunDemo(o, out, err), kExitRejected);
  EXPECT_EQ(err.str(),
            "cfx: cfx demo needs a server started with --clock=simulated\n");
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(server.value()->Stop().ok());
}

}  // namespace
}  // namespace cfx::gateway::cli
