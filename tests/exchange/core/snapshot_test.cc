#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/random_commands.h"

namespace cfx::exchange {
namespace {

using testing::EventCollector;
using testing::RandomCommands;
using testing::SmallMarketConfig;

std::unique_ptr<Engine> NewEngine() {
  auto r = Engine::Create(SmallMarketConfig());
  EXPECT_TRUE(r.has_value());
  return std::move(r).value();
}

bool SameEvents(const std::vector<Event>& a, const std::vector<Event>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(Event)) != 0) return false;
  }
  return true;
}

// Full replay and snapshot + tail replay give the same events and hash.
TEST(EngineSnapshot, SnapshotPlusTailEqualsFullReplay) {
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto cmds = RandomCommands(seed, 6'000);
    auto full = NewEngine();
    EventCollector full_events;
    const std::size_t cut = 1'000 + seed * 700;
    for (std::size_t i = 0; i < cut; ++i)
      full->Apply(cmds[i], full_events.sink());
    full_events.Take();
    const std::string snap = full->SaveSnapshot();
    ASSERT_GT(full->resting_orders(), 0u);

    auto restored = NewEngine();
    ASSERT_TRUE(restored->LoadSnapshot(snap).ok());
    EXPECT_EQ(restored->StateHash(), full->StateHash());
    EXPECT_EQ(restored->last_seq(), full->last_seq());
    EXPECT_EQ(restored->SaveSnapshot(), snap);

    EventCollector restored_events;
    for (std::size_t i = cut; i < cmds.size(); ++i) {
      full->Apply(cmds[i], full_events.sink());
      restored->Apply(cmds[i], restored_events.sink());
      ASSERT_TRUE(SameEvents(full_events.Take(), restored_events.Take()))
          << "seq " << cmds[i].seq.value;
    }
    EXPECT_EQ(restored->StateHash(), full->StateHash());
  }
}

TEST(EngineSnapshot, EveryTruncationIsRejectedAsDataLoss) {
  const auto cmds = RandomCommands(7, 400);
  auto e = NewEngine();
  EventCollector events;
  for (const Command& c : cmds) e->Apply(c, events.sink());
  const std::string snap = e->SaveSnapshot();
  for (std::size_t len = 0; len < snap.size(); ++len) {
    auto fresh = NewEngine();
    const Status st =
        fresh->LoadSnapshot(std::string_view(snap).substr(0, len));
    ASSERT_FALSE(st.ok()) << "length " << len;
    EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  }
}

TEST(EngineSnapshot, FlippedBytesNeverCrashAndLoadOnlyConsistentState) {
  const auto cmds = RandomCommands(8, 400);
  auto e = NewEngine();
  EventCollector events;
  for (const Command& c : cmds) e->Apply(c, events.sink());
  const std::string snap = e->SaveSnapshot();
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  for (int n = 0; n < 2'000; ++n) {
    std::string bad = snap;
    bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
    auto fresh = NewEngine();
    const Status st = fresh->LoadSnapshot(bad);
    if (!st.ok()) {
      EXPECT_EQ(st.code(), StatusCode::kDataLoss) << "seed " << seed;
      continue;
    }
    // A flip that still decodes (a client order id, say) must give an
    // engine that keeps working.
    EventCollector sink;
    for (const Command& c :
         RandomCommands(9, 200, fresh->last_seq().value + 1)) {
      fresh->Apply(c, sink.sink());
    }
  }
}

// Found by tests/fuzz/snapshot_fuzzer (its corpus keeps the input as
// crash-leaves-plus-filled-overflow): an order whose leaves and filled
// quantities are each in range but whose sum overflows int64 is an invalid
// order, not undefined behaviour.
TEST(EngineSnapshot, AnOrderWhoseLeavesPlusFilledOverflowsIsRejected) {
  static constexpr char kBytes[] =
      "\x43\x46\x58\x53\x05\x00\x1b\x00\x00\x00\x00\x01\x00\x00\x00\x00"
      "\x00\x00\x1e\xff\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"
      "\x00\x00\x01\x00\x00\x00\x02\xa0\x86\x01\x00\x00\x00\x00\x00\x00"
      "\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x2e\x00\x00\x00\x00"
      "\x00\x00\x00\x52\x40\x08\x02\x00\x00\x00\x00\x07\x00\x00\x00\x01"
      "\x5c\x89\x01\x00\x00\x00\x00\x00\x1a\x01\x00\x00\x09\x00\x00\x00"
      "\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56\x56"
      "\x04\x00\x18\x8c\x00\x00\x01\x01\xe8\x00\x00";
  const Status st =
      NewEngine()->LoadSnapshot(std::string_view(kBytes, sizeof kBytes - 1));
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("invalid order"), std::string::npos)
      << st.message();
}

