// Retransmission after a reconnect (docs/protocol.md, "Server sequence
// numbers and retransmission"): a client that logs on with the position of
// the last message it processed gets exactly the messages it missed, at the
// same positions and with the same content as a live session got them, then
// RetransmissionComplete, then live messages; also from the journal after a
// server restart.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

using ClientPtr = std::unique_ptr<client::Client>;

// Receives until `n` sequenced messages (ExecutionReport, CancelReject,
// MassCancelReport with a seq) have arrived and returns them. Anything else
// but heartbeats fails the test.
std::vector<w::Envelope> TakeSequenced(client::Client& c, std::size_t n) {
  std::vector<w::Envelope> out;
  if (n == 0) return out;
  auto r = c.ReceiveUntil(
      [&](const w::Envelope& e) {
        if (e.has_heartbeat()) return false;
        if (PositionOf(e).has_value()) {
          out.push_back(e);
        } else {
          ADD_FAILURE() << "unexpected: " << Describe(e);
        }
        return out.size() == n;
      },
      kWait);
  EXPECT_TRUE(r.has_value())
      << r.error().ToString() << " after " << out.size() << " of " << n;
  return out;
}

// Receives until RetransmissionComplete; returns what came before it.
std::vector<w::Envelope> TakeRetransmission(client::Client& c,
                                            w::RetransmissionComplete* done) {
  std::vector<w::Envelope> out;
  auto r = c.ReceiveUntil(
      [](const w::Envelope& e) { return e.has_retransmission_complete(); },
      kWait,
      [&](const w::Envelope& e) {
        if (!e.has_heartbeat()) out.push_back(e);
      });
  EXPECT_TRUE(r.has_value()) << r.error().ToString();
  if (r.has_value()) *done = r.value().retransmission_complete();
  return out;
}

std::string Dump(const std::vector<w::Envelope>& v) {
  std::string s;
  for (const w::Envelope& e : v) s += "  " + Describe(e) + "\n";
  return s;
}

// Byte-for-byte equality of two message lists, with a readable diff.
void ExpectSameMessages(const std::vector<w::Envelope>& got,
                        const std::vector<w::Envelope>& want) {
  bool same = got.size() == want.size();
  for (std::size_t i = 0; same && i < got.size(); ++i) {
    same = got[i].SerializeAsString() == want[i].SerializeAsString();
  }
  EXPECT_TRUE(same) << "got:\n" << Dump(got) << "want:\n" << Dump(want);
}

std::vector<w::Envelope> Slice(const std::vector<w::Envelope>& v,
                               std::size_t from, std::size_t to) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from),
          v.begin() + static_cast<std::ptrdiff_t>(std::min(to, v.size()))};
}

// The script every test follows. trader-a (a) rests two buys, trader-c (c)
// sells into them over several commands, a cancels what is left. Every
// command is one seq; `a_messages` is how many sequenced messages it
// causes for a. The server sequences commands of its own before the
// script's (the spot listings of its first cycle), so step k is sequenced
// as base + k, where base is Market::base().
enum class Who { kA, kC };
struct Step {
  Who who;
  w::Envelope message;
  std::size_t a_messages;
};

std::vector<Step> Script(uint64_t a_order2_id) {
  return {
      {Who::kA, NewOrder(1, w::SIDE_BUY, kPrice, 5), 1},           // base + 1
      {Who::kA, NewOrder(2, w::SIDE_BUY, kPrice - kTick, 4), 1},   // base + 2
      {Who::kC, NewOrder(1, w::SIDE_SELL, kPrice, 2), 1},          // base + 3
      {Who::kC, NewOrder(2, w::SIDE_SELL, kPrice - kTick, 4), 2},  // base + 4
      {Who::kC, NewOrder(3, w::SIDE_SELL, kPrice - kTick, 1), 1},  // base + 5
      {Who::kC, NewOrder(4, w::SIDE_SELL, kPrice - kTick, 1), 1},  // base + 6
      {Who::kA, Cancel(3, a_order2_id), 1},                        // base + 7
  };
}
// The order id a's second order gets (step 2's order).
constexpr uint64_t kAOrder2 = 2;

// A server with trader-a (a) and trader-c (c) logged on, both opting out of
// cancel on disconnect, so leaving changes nothing in the book.
// REQUIRES: Run(0, ...) with a connected comes first; it learns base().
class Market {
 public:
  explicit Market(ServerConfig config = DemoConfig())
      : server_(std::move(config)) {}

  void Open() {
    ASSERT_TRUE(server_.Start().ok());
    a_ = MustLogOn(DemoLogonOptOut("trader-a"));
    c_ = MustLogOn(DemoLogonOptOut("trader-c"));
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(c_, nullptr);
  }

