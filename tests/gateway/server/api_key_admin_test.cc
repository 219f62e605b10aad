// The API key commands through the whole exchange (docs/protocol.md, "API
// keys"; docs/cli.md, "API keys"): a key added at run time logs on at once,
// also for a user added at run time; a user rotates its own key; a revoked
// key's session is logged out and its logons fail as an unknown key's;
// another user's key is answered as one that does not exist; bad commands
// get specific rejects and change nothing; a restart reproduces it all.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

w::Envelope AddKey(const std::string& user, const std::string& key_id,
                   const std::string& public_key_base64, uint64_t id) {
  w::Envelope e;
  w::ApiKeyAdd* m = e.mutable_api_key_add();
  m->set_request_id(id);
  m->set_user(user);
  m->set_key_id(key_id);
  m->set_public_key(public_key_base64);
  return e;
}

w::Envelope RevokeKey(const std::string& user, const std::string& key_id,
                      uint64_t id) {
  w::Envelope e;
  w::ApiKeyRevoke* m = e.mutable_api_key_revoke();
  m->set_request_id(id);
  m->set_user(user);
  m->set_key_id(key_id);
  return e;
}

// A fresh key pair; its logon parameters as `key_id`. (trader-z, added
// with AddTrader(..., "", ...), has no FIX access: its API keys are its
// only logon.)
struct NewKey {
  crypto::Ed25519KeyPair pair;
  std::string base64;
  client::LogonParams Logon(const std::string& key_id) const {
    client::LogonParams p;
    p.api_key = key_id;
    p.private_key = pair.private_key;
    return p;
  }
};

NewKey MakeKey() {
  Result<crypto::Ed25519KeyPair> pair = crypto::GenerateKeyPair();
  EXPECT_TRUE(pair.has_value());
  NewKey k{pair.value(), crypto::Base64Encode(pair.value().public_key)};
  return k;
}

// The key list of `user` as session `c` reads it; the refusal as an error.
Result<w::ApiKeyList> Keys(client::Client& c, const std::string& user,
                           uint64_t id) {
  w::Envelope e;
  e.mutable_api_key_list_request()->set_request_id(id);
  e.mutable_api_key_list_request()->set_user(user);
  Result<w::Envelope> m = AskAnswer(c, e, id, [id](const w::Envelope& x) {
    return x.has_api_key_list() && x.api_key_list().request_id() == id;
  });
  if (!m.has_value()) return m.error();
  return m.value().api_key_list();
}

// The session `c` got a Logout with `text`, then closed.
bool LoggedOutWith(client::Client& c, const std::string& text) {
  std::vector<w::Envelope> before;
  if (!AwaitClose(c, &before).ok()) return false;
  bool told = false;
  for (const w::Envelope& e : before) {
    told |= e.has_logout() && e.logout().text() == text;
  }
  return told;
}

bool RefusedAsUnknownKey(const Result<std::unique_ptr<client::Client>>& r) {
  return !r.has_value() &&
         r.error().message().find("AUTHENTICATION_FAILED") != std::string::npos;
}

class ApiKeyAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    LogOnAdmin();
  }
  void TearDown() override {
    if (admin_ != nullptr) admin_->Close();
    if (server_.running()) {
      EXPECT_TRUE(server_.Stop().ok());
    }
  }
  void LogOnAdmin() {
    auto admin = LogOn(server_.port(), DemoLogon("admin"));
    ASSERT_TRUE(admin.has_value()) << admin.error().ToString();
    admin_ = std::move(admin).value();
  }
  // Asks on the admin's session; the ack must be there.
  w::ReferenceAck AdminAsks(const w::Envelope& e, uint64_t id) {
    auto ack = Ask(*admin_, e, id);
    EXPECT_TRUE(ack.has_value()) << ack.error().ToString();
    return ack.has_value() ? ack.value() : w::ReferenceAck{};
  }

  TestServer server_;
  std::unique_ptr<client::Client> admin_;
};

TEST_F(ApiKeyAdminTest, AKeyAddedAtRunTimeLogsOnAtOnce) {
  const NewKey k = MakeKey();
  const w::ReferenceAck ack =
      AdminAsks(AddKey("trader-b", "b-2", k.base64, 1), 1);
  EXPECT_TRUE(ack.accepted()) << ack.text();
  EXPECT_GT(ack.seq(), 0u);
  w::LogonAck logon;
  auto c = LogOn(server_.port(), k.Logon("b-2"), &logon);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(logon.user(), "trader-b");
  EXPECT_EQ(logon.account(), "FIRM-B");
}

