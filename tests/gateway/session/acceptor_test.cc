#include "gateway/session/acceptor.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

using tcp = asio::ip::tcp;

using testing::RunUntil;

class AcceptorTest : public ::testing::Test {
 protected:
  explicit AcceptorTest(std::size_t max_connections = SIZE_MAX)
      : acceptor_(io_,
                  AcceptorHandlers{
                      [this] { return accepted_.size(); },
                      [this](tcp::socket s, uint64_t) {
                        accepted_.push_back(std::move(s));
                      },
                      [this](tcp::socket&, Refusal) { ++refused_; }, nullptr},
                  AcceptorOptions{max_connections, {}}) {}

  void Listen() {
    const auto ec =
        acceptor_.Listen(asio::ip::make_address("127.0.0.1"), uint16_t{0});
    ASSERT_FALSE(ec) << ec.message();
    ASSERT_NE(acceptor_.port(), 0);
  }

  tcp::endpoint endpoint() const {
    return tcp::endpoint(asio::ip::make_address("127.0.0.1"), acceptor_.port());
  }

  asio::io_context io_;
  std::vector<tcp::socket> accepted_;
  int refused_ = 0;
  Acceptor acceptor_;
};

TEST_F(AcceptorTest, AcceptsConnections) {
  Listen();
  tcp::socket a(io_), b(io_);
  a.connect(endpoint());
  b.connect(endpoint());
  EXPECT_TRUE(RunUntil(io_, [&] { return accepted_.size() == 2; }));
  EXPECT_EQ(acceptor_.accept_errors(), 0u);
}

TEST_F(AcceptorTest, KeepsAcceptingAfterAnAcceptFails) {
  Listen();
  tcp::socket client(io_);
  client.open(tcp::v4());
  {
    testing::DescriptorLimit limit;
    ASSERT_TRUE(limit.ok());
    client.connect(endpoint());
    // The server side of the connection needs a descriptor: EMFILE.
    ASSERT_TRUE(RunUntil(io_, [&] { return acceptor_.accept_errors() > 0; }));
    EXPECT_TRUE(accepted_.empty());
  }
  // Descriptors are back: the retry accepts the waiting connection, and
  // later ones too.
  EXPECT_TRUE(RunUntil(io_, [&] { return accepted_.size() == 1; }));
  tcp::socket later(io_);
  later.connect(endpoint());
  EXPECT_TRUE(RunUntil(io_, [&] { return accepted_.size() == 2; }));
  EXPECT_EQ(acceptor_.accept_errors(), 1u);
}

TEST_F(AcceptorTest, CloseStopsAcceptingAndLeavesNothingPending) {
  Listen();
  acceptor_.Close();
  acceptor_.Close();  // idempotent
  io_.run();          // the cancelled accept completes; nothing else is left
  EXPECT_EQ(acceptor_.accept_errors(), 0u);
  EXPECT_TRUE(accepted_.empty());
}

TEST_F(AcceptorTest, ListenOnABoundPortFails) {
  Listen();
  Acceptor other(
      io_, AcceptorHandlers{[] { return std::size_t{0}; },
                            [](tcp::socket, uint64_t) {}, nullptr, nullptr});
  const auto ec =
      other.Listen(asio::ip::make_address("127.0.0.1"), acceptor_.port());
  EXPECT_EQ(ec, asio::error::address_in_use);
  EXPECT_EQ(other.port(), 0);
}

class LimitedAcceptorTest : public AcceptorTest {
 protected:
  LimitedAcceptorTest() : AcceptorTest(1) {}
};

TEST_F(LimitedAcceptorTest, ConnectionsOverTheLimitAreRefused) {
  Listen();
  tcp::socket a(io_), b(io_);
  a.connect(endpoint());
  ASSERT_TRUE(RunUntil(io_, [&] { return accepted_.size() == 1; }));
  b.connect(endpoint());
  EXPECT_TRUE(RunUntil(io_, [&] { return refused_ == 1; }));
  EXPECT_EQ(accepted_.size(), 1u);
}

}  // namespace
}  // namespace cfx::gateway
