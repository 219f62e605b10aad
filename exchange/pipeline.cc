#include "exchange/pipeline.h"

#include <pthread.h>

#include "exchange/idle.h"

namespace cfx::exchange {

Result<std::unique_ptr<Pipeline>> Pipeline::Open(
    const EngineConfig& config, const PipelineOptions& options,
    const Clock& clock, const Journal::ProgressFn& progress) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  JournalOptions jo;
  jo.sync = options.sync;
  jo.genesis_table_seed = options.genesis_table_seed;
  auto journal = Journal::Open(options.data_dir, jo);
  if (!journal.has_value()) return journal.error();
  p->journal_ = std::move(journal).value();
  auto engine = Engine::Create(config);
  if (!engine.has_value()) return engine.error();
  p->engine_ = std::move(engine).value();
  auto report = Recover(*p->journal_, *p->engine_, progress);
  if (!report.has_value()) return report.error();
  p->recovery_ = report.value();
  p->snapshot_on_stop_ = options.snapshot_on_stop;
  p->to_engine_ = std::make_unique<SpscRing<Command>>(options.engine_ring);
  p->events_ = std::make_unique<SpscRing<Event>>(options.event_ring);
  SequencerOptions so = options.sequencer;
  if (!options.timers) {
    so.session_end_utc_seconds = -1;
    so.spot.first_slot.clear();
  }
  // The listing calendar continues from the recovered state.
  const uint32_t instruments = config.limits.max_instruments;
  so.spot.slot_day.assign(instruments, 0);
  so.spot.slot_live.assign(instruments, 0);
  for (uint32_t id = 1; id < instruments; ++id) {
    const InstrumentId i{id};
    so.spot.slot_day[id] = p->engine_->delivery_day(i);
    const InstrumentState st = p->engine_->state(i);
    so.spot.slot_live[id] = st != InstrumentState::kNone &&
                            st != InstrumentState::kExpired &&
                            so.spot.slot_day[id] != 0;
  }
  p->sequencer_ =
      std::make_unique<Sequencer>(*p->journal_, clock, *p->to_engine_, so);
  p->shard_ = std::make_unique<ShardRunner>(*p->engine_, *p->to_engine_,
                                            *p->events_, *p->sequencer_,
                                            *p->journal_, options.shard);
  p->arena_ = std::make_unique<PayloadArena>(options.payload_slots,
                                             options.payload_slot_bytes);
  p->sequencer_->set_payload_arena(p->arena_.get());
  p->shard_->set_payload_arena(p->arena_.get());
  if (options.timers) {
    p->sequencer_->set_wakeup_source(p->shard_->next_expiry());
  }
  return p;
}

Pipeline::~Pipeline() {
  if (started_ && !stopped_) Stop().ok();
}

SpscRing<Command>* Pipeline::AddProducer(std::size_t capacity) {
  return sequencer_->AddProducer(capacity);
}

void Pipeline::Start() {
  started_ = true;
  // Named so per-thread CPU shows up in top -H, perf and cfx-bench gateway.
  sequencer_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "cfx-seq");
    RunSequencer();
  });
  shard_thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "cfx-match");
    RunShard();
  });
}

void Pipeline::RunSequencer() {
  BackoffIdle idle;
  while (true) {
    const bool stopping = stopping_.load(std::memory_order_acquire);
    const int n = sequencer_->DoWork();
    if (sequencer_->failed()) break;
    if (stopping && n == 0) break;
    idle.Idle(n);
  }
  sequencer_done_.store(true, std::memory_order_release);
}

void Pipeline::RunShard() {
  BackoffIdle idle;
  while (true) {
    const bool done = sequencer_done_.load(std::memory_order_acquire);
    const int n = shard_->DoWork();
    if (done && n == 0) break;
    idle.Idle(n);
  }
}

Status Pipeline::Stop() {
  if (!started_ || stopped_) return status();
  stopped_ = true;
  stopping_.store(true, std::memory_order_release);
  shard_->DropEventsWhenFull();
  sequencer_thread_.join();
  shard_thread_.join();
  Status st = shard_->Finish(snapshot_on_stop_);
  if (!sequencer_->status().ok()) return sequencer_->status();
  return st;
}

Status Pipeline::status() const {
  if (sequencer_->failed()) return sequencer_->status();
  if (stopped_) return shard_->status();
  return Status::Ok();
}

}  // namespace cfx::exchange
