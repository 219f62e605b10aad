// Order entry through the protobuf gateway: duplicate client order ids,
// cancel on disconnect, the throttle and cross-firm isolation
// (docs/protocol.md; DESIGN.md §7).
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;

ClientPtr MustLogOn(uint16_t port, const client::LogonParams& p) {
  auto c = LogOn(port, p);
  EXPECT_TRUE(c.has_value()) << p.api_key << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

// Sends a NewOrder and returns its acknowledgement; fails the test unless
// it is an ExecutionReport NEW.
w::ExecutionReport MustRest(client::Client& c, const w::Envelope& order) {
  auto ack = SendOrder(c, order);
  EXPECT_TRUE(ack.has_value()) << ack.error().ToString();
  if (!ack.has_value()) return {};
  EXPECT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW)
      << ack.value().ShortDebugString();
  return ack.value();
}

// Waits for the TRADE report of `client_order_id` whose cum quantity is
// `cum`.
w::ExecutionReport MustTrade(client::Client& c, uint64_t client_order_id,
                             int64_t cum) {
  auto r = AwaitReport(c, [&](const w::ExecutionReport& x) {
    return x.exec_type() == w::EXEC_TYPE_TRADE &&
           x.client_order_id() == client_order_id && x.cum_quantity() == cum;
  });
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? r.value() : w::ExecutionReport{};
}

w::ExecutionReport MustStatus(client::Client& c, uint64_t order_id,
                              std::vector<w::Envelope>* others = nullptr) {
  auto r = QueryStatus(c, order_id, others);
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  return r.has_value() ? r.value() : w::ExecutionReport{};
}

// ---------------------------------------------------------------- reports

TEST(PbOrderEntry, ReportsCarryTheOrdersTypeAndTimeInForce) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), DemoLogonOptOut("trader-a"));
  ClientPtr c = MustLogOn(server.port(), DemoLogonOptOut("trader-c"));
  ASSERT_TRUE(a != nullptr && c != nullptr);

  w::Envelope day = NewOrder(71, w::SIDE_BUY, 58'000, 5);
  day.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_DAY);
  const w::ExecutionReport ack = MustRest(*a, day);
  EXPECT_EQ(ack.order_type(), w::ORDER_TYPE_LIMIT);
  EXPECT_EQ(ack.time_in_force(), w::TIME_IN_FORCE_DAY);

  w::Envelope ioc = NewOrder(72, w::SIDE_SELL, 58'000, 2);
  ioc.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_IOC);
  ASSERT_TRUE(c->Send(ioc).ok());
  const w::ExecutionReport taker = MustTrade(*c, 72, 2);
  EXPECT_EQ(taker.order_type(), w::ORDER_TYPE_LIMIT);
  EXPECT_EQ(taker.time_in_force(), w::TIME_IN_FORCE_IOC);
  const w::ExecutionReport maker = MustTrade(*a, 71, 2);
  EXPECT_EQ(maker.time_in_force(), w::TIME_IN_FORCE_DAY);

  const w::ExecutionReport status = MustStatus(*a, ack.order_id());
  EXPECT_EQ(status.order_status(), w::ORDER_STATUS_PARTIALLY_FILLED);
  EXPECT_EQ(status.order_type(), w::ORDER_TYPE_LIMIT);
  EXPECT_EQ(status.time_in_force(), w::TIME_IN_FORCE_DAY);
}

// ---------------------------------------------------------------- duplicates

struct Outcome {
  uint64_t state_hash = 0;
  uint64_t last_seq = 0;
};

