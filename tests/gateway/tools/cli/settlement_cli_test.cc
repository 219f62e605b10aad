// `cfx settle status | report` and `cfx collateral deposit | withdraw`
// (docs/cli.md, "Clearing"): the cfx binary as a child process against an
// in-process protobuf gateway with a real engine and an in-memory
// settlement service (tests/gateway/pb/settlement_gateway_fixture.h);
// argument checks, text, CSV and JSON output, one-line errors and their
// exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/gateway/pb/settlement_gateway_fixture.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::settlement_test {
namespace {

using ::cfx::testing::Contains;
using ::cfx::testing::Lines;
using ::cfx::testing::ToolResult;

class SettlementCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
    ASSERT_TRUE(gw_.ok());
  }

  // Runs `cfx --port <gateway> --api-key <user> <args>` (the demo user's
  // published key), capturing stdout and stderr separately.
  ToolResult Run(const std::string& args,
                 const std::string& user = "clear-1") const {
    return ::cfx::testing::RunCfxAs(CFX_TOOL, gw_.port(), user, args,
                                    tmp_.Sub("stderr"));
  }

  // Expects `code` and one stderr line "cfx: ..." holding `reason`.
  static void ExpectError(const ToolResult& r, int code,
                          const std::string& reason) {
    ::cfx::testing::ExpectCfxError(r, code, reason);
  }

  // 2026-12-01: FIRM-A (CM-1) buys 2 XB2SZ6 from FIRM-C (CM-2) at $5.85.
  void SettleOneDay() {
    ASSERT_TRUE(gw_.Trade("XB2SZ6", gw_.SettleNs(kDec1) - 10 * kMinute, 58'500,
                          2, "FIRM-A", "FIRM-C"));
    ASSERT_TRUE(gw_.Fix(kDec1));
  }

  cfx::testing::TempDir tmp_;
  SettlementGateway gw_;
};

TEST_F(SettlementCliTest, ReportPrintsTheMembersOwnAccountsAsATable) {
  SettleOneDay();
  const ToolResult r = Run("settle report 2026-12-01");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_GE(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], "settlement 2026-12-01");
  EXPECT_TRUE(Contains(r.out, "XB2SZ6")) << r.out;
  EXPECT_TRUE(Contains(r.out, "FIRM-A   CM-1")) << r.out;
  EXPECT_TRUE(Contains(r.out, "PROV-C")) << r.out;
  // CM-2's accounts are not CM-1's business.
  EXPECT_FALSE(Contains(r.out, "FIRM-C")) << r.out;
  EXPECT_FALSE(Contains(r.out, "PROV-A")) << r.out;
}

TEST_F(SettlementCliTest, ReportAsCsvAndJson) {
  SettleOneDay();
  const ToolResult csv = Run("settle report 2026-12-01 --csv", "clear-2");
  EXPECT_EQ(csv.exit_code, 0) << csv.err;
  const std::vector<std::string> lines = Lines(csv.out);
  // Header, FIRM-C, PROV-A, PROV-B; then the 24 contracts, the final
  // settlements (none), FIRM-C's fill, the opening collateral of the
  // three accounts, and the margin calls (none).
  ASSERT_EQ(lines.size(), 42u) << csv.out;
  EXPECT_EQ(lines[0].rfind("date,account,clearing_member,contract,", 0), 0u);
  EXPECT_EQ(lines[1].rfind("2026-12-01,FIRM-C,CM-2,XB2SZ6,-2,5.85,1,", 0), 0u)
      << lines[1];
  EXPECT_EQ(lines[4], "");
  EXPECT_EQ(lines[5],
            "date,contract,settlement_price,tier,open_interest,flags");
  EXPECT_EQ(lines[6], "2026-12-01,XB2SZ6,5.85,1,2,");
  EXPECT_EQ(lines[30], "");
  EXPECT_EQ(lines[31].rfind("date,account,clearing_member,contract,final_", 0),
            0u)
      << lines[31];
  EXPECT_EQ(lines[32], "");
  EXPECT_EQ(lines[33].rfind("date,trade_id,", 0), 0u) << lines[33];
  EXPECT_EQ(lines[34],
            "2026-12-01,1,2026-12-01T20:50:00.000000000Z,FIRM-C,CM-2,XB2SZ6,"
            "SELL,2,5.85,");
  EXPECT_EQ(lines[35], "");
  EXPECT_EQ(lines[36],
            "date,kind,account,clearing_member,amount,"
            "counterparty,reference");
  EXPECT_EQ(lines[37], "2026-12-01,DEPOSIT,FIRM-C,CM-2,10000000.000000,BANK,0");
  EXPECT_EQ(lines[40], "");
  EXPECT_EQ(lines[41],
            "date,account,clearing_member,initial_margin,collateral,"
            "margin_call");
  const ToolResult json = Run("settle report 2026-12-01 --json", "admin");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  ASSERT_EQ(Lines(json.out).size(), 1u) << json.out;
  EXPECT_EQ(json.out.rfind("{\"type\":\"settlement_report\",\"date\":"
                           "\"2026-12-01\"",
                           0),
            0u)
      << json.out;
  EXPECT_TRUE(Contains(json.out, "\"account\":\"FIRM-A\""));
  EXPECT_TRUE(Contains(json.out, "\"account\":\"FIRM-C\""));
}

