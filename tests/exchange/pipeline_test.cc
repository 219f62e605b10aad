#include "exchange/pipeline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/idle.h"
#include "exchange/recovery.h"
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

// Options for a pipeline in `dir`/data that snapshots every 700 seqs.
PipelineOptions SnapshottingOptions(const cfx::testing::TempDir& dir) {
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.shard.snapshot_every = 700;
  return options;
}

// 3,000 random commands without seqs: the sequencer stamps them.
std::vector<Command> UnstampedCommands(uint64_t seed) {
  auto cmds = RandomCommands(seed, 3'000);
  for (Command& c : cmds) c.seq = Seq{};
  return cmds;
}

TEST(Pipeline, RestartRecoversTheSameStateFromSnapshotAndJournal) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  const PipelineOptions options = SnapshottingOptions(dir);
  const auto cmds = UnstampedCommands(11);

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

// The engine's table key comes from the journal's table seed, written once
// when the journal is created: the live engine, a full replay, the snapshot
// and a restart all hash the client order id table alike and reach the
// same StateHash(), of which the key is part.
TEST(Pipeline, TableSeedIsWrittenAtGenesisAndReplayReproducesTheStateHash) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  const PipelineOptions options = SnapshottingOptions(dir);
  const auto cmds = UnstampedCommands(13);

  SipKey seed;
  uint64_t hash = 0;
  std::string snapshot;
  {
    auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    seed = p.value()->journal().table_seed();
    ASSERT_NE(seed, SipKey{});
    EXPECT_EQ(p.value()->engine().table_key(), seed);
    SpscRing<Command>* ring = p.value()->AddProducer(1024);
    p.value()->Start();
    RunThrough(*p.value(), *ring, cmds);
    ASSERT_TRUE(p.value()->Stop().ok());
    hash = p.value()->engine().StateHash();
    snapshot = p.value()->engine().SaveSnapshot();

    // A full replay from seq 1, seeded from the journal, ends in the same
    // state; unseeded, the same commands hash otherwise (the key counts).
    for (const bool seeded : {true, false}) {
      auto e = Engine::Create(SmallMarketConfig());
      ASSERT_TRUE(e.has_value());
      if (seeded) {
        ASSERT_TRUE(SeedEngine(p.value()->journal(), *e.value()).ok());
      }
      Event buffer[256];
      EventSink sink(
          buffer, 256, [](void*, const Event*, std::size_t) {}, nullptr);
      ASSERT_TRUE(p.value()
                      ->journal()
                      .ReplayWithPayloads(
                          Seq{},
                          [&](const Command& c, std::string_view payload) {
                            e.value()->Apply(c, payload, sink);
                            return Status::Ok();
                          })
                      .ok());
      sink.Flush();
      if (seeded) {
        EXPECT_EQ(e.value()->StateHash(), hash);
      } else {
        EXPECT_NE(e.value()->StateHash(), hash);
      }
    }
  }
  // The snapshot holds the key: a fresh engine takes it from there, and an
  // engine seeded from another journal refuses the snapshot.
  {
    auto e = Engine::Create(SmallMarketConfig());
    ASSERT_TRUE(e.has_value());
    ASSERT_TRUE(e.value()->LoadSnapshot(snapshot).ok());
    EXPECT_EQ(e.value()->table_key(), seed);
    EXPECT_EQ(e.value()->StateHash(), hash);
    auto other = Engine::Create(SmallMarketConfig());
    ASSERT_TRUE(other.has_value());
    ASSERT_TRUE(other.value()->SetTableKey(SipKey{seed.k0 ^ 1, seed.k1}).ok());
    EXPECT_EQ(other.value()->LoadSnapshot(snapshot).code(),
              StatusCode::kDataLoss);
  }
  // A restart (snapshot + tail) and a read-only open see the same seed.
  {
    auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    EXPECT_EQ(p.value()->journal().table_seed(), seed);
    EXPECT_EQ(p.value()->engine().table_key(), seed);
    EXPECT_EQ(p.value()->recovery().state_hash, hash);
  }
  JournalOptions ro;
  ro.read_only = true;
  auto j = Journal::Open(options.data_dir, ro);
  ASSERT_TRUE(j.has_value()) << j.error().ToString();
  EXPECT_EQ(j.value()->table_seed(), seed);
  // Another journal draws another seed.
  auto fresh = Journal::Open(dir.Sub("other"), JournalOptions());
  ASSERT_TRUE(fresh.has_value()) << fresh.error().ToString();
  EXPECT_NE(fresh.value()->table_seed(), SipKey{});
  EXPECT_NE(fresh.value()->table_seed(), seed);
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

// Collects durable events until `done(events)` holds (at most 10 s).
template <typename Done>
std::vector<Event> CollectUntil(Pipeline& p, Done done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<Event> events;
  BackoffIdle idle;
  while (!done(events) && std::chrono::steady_clock::now() < deadline) {
    idle.Idle(static_cast<int>(
        p.PollDurableEvents([&](const Event& e) { events.push_back(e); })));
  }
  return events;
}

std::size_t Count(const std::vector<Event>& events, EventType type) {
  std::size_t n = 0;
  for (const Event& e : events) n += e.type == type ? 1 : 0;
  return n;
}

TEST(Pipeline, ReferenceDataIsJournaledWithItsPayloadAndReplayed) {
  cfx::testing::TempDir dir;
  SimulatedClock clock(Timestamp{1'800'000'000'000'000'000});
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.snapshot_on_stop = false;  // the restart replays the command
  AttesterKeyRegister key;
  key.key_id = "ed25519:00112233aabbccdd";
  key.public_key = std::string(32, 'p');
  key.attester = "ATTEST";
  const std::string payload = EncodeReferencePayload(key);
  uint64_t hash = 0;
  Seq seq;
  {
    auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    SpscRing<Command>* ring = p.value()->AddProducer(16);
    p.value()->Start();
    const int64_t slot = p.value()->payload_arena().Put(payload, 2);
    ASSERT_GE(slot, 0);
    Command c;
    c.type = CommandType::kReferenceData;
    c.client_order_id = ClientOrderId{9};
    c.target = static_cast<uint64_t>(slot);
    c.quantity = Quantity{static_cast<int64_t>(payload.size())};
    ASSERT_TRUE(ring->TryPush(c));
    auto events = CollectUntil(
        *p.value(), [](const std::vector<Event>& ev) { return !ev.empty(); });
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].type, EventType::kReferenceAccepted)
        << "reason " << events[0].reason;
    EXPECT_EQ(events[0].client_order_id, ClientOrderId{9});
    seq = events[0].seq;
    ASSERT_TRUE(p.value()->Stop().ok());
    // Both holders released the slot.
    EXPECT_EQ(p.value()->payload_arena().InUse(), 0u);
    hash = p.value()->engine().StateHash();
    bool found = false;
    const Status st = p.value()->journal().ReplayWithPayloads(
        Seq{0}, [&](const Command& cmd, std::string_view bytes) {
          if (cmd.seq == seq) {
            found = true;
            EXPECT_EQ(bytes, payload);
          }
          return Status::Ok();
        });
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(found);
  }
  auto p = Pipeline::Open(SmallMarketConfig(), options, clock);
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  EXPECT_EQ(p.value()->recovery().snapshot_seq, Seq{});
  EXPECT_EQ(p.value()->recovery().state_hash, hash);
  std::string pub, attester;
  bool revoked = true;
  EXPECT_TRUE(p.value()->engine().registry().key(key.key_id, &pub, &attester,
                                                 &revoked));
  EXPECT_EQ(pub, key.public_key);
  EXPECT_FALSE(revoked);
}

