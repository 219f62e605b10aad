// Connection slots (docs/config.md `session`): idle connections that never
// log on cannot keep a genuine client out of the FIX, protobuf or HTTP port,
// and a source address over its pre-logon cap is refused with a reason.
// Sources are loopback addresses 127.0.0.x (all of 127/8 is loopback on
// Linux).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "gateway/pb/frame.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

using Clock = std::chrono::steady_clock;

// The bound on a genuine client's answer. Generous: a passing test never
// waits this long.
constexpr Millis kGenuineDeadline{5'000};

// A connected TCP socket from a chosen loopback source; closed on
// destruction.
class Socket {
 public:
  Socket(const std::string& source, uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) == 0 &&
        ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
  }
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(Socket&& o) noexcept : fd_(o.fd_), connected_(o.connected_) {
    o.fd_ = -1;
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  Socket& operator=(Socket&&) = delete;

  bool connected() const { return connected_; }

  bool Send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n =
          ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads until `done(bytes)`, the peer closes, or `deadline` passes;
  // returns what arrived.
  template <typename Done>
  std::string ReadUntil(Clock::time_point deadline, Done done) {
    std::string in;
    while (!done(in)) {
      const auto left =
          std::chrono::duration_cast<Millis>(deadline - Clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      in.append(buf, static_cast<std::size_t>(n));
    }
    return in;
  }

  // Everything until the peer closes (or `deadline`).
  std::string ReadToClose(Clock::time_point deadline) {
    return ReadUntil(deadline, [](const std::string&) { return false; });
  }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
};

// One FIX message with BodyLength and CheckSum: `body` holds the fields
// after 9 (35 first), each ending in SOH.
std::string FixMessage(const std::string& body) {
  std::string m =
      "8=FIX.4.4\x01"
      "9=" +
      std::to_string(body.size()) + "\x01" + body;
  unsigned sum = 0;
  for (unsigned char c : m) sum += c;
  char trailer[16];
  std::snprintf(trailer, sizeof trailer, "10=%03u\x01", sum % 256);
  return m + trailer;
}

std::string FixLogon(const std::string& comp_id, const std::string& user) {
  char now[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(now, sizeof now, "%Y%m%d-%H:%M:%S", &tm);
  return FixMessage(
      "35=A\x01"
      "34=1\x01"
      "49=" +
      comp_id +
      "\x01"
      "52=" +
      now +
      "\x01"
      "56=CFX\x01"
      "98=0\x01"
      "108=30\x01"
      "141=Y\x01"
      "553=" +
      user +
      "\x01"
      "554=demo-" +
      user + "\x01");
}

// The first Envelope of a protobuf byte stream, if complete.
bool FirstEnvelope(const std::string& in, w::Envelope* e) {
  if (in.size() < 6) return false;
  std::size_t total = 0;
  if (pb::ParseFrameHeader(reinterpret_cast<const uint8_t*>(in.data()),
                           &total) != pb::FrameError::kNone ||
      in.size() < total) {
    return false;
  }
  return e->ParseFromArray(in.data() + 6, static_cast<int>(total - 6));
}

bool HasHttpHead(const std::string& in) {
  return in.find("\r\n\r\n") != std::string::npos;
}

// Enough descriptors for the flood and the server's side of it.
void RaiseDescriptorLimit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= 4096) return;
  r.rlim_cur = r.rlim_max < 4096 ? r.rlim_max : 4096;
  ::setrlimit(RLIMIT_NOFILE, &r);
}

// The demo config; connections not logged on are never timed out during
// the test (so what lets the genuine client in is the budget, not the
// timeout), with the default budget and per-source cap.
ServerConfig SlotsConfig() {
  ServerConfig c = DemoConfig();
  c.session.pre_logon_timeout_ms = 600'000;
  return c;
}

class ConnectionSlotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RaiseDescriptorLimit();
    ASSERT_TRUE(server_.Start().ok());
  }

  std::string Scrape() {
    Socket s("127.0.0.250", server_.http_port());
    EXPECT_TRUE(s.connected());
    s.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return s.ReadToClose(Clock::now() + kWait);
  }

  TestServer server_{SlotsConfig()};
};

