#include "exchange/pipeline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "exchange/clock.h"
#include "exchange/idle.h"
#include "tests/support/random_commands.h"
#include "tests/support/temp_dir.h"

namespace cfx::exchange {
namespace {

using testing::RandomCommands;
using testing::SmallMarketConfig;

// Pushes `cmds` through a running pipeline and collects every durable event
// until each command's result has come back.
std::vector<Event> RunThrough(Pipeline& p, SpscRing<Command>& ring,
                              const std::vector<Command>& cmds) {
  std::vector<Event> events;
  std::size_t pushed = 0;
  std::size_t results = 0;
  BackoffIdle idle;
  while (results < cmds.size()) {
    int work = 0;
    while (pushed < cmds.size() && ring.TryPush(cmds[pushed])) {
      ++pushed;
      ++work;
    }
    work += static_cast<int>(p.PollDurableEvents([&](const Event& e) {
      EXPECT_LE(e.seq.value, p.durable_seq().value);
      if (IsResult(e.type)) ++results;
      events.push_back(e);
    }));
    idle.Idle(work);
  }
  return events;
}

TEST(Pipeline, RestartRecoversTheSameStateFromSnapshotAndJournal) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.shard.snapshot_every = 700;
  auto cmds = RandomCommands(11, 3'000);
  for (Command& c : cmds) c.seq = Seq{};  // the sequencer stamps them

  uint64_t hash = 0;
  Seq last;
  {
    auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    SpscRing<Command>* ring = p.value()->AddProducer(1024);
    p.value()->Start();
    auto events = RunThrough(*p.value(), *ring, cmds);
    EXPECT_GT(events.size(), cmds.size());
    ASSERT_TRUE(p.value()->Stop().ok());
    hash = p.value()->engine().StateHash();
    last = p.value()->engine().last_seq();
    EXPECT_GE(last.value, cmds.size());
  }
  auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  EXPECT_EQ(p.value()->recovery().last_seq, last);
  EXPECT_EQ(p.value()->recovery().state_hash, hash);
  EXPECT_EQ(p.value()->recovery().snapshot_seq, last);  // shutdown snapshot
  EXPECT_EQ(p.value()->recovery().replayed, 0u);
}

TEST(Pipeline, SequencesCommandsInArrivalOrderWithDenseSeqs) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.timers = false;
  auto cmds = RandomCommands(12, 500);
  for (Command& c : cmds) c.seq = Seq{};
  auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
  ASSERT_TRUE(p.has_value());
  SpscRing<Command>* ring = p.value()->AddProducer(64);
  p.value()->Start();
  auto events = RunThrough(*p.value(), *ring, cmds);
  uint64_t expect = 1;
  for (const Event& e : events) {
    if (!IsResult(e.type)) continue;
    EXPECT_EQ(e.seq.value, expect++);
  }
  ASSERT_TRUE(p.value()->Stop().ok());
  std::vector<Command> journaled;
  ASSERT_TRUE(p.value()
                  ->journal()
                  .Replay(Seq{},
                          [&](const Command& c) {
                            journaled.push_back(c);
                            return Status::Ok();
                          })
                  .ok());
  ASSERT_EQ(journaled.size(), cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    EXPECT_EQ(journaled[i].seq.value, i + 1);
    EXPECT_EQ(journaled[i].type, cmds[i].type);
    EXPECT_EQ(journaled[i].client_order_id, cmds[i].client_order_id);
  }
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// Polls durable events until `pred` has seen what it wants or 10 s pass.
template <typename Pred>
bool WaitForEvent(Pipeline& p, Pred pred) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool seen = false;
  BackoffIdle idle;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    idle.Idle(static_cast<int>(
        p.PollDurableEvents([&](const Event& e) { seen = seen || pred(e); })));
  }
  return seen;
}

TEST(Pipeline, DayOrdersExpireAtTheEndOfTheTradingDayAlsoAfterARestart) {
  cfx::testing::TempDir dir;
  auto start = ParseUtcTimestamp("2026-12-01T20:59:00Z");
  ASSERT_TRUE(start.has_value());
  SimulatedClock clock(start.value());
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  Command day;
  day.type = CommandType::kNewOrder;
  day.account = AccountId{1};
  day.instrument = InstrumentId{1};
  day.side = Side::kBuy;
  day.order_type = OrderType::kLimit;
  day.tif = TimeInForce::kDay;
  day.price = Price{99'000};
  day.quantity = Quantity{1};
  {
    auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    SpscRing<Command>* ring = p.value()->AddProducer(16);
    p.value()->Start();
    ASSERT_TRUE(ring->TryPush(day));
    ASSERT_TRUE(WaitForEvent(*p.value(), [](const Event& e) {
      return e.type == EventType::kOrderAccepted;
    }));
    ASSERT_TRUE(
        clock.Set(Timestamp{start.value().nanos + 61'000'000'000}).ok());
    EXPECT_TRUE(WaitForEvent(*p.value(), [](const Event& e) {
      return e.type == EventType::kSessionEnded && e.count == 1;
    }));
    // A second DAY order, then the exchange stops before the next day ends.
    ASSERT_TRUE(ring->TryPush(day));
    ASSERT_TRUE(WaitForEvent(*p.value(), [](const Event& e) {
      return e.type == EventType::kOrderAccepted;
    }));
    ASSERT_TRUE(p.value()->Stop().ok());
    EXPECT_EQ(p.value()->engine().resting_orders(), 1u);
  }
  // Down across 2 December 21:00; the session end fires at the restart.
  ASSERT_TRUE(
      clock.Set(Timestamp{start.value().nanos + 25 * 3600'000'000'000}).ok());
  auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  EXPECT_EQ(p.value()->engine().resting_orders(), 1u);
  p.value()->AddProducer(16);
  p.value()->Start();
  EXPECT_TRUE(WaitForEvent(*p.value(), [](const Event& e) {
    return e.type == EventType::kSessionEnded && e.count == 1;
  }));
  ASSERT_TRUE(p.value()->Stop().ok());
  EXPECT_EQ(p.value()->engine().resting_orders(), 0u);
}

}  // namespace
}  // namespace cfx::exchange
