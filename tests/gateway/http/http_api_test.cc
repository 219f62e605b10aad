#include "gateway/http/http_api.h"

#include <gtest/gtest.h>

#include <string>

#include "gateway/session/metrics.h"
#include "tests/gateway/http/http_test_config.h"

namespace cfx::gateway {
namespace {

class HttpApiTest : public ::testing::Test {
 protected:
  HttpApiTest()
      : config_(testing::HttpTestConfig()),
        instruments_(config_),
        md_(config_),
        api_(config_, instruments_, md_, metrics_, [this] { return health_; }) {
    testing::FeedSampleEvents(md_);
  }

  HttpReply Get(std::string_view target) const {
    return api_.Handle("GET", target);
  }

  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  Metrics metrics_;
  HealthInfo health_{true, "ok", 6, 6, testing::kT0};
  HttpApi api_;
};

TEST_F(HttpApiTest, InstrumentsListsEveryInstrumentWithItsMarket) {
  const HttpReply r = Get("/api/v1/instruments");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, testing::kInstrumentsJson);
  EXPECT_EQ(r.endpoint, Metrics::Endpoint::kInstruments);
}

TEST_F(HttpApiTest, BookShowsLevelsBestFirst) {
  const HttpReply r = Get("/api/v1/book/XB2SZ6");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, testing::kBookJson);
  EXPECT_EQ(Get("/api/v1/book/XB2SZ6?depth=0").body, testing::kBookJson);
}

TEST_F(HttpApiTest, BookDepthLimitsEachSide) {
  EXPECT_EQ(Get("/api/v1/book/XB2SZ6?depth=1").body,
            R"({"symbol":"XB2SZ6","seq":6,"state":"open",)"
            R"("bids":[{"price":"5.79","quantity":3,"orders":1}],)"
            R"("asks":[{"price":"5.81","quantity":3,"orders":1}]})");
}

TEST_F(HttpApiTest, EmptyBook) {
  EXPECT_EQ(Get("/api/v1/book/XB2SF7").body,
            R"({"symbol":"XB2SF7","seq":6,"state":"pre_open",)"
            R"("bids":[],"asks":[]})");
}

TEST_F(HttpApiTest, TradesOldestFirst) {
  const HttpReply r = Get("/api/v1/trades/XB2SZ6");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, testing::kTradesJson);
}

TEST_F(HttpApiTest, TradesLimitKeepsTheMostRecent) {
  EXPECT_EQ(Get("/api/v1/trades/XB2SZ6?limit=1").body,
            R"({"symbol":"XB2SZ6","trades":[)"
            R"({"trade_id":2,"seq":6,"time":"2026-12-01T00:00:02.500000000Z",)"
            R"("price":"5.79","quantity":2,"aggressor":"sell"}]})");
  EXPECT_EQ(Get("/api/v1/trades/XB2SZ6?limit=0").body,
            R"({"symbol":"XB2SZ6","trades":[]})");
}

TEST_F(HttpApiTest, UnknownSymbolIs404) {
  const HttpReply r = Get("/api/v1/book/NOPE");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"error":"unknown symbol \"NOPE\""})");
  EXPECT_EQ(Get("/api/v1/trades/xb2sz6").status, 404u);  // case-sensitive
}

