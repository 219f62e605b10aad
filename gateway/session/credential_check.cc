#include "gateway/session/credential_check.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace cfx::gateway {

namespace {

// The workers' nice value: the gateway, sequencer and matching threads win
// the CPU from a flood of checks.
constexpr int kWorkerNice = 10;

}  // namespace

CredentialChecker::CredentialChecker(const CredentialCheckOptions& options)
    : max_queued_(options.max_queued == 0 ? 1 : options.max_queued) {
  const int threads = options.threads < 1 ? 1 : options.threads;
  workers_.reserve(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Run(); });
}

CredentialChecker::~CredentialChecker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool CredentialChecker::TrySubmit(asio::io_context& io,
                                  std::function<bool()> check,
                                  std::function<void(bool)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(Job{&io, std::move(check), std::move(done)});
  }
  cv_.notify_one();
  return true;
}

std::size_t CredentialChecker::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void CredentialChecker::Run() {
  // Per thread on Linux: this worker only.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)),
                      kWorkerNice);
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    const bool ok = job.check();
    asio::post(*job.io, [done = std::move(job.done), ok] { done(ok); });
  }
}

}  // namespace cfx::gateway
