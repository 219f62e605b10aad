// ExchangeServer's life cycle (gateway/server/exchange_server.h): start on
// ephemeral ports, stop, restart on the same data dir.
#include "gateway/server/exchange_server.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

TEST(ServerLifecycle, RestartRecoversTheSameStateHashAndSeq) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  // The seqs of the two orders: after the server's own commands (the spot
  // listings of its first cycle), and the last commands before the stop
  // (both users opt out of cancel on disconnect).
  uint64_t buy_seq = 0;
  uint64_t sell_seq = 0;
  {
    auto a = LogOn(server.port(), DemoLogonOptOut("trader-a"));
    auto c = LogOn(server.port(), DemoLogonOptOut("trader-c"));
    ASSERT_TRUE(a.has_value()) << a.error().ToString();
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    auto buy = SendOrder(*a.value(), NewOrder(1, w::SIDE_BUY, kPrice, 5));
    ASSERT_TRUE(buy.has_value()) << buy.error().ToString();
    auto sell = SendOrder(*c.value(), NewOrder(1, w::SIDE_SELL, kPrice, 2));
    ASSERT_TRUE(sell.has_value()) << sell.error().ToString();
    buy_seq = buy.value().seq();
    sell_seq = sell.value().seq();
  }
  EXPECT_EQ(sell_seq, buy_seq + 1);
  ASSERT_TRUE(server.Stop().ok());
  const uint64_t hash = server.state_hash();
  const uint64_t seq = server.last_seq();
  EXPECT_EQ(seq, sell_seq);

  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.server().recovery().last_seq.value, seq);
  ASSERT_TRUE(server.Stop().ok());
  EXPECT_EQ(server.state_hash(), hash);
  EXPECT_EQ(server.last_seq(), seq);
}

TEST(ServerLifecycle, StopTwiceIsHarmless) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ASSERT_TRUE(server.server().Stop().ok());
  EXPECT_TRUE(server.server().Stop().ok());
}

TEST(ServerLifecycle, PortInUseFailsStartWithUnavailable) {
  TestServer first;
  ASSERT_TRUE(first.Start().ok());
  cfx::testing::TempDir dir;
  ServerOptions options;
  options.data_dir = dir.Sub("data");
  options.simulated_clock = true;
  options.protobuf_port = first.port();
  options.http_port = 0;
  options.fix_port = 0;
  auto second = ExchangeServer::Start(DemoConfig(), options);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), StatusCode::kUnavailable)
      << second.error().ToString();
  // The first one is unharmed.
  auto a = LogOn(first.port(), DemoLogon("trader-a"));
  EXPECT_TRUE(a.has_value()) << a.error().ToString();
}

TEST(ServerLifecycle, FixPortInUseFailsStartWithUnavailable) {
  TestServer first;
  ASSERT_TRUE(first.Start().ok());
  cfx::testing::TempDir dir;
  ServerOptions options;
  options.data_dir = dir.Sub("data");
  options.simulated_clock = true;
  options.protobuf_port = 0;
  options.http_port = 0;
  options.fix_port = first.fix_port();
  auto second = ExchangeServer::Start(DemoConfig(), options);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code(), StatusCode::kUnavailable)
      << second.error().ToString();
  EXPECT_NE(second.error().message().find("fix gateway"), std::string::npos)
      << second.error().ToString();
}

// ---------------------------------------------------------------- clock

// 2026-12-03T21:00:00Z.
constexpr int64_t kDec3At21 =
    (int64_t{1'796'083'200} + 2 * 86'400 + 21 * 3'600) * 1'000'000'000;

// The exchange clock as the admin reads it, after moving it to `set_to`.
int64_t ClockNow(uint16_t port, std::optional<int64_t> set_to = std::nullopt) {
  auto r = AdminClock(port, set_to);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? r.value().now_ns() : 0;
}

// The server on `data_dir`, simulated clock, ephemeral ports; `start` is
// --start.
Result<std::unique_ptr<ExchangeServer>> StartOn(
    const std::string& data_dir, std::optional<int64_t> start = std::nullopt) {
  ServerOptions options;
  options.data_dir = data_dir;
  options.simulated_clock = true;
  if (start.has_value()) options.clock_start = exchange::Timestamp{*start};
  options.protobuf_port = 0;
  options.http_port = 0;
  options.fix_port = 0;
  return ExchangeServer::Start(DemoConfig(), options);
}

// Runs the simulated clock of a new server on `data_dir` to 2026-12-03T21:00,
// journals an order then and stops.
void RunToDec3At21(const std::string& data_dir) {
  auto server = StartOn(data_dir);
  ASSERT_TRUE(server.has_value()) << server.error().ToString();
  const uint16_t port = server.value()->protobuf_port();
  ASSERT_EQ(ClockNow(port, kDec3At21), kDec3At21);
  auto a = LogOn(port, DemoLogonOptOut("trader-a"));
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  auto buy = SendOrder(*a.value(), NewOrder(1, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(buy.has_value()) << buy.error().ToString();
  ASSERT_EQ(buy.value().exec_type(), w::EXEC_TYPE_NEW) << buy.value().text();
  ASSERT_TRUE(server.value()->Stop().ok());
}

TEST(ServerClock, ARestartResumesTheSimulatedClockFromTheJournal) {
  cfx::testing::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(RunToDec3At21(dir.Sub("data")));
  // No --start: not back to the config's 2026-12-01T00:00.
  auto again = StartOn(dir.Sub("data"));
  ASSERT_TRUE(again.has_value()) << again.error().ToString();
  EXPECT_EQ(ClockNow(again.value()->protobuf_port()), kDec3At21);
  EXPECT_TRUE(again.value()->Stop().ok());
}

TEST(ServerClock, AnExplicitStartBeforeTheJournalIsRefused) {
  cfx::testing::TempDir dir;
  ASSERT_NO_FATAL_FAILURE(RunToDec3At21(dir.Sub("data")));
  auto again = StartOn(dir.Sub("data"), kDefaultSimulatedStart.nanos);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.error().message(),
            "--start 2026-12-01T00:00:00.000000000Z is before the journal's "
            "last time 2026-12-03T21:00:00.000000000Z: the simulated clock "
            "never moves back (omit --start to resume from the journal, or "
            "give a later time)");
  // A later start is taken.
  auto later = StartOn(dir.Sub("data"), kDec3At21 + 1'000'000'000);
  ASSERT_TRUE(later.has_value()) << later.error().ToString();
  EXPECT_EQ(ClockNow(later.value()->protobuf_port()),
            kDec3At21 + 1'000'000'000);
  EXPECT_TRUE(later.value()->Stop().ok());
}

}  // namespace
}  // namespace cfx::gateway::server_test
