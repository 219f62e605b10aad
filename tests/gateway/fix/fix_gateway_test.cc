// The FIX gateway against its rules of engagement (docs/fix.md), driven over
// loopback by a real QuickFIX initiator (fix_test_client.h) and, for what a
// FIX engine never sends, by a raw socket: logon and session rules, order
// life cycles, rejects and their reason tags, cancel and replace rejects,
// mass cancel, order status, market data, security list and status, drop
// copies, recovery after a reconnect and after a restart.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::fix_test {
namespace {

using server_test::TestServer;
using Millis = std::chrono::milliseconds;
using Pred = FixTestClient::Predicate;
using ClientPtr = std::unique_ptr<FixTestClient>;

// The bound on a wait for an answer that must come; a passing test never
// waits this long.
constexpr Millis kWait{5'000};
constexpr const char* kSymbol = "XB2SZ6";  // reference $5.80, tick $0.01
constexpr const char* kInvalidLogon = "invalid username or password";

struct DemoUser {
  const char* comp_id;
  const char* username;
  const char* password;
};
// The demo users (deploy/config/exchange.textproto). Accounts and clearing
// members: TRADER_A FIRM-A CM-1, TRADER_B FIRM-B CM-1, TRADER_C FIRM-C CM-2,
// PROVIDER_A PROV-A CM-2.
constexpr DemoUser kTraderA{"TRADER_A", "trader-a", "demo-trader-a"};
constexpr DemoUser kTraderB{"TRADER_B", "trader-b", "demo-trader-b"};
constexpr DemoUser kTraderC{"TRADER_C", "trader-c", "demo-trader-c"};
constexpr DemoUser kProviderA{"PROVIDER_A", "provider-a", "demo-provider-a"};
// Clearing-member users: drop copies of CM-1 and of CM-2.
constexpr DemoUser kClear1{"CLEAR_1", "clear-1", "demo-clear-1"};
constexpr DemoUser kClear2{"CLEAR_2", "clear-2", "demo-clear-2"};

// ---------------------------------------------------------------- values

// A decimal without trailing zeros ("5.80" -> "5.8", "5.000" -> "5"), so
// prices compare by value.
std::string Num(std::string v) {
  if (v.find('.') != std::string::npos) {
    while (!v.empty() && v.back() == '0') v.pop_back();
    if (!v.empty() && v.back() == '.') v.pop_back();
  }
  return v;
}

bool IsDecimalId(const std::string& v) {
  return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
}

// ExecID of a journaled event: <journal seq>-<n>.
bool IsJournalExecId(const std::string& v) {
  return std::regex_match(v, std::regex("[0-9]+-[0-9]+"));
}

// UTCTimestamp with milliseconds: YYYYMMDD-HH:MM:SS.sss.
bool IsUtcMillis(const std::string& v) {
  return std::regex_match(
      v, std::regex("[0-9]{8}-[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}"));
}

// ---------------------------------------------------------------- messages

FixFields NewOrder(const std::string& cl_ord_id, const std::string& side,
                   const std::string& price, const std::string& quantity,
                   const std::string& tif = "1") {
  return {{11, cl_ord_id}, {55, kSymbol}, {54, side}, {38, quantity},
          {40, "2"},       {44, price},   {59, tif},  {60, FixUtcNow()}};
}

FixFields Cancel(const std::string& cl_ord_id, const std::string& orig,
                 const std::string& side, const std::string& order_id = "") {
  FixFields f = {{11, cl_ord_id},
                 {41, orig},
                 {55, kSymbol},
                 {54, side},
                 {60, FixUtcNow()}};
  if (!order_id.empty()) f.push_back({37, order_id});
  return f;
}

FixFields Replace(const std::string& cl_ord_id, const std::string& orig,
                  const std::string& side, const std::string& price,
                  const std::string& quantity) {
  return {{11, cl_ord_id}, {41, orig}, {55, kSymbol}, {54, side},
          {38, quantity},  {40, "2"},  {44, price},   {60, FixUtcNow()}};
}

FixFields StatusRequest(const std::string& cl_ord_id, const std::string& side,
                        const std::string& req_id,
                        const std::string& order_id = "") {
  FixFields f = {{11, cl_ord_id}, {55, kSymbol}, {54, side}, {790, req_id}};
  if (!order_id.empty()) f.push_back({37, order_id});
  return f;
}

std::vector<FixGroup> MdGroups(const std::vector<std::string>& entry_types,
                               const std::string& symbol = kSymbol) {
  FixGroup types{267, {}};
  for (const std::string& t : entry_types) types.entries.push_back({{269, t}});
  FixGroup symbols{146, {{{55, symbol}}}};
  return {types, symbols};
}

std::string RawLogon(const std::string& comp_id, const std::string& username,
                     const std::string& password, int seq = 1) {
  FixFields f = {
      {35, "A"},         {49, comp_id}, {56, "CFX"}, {34, std::to_string(seq)},
      {52, FixUtcNow()}, {98, "0"},     {108, "30"}};
  if (!username.empty()) f.push_back({553, username});
  if (!password.empty()) f.push_back({554, password});
  return BuildFixMessage("FIX.4.4", f);
}

// ---------------------------------------------------------------- predicates

Pred OfType(std::string type) {
  return [type](const FixMessage& m) { return m.type == type; };
}

// An ExecutionReport for `cl_ord_id` with ExecType `exec_type`.
Pred Report(std::string cl_ord_id, std::string exec_type) {
  return [cl_ord_id, exec_type](const FixMessage& m) {
    return m.type == "8" && m.Get(11) == cl_ord_id && m.Get(150) == exec_type;
  };
}

// A fill (ExecType F) of `cl_ord_id` with CumQty `cum`.
Pred Fill(std::string cl_ord_id, std::string cum) {
  return [cl_ord_id, cum](const FixMessage& m) {
    return m.type == "8" && m.Get(11) == cl_ord_id && m.Get(150) == "F" &&
           Num(m.Get(14)) == cum;
  };
}

// A drop copy: a fill with CopyMsgIndicator, for `account`.
Pred DropCopy(std::string account) {
  return [account](const FixMessage& m) {
    return m.type == "8" && m.Get(150) == "F" && m.Get(1) == account;
  };
}

Pred WithField(std::string type, int tag, std::string value) {
  return [type, tag, value](const FixMessage& m) {
    return m.type == type && m.Get(tag) == value;
  };
}

// Every tag of a message: body, header and group entries.
std::set<int> AllTags(const FixMessage& m) {
  std::set<int> tags;
  for (const FixField& f : m.header) tags.insert(f.first);
  for (const FixField& f : m.fields) tags.insert(f.first);
  for (const FixGroup& g : m.groups) {
    for (const FixFields& e : g.entries) {
      for (const FixField& f : e) tags.insert(f.first);
    }
  }
  return tags;
}

// The entries of group `count_tag`; fails the test when the group is absent.
std::vector<FixFields> Entries(const FixMessage& m, int count_tag) {
  const FixGroup* g = m.FindGroup(count_tag);
  if (g == nullptr) {
    ADD_FAILURE() << "no group " << count_tag << " in " << m.ToString()
                  << (DefaultFixDictionary().empty() ||
                              !std::filesystem::exists(DefaultFixDictionary())
                          ? " (no data dictionary: groups are not parsed)"
                          : "");
    return {};
  }
  EXPECT_EQ(m.Get(count_tag), std::to_string(g->entries.size()))
      << m.ToString();
  return g->entries;
}

std::string In(const FixFields& entry, int tag) {
  const std::string* v = FindIn(entry, tag);
  return v == nullptr ? std::string() : *v;
}

// ---------------------------------------------------------------- fixture

class FixGatewayTest : public ::testing::Test {
 protected:
  FixGatewayTest() : FixGatewayTest(server_test::DemoConfig()) {}
  explicit FixGatewayTest(ServerConfig config) : server_(std::move(config)) {}

  void SetUp() override {
    const Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_NE(server_.fix_port(), 0)
        << "ExchangeServer has no FIX port (the FIX gateway is not wired)";
  }

  // A QuickFIX session for `user`, logged on, its store under `store` (the
  // CompID by default). Fails the test and returns nullptr otherwise.
  ClientPtr LogOn(const DemoUser& user, std::string store = "",
                  bool reset_seq_num = false) {
    FixClientOptions o;
    o.sender_comp_id = user.comp_id;
    o.port = server_.fix_port();
    o.username = user.username;
    o.password = user.password;
    o.store_dir = dir_.Sub(store.empty() ? user.comp_id : store);
    o.reset_seq_num = reset_seq_num;
    std::error_code ec;
    std::filesystem::create_directories(o.store_dir, ec);
    auto c = std::make_unique<FixTestClient>(o);
    std::string error;
    if (!c->Start(&error)) {
      ADD_FAILURE() << user.comp_id << ": " << error;
      return nullptr;
    }
    if (!c->WaitLoggedOn(kWait)) {
      ADD_FAILURE() << user.comp_id << " did not log on\n" << c->Describe();
      return nullptr;
    }
    return c;
  }

  std::unique_ptr<RawFixConnection> RawConnect() {
    std::string error;
    auto c = RawFixConnection::Connect("127.0.0.1", server_.fix_port(), &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }

  cfx::testing::TempDir dir_;
  TestServer server_;
};

// The first message matching `pred` not yet taken; fails the test (showing
// what was sent and received) when none arrives in time.
std::optional<FixMessage> Expect(FixTestClient& c, const Pred& pred,
                                 std::string_view what) {
  FixMessage m;
  if (c.Await(pred, kWait, &m)) return m;
  ADD_FAILURE() << "no " << what << " within " << kWait.count() << " ms\n"
                << c.Describe();
  return std::nullopt;
}

// Sends a limit order and returns its ExecutionReport NEW.
std::optional<FixMessage> Rest(FixTestClient& c, const std::string& cl_ord_id,
                               const std::string& side,
                               const std::string& price,
                               const std::string& quantity) {
  EXPECT_TRUE(c.Send("D", NewOrder(cl_ord_id, side, price, quantity)));
  return Expect(c, Report(cl_ord_id, "0"), cl_ord_id + " NEW");
}

// Sends a new order and returns its ExecutionReport REJECTED.
std::optional<FixMessage> Rejected(FixTestClient& c, const FixFields& order) {
  EXPECT_TRUE(c.Send("D", order));
  const std::string cl_ord_id = *FindIn(order, 11);
  return Expect(c, Report(cl_ord_id, "8"), cl_ord_id + " REJECTED");
}

// An OrderStatusRequest for an order nobody has, and its answer: afterwards
// everything the exchange sent this session before the answer is in the
// inbox. Returns the answer's MsgSeqNum, or 0 when there is none.
int BarrierSeq(FixTestClient& c) {
  static int counter = 0;
  const std::string id = "barrier-" + std::to_string(++counter);
  if (!c.Send("H", StatusRequest(id, "1", id))) return 0;
  const auto answer = Expect(
      c,
      [id](const FixMessage& m) {
        return m.type == "8" && m.Get(150) == "I" &&
               (m.Get(790) == id || m.Get(11) == id);
      },
      "answer to status request " + id);
  return answer ? answer->seq() : 0;
}

bool Barrier(FixTestClient& c) { return BarrierSeq(c) > 0; }

// The client's numbers were in line after a reconnect: the exchange asked
// for nothing, or only for the client's last message before it left (its
// Logout: a client that closes right after sending it can reset the
// connection before the exchange reads it, and the exchange then asks for
// it, as FIX recovery wants). `next_sender` is the client's next MsgSeqNum
// when it left.
void ExpectAtMostTheLogoutAskedFor(FixTestClient& c, int next_sender) {
  for (const FixMessage& m : c.Received()) {
    if (m.type != "2") continue;
    EXPECT_EQ(m.Get(7), std::to_string(next_sender - 1)) << c.Describe();
  }
  EXPECT_LE(c.Count(OfType("2")), 1u) << c.Describe();
}

// ---------------------------------------------------------------- logon

TEST_F(FixGatewayTest, LogonIsAnsweredWithLogonFromCfx) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto logon = Expect(*a, OfType("A"), "Logon");
  ASSERT_TRUE(logon);
  SCOPED_TRACE(logon->ToString());
  EXPECT_EQ(*logon->FindHeader(49), "CFX");
  EXPECT_EQ(*logon->FindHeader(56), "TRADER_A");
  EXPECT_EQ(logon->seq(), 1);
  EXPECT_EQ(logon->Get(108), "30");
  EXPECT_EQ(a->logons(), 1);
}

TEST_F(FixGatewayTest, WrongPasswordGetsLogoutWithTextAndClose) {
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(RawLogon("TRADER_A", "trader-a", "demo-trader-b")));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].type, "5") << before[0].ToString();
  EXPECT_EQ(before[0].Get(58), kInvalidLogon) << before[0].ToString();
}