TEST_F(HttpApiTest, InvalidSymbolIs400AndNotEchoed) {
  for (const char* target :
       {"/api/v1/book/", "/api/v1/book/XB2%22Z6", "/api/v1/book/A/B",
        "/api/v1/trades/<script>",
        "/api/v1/book/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}) {  // 33 chars
    const HttpReply r = Get(target);
    EXPECT_EQ(r.status, 400u) << target;
    EXPECT_EQ(r.body, R"({"error":"invalid symbol"})") << target;
  }
}

TEST_F(HttpApiTest, MalformedQueryIs400) {
  for (const char* target :
       {"/api/v1/book/XB2SZ6?depth=1001", "/api/v1/book/XB2SZ6?depth=-1",
        "/api/v1/book/XB2SZ6?depth=", "/api/v1/book/XB2SZ6?depth",
        "/api/v1/book/XB2SZ6?depth=1x", "/api/v1/book/XB2SZ6?depth=%31",
        "/api/v1/book/XB2SZ6?depth=99999999999999999999999",
        "/api/v1/book/XB2SZ6?depth=1&depth=2", "/api/v1/book/XB2SZ6?limit=5",
        "/api/v1/trades/XB2SZ6?limit=1001", "/api/v1/trades/XB2SZ6?=5",
        "/api/v1/instruments?x=1", "/healthz?verbose=1"}) {
    const HttpReply r = Get(target);
    EXPECT_EQ(r.status, 400u) << target;
    EXPECT_EQ(r.body.rfind(R"({"error":")", 0), 0u) << target;
  }
  EXPECT_EQ(Get("/api/v1/book/XB2SZ6?depth=1001").body,
            R"({"error":"query parameter \"depth\" must be an integer from )"
            R"(0 to 1000"})");
  EXPECT_EQ(Get("/api/v1/instruments?x=1").body,
            R"({"error":"unknown query parameter \"x\""})");
}

TEST_F(HttpApiTest, EmptyQueryPartsAreAccepted) {
  EXPECT_EQ(Get("/api/v1/instruments?").status, 200u);
  EXPECT_EQ(Get("/api/v1/book/XB2SZ6?&depth=1&").status, 200u);
  EXPECT_EQ(Get("/api/v1/book/XB2SZ6?depth=1000").status, 200u);
}

TEST_F(HttpApiTest, MalformedTargetIs400) {
  for (const char* target :
       {"", "api/v1/instruments", "http://x/api/v1/instruments",
        "/api/v1/instruments#x", "/api/v1/ins\x01truments"}) {
    EXPECT_EQ(Get(target).status, 400u) << target;
  }
  EXPECT_EQ(Get("/" + std::string(kMaxTargetLength, 'a')).status, 400u);
}

TEST_F(HttpApiTest, UnknownPathIs404) {
  for (const char* target :
       {"/", "/api/v1/instruments/", "/api/v1/books/XB2SZ6", "/api/v2/x",
        "/metricsx"}) {
    const HttpReply r = Get(target);
    EXPECT_EQ(r.status, 404u) << target;
    EXPECT_EQ(r.body, R"({"error":"not found"})");
  }
  EXPECT_EQ(api_.Handle("POST", "/nope").status, 404u);
}

TEST_F(HttpApiTest, OtherMethodsAre405) {
  for (const char* method : {"POST", "PUT", "DELETE", "OPTIONS", "get"}) {
    const HttpReply r = api_.Handle(method, "/api/v1/instruments");
    EXPECT_EQ(r.status, 405u) << method;
    EXPECT_EQ(r.body, R"({"error":"method not allowed"})");
  }
  EXPECT_EQ(api_.Handle("HEAD", "/api/v1/instruments").body,
            testing::kInstrumentsJson);
}

TEST_F(HttpApiTest, HealthOk) {
  const HttpReply r = Get("/healthz");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body,
            R"({"ok":true,"status":"ok","durable_seq":6,"applied_seq":6,)"
            R"("exchange_time":"2026-12-01T00:00:00.000000000Z",)"
            R"("exchange_time_ns":1796083200000000000})");
}

TEST_F(HttpApiTest, HealthNotOkIs503) {
  health_ = HealthInfo{false, "journal \"stalled\"", 5, 9, testing::kT0};
  const HttpReply r = Get("/healthz");
  EXPECT_EQ(r.status, 503u);
  EXPECT_EQ(
      r.body,
      R"({"ok":false,"status":"journal \"stalled\"","durable_seq":5,)"
      R"("applied_seq":9,"exchange_time":"2026-12-01T00:00:00.000000000Z",)"
      R"("exchange_time_ns":1796083200000000000})");
}

TEST_F(HttpApiTest, MetricsIsPrometheusText) {
  const HttpReply r = Get("/metrics");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("# TYPE cfx_gateway_sessions gauge"),
            std::string::npos);
}

