// Spot node-days end to end (DESIGN.md §2), on the simulated clock from
// 2026-12-01T00:00:00Z: the server lists B200-STD-<day> for the next 7
// delivery days; protobuf and FIX clients find them in their instrument
// lists and rest orders in them; at 00:00 UTC of the delivery day the symbol
// answers "expired", and once its slot is listed for a later day it is
// unknown.
//
// Only buys: the engine takes spot sells only from providers eligible for
// the grade (ratings and attestations), which these tests do not set up.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/fix/fix_test_start.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;
using fix_test::FixFields;
using fix_test::FixMessage;
using fix_test::FixTestClient;

constexpr int64_t kNanosPerDay = int64_t{86'400} * 1'000'000'000;
// The symbols of the first days: the server starts on 2026-12-01.
constexpr const char* kDec2 = "B200-STD-20261202";
constexpr const char* kDec3 = "B200-STD-20261203";
constexpr const char* kDec10 = "B200-STD-20261210";

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogonOptOut(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

const w::Instrument* FindIn(const w::InstrumentList& list,
                            std::string_view symbol) {
  for (const w::Instrument& i : list.instruments()) {
    if (i.symbol() == symbol) return &i;
  }
  return nullptr;
}

// Asks for the InstrumentList until `pred` holds: listings are sequenced
// commands, published shortly after the start and after each clock move.
// Each round trip paces the next; the whole wait is bounded by kWait.
std::optional<w::InstrumentList> AwaitInstruments(
    client::Client& c,
    const std::function<bool(const w::InstrumentList&)>& pred) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  w::InstrumentList last;
  while (std::chrono::steady_clock::now() < deadline) {
    w::Envelope request;
    request.mutable_instrument_list_request();
    if (!c.Send(request).ok()) break;
    auto answer = c.ReceiveUntil(
        [](const w::Envelope& e) { return e.has_instrument_list(); }, kWait);
    if (!answer.has_value()) break;
    last = answer.value().instrument_list();
    if (pred(last)) return last;
  }
  ADD_FAILURE() << "the instrument list never matched; last: "
                << last.ShortDebugString();
  return std::nullopt;
}

// `symbol` is listed in state `state`.
std::function<bool(const w::InstrumentList&)> Listed(std::string symbol,
                                                     w::InstrumentState state) {
  return [symbol, state](const w::InstrumentList& l) {
    const w::Instrument* i = FindIn(l, symbol);
    return i != nullptr && i->state() == state;
  };
}

// Moves the simulated clock to `t` (ns since the epoch) as the admin.
void SetClock(uint16_t port, int64_t t) {
  ClientPtr admin = MustLogOn(port, "admin");
  ASSERT_NE(admin, nullptr);
  w::Envelope e;
  e.mutable_clock_request()->set_set_time_ns(t);
  ASSERT_TRUE(admin->Send(e).ok());
  auto report = admin->ReceiveUntil(
      [](const w::Envelope& x) {
        return x.has_clock_report() || x.has_session_reject();
      },
      kWait);
  ASSERT_TRUE(report.has_value()) << report.error().ToString();
  ASSERT_TRUE(report.value().has_clock_report()) << Describe(report.value());
  EXPECT_EQ(report.value().clock_report().now_ns(), t);
}

// Sends a NewOrder whose symbol the gateway does not know: answered with a
// SessionReject UNKNOWN_SYMBOL.
void ExpectUnknownSymbol(client::Client& c, uint64_t id,
                         const std::string& symbol) {
  ASSERT_TRUE(c.Send(NewOrder(id, w::SIDE_BUY, kPrice, 1, symbol)).ok());
  auto r = c.ReceiveUntil(
      [](const w::Envelope& e) {
        return e.has_session_reject() || e.has_execution_report();
      },
      kWait);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r.value().has_session_reject()) << Describe(r.value());
  EXPECT_EQ(r.value().session_reject().reason(),
            w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL);
}

// ---------------------------------------------------------------- FIX

