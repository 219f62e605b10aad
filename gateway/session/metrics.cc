#include "gateway/session/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string_view>

namespace cfx::gateway {

namespace {

// cfx.wire.v1.Envelope body fields (proto/cfx/wire/v1/wire.proto): number
// and name. Field numbers are never reused, so this table only grows.
struct MessageType {
  int number;
  const char* name;
};
constexpr MessageType kMessageTypes[] = {
    {1, "logon"},
    {2, "logon_ack"},
    {3, "logon_reject"},
    {4, "heartbeat"},
    {5, "logout"},
    {6, "session_reject"},
    {7, "retransmission_complete"},
    {10, "new_order"},
    {11, "cancel_order"},
    {12, "replace_order"},
    {13, "mass_cancel"},
    {14, "order_status_request"},
    {20, "execution_report"},
    {21, "cancel_reject"},
    {22, "mass_cancel_report"},
    {30, "market_data_subscribe"},
    {31, "market_data_unsubscribe"},
    {32, "book_snapshot"},
    {33, "book_update"},
    {34, "trade_print"},
    {40, "instrument_list_request"},
    {41, "instrument_list"},
    {42, "grade_list_request"},
    {43, "grade_list"},
    {50, "clock_request"},
    {51, "clock_report"},
    {60, "rating_set"},
    {61, "rating_revoke"},
    {62, "rating_query"},
    {63, "attester_key_register"},
    {64, "attester_key_revoke"},
    {65, "attestation_submit"},
    {66, "attestation_list_request"},
    {67, "reference_ack"},
    {68, "rating_report"},
    {69, "attestation_list"},
    {80, "spot_failure_report"},
    {81, "trade_bust"},
    {90, "index_print"},
    {91, "index_query"},
    {92, "index_print_list"},
    {93, "index_explain_request"},
    {94, "index_explanation"},
    {95, "collateral_request"},
    {96, "collateral_ack"},
    {97, "settlement_query"},
    {98, "settlement_report"},
    {99, "settlement_status_request"},
    {100, "settlement_status"},
    {101, "margin_call_query"},
    {102, "margin_call_list"},
    {103, "settlement_rerun_request"},
    {104, "settlement_rerun_ack"},
};

// cfx.wire.v1.SessionRejectReason, by value, lower-case without prefix.
constexpr const char* kSessionRejectReasons[] = {
    "unspecified",        "malformed_message",   "unknown_message",
    "unexpected_message", "missing_field",       "invalid_enum",
    "value_out_of_range", "wrong_session_state", "throttled",
    "not_authorized",     "unknown_symbol",      "system_busy",
    "not_supported",
};
static_assert(std::size(kSessionRejectReasons) ==
              Metrics::kMaxSessionRejectReason + 1);

constexpr const char* kQueueNames[] = {"gateway_in", "engine_in", "engine_out"};

constexpr const char* kEndpointNames[] = {"instruments", "book",    "trades",
                                          "healthz",     "metrics", "other"};
static_assert(std::size(kEndpointNames) == Metrics::kEndpointCount);

constexpr const char* kCodeClasses[] = {"2xx", "4xx", "5xx"};

// 10 us to 1 s.
const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3,
      5e-3,  10e-3, 25e-3, 50e-3,  100e-3, 250e-3, 1.0};
  return kBuckets;
}

// Index of `type` in a per-message-type array. Slots of numbers that are
// not Envelope fields, and the trailing slot, hold the "other" series.
std::size_t MessageSlot(int type) {
  return type >= 0 && type <= Metrics::kMaxMessageType
             ? static_cast<std::size_t>(type)
             : Metrics::kMaxMessageType + 1;
}

// FIX application messages: MsgType and label name.
constexpr struct {
  char type;
  const char* name;
} kFixMessageTypes[] = {
    {'D', "new_order_single"},
    {'F', "order_cancel_request"},
    {'G', "order_cancel_replace_request"},
    {'q', "order_mass_cancel_request"},
    {'H', "order_status_request"},
    {'V', "market_data_request"},
    {'x', "security_list_request"},
    {'e', "security_status_request"},
    {'8', "execution_report"},
    {'9', "order_cancel_reject"},
    {'r', "order_mass_cancel_report"},
    {'j', "business_message_reject"},
    {'W', "market_data_snapshot_full_refresh"},
    {'X', "market_data_incremental_refresh"},
    {'Y', "market_data_request_reject"},
    {'y', "security_list"},
    {'f', "security_status"},
};

