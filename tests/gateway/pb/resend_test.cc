// The protobuf retransmission served from memory (gateway/pb/resend.h,
// docs/protocol.md "Server sequence numbers and retransmission"): the
// history kept per account, the cap, the snapshot instead of messages no
// longer kept, and the throttle (per session and per poll, round robin,
// socket back-pressure), on sessions without a connection.
#include "gateway/pb/resend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/pb/frame.h"
#include "gateway/session/order_view.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::pb {
namespace {

namespace w = cfx::wire::v1;

// The messages queued for a session, parsed.
std::vector<w::Envelope> Parse(const std::string& bytes) {
  std::vector<w::Envelope> out;
  FrameReader reader;
  std::size_t at = 0;
  while (at < bytes.size()) {
    at += reader.Feed(reinterpret_cast<const uint8_t*>(bytes.data()) + at,
                      bytes.size() - at);
    std::string_view payload;
    while (reader.Next(&payload)) {
      w::Envelope e;
      EXPECT_TRUE(
          e.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
      out.push_back(std::move(e));
    }
    EXPECT_EQ(reader.error(), FrameError::kNone);
  }
  return out;
}

class ResendTest : public ::testing::Test {
 protected:
  static constexpr uint32_t kAccounts = 32;

  explicit ResendTest(uint32_t capacity = 10'000)
      : config_(server_test::DemoConfig()),
        instruments_(config_),
        outbox_(nullptr),
        resender_(kAccounts, capacity, outbox_) {}

  // Records `n` NEW reports for `account`, one per seq after the last.
  void Record(uint32_t account, int n) {
    for (int i = 0; i < n; ++i) {
      w::Envelope e;
      w::ExecutionReport* r = e.mutable_execution_report();
      r->set_seq(++seq_);
      r->set_order_id(seq_);
      r->set_exec_type(w::EXEC_TYPE_NEW);
      r->set_order_status(w::ORDER_STATUS_NEW);
      std::string frame;
      ASSERT_TRUE(AppendFrame(e, &frame));
      resender_.Record(exchange::AccountId{account}, e, frame);
    }
  }

  // Records one report of order `order_id` of `account` at the next seq,
  // after the order view applies the matching event: NEW (accepted) or
  // CANCELED.
  void RecordOrder(uint32_t account, uint64_t order_id, bool cancel) {
    exchange::Event ev;
    ev.seq = exchange::Seq{++seq_};
    ev.type = cancel ? exchange::EventType::kCancelAccepted
                     : exchange::EventType::kOrderAccepted;
    ev.account = exchange::AccountId{account};
    ev.order_id = exchange::OrderId{order_id};
    ev.client_order_id = exchange::ClientOrderId{order_id};
    ev.side = exchange::Side::kBuy;
    ev.quantity = exchange::Quantity{1};
    ev.leaves = cancel ? exchange::Quantity{0} : exchange::Quantity{1};
    orders_.OnEvent(ev);
    w::Envelope e;
    w::ExecutionReport* r = e.mutable_execution_report();
    r->set_seq(seq_);
    r->set_order_id(order_id);
    r->set_exec_type(cancel ? w::EXEC_TYPE_CANCELED : w::EXEC_TYPE_NEW);
    r->set_order_status(cancel ? w::ORDER_STATUS_CANCELED
                               : w::ORDER_STATUS_NEW);
    std::string frame;
    ASSERT_TRUE(AppendFrame(e, &frame));
    resender_.Record(exchange::AccountId{account}, e, frame);
  }

  Session& NewSession(uint32_t account) {
    // Opened: GCC 12 takes the move of a never-opened socket into a
    // Stream for a read of uninitialised reactor data (-Wuninitialized).
    asio::ip::tcp::socket socket(io_);
    boost::system::error_code ignored;
    socket.open(asio::ip::tcp::v4(), ignored);
    auto s = std::make_shared<Session>(next_id_, Stream(std::move(socket)));
    s->state = Session::State::kActive;
    s->account = exchange::AccountId{account};
    sessions_.emplace(next_id_++, s);
    return *s;
  }

  int Serve(Resender& resender) {
    std::vector<Session*> slow;
    const int n =
        resender.Serve(sessions_, instruments_, orders_, 64u << 20, &slow);
    EXPECT_TRUE(slow.empty());
    return n;
  }
  int Serve() { return Serve(resender_); }

  // Serves until no session is resuming; at most `polls` times.
  void ServeAll(Resender& resender, int polls = 1'000) {
    while (resender.active() > 0 && polls-- > 0) Serve(resender);
    EXPECT_EQ(resender.active(), 0u);
  }
  void ServeAll() { ServeAll(resender_); }

  // The RetransmissionComplete queued for `s`, which must be its last.
  static w::RetransmissionComplete Done(const Session& s) {
    const std::vector<w::Envelope> got = Parse(s.out);
    EXPECT_FALSE(got.empty());
    if (got.empty()) return {};
    EXPECT_TRUE(got.back().has_retransmission_complete());
    return got.back().retransmission_complete();
  }

  asio::io_context io_;
  ServerConfig config_;
  InstrumentTable instruments_;
  OrderView orders_;
  Outbox outbox_;
  Resender resender_;
  SessionMap sessions_;
  uint64_t next_id_ = 1;
  uint64_t seq_ = 0;
};

TEST_F(ResendTest, EachSessionGetsAtMostItsShareAPoll) {
  Record(1, 200);
  Record(2, 200);
  Session& a = NewSession(1);
  Session& b = NewSession(2);
  resender_.Start(a, MessagePosition{0, 0}, seq_);
  resender_.Start(b, MessagePosition{0, 0}, seq_);
  EXPECT_EQ(Serve(), 2 * Resender::kPerSession);
  EXPECT_EQ(Parse(a.out).size(), std::size_t{Resender::kPerSession});
  EXPECT_EQ(Parse(b.out).size(), std::size_t{Resender::kPerSession});
  ServeAll();
  EXPECT_EQ(Done(a).messages(), 200u);
  EXPECT_EQ(Done(b).messages(), 200u);
  EXPECT_FALSE(Done(a).snapshot());
  EXPECT_EQ(Parse(a.out).size(), 201u);
}

TEST_F(ResendTest, APollServesAtMostItsBudgetAndTheRestComeFirstNext) {
  constexpr int kSessions = Resender::kPerPoll / Resender::kPerSession + 4;
  std::vector<Session*> all;
  for (int i = 0; i < kSessions; ++i) {
    const uint32_t account = static_cast<uint32_t>(i + 1);
    Record(account, 2 * Resender::kPerSession);
    all.push_back(&NewSession(account));
  }
  for (Session* s : all) resender_.Start(*s, MessagePosition{0, 0}, seq_);
  EXPECT_EQ(Serve(), Resender::kPerPoll);
  std::size_t untouched = 0;
  for (Session* s : all) untouched += s->out.empty() ? 1 : 0;
  EXPECT_EQ(untouched, 4u);
  Serve();
  for (Session* s : all) EXPECT_FALSE(s->out.empty()) << "session " << s->id;
}

TEST_F(ResendTest, ASessionWhoseSocketLagsWaitsAndOthersAreServed) {
  Record(1, 10);
  Record(2, 10);
  Session& slow = NewSession(1);
  Session& other = NewSession(2);
  slow.out.assign(Resender::kBackPressureBytes, 'x');
  resender_.Start(slow, MessagePosition{0, 0}, seq_);
  resender_.Start(other, MessagePosition{0, 0}, seq_);
  Serve();
  EXPECT_EQ(slow.out.size(), Resender::kBackPressureBytes);
  EXPECT_EQ(Done(other).messages(), 10u);
  slow.out.clear();  // the socket took it
  ServeAll();
  EXPECT_EQ(Done(slow).messages(), 10u);
}

TEST_F(ResendTest, LiveMessagesWaitUntilTheRetransmissionIsSent) {
  Record(1, 100);
  Session& s = NewSession(1);
  resender_.Start(s, MessagePosition{0, 0}, seq_);
  outbox_.SendBytes(s, "covered", true, seq_);
  outbox_.SendBytes(s, "live", true, seq_ + 1);
  EXPECT_EQ(s.held, "live");
  ServeAll();
  EXPECT_TRUE(s.out.ends_with("live"));
  EXPECT_EQ(s.out.find("covered"), std::string::npos);
  EXPECT_FALSE(s.replaying);
}

class ResendCapTest : public ResendTest {
 protected:
  ResendCapTest() : ResendTest(10) {}
};

TEST_F(ResendCapTest, ResumeNeedingMoreThanTheKeptMessagesGetsTheSnapshot) {
  Record(1, 25);  // seqs 1..25: 16..25 kept
  Session& far = NewSession(1);
  resender_.Start(far, MessagePosition{14, 0}, seq_);
  Session& near = NewSession(1);
  resender_.Start(near, MessagePosition{15, 0}, seq_);
  ServeAll();
  EXPECT_TRUE(Done(far).snapshot());
  EXPECT_EQ(Done(far).through_seq(), 25u);
  // The view knows none of the orders: nothing open to report.
  EXPECT_EQ(Done(far).messages(), 0u);
  EXPECT_FALSE(Done(near).snapshot());
  EXPECT_EQ(Done(near).messages(), 10u);
  EXPECT_EQ(Parse(near.out).front().execution_report().seq(), 16u);
}

TEST_F(ResendCapTest, MessagesPushedOutDuringTheResumeTurnItIntoASnapshot) {
  Record(1, 10);
  Session& s = NewSession(1);
  resender_.Start(s, MessagePosition{0, 0}, seq_);
  Record(1, 10);  // all ten unsent ones pushed out
  ServeAll();
  EXPECT_TRUE(Done(s).snapshot());
  EXPECT_EQ(Done(s).through_seq(), 10u);
}

TEST_F(ResendCapTest, KeptMessagesAfterTheHistoryWrapsResendInOrder) {
  Record(1, 37);  // seqs 1..37: 28..37 kept, the oldest slots reused
  Session& s = NewSession(1);
  resender_.Start(s, MessagePosition{30, 0}, seq_);
  ServeAll();
  const std::vector<w::Envelope> got = Parse(s.out);
  ASSERT_EQ(got.size(), 8u);  // 31..37 and RetransmissionComplete
  for (std::size_t i = 0; i + 1 < got.size(); ++i) {
    EXPECT_EQ(got[i].execution_report().seq(), 31 + i);
  }
  EXPECT_FALSE(Done(s).snapshot());
  EXPECT_EQ(Done(s).messages(), 7u);
}

TEST_F(ResendCapTest, SnapshotAfterManyClosedOrdersListsTheOpenOnesInOrder) {
  // 300 orders, two of every three cancelled (many more closes than the
  // open list's batch), interleaved with account 2's.
  for (uint64_t id = 1; id <= 300; ++id) {
    RecordOrder(1, 2 * id, false);
    RecordOrder(2, 2 * id + 1, false);
    if (id % 3 != 0) RecordOrder(1, 2 * id, true);
  }
  Session& s = NewSession(1);
  resender_.Start(s, MessagePosition{1, 0}, seq_);
  ServeAll();
  EXPECT_TRUE(Done(s).snapshot());
  EXPECT_EQ(Done(s).messages(), 100u);
  const std::vector<w::Envelope> got = Parse(s.out);
  ASSERT_EQ(got.size(), 101u);
  for (std::size_t i = 0; i + 1 < got.size(); ++i) {
    EXPECT_EQ(got[i].execution_report().exec_type(), w::EXEC_TYPE_ORDER_STATUS);
    EXPECT_EQ(got[i].execution_report().order_id(), 6 * (i + 1));
  }
}

std::vector<uint64_t> Seeds() {
  if (const char* s = std::getenv("CFX_RESEND_SEED")) {
    return {std::strtoull(s, nullptr, 0)};
  }
  return {1, 2, 3, 0xc0ffee, std::random_device{}()};
}

// For histories of 1 to 50 messages: frames of 1 byte to 4 KiB, in phases
// of mostly small and mostly large ones (so the kept bytes grow, shrink and
// wrap at every offset), for two accounts in turn; after about every
// eighth frame and after each phase a resume from just before the oldest
// kept message must get exactly the last `capacity` frames of its account,
// byte for byte and in order, then RetransmissionComplete.
TEST_F(ResendTest, AResumeGetsTheLastKeptFramesOfAnySizeByteForByte) {
  for (const uint64_t seed : Seeds()) {
    for (const uint32_t capacity : {1u, 2u, 3u, 7u, 50u}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", capacity " +
                   std::to_string(capacity) +
                   " (replay: CFX_RESEND_SEED=" + std::to_string(seed) + ")");
      std::mt19937_64 rng(seed);
      Resender history(kAccounts, capacity, outbox_);
      std::vector<std::string> sent[3];  // by account 1, 2
      std::vector<uint64_t> seqs[3];
      // A resume from just before the oldest of the last `capacity` frames
      // of `account`.
      const auto check = [&](uint32_t account, int at) {
        const std::size_t total = sent[account].size();
        if (total == 0) return;
        const std::size_t kept = std::min<std::size_t>(total, capacity);
        std::string want;
        for (std::size_t i = total - kept; i < total; ++i) {
          want += sent[account][i];
        }
        Session& s = NewSession(account);
        history.Start(s, MessagePosition{seqs[account][total - kept] - 1, 0},
                      seq_);
        ServeAll(history);
        ASSERT_GE(s.out.size(), want.size()) << "after frame " << at;
        ASSERT_TRUE(s.out.compare(0, want.size(), want) == 0)
            << "after frame " << at << ", account " << account;
        const std::vector<w::Envelope> done = Parse(s.out.substr(want.size()));
        ASSERT_EQ(done.size(), 1u) << "after frame " << at;
        EXPECT_FALSE(done[0].retransmission_complete().snapshot());
        EXPECT_EQ(done[0].retransmission_complete().messages(), kept);
      };
      int recorded = 0;
      for (int round = 0; round < 40; ++round) {
        // Phases of frames of up to 4 KiB, 64 bytes, 600 bytes, and of a
        // few sizes (so that frames often fill a gap exactly).
        static constexpr std::size_t kSizes[] = {1, 8, 512, 1024, 2048, 4096};
        const int phase = round % 4;
        const std::size_t most = phase == 1 ? 64 : phase == 2 ? 600 : 4096;
        const int n = std::uniform_int_distribution<int>(1, 150)(rng);
        for (int i = 0; i < n; ++i, ++recorded) {
          const uint32_t account = rng() % 3 == 0 ? 2 : 1;
          std::string frame(
              phase == 3
                  ? kSizes[rng() % std::size(kSizes)]
                  : std::uniform_int_distribution<std::size_t>(1, most)(rng),
              '\0');
          for (char& c : frame) c = static_cast<char>(rng());
          // Any bytes: the history keeps and resends them as they are.
          w::Envelope e;
          e.mutable_execution_report()->set_seq(++seq_);
          history.Record(exchange::AccountId{account}, e, frame);
          sent[account].push_back(frame);
          seqs[account].push_back(seq_);
          // Often enough that a frame overwritten while kept is seen.
          if (rng() % 8 == 0) check(account, recorded);
          if (HasFatalFailure()) return;
        }
        check(1, recorded);
        check(2, recorded);
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace cfx::gateway::pb