TEST_F(ApiKeyAdminTest, AUserAddedAtRunTimeLogsOnWithAKeyAddedAtRunTime) {
  ASSERT_TRUE(AdminAsks(AddTrader("trader-z", "", 1), 1).accepted());
  const NewKey k = MakeKey();
  const w::ReferenceAck ack =
      AdminAsks(AddKey("trader-z", "z-1", k.base64, 2), 2);
  ASSERT_TRUE(ack.accepted()) << ack.text();
  w::LogonAck logon;
  auto c = LogOn(server_.port(), k.Logon("z-1"), &logon);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(logon.user(), "trader-z");
  EXPECT_EQ(logon.firm(), "FIRM-A");
  EXPECT_EQ(logon.role(), w::ROLE_TRADER);
}

TEST_F(ApiKeyAdminTest, ATraderRotatesItsOwnKeyWithoutTheAdmin) {
  auto trader = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(trader.has_value()) << trader.error().ToString();
  const NewKey k = MakeKey();
  auto ack = Ask(*trader.value(), AddKey("trader-a", "a-2", k.base64, 1), 1);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  // Revoking the key this session logged on with: the ack, then the
  // Logout.
  ack = Ask(*trader.value(), RevokeKey("trader-a", "trader-a", 2), 2);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_TRUE(ack.value().accepted()) << ack.value().text();
  EXPECT_TRUE(LoggedOutWith(*trader.value(), "API key revoked"));

  EXPECT_TRUE(
      RefusedAsUnknownKey(LogOn(server_.port(), DemoLogon("trader-a"))));
  auto rotated = LogOn(server_.port(), k.Logon("a-2"));
  ASSERT_TRUE(rotated.has_value()) << rotated.error().ToString();
  auto keys = Keys(*rotated.value(), "", 3);
  ASSERT_TRUE(keys.has_value()) << keys.error().ToString();
  ASSERT_EQ(keys.value().keys_size(), 2);
  EXPECT_EQ(keys.value().keys(0).id(), "trader-a");
  EXPECT_TRUE(keys.value().keys(0).revoked());
  EXPECT_EQ(keys.value().keys(1).id(), "a-2");
  EXPECT_FALSE(keys.value().keys(1).revoked());
  EXPECT_EQ(keys.value().keys(1).public_key(), k.base64);
}

TEST_F(ApiKeyAdminTest, AnotherUsersKeyIsAnsweredAsOneThatDoesNotExist) {
  auto trader = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(trader.has_value());
  client::Client& c = *trader.value();
  const uint64_t before = server_.commands_submitted();
  const NewKey k = MakeKey();
  // Another user, and a user that does not exist: the same answer.
  auto other = Ask(c, AddKey("trader-b", "x-1", k.base64, 1), 1);
  auto nobody = Ask(c, AddKey("nobody", "x-1", k.base64, 2), 2);
  ASSERT_TRUE(other.has_value() && nobody.has_value());
  EXPECT_EQ(other.value().reason(), w::REJECT_REASON_UNKNOWN_USER);
  EXPECT_EQ(nobody.value().reason(), w::REJECT_REASON_UNKNOWN_USER);
  EXPECT_EQ(other.value().text(), "no user trader-b");
  EXPECT_EQ(nobody.value().text(), "no user nobody");
  other = Ask(c, RevokeKey("trader-b", "trader-b", 3), 3);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other.value().reason(), w::REJECT_REASON_UNKNOWN_USER);
  // Another user's key named as its own, and a key that does not exist.
  auto their_key = Ask(c, RevokeKey("trader-a", "trader-b", 4), 4);
  auto no_key = Ask(c, RevokeKey("trader-a", "no-such-key", 5), 5);
  ASSERT_TRUE(their_key.has_value() && no_key.has_value());
  EXPECT_EQ(their_key.value().reason(), w::REJECT_REASON_UNKNOWN_API_KEY);
  EXPECT_EQ(no_key.value().reason(), w::REJECT_REASON_UNKNOWN_API_KEY);
  EXPECT_EQ(their_key.value().text(),
            "user trader-a has no active API key trader-b");
  EXPECT_EQ(no_key.value().text(),
            "user trader-a has no active API key no-such-key");
  auto list = Keys(c, "trader-b", 6);
  ASSERT_FALSE(list.has_value());
  EXPECT_EQ(list.error().message(), "no user trader-b");
  EXPECT_EQ(server_.commands_submitted(), before);
  // trader-b's key still logs on.
  EXPECT_TRUE(LogOn(server_.port(), DemoLogon("trader-b")).has_value());
}