// One counter family with a single unlabelled series.
prometheus::Counter* AddCounter(prometheus::Registry& registry,
                                const char* name, const char* help) {
  return &prometheus::BuildCounter()
              .Name(name)
              .Help(help)
              .Register(registry)
              .Add({});
}

// One gauge family with a single unlabelled series.
prometheus::Gauge* AddGauge(prometheus::Registry& registry, const char* name,
                            const char* help) {
  return &prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add(
      {});
}

std::size_t FixSlot(char type) {
  return static_cast<unsigned char>(type) < 128
             ? static_cast<unsigned char>(type)
             : 0;
}

}  // namespace

Metrics::Metrics() : registry_(std::make_unique<prometheus::Registry>()) {
  // Families are registered, and so rendered, in this order.
  AddMessageSeries(*registry_);
  AddSessionSeries(*registry_);
  AddPipelineSeries(*registry_);
  AddHttpSeries(*registry_);
  AddConnectionSeries(*registry_);
}

// Messages received and sent, protobuf by Envelope field and FIX by
// MsgType.
void Metrics::AddMessageSeries(prometheus::Registry& registry) {
  auto& received = prometheus::BuildCounter()
                       .Name("cfx_gateway_messages_received_total")
                       .Help(
                           "Messages received, by protocol and message "
                           "type.")
                       .Register(registry);
  auto& sent = prometheus::BuildCounter()
                   .Name("cfx_gateway_messages_sent_total")
                   .Help("Messages sent, by protocol and message type.")
                   .Register(registry);
  auto* received_other =
      &received.Add({{"protocol", "protobuf"}, {"type", "other"}});
  auto* sent_other = &sent.Add({{"protocol", "protobuf"}, {"type", "other"}});
  received_.fill(received_other);
  sent_.fill(sent_other);
  for (const auto& m : kMessageTypes) {
    const auto slot = static_cast<std::size_t>(m.number);
    received_[slot] =
        &received.Add({{"protocol", "protobuf"}, {"type", m.name}});
    sent_[slot] = &sent.Add({{"protocol", "protobuf"}, {"type", m.name}});
  }
  fix_received_.fill(&received.Add({{"protocol", "fix"}, {"type", "other"}}));
  fix_sent_.fill(&sent.Add({{"protocol", "fix"}, {"type", "other"}}));
  for (const auto& m : kFixMessageTypes) {
    fix_received_[FixSlot(m.type)] =
        &received.Add({{"protocol", "fix"}, {"type", m.name}});
    fix_sent_[FixSlot(m.type)] =
        &sent.Add({{"protocol", "fix"}, {"type", m.name}});
  }
}

// Session rejects, logons, order rejects and live sessions.
void Metrics::AddSessionSeries(prometheus::Registry& registry) {
  auto& rejects = prometheus::BuildCounter()
                      .Name("cfx_gateway_session_rejects_total")
                      .Help("SessionReject messages sent, by reason.")
                      .Register(registry);
  for (std::size_t i = 0; i < std::size(kSessionRejectReasons); ++i) {
    session_rejects_[i] = &rejects.Add({{"reason", kSessionRejectReasons[i]}});
  }
  session_rejects_.back() = &rejects.Add({{"reason", "other"}});

  auto& logons = prometheus::BuildCounter()
                     .Name("cfx_gateway_logons_total")
                     .Help("Logons, by protocol and result.")
                     .Register(registry);
  logons_accepted_ =
      &logons.Add({{"protocol", "protobuf"}, {"result", "accepted"}});
  logons_rejected_ =
      &logons.Add({{"protocol", "protobuf"}, {"result", "rejected"}});
  fix_logons_accepted_ =
      &logons.Add({{"protocol", "fix"}, {"result", "accepted"}});
  fix_logons_rejected_ =
      &logons.Add({{"protocol", "fix"}, {"result", "rejected"}});

  order_rejects_ = AddCounter(registry, "cfx_gateway_order_rejects_total",
                              "Orders, cancels and replaces rejected.");

  auto& sessions = prometheus::BuildGauge()
                       .Name("cfx_gateway_sessions")
                       .Help("Live order-entry sessions (FIX: logged on).")
                       .Register(registry);
  sessions_ = &sessions.Add({{"protocol", "protobuf"}});
  fix_sessions_ = &sessions.Add({{"protocol", "fix"}});
}

