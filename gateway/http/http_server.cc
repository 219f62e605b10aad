#include "gateway/http/http_server.h"

#include <algorithm>
#include <array>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/session/acceptor.h"

namespace cfx::gateway {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace internal {

namespace {

// Read buffer cap per connection: a full header and body plus pipelined
// requests behind them.
constexpr std::size_t kMaxReadBuffer = 64 * 1024;
// After the last response on a connection the server stops sending and
// reads (and drops) what the client still sends, for at most this long, so
// the client sees the response instead of a reset.
constexpr std::chrono::seconds kLingerTimeout{1};
constexpr std::size_t kMaxLingerBytes = 64 * 1024;

std::string_view View(beast::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace

// What the server holds of a connection, plain or TLS.
class HttpConnection {
 public:
  virtual ~HttpConnection() = default;
  // Closes the socket; pending operations complete with operation_aborted.
  virtual void Close() = 0;
};

// Shared by the server and its connections, so a handler that runs after
// the HttpServer is gone finds `stopped` set and touches nothing else.
struct HttpServerState : std::enable_shared_from_this<HttpServerState> {
  HttpServerState(asio::io_context& io_in, const ServerConfig& config,
                  const InstrumentTable& instruments, const MarketDataStore& md,
                  Metrics& metrics_in, std::function<HealthInfo()> health,
                  const HttpServerOptions& options_in)
      : api(config, instruments, md, metrics_in, std::move(health)),
        metrics(metrics_in),
        options(options_in),
        acceptor(io_in,
                 AcceptorHandlers{[this] { return sessions.size(); },
                                  [this](tcp::socket socket, uint64_t slot) {
                                    StartSession(std::move(socket), slot);
                                  },
                                  [this](tcp::socket& socket, Refusal why) {
                                    Refuse(socket, why);
                                  },
                                  [this](uint64_t slot) { Evict(slot); }},
                 AcceptorOptions{options_in.max_connections, options_in.idle}) {
  }

  void StartSession(tcp::socket socket, uint64_t slot);
  void Refuse(tcp::socket& socket, Refusal why);
  void Evict(uint64_t slot);

  HttpApi api;
  ServiceReads* reads = nullptr;  // set_index()
  Metrics& metrics;
  HttpServerOptions options;
  // By acceptor slot.
  std::unordered_map<uint64_t, std::weak_ptr<HttpConnection>> sessions;
  TlsFailureLog tls_failures;
  uint16_t port = 0;
  bool listening = false;
  bool stopped = false;
  // Last: its handlers read the members above. Closed by Stop(), and so
  // calls none after the state is gone.
  Acceptor acceptor;
};

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// One HTTP/1.1 connection: read a request, answer it, repeat while
// keep-alive. Kept alive by the shared_ptr in its pending handler.
// `S` is beast::tcp_stream (HTTP) or TlsStream (HTTPS: a handshake first).
template <typename S>
class HttpSession final : public HttpConnection,
                          public std::enable_shared_from_this<HttpSession<S>> {
 public:
  static constexpr bool kTls = std::is_same_v<S, TlsStream>;

  // Plain HTTP.
  HttpSession(tcp::socket socket, uint64_t slot,
              std::shared_ptr<HttpServerState> state)
    requires(!kTls)
      : stream_(std::move(socket)),
        buffer_(kMaxReadBuffer),
        slot_(slot),
        state_(std::move(state)) {
    Init();
  }
  // HTTPS with `context`.
  HttpSession(tcp::socket socket, std::shared_ptr<ssl::context> context,
              uint64_t slot, std::shared_ptr<HttpServerState> state)
    requires(kTls)
      : context_(std::move(context)),
        stream_(beast::tcp_stream(std::move(socket)), *context_),
        buffer_(kMaxReadBuffer),
        slot_(slot),
        state_(std::move(state)) {
    Init();
  }

  ~HttpSession() {
    state_->sessions.erase(slot_);
    state_->acceptor.Closed(slot_);
    if (!state_->stopped) {
      state_->metrics.SetHttpConnections(
          static_cast<int64_t>(state_->sessions.size()));
    }
  }

  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  // HTTPS: the handshake, then the first request, both within
  // first_request_timeout of the accept.
  void Start() {
    if constexpr (kTls) {
      Lowest().expires_at(first_deadline_);
      stream_.async_handshake(
          ssl::stream_base::server,
          [self = this->shared_from_this()](beast::error_code ec) {
            self->OnHandshake(ec);
          });
    } else {
      ReadRequest();
    }
  }

  void Close() override { Lowest().close(); }

 private:
  using std::enable_shared_from_this<HttpSession<S>>::shared_from_this;

  void Init() {
    beast::error_code ec;
    peer_ = Lowest().socket().remote_endpoint(ec).address();
    first_deadline_ = std::chrono::steady_clock::now() +
                      state_->options.first_request_timeout;
  }

  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  void OnHandshake(beast::error_code ec) {
    if (state_->stopped) return;
    state_->metrics.TlsHandshake(Metrics::Port::kHttp, !ec);
    if (ec) {
      const std::string line = state_->tls_failures.Failed("https", ec);
      if (!line.empty() && state_->options.log) state_->options.log(line);
      Close();
      return;
    }
    ReadRequest();
  }

  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(state_->options.header_limit);
    parser_->body_limit(state_->options.body_limit);
    if (requests_ == 0) {
      Lowest().expires_at(first_deadline_);
    } else {
      Lowest().expires_after(state_->options.idle_timeout);
    }
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->OnRead(ec);
        });
  }