TEST_F(FixGatewayTest, AnotherUsersCredentialsGetTheSameLogout) {
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(RawLogon("TRADER_A", "trader-b", "demo-trader-b")));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].type, "5") << before[0].ToString();
  EXPECT_EQ(before[0].Get(58), kInvalidLogon) << before[0].ToString();
}

TEST_F(FixGatewayTest, MissingPasswordGetsTheSameLogout) {
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(RawLogon("TRADER_A", "trader-a", "")));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].type, "5") << before[0].ToString();
  EXPECT_EQ(before[0].Get(58), kInvalidLogon) << before[0].ToString();
}

TEST_F(FixGatewayTest, UnknownSenderCompIdGetsTheSameLogout) {
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(RawLogon("NOBODY", "trader-a", "demo-trader-a")));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].type, "5") << before[0].ToString();
  EXPECT_EQ(before[0].Get(58), kInvalidLogon) << before[0].ToString();
  EXPECT_EQ(before[0].seq(), 1) << before[0].ToString();
}

// ---------------------------------------------------------- logon back-off

// The one answer of a Logon sent from `source`, as `comp_id` with
// `username` and `password`; nullopt (and a failure) when there is none.
std::optional<FixMessage> LogonAnswer(uint16_t port, const std::string& source,
                                      const std::string& comp_id,
                                      const std::string& username,
                                      const std::string& password,
                                      int seq = 1) {
  std::string error;
  auto raw = RawFixConnection::Connect("127.0.0.1", port, &error, source);
  if (raw == nullptr) {
    ADD_FAILURE() << error;
    return std::nullopt;
  }
  FixMessage m;
  if (!raw->Write(RawLogon(comp_id, username, password, seq)) ||
      raw->Read(kWait, &m) != RawFixConnection::kMessage) {
    ADD_FAILURE() << "no answer to the Logon of " << comp_id;
    return std::nullopt;
  }
  return m;
}

// An attacker's wrong passwords from one address back that address off
// (its next Logon, within the 1 s back-off, is refused unchecked, answered
// 1 s later); the firm's own Logon from another address is checked, and
// accepted.
TEST_F(FixGatewayTest,
       WrongPasswordsFromOneAddressDoNotRefuseTheFirmAtAnother) {
  const uint16_t port = server_.fix_port();
  for (int i = 0; i < 2; ++i) {
    auto m = LogonAnswer(port, "127.0.0.1", "TRADER_A", "trader-a", "guess");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->type, "5") << m->ToString();
    EXPECT_NE(m->Get(58).find(i == 0 ? kInvalidLogon : "try again later"),
              std::string::npos)
        << m->ToString();
  }
  auto firm =
      LogonAnswer(port, "127.0.0.2", "TRADER_A", "trader-a", "demo-trader-a");
  ASSERT_TRUE(firm);
  EXPECT_EQ(firm->type, "A") << firm->ToString();
}

// A mistyped password, then the right one at once from the same address:
// the retry is refused because of the back-off, and says so.
TEST_F(FixGatewayTest, ARetryRightAfterAMistypeIsToldToTryAgainLater) {
  const uint16_t port = server_.fix_port();
  auto first = LogonAnswer(port, "127.0.0.1", "TRADER_A", "trader-a", "oops");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->Get(58), kInvalidLogon) << first->ToString();
  auto retry =
      LogonAnswer(port, "127.0.0.1", "TRADER_A", "trader-a", "demo-trader-a");
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->type, "5") << retry->ToString();
  const std::string text = retry->Get(58);
  EXPECT_NE(text.find("try again later"), std::string::npos) << text;
  EXPECT_EQ(text.find(kInvalidLogon), std::string::npos) << text;
}

