#include "exchange/shard_runner.h"

#include "exchange/idle.h"

namespace cfx::exchange {

ShardRunner::ShardRunner(Engine& engine, SpscRing<Command>& in,
                         SpscRing<Event>& out, const Sequencer& sequencer,
                         Journal& journal, const ShardOptions& options)
    : engine_(engine),
      in_(in),
      out_(out),
      sequencer_(sequencer),
      journal_(journal),
      options_(options),
      sink_(buffer_, 256, &ShardRunner::FlushEvents, this),
      applied_(engine.last_seq().value),
      next_expiry_(engine.next_expiry().nanos) {}

void ShardRunner::FlushEvents(void* self, const Event* events, std::size_t n) {
  auto* r = static_cast<ShardRunner*>(self);
  BackoffIdle idle;
  for (std::size_t i = 0; i < n; ++i) {
    while (!r->out_.TryPush(events[i])) {
      if (r->drop_when_full_.load(std::memory_order_acquire)) break;
      idle.Idle(0);
    }
  }
}

int ShardRunner::DoWork() {
  if (!pending_snapshot_.empty()) WritePendingSnapshot();
  int n = 0;
  while (n < 1024) {
    // A chunk ends at a snapshot boundary so the snapshot holds exactly
    // the state at that seq.
    // A chunk also ends at a kReferenceData command, which is applied on its
    // own with its payload.
    std::size_t m = 0;
    bool boundary = false;
    bool with_payload = false;
    while (m < kChunk && in_.TryPop(&chunk_[m])) {
      const Command& c = chunk_[m++];
      if (options_.snapshot_every != 0 &&
          c.seq.value % options_.snapshot_every == 0) {
        boundary = true;
      }
      if (c.type == CommandType::kReferenceData) with_payload = true;
      if (boundary || with_payload) break;
    }
    if (m == 0) break;
    if (with_payload) {
      if (m > 1) engine_.ApplyBatch(chunk_, m - 1, sink_);
      const Command& c = chunk_[m - 1];
      engine_.Apply(c, arena_ != nullptr ? arena_->Get(c.payload_slot()) : "",
                    sink_);
      if (arena_ != nullptr) arena_->Release(c.payload_slot());
    } else {
      engine_.ApplyBatch(chunk_, m, sink_);
    }
    n += static_cast<int>(m);
    if (boundary && status_.ok()) {
      pending_snapshot_ = engine_.SaveSnapshot();
      pending_snapshot_seq_ = chunk_[m - 1].seq;
    }
    if (m < kChunk && !boundary && !with_payload) break;  // ring empty
  }
  if (n > 0) {
    sink_.Flush();
    next_expiry_.store(engine_.next_expiry().nanos, std::memory_order_release);
    applied_.store(engine_.last_seq().value, std::memory_order_release);
  }
  return n;
}

void ShardRunner::WritePendingSnapshot() {
  if (sequencer_.durable_seq() < pending_snapshot_seq_) return;
  const Status st =
      journal_.WriteSnapshot(pending_snapshot_seq_, pending_snapshot_);
  if (!st.ok() && status_.ok()) status_ = st;
  pending_snapshot_.clear();
}

Status ShardRunner::Finish(bool snapshot) {
  pending_snapshot_.clear();
  sink_.Flush();
  const Seq last = engine_.last_seq();
  if (snapshot && last.value != 0 && last <= sequencer_.durable_seq()) {
    CFX_RETURN_IF_ERROR(journal_.WriteSnapshot(last, engine_.SaveSnapshot()));
  }
  CFX_RETURN_IF_ERROR(journal_.Flush());
  return status_;
}

}  // namespace cfx::exchange