  void OnRead(beast::error_code ec) {
    if (state_->stopped) return;
    // Busy until its answer is written: out of the idle budget.
    ++requests_;
    state_->acceptor.LoggedOn(slot_);
    if (ec) {
      // Clean close between requests, idle timeout, reset, or EOF in the
      // middle of a request: nothing to answer.
      if (ec == http::error::end_of_stream ||
          ec == http::error::partial_message ||
          ec.category() !=
              http::make_error_code(http::error::bad_target).category()) {
        Close();
        return;
      }
      // The request did not parse or is over a limit: answer, then close.
      unsigned status = 400;
      std::string_view message = "malformed request";
      if (ec == http::error::header_limit) {
        status = 431;
        message = "request header too large";
      } else if (ec == http::error::body_limit) {
        status = 413;
        message = "request body too large";
      } else if (ec == http::error::buffer_overflow) {
        message = "request too large";
      }
      std::string body = "{\"error\":\"";
      body.append(message).append("\"}");
      Send(HttpReply{status, std::string(kJsonContentType), std::move(body),
                     Metrics::Endpoint::kOther},
           11, /*keep_alive=*/false, /*head=*/false);
      return;
    }
    const auto& req = parser_->get();
    if (state_->api.ReadsIndex(View(req.target()))) {
      ReadIndex(std::string(View(req.method_string())),
                std::string(View(req.target())), req.version(),
                req.keep_alive(), req.method() == http::verb::head);
      return;
    }
    HttpReply reply =
        state_->api.Handle(View(req.method_string()), View(req.target()));
    Send(std::move(reply), req.version(), req.keep_alive(),
         req.method() == http::verb::head);
  }

  // An index request, answered once the index has caught up
  // (service_reads.h); the pending answer keeps the session alive, and is
  // dropped once the server stopped.
  void ReadIndex(std::string method, std::string target, unsigned version,
                 bool keep_alive, bool head) {
    const bool taken = ReadServices(
        state_->reads,
        [self = shared_from_this(), method, target, version, keep_alive, head] {
          if (self->state_->stopped) return;
          self->Send(self->state_->api.Handle(method, target), version,
                     keep_alive, head);
        });
    if (!taken) {
      Send(HttpReply{503, std::string(kJsonContentType),
                     "{\"error\":\"the exchange is busy, try again\"}",
                     Metrics::Endpoint::kOther},
           version, keep_alive, head);
    }
  }

