// Logon authentication failures (docs/protocol.md, "Session" 2-3): every
// LogonRejectReason, each followed by the server closing the connection.
#include <gtest/gtest.h>

#include <string>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

class PbLogonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  // Sends `logon` on a fresh connection and returns the LogonReject the
  // server answers; fails the test unless the server then closes.
  w::LogonReject RejectOf(const w::Envelope& logon) {
    auto c = Connect(server_.port());
    EXPECT_TRUE(c.has_value()) << c.error().ToString();
    if (!c.has_value()) return {};
    EXPECT_TRUE(c.value()->Send(logon).ok());
    auto r = Next(*c.value());
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    if (!r.has_value()) return {};
    EXPECT_TRUE(r.value().has_logon_reject()) << Describe(r.value());
    std::vector<w::Envelope> after;
    const Status closed = AwaitClose(*c.value(), &after);
    EXPECT_TRUE(closed.ok()) << closed.ToString();
    EXPECT_TRUE(after.empty()) << Describe(after.front());
    return r.value().logon_reject();
  }

  TestServer server_;
};

TEST_F(PbLogonTest, WrongSecretFailsAuthentication) {
  client::LogonParams p = DemoLogon("trader-a");
  p.private_key = DemoPrivateKey("trader-b");
  EXPECT_EQ(RejectOf(LogonMessage(p)).reason(),
            w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED);
}

TEST_F(PbLogonTest, Ed25519SignatureByTheUsersKeyIsAccepted) {
  auto c = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
}

TEST_F(PbLogonTest, HmacSignatureAgainstAnEd25519KeyFailsAuthentication) {
  // A well-formed 32-byte HMAC signature; trader-a's key is ed25519.
  client::LogonParams p = DemoLogon("trader-a");
  p.private_key.clear();
  p.secret = "an-hmac-secret-of-more-than-32-bytes-0123456789";
  EXPECT_EQ(RejectOf(LogonMessage(p)).reason(),
            w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED);
}