TEST_F(SettlementCliTest, StatusListsTheSettledDates) {
  SettleOneDay();
  const ToolResult r = Run("settle status");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "settlement: ok\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "settled dates (1): 2026-12-01\n")) << r.out;
}

TEST_F(SettlementCliTest, RefusalsAndBadArgumentsExitWithOneLine) {
  SettleOneDay();
  ExpectError(Run("settle report 2026-12-04"), 1, "NOT_SETTLED");
  ExpectError(Run("settle report 2026-12-01", "trader-a"), 1, "NOT_AUTHORIZED");
  ExpectError(Run("settle report 2026-13-01"), 2, "not a date");
  ExpectError(Run("settle report"), 2, "DATE");
  ExpectError(Run("settle report 2026-12-01 --csv --json"), 2, "--csv");
  ExpectError(Run("collateral deposit FIRM-A"), 2, "AMOUNT");
  ExpectError(Run("collateral lend FIRM-A 5"), 2, "lend");
}

TEST_F(SettlementCliTest, DepositAndWithdrawPrintTheCollateralAfter) {
  const ToolResult in = Run("collateral deposit FIRM-B 250000.00");
  EXPECT_EQ(in.exit_code, 0) << in.err;
  EXPECT_EQ(in.out,
            "FIRM-B: deposited 250000.000000, collateral 10250000.000000\n");
  const ToolResult out = Run("collateral withdraw FIRM-B 0.5 --json");
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "\"collateral_after\":\"10249999.500000\""))
      << out.out;
  EXPECT_EQ(gw_.Collateral("FIRM-B"), 10'249'999'500'000);
}

TEST_F(SettlementCliTest, RefusedCollateralExitsOneWithTheReason) {
  ExpectError(Run("collateral withdraw FIRM-B 20000000"), 1,
              "INSUFFICIENT_MARGIN");
  ExpectError(Run("collateral deposit FIRM-C 5"), 1,
              "UNKNOWN_ACCOUNT: no account \"FIRM-C\"");
  ExpectError(Run("collateral deposit FIRM-B 1.0000001"), 1, "INVALID_AMOUNT");
  ExpectError(Run("collateral deposit FIRM-A 5", "trader-a"), 1,
              "NOT_AUTHORIZED");
  EXPECT_EQ(gw_.Collateral("FIRM-B"), 10'000'000'000'000);
}

// The decimal numbers of `text` with exactly `decimals` decimals: tokens
// between separators (spaces, commas, quotes, braces, brackets, colons), so
// times ("20:50:00.000000000Z") are not numbers.
std::multiset<std::string> Decimals(const std::string& text, int decimals) {
  std::multiset<std::string> out;
  std::string token;
  const auto flush = [&] {
    const std::size_t point = token.find('.');
    const std::size_t start = !token.empty() && token[0] == '-' ? 1 : 0;
    if (point != std::string::npos && point > start &&
        token.find_first_not_of("0123456789", start) == point &&
        token.find_first_not_of("0123456789", point + 1) == std::string::npos &&
        token.size() - point - 1 == static_cast<std::size_t>(decimals)) {
      out.insert(token);
    }
    token.clear();
  };
  for (char c : text) {
    if (std::string_view(" ,\"{}[]:\n").find(c) != std::string_view::npos) {
      flush();
    } else {
      token += c;
    }
  }
  flush();
  return out;
}

std::set<std::string> Distinct(const std::multiset<std::string>& m) {
  return std::set<std::string>(m.begin(), m.end());
}