constexpr std::chrono::milliseconds kFixWait{5'000};

FixFields FixBuy(const std::string& cl_ord_id, const std::string& symbol,
                 const std::string& price) {
  return {
      {11, cl_ord_id}, {55, symbol}, {54, "1"}, {38, "1"},
      {40, "2"},       {44, price},  {59, "1"}, {60, fix_test::FixUtcNow()}};
}

// TRADER_B over a real QuickFIX initiator, its store under `dir`.
std::unique_ptr<FixTestClient> FixLogOn(uint16_t port, const std::string& dir) {
  fix_test::FixClientOptions o;
  o.sender_comp_id = "TRADER_B";
  o.port = port;
  o.username = "trader-b";
  o.password = "demo-trader-b";
  o.store_dir = dir;
  auto c = fix_test::StartFixTestClient(o);
  if (c == nullptr) return nullptr;
  if (!c->WaitLoggedOn(kFixWait)) {
    ADD_FAILURE() << "TRADER_B did not log on\n" << c->Describe();
    return nullptr;
  }
  return c;
}

// TRADER_B's FIX session for a new trading day: the exchange ended the old
// one at the end of the trading day (the daily window on the exchange clock,
// docs/fix.md), so TRADER_B logs on again, on a new store (sequence numbers
// start at 1).
std::unique_ptr<FixTestClient> FixLogOnAgain(std::unique_ptr<FixTestClient> old,
                                             uint16_t port,
                                             const std::string& dir) {
  old->Logout(kFixWait);
  old.reset();  // one QuickFIX session per SessionID in a process
  return FixLogOn(port, dir);
}

std::optional<FixMessage> FixExpect(FixTestClient& c,
                                    const FixTestClient::Predicate& pred,
                                    const std::string& what) {
  FixMessage m;
  if (c.Await(pred, kFixWait, &m)) return m;
  ADD_FAILURE() << "no " << what << "\n" << c.Describe();
  return std::nullopt;
}

FixTestClient::Predicate FixReport(std::string cl_ord_id,
                                   std::string exec_type) {
  return [cl_ord_id, exec_type](const FixMessage& m) {
    return m.type == "8" && m.Get(11) == cl_ord_id && m.Get(150) == exec_type;
  };
}

// The one SecurityList(y) entry of `symbol`; nullopt when it is not listed.
std::optional<FixFields> FixSecurity(FixTestClient& c, const std::string& id,
                                     const std::string& symbol) {
  EXPECT_TRUE(c.Send("x", {{320, id}, {559, "0"}, {55, symbol}}));
  auto list = FixExpect(
      c,
      [id](const FixMessage& m) { return m.type == "y" && m.Get(320) == id; },
      "SecurityList " + id);
  if (!list || list->Get(560) != "0") return std::nullopt;
  const fix_test::FixGroup* g = list->FindGroup(146);
  if (g == nullptr || g->entries.size() != 1) {
    ADD_FAILURE() << list->ToString();
    return std::nullopt;
  }
  return g->entries[0];
}

std::string In(const FixFields& entry, int tag) {
  const std::string* v = fix_test::FindIn(entry, tag);
  return v == nullptr ? std::string() : *v;
}

// ---------------------------------------------------------------- tests

TEST(SpotListing, TheNextSevenDeliveryDaysAreListed) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ASSERT_NE(a, nullptr);
  auto list = AwaitInstruments(
      *a, Listed("B200-PRM-20261208", w::INSTRUMENT_STATE_OPEN));
  ASSERT_TRUE(list);
  int spot = 0;
  for (const w::Instrument& i : list->instruments()) {
    if (i.kind() == w::INSTRUMENT_KIND_SPOT) ++spot;
  }
  EXPECT_EQ(spot, 14) << list->ShortDebugString();  // 2 grades x 7 days
  EXPECT_NE(FindIn(*list, kSymbol), nullptr);
  EXPECT_EQ(FindIn(*list, "B200-STD-20261201"), nullptr);  // today
  EXPECT_EQ(FindIn(*list, "B200-STD-20261209"), nullptr);
  for (int day = 2; day <= 8; ++day) {
    const std::string date = "2026-12-0" + std::to_string(day);
    const std::string symbol = "B200-STD-2026120" + std::to_string(day);
    const w::Instrument* i = FindIn(*list, symbol);
    ASSERT_NE(i, nullptr) << symbol;
    EXPECT_EQ(i->kind(), w::INSTRUMENT_KIND_SPOT);
    EXPECT_EQ(i->grade(), "B200-STD");
    EXPECT_EQ(i->state(), w::INSTRUMENT_STATE_OPEN);
    EXPECT_EQ(i->maturity(), date);
    EXPECT_EQ(i->last_trading_day(), "2026-12-0" + std::to_string(day - 1));
    EXPECT_EQ(i->contract_gpu_hours(), 192);
    EXPECT_EQ(i->tick(), kTick);
    EXPECT_EQ(i->reference_price(), kPrice);
  }
}