TEST_F(ApiKeyAdminTest, RevokingAKeyLogsItsSessionOutAndRefusesItsLogons) {
  auto b = LogOn(server_.port(), DemoLogon("trader-b"));
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  auto c = LogOn(server_.port(), DemoLogon("trader-c"));
  ASSERT_TRUE(c.has_value());
  const w::ReferenceAck ack =
      AdminAsks(RevokeKey("trader-b", "trader-b", 1), 1);
  EXPECT_TRUE(ack.accepted()) << ack.text();
  EXPECT_TRUE(LoggedOutWith(*b.value(), "API key revoked"));
  EXPECT_TRUE(
      RefusedAsUnknownKey(LogOn(server_.port(), DemoLogon("trader-b"))));
  // Another user's session is untouched.
  EXPECT_TRUE(Keys(*c.value(), "", 2).has_value());
}

TEST_F(ApiKeyAdminTest, TheLastWayToLogOnIsNotRevoked) {
  ASSERT_TRUE(AdminAsks(AddTrader("trader-z", "", 1), 1).accepted());
  const NewKey k = MakeKey();
  ASSERT_TRUE(AdminAsks(AddKey("trader-z", "z-1", k.base64, 2), 2).accepted());
  const uint64_t before = server_.commands_submitted();
  const w::ReferenceAck ack = AdminAsks(RevokeKey("trader-z", "z-1", 3), 3);
  EXPECT_FALSE(ack.accepted());
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_LAST_API_KEY) << ack.text();
  EXPECT_EQ(server_.commands_submitted(), before);
  EXPECT_TRUE(LogOn(server_.port(), k.Logon("z-1")).has_value());
}

TEST_F(ApiKeyAdminTest, BadKeyCommandsGetSpecificRejectsAndChangeNothing) {
  const uint64_t before = server_.commands_submitted();
  const NewKey k = MakeKey();
  // Key ids are unique over all users.
  w::ReferenceAck ack =
      AdminAsks(AddKey("trader-b", "trader-a", k.base64, 1), 1);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_DUPLICATE_API_KEY) << ack.text();
  ack = AdminAsks(AddKey("trader-b", "b-2", "not base64!", 2), 2);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_INVALID_API_KEY) << ack.text();
  ack = AdminAsks(
      AddKey("trader-b", "b-2", crypto::Base64Encode(std::string(31, 'k')), 3),
      3);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_INVALID_API_KEY) << ack.text();
  ack = AdminAsks(AddKey("trader-b", "has space", k.base64, 4), 4);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_INVALID_API_KEY) << ack.text();
  ack = AdminAsks(AddKey("nobody", "b-2", k.base64, 5), 5);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_UNKNOWN_USER) << ack.text();
  ack = AdminAsks(RevokeKey("trader-b", "no-such-key", 6), 6);
  EXPECT_EQ(ack.reason(), w::REJECT_REASON_UNKNOWN_API_KEY) << ack.text();
  EXPECT_EQ(server_.commands_submitted(), before);
  EXPECT_TRUE(RefusedAsUnknownKey(LogOn(server_.port(), k.Logon("b-2"))));
}

TEST_F(ApiKeyAdminTest, TheJournalReproducesTheKeysAfterARestart) {
  ASSERT_TRUE(AdminAsks(AddTrader("trader-z", "", 1), 1).accepted());
  const NewKey k = MakeKey();
  ASSERT_TRUE(AdminAsks(AddKey("trader-z", "z-1", k.base64, 2), 2).accepted());
  ASSERT_TRUE(AdminAsks(RevokeKey("trader-b", "trader-b", 3), 3).accepted());
  admin_->Close();
  admin_.reset();

  ASSERT_TRUE(server_.Stop().ok());
  const uint64_t hash = server_.state_hash();
  ASSERT_TRUE(server_.Start().ok());
  LogOnAdmin();
  w::LogonAck logon;
  auto z = LogOn(server_.port(), k.Logon("z-1"), &logon);
  ASSERT_TRUE(z.has_value()) << z.error().ToString();
  EXPECT_EQ(logon.user(), "trader-z");
  EXPECT_TRUE(
      RefusedAsUnknownKey(LogOn(server_.port(), DemoLogon("trader-b"))));
  auto keys = Keys(*admin_, "trader-b", 4);
  ASSERT_TRUE(keys.has_value()) << keys.error().ToString();
  ASSERT_EQ(keys.value().keys_size(), 1);
  EXPECT_TRUE(keys.value().keys(0).revoked());
  z.value()->Close();
  admin_->Close();
  admin_.reset();
  ASSERT_TRUE(server_.Stop().ok());
  EXPECT_EQ(server_.state_hash(), hash);
}

}  // namespace
}  // namespace cfx::gateway::server_test