// HttpTestConfig() plus one spot slot of B200-STD (id 3), never listed.
ServerConfig WithSpotSlot() {
  ServerConfig c = testing::HttpTestConfig();
  exchange::InstrumentConfig ic;
  ic.id = exchange::InstrumentId{3};
  ic.kind = exchange::InstrumentKind::kSpot;
  ic.reference_price = exchange::Price{58'000};
  ic.gpu_hours_per_lot = 192;
  ic.initial_state = exchange::InstrumentState::kNone;
  c.engine.instruments.push_back(ic);
  InstrumentInfo info;
  info.id = ic.id;
  info.kind = exchange::InstrumentKind::kSpot;
  info.grade = "B200-STD";
  info.contract_gpu_hours = 192;
  info.spot_slot = true;
  c.instruments.push_back(info);
  c.spot.first_slot = {ic.id};
  c.RebuildIndex();
  return c;
}

TEST(HttpApi, SpotNodeDaysAreListedUnderTheirListingsSymbol) {
  const ServerConfig config = WithSpotSlot();
  InstrumentTable instruments(config);
  MarketDataStore md(config);
  Metrics metrics;
  const HttpApi api(config, instruments, md, metrics, nullptr);
  auto feed = [&](const exchange::Event& e) {
    instruments.OnEvent(e);
    md.OnEvent(e);
  };
  // Never listed: not in the list, and no symbol reaches it.
  EXPECT_EQ(api.Handle("GET", "/api/v1/instruments").body.find("spot"),
            std::string::npos);

  exchange::Event listed;
  listed.seq = exchange::Seq{1};
  listed.type = exchange::EventType::kInstrumentListed;
  listed.instrument = exchange::InstrumentId{3};
  listed.state = exchange::InstrumentState::kOpen;
  listed.price = exchange::Price{58'000};
  listed.count = 20'792;  // 2026-12-05
  feed(listed);
  const std::string body = api.Handle("GET", "/api/v1/instruments").body;
  EXPECT_NE(
      body.find(
          R"({"symbol":"B200-STD-20261205","kind":"spot","grade":"B200-STD",)"
          R"("root":"","contract_gpu_hours":192,"maturity":"2026-12-05",)"
          R"("last_trading_day":"2026-12-04","tick":"0.01",)"),
      std::string::npos)
      << body;
  EXPECT_NE(body.find(R"("reference_price":"5.80","state":"open")"),
            std::string::npos)
      << body;
  EXPECT_EQ(api.Handle("GET", "/api/v1/book/B200-STD-20261205").status, 200u);

  // Expired: still answers, with its state, until the slot is listed again.
  exchange::Event expired;
  expired.seq = exchange::Seq{2};
  expired.type = exchange::EventType::kInstrumentStateChanged;
  expired.instrument = exchange::InstrumentId{3};
  expired.state = exchange::InstrumentState::kExpired;
  feed(expired);
  const HttpReply book = api.Handle("GET", "/api/v1/book/B200-STD-20261205");
  EXPECT_EQ(book.status, 200u);
  EXPECT_NE(book.body.find(R"("state":"expired")"), std::string::npos)
      << book.body;

  listed.seq = exchange::Seq{3};
  listed.count = 20'793;  // 2026-12-06
  feed(listed);
  EXPECT_EQ(api.Handle("GET", "/api/v1/book/B200-STD-20261205").status, 404u);
  EXPECT_EQ(api.Handle("GET", "/api/v1/trades/B200-STD-20261206").status, 200u);
  const std::string relisted = api.Handle("GET", "/api/v1/instruments").body;
  EXPECT_EQ(relisted.find("B200-STD-20261205"), std::string::npos);
  EXPECT_NE(relisted.find(R"("symbol":"B200-STD-20261206")"),
            std::string::npos);
}

TEST(HttpApi, EmptyHealthFunctionReportsOk) {
  const ServerConfig config = testing::HttpTestConfig();
  const InstrumentTable instruments(config);
  const MarketDataStore md(config);
  Metrics metrics;
  const HttpApi api(config, instruments, md, metrics, nullptr);
  EXPECT_EQ(api.Handle("GET", "/healthz").status, 200u);
}

}  // namespace
}  // namespace cfx::gateway
