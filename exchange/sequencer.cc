#include "exchange/sequencer.h"

#include <algorithm>

#include "exchange/idle.h"

namespace cfx::exchange {

Sequencer::Sequencer(Journal& journal, const Clock& clock,
                     SpscRing<Command>& to_engine,
                     const SequencerOptions& options)
    : journal_(journal),
      clock_(clock),
      to_engine_(to_engine),
      options_(options),
      last_seq_(journal.last_seq()),
      last_ts_(journal.last_ts()),
      durable_(journal.last_seq().value) {
  batch_.reserve(options_.max_batch);
}

SpscRing<Command>* Sequencer::AddProducer(std::size_t capacity) {
  producers_.push_back(std::make_unique<SpscRing<Command>>(capacity));
  return producers_.back().get();
}

int Sequencer::DoWork() {
  if (failed()) return 0;
  batch_.clear();
  Timestamp now = clock_.Now();
  if (now < last_ts_) now = last_ts_;
  if (options_.index_fixing_utc_seconds >= 0) {
    constexpr int64_t kDay = 86'400'000'000'000;
    const int64_t offset = options_.index_fixing_utc_seconds * 1'000'000'000;
    if (next_fixing_ns_ == 0) {
      // As for the session end below: the first fixing after the last
      // journaled command, so a fixing passed while down still fires.
      const int64_t base = last_ts_.nanos != 0 ? last_ts_.nanos : now.nanos;
      const int64_t day_start = base - ((base % kDay) + kDay) % kDay;
      next_fixing_ns_ = day_start + offset;
      if (next_fixing_ns_ <= base) next_fixing_ns_ += kDay;
    }
    while (now.nanos >= next_fixing_ns_ && batch_.size() < options_.max_batch) {
      Command f;
      f.type = CommandType::kIndexFixing;
      f.set_fixing_day(next_fixing_ns_ / kDay);
      batch_.push_back(f);
      next_fixing_ns_ += kDay;
    }
  }
  if (options_.session_end_utc_seconds >= 0) {
    constexpr int64_t kDay = 86'400'000'000'000;
    const int64_t offset = options_.session_end_utc_seconds * 1'000'000'000;
    if (next_session_end_ns_ == 0) {
      // The first boundary after the last journaled command, so one passed
      // while the exchange was down still fires; a new journal starts now.
      const int64_t base = last_ts_.nanos != 0 ? last_ts_.nanos : now.nanos;
      const int64_t day_start = base - ((base % kDay) + kDay) % kDay;
      next_session_end_ns_ = day_start + offset;
      if (next_session_end_ns_ <= base) next_session_end_ns_ += kDay;
    }
    while (now.nanos >= next_session_end_ns_ &&
           batch_.size() < options_.max_batch) {
      Command e;
      e.type = CommandType::kEndOfSession;
      batch_.push_back(e);
      next_session_end_ns_ += kDay;
    }
  }
  if (!options_.spot.first_slot.empty()) {
    constexpr int64_t kDay = 86'400'000'000'000;
    const int64_t today = now.nanos / kDay;
    if (today != listed_today_) {
      ReconcileSpot(today);
      listed_today_ = today;
    }
  }
  if (wakeup_ != nullptr) {
    const int64_t due = wakeup_->load(std::memory_order_acquire);
    if (due != 0 && due <= now.nanos && due > last_timer_ns_) {
      Command t;
      t.type = CommandType::kTimer;
      batch_.push_back(t);
      last_timer_ns_ = now.nanos;
    }
  }
  // Round-robin over producers, one command each per pass, so one busy
  // gateway cannot starve another.
  const std::size_t n = producers_.size();
  bool progress = true;
  while (progress && batch_.size() < options_.max_batch) {
    progress = false;
    for (std::size_t i = 0; i < n && batch_.size() < options_.max_batch; ++i) {
      SpscRing<Command>& ring = *producers_[(next_producer_ + i) % n];
      const Command* c = ring.Front();
      if (c == nullptr) continue;
      batch_.push_back(*c);
      ring.Pop();
      progress = true;
    }
  }
  if (n > 0) next_producer_ = (next_producer_ + 1) % n;
  if (batch_.empty()) return 0;

  for (Command& c : batch_) {
    c.seq = Seq{++last_seq_.value};
    c.ts = now;
  }
  last_ts_ = now;
  // The engine may match while the batch is being made durable; egress
  // holds its events until durable_seq() covers them.
  BackoffIdle idle;
  for (const Command& c : batch_) {
    while (!to_engine_.TryPush(c)) idle.Idle(0);
  }
  bool with_payloads = false;
  for (const Command& c : batch_) {
    if (c.type == CommandType::kReferenceData) with_payloads = true;
  }
  if (with_payloads) {
    payloads_.assign(batch_.size(), std::string_view());
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      if (batch_[i].type == CommandType::kReferenceData && arena_ != nullptr) {
        payloads_[i] = arena_->Get(batch_[i].payload_slot());
      }
    }
  }
  const Status st = journal_.Append(batch_.data(), batch_.size(),
                                    with_payloads ? payloads_.data() : nullptr);
  if (with_payloads && arena_ != nullptr) {
    for (const Command& c : batch_) {
      if (c.type == CommandType::kReferenceData) {
        arena_->Release(c.payload_slot());
      }
    }
  }
  if (!st.ok()) {
    status_ = st;
    failed_.store(true, std::memory_order_release);
    return 0;
  }
  batches_.fetch_add(1, std::memory_order_relaxed);
  durable_.store(last_seq_.value, std::memory_order_release);
  return static_cast<int>(batch_.size());
}

void Sequencer::ReconcileSpot(int64_t today) {
  SpotListing& sp = options_.spot;
  const int64_t slots = int64_t{sp.listing_days} + 1;
  for (const InstrumentId first : sp.first_slot) {
    for (int64_t d = today; d <= today + sp.listing_days; ++d) {
      const uint32_t id = first.value + static_cast<uint32_t>(d % slots);
      if (id >= sp.slot_day.size()) continue;
      const bool holds_d = sp.slot_day[id] == d;
      // Trading in day d stops at 00:00 UTC of d; a slot still holding an
      // older day (after a long stop) expires before it is listed again.
      if (sp.slot_live[id] != 0 && (d == today || !holds_d)) {
        Command e;
        e.type = CommandType::kSetInstrumentState;
        e.instrument = InstrumentId{id};
        e.state = InstrumentState::kExpired;
        batch_.push_back(e);
        sp.slot_live[id] = 0;
      }
      if (d > today && !holds_d) {
        Command l;
        l.type = CommandType::kListInstrument;
        l.instrument = InstrumentId{id};
        l.set_delivery_day(d);
        batch_.push_back(l);
        sp.slot_day[id] = d;
        sp.slot_live[id] = 1;
      }
    }
  }
}

}  // namespace cfx::exchange
