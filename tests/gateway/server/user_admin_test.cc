// The admin's user commands through the whole exchange (docs/protocol.md,
// "Users"; docs/cli.md, "Users"): journaled, so that a restart reproduces
// them; a disabled user's FIX and protobuf sessions are logged out at once
// and its logons refused; only the admin may send them, and bad ones are
// rejected with a specific reason and change nothing.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/fix/fix_test_start.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using fix_test::FixMessage;
using fix_test::FixTestClient;

constexpr std::chrono::milliseconds kFixWait{5'000};

Result<w::ReferenceAck> SetEnabled(client::Client& c, const std::string& name,
                                   bool enabled, uint64_t id) {
  w::Envelope e;
  w::UserSetEnabled* m = e.mutable_user_set_enabled();
  m->set_request_id(id);
  m->set_name(name);
  m->set_enabled(enabled);
  return Ask(c, e, id);
}

Result<w::ReferenceAck> SetPassword(client::Client& c, const std::string& name,
                                    const std::string& password, uint64_t id) {
  w::Envelope e;
  w::UserSetPassword* m = e.mutable_user_set_password();
  m->set_request_id(id);
  m->set_name(name);
  m->set_password(password);
  return Ask(c, e, id);
}

// The user list as the admin's session `c` reads it.
Result<w::UserList> Users(client::Client& c, uint64_t id) {
  w::Envelope e;
  e.mutable_user_list_request()->set_request_id(id);
  Result<w::Envelope> m = AskAnswer(c, e, id, [id](const w::Envelope& x) {
    return x.has_user_list() && x.user_list().request_id() == id;
  });
  if (!m.has_value()) return m.error();
  return m.value().user_list();
}

const w::UserInfo* Find(const w::UserList& list, const std::string& name) {
  for (const w::UserInfo& u : list.users()) {
    if (u.name() == name) return &u;
  }
  return nullptr;
}

// A QuickFIX initiator as `comp_id`/`user` with `password`, its store in
// `dir`; started, not waited for.
std::unique_ptr<FixTestClient> StartFix(uint16_t port, const std::string& dir,
                                        const std::string& comp_id,
                                        const std::string& user,
                                        const std::string& password) {
  fix_test::FixClientOptions o;
  o.sender_comp_id = comp_id;
  o.port = port;
  o.username = user;
  o.password = password;
  o.store_dir = dir;
  return fix_test::StartFixTestClient(o);
}

// A Logout(5) whose Text(58) is `text` arrived on `c`.
bool LoggedOutWith(FixTestClient& c, const std::string& text) {
  return c.Await(
      [&text](const FixMessage& m) {
        return m.type == "5" && m.Get(58) == text;
      },
      kFixWait);
}

class UserAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    auto admin = LogOn(server_.port(), DemoLogon("admin"));
    ASSERT_TRUE(admin.has_value()) << admin.error().ToString();
    admin_ = std::move(admin).value();
  }
  void TearDown() override {
    if (admin_ != nullptr) admin_->Close();
    if (server_.running()) {
      EXPECT_TRUE(server_.Stop().ok());
    }
  }

  TestServer server_;
  cfx::testing::TempDir fix_dir_;
  std::unique_ptr<client::Client> admin_;
};

