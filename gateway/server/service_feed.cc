#include "gateway/server/service_feed.h"

#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "exchange/core/money.h"
#include "exchange/idle.h"
#include "gateway/config/index_config.h"
#include "gateway/config/settlement_config.h"
#include "settlement/engine_commands.h"

namespace cfx::gateway {

namespace {

// Events the service thread applies under one hold of the mutex, at most:
// a gateway read waits for no more than one batch beyond its own events.
constexpr int kMaxBatch = 256;
// The longest park of an idle service thread that nobody waits for.
constexpr int64_t kParkMicros = 1000;

}  // namespace

Result<std::unique_ptr<ServiceFeed>> ServiceFeed::Open(
    const ServerConfig& config, const std::string& data_dir, LogFn log,
    ServiceFeedOptions options) {
  auto index_service =
      index::IndexService::Open(BuildIndexConfig(config), data_dir + "/index");
  if (!index_service.has_value()) return index_service.error();
  auto settlement_service = settlement::SettlementService::Open(
      BuildSettlementConfig(config), data_dir + "/settlement");
  if (!settlement_service.has_value()) return settlement_service.error();
  return Create(std::move(index_service).value(),
                std::move(settlement_service).value(), std::move(log),
                std::move(options));
}

std::unique_ptr<ServiceFeed> ServiceFeed::Create(
    std::unique_ptr<index::IndexService> index,
    std::unique_ptr<settlement::SettlementService> settlement, LogFn log,
    ServiceFeedOptions options) {
  return std::unique_ptr<ServiceFeed>(
      new ServiceFeed(std::move(index), std::move(settlement), std::move(log),
                      std::move(options)));
}

ServiceFeed::ServiceFeed(
    std::unique_ptr<index::IndexService> index,
    std::unique_ptr<settlement::SettlementService> settlement, LogFn log,
    ServiceFeedOptions options)
    : index_(std::move(index)),
      settlement_(std::move(settlement)),
      log_(std::move(log)),
      options_(std::move(options)),
      events_(options_.event_ring),
      prints_(options_.print_ring),
      print_slots_(options_.print_ring),
      commands_(options_.command_ring) {
  exchange::MutexLock lock(mu_);
  settlement_from_ = settlement_->last_applied_seq();
  settlement_->set_fixings(index_->Fixings());
}

ServiceFeed::~ServiceFeed() { Stop(); }

void ServiceFeed::Apply(const exchange::Event& e) {
  index_->OnEvent(e);
  settlement_->OnEvent(e);
}

void ServiceFeed::OnEvent(const exchange::Event& e) {
  // Most events (orders accepted, cancelled, replaced) are neither
  // service's: they are not copied into the ring the other core reads.
  if (!index::IndexService::Uses(e.type) &&
      !settlement::SettlementService::Uses(e.type)) {
    return;
  }
  if (!live_) {
    exchange::MutexLock lock(mu_);
    Apply(e);
    return;
  }
  // Room() > 0: the push cannot fail.
  events_.TryPush(e);
  const uint64_t handed = handed_.load(std::memory_order_relaxed) + 1;
  handed_.store(handed, std::memory_order_relaxed);
  if (index::IndexService::MayPublish(e.type) ||
      settlement::SettlementService::MayRun(e.type)) {
    handed_with_output_ = handed;
    Wake();
  } else if (events_.SizeApprox() >= events_.capacity() / 4) {
    Wake();
  }
}

void ServiceFeed::Want(uint64_t target) {
  if (wanted_.load(std::memory_order_relaxed) < target) {
    wanted_.store(target, std::memory_order_release);
  }
  Wake();
}

void ServiceFeed::Wake() {
  if (wake_.load(std::memory_order_acquire)) return;
  {
    std::lock_guard<std::mutex> lock(park_mu_);
    wake_.store(true, std::memory_order_release);
  }
  park_cv_.notify_one();
}

void ServiceFeed::Park() {
  std::unique_lock<std::mutex> lock(park_mu_);
  park_cv_.wait_for(lock, std::chrono::microseconds(kParkMicros), [this] {
    return wake_.load(std::memory_order_acquire);
  });
  wake_.store(false, std::memory_order_release);
}

std::size_t ServiceFeed::Room() const {
  if (!live_) return std::numeric_limits<std::size_t>::max();
  return events_.capacity() - events_.SizeApprox();
}

Status ServiceFeed::FlushReplay() {
  exchange::MutexLock lock(mu_);
  return index_->Flush();
}

void ServiceFeed::GoLive(PublishFn publish_print) {
  exchange::MutexLock lock(mu_);
  char buf[160];
  std::snprintf(
      buf, sizeof buf, "index: %zu grades, applied through seq %llu",
      index_->config().grades.size(),
      static_cast<unsigned long long>(index_->last_applied_seq().value));
  Log(buf);
  std::snprintf(buf, sizeof buf,
                "settlement: stored state through seq %llu, %llu events "
                "applied after it",
                static_cast<unsigned long long>(settlement_from_),
                static_cast<unsigned long long>(settlement_->events_applied()));
  Log(buf);
  publish_print_ = std::move(publish_print);
  // The spot references follow the latest prints; queued again at every
  // start, for a print whose reference command a stop overtook.
  for (uint32_t g = 0; g < index_->config().grades.size(); ++g) {
    if (const index::Print* latest = index_->Latest(g)) {
      QueueSpotReference(*latest);
    }
  }
  index_->set_on_print(
      [this](const index::Print& print) { OnPrintApplied(print); });
  // Settlement: what the journal's replay settled but the engine has not
  // applied yet goes to the engine first, then every new run as it comes.
  CheckSettlement();
  for (const settlement::RunResult& r : settlement_->UnappliedResults()) {
    QueueSettlement(r, /*prices=*/false);
  }
  if (const settlement::RunResult* latest = settlement_->LatestResult()) {
    settlement::RunResult prices = *latest;
    prices.bookings.clear();
    QueueSettlement(prices, /*prices=*/true);
  }
  settlement_->set_on_run([this](const settlement::RunResult& r) {
    QueueSettlement(r, /*prices=*/true);
  });
}

void ServiceFeed::Start() {
  if (live_ || stop_.load(std::memory_order_relaxed)) return;
  live_ = true;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "cfx-services");
    RunServices();
  });
}

