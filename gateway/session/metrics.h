#pragma once

#include <array>
#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
class Registry;
}  // namespace prometheus

namespace cfx::gateway {

// The exchange's Prometheus metrics, served as text on GET /metrics.
//
// Label values come only from fixed sets (message types, reject reasons,
// queue names): no firm, account, user or order ever becomes a label, so a
// scrape reveals nothing about who trades (DESIGN.md §7). Every child series
// is created in the constructor; the recording methods below only touch
// pre-resolved pointers: no allocation, no label lookup.
//
// Thread: owned by the gateway thread. SetPipeline() and the four message
// counts (MessageReceived(), MessageSent(), FixMessageReceived(),
// FixMessageSent()) must stay on one thread: those four are counted once or
// more for every order, so they add to plain tallies of this object (a load
// and a store, no locked instruction on the order path) that reach the
// Prometheus series at each SetPipeline() (every 100 ms in the server) and
// at each Render(). The other recording methods and Render() may be called
// from any thread (prometheus-cpp values are atomic or internally locked),
// so the journal writer may feed ObserveJournalCommit() itself.
// Memory: allocates only in the constructor and in Render().
class Metrics {
 public:
  // Highest cfx.wire.v1.Envelope body field number.
  static constexpr int kMaxMessageType = 104;
  // Highest cfx.wire.v1.SessionRejectReason value.
  static constexpr int kMaxSessionRejectReason = 12;

  enum Queue : int { kGatewayIn = 0, kEngineIn = 1, kEngineOut = 2 };

  // The HTTP endpoints, for cfx_http_requests_total{endpoint}.
  enum class Endpoint : uint8_t {
    kInstruments,
    kBook,
    kTrades,
    kHealthz,
    kMetrics,
    kOther,  // unknown paths and requests that did not parse
  };
  static constexpr int kEndpointCount = 6;

  // The listening ports, for the connection-limit families.
  enum class Port : uint8_t { kFix, kProtobuf, kHttp };
  static constexpr int kPortCount = 3;

  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // Protobuf messages, by cfx.wire.v1.Envelope body field number (label
  // type = the field name, e.g. "new_order"; an unknown number counts as
  // "other").
  void MessageReceived(int type);
  void MessageSent(int type);
  // A SessionReject sent, by cfx.wire.v1.SessionRejectReason value (label
  // reason = the lower-case name without prefix, e.g. "malformed_message";
  // unknown values count as "other").
  void SessionReject(int reason);
  void LogonResult(bool ok);
  // FIX application messages by MsgType (label protocol="fix", type = the
  // message's name in snake case, e.g. "new_order_single"; a MsgType the
  // table does not know counts as "other"), FIX logons, live FIX sessions.
  void FixMessageReceived(char msg_type);
  void FixMessageSent(char msg_type);
  void FixLogonResult(bool ok);
  void SetFixSessions(int64_t n);
  // An order, cancel or replace refused by the engine or the gateway.
  void OrderRejected();
  // Live protobuf sessions.
  void SetSessions(int64_t n);
  // From a NewOrder's arrival to its durable acknowledgement.
  void ObserveOrderToAck(double seconds);
  // One journal batch commit (write + sync).
  void ObserveJournalCommit(double seconds);

  // Pipeline positions, set once per poll:
  //   cfx_journal_durable_seq, cfx_engine_applied_seq,
  //   cfx_egress_published_seq: the three seqs as given;
  //   cfx_journal_lag_commands = applied_seq - durable_seq when positive,
  //     else 0: commands the engine has applied that are not yet durable;
  //   cfx_egress_lag_commands = durable_seq - published_seq when positive,
  //     else 0: durable commands whose events are not yet published;
  //   cfx_journal_writes_total, cfx_engine_commands_total: counters that
  //     follow the given running totals (a total that goes down is ignored).
  void SetPipeline(uint64_t durable_seq, uint64_t applied_seq,
                   uint64_t published_seq, uint64_t journal_writes,
                   uint64_t commands_total);
  // cfx_queue_depth{queue="gateway_in|engine_in|engine_out"}; `queue` is a
  // Queue value, others are ignored.
  void SetQueueDepth(int queue, uint64_t depth);

  // The HTTP server's own traffic: cfx_http_requests_total{endpoint,code}
  // (code = "2xx", "4xx" or "5xx"), cfx_http_connections and
  // cfx_http_connections_refused_total.
  void HttpRequest(Endpoint endpoint, int status);
  void SetHttpConnections(int64_t n);
  void HttpConnectionRefused();

