#include "gateway/session/credential_check.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace cfx::gateway {

namespace {

// The workers' nice value: the gateway, sequencer and matching threads win
// the CPU from a flood of checks.
constexpr int kWorkerNice = 10;
// What a costly check is expected to cost before the first has run: about
// a PBKDF2 of 100,000 iterations.
constexpr int64_t kFirstEstimateNs = 100'000'000;
// A costly check is expected to cost at least this much.
constexpr int64_t kMinEstimateNs = 1'000'000;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ThreadCpuNanos() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * kNanosPerSecond + ts.tv_nsec;
}

}  // namespace

CredentialChecker::CredentialChecker(const CredentialCheckOptions& options)
    : max_queued_(options.max_queued == 0 ? 1 : options.max_queued),
      cpu_ns_per_second_(std::max<int64_t>(1, options.cpu_ns_per_second)),
      cpu_burst_ns_(std::max<int64_t>(1, options.cpu_burst_ns)),
      clock_ns_(options.clock_ns ? options.clock_ns : SteadyNanos),
      cpu_clock_ns_(options.cpu_clock_ns ? options.cpu_clock_ns
                                         : ThreadCpuNanos),
      budget_ns_(cpu_burst_ns_),
      refilled_ns_(clock_ns_()),
      estimate_ns_(kFirstEstimateNs) {
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
                                  std::function<void(bool)> done,
                                  bool costly) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    int64_t charged = 0;
    if (costly) {
      Refill();
      if (budget_ns_ <= 0) return false;
      charged = estimate_ns_;
      budget_ns_ -= charged;
    }
    // A cheap check goes before every costly one waiting, so that a
    // flood of costly checks does not hold it (a FIFO within each kind).
    auto at = costly ? queue_.end()
                     : std::find_if(queue_.begin(), queue_.end(),
                                    [](const Job& j) { return j.costly; });
    queue_.insert(at,
                  Job{&io, std::move(check), std::move(done), charged, costly});
  }
  cv_.notify_one();
  return true;
}

void CredentialChecker::Refill() {
  const int64_t now = clock_ns_();
  const int64_t elapsed = now - refilled_ns_;
  refilled_ns_ = now;
  if (elapsed <= 0) return;
  // Past this long the bucket is full whatever it held (and the product
  // below cannot overflow).
  const double earned = static_cast<double>(elapsed) *
                        static_cast<double>(cpu_ns_per_second_) /
                        static_cast<double>(kNanosPerSecond);
  const double room = static_cast<double>(cpu_burst_ns_ - budget_ns_);
  budget_ns_ = earned >= room ? cpu_burst_ns_
                              : budget_ns_ + static_cast<int64_t>(earned);
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
    const int64_t cpu_before = job.costly ? cpu_clock_ns_() : 0;
    const bool ok = job.check();
    if (job.costly) {
      const int64_t used = std::max<int64_t>(0, cpu_clock_ns_() - cpu_before);
      std::lock_guard<std::mutex> lock(mu_);
      budget_ns_ += job.charged_ns - used;
      estimate_ns_ = std::max(kMinEstimateNs, used);
    }
    asio::post(*job.io, [done = std::move(job.done), ok] { done(ok); });
  }
}

}  // namespace cfx::gateway
