// Kill switches through the whole exchange (docs/protocol.md, "Kill
// switch"; docs/fix.md, "Kill switch"): the admin kills a firm, a clearing
// member an account it clears; the accounts' resting orders are cancelled
// (KILL_SWITCH), their new orders and replaces refused (ACCOUNT_KILLED)
// until a reinstate; their protobuf sessions get a KillSwitchStatus and
// their FIX sessions a News (B) with the reason; the ack comes once every
// command is durable; bad requests get a specific refusal and change
// nothing; a restart replays the kill.

#include <gtest/gtest.h>

#include <chrono>
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

constexpr std::chrono::milliseconds kFixWait{5'000};

w::Envelope KillRequest(uint64_t id, const std::string& firm,
                        const std::string& account, bool kill,
                        const std::string& reason = "") {
  w::Envelope e;
  w::KillSwitchRequest* r = e.mutable_kill_switch_request();
  r->set_request_id(id);
  r->set_firm(firm);
  r->set_account(account);
  r->set_action(kill ? w::KILL_SWITCH_ACTION_KILL
                     : w::KILL_SWITCH_ACTION_REINSTATE);
  r->set_reason(reason);
  return e;
}

// Sends `request` on `c` and returns its KillSwitchAck; what else arrives
// meanwhile goes to *others.
Result<w::KillSwitchAck> AskKill(client::Client& c, const w::Envelope& request,
                                 std::vector<w::Envelope>* others = nullptr) {
  if (Status st = c.Send(request); !st.ok()) return st;
  const uint64_t id = request.kill_switch_request().request_id();
  while (true) {
    Result<w::Envelope> m = Next(c);
    if (!m.has_value()) return m.error();
    if (m.value().has_kill_switch_ack() &&
        m.value().kill_switch_ack().request_id() == id) {
      return m.value().kill_switch_ack();
    }
    if (m.value().has_session_reject()) {
      return Status(StatusCode::kFailedPrecondition,
                    m.value().session_reject().ShortDebugString());
    }
    if (others != nullptr) others->push_back(m.value());
  }
}

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = LogOn(port, DemoLogon(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

std::unique_ptr<FixTestClient> StartFix(uint16_t port, const std::string& dir,
                                        const std::string& comp_id,
                                        const std::string& user,
                                        const std::string& password) {
  fix_test::FixClientOptions o;
  o.sender_comp_id = comp_id;
  o.username = user;
  o.port = port;
  o.password = password;
  o.store_dir = dir;
  return fix_test::StartFixTestClient(o);
}

// The order id of an accepted order, or 0.
uint64_t Rest(client::Client& c, uint64_t client_order_id, w::Side side,
              int64_t price) {
  auto r = SendOrder(c, NewOrder(client_order_id, side, price, 1));
  if (!r.has_value() || r.value().exec_type() != w::EXEC_TYPE_NEW) {
    ADD_FAILURE() << (r.has_value() ? r.value().ShortDebugString()
                                    : r.error().ToString());
    return 0;
  }
  return r.value().order_id();
}

class KillSwitchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    admin_ = MustLogOn(server_.port(), "admin");
    ASSERT_NE(admin_, nullptr);
  }
  void TearDown() override {
    if (admin_ != nullptr) admin_->Close();
    if (server_.running()) {
      EXPECT_TRUE(server_.Stop().ok());
    }
  }

  TestServer server_;
  cfx::testing::TempDir fix_dir_;
  ClientPtr admin_;
};

TEST_F(KillSwitchTest, AdminKillOfAFirmCancelsItsOrdersAndTellsItsSessions) {
  ClientPtr a = MustLogOn(server_.port(), "trader-a");
  ASSERT_NE(a, nullptr);
  auto fix = StartFix(server_.fix_port(), fix_dir_.path() + "/a", "TRADER_A",
                      "trader-a", "demo-trader-a");
  ASSERT_NE(fix, nullptr);
  ASSERT_TRUE(fix->WaitLoggedOn(kFixWait)) << fix->Describe();
  const uint64_t o1 = Rest(*a, 1, w::SIDE_BUY, kPrice - 5 * kTick);
  const uint64_t o2 = Rest(*a, 2, w::SIDE_SELL, kPrice + 5 * kTick);
  ASSERT_NE(o1, 0u);
  ASSERT_NE(o2, 0u);

  auto ack = AskKill(*admin_, KillRequest(10, "FIRM-A", "", true,
                                          "runaway algo, call the desk"));
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().ShortDebugString();
  EXPECT_EQ(ack.value().firm(), "FIRM-A");
  EXPECT_EQ(ack.value().action(), w::KILL_SWITCH_ACTION_KILL);
  ASSERT_EQ(ack.value().accounts_size(), 1);
  EXPECT_EQ(ack.value().accounts(0).account(), "FIRM-A");
  EXPECT_EQ(ack.value().accounts(0).orders_cancelled(), 2u);
  EXPECT_GT(ack.value().accounts(0).seq(), 0u);

  // The account's protobuf session: both orders cancelled KILL_SWITCH,
  // then the status with the reason.
  std::vector<w::Envelope> seen;
  auto status = a->ReceiveUntil(
      [&seen](const w::Envelope& m) {
        seen.push_back(m);
        return m.has_kill_switch_status();
      },
      kWait);
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
  const w::KillSwitchStatus& st = status.value().kill_switch_status();
  EXPECT_EQ(st.account(), "FIRM-A");
  EXPECT_TRUE(st.killed());
  EXPECT_EQ(st.reason(), "runaway algo, call the desk");
  EXPECT_EQ(st.orders_cancelled(), 2u);
  EXPECT_EQ(st.seq(), ack.value().accounts(0).seq());
  int cancelled = 0;
  for (const w::Envelope& m : seen) {
    if (m.has_execution_report() &&
        m.execution_report().exec_type() == w::EXEC_TYPE_CANCELED) {
      EXPECT_EQ(m.execution_report().cancel_reason(),
                w::CANCEL_REASON_KILL_SWITCH);
      ++cancelled;
    }
  }
  EXPECT_EQ(cancelled, 2);

  // Its FIX session: News with the headline and the reason.
  FixMessage news;
  ASSERT_TRUE(fix->Await([](const FixMessage& m) { return m.type == "B"; },
                         kFixWait, &news))
      << fix->Describe();
  EXPECT_EQ(news.Get(148), "KILL SWITCH ON FIRM-A");
  const fix_test::FixGroup* lines = news.FindGroup(33);
  ASSERT_NE(lines, nullptr) << news.raw;
  ASSERT_EQ(lines->entries.size(), 2u) << news.raw;
  EXPECT_EQ(*fix_test::FindIn(lines->entries[1], 58),
            "reason: runaway algo, call the desk");

  // New orders and replaces are refused; cancels answer as usual.
  auto refused = SendOrder(*a, NewOrder(3, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused.value().exec_type(), w::EXEC_TYPE_REJECTED);
  EXPECT_EQ(refused.value().reject_reason(), w::REJECT_REASON_ACCOUNT_KILLED);
  ASSERT_TRUE(a->Send(Cancel(4, o1)).ok());
  auto reject = a->ReceiveUntil(
      [](const w::Envelope& m) { return m.has_cancel_reject(); }, kWait);
  ASSERT_TRUE(reject.has_value());
  EXPECT_EQ(reject.value().cancel_reject().reason(), w::REJECT_REASON_UNKNOWN_ORDER);
  ASSERT_TRUE(fix->Send("D", {{11, "77"},
                              {55, kSymbol},
                              {54, "1"},
                              {60, fix_test::FixUtcNow()},
                              {38, "1"},
                              {40, "2"},
                              {44, "5.80"},
                              {59, "1"}}));
  FixMessage rejected;
  ASSERT_TRUE(fix->Await(
      [](const FixMessage& m) {
        return m.type == "8" && m.Get(11) == "77" && m.Get(150) == "8";
      },
      kFixWait, &rejected))
      << fix->Describe();
  EXPECT_NE(rejected.Get(58).find("ACCOUNT_KILLED"), std::string::npos)
      << rejected.raw;

  // Reinstated: orders are accepted again, and both sessions are told.
  auto back = AskKill(*admin_, KillRequest(11, "FIRM-A", "", false));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_TRUE(back.value().accepted()) << back.value().ShortDebugString();
  auto off = a->ReceiveUntil(
      [](const w::Envelope& m) { return m.has_kill_switch_status(); }, kWait);
  ASSERT_TRUE(off.has_value());
  EXPECT_FALSE(off.value().kill_switch_status().killed());
  ASSERT_TRUE(fix->Await(
      [](const FixMessage& m) {
        return m.type == "B" && m.Get(148) == "KILL SWITCH OFF FIRM-A";
      },
      kFixWait))
      << fix->Describe();
  auto accepted = SendOrder(*a, NewOrder(5, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted.value().exec_type(), w::EXEC_TYPE_NEW)
      << accepted.value().ShortDebugString();
  fix->Stop();
}

TEST_F(KillSwitchTest, AClearingMemberKillsOnlyTheAccountsItClears) {
  ClientPtr cm1 = MustLogOn(server_.port(), "clear-1");
  ClientPtr a = MustLogOn(server_.port(), "trader-a");
  ClientPtr c = MustLogOn(server_.port(), "trader-c");
  ASSERT_TRUE(cm1 && a && c);
  // FIRM-A is CM-1's: killed.
  auto own = AskKill(*cm1, KillRequest(1, "", "FIRM-A", true, "margin"));
  ASSERT_TRUE(own.has_value()) << own.error().ToString();
  EXPECT_TRUE(own.value().accepted()) << own.value().ShortDebugString();
  // FIRM-C is CM-2's: answered exactly as an account that does not exist.
  auto other = AskKill(*cm1, KillRequest(2, "", "FIRM-C", true));
  auto missing = AskKill(*cm1, KillRequest(3, "", "NO-SUCH", true));
  ASSERT_TRUE(other.has_value() && missing.has_value());
  EXPECT_FALSE(other.value().accepted());
  EXPECT_EQ(other.value().reason(), w::REJECT_REASON_UNKNOWN_ACCOUNT);
  EXPECT_EQ(missing.value().reason(), w::REJECT_REASON_UNKNOWN_ACCOUNT);
  EXPECT_EQ(other.value().text(), "no account \"FIRM-C\"");
  EXPECT_EQ(missing.value().text(), "no account \"NO-SUCH\"");
  // A member names accounts, never a firm; a trader may do neither.
  auto firm = AskKill(*cm1, KillRequest(4, "FIRM-A", "", true));
  ASSERT_TRUE(firm.has_value());
  EXPECT_EQ(firm.value().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  auto trader = AskKill(*a, KillRequest(5, "", "FIRM-A", false));
  ASSERT_TRUE(trader.has_value());
  EXPECT_EQ(trader.value().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  // FIRM-C trades on; FIRM-A does not, until its member reinstates it.
  auto c_order = SendOrder(*c, NewOrder(1, w::SIDE_SELL, kPrice, 1));
  ASSERT_TRUE(c_order.has_value());
  EXPECT_EQ(c_order.value().exec_type(), w::EXEC_TYPE_NEW);
  auto a_order = SendOrder(*a, NewOrder(1, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(a_order.has_value());
  EXPECT_EQ(a_order.value().reject_reason(), w::REJECT_REASON_ACCOUNT_KILLED);
  auto back = AskKill(*cm1, KillRequest(6, "", "FIRM-A", false));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back.value().accepted()) << back.value().ShortDebugString();
  auto again = SendOrder(*a, NewOrder(2, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again.value().exec_type(), w::EXEC_TYPE_NEW);
}

TEST_F(KillSwitchTest, BadRequestsGetSpecificRefusalsAndChangeNothing) {
  const uint64_t before = server_.commands_submitted();
  auto unknown = AskKill(*admin_, KillRequest(1, "FIRM-Z", "", true));
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(unknown.value().reason(), w::REJECT_REASON_UNKNOWN_FIRM);
  auto no_accounts = AskKill(*admin_, KillRequest(2, "CM-1", "", true));
  ASSERT_TRUE(no_accounts.has_value());
  EXPECT_EQ(no_accounts.value().reason(), w::REJECT_REASON_NO_TRADING_ACCOUNT);
  auto too_long =
      AskKill(*admin_, KillRequest(3, "FIRM-A", "", true, std::string(201, 'x')));
  ASSERT_TRUE(too_long.has_value());
  EXPECT_EQ(too_long.value().reason(), w::REJECT_REASON_INVALID_REASON_TEXT);
  auto control =
      AskKill(*admin_, KillRequest(4, "FIRM-A", "", true, "line\nbreak"));
  ASSERT_TRUE(control.has_value());
  EXPECT_EQ(control.value().reason(), w::REJECT_REASON_INVALID_REASON_TEXT);
  // Malformed requests: a SessionReject.
  w::Envelope no_action = KillRequest(5, "FIRM-A", "", true);
  no_action.mutable_kill_switch_request()->set_action(
      w::KILL_SWITCH_ACTION_UNSPECIFIED);
  auto r1 = AskKill(*admin_, no_action);
  ASSERT_FALSE(r1.has_value());
  EXPECT_NE(r1.error().message().find("INVALID_ENUM"), std::string::npos)
      << r1.error().message();
  auto r2 = AskKill(*admin_, KillRequest(6, "FIRM-A", "FIRM-A", true));
  ASSERT_FALSE(r2.has_value());
  EXPECT_NE(r2.error().message().find("MISSING_FIELD"), std::string::npos)
      << r2.error().message();
  ASSERT_TRUE(Barrier(*admin_).ok());
  EXPECT_EQ(server_.commands_submitted(), before);
  // A 200-byte reason of printable ASCII is fine.
  auto ok = AskKill(*admin_,
                    KillRequest(7, "", "FIRM-B", true, std::string(200, '~')));
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok.value().accepted()) << ok.value().ShortDebugString();
}

TEST_F(KillSwitchTest, AKillSurvivesARestart) {
  {
    ClientPtr b = MustLogOn(server_.port(), "trader-b");
    ASSERT_NE(b, nullptr);
    ASSERT_NE(Rest(*b, 1, w::SIDE_BUY, kPrice - kTick), 0u);
    auto ack = AskKill(*admin_, KillRequest(1, "FIRM-B", "", true, "audit"));
    ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
    ASSERT_TRUE(ack.value().accepted()) << ack.value().ShortDebugString();
    EXPECT_EQ(ack.value().accounts(0).orders_cancelled(), 1u);
    b->Close();
  }
  admin_->Close();
  admin_ = nullptr;
  ASSERT_TRUE(server_.Stop().ok());
  const uint64_t hash = server_.state_hash();
  ASSERT_TRUE(server_.Start().ok());
  ClientPtr b = MustLogOn(server_.port(), "trader-b");
  ASSERT_NE(b, nullptr);
  auto refused = SendOrder(*b, NewOrder(2, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused.value().reject_reason(), w::REJECT_REASON_ACCOUNT_KILLED)
      << refused.value().ShortDebugString();
  b->Close();
  ASSERT_TRUE(server_.Stop().ok());
  EXPECT_EQ(server_.state_hash(), hash);  // a rejected order changes nothing
  ASSERT_TRUE(server_.Start().ok());
  admin_ = MustLogOn(server_.port(), "admin");
  ASSERT_NE(admin_, nullptr);
  auto back = AskKill(*admin_, KillRequest(2, "FIRM-B", "", false));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back.value().accepted());
  b = MustLogOn(server_.port(), "trader-b");
  ASSERT_NE(b, nullptr);
  auto accepted = SendOrder(*b, NewOrder(3, w::SIDE_BUY, kPrice, 1));
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted.value().exec_type(), w::EXEC_TYPE_NEW);
}

}  // namespace
}  // namespace cfx::gateway::server_test