// 300 idle connections to each port: 100 from 127.0.0.1 (over its cap) and
// 200 from 127.0.0.2-41; then a FIX logon, a protobuf logon and an HTTP GET
// from 127.0.0.200 are each answered.
TEST_F(ConnectionSlotsTest, IdleFloodDoesNotKeepGenuineClientsOut) {
  std::vector<Socket> flood;
  flood.reserve(900);
  for (uint16_t port :
       {server_.fix_port(), server_.port(), server_.http_port()}) {
    for (int i = 0; i < 300; ++i) {
      const std::string source =
          i < 100 ? "127.0.0.1" : "127.0.0." + std::to_string(2 + i % 40);
      flood.emplace_back(source, port);
      ASSERT_TRUE(flood.back().connected()) << "connection " << i;
    }
  }

  Socket fix("127.0.0.200", server_.fix_port());
  ASSERT_TRUE(fix.connected());
  ASSERT_TRUE(fix.Send(FixLogon("TRADER_A", "trader-a")));
  const std::string fix_in =
      fix.ReadUntil(Clock::now() + kGenuineDeadline, [](const std::string& in) {
        return in.find(
                   "\x01"
                   "35=A\x01") != std::string::npos;
      });
  EXPECT_NE(fix_in.find("\x01"
                        "35=A\x01"),
            std::string::npos)
      << fix_in;

  Socket protobuf("127.0.0.200", server_.port());
  ASSERT_TRUE(protobuf.connected());
  ASSERT_TRUE(protobuf.Send(Frame(LogonMessage(DemoLogon("trader-b")))));
  w::Envelope ack;
  protobuf.ReadUntil(Clock::now() + kGenuineDeadline, [&ack](const std::string& in) {
    return FirstEnvelope(in, &ack);
  });
  EXPECT_TRUE(ack.has_logon_ack()) << ack.ShortDebugString();

  Socket http("127.0.0.200", server_.http_port());
  ASSERT_TRUE(http.connected());
  ASSERT_TRUE(http.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string http_in =
      http.ReadUntil(Clock::now() + kGenuineDeadline, HasHttpHead);
  EXPECT_EQ(http_in.rfind("HTTP/1.1 200 ", 0), 0u) << http_in;

  // The flood went through both limits on every port: the cap of
  // 127.0.0.1 refused some, and the full budget evicted the oldest.
  const std::string metrics = Scrape();
  for (const char* port : {"fix", "protobuf", "http"}) {
    const std::string p(port);
    EXPECT_EQ(metrics.find("cfx_pre_logon_evicted_total{port=\"" + p + "\"} 0"),
              std::string::npos)
        << p << "\n"
        << metrics;
    EXPECT_EQ(metrics.find("cfx_connections_refused_total{port=\"" + p +
                           "\",reason=\"source_full\"} 0"),
              std::string::npos)
        << p << "\n"
        << metrics;
  }
}

// The 9th connection from one address that has 8 not logged on: protobuf
// answers LogonReject TOO_MANY_CONNECTIONS, HTTP 503, FIX closes; each is
// counted.
TEST_F(ConnectionSlotsTest, ConnectionOverTheSourceCapIsRefusedWithAReason) {
  const std::size_t cap = server_.config().session.max_pre_logon_per_source;
  std::vector<Socket> held;
  for (uint16_t port :
       {server_.fix_port(), server_.port(), server_.http_port()}) {
    for (std::size_t i = 0; i < cap; ++i) {
      held.emplace_back("127.0.0.9", port);
      ASSERT_TRUE(held.back().connected());
    }
  }
  const auto deadline = Clock::now() + kWait;

  Socket protobuf("127.0.0.9", server_.port());
  ASSERT_TRUE(protobuf.connected());
  w::Envelope reject;
  protobuf.ReadUntil(deadline, [&reject](const std::string& in) {
    return FirstEnvelope(in, &reject);
  });
  ASSERT_TRUE(reject.has_logon_reject()) << reject.ShortDebugString();
  EXPECT_EQ(reject.logon_reject().reason(),
            w::LOGON_REJECT_REASON_TOO_MANY_CONNECTIONS);
  protobuf.ReadToClose(deadline);
  EXPECT_TRUE(protobuf.closed());

  Socket http("127.0.0.9", server_.http_port());
  ASSERT_TRUE(http.connected());
  const std::string answer = http.ReadToClose(deadline);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503 ", 0), 0u) << answer;
  EXPECT_TRUE(http.closed());

  Socket fix("127.0.0.9", server_.fix_port());
  ASSERT_TRUE(fix.connected());
  EXPECT_EQ(fix.ReadToClose(deadline), "");
  EXPECT_TRUE(fix.closed());

  const std::string metrics = Scrape();
  for (const char* port : {"fix", "protobuf", "http"}) {
    EXPECT_NE(
        metrics.find(std::string("cfx_connections_refused_total{port=\"") +
                     port + "\",reason=\"source_full\"} 1"),
        std::string::npos)
        << port << "\n"
        << metrics;
  }
}

// Another address is not affected by one address at its cap.
TEST_F(ConnectionSlotsTest, SourceCapIsPerAddress) {
  const std::size_t cap = server_.config().session.max_pre_logon_per_source;
  std::vector<Socket> held;
  for (std::size_t i = 0; i < cap + 4; ++i) {
    held.emplace_back("127.0.0.10", server_.port());
  }
  Socket protobuf("127.0.0.11", server_.port());
  ASSERT_TRUE(protobuf.connected());
  ASSERT_TRUE(protobuf.Send(Frame(LogonMessage(DemoLogon("trader-a")))));
  w::Envelope ack;
  protobuf.ReadUntil(Clock::now() + kGenuineDeadline, [&ack](const std::string& in) {
    return FirstEnvelope(in, &ack);
  });
  EXPECT_TRUE(ack.has_logon_ack()) << ack.ShortDebugString();
}

}  // namespace
}  // namespace cfx::gateway::server_test
