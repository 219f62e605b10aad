#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/spsc_ring.h"
#include "exchange/thread_annotations.h"
#include "gateway/config/server_config.h"
#include "gateway/session/service_reads.h"
#include "index/index_service.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {

struct ServiceFeedOptions {
  // Durable events on their way from the gateway thread to the services.
  // Full: the gateway takes no further event from the pipeline (Room()).
  std::size_t event_ring = 1 << 14;
  // Prints and engine commands on their way back to the gateway thread.
  // Full: the service thread waits for room (it is no I/O thread).
  std::size_t print_ring = 1 << 8;
  std::size_t command_ring = 1 << 12;
  // Answers waiting for the services to catch up; one more is refused
  // (Read() returns false: the interface answers busy).
  std::size_t max_pending_reads = 1024;
  // Tests: called on the service thread before it applies each live event.
  std::function<void(const exchange::Event&)> before_apply;
};

// The exchange's two services as one consumer of the durable event stream:
// the CFX index (DESIGN.md §4; store <data_dir>/index) and clearing and
// settlement (DESIGN.md §5; ledger <data_dir>/settlement), and what they
// send back: each new print to the gateways, and to the engine, as
// sequenced commands, each fixing's spot reference price and each
// settlement run's prices, expiries and collateral bookings.
//
// Threads (docs/architecture.md, "Threads and rings"):
// - Before Start(), the owning thread calls everything: the start-up
//   replay applies each event at once (OnEvent), then FlushReplay() and
//   GoLive().
// - From Start() on, the service thread "cfx-services" owns both services:
//   it takes the events from the event ring, applies each, the index first,
//   then settlement (the one thread, so settlement reads the day's fixing
//   from the index directly), writes the index store after each batch and
//   pushes the prints and engine commands into their rings back; it holds
//   `mu_` for each batch.
// - The gateway thread calls OnEvent() (a copy into the event ring),
//   Room(), Poll() (prints to the gateways, commands into the queue, log
//   lines, the answers that are ready), SubmitEngineCommands(), Read() and
//   Stop().
//
// Memory: the rings are allocated by the constructor; the services
// allocate as they apply events; the engine commands wait in a deque for
// room in the producer ring, the answers in a deque of at most
// max_pending_reads.
class ServiceFeed final : public ServiceReads {
 public:
  using LogFn = std::function<void(const std::string&)>;
  using PublishFn = std::function<void(const index::Print&)>;

  // Opens both services' stores under `data_dir`; their errors otherwise.
  // `log` gets one line per store failure, settlement stop and resume, on
  // the thread that calls Poll() (the owning thread before Start()); it
  // must remain live while the feed is.
  static Result<std::unique_ptr<ServiceFeed>> Open(
      const ServerConfig& config, const std::string& data_dir, LogFn log,
      ServiceFeedOptions options = {});
  // A feed of services opened elsewhere (tests: in-memory services).
  static std::unique_ptr<ServiceFeed> Create(
      std::unique_ptr<index::IndexService> index,
      std::unique_ptr<settlement::SettlementService> settlement, LogFn log,
      ServiceFeedOptions options = {});
  ~ServiceFeed() override;
  ServiceFeed(const ServiceFeed&) = delete;
  ServiceFeed& operator=(const ServiceFeed&) = delete;

  // The services, for the gateways' const pointers. Between Start() and
  // Stop() they are read only inside an answer given to Read().
  index::IndexService& index() CFX_NO_THREAD_SAFETY_ANALYSIS { return *index_; }
  settlement::SettlementService& settlement() CFX_NO_THREAD_SAFETY_ANALYSIS {
    return *settlement_;
  }

  // One durable event, in seq order; the index applies it first, then
  // settlement, because a last trading day's final settlement reads the
  // day's fixing. Before Start(): applied at once. After: copied into the
  // event ring. REQUIRES: Room() > 0.
  void OnEvent(const exchange::Event& e);
  // How many more events OnEvent() takes now: the event ring's free slots
  // (unbounded before Start()).
  std::size_t Room() const;

  // After the start-up replay: writes the index store. Its error is fatal.
  Status FlushReplay();
  // Logs where both services stand and connects their outputs: from now on
  // every new print and restatement goes to `publish_print` (from Poll())
  // and its spot references to the engine, every settlement run to the
  // engine; what the replay derived but the engine may not have applied is
  // queued first.
  void GoLive(PublishFn publish_print);
  // Starts the service thread. REQUIRES: GoLive() ran.
  void Start();
  // The gateway loop's turn: delivers the prints, takes the engine
  // commands into the queue, logs a failed index store write once (the
  // service thread retries it with its next batch; a restart catches up
  // from the journal) and, when `check_settlement`, a settlement stop or
  // resume once, and runs the answers whose events are applied. Returns
  // the work done.
  int Poll(bool check_settlement = true);
  // Pushes the queued engine commands into `ring` while it has room;
  // returns how many.
  int SubmitEngineCommands(exchange::SpscRing<exchange::Command>& ring);
  // Lets the service thread apply every event handed to it, delivers its
  // last prints, drops the answers still pending and the commands not yet
  // submitted (a restart derives them again) and joins it. Idempotent.
  void Stop();

