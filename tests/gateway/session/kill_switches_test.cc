// The kill switch requests of every protocol (gateway/session/
// kill_switches.h) on the demo config: who may name what, a firm's
// accounts, the reason's rules, one token per request, and the answers
// gathered until the request is complete.

#include "gateway/session/kill_switches.h"

#include <gtest/gtest.h>

#include <string>

#include "gateway/config/server_config.h"

namespace cfx::gateway {
namespace {

using exchange::CommandType;
using exchange::Event;
using exchange::EventType;
using Refusal = KillSwitches::Refusal;

class KillSwitchesTest : public ::testing::Test {
 protected:
  KillSwitchesTest() : config_(DefaultServerConfig().value()), desk_(config_) {}

  const UserConfig& User(const std::string& name) const {
    return *config_.FindUserByName(name);
  }
  static KillSwitches::Request Firm(const std::string& firm, bool kill = true) {
    KillSwitches::Request r;
    r.firm = firm;
    r.kill = kill;
    return r;
  }
  static KillSwitches::Request Account(const std::string& account) {
    KillSwitches::Request r;
    r.account = account;
    return r;
  }

  // The demo config with a second account of FIRM-A, "FIRM-A-2", last.
  ServerConfig WithSecondFirmAAccount() const {
    ServerConfig two = config_;
    AccountInfo extra = *two.FindAccount("FIRM-C");
    extra.id =
        exchange::AccountId{static_cast<uint32_t>(two.accounts.size() + 1)};
    extra.name = "FIRM-A-2";
    extra.firm = "FIRM-A";
    two.accounts.push_back(extra);
    two.RebuildIndex();
    return two;
  }

