#include "gateway/session/metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace cfx::gateway {
namespace {

bool Has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(Metrics, EveryFamilyIsThereFromTheStart) {
  const Metrics m;
  const std::string text = m.Render();
  for (const char* family : {
           "cfx_gateway_messages_received_total counter",
           "cfx_gateway_messages_sent_total counter",
           "cfx_gateway_session_rejects_total counter",
           "cfx_gateway_logons_total counter",
           "cfx_gateway_order_rejects_total counter",
           "cfx_gateway_sessions gauge",
           "cfx_gateway_order_to_ack_seconds histogram",
           "cfx_journal_commit_seconds histogram",
           "cfx_journal_durable_seq gauge",
           "cfx_engine_applied_seq gauge",
           "cfx_egress_published_seq gauge",
           "cfx_journal_lag_commands gauge",
           "cfx_egress_lag_commands gauge",
           "cfx_journal_writes_total counter",
           "cfx_engine_commands_total counter",
           "cfx_queue_depth gauge",
           "cfx_http_requests_total counter",
           "cfx_http_connections gauge",
           "cfx_http_connections_refused_total counter",
       }) {
    EXPECT_TRUE(Has(text, std::string("# TYPE ") + family)) << family;
  }
}

TEST(Metrics, MessagesAreCountedByWireFieldName) {
  Metrics m;
  m.MessageReceived(10);
  m.MessageReceived(10);
  m.MessageReceived(1);
  m.MessageSent(20);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_received_total{protocol=\"protobuf\","
                  "type=\"new_order\"} 2\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_received_total{protocol=\"protobuf\","
                  "type=\"logon\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_sent_total{protocol=\"protobuf\","
                  "type=\"execution_report\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_sent_total{protocol=\"protobuf\","
                  "type=\"clock_report\"} 0\n"));
}

TEST(Metrics, UnknownMessageTypesCountAsOther) {
  Metrics m;
  for (const int type : {0, 8, 9, 15, 52, -1, 1'000'000})
    m.MessageReceived(type);
  m.MessageSent(105);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_received_total{protocol=\"protobuf\","
                  "type=\"other\"} 7\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_sent_total{protocol=\"protobuf\","
                  "type=\"other\"} 1\n"));
}

// The message counts reach their series at each Render() and each
// SetPipeline(), each count once however often they are synced.
TEST(Metrics, MessageCountsReachTheirSeriesOnceAtRenderAndAtThePipelineTick) {
  Metrics m;
  const std::string sent =
      "cfx_gateway_messages_sent_total{protocol=\"protobuf\","
      "type=\"execution_report\"} ";
  const std::string fix =
      "cfx_gateway_messages_received_total{protocol=\"fix\","
      "type=\"new_order_single\"} ";
  m.MessageSent(20);
  m.FixMessageReceived('D');
  EXPECT_TRUE(Has(m.Render(), sent + "1\n"));
  EXPECT_TRUE(Has(m.Render(), sent + "1\n"));
  m.MessageSent(20);
  m.MessageSent(20);
  m.FixMessageReceived('D');
  m.SetPipeline(0, 0, 0, 0, 0);
  m.MessageSent(20);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(text, sent + "4\n")) << text;
  EXPECT_TRUE(Has(text, fix + "2\n")) << text;
}

TEST(Metrics, SessionRejectsLogonsAndOrderRejects) {
  Metrics m;
  m.SessionReject(1);
  m.SessionReject(12);
  m.SessionReject(13);
  m.LogonResult(true);
  m.LogonResult(false);
  m.LogonResult(false);
  m.OrderRejected();
  m.SetSessions(3);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(
      text,
      "cfx_gateway_session_rejects_total{reason=\"malformed_message\"} 1\n"));
  EXPECT_TRUE(Has(
      text, "cfx_gateway_session_rejects_total{reason=\"not_supported\"} 1\n"));
  EXPECT_TRUE(
      Has(text, "cfx_gateway_session_rejects_total{reason=\"other\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_logons_total{protocol=\"protobuf\","
                  "result=\"accepted\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_logons_total{protocol=\"protobuf\","
                  "result=\"rejected\"} 2\n"));
  EXPECT_TRUE(Has(text, "cfx_gateway_order_rejects_total 1\n"));
  EXPECT_TRUE(Has(text, "cfx_gateway_sessions{protocol=\"protobuf\"} 3\n"));
}

TEST(Metrics, FixSeriesCarryProtocolFixAndMessageNames) {
  Metrics m;
  m.FixMessageReceived('D');
  m.FixMessageReceived('D');
  m.FixMessageReceived('Z');  // not in the table
  m.FixMessageSent('8');
  m.FixLogonResult(true);
  m.FixLogonResult(false);
  m.SetFixSessions(2);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_received_total{protocol=\"fix\","
                  "type=\"new_order_single\"} 2\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_received_total{protocol=\"fix\","
                  "type=\"other\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_messages_sent_total{protocol=\"fix\","
                  "type=\"execution_report\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_logons_total{protocol=\"fix\","
                  "result=\"accepted\"} 1\n"));
  EXPECT_TRUE(Has(text,
                  "cfx_gateway_logons_total{protocol=\"fix\","
                  "result=\"rejected\"} 1\n"));
  EXPECT_TRUE(Has(text, "cfx_gateway_sessions{protocol=\"fix\"} 2\n"));
  // The protobuf series are untouched.
  EXPECT_TRUE(Has(text, "cfx_gateway_sessions{protocol=\"protobuf\"} 0\n"));
}

