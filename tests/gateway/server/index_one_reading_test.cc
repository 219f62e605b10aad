// One print, one reading (docs/http.md, "The print object"): a print made
// in a running exchange reads the same over HTTP JSON, `cfx index show
// --json`, protobuf and FIX market data. Three rated and attested providers
// sell B200-STD node-days to three traders on the simulated clock; the
// 21:00 fixing gives a Level 1b print with every field, and B200-PRM,
// which never traded, a DISRUPTED print with nothing to carry. Each print
// is read through the four interfaces and compared field by field, in one
// canonical text per field: the same names, the same decimals, the same
// level spelling, and null (an absent protobuf string, a left-out FIX tag)
// for what the print does not have.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exchange/clock.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/http/http_request.h"
#include "tests/gateway/server/graded_market.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::server_test {
namespace {

using fix_test::FixMessage;
using fix_test::FixTestClient;

constexpr int64_t kHour = 3'600 * kSecond;
constexpr Millis kFixWait{5'000};

// Field name -> its text; nullopt = null (absent). Numbers in decimal,
// booleans "true"/"false", lists space-separated, times as ISO 8601 UTC.
using Reading = std::map<std::string, std::optional<std::string>>;

// The published fields that may be null; the others always have a value.
const char* const kNullable[] = {"value", "p25", "p75",
                                 "usd_per_million_tokens",
                                 "attested_tokens_per_s_per_gpu"};

// The JSON object of a print (HTTP, cfx --json) as a Reading.
Reading FromJson(const std::string& json) {
  google::protobuf::Struct s;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &s);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  Reading r;
  for (const auto& [key, v] : s.fields()) {
    switch (v.kind_case()) {
      case google::protobuf::Value::kNullValue:
        r[key] = std::nullopt;
        break;
      case google::protobuf::Value::kStringValue:
        r[key] = v.string_value();
        break;
      case google::protobuf::Value::kBoolValue:
        r[key] = v.bool_value() ? "true" : "false";
        break;
      case google::protobuf::Value::kNumberValue:
        r[key] = std::to_string(static_cast<int64_t>(v.number_value()));
        break;
      case google::protobuf::Value::kListValue: {
        std::string list;
        for (const auto& x : v.list_value().values()) {
          if (!list.empty()) list += ' ';
          list += std::to_string(static_cast<int64_t>(x.number_value()));
        }
        r[key] = list;
        break;
      }
      default:
        ADD_FAILURE() << "unexpected JSON kind for " << key;
    }
  }
  return r;
}

std::optional<std::string> NullIfEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

template <typename List>
std::string Joined(const List& list) {
  std::string out;
  for (const auto& x : list) {
    if (!out.empty()) out += ' ';
    out += std::to_string(x);
  }
  return out;
}

// A protobuf IndexPrint as a Reading: "" is null for the nullable strings;
// the level is level_name, computed_at_ns an ISO time.
Reading FromProtobuf(const w::IndexPrint& p) {
  Reading r;
  r["index"] = p.index();
  r["grade"] = p.grade();
  r["date"] = p.date();
  r["revision"] = std::to_string(p.revision());
  r["restated"] = p.restated() ? "true" : "false";
  r["computed_at"] =
      exchange::FormatUtcTimestamp(exchange::Timestamp{p.computed_at_ns()});
  r["level"] = p.level_name();
  r["disrupted"] = p.disrupted() ? "true" : "false";
  r["value"] = NullIfEmpty(p.value());
  r["trade_count"] = std::to_string(p.trade_count());
  r["distinct_sellers"] = std::to_string(p.distinct_sellers());
  r["distinct_buyers"] = std::to_string(p.distinct_buyers());
  r["gpu_hours"] = std::to_string(p.gpu_hours());
  r["p25"] = NullIfEmpty(p.p25());
  r["p75"] = NullIfEmpty(p.p75());
  r["partitions_used"] = Joined(p.partitions_used());
  r["usd_per_million_tokens"] = NullIfEmpty(p.usd_per_million_tokens());
  r["attested_tokens_per_s_per_gpu"] =
      NullIfEmpty(p.attested_tokens_per_s_per_gpu());
  r["trade_ids"] = Joined(p.trade_ids());
  return r;
}

// The one NoMDEntries entry of a FIX snapshot as a Reading of the fields
// FIX carries (docs/fix.md, "Index values"): a left-out tag is null, or an
// empty list; the date and time in ISO form (FIX times have milliseconds).
Reading FromFix(const FixMessage& m) {
  const fix_test::FixGroup* g = m.FindGroup(268);
  if (g == nullptr || g->entries.size() != 1) {
    ADD_FAILURE() << "expected one entry in " << m.ToString();
    return {};
  }
  const fix_test::FixFields& e = g->entries[0];
  const auto tag = [&e](int t) -> std::optional<std::string> {
    const std::string* v = fix_test::FindIn(e, t);
    return v == nullptr ? std::nullopt : std::optional<std::string>(*v);
  };
  Reading r;
  r["index"] = m.Get(55);
  const std::string date = tag(272).value_or("");  // YYYYMMDD
  r["date"] = date.size() == 8 ? date.substr(0, 4) + "-" + date.substr(4, 2) +
                                     "-" + date.substr(6, 2)
                               : date;
  r["revision"] = tag(5812);
  const std::string at = tag(5813).value_or("");  // YYYYMMDD-HH:MM:SS.sss
  r["computed_at"] = at.size() == 21
                         ? at.substr(0, 4) + "-" + at.substr(4, 2) + "-" +
                               at.substr(6, 2) + "T" + at.substr(9)
                         : at;
  r["level"] = tag(5810);
  r["disrupted"] = tag(5811) == "Y" ? "true" : "false";
  r["value"] = tag(270);
  r["trade_count"] = tag(5814);
  r["distinct_sellers"] = tag(5815);
  r["distinct_buyers"] = tag(5816);
  r["gpu_hours"] = tag(5817);
  r["p25"] = tag(5818);
  r["p75"] = tag(5819);
  r["partitions_used"] = tag(5820).value_or("");
  r["usd_per_million_tokens"] = tag(5821);
  r["attested_tokens_per_s_per_gpu"] = tag(5822);
  r["trade_ids"] = tag(5823).value_or("");
  return r;
}

// `full` restricted to the fields of `part`, times cut to milliseconds.
Reading AsFixReads(const Reading& full, const Reading& part) {
  Reading r;
  for (const auto& [key, value] : part) {
    auto it = full.find(key);
    if (it == full.end()) continue;
    r[key] = it->second;
  }
  if (r["computed_at"].has_value()) {
    r["computed_at"] = r["computed_at"]->substr(0, 23);  // ...SS.sss
  }
  return r;
}

class IndexOneReadingTest : public GradedMarketTest {
 protected:
  // Seller `s` rests a sell of 2 lots at `price`; buyer `b` takes it.
  void Trade(client::Client& s, client::Client& b, int64_t price) {
    auto sell = SendOrder(
        s, NewOrder(++next_order_, w::SIDE_SELL, price, 2, kStd), &others_);
    ASSERT_TRUE(sell.has_value()) << sell.error().ToString();
    ASSERT_EQ(sell.value().exec_type(), w::EXEC_TYPE_NEW)
        << sell.value().text();
    const uint64_t cl = ++next_order_;
    w::Envelope order = NewOrder(cl, w::SIDE_BUY, price, 2, kStd);
    order.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_IOC);
    ASSERT_TRUE(b.Send(order).ok());
    auto fill = AwaitReport(b, [cl](const w::ExecutionReport& x) {
      return x.client_order_id() == cl && x.exec_type() == w::EXEC_TYPE_TRADE;
    });
    ASSERT_TRUE(fill.has_value()) << fill.error().ToString();
  }

