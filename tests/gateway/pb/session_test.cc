// The protobuf session state machine (docs/protocol.md, "Session"): logon,
// messages in the wrong state, logout and heartbeats both ways.
#include <gtest/gtest.h>

#include <chrono>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

// The listings the sequencer journals at its first cycle on a fresh journal.
uint64_t MaxStartupListings() {
  const ServerConfig c = DemoConfig();
  return c.grades.size() * c.spot.listing_days;
}

using SteadyClock = std::chrono::steady_clock;

class PbSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  TestServer server_;
};

TEST_F(PbSessionTest, LogonAckNamesTheUsersIdentity) {
  w::LogonAck ack;
  auto c = LogOn(server_.port(), DemoLogon("trader-a"), &ack);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(ack.user(), "trader-a");
  EXPECT_EQ(ack.firm(), "FIRM-A");
  EXPECT_EQ(ack.account(), "FIRM-A");
  EXPECT_EQ(ack.role(), w::ROLE_TRADER);
  EXPECT_EQ(ack.heartbeat_interval_ms(), 5000u);  // the server default
  EXPECT_TRUE(ack.cancel_on_disconnect());
  // No client command yet: at most the spot calendar's first listings
  // (listing_days per grade) are durable.
  EXPECT_LE(ack.exchange_seq(), MaxStartupListings());
  EXPECT_EQ(ack.exchange_time_ns(), kDefaultSimulatedStart.nanos);
}

TEST_F(PbSessionTest, LogonAckEchoesTheAskedHeartbeatAndOptOut) {
  client::LogonParams p = DemoLogonOptOut("clear-1");
  p.heartbeat_interval_ms = 250;
  w::LogonAck ack;
  auto c = LogOn(server_.port(), p, &ack);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(ack.role(), w::ROLE_CLEARING_MEMBER);
  EXPECT_EQ(ack.account(), "");  // no trading account
  EXPECT_EQ(ack.heartbeat_interval_ms(), 250u);
  EXPECT_FALSE(ack.cancel_on_disconnect());
}

TEST_F(PbSessionTest, SecondLogonOnTheSameConnectionIsRejectedAndSessionLives) {
  auto c = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  ASSERT_TRUE(c.value()->Send(LogonMessage(DemoLogon("trader-a"))).ok());
  auto r = Next(*c.value());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r.value().has_session_reject()) << Describe(r.value());
  EXPECT_EQ(r.value().session_reject().reason(),
            w::SESSION_REJECT_REASON_WRONG_SESSION_STATE);
  EXPECT_EQ(r.value().session_reject().message_type(), "logon");

  // Still logged on as trader-a: an order is accepted.
  auto ack = SendOrder(*c.value(), NewOrder(1, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
}

TEST_F(PbSessionTest, OrderBeforeLogonIsRejectedAndTheConnectionCanLogOn) {
  auto c = Connect(server_.port());
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  ASSERT_TRUE(c.value()->Send(NewOrder(1, w::SIDE_BUY, kPrice, 1)).ok());
  auto r = Next(*c.value());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r.value().has_session_reject()) << Describe(r.value());
  EXPECT_EQ(r.value().session_reject().reason(),
            w::SESSION_REJECT_REASON_WRONG_SESSION_STATE);
  EXPECT_EQ(r.value().session_reject().message_type(), "new_order");

  auto ack = c.value()->Logon(DemoLogon("trader-a"), kWait);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  // The order before the logon never reached the engine.
  EXPECT_EQ(server_.commands_submitted(), 0u);
  EXPECT_LE(ack.value().exchange_seq(), MaxStartupListings());
}

TEST_F(PbSessionTest, LogoutIsAnsweredThenTheServerCloses) {
  auto c = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  w::Envelope logout;
  logout.mutable_logout();
  ASSERT_TRUE(c.value()->Send(logout).ok());
  std::vector<w::Envelope> before;
  const Status st = AwaitClose(*c.value(), &before);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(before.size(), 1u);
  EXPECT_TRUE(before[0].has_logout()) << Describe(before[0]);

  // The user may log on again at once.
  auto again = LogOn(server_.port(), DemoLogon("trader-a"));
  EXPECT_TRUE(again.has_value()) << again.error().ToString();
}