TEST_F(PbLogonTest, UnknownApiKeyGetsTheSameAnswerAsAWrongSecret) {
  client::LogonParams wrong_secret = DemoLogon("trader-a");
  wrong_secret.private_key = DemoPrivateKey("trader-z");
  client::LogonParams unknown_key = DemoLogon("trader-z");
  const w::LogonReject a = RejectOf(LogonMessage(wrong_secret));
  const w::LogonReject b = RejectOf(LogonMessage(unknown_key));
  EXPECT_EQ(b.reason(), w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED);
  // Byte for byte: a caller cannot tell which keys exist.
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST_F(PbLogonTest, TimestampOutsideTheWindowIsStale) {
  const int64_t window_ns =
      int64_t{server_.config().session.logon_window_seconds} * 1'000'000'000;
  for (const int64_t offset : {-2 * window_ns, 2 * window_ns}) {
    SCOPED_TRACE("offset_ns=" + std::to_string(offset));
    client::LogonParams p = DemoLogon("trader-a");
    p.timestamp_ns = WallNowNs() + offset;  // correctly signed
    EXPECT_EQ(RejectOf(LogonMessage(p)).reason(),
              w::LOGON_REJECT_REASON_STALE_TIMESTAMP);
  }
}

TEST_F(PbLogonTest, TimestampInsideTheWindowIsAccepted) {
  client::LogonParams p = DemoLogon("trader-a");
  p.timestamp_ns = WallNowNs() - 10'000'000'000;  // 10 s slow
  auto c = LogOn(server_.port(), p);
  EXPECT_TRUE(c.has_value()) << c.error().ToString();
}

TEST_F(PbLogonTest, ReusedNonceIsRejected) {
  client::LogonParams p = DemoLogon("trader-a");
  p.nonce = "nonce-used-once";
  {
    auto c = LogOn(server_.port(), p);
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    w::Envelope logout;
    logout.mutable_logout();
    ASSERT_TRUE(c.value()->Send(logout).ok());
    ASSERT_TRUE(AwaitClose(*c.value()).ok());
  }
  // Same nonce, a fresh timestamp and signature.
  p.timestamp_ns = WallNowNs() + 1;
  EXPECT_EQ(RejectOf(LogonMessage(p)).reason(),
            w::LOGON_REJECT_REASON_NONCE_REUSED);
}

TEST_F(PbLogonTest, SameNonceForAnotherKeyIsAccepted) {
  client::LogonParams a = DemoLogon("trader-a");
  a.nonce = "shared-nonce-1";
  client::LogonParams b = DemoLogon("trader-b");
  b.nonce = a.nonce;
  auto ca = LogOn(server_.port(), a);
  ASSERT_TRUE(ca.has_value()) << ca.error().ToString();
  auto cb = LogOn(server_.port(), b);
  EXPECT_TRUE(cb.has_value()) << cb.error().ToString();
}

TEST_F(PbLogonTest, SecondSessionOfALoggedOnUserIsRejected) {
  auto first = LogOn(server_.port(), DemoLogon("trader-a"));
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  EXPECT_EQ(RejectOf(LogonMessage(DemoLogon("trader-a"))).reason(),
            w::LOGON_REJECT_REASON_ALREADY_LOGGED_ON);
  // The first session is unharmed.
  auto status = QueryStatus(*first.value(), kBarrierOrderId);
  EXPECT_TRUE(status.has_value()) << status.error().ToString();
}

TEST_F(PbLogonTest, MalformedLogonFieldsAreInvalid) {
  struct Case {
    const char* name;
    void (*mutate)(w::Logon*);
  };
  const Case cases[] = {
      {"empty api_key", [](w::Logon* m) { m->clear_api_key(); }},
      {"api_key with a space", [](w::Logon* m) { m->set_api_key("trader a"); }},
      {"api_key of 129 characters",
       [](w::Logon* m) { m->set_api_key(std::string(129, 'k')); }},
      {"nonce of 7 characters", [](w::Logon* m) { m->set_nonce("1234567"); }},
      {"nonce of 65 characters",
       [](w::Logon* m) { m->set_nonce(std::string(65, 'n')); }},
      {"nonce with a control character",
       [](w::Logon* m) {
         m->set_nonce(
             std::string("abc\x01"
                         "defgh"));
       }},
      {"empty signature", [](w::Logon* m) { m->clear_signature(); }},
      {"signature of 31 bytes",
       [](w::Logon* m) { m->set_signature(m->signature().substr(0, 31)); }},
      {"signature of 65 bytes",
       [](w::Logon* m) { m->set_signature(m->signature() + "x"); }},
      {"heartbeat of 99 ms",
       [](w::Logon* m) { m->set_heartbeat_interval_ms(99); }},
      {"heartbeat of 60001 ms",
       [](w::Logon* m) { m->set_heartbeat_interval_ms(60'001); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    w::Envelope e = LogonMessage(DemoLogon("trader-a"));
    c.mutate(e.mutable_logon());
    EXPECT_EQ(RejectOf(e).reason(), w::LOGON_REJECT_REASON_INVALID_LOGON);
  }
  // None of them consumed anything: a good logon still works.
  auto ok = LogOn(server_.port(), DemoLogon("trader-a"));
  EXPECT_TRUE(ok.has_value()) << ok.error().ToString();
}

TEST_F(PbLogonTest, ResumeBeyondTheLastSeqIsUnavailable) {
  // The order is the exchange's last command (after the server's own spot
  // listings; trader-a opts out of cancel on disconnect): its seq is the
  // last seq.
  uint64_t last = 0;
  {
    auto c = LogOn(server_.port(), DemoLogonOptOut("trader-a"));
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    auto ack = SendOrder(*c.value(), NewOrder(1, w::SIDE_BUY, kPrice, 1));
    ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
    ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
    last = ack.value().seq();
    ASSERT_GE(last, 1u);
  }
  // Another user: trader-a's session may still be closing.
  client::LogonParams p = DemoLogon("trader-b");
  p.resume_after_seq = last + 1;
  EXPECT_EQ(RejectOf(LogonMessage(p)).reason(),
            w::LOGON_REJECT_REASON_RETRANSMISSION_UNAVAILABLE);
  // The last seq itself is fine.
  p = DemoLogon("trader-b");
  p.resume_after_seq = last;
  w::Envelope logon = LogonMessage(p);
  auto c = Connect(server_.port());
  ASSERT_TRUE(c.has_value());
  ASSERT_TRUE(c.value()->Send(logon).ok());
  auto r = Next(*c.value());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r.value().has_logon_ack()) << Describe(r.value());
}

}  // namespace
}  // namespace cfx::gateway::server_test