  // The print of `grade` as the protobuf gateway answers an IndexQuery.
  w::IndexPrint Protobuf(const std::string& grade) {
    auto r = QueryIndex(*trader_, grade, ++next_request_);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    if (!r.has_value() || r.value().prints_size() != 1) {
      ADD_FAILURE() << "no print of " << grade;
      return {};
    }
    return r.value().prints(0);
  }


  // `cfx index show GRADE --json` against the server's protobuf port.
  std::string Tool(const std::string& grade) {
    const std::string cmd =
        "env -u CFX_HOST -u CFX_PORT -u CFX_API_KEY -u CFX_API_SECRET "
        "-u CFX_API_KEY_FILE " +
        std::string(CFX_TOOL) + " --port " + std::to_string(server_.port()) +
        " --api-key clear-1 index show " + grade +
        " --json </dev/null 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    EXPECT_NE(f, nullptr);
    if (f == nullptr) return {};
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) {
      out.append(buf, n);
    }
    const int status = pclose(f);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    return out;
  }

  // The FIX MarketDataSnapshotFullRefresh of CFX-`grade`.
  FixMessage Fix(FixTestClient& c, const std::string& grade) {
    const std::string req_id = "md-" + grade;
    EXPECT_TRUE(
        c.Send("V", {{262, req_id}, {263, "0"}, {264, "0"}},
               {{267, {{{269, "3"}}}}, {146, {{{55, "CFX-" + grade}}}}}));
    FixMessage m;
    EXPECT_TRUE(c.Await(
        [req_id](const FixMessage& x) {
          return x.type == "W" && x.Get(262) == req_id;
        },
        kFixWait, &m))
        << c.Describe();
    return m;
  }

  cfx::testing::TempDir fix_dir_;
};