  // ServiceReads: `answer` runs at once when the services have applied
  // every event handed to them and their prints are delivered, else from
  // Poll() once they have; false (not run) when max_pending_reads answers
  // are waiting.
  bool Read(Answer answer) override;

  // Gateway thread: true once the services have applied `target` events
  // and every engine command they derived from them is in the producer
  // ring (none waits in the command ring or the queue).
  // While not, the service thread keeps its short back-off (Want()).
  bool CaughtUpTo(uint64_t target) {
    if (applied_.load(std::memory_order_acquire) < target) {
      Want(target);
      return false;
    }
    return commands_.Front() == nullptr && engine_commands_.empty();
  }

  // Events handed to the service thread, and applied by it; any thread.
  uint64_t handed() const { return handed_.load(std::memory_order_relaxed); }
  // Gateway thread: handed() just after the last event handed over that
  // may make the services publish a print or derive engine commands
  // (IndexService::MayPublish, SettlementService::MayRun); a command that
  // must follow whatever the services derive waits for CaughtUpTo() this,
  // not for every event handed over.
  uint64_t handed_with_output() const { return handed_with_output_; }
  uint64_t applied() const { return applied_.load(std::memory_order_acquire); }

 private:
  struct PendingRead {
    uint64_t target = 0;  // handed() when the request arrived
    Answer answer;
  };

  ServiceFeed(std::unique_ptr<index::IndexService> index,
              std::unique_ptr<settlement::SettlementService> settlement,
              LogFn log, ServiceFeedOptions options);
  void Apply(const exchange::Event& e) CFX_REQUIRES(mu_);
  // The service thread's loop and one duty cycle of it.
  void RunServices();
  int DoWork();
  // Gateway thread: the prints and commands in the rings back.
  int DrainOutputs();
  void LogState(bool check_settlement) CFX_REQUIRES(mu_);
  void QueueSettlement(const settlement::RunResult& r, bool prices);
  void QueueSpotReference(const index::Print& print) CFX_REQUIRES(mu_);
  // A command for the engine: the queue before Start(), the command ring
  // from the service thread after.
  void Emit(const exchange::Command& cmd);
  void EmitPrint(const index::Print& print);
  void OnPrintApplied(const index::Print& print);
  void CheckSettlement() CFX_REQUIRES(mu_);
  // Gateway thread: the gateway waits until `target` events are applied;
  // wakes a parked service thread.
  void Want(uint64_t target);
  // Wakes the service thread if it is parked (any thread).
  void Wake();
  // Service thread, idle: true while the gateway waits for it.
  bool Wanted() const {
    return wanted_.load(std::memory_order_acquire) >
           applied_.load(std::memory_order_relaxed);
  }
  // Service thread, idle and not wanted: sleeps until Wake() or for at
  // most kParkMicros.
  void Park();
  void Log(const std::string& line) const {
    if (log_) log_(line);
  }

  // Both services are written by the service thread while it holds mu_
  // (by the owning thread before Start()); the gateway thread reads them
  // holding mu_ (Read()).
  exchange::Mutex mu_;
  std::unique_ptr<index::IndexService> index_ CFX_PT_GUARDED_BY(mu_);
  std::unique_ptr<settlement::SettlementService> settlement_
      CFX_PT_GUARDED_BY(mu_);
  // The last index store write (service thread), and a failure the gateway
  // thread has not logged yet.
  Status flush_status_ CFX_GUARDED_BY(mu_);
  Status unlogged_flush_error_ CFX_GUARDED_BY(mu_);
  LogFn log_;
  ServiceFeedOptions options_;
  // The seq through which the settlement service loaded its stored state:
  // the replay feeds it only the later events.
  uint64_t settlement_from_ = 0;
  // Gateway thread (log once).
  bool index_flush_failed_ = false;
  bool settlement_failed_ = false;
  bool settlement_store_failed_ = false;
  uint64_t logged_applied_ = 0;

  // gateway -> services: the events; services -> gateway: the prints (the
  // slot of print_slots_ that holds each) and the engine commands.
  exchange::SpscRing<exchange::Event> events_;
  exchange::SpscRing<uint32_t> prints_;
  std::vector<index::Print> print_slots_;
  uint64_t prints_pushed_ = 0;  // service thread
  exchange::SpscRing<exchange::Command> commands_;
  std::atomic<uint64_t> handed_{0};   // written by the gateway thread
  uint64_t handed_with_output_ = 0;   // gateway thread
  std::atomic<uint64_t> applied_{0};  // written by the service thread
  std::atomic<bool> stop_{false};
  // Idle with nobody waiting for it, the service thread parks instead of
  // backing off in 50 us sleeps: its wake-ups cost the other threads a
  // share of the 2 cores. Woken for the events that may derive something,
  // a ring a quarter full, a waiting command or read (wanted_, the
  // handed() count waited for) and Stop().
  std::atomic<uint64_t> wanted_{0};  // written by the gateway thread
  std::atomic<bool> wake_{false};
  std::mutex park_mu_;
  std::condition_variable park_cv_;
  bool live_ = false;  // set by Start(), before the thread starts
  std::thread thread_;

  // Gateway thread.
  PublishFn publish_print_;
  // What the services tell the engine, waiting for room in the ring.
  std::deque<exchange::Command> engine_commands_;
  std::deque<PendingRead> pending_;
};

}  // namespace cfx::gateway