  void Send(HttpReply reply, unsigned version, bool keep_alive, bool head) {
    state_->metrics.HttpRequest(reply.endpoint, static_cast<int>(reply.status));
    res_ = {};
    res_.version(version);
    res_.result(static_cast<http::status>(reply.status));
    res_.set(http::field::server, "cfx");
    res_.set(http::field::content_type, reply.content_type);
    res_.set(http::field::cache_control, "no-store");
    res_.set("X-Content-Type-Options", "nosniff");
    if (reply.status == 405) res_.set(http::field::allow, "GET, HEAD");
    // Pages are self-contained (inline SVG and style, no script): a browser
    // may load nothing else for them.
    if (reply.content_type == kHtmlContentType) {
      res_.set("Content-Security-Policy",
               "default-src 'none'; style-src 'unsafe-inline'");
    }
    res_.keep_alive(keep_alive);
    // HEAD: the headers of the GET answer, Content-Length included, and no
    // body.
    const std::size_t length = reply.body.size();
    if (!head) res_.body() = std::move(reply.body);
    res_.content_length(length);
    keep_alive_ = keep_alive;
    Lowest().expires_after(state_->options.idle_timeout);
    http::async_write(
        stream_, res_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) {
          self->OnWrite(ec);
        });
  }

  void OnWrite(beast::error_code ec) {
    if (state_->stopped) return;
    if (ec) {
      Close();
      return;
    }
    // Idle again; over its source's idle cap it is closed instead.
    if (keep_alive_ && state_->acceptor.Idle(slot_, peer_)) {
      ReadRequest();
      return;
    }
    Lowest().expires_after(kLingerTimeout);
    if constexpr (kTls) {
      // close_notify, then the peer's, within the linger time.
      stream_.async_shutdown(
          [self = shared_from_this()](beast::error_code) { self->Close(); });
      return;
    } else {
      beast::error_code ignored;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      if (ignored) {
        Close();
        return;
      }
      Linger();
    }
  }

  void Linger() {
    stream_.async_read_some(asio::buffer(linger_), [self = shared_from_this()](
                                                       beast::error_code ec,
                                                       std::size_t n) {
      self->lingered_ += n;
      if (ec || self->state_->stopped || self->lingered_ > kMaxLingerBytes) {
        self->Close();
        return;
      }
      self->Linger();
    });
  }

  std::shared_ptr<ssl::context> context_;  // HTTPS: before stream_
  S stream_;
  std::chrono::steady_clock::time_point first_deadline_{};
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  std::array<char, 1024> linger_{};
  std::size_t lingered_ = 0;
  bool keep_alive_ = false;
  uint64_t slot_ = 0;
  asio::ip::address peer_;
  uint64_t requests_ = 0;
  std::shared_ptr<HttpServerState> state_;
};

void HttpServerState::StartSession(tcp::socket socket, uint64_t slot) {
  if (options.tls != nullptr) {
    auto session = std::make_shared<HttpSession<TlsStream>>(
        std::move(socket), options.tls->Current(), slot, shared_from_this());
    sessions.emplace(slot, session);
    metrics.SetHttpConnections(static_cast<int64_t>(sessions.size()));
    session->Start();
    return;
  }
  auto session = std::make_shared<HttpSession<beast::tcp_stream>>(
      std::move(socket), slot, shared_from_this());
  sessions.emplace(slot, session);
  metrics.SetHttpConnections(static_cast<int64_t>(sessions.size()));
  session->Start();
}

