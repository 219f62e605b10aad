#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "exchange/core/status.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/http/http_api.h"
#include "gateway/md/market_data.h"
#include "gateway/session/connection_limiter.h"
#include "gateway/session/metrics.h"
#include "gateway/session/service_reads.h"
#include "gateway/session/tls.h"

namespace cfx::index {
class IndexService;
}  // namespace cfx::index

namespace cfx::gateway {

struct HttpServerOptions {
  // Open connections at most; one more is accepted and closed at once.
  // Default: 64.
  std::size_t max_connections = 64;
  // A keep-alive connection with no complete next request (or a response
  // write that does not finish) for this long is closed. Default: 30 s.
  std::chrono::milliseconds idle_timeout{30'000};
  // A new connection's first request must be complete within this long.
  // Default: 3 s (session.pre_logon_timeout_ms).
  std::chrono::milliseconds first_request_timeout{3'000};
  // Idle connections (no request read yet, or between keep-alive requests)
  // at most: when full, the oldest idle one is closed for a newcomer; and
  // per source address: one more is refused with 503. Default: 32 and 8.
  ConnectionLimits idle{32, 8};
  // Request header and body limits, in bytes. Default: 8 KiB each.
  uint32_t header_limit = 8 * 1024;
  uint64_t body_limit = 8 * 1024;
  // Set: HTTPS, with this context's current certificate for each new
  // connection; the handshake counts against first_request_timeout and the
  // idle budget. Must outlive the server. Default: null (plain HTTP).
  TlsServerContext* tls = nullptr;
  // Where a failed TLS handshake is logged (rate-limited); may be empty.
  std::function<void(const std::string&)> log{};
};

// The exchange's HTTP port: the defaults above, with the first-request
// deadline (pre_logon_timeout_ms) and the idle limits (max_pre_logon, at
// most half of max_connections, and max_pre_logon_per_source) of `session`.
HttpServerOptions HttpServerOptionsFor(const SessionPolicy& session);

namespace internal {
struct HttpServerState;
}  // namespace internal

// The read-only HTTP port (DESIGN.md §6, docs/http.md): market data JSON,
// the CFX index (JSON and a chart page), /healthz and /metrics, over
// HTTP/1.1 with keep-alive, on Boost.Beast; HTTPS when options.tls is set.
//
// Connection limits: see HttpServerOptions; a refused connection gets
// "503 Service Unavailable" and is closed.
//
// Requests are answered by HttpApi. A request that does not parse, or whose
// header or body is over the limit, gets 400 / 431 / 413 and the connection
// is closed; nothing a client sends can throw or crash the server.
//
// Thread: every method, and every handler, runs on the thread that runs
// `io` (the gateway thread); no locks. `io`, `config`, `instruments`, `md`
// and `metrics` must outlive the server; `health` is called on each /healthz
// request.
// Memory: per connection, a read buffer (at most 64 KiB) and one response.
class HttpServer {
 public:
  HttpServer(asio::io_context& io, const ServerConfig& config,
             const InstrumentTable& instruments, const MarketDataStore& md,
             Metrics& metrics, std::function<HealthInfo()> health,
             const HttpServerOptions& options = {});
  // Stop()s.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Serves the CFX index from `service` (HttpApi::set_index); call before
  // Listen(). With `reads` (service_reads.h), an index request is answered
  // through it, once the index has applied every event the gateway has
  // seen (503 when its queue is full). Both must outlive the server.
  void set_index(const index::IndexService* service,
                 ServiceReads* reads = nullptr);

  // Binds `address` (an IP literal) and `port` (0 = ephemeral) and starts
  // accepting. Returns kInvalidArgument for a bad address, kUnavailable if
  // the socket cannot be bound ("http: listen on 127.0.0.1:9880: Address
  // already in use"), kFailedPrecondition if already listening or stopped.
  Status Listen(const std::string& address, uint16_t port);

  // The bound port; 0 before Listen().
  uint16_t port() const;

  // Accepts that failed (and were retried) so far; any thread may read it.
  uint64_t accept_errors() const;

  // Closes the acceptor and every connection. Pending handlers finish with
  // operation_aborted; nothing is answered after Stop(). Idempotent.
  void Stop();

 private:
  std::shared_ptr<internal::HttpServerState> state_;
};

}  // namespace cfx::gateway
