#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/command.h"
#include "exchange/core/status.h"
#include "exchange/journal.h"
#include "exchange/payload_arena.h"
#include "exchange/spsc_ring.h"

namespace cfx::exchange {

// The spot listing calendar (DESIGN.md §2): per grade, spot slots
// first_slot[g] .. first_slot[g] + listing_days; delivery day d lives in
// slot first_slot[g] + d % (listing_days + 1).
struct SpotListing {
  std::vector<InstrumentId> first_slot;  // empty = no spot listing
  uint32_t listing_days = 7;
  // Each slot's current listing as recovered: delivery day (0 = never
  // listed) and whether it is live (listed and not expired). Indexed by
  // instrument id; the sequencer keeps it up to date as it lists.
  std::vector<int64_t> slot_day;
  std::vector<uint8_t> slot_live;
};

struct SequencerOptions {
  // Most commands per journal write (group commit). Default: 4,096.
  std::size_t max_batch = 4'096;
  // Time of day (UTC, seconds after midnight) at which the trading day
  // ends: the sequencer journals an EndOfSession command, so DAY orders
  // expire at a sequenced point that replay reproduces. A boundary passed
  // while the exchange was down fires at the next start. Negative = none.
  // Default: 21:00 UTC, the daily settlement time (DESIGN.md §5).
  int64_t session_end_utc_seconds = 21 * 3600;
  // Time of day (UTC, seconds after midnight) of the daily index fixing
  // (DESIGN.md §4): at each, the sequencer journals an IndexFixing command
  // naming the day, ahead of every command stamped at or after that
  // instant, so a trade at exactly the fixing time belongs to the next day.
  // Fixings passed while the exchange was down fire at the next start, one
  // per day. Negative = none (the default; the server sets 21:00).
  int64_t index_fixing_utc_seconds = -1;
  // At start and at each 00:00 UTC: the instruments delivering today expire
  // and the next listing_days delivery days are listed, as sequenced
  // commands (SetInstrumentState Expired, ListInstrument).
  SpotListing spot;
};

// The single writer of the journal. Each duty cycle drains the producers'
// rings round-robin (in producer order: this order is the truth), adds a
// Timer command when the engine's next expiry time has come and an
// EndOfSession command at each end of the trading day, stamps dense seqs
// and the clock's time (never going back), hands the batch to the engine,
// appends it to the journal as one synced write, and then publishes
// durable_seq(). Nothing caused by a command may leave the process before
// durable_seq() reaches its seq.
//
// A journal failure is fail-stop: status() turns non-OK, and the sequencer
// accepts nothing more.
//
// Thread: AddProducer() before the loop starts; DoWork() from the sequencer
// thread only; durable_seq() from any thread.
// Memory: buffers sized in the constructor; the journal write allocates.
class Sequencer {
 public:
  Sequencer(Journal& journal, const Clock& clock, SpscRing<Command>& to_engine,
            const SequencerOptions& options);
  Sequencer(const Sequencer&) = delete;
  Sequencer& operator=(const Sequencer&) = delete;

  // A new producer ring (one per gateway thread). The returned ring must be
  // used by one producer thread and lives as long as the sequencer.
  SpscRing<Command>* AddProducer(std::size_t capacity);

  // The engine's next GTD expiry time in ns (0 = none), published by the
  // shard; when the clock reaches it the sequencer journals a Timer command
  // so the expiry happens, and replays, at a sequenced point.
  // `wakeup` must remain live while the sequencer runs.
  void set_wakeup_source(const std::atomic<int64_t>* wakeup) {
    wakeup_ = wakeup;
  }

  // Where kReferenceData commands keep their payloads (slot = target). The
  // sequencer journals the payload and then releases its hold.
  void set_payload_arena(PayloadArena* arena) { arena_ = arena; }

  // One duty cycle; returns the number of commands sequenced.
  int DoWork();

  Seq durable_seq() const {
    return Seq{durable_.load(std::memory_order_acquire)};
  }
  Seq last_seq() const { return last_seq_; }
  // Journal writes (group commits) so far; any thread.
  uint64_t batches() const { return batches_.load(std::memory_order_relaxed); }
  const Status& status() const { return status_; }
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  Journal& journal_;
  const Clock& clock_;
  SpscRing<Command>& to_engine_;
  SequencerOptions options_;
  std::vector<std::unique_ptr<SpscRing<Command>>> producers_;
  std::size_t next_producer_ = 0;
  std::vector<Command> batch_;
  std::vector<std::string_view> payloads_;  // aligned with batch_ when used
  PayloadArena* arena_ = nullptr;
  Seq last_seq_;
  Timestamp last_ts_;
  const std::atomic<int64_t>* wakeup_ = nullptr;
  int64_t next_session_end_ns_ = 0;  // 0 = not yet computed
  int64_t next_fixing_ns_ = 0;       // 0 = not yet computed
  int64_t listed_today_ = -1;        // the UTC day last reconciled
  void ReconcileSpot(int64_t today);
  int64_t last_timer_ns_ = 0;
  std::atomic<uint64_t> durable_{0};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> batches_{0};
  Status status_;
};

}  // namespace cfx::exchange
