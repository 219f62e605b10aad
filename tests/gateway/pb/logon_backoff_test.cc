// The protobuf logon's back-off and its checks off the gateway thread
// (docs/protocol.md, "Logon back-off"): a bare pb::Gateway on this thread
// with a logon clock the test moves, so the back-off is asserted by the
// answers' reasons and texts, never by timing.

#include "gateway/session/logon_backoff.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "exchange/clock.h"
#include "exchange/payload_arena.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/frame.h"
#include "gateway/pb/gateway.h"
#include "gateway/session/credential_check.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

namespace w = cfx::wire::v1;
using tcp = asio::ip::tcp;
constexpr int64_t kSecond = 1'000'000'000;

class PbLogonBackoffTest : public ::testing::Test {
 protected:
  PbLogonBackoffTest()
      : config_(server_test::DemoConfig()),
        instruments_(config_),
        md_(config_),
        ring_(64),
        arena_(16, 1024),
        clock_(exchange::Timestamp{0}) {}

  void Start(CredentialChecker* checker = nullptr) {
    const pb::GatewayDeps deps{.config = &config_,
                               .instruments = &instruments_,
                               .ring = &ring_,
                               .market_data = &md_,
                               .clock = &clock_,
                               .durable_seq = nullptr,
                               .payload_arena = &arena_,
                               .credentials = checker,
                               .logon_clock_ns = [this] { return now_ns_; }};
    gateway_ = std::make_unique<pb::Gateway>(io_, deps);
    ASSERT_TRUE(gateway_->Listen("127.0.0.1", 0).ok());
  }

  void TearDown() override {
    if (gateway_ != nullptr) gateway_->Stop();
  }

  // A connection from the local address `source` that has sent `logon`.
  tcp::socket Send(const client::LogonParams& p,
                   const char* source = "127.0.0.1") {
    tcp::socket sock(io_);
    boost::system::error_code ec;
    sock.open(tcp::v4(), ec);
    if (!ec) sock.bind({asio::ip::make_address(source), 0}, ec);
    if (!ec) {
      sock.connect({asio::ip::make_address("127.0.0.1"), gateway_->port()}, ec);
    }
    if (!ec) {
      asio::write(
          sock, asio::buffer(server_test::Frame(server_test::LogonMessage(p))),
          ec);
    }
    if (!ec) sock.non_blocking(true, ec);
    EXPECT_FALSE(ec) << ec.message();
    return sock;
  }

  // The first message the gateway answers on `sock` with; an empty
  // Envelope (and a failure) if none.
  w::Envelope Await(tcp::socket& sock) {
    if (!sock.is_open()) return {};
    pb::FrameReader reader;
    std::string_view payload;
    w::Envelope e;
    bool have = false;
    const bool got = testing::RunUntil(io_, [&] {
      if (have) return true;
      gateway_->Poll();
      boost::system::error_code rec;
      const std::size_t n = sock.read_some(
          asio::buffer(reader.WritableSpace(), reader.WritableSize()), rec);
      if (!rec) reader.Commit(n);
      have = reader.Next(&payload);
      return have;
    });
    EXPECT_TRUE(got) << "no answer to a logon";
    const bool parsed =
        got &&
        e.ParseFromArray(payload.data(), static_cast<int>(payload.size()));
    EXPECT_EQ(parsed, got);
    return e;
  }

  // The first message the gateway answers `logon` with, sent from the
  // local address `source`.
  w::Envelope Answer(const client::LogonParams& p,
                     const char* source = "127.0.0.1") {
    tcp::socket sock = Send(p, source);
    return Await(sock);
  }

  static client::LogonParams Guess(const std::string& user) {
    client::LogonParams p = server_test::DemoLogon(user);
    p.private_key.clear();
    p.secret = "a guess";
    return p;
  }

  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  exchange::SpscRing<exchange::Command> ring_;
  exchange::PayloadArena arena_;
  exchange::SimulatedClock clock_;
  int64_t now_ns_ = 1'000 * kSecond;
  asio::io_context io_;
  std::unique_ptr<pb::Gateway> gateway_;
};