TEST(SpotListing, ProtobufAndFixClientsRestBuysInASpotDay) {
  cfx::testing::TempDir dir;
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(AwaitInstruments(*a, Listed(kDec3, w::INSTRUMENT_STATE_OPEN)));

  auto ack = SendOrder(*a, NewOrder(1, w::SIDE_BUY, kPrice, 2, kDec3));
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW)
      << ack.value().ShortDebugString();
  EXPECT_EQ(ack.value().symbol(), kDec3);
  auto status = QueryStatus(*a, ack.value().order_id());
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
  EXPECT_EQ(status.value().symbol(), kDec3);
  EXPECT_EQ(status.value().order_status(), w::ORDER_STATUS_NEW);

  w::Envelope subscribe;
  subscribe.mutable_market_data_subscribe()->set_symbol(kDec3);
  subscribe.mutable_market_data_subscribe()->set_depth(true);
  ASSERT_TRUE(a->Send(subscribe).ok());
  auto snapshot = a->ReceiveUntil(
      [](const w::Envelope& e) { return e.has_book_snapshot(); }, kWait);
  ASSERT_TRUE(snapshot.has_value()) << snapshot.error().ToString();
  const w::BookSnapshot& book = snapshot.value().book_snapshot();
  EXPECT_EQ(book.symbol(), kDec3);
  EXPECT_EQ(book.state(), w::INSTRUMENT_STATE_OPEN);
  ASSERT_EQ(book.bids_size(), 1) << book.ShortDebugString();
  EXPECT_EQ(book.bids(0).price(), kPrice);
  EXPECT_EQ(book.bids(0).quantity(), 2);

  // A FIX member rests a buy one tick lower in the same day.
  auto b = FixLogOn(server.fix_port(), dir.Sub("TRADER_B"));
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->Send("D", FixBuy("b-1", kDec3, "5.79")));
  auto fix_ack = FixExpect(*b, FixReport("b-1", "0"), "b-1 NEW");
  ASSERT_TRUE(fix_ack);
  EXPECT_EQ(fix_ack->Get(55), kDec3) << fix_ack->ToString();
  auto update = a->ReceiveUntil(
      [](const w::Envelope& e) { return e.has_book_update(); }, kWait);
  ASSERT_TRUE(update.has_value()) << update.error().ToString();
  EXPECT_EQ(update.value().book_update().symbol(), kDec3);
  EXPECT_EQ(update.value().book_update().price(), kPrice - kTick);

  const auto security = FixSecurity(*b, "sl-1", kDec3);
  ASSERT_TRUE(security);
  EXPECT_EQ(In(*security, 55), kDec3);
  EXPECT_EQ(In(*security, 167), "SPOT");
  EXPECT_EQ(In(*security, 541), "20261203");  // the delivery day
  EXPECT_EQ(In(*security, 5801), "B200-STD");
  EXPECT_EQ(In(*security, 231), "192");
  EXPECT_EQ(In(*security, 326), "17");  // open
}