// One grade with listing_days 7: eight spot slots, ids 3-10.
EngineConfig SpotConfig() {
  EngineConfig c = SmallMarketConfig();
  c.limits.max_instruments = 11;
  for (uint32_t id = 3; id <= 10; ++id) {
    InstrumentConfig ic;
    ic.id = InstrumentId{id};
    ic.kind = InstrumentKind::kSpot;
    ic.initial_state = InstrumentState::kNone;
    ic.gpu_hours_per_lot = 192;
    c.instruments.push_back(ic);
  }
  return c;
}

TEST(Pipeline, SpotDaysAreListedAheadAndExpireAtDeliveryAlsoAcrossARestart) {
  cfx::testing::TempDir dir;
  auto start = ParseUtcTimestamp("2026-12-01T00:00:00Z");
  ASSERT_TRUE(start.has_value());
  constexpr int64_t kDayNs = 86'400'000'000'000;
  const int64_t today = start.value().nanos / kDayNs;
  SimulatedClock clock(start.value());
  PipelineOptions options;
  options.data_dir = dir.Sub("data");
  options.sequencer.session_end_utc_seconds = -1;
  options.sequencer.spot.first_slot = {InstrumentId{3}};
  options.sequencer.spot.listing_days = 7;
  auto slot_of = [](int64_t day) { return 3 + static_cast<uint32_t>(day % 8); };
  {
    auto p = Pipeline::Open(SpotConfig(), options, clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    p.value()->AddProducer(16);
    p.value()->Start();
    auto events = CollectUntil(*p.value(), [](const std::vector<Event>& ev) {
      return Count(ev, EventType::kInstrumentListed) >= 7;
    });
    ASSERT_EQ(Count(events, EventType::kInstrumentListed), 7u);
    for (int64_t d = today + 1; d <= today + 7; ++d) {
      bool seen = false;
      for (const Event& e : events) {
        seen = seen || (e.type == EventType::kInstrumentListed &&
                        e.count == d && e.instrument.value == slot_of(d));
      }
      EXPECT_TRUE(seen) << "day " << d;
    }
    // Midnight: the first listed day is delivered, one more is listed.
    ASSERT_TRUE(clock.Set(Timestamp{start.value().nanos + kDayNs}).ok());
    events = CollectUntil(*p.value(), [](const std::vector<Event>& ev) {
      return Count(ev, EventType::kInstrumentListed) >= 1 &&
             Count(ev, EventType::kInstrumentStateChanged) >= 1;
    });
    ASSERT_EQ(Count(events, EventType::kInstrumentStateChanged), 1u);
    ASSERT_EQ(Count(events, EventType::kInstrumentListed), 1u);
    for (const Event& e : events) {
      if (e.type == EventType::kInstrumentStateChanged) {
        EXPECT_EQ(e.instrument.value, slot_of(today + 1));
        EXPECT_EQ(e.state, InstrumentState::kExpired);
      } else if (e.type == EventType::kInstrumentListed) {
        EXPECT_EQ(e.count, today + 8);
      }
    }
    ASSERT_TRUE(p.value()->Stop().ok());
  }
  // Down for three days: at the restart days +2..+4 expire, +9..+11 list.
  ASSERT_TRUE(clock.Set(Timestamp{start.value().nanos + 4 * kDayNs}).ok());
  auto p = Pipeline::Open(SpotConfig(), options, clock);
  ASSERT_TRUE(p.has_value()) << p.error().ToString();
  p.value()->AddProducer(16);
  p.value()->Start();
  auto events = CollectUntil(*p.value(), [](const std::vector<Event>& ev) {
    return Count(ev, EventType::kInstrumentListed) >= 3;
  });
  EXPECT_EQ(Count(events, EventType::kInstrumentStateChanged), 3u);
  EXPECT_EQ(Count(events, EventType::kInstrumentListed), 3u);
  ASSERT_TRUE(p.value()->Stop().ok());
  const Engine& engine = p.value()->engine();
  for (int64_t d = today + 5; d <= today + 11; ++d) {
    const InstrumentId slot{slot_of(d)};
    EXPECT_EQ(engine.delivery_day(slot), d);
    EXPECT_EQ(engine.state(slot), InstrumentState::kOpen) << "day " << d;
  }
  EXPECT_EQ(engine.state(InstrumentId{slot_of(today + 4)}),
            InstrumentState::kExpired);
}

}  // namespace
}  // namespace cfx::exchange
