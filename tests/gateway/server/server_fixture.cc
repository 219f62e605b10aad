#include "tests/gateway/server/server_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "gateway/pb/frame.h"
#include "gateway/pb/logon_signature.h"

namespace cfx::gateway::server_test {

using SteadyClock = std::chrono::steady_clock;

ServerConfig DemoConfig() {
  auto config = DefaultServerConfig();
  // The built-in config is checked by its own tests; a failure here is a
  // broken build, not a test outcome.
  if (!config.has_value()) std::abort();
  ServerConfig c = std::move(config).value();
  // Room for what tests do: the shipped limits (a million orders, four
  // million client order ids) cost a few hundred ms of page zeroing per
  // engine, and a server builds two (live, startup replay).
  c.engine.limits.max_orders = 1u << 16;
  c.engine.limits.max_client_order_ids = 1u << 16;
  return c;
}

// ---------------------------------------------------------------- server

TestServer::TestServer(ServerConfig config) : config_(std::move(config)) {}

TestServer::~TestServer() {
  if (running_) Stop().ok();
}

Status TestServer::Start() {
  if (running_) return FailedPreconditionError("already running");
  server_.reset();  // a restart: the old server holds the data dir's lock
  ServerOptions options;
  options.data_dir = dir_.Sub("data");
  options.simulated_clock = true;
  options.protobuf_port = 0;
  options.fix_port = 0;
  options.http_port = 0;
  options.fix_tls_port = 0;
  options.protobuf_tls_port = 0;
  options.https_port = 0;
  // One table seed for every test server, so that two servers fed the same
  // commands end with the same state hash, as two runs of the simulated
  // clock do.
  options.genesis_table_seed = exchange::SipKey{0x5eed'0000'0000'0001ULL,
                                                0x5eed'0000'0000'0002ULL};
  auto server = ExchangeServer::Start(config_, options);
  if (!server.has_value()) return server.error();
  server_ = std::move(server).value();
  running_ = true;
  return Status::Ok();
}

Status TestServer::Stop() {
  if (!running_) return Status::Ok();
  running_ = false;
  return server_->Stop();
}

// ---------------------------------------------------------------- logon

Result<w::ReferenceAck> Ask(client::Client& c, const w::Envelope& request,
                            uint64_t request_id) {
  if (Status st = c.Send(request); !st.ok()) return st;
  Result<w::Envelope> m = c.ReceiveUntil(
      [request_id](const w::Envelope& e) {
        return e.has_reference_ack() &&
               e.reference_ack().request_id() == request_id;
      },
      kWait);
  if (!m.has_value()) return m.error();
  return m.value().reference_ack();
}

Result<w::Envelope> AskAnswer(
    client::Client& c, const w::Envelope& request, uint64_t request_id,
    const std::function<bool(const w::Envelope&)>& is_answer) {
  if (Status st = c.Send(request); !st.ok()) return st;
  Result<w::Envelope> m = c.ReceiveUntil(
      [&](const w::Envelope& x) {
        return is_answer(x) || (x.has_reference_ack() &&
                                x.reference_ack().request_id() == request_id);
      },
      kWait);
  if (!m.has_value()) return m.error();
  if (m.value().has_reference_ack() &&
      m.value().reference_ack().request_id() == request_id) {
    return FailedPreconditionError(m.value().reference_ack().text());
  }
  return m;
}

w::Envelope AddTrader(const std::string& name, const std::string& comp_id,
                      uint64_t id) {
  w::Envelope e;
  w::UserAdd* m = e.mutable_user_add();
  m->set_request_id(id);
  m->set_name(name);
  m->set_firm("FIRM-A");
  m->set_role(w::ROLE_TRADER);
  m->set_account("FIRM-A");
  m->set_fix_sender_comp_id(comp_id);
  m->set_password("new-trader-password");
  return e;
}

client::LogonParams DemoLogon(std::string_view user) {
  client::LogonParams p;
  p.api_key = std::string(user);
  p.private_key = DemoPrivateKey(user);
  return p;
}

client::LogonParams DemoLogonOptOut(std::string_view user) {
  client::LogonParams p = DemoLogon(user);
  p.cancel_on_disconnect_opt_out = true;
  return p;
}

Result<std::unique_ptr<client::Client>> Connect(uint16_t port,
                                                const std::string& source) {
  return client::Client::Connect("127.0.0.1", port, kWait, source);
}

Result<std::unique_ptr<client::Client>> LogOn(uint16_t port,
                                              const client::LogonParams& params,
                                              w::LogonAck* ack) {
  auto c = Connect(port);
  if (!c.has_value()) return c.error();
  auto a = c.value()->Logon(params, kWait);
  if (!a.has_value()) return a.error();
  if (ack != nullptr) *ack = a.value();
  return std::move(c).value();
}

int64_t WallNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

w::Envelope LogonMessage(const client::LogonParams& p) {
  static uint64_t counter = 0;
  const std::string nonce = p.nonce.empty()
                                ? "test-nonce-" + std::to_string(++counter) +
                                      "-" + std::to_string(getpid())
                                : p.nonce;
  const int64_t ts = p.timestamp_ns != 0 ? p.timestamp_ns : WallNowNs();
  w::Envelope e;
  w::Logon* m = e.mutable_logon();
  m->set_api_key(p.api_key);
  m->set_timestamp_ns(ts);
  m->set_nonce(nonce);
  m->set_signature(client::LogonSignatureOf(p, ts, nonce).value());
  m->set_heartbeat_interval_ms(p.heartbeat_interval_ms);
  m->set_cancel_on_disconnect_opt_out(p.cancel_on_disconnect_opt_out);
  if (p.resume_after_seq.has_value()) {
    m->set_resume_after_seq(*p.resume_after_seq);
    m->set_resume_after_index(p.resume_after_index);
  }
  return e;
}

// ---------------------------------------------------------------- messages

w::Envelope NewOrder(uint64_t client_order_id, w::Side side, int64_t price,
                     int64_t quantity, const std::string& symbol) {
  w::Envelope e;
  w::NewOrder* m = e.mutable_new_order();
  m->set_client_order_id(client_order_id);
  m->set_symbol(symbol);
  m->set_side(side);
  m->set_order_type(w::ORDER_TYPE_LIMIT);
  m->set_time_in_force(w::TIME_IN_FORCE_GTC);
  m->set_price(price);
  m->set_quantity(quantity);
  return e;
}

w::Envelope Cancel(uint64_t client_order_id, uint64_t order_id) {
  w::Envelope e;
  e.mutable_cancel_order()->set_client_order_id(client_order_id);
  e.mutable_cancel_order()->set_order_id(order_id);
  return e;
}

w::Envelope Replace(uint64_t client_order_id, uint64_t order_id, int64_t price,
                    int64_t quantity) {
  w::Envelope e;
  w::ReplaceOrder* m = e.mutable_replace_order();
  m->set_client_order_id(client_order_id);
  m->set_order_id(order_id);
  m->set_price(price);
  m->set_quantity(quantity);
  return e;
}

w::Envelope MassCancel(uint64_t client_order_id, const std::string& symbol) {
  w::Envelope e;
  e.mutable_mass_cancel()->set_client_order_id(client_order_id);
  e.mutable_mass_cancel()->set_symbol(symbol);
  return e;
}

w::Envelope StatusRequest(uint64_t order_id) {
  w::Envelope e;
  e.mutable_order_status_request()->set_order_id(order_id);
  return e;
}

std::string RawFrame(uint32_t length, uint16_t magic,
                     std::string_view payload) {
  std::string out;
  out.push_back(static_cast<char>(length >> 24));
  out.push_back(static_cast<char>(length >> 16));
  out.push_back(static_cast<char>(length >> 8));
  out.push_back(static_cast<char>(length));
  out.push_back(static_cast<char>(magic >> 8));
  out.push_back(static_cast<char>(magic));
  out.append(payload);
  return out;
}

std::string Frame(std::string_view payload) {
  return RawFrame(static_cast<uint32_t>(payload.size() + pb::kFrameHeaderSize),
                  pb::kFrameMagic, payload);
}

std::string Frame(const w::Envelope& e) { return Frame(e.SerializeAsString()); }

std::optional<Position> PositionOf(const w::Envelope& e) {
  Position p;
  switch (e.body_case()) {
    case w::Envelope::kExecutionReport:
      p = {e.execution_report().seq(), e.execution_report().index()};
      break;
    case w::Envelope::kCancelReject:
      p = {e.cancel_reject().seq(), e.cancel_reject().index()};
      break;
    case w::Envelope::kMassCancelReport:
      p = {e.mass_cancel_report().seq(), e.mass_cancel_report().index()};
      break;
    default:
      return std::nullopt;
  }
  if (p.seq == 0) return std::nullopt;
  return p;
}

// ---------------------------------------------------------------- waiting

Result<w::Envelope> Next(client::Client& c, Millis timeout) {
  return c.ReceiveUntil([](const w::Envelope& e) { return !e.has_heartbeat(); },
                        timeout);
}

Result<w::ExecutionReport> AwaitReport(
    client::Client& c,
    const std::function<bool(const w::ExecutionReport&)>& pred,
    std::vector<w::Envelope>* others, Millis timeout) {
  auto r = c.ReceiveUntil(
      [&](const w::Envelope& e) {
        return e.has_execution_report() && pred(e.execution_report());
      },
      timeout,
      [&](const w::Envelope& e) {
        if (others != nullptr && !e.has_heartbeat()) others->push_back(e);
      });
  if (!r.has_value()) return r.error();
  return r.value().execution_report();
}

Result<w::ExecutionReport> SendOrder(client::Client& c,
                                     const w::Envelope& new_order,
                                     std::vector<w::Envelope>* others) {
  CFX_RETURN_IF_ERROR(c.Send(new_order));
  const uint64_t id = new_order.new_order().client_order_id();
  return AwaitReport(
      c,
      [id](const w::ExecutionReport& r) {
        return r.client_order_id() == id &&
               (r.exec_type() == w::EXEC_TYPE_NEW ||
                r.exec_type() == w::EXEC_TYPE_REJECTED);
      },
      others);
}

Result<w::ExecutionReport> QueryStatus(client::Client& c, uint64_t order_id,
                                       std::vector<w::Envelope>* others) {
  CFX_RETURN_IF_ERROR(c.Send(StatusRequest(order_id)));
  return AwaitReport(
      c,
      [order_id](const w::ExecutionReport& r) {
        return r.exec_type() == w::EXEC_TYPE_ORDER_STATUS &&
               r.order_id() == order_id;
      },
      others);
}

Result<w::IndexPrintList> QueryIndex(client::Client& c,
                                     const std::string& grade,
                                     uint64_t request_id) {
  w::Envelope e;
  w::IndexQuery* q = e.mutable_index_query();
  q->set_request_id(request_id);
  q->set_grade(grade);
  CFX_RETURN_IF_ERROR(c.Send(e));
  auto r = c.ReceiveUntil(
      [request_id](const w::Envelope& m) {
        return m.has_index_print_list() &&
               m.index_print_list().request_id() == request_id;
      },
      kWait);
  if (!r.has_value()) return r.error();
  return r.value().index_print_list();
}

Status SetClock(client::Client& admin, int64_t t) {
  w::Envelope e;
  e.mutable_clock_request()->set_set_time_ns(t);
  CFX_RETURN_IF_ERROR(admin.Send(e));
  auto report = admin.ReceiveUntil(
      [](const w::Envelope& x) {
        return x.has_clock_report() || x.has_session_reject();
      },
      kWait);
  if (!report.has_value()) return report.error();
  if (!report.value().has_clock_report()) {
    return FailedPreconditionError(Describe(report.value()));
  }
  return Status::Ok();
}

Result<w::SettlementStatus> AwaitSettlementStatus(
    client::Client& c,
    const std::function<bool(const w::SettlementStatus&)>& pred) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  w::SettlementStatus last;
  uint64_t id = 0x5e7700;
  while (std::chrono::steady_clock::now() < deadline) {
    w::Envelope e;
    e.mutable_settlement_status_request()->set_request_id(++id);
    CFX_RETURN_IF_ERROR(c.Send(e));
    auto s = c.ReceiveUntil(
        [id](const w::Envelope& x) {
          return (x.has_settlement_status() &&
                  x.settlement_status().request_id() == id) ||
                 x.has_reference_ack();
        },
        kWait);
    if (!s.has_value()) return s.error();
    if (!s.value().has_settlement_status()) {
      return FailedPreconditionError(Describe(s.value()));
    }
    last = s.value().settlement_status();
    if (pred(last)) return last;
  }
  return Status(
      StatusCode::kResourceExhausted,
      "the settlement status never matched; last: " + last.ShortDebugString());
}

Status Barrier(client::Client& c, std::vector<w::Envelope>* others) {
  for (int round = 0; round < 2; ++round) {
    CFX_RETURN_IF_ERROR(c.Send(StatusRequest(kBarrierOrderId)));
    auto r = c.ReceiveUntil(
        [](const w::Envelope& e) {
          return (e.has_execution_report() &&
                  e.execution_report().exec_type() ==
                      w::EXEC_TYPE_ORDER_STATUS &&
                  e.execution_report().order_id() == kBarrierOrderId) ||
                 (e.has_session_reject() &&
                  e.session_reject().message_type() == "order_status_request");
        },
        kWait,
        [&](const w::Envelope& e) {
          if (others != nullptr && !e.has_heartbeat()) others->push_back(e);
        });
    if (!r.has_value()) return r.error();
  }
  return Status::Ok();
}

Result<w::ClockReport> AdminClock(uint16_t port,
                                  std::optional<int64_t> set_to) {
  auto admin = LogOn(port, DemoLogon("admin"));
  if (!admin.has_value()) return admin.error();
  w::Envelope e;
  if (set_to.has_value()) {
    e.mutable_clock_request()->set_set_time_ns(*set_to);
  } else {
    e.mutable_clock_request()->set_read(true);
  }
  CFX_RETURN_IF_ERROR(admin.value()->Send(e));
  auto r = admin.value()->ReceiveUntil(
      [](const w::Envelope& x) {
        return x.has_clock_report() || x.has_session_reject();
      },
      kWait);
  if (!r.has_value()) return r.error();
  if (!r.value().has_clock_report()) {
    return FailedPreconditionError(Describe(r.value()));
  }
  return r.value().clock_report();
}

Status AwaitClose(client::Client& c, std::vector<w::Envelope>* before,
                  Millis timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - SteadyClock::now());
    if (left.count() <= 0) {
      return Status(StatusCode::kResourceExhausted,
                    "the connection is still open");
    }
    auto r = c.Receive(left);
    if (r.has_value()) {
      if (before != nullptr && !r.value().has_heartbeat()) {
        before->push_back(r.value());
      }
      continue;
    }
    if (r.error().code() == StatusCode::kUnavailable) return Status::Ok();
    if (r.error().code() != StatusCode::kDataLoss) return r.error();
  }
}