// trader-c rests a sell of 5; trader-a buys 2 with client order id 7, and
// with `resend` sends that same order again.
Outcome RunDuplicateScenario(bool resend) {
  TestServer server;
  EXPECT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), DemoLogonOptOut("trader-a"));
  ClientPtr c = MustLogOn(server.port(), DemoLogonOptOut("trader-c"));
  if (a == nullptr || c == nullptr) return {};
  const w::ExecutionReport resting =
      MustRest(*c, NewOrder(1, w::SIDE_SELL, kPrice, 5));
  const w::ExecutionReport first =
      MustRest(*a, NewOrder(7, w::SIDE_BUY, kPrice, 2));
  MustTrade(*a, 7, 2);

  if (resend) {
    auto again = SendOrder(*a, NewOrder(7, w::SIDE_BUY, kPrice, 2));
    EXPECT_TRUE(again.has_value()) << again.error().ToString();
    if (again.has_value()) {
      EXPECT_EQ(again.value().exec_type(), w::EXEC_TYPE_REJECTED);
      EXPECT_EQ(again.value().order_status(), w::ORDER_STATUS_REJECTED);
      EXPECT_EQ(again.value().reject_reason(),
                w::REJECT_REASON_DUPLICATE_CLIENT_ORDER_ID);
      EXPECT_EQ(again.value().text(), "DUPLICATE_CLIENT_ORDER_ID");
      EXPECT_EQ(again.value().order_id(), 0u);
    }
  }
  // Nothing executed twice: the first order is filled once, the resting
  // sell still has 3.
  const w::ExecutionReport mine = MustStatus(*a, first.order_id());
  EXPECT_EQ(mine.order_status(), w::ORDER_STATUS_FILLED);
  EXPECT_EQ(mine.cum_quantity(), 2);
  std::vector<w::Envelope> seen;  // by trader-c after its order's ack
  const w::ExecutionReport theirs = MustStatus(*c, resting.order_id(), &seen);
  EXPECT_EQ(theirs.order_status(), w::ORDER_STATUS_PARTIALLY_FILLED);
  EXPECT_EQ(theirs.leaves_quantity(), 3);
  EXPECT_EQ(theirs.cum_quantity(), 2);
  // trader-c saw exactly one trade.
  EXPECT_TRUE(Barrier(*c, &seen).ok());
  int trades = 0;
  for (const w::Envelope& e : seen) {
    trades += e.has_execution_report() &&
              e.execution_report().exec_type() == w::EXEC_TYPE_TRADE;
  }
  EXPECT_EQ(trades, 1);

  a.reset();
  c.reset();
  EXPECT_TRUE(server.Stop().ok());
  return {server.state_hash(), server.last_seq()};
}

TEST(PbOrderEntry, DuplicateClientOrderIdIsRejectedAndChangesNoState) {
  const Outcome with_resend = RunDuplicateScenario(true);
  const Outcome without = RunDuplicateScenario(false);
  EXPECT_EQ(with_resend.state_hash, without.state_hash);
  // The resent order was journaled (and rejected by the engine).
  EXPECT_EQ(with_resend.last_seq, without.last_seq + 1);
}

// ---------------------------------------------------------------- cancel on
// disconnect

class PbCancelOnDisconnectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    observer_ = MustLogOn(server_.port(), DemoLogonOptOut("trader-b"));
    ASSERT_NE(observer_, nullptr);
  }

  // Logs trader-a on again and waits for the CANCELED report of its order
  // `client_order_id` (retransmitted after `after`, or live).
  w::ExecutionReport AwaitCancelAfterReconnect(uint64_t client_order_id,
                                               Position after) {
    client::LogonParams p = DemoLogonOptOut("trader-a");
    p.resume_after_seq = after.seq;
    p.resume_after_index = after.index;
    ClientPtr again = MustLogOn(server_.port(), p);
    if (again == nullptr) return {};
    auto r = AwaitReport(*again, [&](const w::ExecutionReport& x) {
      return x.exec_type() == w::EXEC_TYPE_CANCELED &&
             x.client_order_id() == client_order_id;
    });
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() ? r.value() : w::ExecutionReport{};
  }

  TestServer server_;
  ClientPtr observer_;
};

TEST_F(PbCancelOnDisconnectTest, RestingOrdersAreCancelledWhenTheSessionDrops) {
  ClientPtr a = MustLogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_NE(a, nullptr);
  const w::ExecutionReport ack =
      MustRest(*a, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2));
  const uint64_t before = server_.commands_submitted();
  a->Close();  // no Logout
  ASSERT_TRUE(Barrier(*observer_).ok());
  EXPECT_EQ(server_.commands_submitted(), before + 1);  // the mass cancel

  const w::ExecutionReport cancel =
      AwaitCancelAfterReconnect(1, {ack.seq(), ack.index()});
  EXPECT_EQ(cancel.order_id(), ack.order_id());
  EXPECT_EQ(cancel.cancel_reason(), w::CANCEL_REASON_MASS_CANCEL);
  EXPECT_EQ(cancel.order_status(), w::ORDER_STATUS_CANCELED);
  EXPECT_EQ(cancel.leaves_quantity(), 0);
}

TEST_F(PbCancelOnDisconnectTest, LogoutCancelsRestingOrdersToo) {
  ClientPtr a = MustLogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_NE(a, nullptr);
  const w::ExecutionReport ack =
      MustRest(*a, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2));
  w::Envelope logout;
  logout.mutable_logout();
  ASSERT_TRUE(a->Send(logout).ok());
  ASSERT_TRUE(AwaitClose(*a).ok());
  const w::ExecutionReport cancel =
      AwaitCancelAfterReconnect(1, {ack.seq(), ack.index()});
  EXPECT_EQ(cancel.cancel_reason(), w::CANCEL_REASON_MASS_CANCEL);
}