  ClientPtr MustLogOn(const client::LogonParams& p) {
    auto c = LogOn(server_.port(), p);
    EXPECT_TRUE(c.has_value()) << p.api_key << ": " << c.error().ToString();
    return c.has_value() ? std::move(c).value() : nullptr;
  }

  // Runs script steps [from, to). With a connected, collects a's messages
  // into *a_seen; of c's messages only its acks are awaited.
  void Run(std::size_t from, std::size_t to, std::vector<w::Envelope>* a_seen) {
    const std::vector<Step> script = Script(kAOrder2);
    for (std::size_t i = from; i < to; ++i) {
      SCOPED_TRACE("step " + std::to_string(i + 1));
      const Step& s = script[i];
      if (s.who == Who::kA) {
        ASSERT_NE(a_, nullptr);
        ASSERT_TRUE(a_->Send(s.message).ok());
      } else {
        auto ack = SendOrder(*c_, s.message);
        ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
        ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
      }
      if (a_ != nullptr) {
        for (w::Envelope& e : TakeSequenced(*a_, s.a_messages)) {
          if (i == 0) LearnBase(e);
          a_seen->push_back(std::move(e));
        }
      }
    }
  }

  // The last seq before the script's first command; step k (1-based) is
  // sequenced as base() + k.
  uint64_t base() const { return base_; }
  // The position of step k's message `index` for a.
  Position At(uint64_t k, uint32_t index = 0) const {
    return Position{base_ + k, index};
  }

  // Ends a's session the way a client that drops does, and waits until the
  // server has noticed.
  void DropA() {
    a_->Close();
    a_.reset();
    ASSERT_TRUE(Barrier(*c_).ok());
  }

  // Logs a on again, resuming after `resume` when set.
  void ReconnectA(std::optional<Position> resume) {
    client::LogonParams p = DemoLogonOptOut("trader-a");
    if (resume.has_value()) {
      p.resume_after_seq = resume->seq;
      p.resume_after_index = resume->index;
    }
    a_ = MustLogOn(p);
    ASSERT_NE(a_, nullptr);
  }

  TestServer& server() { return server_; }
  client::Client& a() { return *a_; }
  client::Client& c() { return *c_; }
  void CloseAll() {
    a_.reset();
    c_.reset();
  }
  // Stops the server with nobody connected and starts it again on its data.
  void Restart() {
    CloseAll();
    ASSERT_TRUE(server_.Stop().ok());
    const Status restarted = server_.Start();
    ASSERT_TRUE(restarted.ok()) << restarted.ToString();
  }
  void ReopenC() {
    c_ = MustLogOn(DemoLogonOptOut("trader-c"));
    ASSERT_NE(c_, nullptr);
  }

 private:
  // Step 1 is the first command a client sends, so its seq is base + 1.
  void LearnBase(const w::Envelope& first) {
    const std::optional<Position> p = PositionOf(first);
    ASSERT_TRUE(p.has_value()) << Describe(first);
    ASSERT_GE(p->seq, 1u);
    base_ = p->seq - 1;
  }

  TestServer server_;
  ClientPtr a_;
  ClientPtr c_;
  uint64_t base_ = 0;
};

// What a session connected throughout the whole script receives.
std::vector<w::Envelope> LiveReference() {
  Market m;
  m.Open();
  std::vector<w::Envelope> all;
  m.Run(0, Script(kAOrder2).size(), &all);
  return all;
}

class PbRetransmissionTest : public ::testing::Test {
 protected:
  void SetUp() override { m_.Open(); }
  Market m_;
};

TEST_F(PbRetransmissionTest, MissedMessagesArriveExactlyAsALiveSessionGotThem) {
  const std::vector<w::Envelope> live = LiveReference();
  ASSERT_EQ(live.size(), 8u) << Dump(live);

  std::vector<w::Envelope> seen;
  m_.Run(0, 3, &seen);  // steps 1-3 live
  ASSERT_EQ(seen.size(), 3u);
  const std::optional<Position> last = PositionOf(seen.back());
  m_.DropA();
  m_.Run(3, 5, nullptr);  // steps 4-5 while away: 3 messages for a
  m_.ReconnectA(last);
  // A live message races the retransmission; it must come after it.
  ASSERT_TRUE(m_.c().Send(Script(kAOrder2)[5].message).ok());

  w::RetransmissionComplete done;
  const std::vector<w::Envelope> resent = TakeRetransmission(m_.a(), &done);
  EXPECT_EQ(done.messages(), 3u);
  EXPECT_EQ(done.through_seq(), m_.base() + 5);
  ExpectSameMessages(resent, Slice(live, 3, 6));

  // Then live: step 6's trade, then a's cancel.
  std::vector<w::Envelope> after = TakeSequenced(m_.a(), 1);
  ASSERT_TRUE(m_.a().Send(Script(kAOrder2)[6].message).ok());
  for (w::Envelope& e : TakeSequenced(m_.a(), 1)) after.push_back(std::move(e));
  ExpectSameMessages(after, Slice(live, 6, 8));
}