bool IsReport(const w::Envelope& e, w::ExecType type,
              uint64_t client_order_id) {
  return e.has_execution_report() && e.execution_report().exec_type() == type &&
         e.execution_report().client_order_id() == client_order_id;
}

std::string Describe(const w::Envelope& e) { return e.ShortDebugString(); }

// ---------------------------------------------------------------- raw socket

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<RawConnection>> RawConnection::Connect(
    uint16_t port, const char* source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return Status(StatusCode::kUnavailable,
                  std::string("socket: ") + std::strerror(errno));
  }
  sockaddr_in from{};
  from.sin_family = AF_INET;
  if (source != nullptr && (::inet_pton(AF_INET, source, &from.sin_addr) != 1 ||
                            ::bind(fd, reinterpret_cast<const sockaddr*>(&from),
                                   sizeof from) != 0)) {
    const int err = errno;
    ::close(fd);
    return Status(StatusCode::kUnavailable,
                  std::string("bind ") + source + ": " + std::strerror(err));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) !=
      0) {
    const int err = errno;
    ::close(fd);
    return Status(StatusCode::kUnavailable,
                  std::string("connect: ") + std::strerror(err));
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return std::unique_ptr<RawConnection>(new RawConnection(fd));
}

Status RawConnection::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kUnavailable,
                    std::string("send: ") + std::strerror(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

Result<w::Envelope> RawConnection::Read(Millis timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    if (buffer_.size() >= pb::kFrameHeaderSize) {
      std::size_t total = 0;
      const pb::FrameError fe = pb::ParseFrameHeader(
          reinterpret_cast<const uint8_t*>(buffer_.data()), &total);
      if (fe != pb::FrameError::kNone) {
        return DataLossError(std::string(pb::FrameErrorName(fe)));
      }
      if (buffer_.size() >= total) {
        w::Envelope e;
        const bool ok =
            e.ParseFromArray(buffer_.data() + pb::kFrameHeaderSize,
                             static_cast<int>(total - pb::kFrameHeaderSize));
        buffer_.erase(0, total);
        if (!ok) return DataLossError("an Envelope that does not parse");
        return e;
      }
    }
    if (closed_) {
      return Status(StatusCode::kUnavailable, "connection closed by server");
    }
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - SteadyClock::now());
    if (left.count() <= 0) {
      return Status(StatusCode::kResourceExhausted, "nothing received");
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR) {
      return Status(StatusCode::kUnavailable,
                    std::string("poll: ") + std::strerror(errno));
    }
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      closed_ = true;
    }
  }
}

}  // namespace cfx::gateway::server_test