::testing::AssertionResult Refused(const w::Envelope& e,
                                   w::LogonRejectReason reason,
                                   const std::string& text) {
  if (!e.has_logon_reject() || e.logon_reject().reason() != reason ||
      e.logon_reject().text().find(text) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "expected " << w::LogonRejectReason_Name(reason) << " \"" << text
           << "\", got " << e.ShortDebugString();
  }
  return ::testing::AssertionSuccess();
}

// Each failed guess at one user from one address doubles the wait before
// the next is checked; the refusals in between say so and why, and other
// users, at that address too, log on meanwhile.
TEST_F(PbLogonBackoffTest, GuessesAtOneUserBackOffExponentiallyWithAReason) {
  Start();
  int64_t wait_s = 1;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_TRUE(Refused(Answer(Guess("trader-a")),
                        w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                        "authentication failed"));
    EXPECT_TRUE(Refused(
        Answer(Guess("trader-a")), w::LOGON_REJECT_REASON_TRY_AGAIN_LATER,
        "try again later (in " + std::to_string(wait_s) + " s)"));
    now_ns_ += wait_s * kSecond;
    wait_s *= 2;
  }
  EXPECT_TRUE(Answer(server_test::DemoLogon("trader-b")).has_logon_ack());
  EXPECT_TRUE(
      Answer(server_test::DemoLogon("trader-c"), "127.0.0.2").has_logon_ack());
  // The user's own Logon once the back-off is over: accepted.
  EXPECT_TRUE(Answer(server_test::DemoLogon("trader-a")).has_logon_ack());
}

// Guessing across many keys from one address: past the free failures the
// address itself backs off; another address is not affected.
TEST_F(PbLogonBackoffTest, ASprayOfKeysFromOneAddressBacksTheAddressOff) {
  Start();
  for (int i = 0; i < 9; ++i) {
    EXPECT_TRUE(Refused(Answer(Guess("nobody-" + std::to_string(i))),
                        w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                        "authentication failed"));
  }
  EXPECT_TRUE(Refused(Answer(server_test::DemoLogon("trader-b")),
                      w::LOGON_REJECT_REASON_TRY_AGAIN_LATER,
                      "from this address; try again later"));
  EXPECT_TRUE(
      Answer(server_test::DemoLogon("trader-b"), "127.0.0.2").has_logon_ack());
}

// A worker that waits for the test, so that checks queue behind it: a queue
// of `max_queued`, `fill` of them taken by checks of its own.
class BlockedChecker {
 public:
  explicit BlockedChecker(asio::io_context& io, std::size_t max_queued = 1,
                          int fill = 1)
      : fill_(fill),
        checker_(CredentialCheckOptions{.threads = 1,
                                        .max_queued = max_queued}) {
    EXPECT_TRUE(checker_.TrySubmit(
        io,
        [this] {
          std::unique_lock<std::mutex> lock(mu_);
          started_ = true;
          cv_.notify_all();
          cv_.wait(lock, [this] { return released_; });
          return true;
        },
        [this](bool) { ++answered_; }));
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return started_; });
    lock.unlock();
    for (int i = 0; i < fill; ++i) {
      EXPECT_TRUE(checker_.TrySubmit(
          io, [] { return true; }, [this](bool) { ++answered_; }));
    }
  }
  ~BlockedChecker() { Release(); }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  CredentialChecker* get() { return &checker_; }
  // Every check it queued has answered (on the io_context's thread).
  bool drained() const { return answered_ == 1 + fill_; }

 private:
  const int fill_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  bool released_ = false;
  int answered_ = 0;
  CredentialChecker checker_;
};

