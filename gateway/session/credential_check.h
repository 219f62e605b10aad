#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>  // before Asio (gateway/asio.h)
#include <vector>

#include "gateway/asio.h"

namespace cfx::gateway {

struct CredentialCheckOptions {
  // Worker threads running checks. Default: 1 (a check is one core's work;
  // the gateway thread keeps the other).
  int threads = 1;
  // Checks waiting for a worker at most; one more is refused. Default: 256
  // (a few hundred logons arriving together; the costly ones are bounded
  // by the CPU budget below, not by the queue).
  std::size_t max_queued = 256;
  // The CPU budget of costly checks (TrySubmit's `costly`: PBKDF2
  // passwords), over all workers: a bucket of at most `cpu_burst_ns` of CPU
  // time, refilled at `cpu_ns_per_second`. Defaults: 250 ms per second (a
  // quarter of one core) and a burst of 1 s (about ten checks at once).
  int64_t cpu_ns_per_second = 250'000'000;
  int64_t cpu_burst_ns = 1'000'000'000;
  // The clocks of the budget, in ns: the refill's (default: the steady
  // clock) and a worker's CPU time (default: the calling thread's CPU-time
  // clock). For tests.
  std::function<int64_t()> clock_ns{};
  std::function<int64_t()> cpu_clock_ns{};
};

// Runs logon credential checks (FIX PBKDF2 passwords, protobuf HMAC
// signatures) on a small fixed pool of worker threads, so that a flood of
// logons never holds the gateway thread that every session shares
// (docs/fix.md and docs/protocol.md, "Logon back-off").
//
// The queue is bounded: TrySubmit() refuses a check when max_queued are
// already waiting; the caller then refuses the logon at once ("try again
// later"). It never blocks and never grows.
//
// Costly checks also have a CPU budget (CredentialCheckOptions), so that a
// flood of wrong passwords from many addresses, which no per-address
// back-off slows, takes at most that share of a core from the threads that
// serve the sessions: a costly check is admitted while the bucket holds any
// CPU time, and takes from it what the last costly check cost (100 ms before
// the first); once it has run, its own CPU time is what it took. One that
// finds the bucket empty is refused like one that finds the queue full. A
// check that is not costly waits before every costly one (each kind in
// order), so a flood of costly checks never delays it by more than the one
// running.
//
// Thread: TrySubmit() from any thread (the gateway thread in practice); a
// check runs on a worker (at a lowered scheduling priority), and its `done`
// is posted to the io_context given with it. The destructor stops and
// joins the workers: checks still queued are dropped and their `done` is
// never posted. Memory: the queued checks' closures.
class CredentialChecker {
 public:
  explicit CredentialChecker(const CredentialCheckOptions& options = {});
  ~CredentialChecker();
  CredentialChecker(const CredentialChecker&) = delete;
  CredentialChecker& operator=(const CredentialChecker&) = delete;

  // Queues `check` for a worker; once it has run, done(result) is posted to
  // `io` (which must outlive this checker's workers). Returns false, and
  // queues nothing, when max_queued checks are waiting, or when `costly` and
  // the CPU budget is spent.
  bool TrySubmit(asio::io_context& io, std::function<bool()> check,
                 std::function<void(bool)> done, bool costly = false);

  std::size_t max_queued() const { return max_queued_; }
  // Checks waiting for a worker now (not the ones running).
  std::size_t queued() const;

 private:
  struct Job {
    asio::io_context* io = nullptr;
    std::function<bool()> check;
    std::function<void(bool)> done;
    int64_t charged_ns = 0;  // taken from the budget at admission
    bool costly = false;
  };
  void Run();
  // Adds the CPU time earned since the last refill. REQUIRES: mu_ held.
  void Refill();

  const std::size_t max_queued_;
  const int64_t cpu_ns_per_second_;
  const int64_t cpu_burst_ns_;
  const std::function<int64_t()> clock_ns_;
  const std::function<int64_t()> cpu_clock_ns_;
  int64_t budget_ns_ = 0;       // guarded by mu_; may go below 0
  int64_t refilled_ns_ = 0;     // guarded by mu_
  int64_t estimate_ns_ = 0;     // guarded by mu_: a costly check's cost
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace cfx::gateway
