// `cfx index show | history | explain` (docs/cli.md, "Index"): the cfx
// binary as a child process against an in-process protobuf gateway whose
// in-memory index service is fed sequenced events directly
// (tests/gateway/pb/index_gateway_fixture.h); text and --json output, and
// one-line errors with their exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "index/methodology.h"
#include "tests/gateway/pb/index_gateway_fixture.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::index_test {
namespace {

using ::cfx::testing::Contains;
using ::cfx::testing::Lines;
using ::cfx::testing::ToolResult;

// One "label  value" line of `cfx index show`: labels are padded to the
// longest, "USD per million tokens".
std::string Row(const std::string& label, const std::string& value) {
  return label + std::string(24 - label.size(), ' ') + value;
}

// A row of the contributing trades' table: it has seller and buyer labels.
// A row of the contributing trades' table: nine columns, the first the trade
// id, the last two the seller and the buyer ("YOU" or "-" for a trader).
bool IsTradeRow(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> cells;
  for (std::string cell; in >> cell;) cells.push_back(cell);
  const auto side = [](const std::string& c) { return c == "YOU" || c == "-"; };
  return cells.size() == 9 &&
         std::isdigit(static_cast<unsigned char>(cells[0][0])) &&
         side(cells[7]) && side(cells[8]);
}

// The day the tests fix: 2026-12-05.
const int64_t kDay = ParseDay("2026-12-05").value();

class IndexCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
    ASSERT_TRUE(gw_.ok());
  }

  // Runs `cfx --port <gateway> --api-key <user> <args>` (the demo user's
  // published key), capturing stdout and stderr separately.
  ToolResult Run(const std::string& args,
                 const std::string& user = "trader-a") const {
    return ::cfx::testing::RunCfxAs(CFX_TOOL, gw_.port(), user, args,
                                    tmp_.Sub("stderr"));
  }

  // Expects `code` and one stderr line "cfx: ..." holding `reason`.
  static void ExpectError(const ToolResult& r, int code,
                          const std::string& reason) {
    ::cfx::testing::ExpectCfxError(r, code, reason);
  }

  // Three days of trades and fixings, 2026-12-03 to 2026-12-05; the last
  // has 25 trades (12 + 13 more).
  void FixThreeDays() {
    for (int64_t d = kDay - 2; d <= kDay; ++d) {
      ASSERT_TRUE(TradeADay(gw_, d, kStd, 60'000,
                            static_cast<uint64_t>(100 * (d - kDay + 3))));
    }
    for (uint64_t i = 0; i < 13; ++i) {
      ASSERT_TRUE(gw_.Trade(
          400 + i,
          gw_.FixingNs(kDay) - 3 * kHour + static_cast<int64_t>(i) * kSecond,
          kStd, kProvA, kFirmB, 60'100, 1));
    }
    for (int64_t d = kDay - 2; d <= kDay; ++d) ASSERT_TRUE(gw_.Fix(d));
  }

  cfx::testing::TempDir tmp_;
  IndexGateway gw_;
};

TEST_F(IndexCliTest, ShowPrintsEveryFieldOfTheLatestPrint) {
  FixThreeDays();
  const index::Print* latest = gw_.index().Latest(kStd);
  ASSERT_NE(latest, nullptr);
  ASSERT_EQ(latest->trade_count, 25u);
  const ToolResult r = Run("index show B200-STD");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GE(lines.size(), 16u) << r.out;
  const std::string value = pb::internal::FormatMicros(latest->value.micros, 3);
  EXPECT_EQ(
      lines[0].rfind(
          "CFX-B200-STD 2026-12-05: " + value + " USD per GPU-hour, level ", 0),
      0u)
      << r.out;
  for (const char* label :
       {"value", "level", "disrupted", "revision", "computed at", "trades",
        "sellers", "buyers", "GPU-hours", "p25", "p75", "partitions",
        "USD per million tokens", "attested tokens/s/GPU", "trade ids"}) {
    bool found = false;
    for (const std::string& line : lines) {
      if (line.rfind(std::string(label) + " ", 0) == 0) found = true;
    }
    EXPECT_TRUE(found) << label << "\n" << r.out;
  }
  EXPECT_TRUE(Contains(r.out, Row("value", value) + "\n")) << r.out;
  EXPECT_TRUE(
      Contains(r.out, Row("computed at", "2026-12-05T21:00:00.000000000Z")))
      << r.out;
  EXPECT_TRUE(Contains(r.out, Row("disrupted", "no\n"))) << r.out;
  EXPECT_TRUE(Contains(r.out, Row("revision", "0 (fixing)\n"))) << r.out;
  EXPECT_TRUE(Contains(r.out, Row("trades", "25\n"))) << r.out;
  EXPECT_TRUE(Contains(
      r.out, Row("GPU-hours", std::to_string(latest->gpu_hours) + "\n")))
      << r.out;
  // 25 trade ids: the first 20, then how many more.
  std::string ids;
  for (std::size_t i = 0; i < 20; ++i) {
    ids += (i == 0 ? "" : " ") + std::to_string(latest->trade_ids[i]);
  }
  EXPECT_TRUE(Contains(r.out, Row("trade ids", ids) + " ... and 5 more\n"))
      << r.out;
}

TEST_F(IndexCliTest, ShowJsonIsTheIndexPrint) {
  FixThreeDays();
  const ToolResult r = Run("index show B200-STD --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 1u) << r.out;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_TRUE(Contains(r.out, "\"index\":\"CFX-B200-STD\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"date\":\"2026-12-05\"")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"trade_count\":25")) << r.out;
  EXPECT_TRUE(
      Contains(r.out, "\"value\":\"" +
                          pb::internal::FormatMicros(
                              gw_.index().Latest(kStd)->value.micros, 3) +
                          "\""))
      << r.out;
}