// Refusals say the same for a wrong password, an unknown SenderCompID and
// a SenderCompID logged on elsewhere, and none reaches the session: the
// logged-on firm's next message from the exchange keeps its number.
TEST_F(FixGatewayTest, RefusedLogonsReadTheSameAndLeaveTheSessionAlone) {
  ClientPtr b = LogOn(kTraderB);
  ASSERT_NE(b, nullptr);
  const int before = BarrierSeq(*b);
  ASSERT_GT(before, 0);
  const uint16_t port = server_.fix_port();
  // From three addresses, so that no refusal is a back-off.
  auto wrong = LogonAnswer(port, "127.0.0.3", "TRADER_A", "trader-a", "x");
  auto unknown = LogonAnswer(port, "127.0.0.4", "NOBODY", "trader-a", "x");
  auto elsewhere = LogonAnswer(port, "127.0.0.5", "TRADER_B", "trader-b", "x",
                               b->next_sender_seq());
  ASSERT_TRUE(wrong && unknown && elsewhere);
  for (const FixMessage* m : {&*wrong, &*unknown, &*elsewhere}) {
    EXPECT_EQ(m->type, "5") << m->ToString();
    EXPECT_EQ(m->Get(58), kInvalidLogon) << m->ToString();
    EXPECT_EQ(m->seq(), 1) << m->ToString();
    EXPECT_EQ(m->fields, wrong->fields) << m->ToString();
  }
  EXPECT_EQ(BarrierSeq(*b), before + 1) << b->Describe();
  EXPECT_EQ(b->Count(OfType("5")), 0u) << b->Describe();
}

TEST_F(FixGatewayTest, FirstMessageThatIsNotALogonIsClosedWithoutAnswer) {
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(BuildFixMessage("FIX.4.4", {{35, "0"},
                                                     {49, "TRADER_A"},
                                                     {56, "CFX"},
                                                     {34, "1"},
                                                     {52, FixUtcNow()}})));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  for (const FixMessage& m : before) ADD_FAILURE() << "answered: " << m.raw;
}

TEST_F(FixGatewayTest, SecondLogonOfALoggedOnSessionIsClosedAndFirstLives) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  // The same credentials and the next sequence number: only the session
  // being logged on already is wrong.
  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(
      RawLogon("TRADER_A", "trader-a", "demo-trader-a", a->next_sender_seq())));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before)) << "connection still open";
  for (const FixMessage& m : before) {
    EXPECT_NE(m.type, "A") << "second connection logged on: " << m.raw;
  }
  // The first connection is untouched: still logged on, still answered.
  EXPECT_TRUE(Barrier(*a));
  EXPECT_TRUE(a->logged_on());
  EXPECT_EQ(a->logouts(), 0);
  EXPECT_EQ(a->Count(OfType("5")), 0u) << a->Describe();
  auto ack = Rest(*a, "A-1", "1", "5.80", "1");
  EXPECT_TRUE(ack);
}

TEST_F(FixGatewayTest, MessageTypeOutsideTheDictionaryGetsSessionReject) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  const int seq = a->next_sender_seq();
  // NewOrderMultileg(AB): FIX 4.4, not CFX.
  ASSERT_TRUE(a->Send("AB", {{11, "A-1"}, {54, "1"}, {60, FixUtcNow()}}));
  auto reject = Expect(*a, OfType("3"), "Reject(3)");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(45), std::to_string(seq));
  EXPECT_EQ(reject->Get(373), "11");
  EXPECT_TRUE(a->logged_on());
}

// ---------------------------------------------------------------- orders

TEST_F(FixGatewayTest, NewOrderIsAcknowledgedWithItsTerms) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  EXPECT_TRUE(IsDecimalId(ack->Get(37)));
  EXPECT_TRUE(IsJournalExecId(ack->Get(17)));
  EXPECT_EQ(ack->Get(39), "0");
  EXPECT_EQ(ack->Get(1), "FIRM-A");
  EXPECT_EQ(ack->Get(55), kSymbol);
  EXPECT_EQ(ack->Get(54), "1");
  EXPECT_EQ(ack->Get(40), "2");
  EXPECT_EQ(ack->Get(59), "1");
  EXPECT_EQ(Num(ack->Get(44)), "5.8");
  EXPECT_EQ(Num(ack->Get(38)), "5");
  EXPECT_EQ(Num(ack->Get(151)), "5");
  EXPECT_EQ(Num(ack->Get(14)), "0");
  EXPECT_EQ(Num(ack->Get(6)), "0");
  EXPECT_TRUE(IsUtcMillis(ack->Get(60)));
}

TEST_F(FixGatewayTest, FullFillIsReportedToBothSidesWithOneTrdMatchId) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "5")));
  auto maker = Expect(*a, Fill("A-1", "5"), "A-1 fill");
  auto taker = Expect(*b, Fill("B-1", "5"), "B-1 fill");
  ASSERT_TRUE(maker && taker);
  EXPECT_EQ(maker->Get(37), ack->Get(37));
  EXPECT_EQ(maker->Get(39), "2");
  EXPECT_EQ(taker->Get(39), "2");
  for (const FixMessage* m : {&*maker, &*taker}) {
    EXPECT_EQ(Num(m->Get(32)), "5") << m->ToString();
    EXPECT_EQ(Num(m->Get(31)), "5.8") << m->ToString();
    EXPECT_EQ(Num(m->Get(151)), "0") << m->ToString();
    EXPECT_EQ(Num(m->Get(6)), "5.8") << m->ToString();
    EXPECT_FALSE(m->Has(797)) << m->ToString();
    EXPECT_TRUE(IsJournalExecId(m->Get(17))) << m->ToString();
  }
  EXPECT_EQ(taker->Get(1), "FIRM-B");
  EXPECT_FALSE(maker->Get(880).empty());
  EXPECT_EQ(maker->Get(880), taker->Get(880));
  EXPECT_NE(maker->Get(17), taker->Get(17));
}

TEST_F(FixGatewayTest, PartialFillThenCancelLeavesNothing) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "2")));
  auto fill = Expect(*a, Fill("A-1", "2"), "A-1 partial fill");
  ASSERT_TRUE(fill);
  SCOPED_TRACE(fill->ToString());
  EXPECT_EQ(fill->Get(39), "1");
  EXPECT_EQ(Num(fill->Get(151)), "3");

  ASSERT_TRUE(a->Send("F", Cancel("A-2", "A-1", "1")));
  auto cancel = Expect(*a, Report("A-2", "4"), "A-2 CANCELED");
  ASSERT_TRUE(cancel);
  SCOPED_TRACE(cancel->ToString());
  EXPECT_EQ(cancel->Get(41), "A-1");
  EXPECT_EQ(cancel->Get(37), ack->Get(37));
  EXPECT_EQ(cancel->Get(39), "4");
  EXPECT_EQ(Num(cancel->Get(151)), "0");
  EXPECT_EQ(Num(cancel->Get(14)), "2");
}

TEST_F(FixGatewayTest, ReplaceChangesPriceAndQuantityAndTakesTheNewClOrdId) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(a->Send("G", Replace("A-2", "A-1", "1", "5.79", "7")));
  auto replaced = Expect(*a, Report("A-2", "5"), "A-2 REPLACED");
  ASSERT_TRUE(replaced);
  SCOPED_TRACE(replaced->ToString());
  EXPECT_EQ(replaced->Get(41), "A-1");
  EXPECT_EQ(replaced->Get(37), ack->Get(37));
  EXPECT_EQ(replaced->Get(39), "0");
  EXPECT_EQ(Num(replaced->Get(44)), "5.79");
  EXPECT_EQ(Num(replaced->Get(38)), "7");
  EXPECT_EQ(Num(replaced->Get(151)), "7");

  // The replace's ClOrdID is now the order's.
  ASSERT_TRUE(a->Send("F", Cancel("A-3", "A-2", "1")));
  auto cancel = Expect(*a, Report("A-3", "4"), "A-3 CANCELED");
  ASSERT_TRUE(cancel);
  SCOPED_TRACE(cancel->ToString());
  EXPECT_EQ(cancel->Get(41), "A-2");
  EXPECT_EQ(cancel->Get(37), ack->Get(37));
}

TEST_F(FixGatewayTest, CancelByOrderIdWinsOverOrigClOrdId) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(a->Send("F", Cancel("A-2", "NO-SUCH", "1", ack->Get(37))));
  auto cancel = Expect(*a, Report("A-2", "4"), "A-2 CANCELED");
  ASSERT_TRUE(cancel);
  SCOPED_TRACE(cancel->ToString());
  EXPECT_EQ(cancel->Get(37), ack->Get(37));
  EXPECT_EQ(cancel->Get(41), "A-1");
}

TEST_F(FixGatewayTest, IocRemainderIsCanceledWithItsReason) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Rest(*b, "B-1", "1", "5.80", "2"));
  ASSERT_TRUE(a->Send("D", NewOrder("A-1", "2", "5.80", "5", "3")));
  auto fill = Expect(*a, Fill("A-1", "2"), "A-1 fill");
  auto rest = Expect(*a, Report("A-1", "4"), "A-1 CANCELED");
  ASSERT_TRUE(fill && rest);
  EXPECT_EQ(rest->Get(39), "4");
  EXPECT_EQ(rest->Get(59), "3");
  EXPECT_EQ(Num(rest->Get(151)), "0");
  EXPECT_EQ(Num(rest->Get(14)), "2");
  EXPECT_EQ(rest->Get(58), "IOC_REMAINDER");
}