TEST_F(PbCancelOnDisconnectTest, HeartbeatTimeoutCancelsRestingOrders) {
  auto raw = RawConnection::Connect(server_.port());
  ASSERT_TRUE(raw.has_value()) << raw.error().ToString();
  client::LogonParams p = DemoLogon("trader-a");
  p.heartbeat_interval_ms = 100;
  ASSERT_TRUE(raw.value()->Write(Frame(LogonMessage(p))).ok());
  ASSERT_TRUE(raw.value()
                  ->Write(Frame(NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2)))
                  .ok());
  // Read the ack, then stay silent until the server gives up on us.
  std::optional<Position> ack;
  for (;;) {
    auto r = raw.value()->Read();
    if (!r.has_value()) {
      ASSERT_EQ(r.error().code(), StatusCode::kUnavailable)
          << r.error().ToString();
      break;
    }
    if (IsReport(r.value(), w::EXEC_TYPE_NEW, 1)) ack = PositionOf(r.value());
  }
  ASSERT_TRUE(ack.has_value());
  const w::ExecutionReport cancel = AwaitCancelAfterReconnect(1, *ack);
  EXPECT_EQ(cancel.cancel_reason(), w::CANCEL_REASON_MASS_CANCEL);
}

TEST_F(PbCancelOnDisconnectTest, ExchangeShutdownCancelsRestingOrders) {
  ClientPtr a = MustLogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_NE(a, nullptr);
  const w::ExecutionReport ack =
      MustRest(*a, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2));
  observer_.reset();
  ASSERT_TRUE(server_.Stop().ok());
  a.reset();
  ASSERT_TRUE(server_.Start().ok());
  const w::ExecutionReport cancel =
      AwaitCancelAfterReconnect(1, {ack.seq(), ack.index()});
  EXPECT_EQ(cancel.cancel_reason(), w::CANCEL_REASON_MASS_CANCEL);
}

TEST_F(PbCancelOnDisconnectTest, OptedOutSessionKeepsItsOrdersResting) {
  ClientPtr a = MustLogOn(server_.port(), DemoLogonOptOut("trader-a"));
  ASSERT_NE(a, nullptr);
  const w::ExecutionReport ack =
      MustRest(*a, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2));
  const uint64_t before = server_.commands_submitted();
  a->Close();
  ASSERT_TRUE(Barrier(*observer_).ok());
  EXPECT_EQ(server_.commands_submitted(), before);  // no mass cancel

  // The order still trades while its owner is away.
  ClientPtr c = MustLogOn(server_.port(), DemoLogonOptOut("trader-c"));
  ASSERT_NE(c, nullptr);
  MustRest(*c, NewOrder(1, w::SIDE_SELL, kPrice - kTick, 1));
  MustTrade(*c, 1, 1);
  a = MustLogOn(server_.port(), DemoLogonOptOut("trader-a"));
  ASSERT_NE(a, nullptr);
  const w::ExecutionReport status = MustStatus(*a, ack.order_id());
  EXPECT_EQ(status.order_status(), w::ORDER_STATUS_PARTIALLY_FILLED);
  EXPECT_EQ(status.leaves_quantity(), 1);
  EXPECT_EQ(status.cum_quantity(), 1);
}

TEST_F(PbCancelOnDisconnectTest, ReconnectMassCancelGetsItsOwnClientOrderId) {
  // A client that reconnects and at once cancels everything: the report of
  // its MassCancel must carry its client_order_id, not be confused with
  // the gateway's cancel-on-disconnect of the old session.
  ClientPtr a = MustLogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_NE(a, nullptr);
  MustRest(*a, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 2));
  a->Close();
  ASSERT_TRUE(Barrier(*observer_).ok());
  a = MustLogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send(MassCancel(42, "")).ok());
  std::vector<w::MassCancelReport> reports;
  auto r = a->ReceiveUntil(
      [&](const w::Envelope& e) {
        if (e.has_mass_cancel_report()) {
          reports.push_back(e.mass_cancel_report());
        }
        return !reports.empty() && reports.back().client_order_id() == 42;
      },
      kWait);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  // Its own request found nothing left to cancel.
  EXPECT_EQ(reports.back().cancelled(), 0u);
  for (std::size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_EQ(reports[i].client_order_id(), 0u)
        << reports[i].ShortDebugString();
  }
}

// ---------------------------------------------------------------- throttle

