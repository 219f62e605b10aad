// ExchangeServer's life cycle (gateway/server/exchange_server.h): start on
// ephemeral ports, stop, restart on the same data dir.
#include "gateway/server/exchange_server.h"

#include <gtest/gtest.h>

#include "tests/gateway/server/server_fixture.h"

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

}  // namespace
}  // namespace cfx::gateway::server_test
