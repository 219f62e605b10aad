#pragma once

#include <condition_variable>
#include <cstddef>
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
  // Checks waiting for a worker at most; one more is refused at once.
  // Default: 64.
  std::size_t max_queued = 64;
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
  // queues nothing, when max_queued checks are waiting.
  bool TrySubmit(asio::io_context& io, std::function<bool()> check,
                 std::function<void(bool)> done);

  std::size_t max_queued() const { return max_queued_; }
  // Checks waiting for a worker now (not the ones running).
  std::size_t queued() const;

 private:
  struct Job {
    asio::io_context* io = nullptr;
    std::function<bool()> check;
    std::function<void(bool)> done;
  };
  void Run();

  const std::size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::vector<std::thread> workers_;
};

}  // namespace cfx::gateway
