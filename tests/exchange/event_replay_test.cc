#include "exchange/event_replay.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "exchange/clock.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"
#include "tests/support/random_commands.h"
#include "tests/support/temp_dir.h"

namespace cfx::exchange {
namespace {

using testing::RandomCommands;
using testing::SmallMarketConfig;

constexpr uint64_t kSnapshotEvery = 500;

PipelineOptions Options(const cfx::testing::TempDir& dir) {
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.shard.snapshot_every = kSnapshotEvery;
  options.timers = false;  // seq i = the i-th pushed command
  return options;
}

// The random workload, unstamped: the sequencer stamps it.
std::vector<Command> Workload(uint64_t seed, std::size_t n) {
  std::vector<Command> cmds = RandomCommands(seed, n);
  for (Command& c : cmds) c.seq = Seq{};
  return cmds;
}

// Pushes `cmds` through the started pipeline, stops it and returns every
// event it emitted: those polled until each command's result came back,
// then the ones still queued behind them (a command's trades and book
// levels follow its result).
std::vector<Event> RunAndStop(Pipeline& p, SpscRing<Command>& ring,
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
      if (IsResult(e.type)) ++results;
      events.push_back(e);
    }));
    idle.Idle(work);
  }
  const Status st = p.Stop();
  EXPECT_TRUE(st.ok()) << st.ToString();
  while (p.PollDurableEvents([&](const Event& e) { events.push_back(e); }) !=
         0) {
  }
  return events;
}

// The events of `events` with seq in (after, through].
std::vector<Event> Slice(const std::vector<Event>& events, uint64_t after,
                         uint64_t through) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (e.seq.value > after && e.seq.value <= through) out.push_back(e);
  }
  return out;
}

// "" when `got` and `want` are the same events byte for byte, else where
// they first differ.
std::string Compare(const std::vector<Event>& got,
                    const std::vector<Event>& want) {
  const std::size_t n = std::min(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(Event)) != 0) {
      return "event " + std::to_string(i) + " (seq " +
             std::to_string(want[i].seq.value) + ") differs";
    }
  }
  if (got.size() != want.size()) {
    return std::to_string(got.size()) + " events, want " +
           std::to_string(want.size());
  }
  return "";
}

// "(after, through]", for traces.
std::string Range(uint64_t after, uint64_t through) {
  std::string s = "(";
  s += std::to_string(after);
  s += ", ";
  s += std::to_string(through);
  s += "]";
  return s;
}

std::vector<Event> Replay(const Journal& journal, uint64_t after,
                          uint64_t through, Status* status) {
  std::vector<Event> out;
  *status = ReplayEvents(journal, SmallMarketConfig(), Seq{after}, Seq{through},
                         [&out](const Event& e) { out.push_back(e); });
  return out;
}