TEST(PbThrottle, BurstBeyondTheRateIsThrottledAndNeverReachesTheEngine) {
  ServerConfig config = DemoConfig();
  config.session.max_messages_per_second = 20;
  TestServer server(config);
  ASSERT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), DemoLogonOptOut("trader-a"));
  ClientPtr b = MustLogOn(server.port(), DemoLogonOptOut("trader-b"));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const uint64_t before = server.commands_submitted();

  constexpr int kBurst = 100;
  std::string burst;
  for (int i = 1; i <= kBurst; ++i) {
    burst += Frame(NewOrder(static_cast<uint64_t>(i), w::SIDE_BUY,
                            kPrice - 10 * kTick, 1));
  }
  ASSERT_TRUE(a->SendRaw(burst).ok());
  std::set<uint64_t> acked;
  int throttled = 0;
  auto done = a->ReceiveUntil(
      [&](const w::Envelope& e) {
        if (e.has_execution_report()) {
          EXPECT_EQ(e.execution_report().exec_type(), w::EXEC_TYPE_NEW);
          acked.insert(e.execution_report().client_order_id());
        } else if (e.has_session_reject()) {
          EXPECT_EQ(e.session_reject().reason(),
                    w::SESSION_REJECT_REASON_THROTTLED);
          ++throttled;
        } else if (!e.has_heartbeat()) {
          ADD_FAILURE() << Describe(e);
        }
        return static_cast<int>(acked.size()) + throttled == kBurst;
      },
      kWait);
  ASSERT_TRUE(done.has_value()) << done.error().ToString();

  // The bucket holds one second's worth (20) and the logon took one: the
  // first 19 pass. A token comes back every 50 ms, so a server slowed down
  // mid-burst may pass a few more, never many.
  const int passed = static_cast<int>(acked.size());
  for (uint64_t id = 1; id <= 19; ++id) EXPECT_EQ(acked.count(id), 1u) << id;
  EXPECT_LE(passed, 25);
  EXPECT_EQ(throttled, kBurst - passed);
  // None of the throttled ones reached the engine.
  ASSERT_TRUE(Barrier(*b).ok());
  EXPECT_EQ(server.commands_submitted(),
            before + static_cast<uint64_t>(passed));

  // Nothing else is on its way, and a second later the session is served
  // again.
  auto quiet = a->ReceiveUntil(
      [](const w::Envelope& e) { return !e.has_heartbeat(); }, Millis(1100));
  ASSERT_FALSE(quiet.has_value()) << Describe(quiet.value());
  auto ack = SendOrder(*a, NewOrder(1000, w::SIDE_BUY, kPrice - 10 * kTick, 1));
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
}

// ---------------------------------------------------------------- isolation

class PbIsolationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    a_ = MustLogOn(server_.port(), DemoLogonOptOut("trader-a"));
    b_ = MustLogOn(server_.port(), DemoLogonOptOut("trader-b"));
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(b_, nullptr);
    a_order_ = MustRest(*a_, NewOrder(1, w::SIDE_BUY, kPrice - kTick, 3));
    ASSERT_NE(a_order_.order_id(), 0u);
  }

  // trader-a's order is untouched, and trader-a got nothing from what
  // trader-b did.
  void ExpectFirmAUntouched() {
    std::vector<w::Envelope> others;
    const w::ExecutionReport s = MustStatus(*a_, a_order_.order_id(), &others);
    EXPECT_EQ(s.order_status(), w::ORDER_STATUS_NEW);
    EXPECT_EQ(s.leaves_quantity(), 3);
    EXPECT_EQ(s.price(), kPrice - kTick);
    EXPECT_TRUE(others.empty()) << Describe(others.front());
  }

  // The next message trader-b receives (not a heartbeat).
  w::Envelope NextForB() {
    auto r = Next(*b_);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r.has_value() ? r.value() : w::Envelope{};
  }

  static constexpr uint64_t kNoSuchOrder = 987'654'321;

  TestServer server_;
  ClientPtr a_;
  ClientPtr b_;
  w::ExecutionReport a_order_;
};

TEST_F(PbIsolationTest, OtherFirmReceivesNoneOfTheReports) {
  ClientPtr c = MustLogOn(server_.port(), DemoLogonOptOut("trader-c"));
  ASSERT_NE(c, nullptr);
  MustRest(*c, NewOrder(1, w::SIDE_SELL, kPrice - kTick, 1));
  MustTrade(*a_, 1, 1);
  ASSERT_TRUE(a_->Send(Cancel(2, a_order_.order_id())).ok());
  ASSERT_TRUE(AwaitReport(*a_, [](const w::ExecutionReport& r) {
                return r.exec_type() == w::EXEC_TYPE_CANCELED;
              }).has_value());
  // Messages are delivered in order: anything for trader-b would come
  // before the answer to its status request.
  std::vector<w::Envelope> others;
  MustStatus(*b_, kBarrierOrderId, &others);
  EXPECT_TRUE(others.empty()) << Describe(others.front());
}

