#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "exchange/clock.h"
#include "exchange/core/engine.h"
#include "exchange/core/event.h"
#include "exchange/journal.h"
#include "exchange/recovery.h"
#include "exchange/sequencer.h"
#include "exchange/shard_runner.h"
#include "exchange/spsc_ring.h"

namespace cfx::exchange {

struct PipelineOptions {
  std::string data_dir = "var/cfx";
  SequencerOptions sequencer;
  ShardOptions shard;
  // Sequencer -> engine ring, in commands. Default: 65,536.
  std::size_t engine_ring = 1 << 16;
  // Engine -> egress ring, in events. Default: 262,144.
  std::size_t event_ring = 1 << 18;
  // fsync each journal write. Default: true.
  bool sync = true;
  // The table seed of a new journal (JournalOptions::genesis_table_seed).
  // Default (zero): random.
  SipKey genesis_table_seed{};
  // Time-driven commands: a Timer when the earliest GTD order is due and an
  // EndOfSession at sequencer.session_end_utc_seconds each day. Default:
  // true. Tests that need seq = submission order turn them off.
  bool timers = true;
  // Payload slots for reference-data commands in flight, and their size.
  std::size_t payload_slots = 64;
  std::size_t payload_slot_bytes = 8'192;
  // Write a snapshot at Stop(). Default: true. Benchmarks turn it off to
  // measure the restart after a crash (snapshot + tail replay).
  bool snapshot_on_stop = true;
};

// The event-sourced core of the exchange in one process: the journal on
// RocksDB, recovery, the sequencer thread and one matching shard thread
// (STYLE.md §1). Producers push commands into their own rings; the egress
// consumer takes events only once their command is durable.
//
// Thread: Open/AddProducer/Start/Stop from the owning thread;
// PollDurableEvents() from one egress thread.
class Pipeline {
 public:
  // Opens (or creates) the journal in options.data_dir and recovers the
  // engine. Returns the journal's or recovery's error.
  static Result<std::unique_ptr<Pipeline>> Open(
      const EngineConfig& config, const PipelineOptions& options,
      const Clock& clock, const Journal::ProgressFn& progress = nullptr);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  const RecoveryReport& recovery() const { return recovery_; }

  // REQUIRES: before Start().
  SpscRing<Command>* AddProducer(std::size_t capacity = 1 << 14);

  void Start();

  // Sequences what producers have pushed, lets the engine apply it, writes
  // a final snapshot and flushes. Returns the first failure seen.
  Status Stop();

  // Hands the engine's events to `fn(const Event&)`, oldest first, as long
  // as their command is durable; returns how many.
  template <typename Fn>
  std::size_t PollDurableEvents(Fn&& fn, std::size_t max = 4096) {
    const uint64_t durable = sequencer_->durable_seq().value;
    std::size_t n = 0;
    while (n < max) {
      const Event* e = events_->Front();
      if (e == nullptr || e->seq.value > durable) break;
      fn(*e);
      events_->Pop();
      ++n;
    }
    return n;
  }

  // Producers put the payload of a kReferenceData command here with 2
  // holders (the sequencer and the engine) and send its slot as the
  // command's target.
  PayloadArena& payload_arena() { return *arena_; }

  Seq durable_seq() const { return sequencer_->durable_seq(); }
  // Commands sequenced but not yet taken by the engine, and events not yet
  // taken by the egress; approximate, any thread.
  std::size_t engine_queue_depth() const { return to_engine_->SizeApprox(); }
  std::size_t event_queue_depth() const { return events_->SizeApprox(); }
  uint64_t journal_writes() const { return sequencer_->batches(); }
  Seq applied_seq() const { return shard_->applied_seq(); }
  // Non-OK once the journal failed (the pipeline then stops accepting), or
  // after Stop() when a snapshot could not be written.
  Status status() const;
  // REQUIRES: stopped, or called from tests that know the engine is idle.
  const Engine& engine() const { return *engine_; }
  Journal& journal() { return *journal_; }

 private:
  Pipeline() = default;
  void RunSequencer();
  void RunShard();

  std::unique_ptr<Journal> journal_;
  std::unique_ptr<PayloadArena> arena_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<SpscRing<Command>> to_engine_;
  std::unique_ptr<SpscRing<Event>> events_;
  std::unique_ptr<Sequencer> sequencer_;
  std::unique_ptr<ShardRunner> shard_;
  RecoveryReport recovery_;
  std::thread sequencer_thread_;
  std::thread shard_thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> sequencer_done_{false};
  bool snapshot_on_stop_ = true;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace cfx::exchange