TEST_F(FixGatewayTest, FokThatCannotFillIsCanceledWithItsReason) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("D", NewOrder("A-1", "1", "5.80", "5", "4")));
  auto cancel = Expect(*a, Report("A-1", "4"), "A-1 CANCELED");
  ASSERT_TRUE(cancel);
  SCOPED_TRACE(cancel->ToString());
  EXPECT_EQ(cancel->Get(39), "4");
  EXPECT_EQ(Num(cancel->Get(14)), "0");
  EXPECT_EQ(cancel->Get(58), "FOK_NOT_FILLED");
  EXPECT_EQ(a->Count(Report("A-1", "F")), 0u);
}

TEST_F(FixGatewayTest, CancelSentRightBehindItsOrderIsApplied) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  // No wait for the acknowledgement: the cancel may reach the gateway while
  // the order is still in flight.
  ASSERT_TRUE(a->Send("D", NewOrder("A-1", "1", "5.80", "5")));
  ASSERT_TRUE(a->Send("F", Cancel("A-2", "A-1", "1")));
  auto ack = Expect(*a, Report("A-1", "0"), "A-1 NEW");
  auto cancel = Expect(*a, Report("A-2", "4"), "A-2 CANCELED");
  ASSERT_TRUE(ack && cancel);
  EXPECT_EQ(cancel->Get(37), ack->Get(37)) << cancel->ToString();
  EXPECT_EQ(cancel->Get(41), "A-1") << cancel->ToString();
  EXPECT_EQ(a->Count(OfType("9")), 0u) << a->Describe();
}

TEST_F(FixGatewayTest, OrdersEnteredOverProtobufAreReportedOnFix) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto pb = server_test::LogOn(server_.port(),
                               server_test::DemoLogonOptOut("trader-a"));
  ASSERT_TRUE(pb.has_value()) << pb.error().ToString();
  auto pb_ack = server_test::SendOrder(
      *pb.value(), server_test::NewOrder(77, server_test::w::SIDE_BUY,
                                         server_test::kPrice, 5));
  ASSERT_TRUE(pb_ack.has_value()) << pb_ack.error().ToString();
  // Its ClOrdID is the decimal client order id.
  auto ack = Expect(*a, Report("77", "0"), "77 NEW");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  EXPECT_EQ(ack->Get(37), std::to_string(pb_ack.value().order_id()));
  EXPECT_EQ(ack->Get(1), "FIRM-A");
  EXPECT_EQ(Num(ack->Get(44)), "5.8");
  EXPECT_EQ(Num(ack->Get(38)), "5");
}

TEST_F(FixGatewayTest, NumericClOrdIdIsTheProtobufClientOrderId) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "42", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  auto pb = server_test::LogOn(server_.port(),
                               server_test::DemoLogonOptOut("trader-a"));
  ASSERT_TRUE(pb.has_value()) << pb.error().ToString();
  auto status =
      server_test::QueryStatus(*pb.value(), std::stoull(ack->Get(37)));
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
  EXPECT_EQ(status.value().client_order_id(), 42u)
      << status.value().ShortDebugString();
}

// ---------------------------------------------------------------- rejects

TEST_F(FixGatewayTest, OffTickPriceIsRejectedNeverRounded) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto reject = Rejected(*a, NewOrder("A-1", "1", "5.805", "5"));
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(37), "NONE");
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(103), "99");
  // docs/fix.md names both the engine's reason and the gateway's own text.
  const std::string text = reject->Get(58);
  EXPECT_TRUE(text == "PRICE_NOT_ON_TICK" ||
              text.find("MinPriceIncrement") != std::string::npos)
      << text;
  // Not rounded to 5.80 or 5.81: a sell at 5.80 finds no bid.
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "5", "3")));
  auto ioc = Expect(*b, Report("B-1", "4"), "B-1 CANCELED");
  ASSERT_TRUE(ioc);
  SCOPED_TRACE(ioc->ToString());
  EXPECT_EQ(Num(ioc->Get(14)), "0");
  EXPECT_EQ(b->Count(Report("B-1", "F")), 0u);
}

TEST_F(FixGatewayTest, PriceOutsideTheBandIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto reject = Rejected(*a, NewOrder("A-1", "1", "6.50", "5"));  // > +10 %
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(103), "16");
  EXPECT_EQ(reject->Get(58), "PRICE_OUTSIDE_BAND");
}

TEST_F(FixGatewayTest, UnknownSymbolIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  FixFields order = NewOrder("A-1", "1", "5.80", "5");
  order[1].second = "NOSUCH";
  auto reject = Rejected(*a, order);
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(103), "1");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, AccountOfAnotherFirmIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  FixFields order = NewOrder("A-1", "1", "5.80", "5");
  order.push_back({1, "FIRM-B"});
  auto reject = Rejected(*a, order);
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(103), "15");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, OwnAccountMayBeNamed) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  FixFields order = NewOrder("A-1", "1", "5.80", "5");
  order.push_back({1, "FIRM-A"});
  ASSERT_TRUE(a->Send("D", order));
  auto ack = Expect(*a, Report("A-1", "0"), "A-1 NEW");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  EXPECT_EQ(ack->Get(1), "FIRM-A");
}

TEST_F(FixGatewayTest, ReusedClOrdIdIsRejectedAsDuplicate) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  auto reject = Rejected(*a, NewOrder("A-1", "1", "5.79", "1"));
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(103), "6");
  EXPECT_EQ(reject->Get(58), "DUPLICATE_CLIENT_ORDER_ID");
}

TEST_F(FixGatewayTest, ZeroQuantityIsRejectedAsIncorrectQuantity) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto reject = Rejected(*a, NewOrder("A-1", "1", "5.80", "0"));
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(103), "13");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, FractionalQuantityIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto reject = Rejected(*a, NewOrder("A-1", "1", "5.80", "5.5"));
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_TRUE(reject->Has(103)) << reject->ToString();
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, MarketOrderThatIsNotIocOrFokIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto reject = Rejected(*a, {{11, "A-1"},
                              {55, kSymbol},
                              {54, "1"},
                              {38, "5"},
                              {40, "1"},
                              {59, "1"},
                              {60, FixUtcNow()}});
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(103), "11");
  EXPECT_EQ(reject->Get(58), "MARKET_ORDER_NEEDS_IOC_OR_FOK");
}

TEST_F(FixGatewayTest, PostOnlyOrderThatWouldCrossIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Rest(*b, "B-1", "2", "5.80", "5"));
  FixFields order = NewOrder("A-1", "1", "5.80", "5");
  order.push_back({18, "6"});
  auto reject = Rejected(*a, order);
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(103), "11");
  EXPECT_EQ(reject->Get(58), "POST_ONLY_WOULD_CROSS");
  EXPECT_EQ(b->Count(Report("B-1", "F")), 0u);
}

TEST_F(FixGatewayTest, GtdWithoutExpireTimeGetsBusinessReject) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("D", NewOrder("A-1", "1", "5.80", "5", "6")));
  auto reject = Expect(*a, OfType("j"), "BusinessMessageReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(372), "D");
  EXPECT_EQ(reject->Get(379), "A-1");
  EXPECT_EQ(reject->Get(380), "5");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, MissingRequiredFieldGetsSessionReject) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  const int seq = a->next_sender_seq();
  FixFields order = NewOrder("A-1", "1", "5.80", "5");
  order.erase(order.begin() + 2);  // Side(54)
  ASSERT_TRUE(a->Send("D", order));
  auto reject = Expect(*a, OfType("3"), "Reject(3)");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(45), std::to_string(seq));
  EXPECT_EQ(reject->Get(373), "1");
  EXPECT_EQ(reject->Get(371), "54");
  EXPECT_FALSE(reject->Get(58).empty());
  EXPECT_EQ(a->Count(OfType("8")), 0u);
}