// What trader-b gets for `request(order_id, client_order_id)`, with the ids
// the answer echoes (and the seq, which is each command's own) cleared.
std::string Normalized(w::Envelope e) {
  if (e.has_cancel_reject()) {
    e.mutable_cancel_reject()->clear_seq();
    e.mutable_cancel_reject()->clear_order_id();
    e.mutable_cancel_reject()->clear_client_order_id();
  }
  if (e.has_execution_report()) {
    e.mutable_execution_report()->clear_seq();
    e.mutable_execution_report()->clear_order_id();
    e.mutable_execution_report()->clear_client_order_id();
  }
  return e.SerializeAsString();
}

TEST_F(PbIsolationTest, CancelOfAnotherFirmsOrderLooksLikeANonexistentOrder) {
  ASSERT_TRUE(b_->Send(Cancel(11, a_order_.order_id())).ok());
  const w::Envelope theirs = NextForB();
  ASSERT_TRUE(b_->Send(Cancel(12, kNoSuchOrder)).ok());
  const w::Envelope none = NextForB();
  ASSERT_TRUE(theirs.has_cancel_reject()) << Describe(theirs);
  EXPECT_EQ(theirs.cancel_reject().reason(), w::REJECT_REASON_UNKNOWN_ORDER);
  EXPECT_EQ(theirs.cancel_reject().order_id(), a_order_.order_id());
  EXPECT_EQ(theirs.cancel_reject().client_order_id(), 11u);
  EXPECT_EQ(Normalized(theirs), Normalized(none)) << Describe(theirs) << "\n"
                                                  << Describe(none);
  ExpectFirmAUntouched();
}

TEST_F(PbIsolationTest, ReplaceOfAnotherFirmsOrderLooksLikeANonexistentOrder) {
  ASSERT_TRUE(
      b_->Send(Replace(11, a_order_.order_id(), kPrice - 2 * kTick, 5)).ok());
  const w::Envelope theirs = NextForB();
  ASSERT_TRUE(b_->Send(Replace(12, kNoSuchOrder, kPrice - 2 * kTick, 5)).ok());
  const w::Envelope none = NextForB();
  ASSERT_TRUE(theirs.has_cancel_reject()) << Describe(theirs);
  EXPECT_TRUE(theirs.cancel_reject().replace());
  EXPECT_EQ(theirs.cancel_reject().reason(), w::REJECT_REASON_UNKNOWN_ORDER);
  EXPECT_EQ(Normalized(theirs), Normalized(none)) << Describe(theirs) << "\n"
                                                  << Describe(none);
  ExpectFirmAUntouched();
}

TEST_F(PbIsolationTest, StatusOfAnotherFirmsOrderLooksLikeANonexistentOrder) {
  ASSERT_TRUE(b_->Send(StatusRequest(a_order_.order_id())).ok());
  const w::Envelope theirs = NextForB();
  ASSERT_TRUE(b_->Send(StatusRequest(kNoSuchOrder)).ok());
  const w::Envelope none = NextForB();
  ASSERT_TRUE(theirs.has_execution_report()) << Describe(theirs);
  EXPECT_EQ(theirs.execution_report().order_status(), w::ORDER_STATUS_UNKNOWN);
  EXPECT_EQ(theirs.execution_report().reject_reason(),
            w::REJECT_REASON_UNKNOWN_ORDER);
  EXPECT_EQ(theirs.execution_report().order_id(), a_order_.order_id());
  EXPECT_EQ(Normalized(theirs), Normalized(none)) << Describe(theirs) << "\n"
                                                  << Describe(none);
  ExpectFirmAUntouched();
}

TEST_F(PbIsolationTest, MassCancelTouchesOnlyTheSessionsOwnAccount) {
  ASSERT_TRUE(b_->Send(MassCancel(11, "")).ok());
  const w::Envelope report = NextForB();
  ASSERT_TRUE(report.has_mass_cancel_report()) << Describe(report);
  EXPECT_EQ(report.mass_cancel_report().cancelled(), 0u);
  EXPECT_EQ(report.mass_cancel_report().client_order_id(), 11u);
  ExpectFirmAUntouched();
}

}  // namespace
}  // namespace cfx::gateway::server_test
