#pragma once

// cfx-exchanged as a child process, for end-to-end tests that kill it
// (SIGKILL) and restart it on the same data dir: the binary and the shipped
// config come from the build (CFX_EXCHANGED, CFX_EXCHANGE_CONFIG, set by
// tests.cmake); without them this header declares nothing.

#if defined(CFX_EXCHANGED) && defined(CFX_EXCHANGE_CONFIG)

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {

using SteadyClock = std::chrono::steady_clock;
using ClientPtr = std::unique_ptr<client::Client>;

// A loopback port nobody listens on right now (bound, read, released).
inline uint16_t FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// cfx-exchanged as a child process; its stderr (the log) comes back through
// a pipe, which is also how the test learns that it listens or died.
class Exchanged {
 public:
  ~Exchanged() { Kill(SIGKILL); }

  // Starts the binary on `data_dir` with fresh free ports, on the simulated
  // clock (it moves only when the admin moves it, and starts again at the
  // config's clock start on every restart), and waits until it listens. A child
  // that exits first (a port taken since FreePort()) is retried on other ports,
  // three times in all.
  ::testing::AssertionResult Start(const std::string& data_dir) {
    ::testing::AssertionResult r = ::testing::AssertionFailure();
    for (int attempt = 0; attempt < 3; ++attempt) {
      r = StartOnce(data_dir);
      if (r || pid_ > 0) break;  // listening, or alive but silent
    }
    return r;
  }

  // Sends `sig` and reaps the child; returns its wait status.
  int Kill(int sig) {
    int status = 0;
    if (pid_ > 0) {
      ::kill(pid_, sig);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (log_fd_ >= 0) {
      Drain(Millis(0));
      ::close(log_fd_);
      log_fd_ = -1;
    }
    return status;
  }

  // Connects and logs on, retrying a refused connect until `kWait` passes
  // (waiting on the log pipe in between, which also tells if the child
  // died).
  ClientPtr LogOnWithRetry(const client::LogonParams& p) {
    const SteadyClock::time_point deadline = SteadyClock::now() + kWait;
    for (;;) {
      auto c = LogOn(port_, p);
      if (c.has_value()) return std::move(c).value();
      if (SteadyClock::now() >= deadline || !Drain(Millis(50))) {
        ADD_FAILURE() << p.api_key << ": " << c.error().ToString()
                      << "\ncfx-exchanged log:\n"
                      << log_;
        return nullptr;
      }
    }
  }

  const std::string& log() const { return log_; }

  // Sends `sig` and leaves the child running (SIGHUP).
  void Signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }

  // Reads the log until it holds `text`; false after `timeout` or once the
  // child exited.
  bool WaitForLog(const std::string& text, Millis timeout) {
    const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
    while (log_.find(text) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<Millis>(deadline - SteadyClock::now());
      if (left.count() <= 0 || !Drain(left)) return false;
    }
    return true;
  }

 private:
  ::testing::AssertionResult StartOnce(const std::string& data_dir) {
    log_.clear();
    exited_ = false;
    port_ = FreePort();
    const uint16_t http_port = FreePort();
    if (port_ == 0 || http_port == 0) {
      return ::testing::AssertionFailure() << "no free port";
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return ::testing::AssertionFailure() << "pipe: " << std::strerror(errno);
    }
    const std::string pb = std::to_string(port_);
    const std::string http = std::to_string(http_port);
    std::vector<std::string> args = {CFX_EXCHANGED,
                                     "--config",
                                     CFX_EXCHANGE_CONFIG,
                                     "--data-dir",
                                     data_dir,
                                     "--protobuf-port",
                                     pb,
                                     "--http-port",
                                     http,
                                     "--fix-port",
                                     "0",
                                     // Only opened when the data dir has
                                     // the demo certificate (tls/).
                                     "--fix-tls-port",
                                     "0",
                                     "--protobuf-tls-port",
                                     "0",
                                     "--https-port",
                                     "0",
                                     "--clock",
                                     "simulated"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      // Child: only async-signal-safe calls until exec.
      ::dup2(fds[1], STDERR_FILENO);
      const int null = ::open("/dev/null", O_RDWR);
      if (null >= 0) {
        ::dup2(null, STDIN_FILENO);
        ::dup2(null, STDOUT_FILENO);
      }
      ::close_range(3, ~0u, 0);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    if (pid_ < 0) {
      ::close(fds[0]);
      return ::testing::AssertionFailure() << "fork: " << std::strerror(errno);
    }
    log_fd_ = fds[0];
    if (!WaitForLog("cfx-exchanged: listening: ", kWait)) {
      const std::string log = log_;
      if (!exited_) {
        return ::testing::AssertionFailure()
               << "cfx-exchanged did not start listening; its log:\n"
               << log;
      }
      Kill(SIGKILL);  // reaps it
      return ::testing::AssertionFailure()
             << "cfx-exchanged exited at start; its log:\n"
             << log;
    }
    return ::testing::AssertionSuccess();
  }

  // Reads the log for up to `timeout`. Returns false once the pipe is at
  // EOF (the child exited).
  bool Drain(Millis timeout) {
    pollfd p{log_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return true;
    char buf[4096];
    const ssize_t n = ::read(log_fd_, buf, sizeof buf);
    if (n <= 0) {
      exited_ = true;
      return false;
    }
    log_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int log_fd_ = -1;
  bool exited_ = false;  // the log pipe reached EOF
  uint16_t port_ = 0;
  std::string log_;
};

}  // namespace cfx::gateway::server_test

#endif  // CFX_EXCHANGED && CFX_EXCHANGE_CONFIG