TEST_F(IndexCliTest, HistoryPrintsOneRowPerDay) {
  FixThreeDays();
  const ToolResult r = Run("index history B200-STD");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0].rfind("DATE        VALUE  LEVEL", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(lines[0], "TRADES  GPU_HOURS  RESTATED")) << r.out;
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const index::Print* p = gw_.index().Find(kStd, kDay - 2 + i);
    ASSERT_NE(p, nullptr);
    const std::string& line = lines[static_cast<std::size_t>(i) + 1];
    EXPECT_EQ(line.rfind(FormatDay(kDay - 2 + i) + "  ", 0), 0u) << line;
    EXPECT_TRUE(Contains(line, pb::internal::FormatMicros(p->value.micros, 3)))
        << line;
    EXPECT_TRUE(Contains(line, std::to_string(p->gpu_hours))) << line;
    EXPECT_EQ(line.substr(line.size() - 1), "-") << "not restated: " << line;
  }

  const ToolResult range =
      Run("index history B200-STD --from 2026-12-04 --to 2026-12-04");
  EXPECT_EQ(range.exit_code, 0) << range.err;
  ASSERT_EQ(Lines(range.out).size(), 2u) << range.out;
  EXPECT_EQ(Lines(range.out)[1].rfind("2026-12-04", 0), 0u) << range.out;

  const ToolResult json =
      Run("index history B200-STD --from 2026-12-04 --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const std::vector<std::string> objects = Lines(json.out);
  ASSERT_EQ(objects.size(), 2u) << json.out;
  EXPECT_TRUE(Contains(objects[0], "\"date\":\"2026-12-04\"")) << json.out;
  EXPECT_TRUE(Contains(objects[1], "\"date\":\"2026-12-05\"")) << json.out;
}

