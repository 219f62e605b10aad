// The CFX index on the HTTP port (docs/http.md, "The CFX index"): the JSON
// of one print, the chart page, and the endpoints behind a real HttpServer
// on an ephemeral port, fed by an in-memory IndexService.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/http/http_server.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "index/index_service.h"
#include "tests/gateway/http/http_request.h"
#include "tests/gateway/http/http_test_config.h"
#include "tests/gateway/http/index_test_events.h"

namespace cfx::gateway {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using index::Level;
using index::Print;
using testing::IndexFixingNs;
using testing::kIndexDay0;
using testing::Reply;
using testing::Request;

// ---------------------------------------------------------------- helpers

std::size_t Count(std::string_view haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string_view::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

std::string PrintJson(std::string_view grade, const Print& p) {
  JsonWriter w;
  WriteIndexPrint(grade, p, &w);
  return w.Take();
}

// A JSON document as a protobuf Struct; fails the test if it does not
// parse.
google::protobuf::Struct ParseJson(const std::string& body) {
  google::protobuf::Struct s;
  const auto status = google::protobuf::util::JsonStringToMessage(body, &s);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << body;
  return s;
}

const google::protobuf::Value& Field(const google::protobuf::Struct& s,
                                     const std::string& key) {
  static const google::protobuf::Value kMissing;
  auto it = s.fields().find(key);
  if (it == s.fields().end()) {
    ADD_FAILURE() << "no field \"" << key << "\"";
    return kMissing;
  }
  return it->second;
}

Print LevelOneAPrint() {
  Print p;
  p.grade = 0;
  p.day = kIndexDay0;
  p.computed_at_ns = IndexFixingNs(kIndexDay0);
  p.level = Level::k1a;
  p.has_value = true;
  p.value.micros = 5'812'000;
  p.trade_count = 12;
  p.sellers = 3;
  p.buyers = 3;
  p.gpu_hours = 4'608;
  p.p25.micros = 5'805'000;
  p.p75.micros = 5'820'050;
  p.partitions_used = 0b111011;
  p.has_upm = true;
  p.usd_per_million_tokens_micros = 6'458'000;
  p.attested_milli_tokens = 250'125;
  p.trade_ids = {3, 7, 12};
  return p;
}

// ---------------------------------------------------------------- JSON

TEST(IndexPrintJson, LevelOneAPrintCarriesEveryPublishedField) {
  EXPECT_EQ(
      PrintJson("B200-STD", LevelOneAPrint()),
      R"({"index":"CFX-B200-STD","grade":"B200-STD","date":"2026-12-01",)"
      R"("revision":0,"restated":false,)"
      R"("computed_at":"2026-12-01T21:00:00.000000000Z","level":"1a",)"
      R"("disrupted":false,"value":"5.812","trade_count":12,)"
      R"("distinct_sellers":3,"distinct_buyers":3,"gpu_hours":4608,)"
      R"("p25":"5.805","p75":"5.82005","partitions_used":[1,2,4,5,6],)"
      R"("usd_per_million_tokens":"6.458",)"
      R"("attested_tokens_per_s_per_gpu":"250.125","trade_ids":[3,7,12]})");
}

TEST(IndexPrintJson, CarriedPrintHasNoPercentilesAndNoTrades) {
  Print p;
  p.grade = 1;
  p.day = kIndexDay0 + 1;
  p.computed_at_ns = IndexFixingNs(kIndexDay0 + 1);
  p.level = Level::k4;
  p.has_value = true;
  p.value.micros = 5'700'000;
  p.p25.micros = 1;  // not published below Level 2, whatever it holds
  p.p75.micros = 2;
  p.has_upm = true;
  p.usd_per_million_tokens_micros = 6'333'000;
  p.attested_milli_tokens = 250'000;
  p.carry_run = 1;
  EXPECT_EQ(PrintJson("B200-PRM", p),
            R"({"index":"CFX-B200-PRM","grade":"B200-PRM","date":"2026-12-02",)"
            R"("revision":0,"restated":false,)"
            R"("computed_at":"2026-12-02T21:00:00.000000000Z","level":"4",)"
            R"("disrupted":false,"value":"5.700","trade_count":0,)"
            R"("distinct_sellers":0,"distinct_buyers":0,"gpu_hours":0,)"
            R"("p25":null,"p75":null,"partitions_used":[],)"
            R"("usd_per_million_tokens":"6.333",)"
            R"("attested_tokens_per_s_per_gpu":"250.000","trade_ids":[]})");
}

TEST(IndexPrintJson, DisruptedPrintWithNothingToCarryHasNullValue) {
  Print p;
  p.day = kIndexDay0;
  p.computed_at_ns = IndexFixingNs(kIndexDay0);
  p.level = Level::kDisrupted;
  p.has_value = false;
  const google::protobuf::Struct s = ParseJson(PrintJson("B200-STD", p));
  EXPECT_EQ(Field(s, "level").string_value(), "DISRUPTED");
  EXPECT_TRUE(Field(s, "disrupted").bool_value());
  EXPECT_EQ(Field(s, "value").kind_case(), google::protobuf::Value::kNullValue);
  EXPECT_EQ(Field(s, "p25").kind_case(), google::protobuf::Value::kNullValue);
  EXPECT_EQ(Field(s, "usd_per_million_tokens").kind_case(),
            google::protobuf::Value::kNullValue);
  // No attested throughput is known: null like every absent field.
  EXPECT_EQ(Field(s, "attested_tokens_per_s_per_gpu").kind_case(),
            google::protobuf::Value::kNullValue);
}

TEST(IndexPrintJson, DisruptedPrintWithACarriedValueShowsIt) {
  Print p;
  p.day = kIndexDay0;
  p.computed_at_ns = IndexFixingNs(kIndexDay0);
  p.level = Level::kDisrupted;
  p.has_value = true;
  p.value.micros = 5'801'000;
  const google::protobuf::Struct s = ParseJson(PrintJson("B200-STD", p));
  EXPECT_TRUE(Field(s, "disrupted").bool_value());
  EXPECT_EQ(Field(s, "value").string_value(), "5.801");
}

TEST(IndexPrintJson, RestatementIsMarkedWithItsRevisionAndTime) {
  Print p = LevelOneAPrint();
  p.revision = 2;
  p.computed_at_ns = IndexFixingNs(kIndexDay0) + 3 * testing::kHourNs / 2 + 123;
  const google::protobuf::Struct s = ParseJson(PrintJson("B200-STD", p));
  EXPECT_EQ(Field(s, "revision").number_value(), 2);
  EXPECT_TRUE(Field(s, "restated").bool_value());
  EXPECT_EQ(Field(s, "computed_at").string_value(),
            "2026-12-01T22:30:00.000000123Z");
  EXPECT_EQ(Field(s, "date").string_value(), "2026-12-01");
}

TEST(IndexPrintJson, MicrosKeepAtLeastThreeDecimals) {
  EXPECT_EQ(FormatMicros(5'800'000, 3), "5.800");
  EXPECT_EQ(FormatMicros(5'805'000, 3), "5.805");
  EXPECT_EQ(FormatMicros(5'800'050, 3), "5.80005");
  EXPECT_EQ(FormatMicros(5'800'001, 3), "5.800001");
  EXPECT_EQ(FormatMicros(0, 3), "0.000");
  EXPECT_EQ(FormatMicros(-1'500'000, 3), "-1.500");
  EXPECT_EQ(FormatMicros(12'000'000, 0), "12");
  EXPECT_EQ(FormatMicros(INT64_MIN, 3), "-9223372036854.775808");
}

// ---------------------------------------------------------------- page

Print ChartPrint(int64_t day, Level level, int64_t value_micros,
                 bool has_value = true) {
  Print p;
  p.day = day;
  p.computed_at_ns = IndexFixingNs(day);
  p.level = level;
  p.has_value = has_value;
  p.value.micros = value_micros;
  return p;
}

// The marker group of one print, up to its closing tag.
std::string MarkerOf(const std::string& page, const std::string& index,
                     const std::string& date) {
  const std::string open = "<g class=\"print\" data-index=\"" + index +
                           "\" data-date=\"" + date + "\"";
  const std::size_t at = page.find(open);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no marker for " << index << " " << date;
    return {};
  }
  return page.substr(at, page.find("</g>", at) + 4 - at);
}

TEST(IndexPage, EachLevelHasItsOwnMarkerAndATooltip) {
  IndexSeries s{"B200-STD", {}};
  s.prints.push_back(ChartPrint(kIndexDay0, Level::k1a, 5'800'000));
  s.prints.push_back(ChartPrint(kIndexDay0 + 1, Level::k1b, 5'810'000));
  s.prints.push_back(ChartPrint(kIndexDay0 + 2, Level::k2, 5'820'000));
  s.prints.push_back(ChartPrint(kIndexDay0 + 3, Level::k3, 5'830'000));
  s.prints.push_back(ChartPrint(kIndexDay0 + 4, Level::k4, 5'830'000));
  s.prints.push_back(ChartPrint(kIndexDay0 + 5, Level::kDisrupted, 0, false));
  s.prints.back().revision = 1;
  const std::string page = RenderIndexPage({s});
  SCOPED_TRACE(page);
  EXPECT_EQ(Count(page, "<g class=\"print\""), 6u);

  const std::string m1a = MarkerOf(page, "CFX-B200-STD", "2026-12-01");
  EXPECT_NE(m1a.find("data-level=\"1a\""), std::string::npos);
  EXPECT_NE(m1a.find("<circle"), std::string::npos);
  EXPECT_NE(m1a.find("fill=\"#1f77b4\""), std::string::npos);  // filled
  EXPECT_NE(m1a.find("<title>CFX-B200-STD 2026-12-01: 5.800 USD/GPU-hour, "
                     "level 1a</title>"),
            std::string::npos);
  const std::string m1b = MarkerOf(page, "CFX-B200-STD", "2026-12-02");
  EXPECT_NE(m1b.find("data-level=\"1b\""), std::string::npos);
  EXPECT_NE(m1b.find("<circle"), std::string::npos);
  EXPECT_NE(m1b.find("fill=\"#1f77b4\""), std::string::npos);
  const std::string m2 = MarkerOf(page, "CFX-B200-STD", "2026-12-03");
  EXPECT_NE(m2.find("data-level=\"2\""), std::string::npos);
  EXPECT_NE(m2.find("<circle"), std::string::npos);
  EXPECT_NE(m2.find("fill=\"#ffffff\""), std::string::npos);  // hollow
  const std::string m3 = MarkerOf(page, "CFX-B200-STD", "2026-12-04");
  EXPECT_NE(m3.find("data-level=\"3\""), std::string::npos);
  EXPECT_NE(m3.find("<rect"), std::string::npos);
  const std::string m4 = MarkerOf(page, "CFX-B200-STD", "2026-12-05");
  EXPECT_NE(m4.find("data-level=\"4\""), std::string::npos);
  EXPECT_NE(m4.find("<polygon"), std::string::npos);
  const std::string md = MarkerOf(page, "CFX-B200-STD", "2026-12-06");
  EXPECT_NE(md.find("data-level=\"DISRUPTED\""), std::string::npos);
  EXPECT_NE(md.find("<path"), std::string::npos);
  EXPECT_NE(md.find("stroke=\"#d62728\""), std::string::npos);  // red cross
  EXPECT_NE(md.find(": none USD/GPU-hour, level DISRUPTED, restated "
                    "(revision 1)</title>"),
            std::string::npos);
  // The line joins the five prints with a value.
  const std::size_t line = page.find("<polyline");
  ASSERT_NE(line, std::string::npos);
  const std::size_t points = page.find("points=\"", line) + 8;
  EXPECT_EQ(Count(page.substr(points, page.find('"', points) - points), ","),
            5u);
}

TEST(IndexPage, OnePolylinePerGradeWithAValueAndEveryGradeInTheLegend) {
  IndexSeries std_series{"B200-STD", {}};
  IndexSeries prm_series{"B200-PRM", {}};
  IndexSeries new_series{"H100-STD", {}};  // no print yet
  for (int d = 0; d < 40; ++d) {
    std_series.prints.push_back(
        ChartPrint(kIndexDay0 + d, Level::k1a, 5'800'000 + d * 10'000));
    prm_series.prints.push_back(
        ChartPrint(kIndexDay0 + d, Level::k2, 6'400'000 - d * 5'000));
  }
  const std::string page =
      RenderIndexPage({std_series, prm_series, new_series});
  EXPECT_EQ(Count(page, "<svg"), 1u);
  EXPECT_EQ(Count(page, "<polyline"), 2u);
  EXPECT_EQ(
      Count(page, "<polyline class=\"series\" data-index=\"CFX-B200-STD\""),
      1u);
  EXPECT_EQ(
      Count(page, "<polyline class=\"series\" data-index=\"CFX-B200-PRM\""),
      1u);
  EXPECT_EQ(Count(page, "<g class=\"print\""), 80u);
  EXPECT_EQ(Count(page, "data-level=\"1a\""), 40u);
  EXPECT_EQ(Count(page, "data-level=\"2\""), 40u);
  // Two grades, two colours.
  EXPECT_NE(page.find("stroke=\"#1f77b4\" stroke-width=\"2\" points"),
            std::string::npos);
  EXPECT_NE(page.find("stroke=\"#ff7f0e\" stroke-width=\"2\" points"),
            std::string::npos);
  for (const char* name : {"CFX-B200-STD", "CFX-B200-PRM", "CFX-H100-STD"}) {
    EXPECT_NE(page.find(std::string(">") + name + "</text>"), std::string::npos)
        << name << " missing from the legend";
  }
  EXPECT_NE(page.find("no print yet"), std::string::npos);
  // Axis labels: the first date and values on the y axis.
  EXPECT_NE(page.find(">2026-12-01</text>"), std::string::npos);
  EXPECT_NE(page.find(">USD per GPU-hour</text>"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST(IndexPage, WithoutPrintsShowsAnEmptyChart) {
  for (const std::vector<IndexSeries>& series :
       {std::vector<IndexSeries>{},
        std::vector<IndexSeries>{{"B200-STD", {}}}}) {
    const std::string page = RenderIndexPage(series);
    EXPECT_NE(page.find("<svg"), std::string::npos);
    EXPECT_NE(page.find("No index prints yet"), std::string::npos);
    EXPECT_EQ(page.find("<polyline"), std::string::npos);
    EXPECT_EQ(page.find("<g class=\"print\""), std::string::npos);
    EXPECT_NE(page.find("</svg>"), std::string::npos);
    EXPECT_NE(page.find("</html>"), std::string::npos);
  }
}

TEST(IndexPage, OnePrintIsOneMarkerInTheMiddle) {
  IndexSeries s{"B200-STD", {ChartPrint(kIndexDay0, Level::k1b, 5'800'000)}};
  const std::string page = RenderIndexPage({s});
  EXPECT_EQ(Count(page, "<g class=\"print\""), 1u);
  // One date: the marker sits mid-plot, not at a NaN or infinite x.
  EXPECT_NE(MarkerOf(page, "CFX-B200-STD", "2026-12-01").find("cx=\"410.0\""),
            std::string::npos);
  EXPECT_EQ(page.find("nan"), std::string::npos);
  EXPECT_EQ(page.find("inf"), std::string::npos);
}

TEST(IndexPage, NamesAreEscaped) {
  IndexSeries s{"<script>alert('x')</script>&\"",
                {ChartPrint(kIndexDay0, Level::k1a, 5'800'000)}};
  const std::string page = RenderIndexPage({s});
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("alert('x')"), std::string::npos);
  EXPECT_NE(page.find("CFX-&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"
                      "&amp;&quot;"),
            std::string::npos);
}

// ---------------------------------------------------------------- server

class IndexHttpTest : public ::testing::Test {
 protected:
  IndexHttpTest()
      : config_(testing::HttpTestConfig()),
        instruments_(config_),
        md_(config_),
        index_(index::IndexService::InMemory(testing::IndexTestConfig())) {}

  ~IndexHttpTest() override {
    if (thread_.joinable()) {
      asio::post(io_, [this] { server_->Stop(); });
      thread_.join();
    }
  }

  // Serves `index_` (or no index) on an ephemeral port from a server thread.
  void StartServer(bool with_index = true) {
    server_ = std::make_unique<HttpServer>(io_, config_, instruments_, md_,
                                           metrics_, nullptr);
    if (with_index) server_->set_index(index_.get());
    const Status status = server_->Listen("127.0.0.1", 0);
    ASSERT_TRUE(status.ok()) << status.ToString();
    thread_ = std::thread([this] { io_.run(); });
  }

  // Three days: B200-STD trades on days 0 and 1 (Level 1a both days) and
  // not on day 2 (Level 2, pooling days 0-2); B200-PRM trades on day 0
  // only (1a, then Level 2 on days 1 and 2).
  void FeedThreeDays() {
    testing::IndexEventStream s;
    s.LevelOneDay(testing::kStdSpot, kIndexDay0, 58'000);
    s.LevelOneDay(testing::kPrmSpot, kIndexDay0, 64'000);
    s.Fixing(kIndexDay0);
    s.LevelOneDay(testing::kStdSpot, kIndexDay0 + 1, 58'200);
    s.Fixing(kIndexDay0 + 1);
    s.Fixing(kIndexDay0 + 2);
    for (const exchange::Event& e : s.Take()) index_->OnEvent(e);
  }

  Reply Get(std::string_view target) {
    return Request(server_->port(), http::verb::get, target);
  }

  // Every name the server must never show: firms, accounts, users.
  std::vector<std::string> PrivateNames() const {
    std::vector<std::string> names = testing::PrivateNames(config_);
    for (const std::string& n : testing::IndexFirmNames()) {
      if (!n.empty()) names.push_back(n);
    }
    return names;
  }

  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  Metrics metrics_;
  std::unique_ptr<index::IndexService> index_;
  asio::io_context io_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

TEST_F(IndexHttpTest, LatestPrintByGradeOrByIndexName) {
  FeedThreeDays();
  StartServer();
  const Print* latest = index_->Latest(0);
  ASSERT_NE(latest, nullptr);
  const Reply r = Get("/api/v1/index/B200-STD");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, PrintJson("B200-STD", *latest));
  EXPECT_EQ(Get("/api/v1/index/CFX-B200-STD").body, r.body);

  const google::protobuf::Struct s = ParseJson(r.body);
  EXPECT_EQ(Field(s, "index").string_value(), "CFX-B200-STD");
  EXPECT_EQ(Field(s, "grade").string_value(), "B200-STD");
  EXPECT_EQ(Field(s, "date").string_value(), "2026-12-03");
  EXPECT_EQ(Field(s, "level").string_value(), "2");
  EXPECT_FALSE(Field(s, "disrupted").bool_value());
  EXPECT_EQ(Field(s, "revision").number_value(), 0);
  EXPECT_EQ(Field(s, "computed_at").string_value(),
            "2026-12-03T21:00:00.000000000Z");
  ASSERT_TRUE(latest->has_value);
  EXPECT_EQ(Field(s, "value").string_value(),
            FormatMicros(latest->value.micros, 3));
  // Level 2 pools both trading days of the grade: 24 trades.
  EXPECT_EQ(Field(s, "trade_count").number_value(), 24);
  EXPECT_EQ(Field(s, "distinct_sellers").number_value(), 3);
  EXPECT_EQ(Field(s, "distinct_buyers").number_value(), 3);
  EXPECT_EQ(Field(s, "gpu_hours").number_value(), 24 * 2 * 192);
  EXPECT_EQ(Field(s, "trade_ids").list_value().values_size(), 24);
  EXPECT_EQ(Field(s, "p25").kind_case(), google::protobuf::Value::kStringValue);
  EXPECT_EQ(Field(s, "attested_tokens_per_s_per_gpu").string_value(),
            "250.000");
}

TEST_F(IndexHttpTest, HistoryListsTheLatestRevisionOfEachDayOldestFirst) {
  FeedThreeDays();
  StartServer();
  Reply r = Get("/api/v1/index/B200-STD?from=2026-12-01&to=2026-12-03");
  ASSERT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  google::protobuf::Struct s = ParseJson(r.body);
  EXPECT_EQ(Field(s, "index").string_value(), "CFX-B200-STD");
  EXPECT_EQ(Field(s, "from").string_value(), "2026-12-01");
  EXPECT_EQ(Field(s, "to").string_value(), "2026-12-03");
  const auto& prints = Field(s, "prints").list_value();
  ASSERT_EQ(prints.values_size(), 3);
  const char* dates[] = {"2026-12-01", "2026-12-02", "2026-12-03"};
  const char* levels[] = {"1a", "1a", "2"};
  // Level 1a: the mean of the six partitions' medians, rounded half-up
  // (5.8175 and 5.8375).
  EXPECT_EQ(Field(prints.values(0).struct_value(), "value").string_value(),
            "5.818");
  EXPECT_EQ(Field(prints.values(1).struct_value(), "value").string_value(),
            "5.838");
  for (int i = 0; i < 3; ++i) {
    const auto& p = prints.values(i).struct_value();
    EXPECT_EQ(Field(p, "date").string_value(), dates[i]);
    EXPECT_EQ(Field(p, "level").string_value(), levels[i]);
    const Print* expected = index_->Find(0, kIndexDay0 + i);
    ASSERT_NE(expected, nullptr);
    EXPECT_EQ(Field(p, "value").string_value(),
              FormatMicros(expected->value.micros, 3));
  }
  // The same JSON objects as the latest endpoint.
  EXPECT_NE(r.body.find(PrintJson("B200-STD", *index_->Latest(0))),
            std::string::npos);

  // Either bound may be left out.
  s = ParseJson(Get("/api/v1/index/CFX-B200-STD?from=2026-12-02").body);
  EXPECT_EQ(Field(s, "prints").list_value().values_size(), 2);
  EXPECT_EQ(Field(s, "to").string_value(), "2026-12-03");
  s = ParseJson(Get("/api/v1/index/B200-STD?to=2026-12-01").body);
  ASSERT_EQ(Field(s, "prints").list_value().values_size(), 1);
  EXPECT_EQ(
      Field(Field(s, "prints").list_value().values(0).struct_value(), "date")
          .string_value(),
      "2026-12-01");
  s = ParseJson(
      Get("/api/v1/index/B200-PRM?from=2026-12-02&to=2026-12-02").body);
  ASSERT_EQ(Field(s, "prints").list_value().values_size(), 1);
  EXPECT_EQ(
      Field(Field(s, "prints").list_value().values(0).struct_value(), "level")
          .string_value(),
      "2");
  // A range without prints is an empty list.
  r = Get("/api/v1/index/B200-STD?from=2027-01-01");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(Field(ParseJson(r.body), "prints").list_value().values_size(), 0);
  // 1,000 days is the most.
  r = Get("/api/v1/index/B200-STD?from=2024-03-09&to=2026-12-03");
  EXPECT_EQ(r.status, 200u) << r.body;
  EXPECT_EQ(Field(ParseJson(r.body), "prints").list_value().values_size(), 3);
}

TEST_F(IndexHttpTest, AllRevisionsListsTheFixingAndEachRestatementWithItsTime) {
  testing::IndexEventStream s;
  s.TwiceRestatedDay(kIndexDay0, 58'000);
  s.LevelOneDay(testing::kStdSpot, kIndexDay0 + 1, 58'200);
  s.Fixing(kIndexDay0 + 1);
  for (const exchange::Event& e : s.Take()) index_->OnEvent(e);
  const std::vector<Print> day0 = index_->Revisions(0, kIndexDay0);
  ASSERT_EQ(day0.size(), 3u) << "the busts did not restate day 0 twice";
  StartServer();

  Reply r =
      Get("/api/v1/index/B200-STD?from=2026-12-01&to=2026-12-02&revisions=all");
  ASSERT_EQ(r.status, 200u) << r.body;
  google::protobuf::Struct body = ParseJson(r.body);
  EXPECT_EQ(Field(body, "revisions").string_value(), "all");
  const auto& prints = Field(body, "prints").list_value();
  ASSERT_EQ(prints.values_size(), 4);
  const char* computed_at[] = {
      "2026-12-01T21:00:00.000000000Z", "2026-12-01T21:30:00.000000000Z",
      "2026-12-01T22:00:00.000000000Z", "2026-12-02T21:00:00.000000000Z"};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const auto& p = prints.values(i).struct_value();
    EXPECT_EQ(Field(p, "date").string_value(),
              i < 3 ? "2026-12-01" : "2026-12-02");
    EXPECT_EQ(Field(p, "revision").number_value(), i < 3 ? i : 0);
    EXPECT_EQ(Field(p, "restated").bool_value(), i == 1 || i == 2);
    EXPECT_EQ(Field(p, "computed_at").string_value(), computed_at[i]);
  }
  // Each is the print object of that revision.
  for (const Print& p : day0) {
    EXPECT_NE(r.body.find(PrintJson("B200-STD", p)), std::string::npos)
        << "revision " << p.revision;
  }
  EXPECT_NE(Field(prints.values(0).struct_value(), "value").string_value(),
            Field(prints.values(2).struct_value(), "value").string_value());

  // The default, and revisions=latest, read the latest revision per day.
  for (const char* target :
       {"/api/v1/index/B200-STD?from=2026-12-01&to=2026-12-02",
        "/api/v1/index/"
        "B200-STD?revisions=latest&from=2026-12-01&to=2026-12-02"}) {
    SCOPED_TRACE(target);
    r = Get(target);
    ASSERT_EQ(r.status, 200u) << r.body;
    body = ParseJson(r.body);
    EXPECT_EQ(Field(body, "revisions").string_value(), "latest");
    const auto& latest = Field(body, "prints").list_value();
    ASSERT_EQ(latest.values_size(), 2);
    EXPECT_EQ(Field(latest.values(0).struct_value(), "revision").number_value(),
              2);
  }
  // revisions=all alone: every revision of the latest print's day.
  r = Get("/api/v1/index/CFX-B200-STD?revisions=all");
  ASSERT_EQ(r.status, 200u) << r.body;
  body = ParseJson(r.body);
  EXPECT_EQ(Field(body, "from").string_value(), "2026-12-02");
  EXPECT_EQ(Field(body, "to").string_value(), "2026-12-02");
  EXPECT_EQ(Field(body, "prints").list_value().values_size(), 1);
  // revisions=latest alone is the latest print, as without it.
  EXPECT_EQ(Get("/api/v1/index/B200-STD?revisions=latest").body,
            PrintJson("B200-STD", *index_->Latest(0)));
}

TEST_F(IndexHttpTest, RevisionsIsLatestOrAllAndGivenOnce) {
  FeedThreeDays();
  StartServer();
  const std::pair<const char*, const char*> cases[] = {
      {"/api/v1/index/B200-STD?revisions=every",
       R"({"error":"query parameter \"revisions\" must be \"latest\" or \"all\""})"},
      {"/api/v1/index/B200-STD?revisions",
       R"({"error":"query parameter \"revisions\" must be \"latest\" or \"all\""})"},
      {"/api/v1/index/B200-STD?revisions=ALL",
       R"({"error":"query parameter \"revisions\" must be \"latest\" or \"all\""})"},
      {"/api/v1/index/B200-STD?revisions=all&revisions=all",
       R"({"error":"query parameter \"revisions\" given twice"})"},
      {"/api/v1/index?revisions=all",
       R"({"error":"unknown query parameter \"revisions\""})"},
  };
  for (const auto& [target, error] : cases) {
    SCOPED_TRACE(target);
    const Reply r = Get(target);
    EXPECT_EQ(r.status, 400u);
    EXPECT_EQ(r.body, error);
  }
}

// 667 days restated twice each hold 2,001 prints: more than one history
// with every revision may hold, though the days are within the range bound.
TEST_F(IndexHttpTest, AHistoryWithEveryRevisionIsBounded) {
  testing::IndexEventStream s;
  constexpr int64_t kDays = 667;
  for (int64_t d = 0; d < kDays; ++d)
    s.TwiceRestatedDay(kIndexDay0 + d, 58'000);
  for (const exchange::Event& e : s.Take()) index_->OnEvent(e);
  const int64_t last = kIndexDay0 + kDays - 1;
  ASSERT_EQ(index_->RevisionCount(0, kIndexDay0, last), 2'001u);
  StartServer();
  const std::string range =
      "from=" + FormatDay(kIndexDay0) + "&to=" + FormatDay(last);
  Reply r = Get("/api/v1/index/B200-STD?" + range + "&revisions=all");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(
      r.body,
      R"({"error":"2026-12-01 to )" + FormatDay(last) +
          R"( holds 2001 revisions; a history with every revision holds at most 2000"})");
  // One day fewer fits; the latest revisions of all of them do too.
  r = Get("/api/v1/index/B200-STD?from=" + FormatDay(kIndexDay0 + 1) +
          "&to=" + FormatDay(last) + "&revisions=all");
  ASSERT_EQ(r.status, 200u) << r.body.substr(0, 200);
  EXPECT_EQ(Field(ParseJson(r.body), "prints").list_value().values_size(),
            1'998);
  r = Get("/api/v1/index/B200-STD?" + range);
  ASSERT_EQ(r.status, 200u);
  EXPECT_EQ(Field(ParseJson(r.body), "prints").list_value().values_size(), 667);
}

TEST_F(IndexHttpTest, MalformedOrOversizedRangesAre400) {
  FeedThreeDays();
  StartServer();
  const std::pair<const char*, const char*> cases[] = {
      {"/api/v1/index/B200-STD?from=2026-13-01",
       R"({"error":"query parameter \"from\" must be a date YYYY-MM-DD"})"},
      {"/api/v1/index/B200-STD?to=2026-12-1",
       R"({"error":"query parameter \"to\" must be a date YYYY-MM-DD"})"},
      {"/api/v1/index/B200-STD?from=2026-02-29",
       R"({"error":"query parameter \"from\" must be a date YYYY-MM-DD"})"},
      {"/api/v1/index/B200-STD?from",
       R"({"error":"query parameter \"from\" must be a date YYYY-MM-DD"})"},
      {"/api/v1/index/B200-STD?from=2026-12-03&to=2026-12-01",
       R"({"error":"query parameter \"from\" is after \"to\""})"},
      {"/api/v1/index/B200-STD?from=2024-03-08&to=2026-12-03",
       R"({"error":"a history covers at most 1000 days"})"},
      {"/api/v1/index/B200-STD?from=2026-12-01&from=2026-12-02",
       R"({"error":"query parameter \"from\" given twice"})"},
      {"/api/v1/index/B200-STD?depth=1",
       R"({"error":"unknown query parameter \"depth\""})"},
      {"/api/v1/index?from=2026-12-01",
       R"({"error":"unknown query parameter \"from\""})"},
      {"/api/v1/index/B200%20STD", R"({"error":"invalid grade"})"},
      {"/api/v1/index/", R"({"error":"invalid grade"})"},
  };
  for (const auto& [target, error] : cases) {
    SCOPED_TRACE(target);
    const Reply r = Get(target);
    EXPECT_EQ(r.status, 400u);
    EXPECT_EQ(r.content_type, "application/json");
    EXPECT_EQ(r.body, error);
  }
}

