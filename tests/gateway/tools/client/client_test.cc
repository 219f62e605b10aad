// The blocking client against a scripted fake server on loopback.

#include "gateway/tools/client/client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "gateway/pb/logon_signature.h"
#include "tests/gateway/tools/client/fake_server.h"

namespace cfx::gateway::client {
namespace {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;
using testing::AcceptLogon;
using testing::FakeConnection;
using testing::FakeServer;
using testing::TraderAck;

constexpr milliseconds kLong{5000};

std::unique_ptr<Client> ConnectTo(const FakeServer& server) {
  Result<std::unique_ptr<Client>> c =
      Client::Connect("127.0.0.1", server.port(), kLong);
  EXPECT_TRUE(c.has_value()) << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

LogonParams TraderA() {
  LogonParams p;
  p.api_key = "trader-a";
  p.secret = "demo-trader-a";
  return p;
}

// Connects and logs on as trader-a; the server script must AcceptLogon().
std::unique_ptr<Client> LoggedOn(const FakeServer& server) {
  std::unique_ptr<Client> c = ConnectTo(server);
  if (c == nullptr) return nullptr;
  Result<w::LogonAck> ack = c->Logon(TraderA(), kLong);
  EXPECT_TRUE(ack.has_value()) << ack.error().ToString();
  return ack.has_value() ? std::move(c) : nullptr;
}

w::Envelope Heartbeat() {
  w::Envelope e;
  e.mutable_heartbeat();
  return e;
}

w::Envelope Report(uint64_t order_id) {
  w::Envelope e;
  e.mutable_execution_report()->set_order_id(order_id);
  e.mutable_execution_report()->set_exec_type(w::EXEC_TYPE_NEW);
  return e;
}

TEST(Client, LogonSendsASignedLogonAndReturnsTheAck) {
  std::optional<w::Logon> seen;
  FakeServer server([&](FakeConnection& c) {
    seen = AcceptLogon(c, TraderAck(1500));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  LogonParams p = TraderA();
  p.heartbeat_interval_ms = 1500;
  p.cancel_on_disconnect_opt_out = true;
  p.resume_after_seq = 17;
  p.resume_after_index = 3;
  const auto before = std::chrono::system_clock::now();
  Result<w::LogonAck> ack = c->Logon(p, kLong);
  ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
  EXPECT_EQ(ack.value().user(), "trader-a");
  EXPECT_EQ(ack.value().exchange_seq(), 42u);
  EXPECT_EQ(c->heartbeat_interval(), milliseconds(1500));
  EXPECT_TRUE(c->connected());
  c->Close();
  server.Join();

  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->api_key(), "trader-a");
  EXPECT_EQ(seen->nonce().size(), 24u);
  EXPECT_EQ(seen->nonce().find_first_not_of("0123456789abcdef"),
            std::string::npos);
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             before.time_since_epoch())
                             .count();
  EXPECT_GE(seen->timestamp_ns(), now_ns);
  EXPECT_LT(seen->timestamp_ns(), now_ns + 60'000'000'000);
  EXPECT_TRUE(pb::VerifyLogonSignature("demo-trader-a", "trader-a",
                                       seen->timestamp_ns(), seen->nonce(),
                                       seen->signature()));
  EXPECT_EQ(seen->heartbeat_interval_ms(), 1500u);
  EXPECT_TRUE(seen->cancel_on_disconnect_opt_out());
  ASSERT_TRUE(seen->has_resume_after_seq());
  EXPECT_EQ(seen->resume_after_seq(), 17u);
  EXPECT_EQ(seen->resume_after_index(), 3u);
}

TEST(Client, LogonUsesTheGivenNonceAndTimestamp) {
  std::optional<w::Logon> seen;
  FakeServer server([&](FakeConnection& c) {
    seen = AcceptLogon(c, TraderAck());
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  LogonParams p = TraderA();
  p.nonce = "fixed-nonce-1";
  p.timestamp_ns = 123'456'789;
  ASSERT_TRUE(c->Logon(p, kLong).has_value());
  c->Close();
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->nonce(), "fixed-nonce-1");
  EXPECT_EQ(seen->timestamp_ns(), 123'456'789);
  EXPECT_FALSE(seen->has_resume_after_seq());
  EXPECT_EQ(seen->signature(),
            pb::LogonSignature("demo-trader-a", "trader-a", 123'456'789,
                               "fixed-nonce-1"));
}

TEST(Client, LogonRejectIsAnErrorNamingReasonAndText) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(c.Read().has_value());
    w::Envelope e;
    e.mutable_logon_reject()->set_reason(
        w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED);
    e.mutable_logon_reject()->set_text("unknown API key or bad signature");
    c.Write(e);
    c.Close();
  });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  Result<w::LogonAck> ack = c->Logon(TraderA(), kLong);
  ASSERT_FALSE(ack.has_value());
  EXPECT_EQ(ack.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(ack.error().message(),
            "logon rejected: AUTHENTICATION_FAILED: unknown API key or bad "
            "signature");
  EXPECT_FALSE(c->connected());
  const Status s = c->Send(Heartbeat());
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

TEST(Client, LogonSkipsHeartbeatsBeforeTheAck) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(c.Read().has_value());
    c.Write(Heartbeat());
    w::Envelope ack;
    *ack.mutable_logon_ack() = TraderAck();
    c.Write(ack);
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->Logon(TraderA(), kLong).has_value());
}

TEST(Client, LogonWithoutAnswerTimesOut) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(c.Read().has_value());
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  Result<w::LogonAck> ack = c->Logon(TraderA(), milliseconds(50));
  ASSERT_FALSE(ack.has_value());
  EXPECT_EQ(ack.error().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ack.error().message(), "no answer to the logon within 50 ms");
}

TEST(Client, ConnectToAClosedPortIsUnavailable) {
  const uint16_t port = testing::UnusedPort();
  Result<std::unique_ptr<Client>> c = Client::Connect("127.0.0.1", port, kLong);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code(), StatusCode::kUnavailable);
  EXPECT_EQ(
      c.error().message().rfind(
          "cannot connect to 127.0.0.1:" + std::to_string(port) + ": ", 0),
      0u)
      << c.error().message();
}