// --json prints the HTTP port's print object (WriteIndexPrint) of the same
// print, null for what a print does not have: a Level 1 print and a
// DISRUPTED one with nothing to carry.
TEST_F(IndexCliTest, JsonPrintIsTheHttpPrintObject) {
  FixThreeDays();
  for (const uint32_t grade : {kStd, kPrm}) {
    const std::string name = gw_.config().grades.at(grade).name;
    SCOPED_TRACE(name);
    const index::Print* latest = gw_.index().Latest(grade);
    ASSERT_NE(latest, nullptr);
    JsonWriter http;
    WriteIndexPrint(name, *latest, &http);
    const ToolResult r = Run("index show " + name + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, http.Take() + "\n");
  }
  const ToolResult prm = Run("index show B200-PRM --json");
  EXPECT_TRUE(Contains(prm.out, "\"level\":\"DISRUPTED\"")) << prm.out;
  EXPECT_TRUE(Contains(prm.out, "\"value\":null")) << prm.out;
  EXPECT_TRUE(Contains(prm.out, "\"attested_tokens_per_s_per_gpu\":null"))
      << prm.out;
  // explain --json holds the same print object.
  JsonWriter latest;
  WriteIndexPrint("B200-STD", *gw_.index().Latest(kStd), &latest);
  const ToolResult explain = Run("index explain B200-STD --json");
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_EQ(explain.out.rfind("{\"print\":" + latest.Take() + ",", 0), 0u)
      << explain.out;
  // The text spells the level the same way.
  const ToolResult text = Run("index show B200-STD");
  EXPECT_TRUE(
      Contains(text.out, Row("level", std::string(index::LevelName(
                                          gw_.index().Latest(kStd)->level))) +
                             "\n"))
      << text.out;
}