TEST_F(IndexHttpTest, UnknownGradeAndGradeWithoutPrintAre404) {
  StartServer();
  Reply r = Get("/api/v1/index/B999-XXX");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.body, R"({"error":"unknown index \"B999-XXX\""})");
  r = Get("/api/v1/index/CFX-B999-XXX?from=2026-12-01");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.body, R"({"error":"unknown index \"CFX-B999-XXX\""})");
  r = Get("/api/v1/index/B200-STD");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.body, R"({"error":"no print yet for CFX-B200-STD"})");
  // Grades are case-sensitive, like symbols.
  EXPECT_EQ(Get("/api/v1/index/b200-std").status, 404u);
}

TEST_F(IndexHttpTest, GradeListHasEveryGradeWithItsLatestPrintOrNull) {
  StartServer();
  EXPECT_EQ(Get("/api/v1/index").body,
            R"({"grades":[)"
            R"({"index":"CFX-B200-STD","grade":"B200-STD","latest":null},)"
            R"({"index":"CFX-B200-PRM","grade":"B200-PRM","latest":null}]})");
  // The index belongs to the server thread.
  std::promise<void> fed;
  asio::post(io_, [this, &fed] {
    FeedThreeDays();
    fed.set_value();
  });
  fed.get_future().wait();
  const Reply r = Get("/api/v1/index");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, R"({"grades":[)"
                    R"({"index":"CFX-B200-STD","grade":"B200-STD","latest":)" +
                        PrintJson("B200-STD", *index_->Latest(0)) +
                        R"(},{"index":"CFX-B200-PRM","grade":"B200-PRM",)"
                        R"("latest":)" +
                        PrintJson("B200-PRM", *index_->Latest(1)) + "}]}");
}