TEST_F(FixGatewayTest, LimitOrderWithoutPriceGetsBusinessReject) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  const int seq = a->next_sender_seq();
  ASSERT_TRUE(a->Send("D", {{11, "A-1"},
                            {55, kSymbol},
                            {54, "1"},
                            {38, "5"},
                            {40, "2"},
                            {59, "1"},
                            {60, FixUtcNow()}}));
  auto reject = Expect(*a, OfType("j"), "BusinessMessageReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(45), std::to_string(seq));
  EXPECT_EQ(reject->Get(372), "D");
  EXPECT_EQ(reject->Get(379), "A-1");
  EXPECT_EQ(reject->Get(380), "5");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, ClearingMemberEnteringAnOrderGetsBusinessReject) {
  ClientPtr cm = LogOn(kClear1);
  ASSERT_NE(cm, nullptr);
  const int seq = cm->next_sender_seq();
  ASSERT_TRUE(cm->Send("D", NewOrder("CM-1", "1", "5.80", "5")));
  auto reject = Expect(*cm, OfType("j"), "BusinessMessageReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(45), std::to_string(seq));
  EXPECT_EQ(reject->Get(372), "D");
  EXPECT_EQ(reject->Get(379), "CM-1");
  EXPECT_EQ(reject->Get(380), "6");
  EXPECT_FALSE(reject->Get(58).empty());
  EXPECT_EQ(cm->Count(OfType("8")), 0u) << cm->Describe();
}

// ClOrdID texts (docs/fix.md, "Durability"): an accepted order's text is in
// <data-dir>/fix/clordids before its report goes out; a rejected order's is
// never kept.
TEST_F(FixGatewayTest, ClOrdIdTextIsKeptForAcceptedOrdersOnly) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "kept-1", "1", "5.80", "5"));
  ASSERT_TRUE(Rejected(*a, NewOrder("dropped-1", "1", "6.50", "5")));
  std::ifstream in(server_.data_dir() + "/data/fix/clordids");
  ASSERT_TRUE(in.is_open());
  const std::string file((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_NE(file.find(" kept-1\n"), std::string::npos) << file;
  EXPECT_EQ(file.find("dropped-1"), std::string::npos) << file;
}

// ---------------------------------------------------------------- cancel and
// replace rejects

TEST_F(FixGatewayTest, CancelOfUnknownOrderIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("F", Cancel("A-2", "A-1", "1")));
  auto reject = Expect(*a, OfType("9"), "OrderCancelReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(11), "A-2");
  EXPECT_EQ(reject->Get(41), "A-1");
  EXPECT_EQ(reject->Get(37), "NONE");
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(434), "1");
  EXPECT_EQ(reject->Get(102), "1");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, CancelOfAnotherAccountsOrderIsAnsweredAsUnknown) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto theirs = Rest(*b, "B-1", "1", "5.80", "5");
  ASSERT_TRUE(theirs);
  SCOPED_TRACE(theirs->ToString());
  const std::string their_id = theirs->Get(37);
  // By B's OrderID, and for comparison by an OrderID nobody has.
  ASSERT_TRUE(a->Send("F", Cancel("A-1", "B-1", "1", their_id)));
  auto reject = Expect(*a, WithField("9", 11, "A-1"), "A-1 cancel reject");
  ASSERT_TRUE(a->Send("F", Cancel("A-2", "X-1", "1", "999999999")));
  auto unknown = Expect(*a, WithField("9", 11, "A-2"), "A-2 cancel reject");
  ASSERT_TRUE(reject && unknown);
  for (int tag : {37, 39, 434, 102, 58}) {
    EXPECT_EQ(reject->Get(tag), unknown->Get(tag)) << "tag " << tag;
  }
  EXPECT_EQ(reject->Get(102), "1");
  EXPECT_EQ(reject->Get(37), "NONE");
  // B's order still rests, untouched.
  ASSERT_TRUE(b->Send("H", StatusRequest("B-1", "1", "st-1", their_id)));
  auto status = Expect(*b, WithField("8", 790, "st-1"), "B-1 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(39), "0");
  EXPECT_EQ(b->Count(Report("B-1", "4")), 0u);
}

TEST_F(FixGatewayTest, ReplaceOfUnknownOrderIsRejected) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("G", Replace("A-2", "A-1", "1", "5.80", "5")));
  auto reject = Expect(*a, OfType("9"), "OrderCancelReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(11), "A-2");
  EXPECT_EQ(reject->Get(41), "A-1");
  EXPECT_EQ(reject->Get(37), "NONE");
  EXPECT_EQ(reject->Get(39), "8");
  EXPECT_EQ(reject->Get(434), "2");
  EXPECT_EQ(reject->Get(102), "1");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, ReplaceOutsideTheBandIsRejectedAndLeavesTheOrder) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(a->Send("G", Replace("A-2", "A-1", "1", "6.50", "5")));
  auto reject = Expect(*a, OfType("9"), "OrderCancelReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(11), "A-2");
  EXPECT_EQ(reject->Get(41), "A-1");
  EXPECT_EQ(reject->Get(37), ack->Get(37));
  EXPECT_EQ(reject->Get(39), "0");
  EXPECT_EQ(reject->Get(434), "2");
  EXPECT_EQ(reject->Get(102), "99");
  EXPECT_EQ(reject->Get(58), "PRICE_OUTSIDE_BAND");
  // The order keeps its ClOrdID and terms.
  ASSERT_TRUE(a->Send("H", StatusRequest("A-1", "1", "st-1")));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "A-1 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(37), ack->Get(37));
  EXPECT_EQ(Num(status->Get(44)), "5.8");
  EXPECT_EQ(Num(status->Get(38)), "5");
}

TEST_F(FixGatewayTest, CancelOfAFilledOrderIsRejectedAsUnknown) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "2"));
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "2")));
  ASSERT_TRUE(Expect(*a, Fill("A-1", "2"), "A-1 fill"));
  ASSERT_TRUE(a->Send("F", Cancel("A-2", "A-1", "1")));
  auto reject = Expect(*a, OfType("9"), "OrderCancelReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(434), "1");
  EXPECT_EQ(reject->Get(102), "1");
  EXPECT_FALSE(reject->Get(58).empty());
}

// ---------------------------------------------------------------- mass cancel

TEST_F(FixGatewayTest, MassCancelForASymbolCancelsTheSessionsOrdersOnly) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  ASSERT_TRUE(Rest(*a, "A-2", "1", "5.79", "3"));
  auto theirs = Rest(*b, "B-1", "1", "5.78", "1");
  ASSERT_TRUE(theirs);
  SCOPED_TRACE(theirs->ToString());
  ASSERT_TRUE(a->Send(
      "q", {{11, "A-MC"}, {530, "1"}, {55, kSymbol}, {60, FixUtcNow()}}));
  auto report = Expect(*a, OfType("r"), "OrderMassCancelReport");
  ASSERT_TRUE(report);
  SCOPED_TRACE(report->ToString());
  EXPECT_EQ(report->Get(11), "A-MC");
  EXPECT_EQ(report->Get(37), "A-MC");
  EXPECT_EQ(report->Get(530), "1");
  EXPECT_EQ(report->Get(531), "1");
  EXPECT_EQ(report->Get(533), "2");
  for (const char* cl : {"A-1", "A-2"}) {
    auto cancel = Expect(*a, Report(cl, "4"), std::string(cl) + " CANCELED");
    ASSERT_TRUE(cancel);
    SCOPED_TRACE(cancel->ToString());
    EXPECT_EQ(cancel->Get(39), "4");
    EXPECT_FALSE(cancel->Get(58).empty());
  }
  ASSERT_TRUE(b->Send("H", StatusRequest("B-1", "1", "st-1")));
  auto status = Expect(*b, WithField("8", 790, "st-1"), "B-1 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(39), "0");
}

TEST_F(FixGatewayTest, MassCancelOfAllOrdersCancelsEveryOrder) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  ASSERT_TRUE(Rest(*a, "A-2", "2", "5.90", "5"));
  ASSERT_TRUE(a->Send("q", {{11, "A-MC"}, {530, "7"}, {60, FixUtcNow()}}));
  auto report = Expect(*a, OfType("r"), "OrderMassCancelReport");
  ASSERT_TRUE(report);
  SCOPED_TRACE(report->ToString());
  EXPECT_EQ(report->Get(530), "7");
  EXPECT_EQ(report->Get(531), "7");
  EXPECT_EQ(report->Get(533), "2");
  EXPECT_TRUE(Expect(*a, Report("A-1", "4"), "A-1 CANCELED"));
  EXPECT_TRUE(Expect(*a, Report("A-2", "4"), "A-2 CANCELED"));
}

TEST_F(FixGatewayTest, MassCancelForASymbolWithoutSymbolGetsBusinessReject) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("q", {{11, "A-MC"}, {530, "1"}, {60, FixUtcNow()}}));
  auto reject = Expect(*a, OfType("j"), "BusinessMessageReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(372), "q");
  EXPECT_EQ(reject->Get(379), "A-MC");
  EXPECT_EQ(reject->Get(380), "5");
  EXPECT_FALSE(reject->Get(58).empty());
}

// ---------------------------------------------------------------- order
// status

