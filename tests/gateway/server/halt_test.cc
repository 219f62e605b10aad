// Halts and the opening auction through the real server (docs/protocol.md,
// "Halts and the opening auction"; docs/fix.md, SecurityStatus): the admin
// halts an instrument over protobuf; orders are refused and cancels taken;
// every subscriber sees the status with the reason, over protobuf and FIX;
// a resume goes through a pre-open whose orders rest and whose indicative
// opening is published; when the simulated clock reaches the scheduled
// open the book uncrosses at one price.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/fix/fix_test_start.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;
using fix_test::FixMessage;
using fix_test::FixTestClient;

constexpr Millis kFixWait{10'000};
constexpr int64_t kSecond = 1'000'000'000;

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogonOptOut(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

w::Envelope HaltRequest(uint64_t id, w::HaltAction action,
                        const std::string& symbol, const std::string& reason,
                        uint32_t pre_open_seconds = 0) {
  w::Envelope e;
  w::TradingHaltRequest* r = e.mutable_trading_halt_request();
  r->set_request_id(id);
  r->set_action(action);
  r->set_symbol(symbol);
  r->set_reason(reason);
  r->set_pre_open_seconds(pre_open_seconds);
  return e;
}

w::TradingHaltAck AskHalt(client::Client& c, const w::Envelope& request) {
  const uint64_t id = request.trading_halt_request().request_id();
  EXPECT_TRUE(c.Send(request).ok());
  auto ack = c.ReceiveUntil(
      [id](const w::Envelope& e) {
        return (e.has_trading_halt_ack() &&
                e.trading_halt_ack().request_id() == id) ||
               e.has_session_reject();
      },
      kWait);
  EXPECT_TRUE(ack.has_value() && ack.value().has_trading_halt_ack())
      << (ack.has_value() ? ack.value().ShortDebugString()
                          : ack.error().ToString());
  return ack.has_value() ? ack.value().trading_halt_ack() : w::TradingHaltAck{};
}

w::InstrumentStatus AwaitStatus(client::Client& c, w::InstrumentState state) {
  auto e = c.ReceiveUntil(
      [state](const w::Envelope& x) {
        return x.has_instrument_status() &&
               x.instrument_status().state() == state;
      },
      kWait);
  EXPECT_TRUE(e.has_value()) << "no InstrumentStatus " << state;
  return e.has_value() ? e.value().instrument_status() : w::InstrumentStatus{};
}

std::unique_ptr<FixTestClient> FixLogOn(uint16_t port, const std::string& dir) {
  fix_test::FixClientOptions o;
  o.sender_comp_id = "TRADER_B";
  o.port = port;
  o.username = "trader-b";
  o.password = "demo-trader-b";
  o.store_dir = dir;
  auto c = fix_test::StartFixTestClient(o);
  if (c == nullptr || !c->WaitLoggedOn(kFixWait)) {
    ADD_FAILURE() << "TRADER_B did not log on";
    return nullptr;
  }
  return c;
}

FixTestClient::Predicate SecurityStatus(std::string trading_status) {
  return [trading_status](const FixMessage& m) {
    return m.type == "f" && m.Get(326) == trading_status;
  };
}

TEST(Halt, AHaltRefusesOrdersAndAResumeReopensByAuction) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr admin = MustLogOn(server.port(), "admin");
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ClientPtr b = MustLogOn(server.port(), "trader-b");
  ASSERT_TRUE(admin && a && b);
  cfx::testing::TempDir fix_dir;
  auto fix = FixLogOn(server.fix_port(), fix_dir.path());
  ASSERT_NE(fix, nullptr);
  ASSERT_TRUE(fix->Send("e", {{324, "status-1"}, {55, kSymbol}, {263, "1"}}));
  ASSERT_TRUE(fix->Await(SecurityStatus("17"), kFixWait));
  // trader-b watches the book.
  w::Envelope sub;
  sub.mutable_market_data_subscribe()->set_symbol(kSymbol);
  sub.mutable_market_data_subscribe()->set_depth(true);
  ASSERT_TRUE(b->Send(sub).ok());
  ASSERT_TRUE(b->ReceiveUntil(
                    [](const w::Envelope& e) { return e.has_book_snapshot(); },
                    kWait)
                  .has_value());

  auto bid = SendOrder(*a, NewOrder(1, w::SIDE_BUY, kPrice, 5));
  ASSERT_TRUE(bid.has_value());
  ASSERT_EQ(bid.value().exec_type(), w::EXEC_TYPE_NEW);

  // Only the admin may halt.
  w::TradingHaltAck refused =
      AskHalt(*a, HaltRequest(9, w::HALT_ACTION_HALT, kSymbol, ""));
  EXPECT_FALSE(refused.accepted());
  EXPECT_EQ(refused.reason(), w::REJECT_REASON_NOT_AUTHORIZED);

  w::TradingHaltAck halted = AskHalt(
      *admin, HaltRequest(10, w::HALT_ACTION_HALT, kSymbol, "news pending"));
  ASSERT_TRUE(halted.accepted()) << halted.ShortDebugString();
  ASSERT_EQ(halted.results_size(), 1);
  EXPECT_EQ(halted.results(0).state(), w::INSTRUMENT_STATE_HALTED);
  EXPECT_GT(halted.results(0).seq(), 0u);
  const w::InstrumentStatus st = AwaitStatus(*b, w::INSTRUMENT_STATE_HALTED);
  EXPECT_EQ(st.reason(), "news pending");
  FixMessage f;
  ASSERT_TRUE(fix->Await(SecurityStatus("2"), kFixWait, &f));
  EXPECT_EQ(f.Get(58), "news pending");

  // Halted: a new order is refused, a cancel is taken.
  auto refused_order = SendOrder(*b, NewOrder(2, w::SIDE_SELL, kPrice, 1));
  ASSERT_TRUE(refused_order.has_value());
  EXPECT_EQ(refused_order.value().exec_type(), w::EXEC_TYPE_REJECTED);
  EXPECT_EQ(refused_order.value().reject_reason(),
            w::REJECT_REASON_INSTRUMENT_NOT_OPEN);

  // Halting it again is refused by the engine, with the reason.
  w::TradingHaltAck again =
      AskHalt(*admin, HaltRequest(11, w::HALT_ACTION_HALT, kSymbol, ""));
  EXPECT_FALSE(again.accepted());
  ASSERT_EQ(again.results_size(), 1);
  EXPECT_EQ(again.results(0).text(), "INVALID_STATE_TRANSITION");

  w::Envelope read;
  read.mutable_clock_request()->set_read(true);
  ASSERT_TRUE(admin->Send(read).ok());
  auto clock = admin->ReceiveUntil(
      [](const w::Envelope& x) { return x.has_clock_report(); }, kWait);
  ASSERT_TRUE(clock.has_value());
  const int64_t now = clock.value().clock_report().now_ns();
  w::TradingHaltAck resumed = AskHalt(
      *admin, HaltRequest(12, w::HALT_ACTION_RESUME, kSymbol, "news out", 30));
  ASSERT_TRUE(resumed.accepted()) << resumed.ShortDebugString();
  EXPECT_EQ(resumed.results(0).state(), w::INSTRUMENT_STATE_PRE_OPEN);
  const w::InstrumentStatus pre = AwaitStatus(*b, w::INSTRUMENT_STATE_PRE_OPEN);
  EXPECT_EQ(pre.reason(), "news out");
  EXPECT_GE(pre.open_time_ns(), now + 30 * kSecond);
  ASSERT_TRUE(fix->Await(SecurityStatus("21"), kFixWait));

  // Pre-open: a crossing sell rests; the indicative opening is published.
  auto ask = SendOrder(*b, NewOrder(3, w::SIDE_SELL, kPrice - 10 * kTick, 3));
  ASSERT_TRUE(ask.has_value());
  ASSERT_EQ(ask.value().exec_type(), w::EXEC_TYPE_NEW);
  auto ind = b->ReceiveUntil(
      [](const w::Envelope& e) {
        return e.has_indicative_open() && e.indicative_open().quantity() == 3;
      },
      kWait);
  ASSERT_TRUE(ind.has_value());
  EXPECT_EQ(ind.value().indicative_open().price(), kPrice);
  EXPECT_EQ(ind.value().indicative_open().surplus_side(), w::SIDE_BUY);
  EXPECT_EQ(ind.value().indicative_open().surplus_quantity(), 2);

  // The scheduled open: one price for the whole cross.
  ASSERT_TRUE(SetClock(*admin, pre.open_time_ns()).ok());
  auto fill = AwaitReport(*a, [](const w::ExecutionReport& r) {
    return r.exec_type() == w::EXEC_TYPE_TRADE;
  });
  ASSERT_TRUE(fill.has_value());
  EXPECT_EQ(fill.value().last_price(), kPrice);
  EXPECT_EQ(fill.value().last_quantity(), 3);
  const w::InstrumentStatus open = AwaitStatus(*b, w::INSTRUMENT_STATE_OPEN);
  EXPECT_EQ(open.opening_price(), kPrice);
  EXPECT_EQ(open.opening_quantity(), 3);
  ASSERT_TRUE(fix->Await(
      [](const FixMessage& m) {
        return m.type == "f" && m.Get(326) == "17" &&
               m.Get(58) == "opened: 3 lots at 5.80";
      },
      kFixWait));
  fix->Stop();
}

TEST(Halt, ABadRequestIsRefusedWithItsReason) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr admin = MustLogOn(server.port(), "admin");
  ASSERT_TRUE(admin);
  struct Case {
    w::Envelope request;
    w::RejectReason reason;
  };
  w::Envelope root = HaltRequest(2, w::HALT_ACTION_HALT, "", "");
  root.mutable_trading_halt_request()->set_root("NOPE");
  std::vector<Case> cases = {
      {HaltRequest(1, w::HALT_ACTION_HALT, "NOPE1", ""),
       w::REJECT_REASON_UNKNOWN_SYMBOL},
      {root, w::REJECT_REASON_UNKNOWN_ROOT},
      {HaltRequest(3, w::HALT_ACTION_HALT, kSymbol, std::string(201, 'x')),
       w::REJECT_REASON_INVALID_REASON_TEXT},
      {HaltRequest(4, w::HALT_ACTION_HALT, kSymbol, "bell\a"),
       w::REJECT_REASON_INVALID_REASON_TEXT},
      {HaltRequest(5, w::HALT_ACTION_RESUME, kSymbol, "", 86'401),
       w::REJECT_REASON_INVALID_PRE_OPEN_LENGTH},
      {HaltRequest(6, w::HALT_ACTION_HALT, kSymbol, "", 5),
       w::REJECT_REASON_INVALID_PRE_OPEN_LENGTH},
  };
  const uint64_t before = server.commands_submitted();
  for (const Case& c : cases) {
    w::TradingHaltAck ack = AskHalt(*admin, c.request);
    EXPECT_FALSE(ack.accepted());
    EXPECT_EQ(ack.reason(), c.reason) << ack.ShortDebugString();
    EXPECT_FALSE(ack.text().empty());
  }
  // Nothing reached the engine; no target at all is a session reject.
  EXPECT_EQ(server.commands_submitted(), before);
  w::Envelope none;
  none.mutable_trading_halt_request()->set_request_id(7);
  none.mutable_trading_halt_request()->set_action(w::HALT_ACTION_HALT);
  ASSERT_TRUE(admin->Send(none).ok());
  auto rej = admin->ReceiveUntil(
      [](const w::Envelope& e) { return e.has_session_reject(); }, kWait);
  ASSERT_TRUE(rej.has_value());
  EXPECT_EQ(rej.value().session_reject().reason(),
            w::SESSION_REJECT_REASON_MISSING_FIELD);
}

TEST(Halt, HaltingARootHaltsItsOpenMonthsAndSurvivesARestart) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr admin = MustLogOn(server.port(), "admin");
  ASSERT_TRUE(admin);
  w::Envelope e = HaltRequest(1, w::HALT_ACTION_HALT, "", "maintenance");
  e.mutable_trading_halt_request()->set_root("XB2S");
  w::TradingHaltAck ack = AskHalt(*admin, e);
  ASSERT_TRUE(ack.accepted()) << ack.ShortDebugString();
  ASSERT_GE(ack.results_size(), 1);
  bool has_symbol = false;
  for (const auto& r : ack.results()) {
    EXPECT_EQ(r.state(), w::INSTRUMENT_STATE_HALTED);
    has_symbol = has_symbol || r.symbol() == kSymbol;
  }
  EXPECT_TRUE(has_symbol);
  // Nothing of the root is open now.
  w::TradingHaltAck again = AskHalt(*admin, e);
  EXPECT_FALSE(again.accepted());
  EXPECT_EQ(again.reason(), w::REJECT_REASON_INVALID_STATE_TRANSITION);
  admin.reset();
  ASSERT_TRUE(server.Stop().ok());
  ASSERT_TRUE(server.Start().ok());
  ClientPtr b = MustLogOn(server.port(), "trader-b");
  ASSERT_TRUE(b);
  auto order = SendOrder(*b, NewOrder(1, w::SIDE_SELL, kPrice, 1));
  ASSERT_TRUE(order.has_value());
  EXPECT_EQ(order.value().reject_reason(), w::REJECT_REASON_INSTRUMENT_NOT_OPEN);
}

}  // namespace
}  // namespace cfx::gateway::server_test