// Latencies, pipeline positions and queue depths.
void Metrics::AddPipelineSeries(prometheus::Registry& registry) {
  order_to_ack_ =
      &prometheus::BuildHistogram()
           .Name("cfx_gateway_order_to_ack_seconds")
           .Help("From a NewOrder's arrival to its durable acknowledgement.")
           .Register(registry)
           .Add({}, LatencyBuckets());
  journal_commit_ = &prometheus::BuildHistogram()
                         .Name("cfx_journal_commit_seconds")
                         .Help("One journal batch commit, write and sync.")
                         .Register(registry)
                         .Add({}, LatencyBuckets());

  durable_seq_ = AddGauge(registry, "cfx_journal_durable_seq",
                          "Highest seq durable in the journal.");
  applied_seq_ = AddGauge(registry, "cfx_engine_applied_seq",
                          "Highest seq applied by the matching engine.");
  published_seq_ = AddGauge(registry, "cfx_egress_published_seq",
                            "Highest seq whose events have been published.");
  journal_lag_ = AddGauge(registry, "cfx_journal_lag_commands",
                          "Commands applied by the engine but not yet durable "
                          "(applied - durable).");
  egress_lag_ = AddGauge(registry, "cfx_egress_lag_commands",
                         "Durable commands whose events are not yet published "
                         "(durable - published).");

  journal_writes_ =
      AddCounter(registry, "cfx_journal_writes_total", "Journal batch writes.");
  commands_ = AddCounter(registry, "cfx_engine_commands_total",
                         "Commands applied by the matching engine.");

  auto& queues = prometheus::BuildGauge()
                     .Name("cfx_queue_depth")
                     .Help("Entries waiting in a pipeline queue.")
                     .Register(registry);
  for (std::size_t i = 0; i < std::size(kQueueNames); ++i) {
    queue_depth_[i] = &queues.Add({{"queue", kQueueNames[i]}});
  }
}

// The HTTP server's own traffic.
void Metrics::AddHttpSeries(prometheus::Registry& registry) {
  auto& http =
      prometheus::BuildCounter()
          .Name("cfx_http_requests_total")
          .Help("HTTP requests answered, by endpoint and status class.")
          .Register(registry);
  for (std::size_t e = 0; e < std::size(kEndpointNames); ++e) {
    for (std::size_t c = 0; c < std::size(kCodeClasses); ++c) {
      http_requests_[e][c] = &http.Add(
          {{"endpoint", kEndpointNames[e]}, {"code", kCodeClasses[c]}});
    }
  }
  http_connections_ =
      AddGauge(registry, "cfx_http_connections", "Open HTTP connections.");
  http_refused_ =
      AddCounter(registry, "cfx_http_connections_refused_total",
                 "HTTP connections closed at once: connection limit reached.");
}

void Metrics::AddConnectionSeries(prometheus::Registry& registry) {
  static constexpr const char* kPortNames[] = {"fix", "protobuf", "http"};
  auto& refused = prometheus::BuildCounter()
                      .Name("cfx_connections_refused_total")
                      .Help(
                          "Connections closed at accept, by port and "
                          "reason: the source address's pre-logon cap, or "
                          "the port's connection limit.")
                      .Register(registry);
  auto& evicted = prometheus::BuildCounter()
                      .Name("cfx_pre_logon_evicted_total")
                      .Help(
                          "Pre-logon connections closed to make room for a "
                          "new one (the pre-logon budget was full).")
                      .Register(registry);
  for (std::size_t p = 0; p < std::size(kPortNames); ++p) {
    refused_[p][0] =
        &refused.Add({{"port", kPortNames[p]}, {"reason", "port_full"}});
    refused_[p][1] =
        &refused.Add({{"port", kPortNames[p]}, {"reason", "source_full"}});
    evicted_[p] = &evicted.Add({{"port", kPortNames[p]}});
  }
  auto& handshakes = prometheus::BuildCounter()
                         .Name("cfx_tls_handshakes_total")
                         .Help(
                             "TLS handshakes on the TLS listeners, by port "
                             "and result (ok or failed).")
                         .Register(registry);
  for (std::size_t p = 0; p < std::size(kPortNames); ++p) {
    handshakes_[p][0] =
        &handshakes.Add({{"port", kPortNames[p]}, {"result", "failed"}});
    handshakes_[p][1] =
        &handshakes.Add({{"port", kPortNames[p]}, {"result", "ok"}});
  }
}

void Metrics::ConnectionRefused(Port port, bool source_full) {
  refused_[static_cast<std::size_t>(port)][source_full ? 1 : 0]->Increment();
}