TEST_F(IndexOneReadingTest, OnePrintReadsTheSameOverEveryInterface) {
  ClientPtr trader_b = MustLogOn(server_.port(), "trader-b");
  ClientPtr trader_c = MustLogOn(server_.port(), "trader-c");
  ASSERT_TRUE(trader_b && trader_c);
  const char* firms[] = {"PROV-A", "PROV-B", "PROV-C"};
  client::Client* sellers[] = {prov_a_.get(), prov_b_.get(), prov_c_.get()};
  client::Client* buyers[] = {trader_.get(), trader_b.get(), trader_c.get()};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Rate(firms[i], w::RATING_TIER_GOLD, "r" + std::to_string(i))
                    .accepted());
    Attest(*sellers[i], firms[i], 10, 287 + 4 * i);
  }
  // Twelve trades of 2 lots at one time, three sellers and three buyers,
  // $5.75-$5.85: Level 1b for day 2026-12-01.
  SetTime(kStart + 2 * kHour);
  for (int j = 0; j < 12; ++j) {
    Trade(*sellers[j % 3], *buyers[(j + j / 3) % 3],
          58'000 + ((j * 7) % 11 - 5) * 100);
  }
  SetTime(kStart + 21 * kHour + kSecond);
  // Every session gets both grades' prints once the fixing is durable.
  for (const char* grade : {"B200-STD", "B200-PRM"}) {
    auto pushed = admin_->ReceiveUntil(
        [grade](const w::Envelope& m) {
          return m.has_index_print() && m.index_print().grade() == grade;
        },
        kWait);
    ASSERT_TRUE(pushed.has_value())
        << grade << ": " << pushed.error().ToString();
  }

  // FIX logons wait for the next daily session window, which opens at
  // 21:00:05 on the exchange clock (docs/fix.md).
  SetTime(kStart + 21 * kHour + 6 * kSecond);
  fix_test::FixClientOptions o;
  o.sender_comp_id = "TRADER_C";
  o.port = server_.fix_port();
  o.username = "trader-c";
  o.password = "demo-trader-c";
  o.store_dir = fix_dir_.Sub("fix");
  std::error_code ec;
  std::filesystem::create_directories(o.store_dir, ec);
  FixTestClient fix(o);
  std::string error;
  ASSERT_TRUE(fix.Start(&error)) << error;
  ASSERT_TRUE(fix.WaitLoggedOn(kFixWait));

  for (const std::string grade : {"B200-STD", "B200-PRM"}) {
    SCOPED_TRACE(grade);
    const testing::Reply http =
        testing::Request(server_.http_port(), boost::beast::http::verb::get,
                         "/api/v1/index/" + grade);
    ASSERT_TRUE(http.ok);
    ASSERT_EQ(http.status, 200u) << http.body;
    const Reading from_http = FromJson(http.body);
    ASSERT_EQ(from_http.size(), 19u) << http.body;

    // cfx --json prints the same object, byte for byte.
    const std::string tool = Tool(grade);
    EXPECT_EQ(tool, http.body + "\n");
    EXPECT_EQ(FromJson(tool), from_http);

    const w::IndexPrint pb = Protobuf(grade);
    EXPECT_EQ(FromProtobuf(pb), from_http) << pb.DebugString();

    const Reading from_fix = FromFix(Fix(fix, grade));
    EXPECT_EQ(from_fix, AsFixReads(from_http, from_fix));
    EXPECT_EQ(from_fix.size(), 17u);

    if (grade == "B200-STD") {
      // Every field has a value, at the published decimals.
      EXPECT_EQ(from_http.at("level"), "1b");
      for (const char* key : kNullable) {
        ASSERT_TRUE(from_http.at(key).has_value()) << key;
      }
      for (const char* key : {"value", "usd_per_million_tokens", "p25", "p75",
                              "attested_tokens_per_s_per_gpu"}) {
        const std::string& text = *from_http.at(key);
        ASSERT_NE(text.find('.'), std::string::npos) << key << " " << text;
        EXPECT_EQ(text.size() - text.find('.'), 4u) << key << " " << text;
      }
      EXPECT_EQ(from_http.at("trade_count"), "12");
    } else {
      // DISRUPTED with nothing to carry: null in every interface.
      EXPECT_EQ(from_http.at("level"), "DISRUPTED");
      EXPECT_EQ(from_http.at("disrupted"), "true");
      for (const char* key : kNullable) {
        EXPECT_FALSE(from_http.at(key).has_value()) << key;
        EXPECT_FALSE(from_fix.at(key).has_value()) << key;
      }
      EXPECT_FALSE(pb.has_value());
    }
  }
  fix.Logout(kFixWait);
}

}  // namespace
}  // namespace cfx::gateway::server_test