// Day 2: FIRM-B (CM-1) buys 1 from PROV-A (CM-2) at $5.90; FIRM-A (long 2
// from $5.85) receives 730 x 2 x 0.05 = $73.
TEST_F(SettlementCliTest, OneReportReadsTheSameInEveryFormat) {
  SettleOneDay();
  ASSERT_TRUE(gw_.Trade("XB2SZ6", gw_.SettleNs(kDec1 + 1) - 5 * kMinute, 59'000,
                        1, "FIRM-B", "PROV-A"));
  ASSERT_TRUE(gw_.Fix(kDec1 + 1));
  const ToolResult text = Run("settle report 2026-12-02");
  const ToolResult csv = Run("settle report 2026-12-02 --csv");
  const ToolResult json = Run("settle report 2026-12-02 --json");
  for (const ToolResult* r : {&text, &csv, &json}) {
    ASSERT_EQ(r->exit_code, 0) << r->err;
    // Money has six decimals, prices two (the tick): nothing else.
    std::size_t numbers = 0;
    for (int d = 1; d <= 9; ++d) {
      if (d != 2 && d != 6) {
        EXPECT_TRUE(Decimals(r->out, d).empty()) << d << "\n" << r->out;
      }
      numbers += Decimals(r->out, d).size();
    }
    EXPECT_GT(numbers, 0u);
    // The fill, the VM and the collateral it makes.
    EXPECT_TRUE(Contains(r->out, "73.000000")) << r->out;
    EXPECT_TRUE(Contains(r->out, "10000073.000000")) << r->out;
    EXPECT_TRUE(Contains(r->out, "CLEARING-HOUSE")) << r->out;
    EXPECT_TRUE(Contains(r->out, "5.90")) << r->out;
    // PROV-A's side of the trade is CM-2's.
    EXPECT_FALSE(Contains(r->out, "PROV-A")) << r->out;
  }
  // The same amounts and prices in every format.
  EXPECT_EQ(Distinct(Decimals(text.out, 6)), Distinct(Decimals(csv.out, 6)));
  EXPECT_EQ(Distinct(Decimals(text.out, 6)), Distinct(Decimals(json.out, 6)));
  EXPECT_EQ(Distinct(Decimals(text.out, 2)), Distinct(Decimals(csv.out, 2)));
  EXPECT_EQ(Distinct(Decimals(text.out, 2)), Distinct(Decimals(json.out, 2)));
}

// No index behind this gateway: XB2SZ6's last trading day settles at its
// DSP, flagged DISRUPTED, and closes FIRM-A's 2 lots.
TEST_F(SettlementCliTest, FinalSettlementClosesPositionsAndFlagsEveryFormat) {
  SettleOneDay();
  ASSERT_TRUE(gw_.Fix(kDec1 + 30));  // 2026-12-31
  const ToolResult text = Run("settle report 2026-12-31");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // The position row says 0 and closed; the final settlement its own line.
  EXPECT_TRUE(Contains(text.out,
                       "FIRM-A   CM-1    XB2SZ6           0  0.000000  closed"))
      << text.out;
  EXPECT_TRUE(Contains(text.out, "ACCOUNT  MEMBER  CONTRACT  FINAL_QUANTITY"))
      << text.out;
  EXPECT_TRUE(Contains(text.out,
                       "FIRM-A   CM-1    XB2SZ6                 2  "
                       "5.850  0.000000  DISRUPTED"))
      << text.out;
  const std::vector<std::string> csv =
      Lines(Run("settle report 2026-12-31 --csv").out);
  const auto has = [&csv](const std::string& line) {
    return std::find(csv.begin(), csv.end(), line) != csv.end();
  };
  EXPECT_TRUE(
      has("2026-12-31,FIRM-A,CM-1,XB2SZ6,0,5.850,FINAL,0.000000,"
          "0.000000,0.000000,10000000.000000,"
          "\"final, DISRUPTED, closed\""));
  EXPECT_TRUE(has("2026-12-31,FIRM-A,CM-1,XB2SZ6,2,5.850,0.000000,DISRUPTED"));
  EXPECT_TRUE(has("2026-12-31,XB2SZ6,5.850,FINAL,2,\"final, DISRUPTED\""));
  const ToolResult json = Run("settle report 2026-12-31 --json");
  EXPECT_TRUE(Contains(json.out,
                       "{\"symbol\":\"XB2SZ6\",\"position\":0,"
                       "\"variation_margin\":\"0.000000\",\"closed\":true,"
                       "\"final_quantity\":2}"))
      << json.out;
  EXPECT_TRUE(Contains(json.out,
                       "\"price\":\"5.850\",\"tier\":\"FINAL\","
                       "\"final\":true,\"disrupted\":true"))
      << json.out;
}

}  // namespace
}  // namespace cfx::gateway::settlement_test