TEST_F(FixGatewayTest, OrderStatusAnswersFromTheEnginesState) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  SCOPED_TRACE(ack->ToString());
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "2")));
  ASSERT_TRUE(Expect(*a, Fill("A-1", "2"), "A-1 fill"));
  ASSERT_TRUE(a->Send("H", StatusRequest("A-1", "1", "st-1")));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "A-1 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(150), "I");
  EXPECT_EQ(status->Get(11), "A-1");
  EXPECT_EQ(status->Get(37), ack->Get(37));
  EXPECT_EQ(status->Get(39), "1");
  EXPECT_EQ(Num(status->Get(38)), "5");
  EXPECT_EQ(Num(status->Get(14)), "2");
  EXPECT_EQ(Num(status->Get(151)), "3");
  EXPECT_EQ(Num(status->Get(44)), "5.8");
  EXPECT_EQ(Num(status->Get(6)), "5.8");
}

TEST_F(FixGatewayTest, OrderStatusByOrderIdWinsOverClOrdId) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto first = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(first);
  ASSERT_TRUE(Rest(*a, "A-2", "1", "5.79", "3"));
  ASSERT_TRUE(a->Send("H", StatusRequest("A-2", "1", "st-1", first->Get(37))));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(37), first->Get(37));
  EXPECT_EQ(Num(status->Get(44)), "5.8");
  EXPECT_EQ(Num(status->Get(38)), "5");
}

TEST_F(FixGatewayTest, OrderStatusOfAnUnknownOrderSaysSo) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("H", StatusRequest("A-9", "1", "st-1")));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "A-9 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(150), "I");
  EXPECT_EQ(status->Get(39), "8");
  EXPECT_EQ(status->Get(103), "5");
  EXPECT_EQ(status->Get(58), "UNKNOWN_ORDER");
}

TEST_F(FixGatewayTest, OrderStatusOfAnotherAccountsOrderIsUnknown) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ASSERT_TRUE(a && b);
  auto theirs = Rest(*b, "B-1", "1", "5.80", "5");
  ASSERT_TRUE(theirs);
  SCOPED_TRACE(theirs->ToString());
  ASSERT_TRUE(a->Send("H", StatusRequest("B-1", "1", "st-1", theirs->Get(37))));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(150), "I");
  EXPECT_EQ(status->Get(39), "8");
  EXPECT_EQ(status->Get(103), "5");
  EXPECT_EQ(status->Get(58), "UNKNOWN_ORDER");
  EXPECT_NE(Num(status->Get(38)), "5") << status->ToString();
}

// ---------------------------------------------------------------- market data

TEST_F(FixGatewayTest, SnapshotShowsTheBookWithoutIdentities) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ClientPtr c = LogOn(kTraderC);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.79", "5"));
  ASSERT_TRUE(Rest(*b, "B-1", "1", "5.79", "3"));
  ASSERT_TRUE(Rest(*b, "B-2", "2", "5.82", "2"));
  ASSERT_TRUE(c->Send("V", {{262, "md-1"}, {263, "0"}, {264, "0"}},
                      MdGroups({"0", "1"})));
  auto w = Expect(*c, OfType("W"), "MarketDataSnapshotFullRefresh");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  EXPECT_EQ(w->Get(262), "md-1");
  EXPECT_EQ(w->Get(55), kSymbol);
  const std::vector<FixFields> entries = Entries(*w, 268);
  ASSERT_EQ(entries.size(), 2u) << w->ToString();
  EXPECT_EQ(In(entries[0], 269), "0");
  EXPECT_EQ(Num(In(entries[0], 270)), "5.79");
  EXPECT_EQ(Num(In(entries[0], 271)), "8");
  EXPECT_EQ(In(entries[0], 346), "2");
  EXPECT_EQ(In(entries[1], 269), "1");
  EXPECT_EQ(Num(In(entries[1], 270)), "5.82");
  EXPECT_EQ(Num(In(entries[1], 271)), "2");
  EXPECT_EQ(In(entries[1], 346), "1");
  for (int tag : {1, 11, 37, 448, 453}) {
    EXPECT_EQ(AllTags(*w).count(tag), 0u)
        << "tag " << tag << " in " << w->ToString();
  }
}

TEST_F(FixGatewayTest, SubscriptionSendsIncrementalBookAndTradeUpdates) {
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ClientPtr c = LogOn(kTraderC);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(c->Send("V", {{262, "md-1"}, {263, "1"}, {264, "0"}, {265, "1"}},
                      MdGroups({"0", "1", "2"})));
  auto w = Expect(*c, OfType("W"), "MarketDataSnapshotFullRefresh");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  EXPECT_EQ(w->Get(262), "md-1");

  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.79", "5"));
  auto new_bid = Expect(
      *c,
      [](const FixMessage& m) {
        if (m.type != "X") return false;
        const FixGroup* g = m.FindGroup(268);
        if (g == nullptr) return false;
        for (const FixFields& e : g->entries) {
          if (In(e, 279) == "0" && In(e, 269) == "0" &&
              Num(In(e, 270)) == "5.79") {
            return true;
          }
        }
        return false;
      },
      "X with the new bid level");
  ASSERT_TRUE(new_bid);
  SCOPED_TRACE(new_bid->ToString());
  EXPECT_EQ(new_bid->Get(262), "md-1");
  for (const FixFields& e : Entries(*new_bid, 268)) {
    if (In(e, 279) != "0") continue;
    EXPECT_EQ(In(e, 55), kSymbol);
    EXPECT_EQ(Num(In(e, 271)), "5");
    EXPECT_EQ(In(e, 346), "1");
  }

  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.79", "2")));
  auto trade = Expect(
      *c,
      [](const FixMessage& m) {
        const FixGroup* g = m.FindGroup(268);
        if (m.type != "X" || g == nullptr) return false;
        for (const FixFields& e : g->entries) {
          if (In(e, 269) == "2") return true;
        }
        return false;
      },
      "X with the trade");
  ASSERT_TRUE(trade);
  SCOPED_TRACE(trade->ToString());
  for (const FixFields& e : Entries(*trade, 268)) {
    if (In(e, 269) != "2") continue;
    EXPECT_EQ(Num(In(e, 270)), "5.79");
    EXPECT_EQ(Num(In(e, 271)), "2");
    EXPECT_FALSE(In(e, 1003).empty());
  }
  for (int tag : {1, 11, 37, 448, 453}) {
    EXPECT_EQ(AllTags(*trade).count(tag), 0u) << trade->ToString();
  }
}

TEST_F(FixGatewayTest, MarketDataForAnUnknownSymbolIsRejected) {
  ClientPtr c = LogOn(kTraderC);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", {{262, "md-1"}, {263, "0"}, {264, "0"}},
                      MdGroups({"0", "1"}, "NOSUCH")));
  auto reject = Expect(*c, OfType("Y"), "MarketDataRequestReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(262), "md-1");
  EXPECT_EQ(reject->Get(281), "0");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, SubscriptionToPartOfTheBookIsRejected) {
  ClientPtr c = LogOn(kTraderC);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", {{262, "md-1"}, {263, "1"}, {264, "5"}, {265, "1"}},
                      MdGroups({"0", "1"})));
  auto reject = Expect(*c, OfType("Y"), "MarketDataRequestReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(262), "md-1");
  EXPECT_EQ(reject->Get(281), "5");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, DuplicateMdReqIdOfALiveSubscriptionIsRejected) {
  ClientPtr c = LogOn(kTraderC);
  ASSERT_NE(c, nullptr);
  const FixFields subscribe = {
      {262, "md-1"}, {263, "1"}, {264, "0"}, {265, "1"}};
  ASSERT_TRUE(c->Send("V", subscribe, MdGroups({"0", "1"})));
  ASSERT_TRUE(Expect(*c, OfType("W"), "MarketDataSnapshotFullRefresh"));
  ASSERT_TRUE(c->Send("V", subscribe, MdGroups({"0", "1"})));
  auto reject = Expect(*c, OfType("Y"), "MarketDataRequestReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(262), "md-1");
  EXPECT_EQ(reject->Get(281), "1");
  EXPECT_FALSE(reject->Get(58).empty());
}

TEST_F(FixGatewayTest, IndexValuesAreNotOfferedAsMarketData) {
  ClientPtr c = LogOn(kTraderC);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(
      c->Send("V", {{262, "md-1"}, {263, "0"}, {264, "0"}}, MdGroups({"3"})));
  auto reject = Expect(*c, OfType("Y"), "MarketDataRequestReject");
  ASSERT_TRUE(reject);
  SCOPED_TRACE(reject->ToString());
  EXPECT_EQ(reject->Get(262), "md-1");
  EXPECT_EQ(reject->Get(281), "8");
  EXPECT_FALSE(reject->Get(58).empty());
}

// ---------------------------------------------------------------- security
// list and status

TEST_F(FixGatewayTest, SecurityListDescribesOneInstrument) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("x", {{320, "sl-1"}, {559, "0"}, {55, kSymbol}}));
  auto list = Expect(*a, OfType("y"), "SecurityList");
  ASSERT_TRUE(list);
  SCOPED_TRACE(list->ToString());
  EXPECT_EQ(list->Get(320), "sl-1");
  EXPECT_FALSE(list->Get(322).empty());
  EXPECT_EQ(list->Get(560), "0");
  const std::vector<FixFields> entries = Entries(*list, 146);
  ASSERT_EQ(entries.size(), 1u) << list->ToString();
  const FixFields& e = entries[0];
  EXPECT_EQ(In(e, 55), kSymbol);
  EXPECT_EQ(In(e, 167), "FUT");
  EXPECT_EQ(In(e, 200), "202612");
  EXPECT_EQ(In(e, 541), "20261231");  // the last Mon-Fri of December 2026
  EXPECT_EQ(In(e, 15), "USD");
  EXPECT_EQ(Num(In(e, 969)), "0.01");
  EXPECT_EQ(Num(In(e, 231)), "730");
  EXPECT_EQ(In(e, 5801), "B200-STD");
  EXPECT_EQ(In(e, 5802), "GPU-HOUR");
  EXPECT_EQ(In(e, 326), "17");
}