// A connection over its source's idle cap gets "503 Service Unavailable",
// written without waiting (the socket is non-blocking and new: the answer
// fits its send buffer); one over the port's limit is closed silently, and
// so is every refused HTTPS one (a clear answer would not parse there).
void HttpServerState::Refuse(tcp::socket& socket, Refusal why) {
  metrics.HttpConnectionRefused();
  const bool source_full = why == Refusal::kSourceFull;
  metrics.ConnectionRefused(Metrics::Port::kHttp, source_full);
  if (!source_full || options.tls != nullptr) return;
  constexpr std::string_view kBody =
      "{\"error\":\"too many idle connections from this address\"}";
  std::string answer =
      "HTTP/1.1 503 Service Unavailable\r\nServer: cfx\r\n"
      "Content-Type: application/json\r\nConnection: close\r\n"
      "Content-Length: " +
      std::to_string(kBody.size()) + "\r\n\r\n";
  answer.append(kBody);
  beast::error_code ignored;
  socket.write_some(asio::buffer(answer), ignored);
}

// The oldest idle connection, closed to make room for a new one.
void HttpServerState::Evict(uint64_t slot) {
  auto it = sessions.find(slot);
  if (it == sessions.end()) return;
  if (auto session = it->second.lock()) {
    metrics.PreLogonEvicted(Metrics::Port::kHttp);
    session->Close();
  }
}

}  // namespace internal

HttpServerOptions HttpServerOptionsFor(const SessionPolicy& session) {
  HttpServerOptions options;
  options.first_request_timeout =
      std::chrono::milliseconds(session.pre_logon_timeout_ms);
  options.idle.max_pre_logon =
      std::min<std::size_t>(session.max_pre_logon, options.max_connections / 2);
  options.idle.max_pre_logon_per_source = session.max_pre_logon_per_source;
  return options;
}

HttpServer::HttpServer(asio::io_context& io, const ServerConfig& config,
                       const InstrumentTable& instruments,
                       const MarketDataStore& md, Metrics& metrics,
                       std::function<HealthInfo()> health,
                       const HttpServerOptions& options)
    : state_(std::make_shared<internal::HttpServerState>(
          io, config, instruments, md, metrics, std::move(health), options)) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Listen(const std::string& address, uint16_t port) {
  internal::HttpServerState& s = *state_;
  const std::string where =
      (address.find(':') != std::string::npos ? "[" + address + "]" : address) +
      ":" + std::to_string(port);
  if (s.stopped) {
    return FailedPreconditionError("http: listen on " + where + ": stopped");
  }
  if (s.listening) {
    return FailedPreconditionError("http: listen on " + where +
                                   ": already listening on port " +
                                   std::to_string(s.port));
  }
  beast::error_code ec;
  const asio::ip::address ip = asio::ip::make_address(address, ec);
  if (ec) {
    return InvalidArgumentError("http: listen on " + where +
                                ": not an IP address");
  }
  ec = s.acceptor.Listen(ip, port);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "http: listen on " + where + ": " + ec.message());
  }
  s.port = s.acceptor.port();
  s.listening = true;
  return Status::Ok();
}

void HttpServer::set_index(const index::IndexService* service,
                           ServiceReads* reads) {
  state_->api.set_index(service);
  state_->reads = reads;
}

uint16_t HttpServer::port() const { return state_->port; }

uint64_t HttpServer::accept_errors() const {
  return state_->acceptor.accept_errors();
}

void HttpServer::Stop() {
  internal::HttpServerState& s = *state_;
  if (s.stopped) return;
  s.stopped = true;
  s.acceptor.Close();
  // Close() may end a session's last reference; collect first so the map
  // is not modified while iterating.
  std::vector<std::shared_ptr<internal::HttpConnection>> live;
  live.reserve(s.sessions.size());
  for (auto& entry : s.sessions) {
    if (auto session = entry.second.lock()) live.push_back(std::move(session));
  }
  for (auto& session : live) session->Close();
  s.metrics.SetHttpConnections(0);
}

}  // namespace cfx::gateway
