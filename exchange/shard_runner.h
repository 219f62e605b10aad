#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "exchange/core/engine.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/journal.h"
#include "exchange/payload_arena.h"
#include "exchange/sequencer.h"
#include "exchange/spsc_ring.h"

namespace cfx::exchange {

struct ShardOptions {
  // Take a snapshot after every this many seqs; 0 = only at shutdown.
  // Default: 1,000,000.
  uint64_t snapshot_every = 1'000'000;
};

// Owns one engine: applies the sequenced commands from `in` and pushes the
// events to `out`, spinning while `out` is full. Every `snapshot_every`
// seqs it serializes the engine, and writes the snapshot once the
// sequencer reports that seq durable (a snapshot never holds a command the
// journal lacks).
//
// Thread: DoWork() and Finish() from the shard thread only.
// Memory: Apply() never allocates; snapshots do (cold).
class ShardRunner {
 public:
  ShardRunner(Engine& engine, SpscRing<Command>& in, SpscRing<Event>& out,
              const Sequencer& sequencer, Journal& journal,
              const ShardOptions& options);
  ShardRunner(const ShardRunner&) = delete;
  ShardRunner& operator=(const ShardRunner&) = delete;

  // Where kReferenceData commands keep their payloads; the runner releases
  // its hold after applying one.
  void set_payload_arena(PayloadArena* arena) { arena_ = arena; }

  // One duty cycle; returns the number of commands applied.
  int DoWork();

  // After the sequencer has stopped and `in` is drained: writes a final
  // snapshot at the last applied seq (unless `snapshot` is false) and
  // flushes the journal.
  Status Finish(bool snapshot = true);

  // From now on events that do not fit in `out` are dropped instead of
  // waited for (shutdown with no consumer left).
  void DropEventsWhenFull() {
    drop_when_full_.store(true, std::memory_order_release);
  }

  // The engine's next time-driven change in ns (GTD expiry, eligibility
  // change; 0 = none), for the sequencer.
  const std::atomic<int64_t>* next_expiry() const { return &next_expiry_; }

  Seq applied_seq() const {
    return Seq{applied_.load(std::memory_order_acquire)};
  }
  const Status& status() const { return status_; }

 private:
  static void FlushEvents(void* self, const Event* events, std::size_t n);
  void WritePendingSnapshot();

  Engine& engine_;
  SpscRing<Command>& in_;
  SpscRing<Event>& out_;
  const Sequencer& sequencer_;
  Journal& journal_;
  ShardOptions options_;
  static constexpr std::size_t kChunk = 64;
  Command chunk_[kChunk];  // popped commands, applied with ApplyBatch()
  Event buffer_[256];
  EventSink sink_;
  PayloadArena* arena_ = nullptr;
  std::atomic<uint64_t> applied_{0};
  std::atomic<bool> drop_when_full_{false};
  std::atomic<int64_t> next_expiry_{0};
  std::string pending_snapshot_;
  Seq pending_snapshot_seq_;
  Status status_;
};

}  // namespace cfx::exchange