TEST_F(UserAdminTest, DisablingAUserLogsOutItsSessionsAndRefusesItsLogons) {
  auto pb = LogOn(server_.port(), DemoLogon("trader-b"));
  ASSERT_TRUE(pb.has_value()) << pb.error().ToString();
  auto fix = StartFix(server_.fix_port(), fix_dir_.path() + "/b", "TRADER_B",
                      "trader-b", "demo-trader-b");
  ASSERT_NE(fix, nullptr);
  ASSERT_TRUE(fix->WaitLoggedOn(kFixWait)) << fix->Describe();

  auto ack = SetEnabled(*admin_, "trader-b", false, 1);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  EXPECT_GT(ack.value().seq(), 0u);

  // The protobuf session: a Logout with the reason, then the close.
  std::vector<w::Envelope> before;
  EXPECT_TRUE(AwaitClose(*pb.value(), &before).ok());
  bool told = false;
  for (const w::Envelope& e : before) {
    told |= e.has_logout() && e.logout().text() == "user disabled by the admin";
  }
  EXPECT_TRUE(told);
  // The FIX session: Logout(5) with Text(58).
  EXPECT_TRUE(LoggedOutWith(*fix, "user disabled by the admin"))
      << fix->Describe();
  EXPECT_TRUE(fix->WaitLoggedOut(kFixWait)) << fix->Describe();
  fix->Stop();

  // New logons are refused, with the reason.
  auto again = LogOn(server_.port(), DemoLogon("trader-b"));
  ASSERT_FALSE(again.has_value());
  EXPECT_NE(again.error().message().find("disabled"), std::string::npos)
      << again.error().ToString();
  auto fix2 = StartFix(server_.fix_port(), fix_dir_.path() + "/b2", "TRADER_B",
                       "trader-b", "demo-trader-b");
  ASSERT_NE(fix2, nullptr);
  EXPECT_TRUE(LoggedOutWith(*fix2, "user disabled by the admin"))
      << fix2->Describe();
  EXPECT_FALSE(fix2->logged_on());
  fix2->Stop();

  // Another user is untouched.
  EXPECT_TRUE(LogOn(server_.port(), DemoLogon("trader-a")).has_value());

  // Enabled again, it logs on.
  ack = SetEnabled(*admin_, "trader-b", true, 2);
  ASSERT_TRUE(ack.has_value());
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  EXPECT_TRUE(LogOn(server_.port(), DemoLogon("trader-b")).has_value());
  auto fix3 = StartFix(server_.fix_port(), fix_dir_.path() + "/b", "TRADER_B",
                       "trader-b", "demo-trader-b");
  ASSERT_NE(fix3, nullptr);
  EXPECT_TRUE(fix3->WaitLoggedOn(kFixWait)) << fix3->Describe();
}

TEST_F(UserAdminTest, ANewPasswordReplacesTheOldOneForFixLogons) {
  auto ack = SetPassword(*admin_, "trader-b", "a-fresh-password", 1);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();

  // The new password logs on; then the old one is refused.
  auto new_pw = StartFix(server_.fix_port(), fix_dir_.path() + "/b",
                         "TRADER_B", "trader-b", "a-fresh-password");
  ASSERT_NE(new_pw, nullptr);
  EXPECT_TRUE(new_pw->WaitLoggedOn(kFixWait)) << new_pw->Describe();
  EXPECT_TRUE(new_pw->Logout(kFixWait)) << new_pw->Describe();
  new_pw.reset();
  auto old_pw = StartFix(server_.fix_port(), fix_dir_.path() + "/b2",
                         "TRADER_B", "trader-b", "demo-trader-b");
  ASSERT_NE(old_pw, nullptr);
  EXPECT_TRUE(LoggedOutWith(*old_pw, "invalid username or password"))
      << old_pw->Describe();
  EXPECT_FALSE(old_pw->logged_on());
}

TEST_F(UserAdminTest, ATraderIsRefusedEveryUserCommand) {
  auto trader = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(trader.has_value());
  const uint64_t seq_before = server_.commands_submitted();
  auto ack = SetEnabled(*trader.value(), "trader-b", false, 1);
  ASSERT_TRUE(ack.has_value());
  EXPECT_FALSE(ack.value().accepted());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  ack = SetPassword(*trader.value(), "trader-a", "a-fresh-password", 2);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  ack = Ask(*trader.value(), AddTrader("trader-z", "TRADER_Z", 3), 3);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  EXPECT_FALSE(Users(*trader.value(), 4).has_value());
  EXPECT_EQ(server_.commands_submitted(), seq_before);
  // trader-b is still enabled.
  EXPECT_TRUE(LogOn(server_.port(), DemoLogon("trader-b")).has_value());
}

TEST_F(UserAdminTest, BadUserCommandsGetSpecificRejectsAndChangeNothing) {
  const uint64_t before = server_.commands_submitted();
  auto ack = SetEnabled(*admin_, "nobody", false, 1);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_UNKNOWN_USER);
  ack = Ask(*admin_, AddTrader("trader-a", "TRADER_Z", 2), 2);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_DUPLICATE_USER);
  ack = Ask(*admin_, AddTrader("trader-z", "TRADER_A", 3), 3);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_DUPLICATE_USER);
  w::Envelope bad_account = AddTrader("trader-z", "TRADER_Z", 4);
  bad_account.mutable_user_add()->set_account("FIRM-B");  // another firm's
  ack = Ask(*admin_, bad_account, 4);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_INVALID_USER);
  w::Envelope short_pw = AddTrader("trader-z", "TRADER_Z", 5);
  short_pw.mutable_user_add()->set_password("short");
  ack = Ask(*admin_, short_pw, 5);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_INVALID_USER);
  ack = SetEnabled(*admin_, "admin", false, 6);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack.value().reason(), w::REJECT_REASON_INVALID_USER);
  EXPECT_EQ(server_.commands_submitted(), before);
  auto list = Users(*admin_, 7);
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  EXPECT_EQ(Find(list.value(), "trader-z"), nullptr);
}