// Aeron's duty cycle: back off (spin, yield, then park) while there is
// nothing to apply; leave once stopped and every handed event is applied.
void ServiceFeed::RunServices() {
  exchange::BackoffIdle idle;
  while (true) {
    const int work = DoWork();
    const bool stopping = stop_.load(std::memory_order_acquire);
    if (work == 0 && stopping && events_.Front() == nullptr) return;
    if (work == 0 && !stopping && !Wanted() && events_.Front() == nullptr) {
      Park();
      continue;
    }
    idle.Idle(work);
  }
}

// One batch under the mutex: the events, the index store's write, then the
// count published, so a gateway read that sees the count also finds every
// print of those events in the ring back.
int ServiceFeed::DoWork() {
  if (events_.Front() == nullptr) return 0;
  exchange::MutexLock lock(mu_);
  int n = 0;
  while (n < kMaxBatch) {
    const exchange::Event* e = events_.Front();
    if (e == nullptr) break;
    if (options_.before_apply) options_.before_apply(*e);
    Apply(*e);
    events_.Pop();
    ++n;
  }
  flush_status_ = index_->Flush();
  if (!flush_status_.ok() && unlogged_flush_error_.ok()) {
    unlogged_flush_error_ = flush_status_;
  }
  applied_.store(
      applied_.load(std::memory_order_relaxed) + static_cast<uint64_t>(n),
      std::memory_order_release);
  return n;
}

int ServiceFeed::DrainOutputs() {
  int n = 0;
  while (const uint32_t* slot = prints_.Front()) {
    if (publish_print_) publish_print_(print_slots_[*slot]);
    prints_.Pop();
    ++n;
  }
  exchange::Command cmd;
  while (commands_.TryPop(&cmd)) {
    engine_commands_.push_back(cmd);
    ++n;
  }
  return n;
}

int ServiceFeed::Poll(bool check_settlement) {
  int work = DrainOutputs();
  if (pending_.empty() &&
      applied_.load(std::memory_order_acquire) == logged_applied_) {
    return work;
  }
  // Never wait for the service thread: it holds the mutex for a batch
  // (perhaps a settlement run); the next turn tries again.
  if (!mu_.TryLock()) return work;
  // Stable while held: every print of the applied events is in the ring.
  const uint64_t applied = applied_.load(std::memory_order_acquire);
  work += DrainOutputs();
  if (applied != logged_applied_) {
    logged_applied_ = applied;
    LogState(check_settlement);
  }
  while (!pending_.empty() && pending_.front().target <= applied) {
    const Answer answer = std::move(pending_.front().answer);
    pending_.pop_front();
    answer();
    ++work;
  }
  mu_.Unlock();
  return work;
}

bool ServiceFeed::Read(Answer answer) {
  if (pending_.empty() && mu_.TryLock()) {
    const bool caught_up = applied_.load(std::memory_order_acquire) ==
                               handed_.load(std::memory_order_relaxed) &&
                           prints_.Front() == nullptr;
    if (caught_up) answer();
    mu_.Unlock();
    if (caught_up) return true;
  }
  if (pending_.size() >= options_.max_pending_reads) return false;
  const uint64_t target = handed_.load(std::memory_order_relaxed);
  pending_.push_back({target, std::move(answer)});
  Want(target);
  return true;
}