TEST_F(IndexHttpTest, PageChartsEveryGradeWithAMarkerPerPrint) {
  FeedThreeDays();
  StartServer();
  const Reply r = Get("/index");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(r.csp, "default-src 'none'; style-src 'unsafe-inline'");
  EXPECT_EQ(r.body.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(r.body, "<svg"), 1u);
  EXPECT_EQ(Count(r.body, "<polyline"), 2u);
  EXPECT_EQ(Count(r.body, "<g class=\"print\""), 6u);
  for (int d = 0; d < 3; ++d) {
    for (uint32_t g = 0; g < 2; ++g) {
      const Print* p = index_->Find(g, kIndexDay0 + d);
      ASSERT_NE(p, nullptr);
      const std::string name = g == 0 ? "CFX-B200-STD" : "CFX-B200-PRM";
      const std::string date = "2026-12-0" + std::to_string(d + 1);
      const std::string marker = MarkerOf(r.body, name, date);
      EXPECT_NE(marker.find("data-level=\"" +
                            std::string(index::LevelName(p->level)) + "\""),
                std::string::npos)
          << marker;
      EXPECT_NE(marker.find(FormatMicros(p->value.micros, 3)),
                std::string::npos)
          << marker;
    }
  }
  EXPECT_EQ(r.body.find("<script"), std::string::npos);
  EXPECT_NE(r.body.find("href=\"/api/v1/index\""), std::string::npos);
}