void Metrics::PreLogonEvicted(Port port) {
  evicted_[static_cast<std::size_t>(port)]->Increment();
}

void Metrics::TlsHandshake(Port port, bool ok) {
  handshakes_[static_cast<std::size_t>(port)][ok ? 1 : 0]->Increment();
}

Metrics::~Metrics() = default;

void Metrics::MessageReceived(int type) {
  received_tally_[MessageSlot(type)].Add();
}

void Metrics::MessageSent(int type) { sent_tally_[MessageSlot(type)].Add(); }

template <std::size_t N>
void Metrics::Sync(std::array<Tally, N>& tallies,
                   const std::array<prometheus::Counter*, N>& series) {
  for (std::size_t i = 0; i < N; ++i) {
    const uint64_t now = tallies[i].counted.load(std::memory_order_relaxed);
    if (now == tallies[i].synced) continue;
    series[i]->Increment(static_cast<double>(now - tallies[i].synced));
    tallies[i].synced = now;
  }
}

void Metrics::SyncTallies() const {
  std::lock_guard<std::mutex> lock(sync_mu_);
  Sync(received_tally_, received_);
  Sync(sent_tally_, sent_);
  Sync(fix_received_tally_, fix_received_);
  Sync(fix_sent_tally_, fix_sent_);
}

void Metrics::SessionReject(int reason) {
  const std::size_t slot = reason >= 0 && reason <= kMaxSessionRejectReason
                               ? static_cast<std::size_t>(reason)
                               : session_rejects_.size() - 1;
  session_rejects_[slot]->Increment();
}

void Metrics::LogonResult(bool ok) {
  (ok ? logons_accepted_ : logons_rejected_)->Increment();
}

void Metrics::FixMessageReceived(char msg_type) {
  fix_received_tally_[FixSlot(msg_type)].Add();
}

void Metrics::FixMessageSent(char msg_type) {
  fix_sent_tally_[FixSlot(msg_type)].Add();
}

void Metrics::FixLogonResult(bool ok) {
  (ok ? fix_logons_accepted_ : fix_logons_rejected_)->Increment();
}

void Metrics::SetFixSessions(int64_t n) {
  fix_sessions_->Set(static_cast<double>(n));
}

void Metrics::OrderRejected() { order_rejects_->Increment(); }

void Metrics::SetSessions(int64_t n) { sessions_->Set(static_cast<double>(n)); }

void Metrics::ObserveOrderToAck(double seconds) {
  order_to_ack_->Observe(seconds);
}

void Metrics::ObserveJournalCommit(double seconds) {
  journal_commit_->Observe(seconds);
}

void Metrics::SetPipeline(uint64_t durable_seq, uint64_t applied_seq,
                          uint64_t published_seq, uint64_t journal_writes,
                          uint64_t commands_total) {
  SyncTallies();
  durable_seq_->Set(static_cast<double>(durable_seq));
  applied_seq_->Set(static_cast<double>(applied_seq));
  published_seq_->Set(static_cast<double>(published_seq));
  journal_lag_->Set(applied_seq > durable_seq
                        ? static_cast<double>(applied_seq - durable_seq)
                        : 0.0);
  egress_lag_->Set(durable_seq > published_seq
                       ? static_cast<double>(durable_seq - published_seq)
                       : 0.0);
  if (journal_writes > journal_writes_seen_) {
    journal_writes_->Increment(
        static_cast<double>(journal_writes - journal_writes_seen_));
    journal_writes_seen_ = journal_writes;
  }
  if (commands_total > commands_seen_) {
    commands_->Increment(static_cast<double>(commands_total - commands_seen_));
    commands_seen_ = commands_total;
  }
}

void Metrics::SetQueueDepth(int queue, uint64_t depth) {
  if (queue < 0 || queue >= static_cast<int>(queue_depth_.size())) return;
  queue_depth_[static_cast<std::size_t>(queue)]->Set(
      static_cast<double>(depth));
}

void Metrics::HttpRequest(Endpoint endpoint, int status) {
  auto e = static_cast<std::size_t>(endpoint);
  if (e >= http_requests_.size()) e = http_requests_.size() - 1;
  const std::size_t c = status < 400 ? 0 : status < 500 ? 1 : 2;
  http_requests_[e][c]->Increment();
}

void Metrics::SetHttpConnections(int64_t n) {
  http_connections_->Set(static_cast<double>(n));
}

void Metrics::HttpConnectionRefused() { http_refused_->Increment(); }

std::string Metrics::Render() const {
  SyncTallies();
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace cfx::gateway
