#pragma once

// Makes accept() fail deterministically: while a DescriptorLimit lives, the
// process may open no new file descriptor (RLIMIT_NOFILE is lowered to the
// lowest free descriptor number), so an accept fails with EMFILE.
// Descriptors already open keep working. Single-threaded tests only: every
// thread of the process is limited. RunUntil() drives the server's
// io_context on the test thread meanwhile.

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <utility>  // before Asio (gateway/asio.h)

#include "gateway/asio.h"

namespace cfx::gateway::testing {

class DescriptorLimit {
 public:
  DescriptorLimit() {
    if (::getrlimit(RLIMIT_NOFILE, &saved_) != 0) return;
    const int lowest_free = ::open("/dev/null", O_RDONLY);
    if (lowest_free < 0) return;
    ::close(lowest_free);
    rlimit lowered = saved_;
    lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
    ok_ = ::setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~DescriptorLimit() { Restore(); }
  DescriptorLimit(const DescriptorLimit&) = delete;
  DescriptorLimit& operator=(const DescriptorLimit&) = delete;

  // Whether the limit took effect.
  bool ok() const { return ok_; }

  // Lifts the limit again (also done by the destructor).
  void Restore() {
    if (ok_) ::setrlimit(RLIMIT_NOFILE, &saved_);
    ok_ = false;
  }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

// Runs `io` on this thread until `done()` or 10 s have passed; returns
// done().
template <typename Done>
bool RunUntil(asio::io_context& io, Done done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < end) {
    io.run_one_for(std::chrono::milliseconds(50));
  }
  return done();
}

}  // namespace cfx::gateway::testing
