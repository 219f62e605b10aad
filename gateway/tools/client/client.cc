#include "gateway/tools/client/client.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gateway/asio.h"
#include "gateway/pb/frame.h"
#include "gateway/pb/logon_signature.h"

namespace cfx::gateway::client {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// How long one Send() may take before the connection is given up.
constexpr std::chrono::seconds kSendTimeout{10};
// What the server uses when a Logon asks for 0 (wire.proto).
constexpr std::chrono::milliseconds kDefaultHeartbeat{5000};
constexpr std::size_t kNonceBytes = 12;  // 24 hex characters

Status Unavailable(std::string m) {
  return Status(StatusCode::kUnavailable, std::move(m));
}
Status Timeout(std::string m) {
  return Status(StatusCode::kResourceExhausted, std::move(m));
}

std::string Millis(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

// 24 random hex characters. Uniqueness is what a nonce needs: without
// getentropy(), a generator seeded from the clock and the pid still gives
// that.
std::string RandomNonce() {
  uint8_t bytes[kNonceBytes];
  if (getentropy(bytes, sizeof bytes) != 0) {
    std::mt19937_64 gen(
        static_cast<uint64_t>(SteadyClock::now().time_since_epoch().count()) ^
        (static_cast<uint64_t>(getpid()) << 32));
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(gen());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * kNonceBytes);
  for (const uint8_t b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

// "AUTHENTICATION_FAILED" for LOGON_REJECT_REASON_AUTHENTICATION_FAILED.
std::string StripPrefix(const std::string& name, std::string_view prefix,
                        int value) {
  if (name.empty()) return std::to_string(value);
  if (name.compare(0, prefix.size(), prefix) == 0) {
    return name.substr(prefix.size());
  }
  return name;
}

// "logon_ack" for a LogonAck envelope.
std::string BodyName(const w::Envelope& e) {
  if (e.body_case() == w::Envelope::BODY_NOT_SET) return "an empty envelope";
  const auto* field = w::Envelope::descriptor()->FindFieldByNumber(
      static_cast<int>(e.body_case()));
  return field != nullptr ? field->name()
                          : "body " + std::to_string(e.body_case());
}

std::string WithText(std::string head, const std::string& text) {
  if (!text.empty()) head += ": " + text;
  return head;
}

}  // namespace

struct Client::Impl {
  asio::io_context io;
  tcp::socket socket{io};  // until connected; then in `stream`
  std::optional<Stream> stream;
  pb::FrameReader reader;
  std::string out;  // the frame Send() is writing
  bool connected = false;
  // Why the connection is gone, for calls after it closed.
  std::string close_reason = "not connected";
  // A read into reader.WritableSpace() is in flight. Invariant: reader is
  // compacted (Next()) only while no read is in flight.
  bool read_pending = false;
  error_code read_error;  // sticky: the read that ended the stream
  SteadyClock::time_point last_send = SteadyClock::now();
  std::chrono::milliseconds heartbeat{0};

  // Runs handlers until done() or `deadline`; returns done().
  template <typename Done>
  bool RunUntil(const Done& done, SteadyClock::time_point deadline) {
    while (!done()) {
      io.restart();
      if (SteadyClock::now() >= deadline) {
        io.poll();
        break;
      }
      io.run_one_until(deadline);
    }
    return done();
  }

  // Closes the socket and runs the aborted handlers, so none is left that
  // refers to a caller's stack.
  void CloseSocket(std::string reason) {
    if (connected) close_reason = std::move(reason);
    connected = false;
    error_code ignored;
    if (stream.has_value()) stream->Close();
    if (socket.is_open()) {
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
    }
    io.restart();
    io.run();
  }

  Status Write(const char* data, std::size_t n) {
    if (!connected) return Unavailable(close_reason);
    bool done = false;
    error_code ec;
    asio::async_write(*stream, asio::buffer(data, n),
                      [&](const error_code& e, std::size_t) {
                        ec = e;
                        done = true;
                      });
    if (!RunUntil([&] { return done; }, SteadyClock::now() + kSendTimeout)) {
      CloseSocket("send timed out; connection closed");
      return Unavailable(close_reason);
    }
    if (ec) {
      CloseSocket("connection lost: " + ec.message());
      return Unavailable(close_reason);
    }
    last_send = SteadyClock::now();
    return Status::Ok();
  }

  Status SendEnvelope(const w::Envelope& e) {
    if (!connected) return Unavailable(close_reason);
    out.clear();
    if (!pb::AppendFrame(e, &out)) {
      return InvalidArgumentError("a " + BodyName(e) + " of " +
                                  std::to_string(e.ByteSizeLong()) +
                                  " bytes does not fit in one frame");
    }
    return Write(out.data(), out.size());
  }

  void StartRead() {
    read_pending = true;
    stream->async_read_some(
        asio::buffer(reader.WritableSpace(), reader.WritableSize()),
        [this](const error_code& ec, std::size_t n) {
          read_pending = false;
          reader.Commit(n);
          if (ec) read_error = ec;
        });
  }

  // The next message, waiting until `deadline`; `timeout_message` is the
  // error when none arrives by then.
  Result<w::Envelope> ReceiveBefore(SteadyClock::time_point deadline,
                                    const std::string& timeout_message) {
    for (;;) {
      if (!read_pending) {
        std::string_view payload;
        if (reader.Next(&payload)) {
          w::Envelope e;
          if (!e.ParseFromArray(payload.data(),
                                static_cast<int>(payload.size()))) {
            return DataLossError("malformed frame from server: its " +
                                 std::to_string(payload.size()) +
                                 "-byte Envelope does not parse");
          }
          return e;
        }
        if (reader.error() != pb::FrameError::kNone) {
          CloseSocket("malformed frame from server: " +
                      std::string(pb::FrameErrorName(reader.error())) +
                      "; connection closed");
          return DataLossError(close_reason);
        }
        if (read_error) {
          const error_code ec = read_error;
          if (ec == asio::error::eof) {
            CloseSocket("connection closed by server");
          } else if (ec == asio::error::connection_reset) {
            CloseSocket("connection closed by server (" + ec.message() + ")");
          } else {
            CloseSocket("connection lost: " + ec.message());
          }
          return Unavailable(close_reason);
        }
        if (!connected) return Unavailable(close_reason);
        if (reader.WritableSize() == 0) {  // cannot happen with FrameReader
          CloseSocket("frame buffer full; connection closed");
          return InternalError(close_reason);
        }
        StartRead();
      }
      SteadyClock::time_point wake = deadline;
      if (heartbeat.count() > 0) wake = std::min(wake, last_send + heartbeat);
      if (RunUntil([this] { return !read_pending; }, wake)) continue;
      const SteadyClock::time_point now = SteadyClock::now();
      if (heartbeat.count() > 0 && now >= last_send + heartbeat) {
        w::Envelope hb;
        hb.mutable_heartbeat();
        CFX_RETURN_IF_ERROR(SendEnvelope(hb));
        continue;
      }
      if (now >= deadline) return Timeout(timeout_message);
    }
  }
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() { Close(); }

Result<std::unique_ptr<Client>> Client::Connect(
    const std::string& host, uint16_t port, std::chrono::milliseconds timeout,
    const std::string& source, const TlsClientOptions* tls) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  const std::string peer = host + ":" + std::to_string(port);
  auto impl = std::make_unique<Impl>();
  std::vector<tcp::endpoint> endpoints;
  error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  if (!ec) {
    endpoints.emplace_back(address, port);
  } else {
    tcp::resolver resolver(impl->io);
    const auto results = resolver.resolve(host, std::to_string(port), ec);
    if (ec) {
      return Unavailable("cannot resolve " + host + ": " + ec.message());
    }
    for (const auto& r : results) endpoints.push_back(r.endpoint());
  }
  if (!source.empty()) {
    const asio::ip::address from = asio::ip::make_address(source, ec);
    if (!ec) impl->socket.open(from.is_v4() ? tcp::v4() : tcp::v6(), ec);
    if (!ec) impl->socket.bind(tcp::endpoint(from, 0), ec);
    if (ec) return Unavailable("cannot bind " + source + ": " + ec.message());
  }
  bool done = false;
  error_code connect_ec;
  if (source.empty()) {
    asio::async_connect(impl->socket, endpoints,
                        [&](const error_code& e, const tcp::endpoint&) {
                          connect_ec = e;
                          done = true;
                        });
  } else {
    // The bound socket, to the first endpoint only: the range overload
    // reopens the socket for each endpoint, losing the bind.
    impl->socket.async_connect(endpoints.front(), [&](const error_code& e) {
      connect_ec = e;
      done = true;
    });
  }
  if (!impl->RunUntil([&] { return done; }, deadline)) {
    impl->CloseSocket("");
    return Unavailable("cannot connect to " + peer + ": timed out after " +
                       Millis(timeout));
  }
  if (connect_ec) {
    return Unavailable("cannot connect to " + peer + ": " +
                       connect_ec.message());
  }
  impl->socket.set_option(tcp::no_delay(true), ec);
  if (ec) {
    impl->CloseSocket("");
    return Unavailable("cannot set TCP_NODELAY on the connection to " + peer +
                       ": " + ec.message());
  }
  if (tls == nullptr) {
    impl->stream.emplace(std::move(impl->socket));
  } else {
    auto context = MakeTlsClientContext(
        *tls, tls->server_name.empty() ? host : tls->server_name);
    if (!context.has_value()) {
      impl->CloseSocket("");
      return Unavailable(context.error().message());
    }
    impl->stream.emplace(std::move(impl->socket), std::move(context).value());
    bool shaken = false;
    error_code handshake_ec;
    impl->stream->AsyncHandshake(ssl::stream_base::client,
                                 [&](const error_code& e) {
                                   handshake_ec = e;
                                   shaken = true;
                                 });
    if (!impl->RunUntil([&] { return shaken; }, deadline)) {
      impl->CloseSocket("");
      return Unavailable("TLS handshake with " + peer + " timed out after " +
                         Millis(timeout));
    }
    if (handshake_ec) {
      impl->CloseSocket("");
      return Unavailable("TLS handshake with " + peer +
                         " failed: " + TlsErrorText(handshake_ec));
    }
  }
  impl->connected = true;
  impl->close_reason.clear();
  impl->last_send = SteadyClock::now();
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Result<std::string> LogonSignatureOf(const LogonParams& p,
                                     int64_t timestamp_ns,
                                     std::string_view nonce) {
  if (!p.private_key.empty()) {
    return pb::Ed25519LogonSignature(p.private_key, p.api_key, timestamp_ns,
                                     nonce);
  }
  return pb::LogonSignature(p.secret, p.api_key, timestamp_ns, nonce);
}

Result<w::LogonAck> Client::Logon(const LogonParams& p,
                                  std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  const std::string nonce = p.nonce.empty() ? RandomNonce() : p.nonce;
  const int64_t ts =
      p.timestamp_ns != 0
          ? p.timestamp_ns
          : std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  w::Envelope e;
  w::Logon* logon = e.mutable_logon();
  logon->set_api_key(p.api_key);
  logon->set_timestamp_ns(ts);
  logon->set_nonce(nonce);
  Result<std::string> signature = LogonSignatureOf(p, ts, nonce);
  if (!signature.has_value()) return signature.error();
  logon->set_signature(std::move(signature).value());
  logon->set_heartbeat_interval_ms(p.heartbeat_interval_ms);
  logon->set_cancel_on_disconnect_opt_out(p.cancel_on_disconnect_opt_out);
  if (p.resume_after_seq.has_value()) {
    logon->set_resume_after_seq(*p.resume_after_seq);
    logon->set_resume_after_index(p.resume_after_index);
  }
  CFX_RETURN_IF_ERROR(impl_->SendEnvelope(e));
  const std::string timeout_message =
      "no answer to the logon within " + Millis(timeout);
  for (;;) {
    Result<w::Envelope> r = impl_->ReceiveBefore(deadline, timeout_message);
    if (!r.has_value()) return r.error();
    const w::Envelope& m = r.value();
    switch (m.body_case()) {
      case w::Envelope::kLogonAck: {
        const uint32_t ms = m.logon_ack().heartbeat_interval_ms() != 0
                                ? m.logon_ack().heartbeat_interval_ms()
                                : p.heartbeat_interval_ms;
        impl_->heartbeat =
            ms != 0 ? std::chrono::milliseconds(ms) : kDefaultHeartbeat;
        return m.logon_ack();
      }
      case w::Envelope::kLogonReject: {
        const w::LogonReject& rej = m.logon_reject();
        Status s = FailedPreconditionError(
            WithText("logon rejected: " +
                         StripPrefix(w::LogonRejectReason_Name(rej.reason()),
                                     "LOGON_REJECT_REASON_", rej.reason()),
                     rej.text()));
        impl_->CloseSocket(s.message());
        return s;
      }
      case w::Envelope::kSessionReject: {
        const w::SessionReject& rej = m.session_reject();
        return FailedPreconditionError(
            WithText("logon refused: " +
                         StripPrefix(w::SessionRejectReason_Name(rej.reason()),
                                     "SESSION_REJECT_REASON_", rej.reason()),
                     rej.text()));
      }
      case w::Envelope::kHeartbeat:
        break;
      default:
        return InternalError("the server sent " + BodyName(m) +
                             " before answering the logon");
    }
  }
}

Status Client::Send(const w::Envelope& e) { return impl_->SendEnvelope(e); }

Status Client::SendRaw(std::string_view bytes) {
  return impl_->Write(bytes.data(), bytes.size());
}

Result<w::Envelope> Client::Receive(std::chrono::milliseconds timeout) {
  return impl_->ReceiveBefore(
      SteadyClock::now() + timeout,
      "no message from the server within " + Millis(timeout));
}

Result<w::Envelope> Client::ReceiveUntil(
    const std::function<bool(const w::Envelope&)>& pred,
    std::chrono::milliseconds timeout,
    const std::function<void(const w::Envelope&)>& other) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  const std::string timeout_message =
      "no answer from the server within " + Millis(timeout);
  for (;;) {
    Result<w::Envelope> r = impl_->ReceiveBefore(deadline, timeout_message);
    if (!r.has_value() || pred(r.value())) return r;
    if (other) other(r.value());
  }
}

void Client::Close() {
  if (impl_ != nullptr) impl_->CloseSocket("connection closed by the client");
}

bool Client::connected() const { return impl_->connected; }

std::chrono::milliseconds Client::heartbeat_interval() const {
  return impl_->heartbeat;
}

}  // namespace cfx::gateway::client