TEST_F(PbRetransmissionTest, ResumeAfterSeqZeroResendsEverything) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  ASSERT_EQ(seen.size(), 6u);
  m_.DropA();
  m_.ReconnectA(Position{0, 0});
  w::RetransmissionComplete done;
  ExpectSameMessages(TakeRetransmission(m_.a(), &done), seen);
  EXPECT_EQ(done.messages(), 6u);
  EXPECT_EQ(done.through_seq(), m_.base() + 5);
}

TEST_F(PbRetransmissionTest, ResumeInsideOneCommandsMessagesSkipsByIndex) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  ASSERT_EQ(seen.size(), 6u);
  ASSERT_EQ(PositionOf(seen[3]), m_.At(4, 0));
  ASSERT_EQ(PositionOf(seen[4]), m_.At(4, 1));
  m_.DropA();
  m_.ReconnectA(m_.At(4, 0));
  w::RetransmissionComplete done;
  ExpectSameMessages(TakeRetransmission(m_.a(), &done), Slice(seen, 4, 6));
  EXPECT_EQ(done.messages(), 2u);
}

TEST_F(PbRetransmissionTest, ResumeAtTheLastPositionResendsNothing) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  m_.DropA();
  m_.ReconnectA(PositionOf(seen.back()));
  w::RetransmissionComplete done;
  EXPECT_TRUE(TakeRetransmission(m_.a(), &done).empty());
  EXPECT_EQ(done.messages(), 0u);
  EXPECT_EQ(done.through_seq(), m_.base() + 5);
}

TEST_F(PbRetransmissionTest, LogonWithoutResumeGetsOnlyLiveMessages) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  m_.DropA();
  m_.ReconnectA(std::nullopt);
  // Messages arrive in order: a resend would come before this answer.
  std::vector<w::Envelope> others;
  auto status = QueryStatus(m_.a(), kBarrierOrderId, &others);
  ASSERT_TRUE(status.has_value()) << status.error().ToString();
  EXPECT_TRUE(others.empty()) << Dump(others);
}

TEST_F(PbRetransmissionTest, ResumeWorksFromTheJournalAfterARestart) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  ASSERT_EQ(seen.size(), 6u);
  ASSERT_NO_FATAL_FAILURE(m_.Restart());

  m_.ReconnectA(Position{0, 0});
  w::RetransmissionComplete done;
  ExpectSameMessages(TakeRetransmission(m_.a(), &done), seen);
  EXPECT_EQ(done.through_seq(), m_.base() + 5);
  w::Envelope logout;
  logout.mutable_logout();
  ASSERT_TRUE(m_.a().Send(logout).ok());
  ASSERT_TRUE(AwaitClose(m_.a()).ok());

  m_.ReconnectA(PositionOf(seen[2]));
  ExpectSameMessages(TakeRetransmission(m_.a(), &done), Slice(seen, 3, 6));
  EXPECT_EQ(done.messages(), 3u);

  // Live messages continue after the restart at the next seq.
  m_.ReopenC();
  std::vector<w::Envelope> more;
  m_.Run(5, 6, &more);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(PositionOf(more[0]), m_.At(6));
  EXPECT_EQ(more[0].execution_report().cum_quantity(), 3);
}

// The threads of this process (the server runs in it).
std::size_t ThreadCount() {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)e;
    ++n;
  }
  return n;
}

TEST_F(PbRetransmissionTest, ResumesAreServedWithoutStartingAThread) {
  std::vector<w::Envelope> seen;
  m_.Run(0, 5, &seen);
  m_.DropA();
  const std::size_t threads = ThreadCount();
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE("resume " + std::to_string(i));
    m_.ReconnectA(Position{0, 0});
    w::RetransmissionComplete done;
    ExpectSameMessages(TakeRetransmission(m_.a(), &done), seen);
    // Still logged on, the retransmission just sent: a worker would still
    // exist now.
    EXPECT_EQ(ThreadCount(), threads);
    m_.DropA();
  }
}

// Four messages kept per account: trader-a's five messages below do not all
// fit.
ServerConfig SmallHistoryConfig() {
  ServerConfig c = DemoConfig();
  c.session.resend_max_messages = 4;
  return c;
}

