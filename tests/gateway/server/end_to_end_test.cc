// End to end: the cfx-exchanged binary as a child process on the shipped
// config. Two firms trade; every acknowledged order and every fill must
// survive kill -9: after a restart on the same data dir, order status answers
// with each order's last state, and a retransmission from seq 0 returns every
// message received before the crash, byte for byte.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

#if defined(CFX_EXCHANGED) && defined(CFX_EXCHANGE_CONFIG)

using SteadyClock = std::chrono::steady_clock;
using ClientPtr = std::unique_ptr<client::Client>;

// A loopback port nobody listens on right now (bound, read, released).
uint16_t FreePort() {
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
  // clock (no end of trading day can fall inside the test), and waits until
  // it listens. A child that exits first (a port taken since FreePort()) is
  // retried on other ports, three times in all.
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

  bool WaitForLog(const std::string& text, Millis timeout) {
    const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
    while (log_.find(text) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<Millis>(deadline - SteadyClock::now());
      if (left.count() <= 0 || !Drain(left)) return false;
    }
    return true;
  }

  pid_t pid_ = -1;
  int log_fd_ = -1;
  bool exited_ = false;  // the log pipe reached EOF
  uint16_t port_ = 0;
  std::string log_;
};

// One logged-on trader and everything it received.
struct Trader {
  ClientPtr client;
  std::vector<w::Envelope> received;  // all but heartbeats, in order
  // The last report of each of its acknowledged orders, by order id.
  std::map<uint64_t, w::ExecutionReport> orders;

  void Note(const w::Envelope& e) {
    if (e.has_heartbeat()) return;
    received.push_back(e);
    if (!e.has_execution_report()) return;
    const w::ExecutionReport& r = e.execution_report();
    if (r.seq() == 0 || r.order_id() == 0) return;
    orders[r.order_id()] = r;
  }

  // Waits for a report for which `pred` holds, noting everything.
  void Await(const std::function<bool(const w::ExecutionReport&)>& pred) {
    auto r = client->ReceiveUntil(
        [&](const w::Envelope& e) {
          Note(e);
          return e.has_execution_report() && pred(e.execution_report());
        },
        kWait);
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
  }

  void Send(const w::Envelope& e) { ASSERT_TRUE(client->Send(e).ok()); }

  // Sends a NewOrder and waits for its ack.
  uint64_t Order(const w::Envelope& e) {
    Send(e);
    const uint64_t id = e.new_order().client_order_id();
    uint64_t order_id = 0;
    Await([&](const w::ExecutionReport& r) {
      if (r.client_order_id() != id || r.exec_type() != w::EXEC_TYPE_NEW) {
        return false;
      }
      order_id = r.order_id();
      return true;
    });
    return order_id;
  }

  void AwaitFill(uint64_t order_id, int64_t cum) {
    Await([&](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_TRADE && r.order_id() == order_id &&
             r.cum_quantity() == cum;
    });
  }

  std::vector<w::Envelope> Sequenced() const {
    std::vector<w::Envelope> out;
    for (const w::Envelope& e : received) {
      if (PositionOf(e).has_value()) out.push_back(e);
    }
    return out;
  }
};

std::string Dump(const std::vector<w::Envelope>& v) {
  std::string s;
  for (const w::Envelope& e : v) s += "  " + Describe(e) + "\n";
  return s;
}