TEST(Metrics, LatencyHistogramsHaveTheFixedBuckets) {
  Metrics m;
  m.ObserveOrderToAck(30e-6);
  m.ObserveOrderToAck(2.0);
  m.ObserveJournalCommit(0.004);
  const std::string text = m.Render();
  EXPECT_TRUE(
      Has(text, "cfx_gateway_order_to_ack_seconds_bucket{le=\"1e-05\"} 0\n"));
  EXPECT_TRUE(
      Has(text, "cfx_gateway_order_to_ack_seconds_bucket{le=\"5e-05\"} 1\n"));
  EXPECT_TRUE(
      Has(text, "cfx_gateway_order_to_ack_seconds_bucket{le=\"1\"} 1\n"));
  EXPECT_TRUE(
      Has(text, "cfx_gateway_order_to_ack_seconds_bucket{le=\"+Inf\"} 2\n"));
  EXPECT_TRUE(Has(text, "cfx_gateway_order_to_ack_seconds_count 2\n"));
  EXPECT_TRUE(Has(text, "cfx_journal_commit_seconds_bucket{le=\"0.005\"} 1\n"));
  EXPECT_TRUE(
      Has(text, "cfx_journal_commit_seconds_bucket{le=\"0.0025\"} 0\n"));
}

TEST(Metrics, PipelineGaugesAndLags) {
  Metrics m;
  m.SetPipeline(/*durable=*/100, /*applied=*/104, /*published=*/97,
                /*journal_writes=*/10, /*commands=*/104);
  std::string text = m.Render();
  EXPECT_TRUE(Has(text, "cfx_journal_durable_seq 100\n"));
  EXPECT_TRUE(Has(text, "cfx_engine_applied_seq 104\n"));
  EXPECT_TRUE(Has(text, "cfx_egress_published_seq 97\n"));
  EXPECT_TRUE(Has(text, "cfx_journal_lag_commands 4\n"));
  EXPECT_TRUE(Has(text, "cfx_egress_lag_commands 3\n"));
  EXPECT_TRUE(Has(text, "cfx_journal_writes_total 10\n"));
  EXPECT_TRUE(Has(text, "cfx_engine_commands_total 104\n"));

  // Durable ahead of applied: no journal lag. Totals follow the source.
  m.SetPipeline(110, 108, 110, 12, 108);
  text = m.Render();
  EXPECT_TRUE(Has(text, "cfx_journal_lag_commands 0\n"));
  EXPECT_TRUE(Has(text, "cfx_egress_lag_commands 0\n"));
  EXPECT_TRUE(Has(text, "cfx_journal_writes_total 12\n"));
  EXPECT_TRUE(Has(text, "cfx_engine_commands_total 108\n"));

  // A total that goes down does not make the counter go down.
  m.SetPipeline(110, 110, 110, 5, 108);
  EXPECT_TRUE(Has(m.Render(), "cfx_journal_writes_total 12\n"));
}

TEST(Metrics, QueueDepths) {
  Metrics m;
  m.SetQueueDepth(Metrics::kGatewayIn, 1);
  m.SetQueueDepth(Metrics::kEngineIn, 2);
  m.SetQueueDepth(Metrics::kEngineOut, 3);
  m.SetQueueDepth(3, 99);
  m.SetQueueDepth(-1, 99);
  const std::string text = m.Render();
  EXPECT_TRUE(Has(text, "cfx_queue_depth{queue=\"gateway_in\"} 1\n"));
  EXPECT_TRUE(Has(text, "cfx_queue_depth{queue=\"engine_in\"} 2\n"));
  EXPECT_TRUE(Has(text, "cfx_queue_depth{queue=\"engine_out\"} 3\n"));
  EXPECT_FALSE(Has(text, " 99\n"));
}

TEST(Metrics, HttpRequestsByEndpointAndStatusClass) {
  Metrics m;
  m.HttpRequest(Metrics::Endpoint::kBook, 200);
  m.HttpRequest(Metrics::Endpoint::kBook, 404);
  m.HttpRequest(Metrics::Endpoint::kHealthz, 503);
  m.HttpConnectionRefused();
  const std::string text = m.Render();
  EXPECT_TRUE(
      Has(text, "cfx_http_requests_total{code=\"2xx\",endpoint=\"book\"} 1\n"));
  EXPECT_TRUE(
      Has(text, "cfx_http_requests_total{code=\"4xx\",endpoint=\"book\"} 1\n"));
  EXPECT_TRUE(Has(
      text, "cfx_http_requests_total{code=\"5xx\",endpoint=\"healthz\"} 1\n"));
  EXPECT_TRUE(Has(text, "cfx_http_connections_refused_total 1\n"));
}

}  // namespace
}  // namespace cfx::gateway
