#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "cfx/wire/v1/wire.pb.h"
#include "gateway/pb/frame.h"

namespace cfx::gateway::testing {

// The server end of one loopback connection, driven by a test script with
// blocking POSIX calls, each bounded by a timeout.
//
// Thread: the FakeServer's thread.
class FakeConnection {
 public:
  explicit FakeConnection(int fd) : fd_(fd) {}
  ~FakeConnection() { Close(); }
  FakeConnection(const FakeConnection&) = delete;
  FakeConnection& operator=(const FakeConnection&) = delete;

  // The next frame's Envelope. nullopt on timeout, close, a bad frame header
  // or an Envelope that does not parse.
  std::optional<wire::v1::Envelope> Read(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Exactly `n` raw bytes (after any buffered frame bytes); "" on timeout
  // or close.
  std::string ReadRaw(std::size_t n, std::chrono::milliseconds timeout =
                                         std::chrono::seconds(10));
  // True when the peer closes within `timeout`; frames still arriving are
  // skipped.
  bool WaitForClose(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Ends the session as the gateway does: skips frames until a Logout,
  // answers it with a Logout and closes. False when no Logout came within
  // `timeout`, or the peer closed first.
  bool FinishSession(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));

  bool Write(const wire::v1::Envelope& e);
  bool WriteRaw(std::string_view bytes);
  void Close();

 private:
  // Reads what is available into reader_; false on timeout or close.
  bool Fill(std::chrono::steady_clock::time_point deadline);

  int fd_;
  pb::FrameReader reader_;
};

// Listens on 127.0.0.1 at a free port, accepts one connection and runs
// `script` on it in a thread. The destructor stops listening and joins the
// thread; Join() waits for the script (at most 10 s for a connection).
class FakeServer {
 public:
  explicit FakeServer(std::function<void(FakeConnection&)> script);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  uint16_t port() const { return port_; }
  // Waits for the script to finish.
  void Join();

 private:
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

// Reads the Logon and answers `ack`; returns the Logon, or nullopt when
// none came.
std::optional<wire::v1::Logon> AcceptLogon(FakeConnection& c,
                                           const wire::v1::LogonAck& ack);

// A LogonAck for trader-a with the given heartbeat interval.
wire::v1::LogonAck TraderAck(uint32_t heartbeat_interval_ms = 60'000);

// A frame holding `e`.
std::string Frame(const wire::v1::Envelope& e);

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
uint16_t UnusedPort();

}  // namespace cfx::gateway::testing