TEST_F(UserAdminTest, AUserAddedAtRunTimeTradesOverFixAtOnce) {
  auto ack = Ask(*admin_, AddTrader("trader-z", "TRADER_Z", 1), 1);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  ASSERT_TRUE(ack.value().accepted()) << ack.value().text();
  // No restart: the new SenderCompID has a session at once.
  auto fix = StartFix(server_.fix_port(), fix_dir_.path() + "/z", "TRADER_Z",
                      "trader-z", "new-trader-password");
  ASSERT_NE(fix, nullptr);
  ASSERT_TRUE(fix->WaitLoggedOn(kFixWait)) << fix->Describe();
  ASSERT_TRUE(fix->Send("D", {{11, "z-1"},
                              {55, kSymbol},
                              {54, "1"},
                              {38, "1"},
                              {40, "2"},
                              {44, "5.80"},
                              {59, "1"},
                              {60, fix_test::FixUtcNow()}}));
  FixMessage report;
  ASSERT_TRUE(fix->Await(
      [](const FixMessage& m) { return m.type == "8" && m.Get(11) == "z-1"; },
      kFixWait, &report))
      << fix->Describe();
  // Accepted, on the account the user was added with.
  EXPECT_EQ(report.Get(150), "0") << report.ToString();
  EXPECT_EQ(report.Get(1), "FIRM-A") << report.ToString();
  // A wrong password is refused like any other user's.
  auto wrong = StartFix(server_.fix_port(), fix_dir_.path() + "/z2",
                        "TRADER_Z", "trader-z", "not-the-password");
  ASSERT_NE(wrong, nullptr);
  EXPECT_FALSE(wrong->WaitLoggedOn(std::chrono::milliseconds(1'500)));
  wrong->Stop();
  // Disabling it logs its session out, as for a user of the config.
  ack = SetEnabled(*admin_, "trader-z", false, 2);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  EXPECT_TRUE(LoggedOutWith(*fix, "user disabled by the admin"))
      << fix->Describe();
  fix->Stop();
}

TEST_F(UserAdminTest, TheJournalReproducesTheUsersAfterARestart) {
  auto ack = Ask(*admin_, AddTrader("trader-z", "TRADER_Z", 1), 1);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  ack = SetEnabled(*admin_, "trader-c", false, 2);
  ASSERT_TRUE(ack.has_value());
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  auto list = Users(*admin_, 3);
  ASSERT_TRUE(list.has_value());
  const w::UserInfo* z = Find(list.value(), "trader-z");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->firm(), "FIRM-A");
  EXPECT_EQ(z->account(), "FIRM-A");
  EXPECT_TRUE(z->enabled());
  EXPECT_TRUE(z->has_password());
  admin_->Close();
  admin_.reset();

  ASSERT_TRUE(server_.Stop().ok());
  const uint64_t hash = server_.state_hash();
  ASSERT_TRUE(server_.Start().ok());
  auto admin = LogOn(server_.port(), DemoLogon("admin"));
  ASSERT_TRUE(admin.has_value());
  list = Users(*admin.value(), 4);
  ASSERT_TRUE(list.has_value());
  ASSERT_NE(Find(list.value(), "trader-z"), nullptr);
  const w::UserInfo* c = Find(list.value(), "trader-c");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->enabled());
  EXPECT_FALSE(LogOn(server_.port(), DemoLogon("trader-c")).has_value());
  // The user added at run time logs on over FIX after the restart.
  auto fix = StartFix(server_.fix_port(), fix_dir_.path() + "/z", "TRADER_Z",
                      "trader-z", "new-trader-password");
  ASSERT_NE(fix, nullptr);
  EXPECT_TRUE(fix->WaitLoggedOn(kFixWait)) << fix->Describe();
  fix->Stop();
  admin.value()->Close();
  ASSERT_TRUE(server_.Stop().ok());
  EXPECT_EQ(server_.state_hash(), hash);
}

}  // namespace
}  // namespace cfx::gateway::server_test
