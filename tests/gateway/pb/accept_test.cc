// The protobuf gateway keeps accepting after an accept fails: a bare
// pb::Gateway on this thread, no engine behind it.

#include <gtest/gtest.h>

#include "exchange/clock.h"
#include "exchange/payload_arena.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/gateway.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

using tcp = asio::ip::tcp;

TEST(PbAcceptTest, KeepsAcceptingAfterAnAcceptFails) {
  const ServerConfig config = server_test::DemoConfig();
  const InstrumentTable instruments(config);
  const MarketDataStore md(config);
  exchange::SpscRing<exchange::Command> ring(16);
  exchange::PayloadArena arena(16, 1024);
  exchange::SimulatedClock clock(exchange::Timestamp{0});
  pb::GatewayDeps deps;
  deps.config = &config;
  deps.instruments = &instruments;
  deps.ring = &ring;
  deps.market_data = &md;
  deps.clock = &clock;
  deps.payload_arena = &arena;
  asio::io_context io;
  pb::Gateway gateway(io, deps);
  ASSERT_TRUE(gateway.Listen("127.0.0.1", 0).ok());
  const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"),
                               gateway.port());

  tcp::socket first(io);
  first.open(tcp::v4());
  {
    testing::DescriptorLimit limit;
    ASSERT_TRUE(limit.ok());
    first.connect(endpoint);
    // The server side of the connection needs a descriptor: EMFILE.
    ASSERT_TRUE(
        testing::RunUntil(io, [&] { return gateway.accept_errors() > 0; }));
    EXPECT_EQ(gateway.sessions(), 0u);
  }
  // The retry accepts the waiting connection, and later ones too.
  EXPECT_TRUE(testing::RunUntil(io, [&] { return gateway.sessions() == 1; }));
  tcp::socket second(io);
  second.connect(endpoint);
  EXPECT_TRUE(testing::RunUntil(io, [&] { return gateway.sessions() == 2; }));
  EXPECT_EQ(gateway.accept_errors(), 1u);
  gateway.Stop();
}

}  // namespace
}  // namespace cfx::gateway