  // The connection limits of every port (docs/config.md, `session`):
  // cfx_connections_refused_total{port,reason}, reason = "source_full"
  // (the address's pre-logon cap) or "port_full", and
  // cfx_pre_logon_evicted_total{port}: the oldest pre-logon connection
  // closed to make room for a new one.
  void ConnectionRefused(Port port, bool source_full);
  void PreLogonEvicted(Port port);
  // The TLS listeners: cfx_tls_handshakes_total{port,result}, result =
  // "ok" or "failed" (wrong CA, expired or missing certificate, not TLS,
  // closed or timed out before the handshake finished).
  void TlsHandshake(Port port, bool ok);

  // Every family in the Prometheus text exposition format 0.0.4.
  std::string Render() const;

  // For adding further families; they must follow the label rule above.
  prometheus::Registry& registry() { return *registry_; }

 private:
  // The constructor's parts: each registers its families and resolves
  // their series.
  void AddMessageSeries(prometheus::Registry& registry);
  void AddSessionSeries(prometheus::Registry& registry);
  void AddPipelineSeries(prometheus::Registry& registry);
  void AddHttpSeries(prometheus::Registry& registry);
  void AddConnectionSeries(prometheus::Registry& registry);

  // A message count of one series slot: written by one thread, read by
  // any (relaxed: a count, not a publication).
  struct Tally {
    std::atomic<uint64_t> counted{0};
    uint64_t synced = 0;  // under sync_mu_
    void Add() {
      counted.store(counted.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
    }
  };
  template <std::size_t N>
  static void Sync(std::array<Tally, N>& tallies,
                   const std::array<prometheus::Counter*, N>& series);
  // Adds the tallies counted since the last call to their series.
  void SyncTallies() const;

  std::unique_ptr<prometheus::Registry> registry_;
  std::array<prometheus::Counter*, kMaxMessageType + 2>
      received_{};  // last = other
  std::array<prometheus::Counter*, kMaxMessageType + 2> sent_{};
  mutable std::mutex sync_mu_;
  mutable std::array<Tally, kMaxMessageType + 2> received_tally_{};
  mutable std::array<Tally, kMaxMessageType + 2> sent_tally_{};
  mutable std::array<Tally, 128> fix_received_tally_{};
  mutable std::array<Tally, 128> fix_sent_tally_{};
  std::array<prometheus::Counter*, kMaxSessionRejectReason + 2>
      session_rejects_{};
  prometheus::Counter* logons_accepted_ = nullptr;
  prometheus::Counter* logons_rejected_ = nullptr;
  prometheus::Counter* fix_logons_accepted_ = nullptr;
  prometheus::Counter* fix_logons_rejected_ = nullptr;
  prometheus::Gauge* fix_sessions_ = nullptr;
  // By MsgType character; unknown types point at the "other" series.
  std::array<prometheus::Counter*, 128> fix_received_{};
  std::array<prometheus::Counter*, 128> fix_sent_{};
  prometheus::Counter* order_rejects_ = nullptr;
  prometheus::Gauge* sessions_ = nullptr;
  prometheus::Histogram* order_to_ack_ = nullptr;
  prometheus::Histogram* journal_commit_ = nullptr;
  prometheus::Gauge* durable_seq_ = nullptr;
  prometheus::Gauge* applied_seq_ = nullptr;
  prometheus::Gauge* published_seq_ = nullptr;
  prometheus::Gauge* journal_lag_ = nullptr;
  prometheus::Gauge* egress_lag_ = nullptr;
  prometheus::Counter* journal_writes_ = nullptr;
  prometheus::Counter* commands_ = nullptr;
  uint64_t journal_writes_seen_ = 0;
  uint64_t commands_seen_ = 0;
  std::array<prometheus::Gauge*, 3> queue_depth_{};
  std::array<std::array<prometheus::Counter*, 3>, kEndpointCount>
      http_requests_{};
  prometheus::Gauge* http_connections_ = nullptr;
  prometheus::Counter* http_refused_ = nullptr;
  // [port][0 = port_full, 1 = source_full]
  std::array<std::array<prometheus::Counter*, 2>, kPortCount> refused_{};
  std::array<prometheus::Counter*, kPortCount> evicted_{};
  std::array<std::array<prometheus::Counter*, 2>, kPortCount> handshakes_{};
};

}  // namespace cfx::gateway