// trader-a rests three buys, cancels the third and is hit for one lot on
// the first: five messages, the oldest no longer kept.
class PbResendCapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_.Open();
    for (uint64_t i = 0; i < 3; ++i) {
      auto ack = SendOrder(m_.a(), NewOrder(i + 1, w::SIDE_BUY,
                                            kPrice - static_cast<int64_t>(i) *
                                                         kTick,
                                            5 - static_cast<int64_t>(i)));
      ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
      ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
      order_ids_.push_back(ack.value().order_id());
      Keep(ack.value());
    }
    ASSERT_TRUE(m_.a().Send(Cancel(4, order_ids_[2])).ok());
    auto cancel = AwaitReport(m_.a(), [](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_CANCELED;
    });
    ASSERT_TRUE(cancel.has_value()) << cancel.error().ToString();
    Keep(cancel.value());
    auto sell = SendOrder(m_.c(), NewOrder(1, w::SIDE_SELL, kPrice, 1));
    ASSERT_TRUE(sell.has_value()) << sell.error().ToString();
    auto trade = AwaitReport(m_.a(), [](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_TRADE;
    });
    ASSERT_TRUE(trade.has_value()) << trade.error().ToString();
    Keep(trade.value());
    m_.DropA();
  }

  void Keep(const w::ExecutionReport& r) {
    w::Envelope e;
    *e.mutable_execution_report() = r;
    seen_.push_back(std::move(e));
  }

  Market m_{SmallHistoryConfig()};
  std::vector<uint64_t> order_ids_;
  std::vector<w::Envelope> seen_;  // a's five messages
};

TEST_F(PbResendCapTest, ResumeOlderThanTheKeptMessagesGetsTheOpenOrders) {
  m_.ReconnectA(Position{0, 0});
  w::RetransmissionComplete done;
  const std::vector<w::Envelope> got = TakeRetransmission(m_.a(), &done);
  EXPECT_TRUE(done.snapshot());
  EXPECT_EQ(done.through_seq(), PositionOf(seen_.back())->seq);
  ASSERT_EQ(done.messages(), 2u) << Dump(got);
  ASSERT_EQ(got.size(), 2u) << Dump(got);
  // The open orders in order id order, as they stand: the first partly
  // filled, the second untouched; the cancelled third is not open.
  const w::ExecutionReport& first = got[0].execution_report();
  EXPECT_EQ(first.exec_type(), w::EXEC_TYPE_ORDER_STATUS);
  EXPECT_EQ(first.order_id(), order_ids_[0]);
  EXPECT_EQ(first.order_status(), w::ORDER_STATUS_PARTIALLY_FILLED);
  EXPECT_EQ(first.cum_quantity(), 1);
  EXPECT_EQ(first.leaves_quantity(), 4);
  EXPECT_EQ(first.seq(), 0u);
  const w::ExecutionReport& second = got[1].execution_report();
  EXPECT_EQ(second.exec_type(), w::EXEC_TYPE_ORDER_STATUS);
  EXPECT_EQ(second.order_id(), order_ids_[1]);
  EXPECT_EQ(second.order_status(), w::ORDER_STATUS_NEW);
  EXPECT_EQ(second.leaves_quantity(), 4);

  // Then live.
  auto sell = SendOrder(m_.c(), NewOrder(2, w::SIDE_SELL, kPrice, 1));
  ASSERT_TRUE(sell.has_value()) << sell.error().ToString();
  std::vector<w::Envelope> live = TakeSequenced(m_.a(), 1);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].execution_report().cum_quantity(), 2);
}

TEST_F(PbResendCapTest, ResumeNeedingExactlyTheKeptMessagesIsAReplay) {
  m_.ReconnectA(PositionOf(seen_[0]));
  w::RetransmissionComplete done;
  const std::vector<w::Envelope> got = TakeRetransmission(m_.a(), &done);
  EXPECT_FALSE(done.snapshot());
  EXPECT_EQ(done.messages(), 4u);
  ExpectSameMessages(got, Slice(seen_, 1, 5));
}

TEST_F(PbResendCapTest, SnapshotSurvivesARestart) {
  ASSERT_NO_FATAL_FAILURE(m_.Restart());
  m_.ReconnectA(Position{0, 0});
  w::RetransmissionComplete done;
  const std::vector<w::Envelope> got = TakeRetransmission(m_.a(), &done);
  EXPECT_TRUE(done.snapshot());
  ASSERT_EQ(got.size(), 2u) << Dump(got);
  EXPECT_EQ(got[0].execution_report().order_id(), order_ids_[0]);
  EXPECT_EQ(got[1].execution_report().order_id(), order_ids_[1]);
}

}  // namespace
}  // namespace cfx::gateway::server_test