TEST(EventReplay, YieldsTheLiveEventsOfAnyRange) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  const std::vector<Command> cmds = Workload(31, 3'120);
  auto opened = Pipeline::Open(SmallMarketConfig(), Options(dir), clock);
  ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
  Pipeline& p = *opened.value();
  SpscRing<Command>* ring = p.AddProducer(1024);
  p.Start();
  const std::vector<Event> live = RunAndStop(p, *ring, cmds);

  const Journal& journal = p.journal();
  const uint64_t end = journal.last_seq().value;
  ASSERT_EQ(end, cmds.size());
  // Kept: the snapshot at 3,000 and the shutdown one at the end.
  auto latest = journal.FindLatestSnapshot();
  ASSERT_TRUE(latest.has_value() && latest.value().found);
  ASSERT_EQ(latest.value().seq.value, end);
  auto previous = journal.FindSnapshotAtOrBefore(Seq{end - 1});
  ASSERT_TRUE(previous.has_value() && previous.value().found);
  const uint64_t snap = previous.value().seq.value;
  ASSERT_EQ(snap, 3'000u);

  const std::pair<uint64_t, uint64_t> ranges[] = {
      {0, end},               // everything, from an empty engine
      {0, 1},                 // the first command
      {0, 777},               // a prefix
      {1'234, 2'345},         // older than every kept snapshot: from seq 1
      {snap, end},            // exactly at a snapshot
      {snap - 1, snap + 1},   // across it
      {snap + 37, end - 20},  // inside a snapshot interval
      {end - 1, end},         // the last command
      {end, end},             // empty
  };
  for (const auto& [after, through] : ranges) {
    SCOPED_TRACE(Range(after, through));
    Status st;
    const std::vector<Event> got = Replay(journal, after, through, &st);
    ASSERT_TRUE(st.ok()) << st.ToString();
    const std::vector<Event> want = Slice(live, after, through);
    EXPECT_EQ(want.empty(), after == through);
    EXPECT_EQ(Compare(got, want), "");
  }
}

TEST(EventReplay, ThroughBeyondTheDurableEndIsOutOfRange) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  auto opened = Pipeline::Open(SmallMarketConfig(), Options(dir), clock);
  ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
  Pipeline& p = *opened.value();
  SpscRing<Command>* ring = p.AddProducer(256);
  p.Start();
  RunAndStop(p, *ring, Workload(32, 200));

  Status st;
  const std::vector<Event> got = Replay(p.journal(), 100, 201, &st);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange) << st.ToString();
  EXPECT_TRUE(got.empty());
  Replay(p.journal(), 150, 100, &st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  // An empty journal has no durable seq at all.
  cfx::testing::TempDir empty;
  auto fresh = Pipeline::Open(SmallMarketConfig(), Options(empty), clock);
  ASSERT_TRUE(fresh.has_value());
  Replay(fresh.value()->journal(), 0, 1, &st);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange) << st.ToString();
  EXPECT_TRUE(Replay(fresh.value()->journal(), 0, 0, &st).empty());
  EXPECT_TRUE(st.ok());
}

// A second thread re-derives events while the sequencer appends and the
// shard writes snapshots; what it got must match the live stream.
TEST(EventReplay, RunsWhileThePipelineTakesCommands) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  const std::vector<Command> cmds = Workload(33, 6'000);
  auto opened = Pipeline::Open(SmallMarketConfig(), Options(dir), clock);
  ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
  Pipeline& p = *opened.value();
  SpscRing<Command>* ring = p.AddProducer(64);  // small: the run lasts

  struct Replayed {
    uint64_t after;
    uint64_t through;
    Status status;
    std::vector<Event> events;
  };
  std::vector<Replayed> replayed;
  std::atomic<bool> done{false};
  const Journal& journal = p.journal();
  std::thread replayer([&] {
    // Until the live run is over, and at least a few times.
    for (int i = 0; !done.load(std::memory_order_acquire) || i < 4; ++i) {
      const uint64_t through = journal.last_seq().value;
      // From an empty engine, from the newest snapshot, or across it.
      const uint64_t after = i % 3 == 0 ? 0
                             : i % 3 == 1
                                 ? through / kSnapshotEvery * kSnapshotEvery
                                 : through / 2;
      Replayed r{after, through, Status(), {}};
      r.status =
          ReplayEvents(journal, SmallMarketConfig(), Seq{after}, Seq{through},
                       [&r](const Event& e) { r.events.push_back(e); });
      replayed.push_back(std::move(r));
    }
  });
  p.Start();
  // The replayer also runs on while the pipeline stops and snapshots.
  const std::vector<Event> live = RunAndStop(p, *ring, cmds);
  done.store(true, std::memory_order_release);
  replayer.join();

  ASSERT_GE(replayed.size(), 4u);
  int nonempty = 0;
  for (const Replayed& r : replayed) {
    SCOPED_TRACE(Range(r.after, r.through));
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Compare(r.events, Slice(live, r.after, r.through)), "");
    nonempty += r.events.empty() ? 0 : 1;
  }
  EXPECT_GT(nonempty, 0);
}

}  // namespace
}  // namespace cfx::exchange