  ServerConfig config_;
  KillSwitches desk_;
};

TEST_F(KillSwitchesTest, AFirmIsEveryTradingAccountOfItInTheConfig) {
  const ServerConfig two = WithSecondFirmAAccount();
  const AccountInfo& extra = *two.FindAccount("FIRM-A-2");
  KillSwitches desk(two);
  const KillSwitches::Plan p = desk.Prepare(User("admin"), Firm("FIRM-A"));
  ASSERT_EQ(p.refusal, Refusal::kNone) << p.text;
  ASSERT_EQ(p.commands.size(), 2u);
  EXPECT_EQ(p.commands[0].account, two.FindAccount("FIRM-A")->id);
  EXPECT_EQ(p.commands[1].account, extra.id);
  for (const exchange::Command& c : p.commands) {
    EXPECT_EQ(c.type, CommandType::kKillSwitch);
    EXPECT_EQ(c.flags, exchange::kFlagKill);
    EXPECT_EQ(c.client_order_id, p.commands[0].client_order_id);
  }
  const KillSwitches::Plan back =
      desk.Prepare(User("admin"), Firm("FIRM-A", /*kill=*/false));
  EXPECT_EQ(back.commands[0].flags, 0);
  EXPECT_NE(back.commands[0].client_order_id, p.commands[0].client_order_id);
}

TEST_F(KillSwitchesTest, RolesAndScopes) {
  EXPECT_EQ(desk_.Prepare(User("trader-a"), Account("FIRM-A")).refusal,
            Refusal::kNotAuthorized);
  EXPECT_EQ(desk_.Prepare(User("clear-1"), Firm("FIRM-A")).refusal,
            Refusal::kNotAuthorized);
  EXPECT_EQ(desk_.Prepare(User("clear-1"), Account("FIRM-A")).refusal,
            Refusal::kNone);
  // CM-2's account and no account at all read the same to CM-1.
  const KillSwitches::Plan other =
      desk_.Prepare(User("clear-1"), Account("FIRM-C"));
  const KillSwitches::Plan none =
      desk_.Prepare(User("clear-1"), Account("NO-SUCH"));
  EXPECT_EQ(other.refusal, Refusal::kUnknownAccount);
  EXPECT_EQ(none.refusal, Refusal::kUnknownAccount);
  EXPECT_EQ(other.text, "no account \"FIRM-C\"");
  EXPECT_EQ(desk_.Prepare(User("admin"), Account("FIRM-C")).refusal,
            Refusal::kNone);
  EXPECT_EQ(desk_.Prepare(User("admin"), Firm("FIRM-Z")).refusal,
            Refusal::kUnknownFirm);
  EXPECT_EQ(desk_.Prepare(User("admin"), Firm("CM-1")).refusal,
            Refusal::kNoTradingAccount);
}

TEST_F(KillSwitchesTest, ReasonIsBoundedPrintableAscii) {
  EXPECT_TRUE(ValidReasonText(""));
  EXPECT_TRUE(ValidReasonText(std::string(200, ' ')));
  EXPECT_TRUE(ValidReasonText("~!runaway algo: call +1 555"));
  EXPECT_FALSE(ValidReasonText(std::string(201, 'x')));
  EXPECT_FALSE(ValidReasonText("tab\there"));
  EXPECT_FALSE(ValidReasonText("caf\xc3\xa9"));
  EXPECT_FALSE(ValidReasonText(std::string("nul\0", 4)));
  KillSwitches::Request r = Account("FIRM-A");
  r.reason = "line\n";
  EXPECT_EQ(desk_.Prepare(User("admin"), r).refusal,
            Refusal::kInvalidReasonText);
}

TEST_F(KillSwitchesTest, ARequestIsDoneWhenEveryAccountIsAnswered) {
  const ServerConfig two = WithSecondFirmAAccount();
  KillSwitches desk(two);
  KillSwitches::Request r = Firm("FIRM-A");
  r.reason = "audit";
  const KillSwitches::Plan p = desk.Prepare(User("admin"), r);
  desk.Submitted(p, r, 42);
  Event first;
  first.type = EventType::kKillSwitchSet;
  first.seq = exchange::Seq{7};
  first.account = p.commands[0].account;
  first.client_order_id = p.commands[0].client_order_id;
  first.count = 3;
  first.set_killed(true);
  ASSERT_NE(desk.ReasonOf(first), nullptr);
  EXPECT_EQ(*desk.ReasonOf(first), "audit");
  bool complete = true;
  KillSwitches::Done done;
  EXPECT_TRUE(desk.OnEvent(first, &complete, &done));
  EXPECT_FALSE(complete);
  // The same answer twice, or another request's token, is not an answer.
  EXPECT_FALSE(desk.OnEvent(first, &complete, &done));
  Event foreign = first;
  foreign.client_order_id = exchange::ClientOrderId{999};
  EXPECT_FALSE(desk.OnEvent(foreign, &complete, &done));
  Event second = first;
  second.seq = exchange::Seq{8};
  second.account = p.commands[1].account;
  second.count = 0;
  EXPECT_TRUE(desk.OnEvent(second, &complete, &done));
  EXPECT_TRUE(complete);
  EXPECT_EQ(done.owner, 42u);
  EXPECT_EQ(done.token, p.commands[0].client_order_id.value);
  ASSERT_EQ(done.results.size(), 2u);
  EXPECT_EQ(done.results[0].orders_cancelled, 3u);
  EXPECT_EQ(done.results[0].seq, 7u);
  EXPECT_EQ(done.results[1].seq, 8u);
  EXPECT_EQ(desk.pending(), 0u);
  EXPECT_EQ(desk.ReasonOf(second), nullptr);
}

TEST_F(KillSwitchesTest, AnEngineRejectAnswersItsAccount) {
  KillSwitches::Request r = Account("FIRM-B");
  const KillSwitches::Plan p = desk_.Prepare(User("admin"), r);
  desk_.Submitted(p, r, 1);
  Event e;
  e.type = EventType::kRejected;
  e.command = CommandType::kKillSwitch;
  e.reason = static_cast<uint16_t>(exchange::RejectCode::kUnknownAccount);
  e.account = p.commands[0].account;
  e.client_order_id = p.commands[0].client_order_id;
  bool complete = false;
  KillSwitches::Done done;
  ASSERT_TRUE(desk_.OnEvent(e, &complete, &done));
  ASSERT_TRUE(complete);
  EXPECT_EQ(done.results[0].code, exchange::RejectCode::kUnknownAccount);
}

}  // namespace
}  // namespace cfx::gateway