TEST(EngineSnapshot, LoadIntoUsedEngineIsRefused) {
  auto e = NewEngine();
  EventCollector events;
  for (const Command& c : RandomCommands(10, 50)) e->Apply(c, events.sink());
  const Status st = e->LoadSnapshot(e->SaveSnapshot());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

TEST(EngineApplyBatch, GivesTheSameEventsAndStateAsOneByOne) {
  for (uint64_t seed : {21u, 22u, 23u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto cmds = RandomCommands(seed, 5'000);
    auto one = NewEngine();
    auto batched = NewEngine();
    EventCollector one_events;
    EventCollector batch_events(7);
    std::size_t i = 0;
    std::size_t chunk = 1;
    while (i < cmds.size()) {
      const std::size_t m = std::min(chunk, cmds.size() - i);
      for (std::size_t j = 0; j < m; ++j)
        one->Apply(cmds[i + j], one_events.sink());
      batched->ApplyBatch(cmds.data() + i, m, batch_events.sink());
      ASSERT_TRUE(SameEvents(one_events.Take(), batch_events.Take()))
          << "at " << i;
      i += m;
      chunk = chunk % 97 + 1;  // chunks of every size from 1 to 97
    }
    EXPECT_EQ(one->StateHash(), batched->StateHash());
  }
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

TEST(EngineSnapshot, OlderSnapshotVersionsAreRefused) {
  auto e = NewEngine();
  EventCollector events;
  for (const Command& c : RandomCommands(11, 100)) e->Apply(c, events.sink());
  std::string snap = e->SaveSnapshot();
  ASSERT_EQ(snap[4], 7);  // u16 version after the u32 magic
  snap[4] = 4;            // before the table key
  const Status four = NewEngine()->LoadSnapshot(snap);
  EXPECT_EQ(four.code(), StatusCode::kDataLoss);
  EXPECT_NE(four.message().find("unsupported version 4"), std::string::npos)
      << four.message();
  snap[4] = 3;  // before collateral: its bytes lack the accounts' money
  const Status three = NewEngine()->LoadSnapshot(snap);
  EXPECT_EQ(three.code(), StatusCode::kDataLoss);
  EXPECT_NE(three.message().find("unsupported version 3"), std::string::npos)
      << three.message();
  snap[4] = 2;
  Status two = NewEngine()->LoadSnapshot(snap);
  EXPECT_EQ(two.code(), StatusCode::kDataLoss);
  EXPECT_NE(two.message().find("unsupported version 2"), std::string::npos)
      << two.message();
  snap[4] = 1;
  const Status st = NewEngine()->LoadSnapshot(snap);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("unsupported version 1"), std::string::npos)
      << st.message();
}

// The random streams the snapshot, replay and pipeline tests use must keep
// exercising the client order id rule: duplicates, and trading days that
// end so ids can be used again.
TEST(EngineSnapshot, RandomCommandsResendClientOrderIdsAcrossDays) {
  auto e = NewEngine();
  EventCollector events;
  int duplicates = 0;
  int days = 0;
  for (const Command& c : RandomCommands(1, 6'000)) {
    e->Apply(c, events.sink());
    for (const Event& ev : events.Take()) {
      duplicates += ev.type == EventType::kRejected &&
                    ev.reject_code() == RejectCode::kDuplicateClientOrderId;
      days += ev.type == EventType::kSessionEnded && ev.instrument.value == 0;
    }
  }
  EXPECT_GT(duplicates, 20);
  EXPECT_GT(days, 2);
}

}  // namespace
}  // namespace cfx::exchange