TEST_F(IndexHttpTest, PageWithoutPrintsIsAnEmptyChart) {
  StartServer();
  const Reply r = Get("/index");
  EXPECT_EQ(r.status, 200u);
  EXPECT_NE(r.body.find("<svg"), std::string::npos);
  EXPECT_NE(r.body.find("No index prints yet"), std::string::npos);
  EXPECT_EQ(Count(r.body, "<g class=\"print\""), 0u);
}

TEST_F(IndexHttpTest, NoIndexViewNamesAFirmOrAnAccount) {
  FeedThreeDays();
  StartServer();
  for (const char* target :
       {"/api/v1/index", "/api/v1/index/B200-STD", "/api/v1/index/B200-PRM",
        "/api/v1/index/B200-STD?from=2026-12-01", "/index"}) {
    const Reply r = Get(target);
    ASSERT_EQ(r.status, 200u) << target;
    for (const std::string& name : PrivateNames()) {
      EXPECT_EQ(r.body.find(name), std::string::npos)
          << name << " in " << target;
    }
  }
}

TEST_F(IndexHttpTest, OnlyGetAndHeadAreAnswered) {
  FeedThreeDays();
  StartServer();
  const Reply get = Get("/api/v1/index/B200-STD");
  const Reply head =
      Request(server_->port(), http::verb::head, "/api/v1/index/B200-STD");
  EXPECT_EQ(head.status, 200u);
  EXPECT_TRUE(head.body.empty());
  EXPECT_FALSE(get.body.empty());
  for (const char* target :
       {"/api/v1/index", "/api/v1/index/B200-STD", "/index"}) {
    const Reply r = Request(server_->port(), http::verb::post, target);
    EXPECT_EQ(r.status, 405u) << target;
  }
}

TEST_F(IndexHttpTest, WithoutAnIndexServiceThereAreNoGrades) {
  FeedThreeDays();
  StartServer(/*with_index=*/false);
  EXPECT_EQ(Get("/api/v1/index").body, R"({"grades":[]})");
  EXPECT_EQ(Get("/api/v1/index/B200-STD").status, 404u);
  EXPECT_EQ(Get("/index").status, 200u);
}

}  // namespace
}  // namespace cfx::gateway
