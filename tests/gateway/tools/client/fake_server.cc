#include "tests/gateway/tools/client/fake_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace cfx::gateway::testing {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;

namespace {

int MillisLeft(SteadyClock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - SteadyClock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// Waits until `fd` is readable; false on timeout.
bool WaitReadable(int fd, SteadyClock::time_point deadline) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int n = poll(&p, 1, MillisLeft(deadline));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

int Listen(uint16_t* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

bool FakeConnection::Fill(SteadyClock::time_point deadline) {
  if (fd_ < 0 || !WaitReadable(fd_, deadline)) return false;
  if (reader_.WritableSize() == 0) return false;
  const ssize_t n =
      recv(fd_, reader_.WritableSpace(), reader_.WritableSize(), 0);
  if (n <= 0) return false;
  reader_.Commit(static_cast<std::size_t>(n));
  return true;
}

std::optional<w::Envelope> FakeConnection::Read(
    std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    std::string_view payload;
    if (reader_.Next(&payload)) {
      w::Envelope e;
      if (!e.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
        return std::nullopt;
      }
      return e;
    }
    if (reader_.error() != pb::FrameError::kNone) return std::nullopt;
    if (!Fill(deadline)) return std::nullopt;
  }
}

std::string FakeConnection::ReadRaw(std::size_t n,
                                    std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  std::string out;
  while (out.size() < n) {
    if (fd_ < 0 || !WaitReadable(fd_, deadline)) return "";
    char buf[4096];
    const std::size_t want = std::min(sizeof buf, n - out.size());
    const ssize_t got = recv(fd_, buf, want, 0);
    if (got <= 0) return "";
    out.append(buf, static_cast<std::size_t>(got));
  }
  return out;
}

bool FakeConnection::WaitForClose(std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    if (fd_ < 0 || !WaitReadable(fd_, deadline)) return false;
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

bool FakeConnection::FinishSession(std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - SteadyClock::now());
    std::optional<w::Envelope> e =
        Read(std::max(left, std::chrono::milliseconds(0)));
    if (!e.has_value()) return false;
    if (e->has_logout()) break;
  }
  w::Envelope answer;
  answer.mutable_logout()->set_text("bye");
  const bool ok = Write(answer);
  Close();
  return ok;
}

bool FakeConnection::Write(const w::Envelope& e) { return WriteRaw(Frame(e)); }

bool FakeConnection::WriteRaw(std::string_view bytes) {
  while (!bytes.empty()) {
    if (fd_ < 0) return false;
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void FakeConnection::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

FakeServer::FakeServer(std::function<void(FakeConnection&)> script) {
  listen_fd_ = Listen(&port_);
  thread_ = std::thread([this, script = std::move(script)] {
    if (listen_fd_ < 0) return;
    if (!WaitReadable(listen_fd_,
                      SteadyClock::now() + std::chrono::seconds(10))) {
      return;
    }
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    FakeConnection c(fd);
    script(c);
  });
}

FakeServer::~FakeServer() {
  // Wakes a thread still waiting to accept: nobody is coming.
  if (listen_fd_ >= 0) shutdown(listen_fd_, SHUT_RDWR);
  Join();
  if (listen_fd_ >= 0) close(listen_fd_);
}

void FakeServer::Join() {
  if (thread_.joinable()) thread_.join();
}

std::optional<w::Logon> AcceptLogon(FakeConnection& c, const w::LogonAck& ack) {
  std::optional<w::Envelope> e = c.Read();
  if (!e.has_value() || !e->has_logon()) return std::nullopt;
  w::Envelope answer;
  *answer.mutable_logon_ack() = ack;
  if (!c.Write(answer)) return std::nullopt;
  return e->logon();
}

w::LogonAck TraderAck(uint32_t heartbeat_interval_ms) {
  w::LogonAck ack;
  ack.set_user("trader-a");
  ack.set_firm("FIRM-A");
  ack.set_account("FIRM-A");
  ack.set_role(w::ROLE_TRADER);
  ack.set_heartbeat_interval_ms(heartbeat_interval_ms);
  ack.set_exchange_seq(42);
  ack.set_exchange_time_ns(1'796'083'200'000'000'000);
  return ack;
}

std::string Frame(const w::Envelope& e) {
  std::string out;
  pb::AppendFrame(e, &out);
  return out;
}

uint16_t UnusedPort() {
  uint16_t port = 0;
  const int fd = Listen(&port);
  if (fd >= 0) close(fd);
  return port;
}

}  // namespace cfx::gateway::testing