TEST_F(PbSessionTest, ServerSendsHeartbeatsWhenIdle) {
  client::LogonParams p = DemoLogon("trader-a");
  p.heartbeat_interval_ms = 200;
  auto c = LogOn(server_.port(), p);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  int heartbeats = 0;
  auto r = c.value()->ReceiveUntil(
      [&](const w::Envelope& e) {
        if (!e.has_heartbeat()) return true;
        return ++heartbeats == 3;
      },
      kWait);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r.value().has_heartbeat()) << Describe(r.value());
  EXPECT_EQ(heartbeats, 3);
}

TEST_F(PbSessionTest, ClientThatHeartbeatsOutlivesThreeIntervals) {
  client::LogonParams p = DemoLogon("trader-a");
  p.heartbeat_interval_ms = 200;
  auto c = LogOn(server_.port(), p);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  // Waits ten intervals for a message that never comes; the client library
  // heartbeats meanwhile, so the session must stay up.
  auto r = c.value()->ReceiveUntil([](const w::Envelope&) { return false; },
                                   Millis(2000));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kResourceExhausted)
      << r.error().ToString();
  auto status = QueryStatus(*c.value(), kBarrierOrderId);
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
}

TEST_F(PbSessionTest, SilentClientIsDisconnectedAfterThreeIntervals) {
  auto raw = RawConnection::Connect(server_.port());
  ASSERT_TRUE(raw.has_value()) << raw.error().ToString();
  RawConnection& conn = *raw.value();
  client::LogonParams p = DemoLogon("trader-a");
  p.heartbeat_interval_ms = 100;
  ASSERT_TRUE(conn.Write(Frame(LogonMessage(p))).ok());
  auto ack = conn.Read();
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  ASSERT_TRUE(ack.value().has_logon_ack()) << Describe(ack.value());
  const SteadyClock::time_point logged_on = SteadyClock::now();

  // Send nothing more; read until the server closes.
  int heartbeats = 0;
  for (;;) {
    auto r = conn.Read();
    if (!r.has_value()) {
      EXPECT_EQ(r.error().code(), StatusCode::kUnavailable)
          << r.error().ToString();
      break;
    }
    ASSERT_TRUE(r.value().has_heartbeat()) << Describe(r.value());
    ++heartbeats;
  }
  const auto lived = SteadyClock::now() - logged_on;
  EXPECT_GE(lived, Millis(300));  // not before three intervals
  EXPECT_GE(heartbeats, 1);       // the server heartbeated while it waited
}

TEST_F(PbSessionTest, HeartbeatBeforeLogonIsAcceptedSilently) {
  auto c = Connect(server_.port());
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  w::Envelope hb;
  hb.mutable_heartbeat();
  ASSERT_TRUE(c.value()->Send(hb).ok());
  // The next answer is the logon's: the heartbeat got none.
  auto ack = c.value()->Logon(DemoLogon("trader-a"), kWait);
  EXPECT_TRUE(ack.has_value()) << ack.error().ToString();
}

// Connections not logged on have a budget of their own: a connection
// beyond max_sessions is accepted, and its Logon is refused while
// max_sessions sessions are logged on.
TEST(PbSessionLimit, LogonBeyondMaxSessionsIsRejected) {
  ServerConfig config = DemoConfig();
  config.session.max_sessions = 2;
  TestServer server(config);
  ASSERT_TRUE(server.Start().ok());
  auto a = LogOn(server.port(), DemoLogon("trader-a"));
  auto b = LogOn(server.port(), DemoLogon("trader-b"));
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  auto third = LogOn(server.port(), DemoLogon("trader-c"));
  ASSERT_FALSE(third.has_value());
  EXPECT_NE(third.error().message().find("TOO_MANY_CONNECTIONS"),
            std::string::npos)
      << third.error().ToString();
  // Those within the limit are unharmed.
  EXPECT_TRUE(QueryStatus(*a.value(), kBarrierOrderId).has_value());
}

}  // namespace
}  // namespace cfx::gateway::server_test
