// End to end: the cfx-exchanged binary as a child process on the shipped
// config. Two firms trade; every acknowledged order and every fill must
// survive kill -9: after a restart on the same data dir, order status answers
// with each order's last state, and a retransmission from seq 0 returns every
// message received before the crash, byte for byte.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/gateway/server/exchanged_process.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

#if defined(CFX_EXCHANGED) && defined(CFX_EXCHANGE_CONFIG)

// One logged-on trader and everything it received.
struct Trader {
  ClientPtr client;
  std::vector<w::Envelope> received;  // all but heartbeats, in order
  // The last report of each of its acknowledged orders, by order id.
  std::map<uint64_t, w::ExecutionReport> orders;

  void Note(const w::Envelope& e) {
    if (e.has_heartbeat()) return;
    received.push_back(e);
    if (!e.has_execution_report()) return;
    const w::ExecutionReport& r = e.execution_report();
    if (r.seq() == 0 || r.order_id() == 0) return;
    orders[r.order_id()] = r;
  }

  // Waits for a report for which `pred` holds, noting everything.
  void Await(const std::function<bool(const w::ExecutionReport&)>& pred) {
    auto r = client->ReceiveUntil(
        [&](const w::Envelope& e) {
          Note(e);
          return e.has_execution_report() && pred(e.execution_report());
        },
        kWait);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
  }

  void Send(const w::Envelope& e) { ASSERT_TRUE(client->Send(e).ok()); }

  // Sends a NewOrder and waits for its ack.
  uint64_t Order(const w::Envelope& e) {
    Send(e);
    const uint64_t id = e.new_order().client_order_id();
    uint64_t order_id = 0;
    Await([&](const w::ExecutionReport& r) {
      if (r.client_order_id() != id || r.exec_type() != w::EXEC_TYPE_NEW) {
        return false;
      }
      order_id = r.order_id();
      return true;
    });
    return order_id;
  }

  void AwaitFill(uint64_t order_id, int64_t cum) {
    Await([&](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_TRADE && r.order_id() == order_id &&
             r.cum_quantity() == cum;
    });
  }

  std::vector<w::Envelope> Sequenced() const {
    std::vector<w::Envelope> out;
    for (const w::Envelope& e : received) {
      if (PositionOf(e).has_value()) out.push_back(e);
    }
    return out;
  }
};

std::string Dump(const std::vector<w::Envelope>& v) {
  std::string s;
  for (const w::Envelope& e : v) s += "  " + Describe(e) + "\n";
  return s;
}

TEST(EndToEnd, AcknowledgedOrdersAndFillsSurviveKillDashNine) {
  cfx::testing::TempDir dir;
  const std::string data_dir = dir.Sub("data");
  Trader a;  // trader-a, FIRM-A: buys
  Trader c;  // trader-c, FIRM-C: sells
  {
    Exchanged server;
    ASSERT_TRUE(server.Start(data_dir));
    a.client = server.LogOnWithRetry(DemoLogon("trader-a"));
    c.client = server.LogOnWithRetry(DemoLogon("trader-c"));
    ASSERT_NE(a.client, nullptr);
    ASSERT_NE(c.client, nullptr);

    const uint64_t a1 = a.Order(NewOrder(1, w::SIDE_BUY, kPrice, 5));
    const uint64_t a2 = a.Order(NewOrder(2, w::SIDE_BUY, kPrice - kTick, 2));
    const uint64_t c1 = c.Order(NewOrder(1, w::SIDE_SELL, kPrice, 3));
    c.AwaitFill(c1, 3);
    a.AwaitFill(a1, 3);
    const uint64_t c2 = c.Order(NewOrder(2, w::SIDE_SELL, kPrice - kTick, 4));
    c.AwaitFill(c2, 4);
    a.AwaitFill(a1, 5);
    a.AwaitFill(a2, 2);
    c.Order(NewOrder(3, w::SIDE_SELL, kPrice + kTick, 1));  // rests
    const uint64_t a3 =
        a.Order(NewOrder(3, w::SIDE_BUY, kPrice - 2 * kTick, 1));
    a.Send(Cancel(4, a3));
    a.Await([&](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_CANCELED && r.order_id() == a3;
    });
    a.Order(NewOrder(5, w::SIDE_BUY, kPrice - 3 * kTick, 2));  // rests
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_EQ(a.orders.size(), 4u);
    ASSERT_EQ(c.orders.size(), 3u);

    // The crash: no shutdown, no cancel on disconnect.
    const int status = server.Kill(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status)) << server.log();
  }
  a.client.reset();
  c.client.reset();

  Exchanged server;
  ASSERT_TRUE(server.Start(data_dir));
  for (Trader* t : {&a, &c}) {
    const std::string user = t == &a ? "trader-a" : "trader-c";
    SCOPED_TRACE(user);
    client::LogonParams p = DemoLogon(user);
    p.resume_after_seq = 0;
    ClientPtr again = server.LogOnWithRetry(p);
    ASSERT_NE(again, nullptr);

    // Every fill and every other report, identical and in order.
    std::vector<w::Envelope> resent;
    auto done = again->ReceiveUntil(
        [](const w::Envelope& e) { return e.has_retransmission_complete(); },
        kWait,
        [&](const w::Envelope& e) {
          if (!e.has_heartbeat()) resent.push_back(e);
        });
    ASSERT_TRUE(done.has_value()) << done.error().ToString();
    const std::vector<w::Envelope> before = t->Sequenced();
    bool same = resent.size() == before.size();
    for (std::size_t i = 0; same && i < resent.size(); ++i) {
      same = resent[i].SerializeAsString() == before[i].SerializeAsString();
    }
    EXPECT_TRUE(same) << "resent:\n"
                      << Dump(resent) << "received before the crash:\n"
                      << Dump(before);
    EXPECT_EQ(done.value().retransmission_complete().messages(), before.size());

    // Every acknowledged order, in its last known state.
    for (const auto& [order_id, last] : t->orders) {
      SCOPED_TRACE("order " + std::to_string(order_id));
      auto s = QueryStatus(*again, order_id);
      ASSERT_TRUE(s.has_value()) << s.error().ToString();
      const w::ExecutionReport& r = s.value();
      EXPECT_EQ(r.order_status(), last.order_status());
      EXPECT_EQ(r.cum_quantity(), last.cum_quantity());
      EXPECT_EQ(r.leaves_quantity(), last.leaves_quantity());
      EXPECT_EQ(r.client_order_id(), last.client_order_id());
      EXPECT_EQ(r.price(), last.price());
      EXPECT_EQ(r.quantity(), last.quantity());
    }
  }
  // A clean shutdown after the recovery.
  const int status = server.Kill(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server.log();
}

#else

TEST(EndToEnd, AcknowledgedOrdersAndFillsSurviveKillDashNine) {
  GTEST_SKIP() << "built without cfx-exchanged";
}

#endif

}  // namespace
}  // namespace cfx::gateway::server_test