void ServiceFeed::LogState(bool check_settlement) {
  if (!unlogged_flush_error_.ok()) {
    if (!index_flush_failed_) {
      Log("warning: index store write failed: " +
          unlogged_flush_error_.ToString());
    }
    index_flush_failed_ = true;
    unlogged_flush_error_ = Status::Ok();
  } else if (flush_status_.ok()) {
    index_flush_failed_ = false;
  }
  if (check_settlement) CheckSettlement();
}

int ServiceFeed::SubmitEngineCommands(
    exchange::SpscRing<exchange::Command>& ring) {
  int n = 0;
  while (!engine_commands_.empty() && ring.TryPush(engine_commands_.front())) {
    engine_commands_.pop_front();
    ++n;
  }
  return n;
}

void ServiceFeed::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  Wake();
  // Sessions are closed by now: the last prints go nowhere. The service
  // thread may wait for room in a ring back: keep draining.
  publish_print_ = nullptr;
  exchange::BackoffIdle idle;
  while (applied_.load(std::memory_order_acquire) !=
         handed_.load(std::memory_order_relaxed)) {
    idle.Idle(DrainOutputs());
  }
  thread_.join();
  DrainOutputs();
  pending_.clear();
  engine_commands_.clear();
  exchange::MutexLock lock(mu_);
  LogState(/*check_settlement=*/false);
}

void ServiceFeed::Emit(const exchange::Command& cmd) {
  if (!live_) {
    engine_commands_.push_back(cmd);
    return;
  }
  exchange::BackoffIdle idle;
  while (!commands_.TryPush(cmd)) idle.Idle(0);
}

// Called by the index inside Apply(), which holds mu_ (the analysis
// cannot follow the std::function).
void ServiceFeed::OnPrintApplied(const index::Print& print)
    CFX_NO_THREAD_SAFETY_ANALYSIS {
  EmitPrint(print);
  QueueSpotReference(print);
}

// The print goes into the slot the ring's next element names; the slot is
// free once the ring has room, since the gateway thread pops an element
// only after it has delivered its print.
void ServiceFeed::EmitPrint(const index::Print& print) {
  exchange::BackoffIdle idle;
  while (prints_.SizeApprox() >= prints_.capacity()) idle.Idle(0);
  const auto slot =
      static_cast<uint32_t>(prints_pushed_++ & (prints_.capacity() - 1));
  print_slots_[slot] = print;
  prints_.TryPush(slot);
}

// The engine learns a run's outcome through sequenced commands: each
// contract's new settlement price (the reference of its bands and its
// margin), the expiry of finally settled contracts and each account's net
// booking, dated, so that the engine applies a date once.
void ServiceFeed::QueueSettlement(const settlement::RunResult& r, bool prices) {
  for (const exchange::Command& cmd : settlement::EngineCommands(r, prices)) {
    Emit(cmd);
  }
}

// After each fixing (or restatement) the grade's spot node-days take the
// print's value as the reference of their bands (DESIGN.md §2): every slot
// of the grade, listed or not, so that a slot listed later starts from it.
// Sequenced, so that a replay of the journal reproduces it. The grade table
// is configuration, fixed at Open.
void ServiceFeed::QueueSpotReference(const index::Print& print) {
  if (!print.has_value || print.value.micros <= 0) return;
  const std::vector<uint32_t>& grade_of = index_->config().instrument_grade;
  for (uint32_t id = 1; id < grade_of.size(); ++id) {
    if (grade_of[id] != print.grade + 1) continue;
    exchange::Command cmd;
    cmd.type = exchange::CommandType::kSetReferencePrice;
    cmd.instrument = exchange::InstrumentId{id};
    cmd.price = exchange::PriceFromIndex(print.value);
    Emit(cmd);
  }
}

// A refused run stops settlement; it is logged once, naming the broken
// invariant, until an admin's re-run resumes settlement. A failed write of
// the settlement state is logged once too (a restart then applies more of
// the journal).
void ServiceFeed::CheckSettlement() {
  if (!settlement_store_failed_ && !settlement_->store_status().ok()) {
    settlement_store_failed_ = true;
    Log("warning: settlement state store write failed: " +
        settlement_->store_status().ToString());
  }
  if (settlement_->status().ok()) {
    if (settlement_failed_) Log("settlement resumed");
    settlement_failed_ = false;
    return;
  }
  if (settlement_failed_) return;
  settlement_failed_ = true;
  Log("error: settlement stopped: " + settlement_->status().ToString());
}

}  // namespace cfx::gateway