TEST(EndToEnd, AcknowledgedOrdersAndFillsSurviveKillDashNine) {
  cfx::testing::TempDir dir;
  const std::string data_dir = dir.Sub("data");
  Trader a;  // trader-a, FIRM-A: buys
  Trader c;  // trader-c, FIRM-C: sells
  {
    Exchanged server;
    ASSERT_TRUE(server.Start(data_dir));
    a.client = server.LogOnWithRetry(DemoLogon("trader-a"));
    c.client = server.LogOnWithRetry(DemoLogon("trader-c"));
    ASSERT_NE(a.client, nullptr);
    ASSERT_NE(c.client, nullptr);

    const uint64_t a1 = a.Order(NewOrder(1, w::SIDE_BUY, kPrice, 5));
    const uint64_t a2 = a.Order(NewOrder(2, w::SIDE_BUY, kPrice - kTick, 2));
    const uint64_t c1 = c.Order(NewOrder(1, w::SIDE_SELL, kPrice, 3));
    c.AwaitFill(c1, 3);
    a.AwaitFill(a1, 3);
    const uint64_t c2 = c.Order(NewOrder(2, w::SIDE_SELL, kPrice - kTick, 4));
    c.AwaitFill(c2, 4);
    a.AwaitFill(a1, 5);
    a.AwaitFill(a2, 2);
    c.Order(NewOrder(3, w::SIDE_SELL, kPrice + kTick, 1));  // rests
    const uint64_t a3 =
        a.Order(NewOrder(3, w::SIDE_BUY, kPrice - 2 * kTick, 1));
    a.Send(Cancel(4, a3));
    a.Await([&](const w::ExecutionReport& r) {
      return r.exec_type() == w::EXEC_TYPE_CANCELED && r.order_id() == a3;
    });
    a.Order(NewOrder(5, w::SIDE_BUY, kPrice - 3 * kTick, 2));  // rests
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_EQ(a.orders.size(), 4u);
    ASSERT_EQ(c.orders.size(), 3u);

    // The crash: no shutdown, no cancel on disconnect.
    const int status = server.Kill(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status)) << server.log();
  }
  a.client.reset();
  c.client.reset();

  Exchanged server;
  ASSERT_TRUE(server.Start(data_dir));
  for (Trader* t : {&a, &c}) {
    const std::string user = t == &a ? "trader-a" : "trader-c";
    SCOPED_TRACE(user);
    client::LogonParams p = DemoLogon(user);
    p.resume_after_seq = 0;
    ClientPtr again = server.LogOnWithRetry(p);
    ASSERT_NE(again, nullptr);

    // Every fill and every other report, identical and in order.
    std::vector<w::Envelope> resent;
    auto done = again->ReceiveUntil(
        [](const w::Envelope& e) { return e.has_retransmission_complete(); },
        kWait,
        [&](const w::Envelope& e) {
          if (!e.has_heartbeat()) resent.push_back(e);
        });
    ASSERT_TRUE(done.has_value()) << done.error().ToString();
    const std::vector<w::Envelope> before = t->Sequenced();
    bool same = resent.size() == before.size();
    for (std::size_t i = 0; same && i < resent.size(); ++i) {
      same = resent[i].SerializeAsString() == before[i].SerializeAsString();
    }
    EXPECT_TRUE(same) << "resent:\n"
                      << Dump(resent) << "received before the crash:\n"
                      << Dump(before);
    EXPECT_EQ(done.value().retransmission_complete().messages(), before.size());

    // Every acknowledged order, in its last known state.
    for (const auto& [order_id, last] : t->orders) {
      SCOPED_TRACE("order " + std::to_string(order_id));
      auto s = QueryStatus(*again, order_id);
      ASSERT_TRUE(s.has_value()) << s.error().ToString();
      const w::ExecutionReport& r = s.value();
      EXPECT_EQ(r.order_status(), last.order_status());
      EXPECT_EQ(r.cum_quantity(), last.cum_quantity());
      EXPECT_EQ(r.leaves_quantity(), last.leaves_quantity());
      EXPECT_EQ(r.client_order_id(), last.client_order_id());
      EXPECT_EQ(r.price(), last.price());
      EXPECT_EQ(r.quantity(), last.quantity());
    }
  }
  // A clean shutdown after the recovery.
  const int status = server.Kill(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server.log();
}

#else

TEST(EndToEnd, AcknowledgedOrdersAndFillsSurviveKillDashNine) {
  GTEST_SKIP() << "built without cfx-exchanged";
}

#endif

}  // namespace
}  // namespace cfx::gateway::server_test
