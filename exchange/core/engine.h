#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "exchange/core/command.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/event.h"
#include "exchange/core/keyed_hash.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

namespace internal {
struct EngineState;
}  // namespace internal

// The matching engine of one shard: a deterministic state machine over the
// sequenced command stream. Price-time priority books for every configured
// instrument, pre-trade checks (the margin check among them), self-trade
// prevention, positions, collateral, expiry, client order id idempotency
// per account and trading day.
// The semantics are specified in docs/matching.md.
//
// Thread: owned by one matching thread; no internal locking.
// Memory: every pool is sized from EngineLimits in Create(); Apply() never
// allocates, performs no I/O and reads no clock.
class Engine {
 public:
  // Returns kInvalidArgument if the config does not validate.
  static Result<std::unique_ptr<Engine>> Create(const EngineConfig& config);

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Applies one sequenced command and appends its events to `out`: exactly
  // one result event (IsResult) plus its consequences. A rejected command
  // changes nothing but the time (due GTD orders still expire).
  // A command whose seq is not above the last applied one is rejected with
  // kSequenceOutOfOrder and changes nothing at all.
  void Apply(const Command& cmd, EventSink& out) noexcept;

  // As Apply(); `payload` is the journaled payload of a kReferenceData
  // command (ignored for other types). Reference data allocates (cold).
  void Apply(const Command& cmd, std::string_view payload,
             EventSink& out) noexcept;

  // Applies cmds[0, n) in order, exactly as n calls of Apply() would, while
  // prefetching what the next few commands will touch (their index entry,
  // their order, its queue neighbours), so a stream of cancels deep inside
  // long queues overlaps its cache misses. The shard runner feeds commands
  // through here.
  void ApplyBatch(const Command* cmds, std::size_t n, EventSink& out) noexcept;

  // Hash of the whole business state (see docs/matching.md, "State hash"):
  // books, orders, positions, collateral and settled dates, id counters, the
  // trading day's client order ids; not the last seq, so a rejected command
  // leaves it unchanged. Walks every resting order and remembered client order
  // id: O(state).
  uint64_t StateHash() const noexcept;

  // Serializes the whole state at last_seq() (format: docs/journal.md,
  // "Snapshot"). Cold path: allocates.
  std::string SaveSnapshot() const;

  // Loads a snapshot taken by SaveSnapshot() into this engine, which must be
  // fresh (no command applied) and built from a config that lists the same
  // instruments and accounts. Returns kDataLoss naming the byte offset when
  // the bytes are malformed or inconsistent, kFailedPrecondition when the
  // engine is not fresh. On error the engine is unusable: discard it.
  Status LoadSnapshot(std::string_view bytes);

  // The key of the tables keyed by client-chosen values (the client order
  // id table: docs/matching.md, "Client order ids"). It comes from the
  // journal's table seed (docs/journal.md, "Table seed"), so replay hashes
  // every table as the live engine did, and is part of snapshots and
  // StateHash() once set. Set it on a fresh engine, before its first
  // command or snapshot: kFailedPrecondition otherwise; kInvalidArgument for
  // the zero key (which means "not set").
  Status SetTableKey(const SipKey& key);
  // The zero key until SetTableKey() or a snapshot sets one.
  const SipKey& table_key() const noexcept;

  // Read-only views for tests, depth snapshots and tools.
  Seq last_seq() const noexcept;
  std::size_t resting_orders() const noexcept;
  // Best price on `side`, or Price{0} when that side is empty or the
  // instrument is unknown.
  Price best_price(InstrumentId instrument, Side side) const noexcept;
  // Aggregate lots resting at `price` on `side` (0 when none).
  Quantity level_quantity(InstrumentId instrument, Side side,
                          Price price) const noexcept;
  // Net position of `account` in `instrument`, in lots (buys positive).
  int64_t position(AccountId account, InstrumentId instrument) const noexcept;
  InstrumentState state(InstrumentId instrument) const noexcept;
  // Earliest time-driven change: a resting GTD order's expire time, a
  // scheduled open (pre-open) or a
  // change of eligibility (a rating or attestation expiring, a rating taking
  // effect); Timestamp{0} if none. The sequencer sends a Timer then.
  Timestamp next_expiry() const noexcept;
  // Spot slot: the delivery day (days since 1970-01-01) it was last listed
  // for; 0 otherwise.
  int64_t delivery_day(InstrumentId instrument) const noexcept;
  // The account's standing for grade `grade` (DESIGN.md §3).
  EligibilityRow eligibility(AccountId account, uint32_t grade) const noexcept;
  // Ratings, attester keys and attestations.
  const Registry& registry() const noexcept;
  // The account's collateral (micro-dollars; 0 for an unknown account).
  Amount collateral(AccountId account) const noexcept;
  // The last settlement date booked for the account through kCollateral
  // (days since 1970-01-01); 0 when none.
  int64_t settled_date(AccountId account) const noexcept;
  // True while the account's kill switch is on (false for an unknown one).
  bool killed(AccountId account) const noexcept;

 private:
  explicit Engine(std::unique_ptr<internal::EngineState> state);
  std::unique_ptr<internal::EngineState> s_;
};

}  // namespace cfx::exchange
