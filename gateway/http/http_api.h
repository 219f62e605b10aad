#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/engine_config.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/session/metrics.h"

namespace cfx::index {
class IndexService;
}  // namespace cfx::index

namespace cfx::gateway {

// What /healthz reports; supplied by the server on each request.
struct HealthInfo {
  bool ok = false;
  std::string status;  // "ok" or a reason
  uint64_t durable_seq = 0;
  uint64_t applied_seq = 0;
  int64_t exchange_time_ns = 0;
};

// One answer of the HTTP API, before framing.
struct HttpReply {
  unsigned status = 200;
  std::string content_type;
  std::string body;
  Metrics::Endpoint endpoint = Metrics::Endpoint::kOther;
};

// Query limits of the HTTP API (docs/http.md).
inline constexpr std::size_t kDefaultBookDepth = 10;
inline constexpr std::size_t kMaxBookDepth = 1000;
inline constexpr std::size_t kDefaultTradeLimit = 100;
inline constexpr std::size_t kMaxTradeLimit = 1000;
inline constexpr std::size_t kMaxSymbolLength = 32;
inline constexpr std::size_t kMaxTargetLength = 2048;
// Longest index history answered, in days (from and to included).
inline constexpr int64_t kMaxIndexDays = 1000;

inline constexpr std::string_view kJsonContentType = "application/json";
inline constexpr std::string_view kMetricsContentType =
    "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kHtmlContentType = "text/html; charset=utf-8";

// The read-only HTTP API (docs/http.md), without the transport: maps a
// request's method and target to a reply. GET and HEAD are answered alike
// (the transport drops the body of a HEAD reply); other methods get 405, an
// unknown path 404, a malformed target or query 400. Error bodies are
// {"error":"..."}; an error never echoes input that failed validation.
//
// Instruments are named as `instruments` lists them now: futures, and spot
// node-days once listed (an expired listing until its slot is listed again).
// The CFX index (/api/v1/index..., the /index page) is read from the index
// service given to set_index(); without one there are no grades.
//
// Thread: the gateway thread (reads `instruments`, `md` and the index).
// Memory: allocates per reply.
class HttpApi {
 public:
  // `config` is only read here; `instruments`, `md` and `metrics` must
  // remain live while the API is used. An empty `health` reports ok with
  // zero seqs.
  HttpApi(const ServerConfig& config, const InstrumentTable& instruments,
          const MarketDataStore& md, Metrics& metrics,
          std::function<HealthInfo()> health);

  // The CFX index service, or null (the default: no grades). `service` must
  // remain live while the API is used.
  void set_index(const index::IndexService* service) { index_ = service; }

  HttpReply Handle(std::string_view method, std::string_view target) const;
  // True when Handle() answers `target` from the index service: the
  // /api/v1/index paths and the /index page, with a service set.
  bool ReadsIndex(std::string_view target) const;

 private:
  struct Row {
    const InstrumentInfo* info;
    exchange::InstrumentConfig engine;  // defaults if the engine lacks it
  };

  // false if no instrument trades under `symbol`.
  bool FindRow(std::string_view symbol, Row* row) const;
  HttpReply Instruments() const;
  HttpReply Book(const Row& row, std::size_t depth) const;
  HttpReply Trades(const Row& row, std::size_t limit) const;
  HttpReply Health() const;
  // /api/v1/index, /api/v1/index/{grade}[?from=&to=&revisions=] and /index.
  HttpReply Index(std::string_view method, std::string_view path,
                  std::string_view query) const;
  HttpReply IndexList() const;
  HttpReply IndexPage() const;

  // The engine's view of `info`, defaults if the engine lacks it.
  Row RowOf(const InstrumentInfo& info) const;

  const InstrumentTable& instruments_;
  const MarketDataStore& md_;
  Metrics& metrics_;
  std::function<HealthInfo()> health_;
  std::vector<exchange::InstrumentConfig> engine_;  // [id - 1]
  const index::IndexService* index_ = nullptr;
};

}  // namespace cfx::gateway