TEST(Client, ConnectResolvesHostNames) {
  FakeServer server([](FakeConnection& c) { c.WaitForClose(); });
  Result<std::unique_ptr<Client>> c =
      Client::Connect("localhost", server.port(), kLong);
  // localhost may resolve to ::1 first; the client tries each address.
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_TRUE(c.value()->connected());
}

TEST(Client, ReceiveTimesOutAndTheConnectionStaysUsable) {
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    // Wait for the client's signal (a frame) before answering.
    ASSERT_TRUE(c.Read().has_value());
    c.Write(Report(7));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  Result<w::Envelope> r = c->Receive(milliseconds(30));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.error().message(), "no message from the server within 30 ms");
  EXPECT_TRUE(c->connected());
  r = c->Receive(milliseconds(0));
  EXPECT_EQ(r.error().code(), StatusCode::kResourceExhausted);

  ASSERT_TRUE(c->Send(Heartbeat()).ok());
  r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().execution_report().order_id(), 7u);
}

TEST(Client, SendAndReceiveRoundTrip) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    for (int i = 0; i < 3; ++i) {
      std::optional<w::Envelope> e = c.Read();
      ASSERT_TRUE(e.has_value());
      c.Write(*e);  // echo
    }
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  for (uint64_t i = 1; i <= 3; ++i) {
    w::Envelope e;
    w::NewOrder* o = e.mutable_new_order();
    o->set_client_order_id(i);
    o->set_symbol("XB2SZ6");
    o->set_side(w::SIDE_BUY);
    o->set_price(58'000);
    o->set_quantity(static_cast<int64_t>(i));
    ASSERT_TRUE(c->Send(e).ok());
    Result<w::Envelope> r = c->Receive(kLong);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_EQ(r.value().SerializeAsString(), e.SerializeAsString());
  }
}

TEST(Client, FramesSplitAndCoalescedOnTheWireAreReassembled) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    // Two frames in one write, then one frame in three writes.
    c.WriteRaw(testing::Frame(Report(1)) + testing::Frame(Report(2)));
    const std::string third = testing::Frame(Report(3));
    c.WriteRaw(third.substr(0, 3));
    ASSERT_TRUE(c.Read().has_value());  // the client asks for the rest
    c.WriteRaw(third.substr(3, 5));
    c.WriteRaw(third.substr(8));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  for (uint64_t id = 1; id <= 2; ++id) {
    Result<w::Envelope> r = c->Receive(kLong);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    EXPECT_EQ(r.value().execution_report().order_id(), id);
  }
  // Only part of the third frame's header can be there yet.
  EXPECT_EQ(c->Receive(milliseconds(20)).error().code(),
            StatusCode::kResourceExhausted);
  ASSERT_TRUE(c->Send(Heartbeat()).ok());
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().execution_report().order_id(), 3u);
}