TEST_F(FixGatewayTest, SecurityListOfAllInstrumentsHasEveryFuture) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("x", {{320, "sl-1"}, {559, "4"}}));
  auto list = Expect(*a, OfType("y"), "SecurityList");
  ASSERT_TRUE(list);
  SCOPED_TRACE(list->ToString());
  EXPECT_EQ(list->Get(560), "0");
  std::set<std::string> symbols;
  for (const FixFields& e : Entries(*list, 146)) symbols.insert(In(e, 55));
  for (const char* s : {"XB2SZ6", "XB2SX7", "XB2PZ6", "XB2PX7"}) {
    EXPECT_EQ(symbols.count(s), 1u)
        << s << " missing from " << list->ToString();
  }
  EXPECT_GE(symbols.size(), 24u);
}

TEST_F(FixGatewayTest, SecurityListOfAnUnknownSymbolFindsNothing) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("x", {{320, "sl-1"}, {559, "0"}, {55, "NOSUCH"}}));
  auto list = Expect(*a, OfType("y"), "SecurityList");
  ASSERT_TRUE(list);
  SCOPED_TRACE(list->ToString());
  EXPECT_EQ(list->Get(320), "sl-1");
  EXPECT_EQ(list->Get(560), "2");
}

TEST_F(FixGatewayTest, SecurityStatusSaysTheInstrumentIsOpen) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("e", {{324, "ss-1"}, {55, kSymbol}, {263, "0"}}));
  auto status = Expect(*a, OfType("f"), "SecurityStatus");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(324), "ss-1");
  EXPECT_EQ(status->Get(55), kSymbol);
  EXPECT_EQ(status->Get(326), "17");
}

// ---------------------------------------------------------------- drop copy

TEST_F(FixGatewayTest, DropCopiesGoToTheAccountsClearingMemberOnly) {
  ClientPtr cm1 = LogOn(kClear1);
  ClientPtr cm2 = LogOn(kClear2);
  ClientPtr a = LogOn(kTraderA);
  ClientPtr b = LogOn(kTraderB);
  ClientPtr c = LogOn(kTraderC);
  ClientPtr p = LogOn(kProviderA);
  ASSERT_TRUE(cm1 && cm2 && a && b && c && p);

  // FIRM-A and FIRM-B, both cleared by CM-1, trade.
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "5")));
  auto copy_a = Expect(*cm1, DropCopy("FIRM-A"), "CLEAR_1 copy of FIRM-A");
  auto copy_b = Expect(*cm1, DropCopy("FIRM-B"), "CLEAR_1 copy of FIRM-B");
  ASSERT_TRUE(copy_a && copy_b);
  for (const FixMessage* m : {&*copy_a, &*copy_b}) {
    EXPECT_EQ(m->Get(797), "Y") << m->ToString();
    EXPECT_EQ(Num(m->Get(32)), "5") << m->ToString();
    EXPECT_EQ(Num(m->Get(31)), "5.8") << m->ToString();
    EXPECT_EQ(m->Get(55), kSymbol) << m->ToString();
  }
  EXPECT_EQ(copy_a->Get(880), copy_b->Get(880));
  EXPECT_EQ(copy_a->Get(54), "1");
  EXPECT_EQ(copy_b->Get(54), "2");

  // Then FIRM-C and PROV-A, both cleared by CM-2: CLEAR_2's first fills are
  // theirs, so nothing of the first trade came before them.
  ASSERT_TRUE(Rest(*c, "C-1", "1", "5.80", "1"));
  ASSERT_TRUE(p->Send("D", NewOrder("P-1", "2", "5.80", "1")));
  ASSERT_TRUE(Expect(*cm2, DropCopy("FIRM-C"), "CLEAR_2 copy of FIRM-C"));
  ASSERT_TRUE(Expect(*cm2, DropCopy("PROV-A"), "CLEAR_2 copy of PROV-A"));
  // And a second CM-1 trade bounds what CLEAR_1 saw of the CM-2 trade.
  ASSERT_TRUE(Rest(*a, "A-2", "1", "5.80", "1"));
  ASSERT_TRUE(b->Send("D", NewOrder("B-2", "2", "5.80", "1")));
  ASSERT_TRUE(Expect(*cm1, DropCopy("FIRM-A"), "CLEAR_1 second copy"));
  ASSERT_TRUE(Expect(*cm1, DropCopy("FIRM-B"), "CLEAR_1 second copy"));

  for (const FixMessage& m : cm2->Received()) {
    if (m.admin) continue;
    EXPECT_TRUE(m.Get(1) == "FIRM-C" || m.Get(1) == "PROV-A")
        << "CLEAR_2 received " << m.raw;
  }
  for (const FixMessage& m : cm1->Received()) {
    if (m.admin) continue;
    EXPECT_TRUE(m.Get(1) == "FIRM-A" || m.Get(1) == "FIRM-B")
        << "CLEAR_1 received " << m.raw;
  }
  EXPECT_EQ(cm1->Count(OfType("8")), 4u) << cm1->Describe();
  EXPECT_EQ(cm2->Count(OfType("8")), 2u) << cm2->Describe();
}

// ---------------------------------------------------------------- recovery

TEST_F(FixGatewayTest, FillWhileAwayIsResentOnceAfterReconnect) {
  ClientPtr b = LogOn(kTraderB);
  ClientPtr a = LogOn(kTraderA);
  ASSERT_TRUE(a && b);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  a->Stop();  // Logout, answered
  const int next_target = a->next_target_seq();
  const int next_sender = a->next_sender_seq();
  a.reset();

  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "5")));
  ASSERT_TRUE(Expect(*b, Fill("B-1", "5"), "B-1 fill"));

  ClientPtr again = LogOn(kTraderA, "TRADER_A");
  ASSERT_NE(again, nullptr);
  auto fill = Expect(*again, Fill("A-1", "5"), "A-1 fill after reconnect");
  ASSERT_TRUE(fill);
  SCOPED_TRACE(fill->ToString());
  // Numbered when it happened, right after the Logout; resent on the
  // ResendRequest the Logon's gap caused.
  EXPECT_EQ(fill->seq(), next_target);
  EXPECT_TRUE(fill->poss_dup());
  EXPECT_NE(fill->FindHeader(122), nullptr);
  EXPECT_EQ(fill->Get(37), ack->Get(37));
  EXPECT_EQ(fill->Get(39), "2");
  auto logon = Expect(*again, OfType("A"), "Logon");
  ASSERT_TRUE(logon);
  EXPECT_EQ(logon->seq(), next_target + 1);

  ASSERT_TRUE(Barrier(*again));
  EXPECT_EQ(again->Count(Report("A-1", "F")), 1u) << again->Describe();
  ExpectAtMostTheLogoutAskedFor(*again, next_sender);
  EXPECT_EQ(again->logouts(), 0) << again->Describe();
}