TEST(SpotListing, ASymbolExpiresAtMidnightAndIsUnknownOnceItsSlotIsReused) {
  cfx::testing::TempDir dir;
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(AwaitInstruments(*a, Listed(kDec2, w::INSTRUMENT_STATE_OPEN)));
  auto ack = SendOrder(*a, NewOrder(1, w::SIDE_BUY, kPrice, 1, kDec2));
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
  auto b = FixLogOn(server.fix_port(), dir.Sub("TRADER_B"));
  ASSERT_NE(b, nullptr);

  // 00:00 UTC of 2026-12-02: trading in B200-STD-20261202 stops.
  const int64_t dec2 = kDefaultSimulatedStart.nanos + kNanosPerDay;
  SetClock(server.port(), dec2);
  b = FixLogOnAgain(std::move(b), server.fix_port(), dir.Sub("TRADER_B-2"));
  ASSERT_NE(b, nullptr);
  auto cancelled = AwaitReport(*a, [](const w::ExecutionReport& r) {
    return r.client_order_id() == 1 && r.exec_type() == w::EXEC_TYPE_CANCELED;
  });
  ASSERT_TRUE(cancelled.has_value()) << cancelled.error().ToString();
  EXPECT_EQ(cancelled.value().symbol(), kDec2);
  EXPECT_EQ(cancelled.value().cancel_reason(),
            w::CANCEL_REASON_INSTRUMENT_EXPIRED);
  auto list = AwaitInstruments(
      *a, Listed("B200-STD-20261209", w::INSTRUMENT_STATE_OPEN));
  ASSERT_TRUE(list);
  ASSERT_NE(FindIn(*list, kDec2), nullptr);
  EXPECT_EQ(FindIn(*list, kDec2)->state(), w::INSTRUMENT_STATE_EXPIRED);

  // The expired day still resolves: orders get INSTRUMENT_EXPIRED, not
  // "unknown symbol".
  auto late = SendOrder(*a, NewOrder(2, w::SIDE_BUY, kPrice, 1, kDec2));
  ASSERT_TRUE(late.has_value()) << late.error().ToString();
  EXPECT_EQ(late.value().exec_type(), w::EXEC_TYPE_REJECTED);
  EXPECT_EQ(late.value().reject_reason(), w::REJECT_REASON_INSTRUMENT_EXPIRED);
  EXPECT_EQ(late.value().symbol(), kDec2);
  ASSERT_TRUE(b->Send("D", FixBuy("b-1", kDec2, "5.80")));
  auto fix_late = FixExpect(*b, FixReport("b-1", "8"), "b-1 REJECTED");
  ASSERT_TRUE(fix_late);
  EXPECT_EQ(fix_late->Get(55), kDec2);
  EXPECT_NE(fix_late->Get(58).find("INSTRUMENT_EXPIRED"), std::string::npos)
      << fix_late->ToString();
  const auto security = FixSecurity(*b, "sl-1", kDec2);
  ASSERT_TRUE(security);
  EXPECT_EQ(In(*security, 326), "4");  // expired

  // 00:00 UTC of 2026-12-03: the slot of 2026-12-02 now holds 2026-12-10.
  SetClock(server.port(), dec2 + kNanosPerDay);
  b = FixLogOnAgain(std::move(b), server.fix_port(), dir.Sub("TRADER_B-3"));
  ASSERT_NE(b, nullptr);
  list = AwaitInstruments(*a, Listed(kDec10, w::INSTRUMENT_STATE_OPEN));
  ASSERT_TRUE(list);
  EXPECT_EQ(FindIn(*list, kDec2), nullptr);
  ASSERT_NE(FindIn(*list, kDec3), nullptr);
  EXPECT_EQ(FindIn(*list, kDec3)->state(), w::INSTRUMENT_STATE_EXPIRED);
  ExpectUnknownSymbol(*a, 3, kDec2);
  EXPECT_FALSE(FixSecurity(*b, "sl-2", kDec2).has_value());
  auto fresh = SendOrder(*a, NewOrder(4, w::SIDE_BUY, kPrice, 1, kDec10));
  ASSERT_TRUE(fresh.has_value()) << fresh.error().ToString();
  EXPECT_EQ(fresh.value().exec_type(), w::EXEC_TYPE_NEW);
  EXPECT_EQ(fresh.value().symbol(), kDec10);
}

TEST(SpotListing, RestartAndRetransmissionNameTheListing) {
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  uint64_t order_id = 0;
  {
    ClientPtr a = MustLogOn(server.port(), "trader-a");
    ASSERT_NE(a, nullptr);
    ASSERT_TRUE(AwaitInstruments(*a, Listed(kDec3, w::INSTRUMENT_STATE_OPEN)));
    auto ack = SendOrder(*a, NewOrder(1, w::SIDE_BUY, kPrice, 1, kDec3));
    ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
    ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
    order_id = ack.value().order_id();
  }
  ASSERT_TRUE(server.Stop().ok());
  ASSERT_TRUE(server.Start().ok());

  // The startup replay rebuilt the listings.
  ClientPtr a = MustLogOn(server.port(), "trader-a");
  ASSERT_NE(a, nullptr);
  auto status = QueryStatus(*a, order_id);
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
  EXPECT_EQ(status.value().symbol(), kDec3);
  EXPECT_EQ(status.value().order_status(), w::ORDER_STATUS_NEW);
  auto list = AwaitInstruments(*a, Listed(kDec3, w::INSTRUMENT_STATE_OPEN));
  ASSERT_TRUE(list);

  // A retransmission (its own replay, off the gateway thread) names it too.
  // The session ends first; a barrier on another session makes sure the
  // server has noticed.
  a->Close();
  ClientPtr c = MustLogOn(server.port(), "trader-c");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(Barrier(*c).ok());
  client::LogonParams resume = DemoLogonOptOut("trader-a");
  resume.resume_after_seq = 0;
  auto r = LogOn(server.port(), resume);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  auto replayed = AwaitReport(*r.value(), [&](const w::ExecutionReport& x) {
    return x.order_id() == order_id && x.exec_type() == w::EXEC_TYPE_NEW;
  });
  ASSERT_TRUE(replayed.has_value()) << replayed.error().ToString();
  EXPECT_EQ(replayed.value().symbol(), kDec3);
}

}  // namespace
}  // namespace cfx::gateway::server_test