TEST_F(PbLogonBackoffTest, AFullCheckQueueRefusesUncheckedWithItsOwnReason) {
  BlockedChecker blocked(io_);
  Start(blocked.get());
  EXPECT_TRUE(Refused(Answer(server_test::DemoLogon("trader-a")),
                      w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, kChecksBusyText));
  blocked.Release();
  ASSERT_TRUE(testing::RunUntil(io_, [&] { return blocked.drained(); }));
  EXPECT_TRUE(Answer(server_test::DemoLogon("trader-a")).has_logon_ack());
  gateway_->Stop();
  gateway_.reset();
}

// A Logon refused without a check is answered only after the refusal
// delay (1 s), so that a flood of them cannot loop at the gateway's speed;
// a checked one is answered at once.
TEST_F(PbLogonBackoffTest, ALogonRefusedWithoutACheckIsAnsweredAfterASecond) {
  Start();
  EXPECT_TRUE(Refused(Answer(Guess("trader-a")),
                      w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                      "authentication failed"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(Refused(Answer(Guess("trader-a")),
                      w::LOGON_REJECT_REASON_TRY_AGAIN_LATER,
                      "try again later"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

// A firm whose sessions log on together from one host: every Logon is
// checked, up to the connections the address may hold before logon
// (session.max_pre_logon_per_source, here 12), none refused for the checks
// already running there.
TEST_F(PbLogonBackoffTest, AFirmsSessionsLoggingOnTogetherFromOneAddressAreAllChecked) {
  constexpr int kSessions = 12;
  config_.session.max_pre_logon_per_source = kSessions;
  const UserConfig model = *config_.FindUserByName("trader-a");
  for (int i = 0; i < kSessions; ++i) {
    UserConfig u = model;
    u.name = "desk-" + std::to_string(i);
    u.api_keys = {ApiKey::Hmac(u.name, "desk-secret-" + std::to_string(i))};
    config_.users.push_back(u);
  }
  config_.RebuildIndex();
  BlockedChecker blocked(io_, 64, 0);
  Start(blocked.get());
  std::vector<tcp::socket> socks;
  for (int i = 0; i < kSessions; ++i) {
    client::LogonParams p = server_test::DemoLogon("trader-a");
    p.api_key = "desk-" + std::to_string(i);
    p.private_key.clear();
    p.secret = "desk-secret-" + std::to_string(i);
    socks.push_back(Send(p));
  }
  // Every Logon waits for its check (none was answered at once).
  ASSERT_TRUE(testing::RunUntil(io_, [&] {
    gateway_->Poll();
    return blocked.get()->queued() == kSessions;
  }));
  blocked.Release();
  for (int i = 0; i < kSessions; ++i) {
    SCOPED_TRACE("desk-" + std::to_string(i));
    const w::Envelope e = Await(socks[static_cast<std::size_t>(i)]);
    EXPECT_TRUE(e.has_logon_ack()) << e.ShortDebugString();
  }
}

// A user's third Logon from one address while two of its checks still run
// is refused "try again later" with a text of its own: no logon failed, and
// none counts as failed.
TEST_F(PbLogonBackoffTest, ChecksRunningAtOnceAreRefusedWithoutTalkingOfFailures) {
  BlockedChecker blocked(io_, 64, 0);
  Start(blocked.get());
  client::LogonParams p = server_test::DemoLogon("trader-a");
  tcp::socket first = Send(p);
  tcp::socket second = Send(p);
  ASSERT_TRUE(testing::RunUntil(io_, [&] {
    gateway_->Poll();
    return blocked.get()->queued() == 2;
  }));
  const w::Envelope third = Answer(p);
  EXPECT_TRUE(Refused(third, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER,
                      kInFlightText));
  EXPECT_EQ(third.logon_reject().text().find("failed"), std::string::npos);
  blocked.Release();
  EXPECT_TRUE(Await(first).has_logon_ack());
  EXPECT_TRUE(Refused(Await(second), w::LOGON_REJECT_REASON_ALREADY_LOGGED_ON,
                      "already has a session"));
}

}  // namespace
}  // namespace cfx::gateway