// A restart between the client's logout and the fill: the session still has
// messages of the day in its store, so the fill is stored for it and resent.
TEST_F(FixGatewayTest, FillAfterARestartWhileAwayIsResentAfterReconnect) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  auto ack = Rest(*a, "A-1", "1", "5.80", "5");
  ASSERT_TRUE(ack);
  a->Stop();
  const int next_target = a->next_target_seq();
  a.reset();

  ASSERT_TRUE(server_.Stop().ok());
  const Status st = server_.Start();
  ASSERT_TRUE(st.ok()) << st.ToString();

  ClientPtr b = LogOn(kTraderB);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "5")));
  ASSERT_TRUE(Expect(*b, Fill("B-1", "5"), "B-1 fill"));

  ClientPtr again = LogOn(kTraderA);
  ASSERT_NE(again, nullptr);
  auto fill = Expect(*again, Fill("A-1", "5"), "A-1 fill after reconnect");
  ASSERT_TRUE(fill);
  SCOPED_TRACE(fill->ToString());
  EXPECT_EQ(fill->seq(), next_target);
  EXPECT_TRUE(fill->poss_dup());
  EXPECT_EQ(fill->Get(37), ack->Get(37));
  EXPECT_EQ(fill->Get(11), "A-1");
  ASSERT_TRUE(Barrier(*again));
  EXPECT_EQ(again->Count(Report("A-1", "F")), 1u) << again->Describe();
}

TEST_F(FixGatewayTest, SequenceNumbersSurviveARestart) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  a->Stop();
  const int next_sender = a->next_sender_seq();
  const int next_target = a->next_target_seq();
  a.reset();
  ASSERT_GT(next_sender, 2);
  ASSERT_GT(next_target, 2);

  ASSERT_TRUE(server_.Stop().ok());
  const Status st = server_.Start();
  ASSERT_TRUE(st.ok()) << st.ToString();

  ClientPtr again = LogOn(kTraderA);
  ASSERT_NE(again, nullptr);
  std::vector<FixMessage> sent = again->Sent();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0].type, "A");
  EXPECT_EQ(sent[0].seq(), next_sender);
  auto logon = Expect(*again, OfType("A"), "Logon");
  ASSERT_TRUE(logon);
  SCOPED_TRACE(logon->ToString());
  EXPECT_EQ(logon->seq(), next_target);
  EXPECT_NE(logon->Get(141), "Y");
  ASSERT_TRUE(Barrier(*again));
  // The exchange saw no gap (but the client's Logout; see below), the
  // client none at all.
  ExpectAtMostTheLogoutAskedFor(*again, next_sender);
  for (const FixMessage& m : again->Sent()) {
    EXPECT_NE(m.type, "2") << m.raw;
  }
  EXPECT_EQ(again->logouts(), 0) << again->Describe();
}

TEST_F(FixGatewayTest, OrderStatusAnswersAfterARestart) {
  std::string order_id;
  {
    ClientPtr a = LogOn(kTraderA);
    ClientPtr b = LogOn(kTraderB);
    ASSERT_TRUE(a && b);
    auto ack = Rest(*a, "A-1", "1", "5.80", "5");
    ASSERT_TRUE(ack);
    SCOPED_TRACE(ack->ToString());
    order_id = ack->Get(37);
    ASSERT_TRUE(b->Send("D", NewOrder("B-1", "2", "5.80", "2")));
    ASSERT_TRUE(Expect(*a, Fill("A-1", "2"), "A-1 fill"));
  }
  ASSERT_TRUE(server_.Stop().ok());
  const Status st = server_.Start();
  ASSERT_TRUE(st.ok()) << st.ToString();

  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->Send("H", StatusRequest("A-1", "1", "st-1")));
  auto status = Expect(*a, WithField("8", 790, "st-1"), "A-1 status");
  ASSERT_TRUE(status);
  SCOPED_TRACE(status->ToString());
  EXPECT_EQ(status->Get(150), "I");
  EXPECT_EQ(status->Get(37), order_id);
  EXPECT_EQ(status->Get(39), "1");
  EXPECT_EQ(Num(status->Get(14)), "2");
  EXPECT_EQ(Num(status->Get(151)), "3");
}

TEST_F(FixGatewayTest, ResetSeqNumFlagStartsBothSequencesAtOne) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  a->Stop();
  a.reset();

  ClientPtr again = LogOn(kTraderA, "TRADER_A", /*reset_seq_num=*/true);
  ASSERT_NE(again, nullptr);
  std::vector<FixMessage> sent = again->Sent();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0].seq(), 1);
  auto logon = Expect(*again, OfType("A"), "Logon");
  ASSERT_TRUE(logon);
  SCOPED_TRACE(logon->ToString());
  EXPECT_EQ(logon->seq(), 1);
  EXPECT_EQ(logon->Get(141), "Y");
  EXPECT_TRUE(Barrier(*again));
  EXPECT_EQ(again->logouts(), 0) << again->Describe();
}

// ---------------------------------------------------------------- window

// Moves the simulated clock to `t` (ns since the epoch) as the admin.
void SetExchangeClock(uint16_t port, int64_t t) {
  auto r = server_test::AdminClock(port, t);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().now_ns(), t);
}

// The daily window (docs/fix.md) follows the exchange clock, here the
// simulated one: it ends at 21:00:00 exchange time, a logon in the 5-second
// break is refused, and the next window starts over at MsgSeqNum 1.
TEST_F(FixGatewayTest, TheSessionWindowFollowsTheExchangeClock) {
  constexpr int64_t kSecondNs = 1'000'000'000;
  // 2026-12-01T21:00:00Z, the end of the simulated clock's first day.
  constexpr int64_t kEnd = (int64_t{1'796'083'200} + 21 * 3'600) * kSecondNs;
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(Rest(*a, "A-1", "1", "5.80", "5"));
  ASSERT_NO_FATAL_FAILURE(
      SetExchangeClock(server_.port(), kEnd + 2 * kSecondNs));
  EXPECT_TRUE(a->WaitLoggedOut(kWait)) << a->Describe();
  a->Stop();
  a.reset();

  auto raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(
      RawLogon(kTraderA.comp_id, kTraderA.username, kTraderA.password)));
  std::vector<FixMessage> before;
  ASSERT_TRUE(raw->AwaitClose(kWait, &before));
  for (const FixMessage& m : before) EXPECT_NE(m.type, "A") << m.ToString();

  ASSERT_NO_FATAL_FAILURE(
      SetExchangeClock(server_.port(), kEnd + 6 * kSecondNs));
  raw = RawConnect();
  ASSERT_NE(raw, nullptr);
  ASSERT_TRUE(raw->Write(
      RawLogon(kTraderA.comp_id, kTraderA.username, kTraderA.password)));
  FixMessage logon;
  ASSERT_EQ(raw->Read(kWait, &logon), RawFixConnection::kMessage);
  EXPECT_EQ(logon.type, "A") << logon.ToString();
  EXPECT_EQ(logon.seq(), 1) << logon.ToString();
}

// ---------------------------------------------------------------- throttle

// The demo market with a session throttle of 5 messages per second.
class FixThrottleTest : public FixGatewayTest {
 protected:
  FixThrottleTest() : FixGatewayTest(ThrottledConfig()) {}
  static ServerConfig ThrottledConfig() {
    ServerConfig c = server_test::DemoConfig();
    c.session.max_messages_per_second = 5;
    return c;
  }
};

TEST_F(FixThrottleTest, MessagesOverTheRateGetBusinessRejectAndNothingElse) {
  ClientPtr a = LogOn(kTraderA);
  ASSERT_NE(a, nullptr);
  // 40 requests at once against a bucket of 5 that refills 5 per second:
  // sending them takes far less than the 7 s it would take to refill.
  constexpr int kRequests = 40;
  for (int i = 0; i < kRequests; ++i) {
    const std::string id = "T-" + std::to_string(i);
    ASSERT_TRUE(a->Send("H", StatusRequest(id, "1", id)));
  }
  // Each request gets exactly one answer: its status report, or over the
  // rate a BusinessMessageReject naming it.
  for (int i = 0; i < kRequests; ++i) {
    const std::string id = "T-" + std::to_string(i);
    ASSERT_TRUE(Expect(
        *a,
        [id](const FixMessage& m) {
          return (m.type == "8" && m.Get(790) == id) ||
                 (m.type == "j" && m.Get(379) == id);
        },
        "answer to " + id));
  }
  const std::size_t throttled = a->Count(OfType("j"));
  EXPECT_GE(throttled, 1u) << a->Describe();
  EXPECT_LE(throttled, std::size_t{kRequests - 5}) << a->Describe();
  EXPECT_EQ(a->Count(OfType("8")) + throttled, std::size_t{kRequests});
  for (const FixMessage& j : a->Received()) {
    if (j.type != "j") continue;
    EXPECT_EQ(j.Get(372), "H") << j.ToString();
    EXPECT_EQ(j.Get(380), "0") << j.ToString();
    EXPECT_NE(j.Get(58).find("throttled"), std::string::npos) << j.ToString();
  }
}

}  // namespace
}  // namespace cfx::gateway::fix_test