TEST_F(IndexCliTest, HistoryWithAllRevisionsShowsEachRevisionAndItsTime) {
  ASSERT_TRUE(TradeADay(gw_, kDay - 1, kStd, 60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay - 1));
  ASSERT_TRUE(TwiceRestatedDay(gw_, kDay, 101));
  const std::vector<index::Print> day = gw_.index().Revisions(kStd, kDay);
  ASSERT_EQ(day.size(), 3u);

  const ToolResult r = Run("index history B200-STD --all-revisions");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;
  EXPECT_EQ(lines[0].rfind("DATE        COMPUTED_AT", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(lines[0], "VALUE  LEVEL  TRADES  GPU_HOURS  RESTATED"))
      << r.out;
  EXPECT_EQ(lines[1].rfind("2026-12-04  2026-12-04T21:00:00.000000000Z", 0), 0u)
      << r.out;
  const char* times[] = {"21:00:00", "21:30:00", "22:00:00"};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const std::string& line = lines[i + 2];
    EXPECT_EQ(line.rfind("2026-12-05  2026-12-05T" + std::string(times[i]), 0),
              0u)
        << line;
    EXPECT_TRUE(Contains(line, FormatMicros(day[i].value.micros, 3))) << line;
    if (i == 0) {
      EXPECT_EQ(line.substr(line.size() - 1), "-") << line;
    } else {
      EXPECT_TRUE(Contains(line, "yes (revision " + std::to_string(i) + ")"))
          << line;
    }
  }
  // Without the flag: one row per day, the latest revision.
  const ToolResult latest = Run("index history B200-STD");
  ASSERT_EQ(Lines(latest.out).size(), 3u) << latest.out;
  EXPECT_TRUE(Contains(Lines(latest.out)[2], "yes (revision 2)")) << latest.out;

  // --json: one print object per revision, as the HTTP port writes it.
  const ToolResult json =
      Run("index history B200-STD --from 2026-12-05 --all-revisions --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const std::vector<std::string> objects = Lines(json.out);
  ASSERT_EQ(objects.size(), 3u) << json.out;
  for (std::size_t i = 0; i < 3; ++i) {
    JsonWriter http;
    WriteIndexPrint("B200-STD", day[i], &http);
    EXPECT_EQ(objects[i], http.Take()) << i;
  }
}

TEST_F(IndexCliTest, ExplainNamesNoFirmExceptToTheAdmin) {
  FixThreeDays();
  const ToolResult r = Run("index explain B200-STD 2026-12-05");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "CFX-B200-STD 2026-12-05: ")) << r.out;
  EXPECT_TRUE(Contains(r.out, "contributing trades:\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "TRADE_ID  AGE  PRICE")) << r.out;
  EXPECT_TRUE(Contains(r.out, "SELLER  BUYER")) << r.out;
  // trader-a's firm bought some of the trades: only those sides are marked.
  EXPECT_TRUE(Contains(r.out, "  YOU\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "  -       -\n")) << r.out;
  EXPECT_FALSE(Contains(r.out, "  S1")) << r.out;
  for (const char* firm :
       {"FIRM-A", "FIRM-B", "FIRM-C", "PROV-A", "PROV-B", "PROV-C"}) {
    EXPECT_FALSE(Contains(r.out, firm)) << firm << "\n" << r.out;
  }
  // One row per contributing trade.
  std::size_t rows = 0;
  for (const std::string& line : Lines(r.out)) {
    if (IsTradeRow(line)) ++rows;
  }
  EXPECT_EQ(rows, 25u) << r.out;

  const ToolResult admin = Run("index explain B200-STD", "admin");
  EXPECT_EQ(admin.exit_code, 0) << admin.err;
  EXPECT_TRUE(Contains(admin.out, "PROV-A")) << admin.out;
  EXPECT_TRUE(Contains(admin.out, "FIRM-B")) << admin.out;

  const ToolResult json = Run("index explain B200-STD --json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(Lines(json.out).size(), 1u) << json.out;
  EXPECT_TRUE(Contains(json.out, "\"seller\":\"\"")) << json.out;
  EXPECT_TRUE(Contains(json.out, "\"buyer\":\"YOU\"")) << json.out;
  EXPECT_TRUE(Contains(json.out, "\"level_name\":\"")) << json.out;
  EXPECT_FALSE(Contains(json.out, "PROV-A")) << json.out;
}

TEST_F(IndexCliTest, UnknownGradeExitsOneWithOneLine) {
  FixThreeDays();
  for (const char* args : {"index show H100-STD", "index history H100-STD",
                           "index explain H100-STD"}) {
    SCOPED_TRACE(args);
    const ToolResult r = Run(args);
    ExpectError(r, 1, "rejected: UNKNOWN_GRADE: no grade \"H100-STD\"");
    EXPECT_EQ(r.out, "");
  }
  // --json also prints the refusal.
  const ToolResult json = Run("index show H100-STD --json");
  ExpectError(json, 1, "UNKNOWN_GRADE");
  EXPECT_TRUE(Contains(json.out, "\"reason\":\"REJECT_REASON_UNKNOWN_GRADE\""))
      << json.out;
}

TEST_F(IndexCliTest, RangeAndDateErrors) {
  FixThreeDays();
  ExpectError(Run("index history B200-STD --from 2026-12-05 --to 2026-12-01"),
              1, "INVALID_DATE_RANGE");
  ExpectError(Run("index history B200-STD --from 2020-01-01 --to 2026-12-05"),
              1, "DATE_RANGE_TOO_LONG");
  ExpectError(Run("index explain B200-STD 2026-12-01"), 1, "NO_INDEX_PRINT");
  // Malformed dates never reach the exchange.
  ExpectError(Run("index history B200-STD --from 2026-13-01"), 2,
              "--from: \"2026-13-01\" is not a date (YYYY-MM-DD)");
  ExpectError(Run("index explain B200-STD 5/12/2026"), 2, "is not a date");
  ExpectError(Run("index show"), 2, "GRADE");
  // A byte that is no text (not UTF-8 either) is refused before sending.
  ExpectError(Run("index show \"$(printf '\\377')\""), 2,
              "GRADE: not a grade name");
  ExpectError(Run("index explain 'B200 STD'"), 2, "GRADE: not a grade name");
}

TEST_F(IndexCliTest, NoPrintYet) {
  const ToolResult show = Run("index show B200-STD");
  ExpectError(show, 1, "no print of CFX-B200-STD yet");
  EXPECT_EQ(show.out, "");
  const ToolResult history = Run("index history B200-STD");
  EXPECT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(history.out, "no prints of CFX-B200-STD\n");
  ExpectError(Run("index explain B200-STD"), 1, "NO_INDEX_PRINT");
}

}  // namespace
}  // namespace cfx::gateway::index_test
