#pragma once

// Shared helpers for tests that run the whole exchange in process
// (ExchangeServer) and talk to it over loopback with the protobuf protocol:
// a server on a temp data dir with ephemeral ports, logons as the demo users,
// message builders, and waits that are bounded by a deadline (never sleeps).

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/status.h"
#include "gateway/config/demo_identities.h"
#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"
#include "gateway/tools/client/client.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {

namespace w = cfx::wire::v1;
using Millis = std::chrono::milliseconds;

// The bound on any single wait for an answer that must come. Generous: a
// passing test never waits this long.
inline constexpr Millis kWait{10'000};
// The futures every test trades: XB2SZ6, tick 100, reference $5.80.
inline constexpr const char* kSymbol = "XB2SZ6";
inline constexpr int64_t kPrice = 58'000;  // $5.80
inline constexpr int64_t kTick = 100;      // $0.01
// An order id no test creates: status requests for it are pure round trips.
inline constexpr uint64_t kBarrierOrderId = 0x7fff'ffff'ffff'fff0ull;

// DefaultServerConfig(), the demo market and users, with the engine's
// order and client-order-id tables cut to 65,536 entries.
ServerConfig DemoConfig();

// An in-process ExchangeServer on its own temp data dir, on the simulated
// clock (so reports are identical across runs) and on ephemeral ports.
// Start() after Stop() restarts on the same data dir.
class TestServer {
 public:
  explicit TestServer(ServerConfig config = DemoConfig());
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  Status Start();
  // Stops and keeps the final state hash and seq readable.
  Status Stop();
  bool running() const { return running_; }

  ExchangeServer& server() { return *server_; }
  uint16_t port() const { return server_->protobuf_port(); }
  uint16_t http_port() const { return server_->http_port(); }
  uint16_t fix_port() const { return server_->fix_port(); }
  // The TLS listeners (config network.tls); 0 when not open.
  uint16_t fix_tls_port() const { return server_->fix_tls_port(); }
  uint16_t protobuf_tls_port() const { return server_->protobuf_tls_port(); }
  uint16_t https_port() const { return server_->https_port(); }
  uint64_t commands_submitted() const { return server_->commands_submitted(); }
  // REQUIRES: stopped.
  uint64_t state_hash() const { return server_->state_hash(); }
  uint64_t last_seq() const { return server_->last_seq().value; }
  const ServerConfig& config() const { return config_; }
  const std::string& data_dir() const { return dir_.path(); }

 private:
  cfx::testing::TempDir dir_;
  ServerConfig config_;
  std::unique_ptr<ExchangeServer> server_;
  bool running_ = false;
};

// The ReferenceAck of `request` (sent on `c`), whose request id is
// `request_id`.
Result<w::ReferenceAck> Ask(client::Client& c, const w::Envelope& request,
                            uint64_t request_id);

// Sends `request` and returns its answer, the first message for which
// `is_answer` holds; a ReferenceAck of `request_id` (a refusal) comes back
// as a kFailedPrecondition error with the ack's text.
Result<w::Envelope> AskAnswer(
    client::Client& c, const w::Envelope& request, uint64_t request_id,
    const std::function<bool(const w::Envelope&)>& is_answer);

// A UserAdd of trader `name` of FIRM-A on account FIRM-A, password
// "new-trader-password"; FIX SenderCompID `comp_id` (empty: no FIX access).
w::Envelope AddTrader(const std::string& name, const std::string& comp_id,
                      uint64_t id);

// Logon parameters of a demo user: API key = user name, signed with its
// published Ed25519 key (DemoPrivateKey). Heartbeat: the server default.
client::LogonParams DemoLogon(std::string_view user);
// The same, keeping resting orders when the session ends.
client::LogonParams DemoLogonOptOut(std::string_view user);

// From the local address `source` (e.g. "127.0.0.2") when it is not empty.
Result<std::unique_ptr<client::Client>> Connect(uint16_t port,
                                                const std::string& source = "");
// Connects and logs on; the LogonAck goes to *ack when given.
Result<std::unique_ptr<client::Client>> LogOn(uint16_t port,
                                              const client::LogonParams& params,
                                              w::LogonAck* ack = nullptr);

// The wall clock, in ns since the epoch: what Logon timestamps are checked
// against.
int64_t WallNowNs();

// A signed Logon envelope as the client library would send it.
w::Envelope LogonMessage(const client::LogonParams& params);

// ---------------------------------------------------------------- messages

// A GTC limit order in kSymbol unless told otherwise.
w::Envelope NewOrder(uint64_t client_order_id, w::Side side, int64_t price,
                     int64_t quantity, const std::string& symbol = kSymbol);
w::Envelope Cancel(uint64_t client_order_id, uint64_t order_id);
w::Envelope Replace(uint64_t client_order_id, uint64_t order_id, int64_t price,
                    int64_t quantity);
w::Envelope MassCancel(uint64_t client_order_id, const std::string& symbol);
w::Envelope StatusRequest(uint64_t order_id);

// One frame: [u32 BE length][u16 BE magic] + payload. RawFrame writes the
// header as given (malformed frames); Frame computes it.
std::string RawFrame(uint32_t length, uint16_t magic, std::string_view payload);
std::string Frame(std::string_view payload);
std::string Frame(const w::Envelope& e);

// ---------------------------------------------------------------- positions

// A sequenced message's position (docs/protocol.md, "Server sequence
// numbers").
struct Position {
  uint64_t seq = 0;
  uint32_t index = 0;
  friend auto operator<=>(const Position&, const Position&) = default;
};
// The position of an ExecutionReport, CancelReject or MassCancelReport with
// a nonzero seq; nullopt for anything else.
std::optional<Position> PositionOf(const w::Envelope& e);

// ---------------------------------------------------------------- waiting

// The next message that is not a Heartbeat.
Result<w::Envelope> Next(client::Client& c, Millis timeout = kWait);

// Receives until an ExecutionReport for which pred is true. Everything else
// received meanwhile is appended to *others when given.
Result<w::ExecutionReport> AwaitReport(
    client::Client& c,
    const std::function<bool(const w::ExecutionReport&)>& pred,
    std::vector<w::Envelope>* others = nullptr, Millis timeout = kWait);

// Sends a NewOrder and waits for its acknowledgement: the ExecutionReport NEW
// or REJECTED with its client_order_id. Other messages go to *others.
Result<w::ExecutionReport> SendOrder(
    client::Client& c, const w::Envelope& new_order,
    std::vector<w::Envelope>* others = nullptr);

// An IndexQuery round trip for `grade` (the latest revision of each day):
// the first IndexPrintList answering `request_id`. The gateway answers once
// the services have applied every event handed to them, so the list
// follows everything sequenced before the query.
Result<w::IndexPrintList> QueryIndex(client::Client& c,
                                     const std::string& grade,
                                     uint64_t request_id);

// An OrderStatusRequest round trip.
Result<w::ExecutionReport> QueryStatus(
    client::Client& c, uint64_t order_id,
    std::vector<w::Envelope>* others = nullptr);

// Two request/answer round trips on `c`, in any session state. Afterwards
// the server has fully handled every frame it read (on any connection)
// before the barrier started, and commands_submitted() counts the commands
// they caused. Messages other than the barrier's answers go to *others.
Status Barrier(client::Client& c, std::vector<w::Envelope>* others = nullptr);

// Logs on as the admin and reads the exchange clock, after moving the
// simulated clock to `set_to` (ns since the epoch) when given. A
// SessionReject (e.g. a time in the past) is kFailedPrecondition with its
// text.
Result<w::ClockReport> AdminClock(uint16_t port,
                                  std::optional<int64_t> set_to = std::nullopt);

// Moves the simulated clock to `t` (ns since the epoch) with a ClockRequest
// on the admin's session `admin`, and waits for its ClockReport.
Status SetClock(client::Client& admin, int64_t t);

// Asks for the SettlementStatus on `c` (a clearing member's or the
// admin's session) until `pred` holds; kResourceExhausted after kWait.
// Each round trip paces the next.
Result<w::SettlementStatus> AwaitSettlementStatus(
    client::Client& c,
    const std::function<bool(const w::SettlementStatus&)>& pred);

// Waits until the server closes the connection. Messages received before
// the close go to *before when given. Returns kResourceExhausted when the
// connection is still open after `timeout`.
Status AwaitClose(client::Client& c, std::vector<w::Envelope>* before = nullptr,
                  Millis timeout = kWait);

// Is `e` an ExecutionReport of type `type` for `client_order_id`?
bool IsReport(const w::Envelope& e, w::ExecType type, uint64_t client_order_id);

// ---------------------------------------------------------------- raw socket

// A bare blocking TCP connection with deadline-bounded reads: for what the
// client library does on its own and a test must not (it sends heartbeats
// while it waits).
class RawConnection {
 public:
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // From the local IPv4 address `source` (e.g. "127.0.0.2") when given.
  static Result<std::unique_ptr<RawConnection>> Connect(
      uint16_t port, const char* source = nullptr);

  Status Write(std::string_view bytes);
  // The next frame. kUnavailable once the peer closed; kResourceExhausted
  // when nothing arrived within `timeout`.
  Result<w::Envelope> Read(Millis timeout = kWait);

 private:
  explicit RawConnection(int fd) : fd_(fd) {}
  int fd_;
  std::string buffer_;
  bool closed_ = false;
};

// Debug text of an envelope, for failure messages.
std::string Describe(const w::Envelope& e);

}  // namespace cfx::gateway::server_test