TEST(Client, LargestFrameRoundTrips) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value());
    c.Write(*e);
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  w::Envelope e;
  e.mutable_logout()->set_text(std::string(60'000, 'x'));
  ASSERT_TRUE(c->Send(e).ok());
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().logout().text().size(), 60'000u);
}

TEST(Client, SendOfAMessageLargerThanAFrameIsRefused) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  w::Envelope e;
  e.mutable_logout()->set_text(std::string(70'000, 'x'));
  const Status s = c->Send(e);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(c->connected());
}

TEST(Client, ServerCloseIsUnavailableAfterTheFramesBeforeIt) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.Write(Report(9));
    c.Close();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  server.Join();
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().execution_report().order_id(), 9u);
  r = c->Receive(kLong);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.error().message(), "connection closed by server");
  EXPECT_FALSE(c->connected());
  // Later calls keep saying why.
  EXPECT_EQ(c->Receive(kLong).error().message(), "connection closed by server");
  EXPECT_EQ(c->Send(Heartbeat()).message(), "connection closed by server");
}

TEST(Client, BadFrameHeaderFromServerIsDataLossAndCloses) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.WriteRaw(std::string("\x00\x00\x00\x08\x12\x34zz", 8));  // bad magic
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.error().message(),
            "malformed frame from server: frame magic is not 0x4700; "
            "connection closed");
  EXPECT_FALSE(c->connected());
}

TEST(Client, OversizedFrameHeaderFromServerIsDataLoss) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.WriteRaw(std::string("\x7f\xff\xff\xff\x47\x00", 6));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kDataLoss);
  EXPECT_FALSE(c->connected());
}

TEST(Client, UnparsableEnvelopeIsDataLossAndTheSessionLivesOn) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    // A well-framed payload that is not an Envelope (truncated varint).
    c.WriteRaw(std::string("\x00\x00\x00\x09\x47\x00\x08\xff\xff", 9));
    c.Write(Report(5));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kDataLoss);
  EXPECT_EQ(r.error().message(),
            "malformed frame from server: its 3-byte Envelope does not parse");
  EXPECT_TRUE(c->connected());
  r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().execution_report().order_id(), 5u);
}

TEST(Client, HeartbeatIsSentWhenIdle) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(
        AcceptLogon(c, TraderAck(/*heartbeat_interval_ms=*/100)).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value());
    w::Envelope answer;
    answer.mutable_logout()->set_text(e->has_heartbeat() ? "got heartbeat"
                                                         : "got other");
    c.Write(answer);
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->heartbeat_interval(), milliseconds(100));
  Result<w::Envelope> r = c->Receive(kLong);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().logout().text(), "got heartbeat");
}

TEST(Client, HeartbeatIntervalDefaultsToTheServerDefault) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck(0)).has_value());
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->heartbeat_interval(), milliseconds(5000));
}

TEST(Client, ReceiveUntilPassesOtherMessagesOn) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.Write(Heartbeat());
    w::Envelope u;
    u.mutable_book_update()->set_symbol("XB2SZ6");
    c.Write(u);
    c.Write(Report(11));
    c.Write(Report(12));
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  std::vector<w::Envelope::BodyCase> others;
  Result<w::Envelope> r = c->ReceiveUntil(
      [](const w::Envelope& e) { return e.has_execution_report(); }, kLong,
      [&](const w::Envelope& e) { others.push_back(e.body_case()); });
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().execution_report().order_id(), 11u);
  EXPECT_EQ(others, (std::vector<w::Envelope::BodyCase>{
                        w::Envelope::kHeartbeat, w::Envelope::kBookUpdate}));
  // Without `other`, non-matching messages are dropped.
  r = c->ReceiveUntil([](const w::Envelope& e) { return e.has_clock_report(); },
                      milliseconds(30));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.error().message(), "no answer from the server within 30 ms");
}

TEST(Client, SendRawSendsBytesUnchanged) {
  std::string got;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    got = c.ReadRaw(5);
    c.WaitForClose();
  });
  std::unique_ptr<Client> c = LoggedOn(server);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->SendRaw(std::string("\x00\x01junk", 6).substr(0, 5)).ok());
  c->Close();
  server.Join();
  EXPECT_EQ(got, std::string("\x00\x01jun", 5));
}

TEST(Client, CloseIsIdempotentAndStopsSends) {
  FakeServer server([](FakeConnection& c) { c.WaitForClose(); });
  std::unique_ptr<Client> c = ConnectTo(server);
  ASSERT_NE(c, nullptr);
  c->Close();
  c->Close();
  EXPECT_FALSE(c->connected());
  EXPECT_EQ(c->Send(Heartbeat()).code(), StatusCode::kUnavailable);
  EXPECT_EQ(c->Receive(milliseconds(10)).error().code(),
            StatusCode::kUnavailable);
}

}  // namespace
}  // namespace cfx::gateway::client
