// `cfx settle status | report` and `cfx collateral deposit | withdraw`
// (docs/cli.md, "Clearing"): the cfx binary as a child process against an
// in-process protobuf gateway with a real engine and an in-memory
// settlement service (tests/gateway/pb/settlement_gateway_fixture.h);
// argument checks, text, CSV and JSON output, one-line errors and their
// exit codes.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/gateway/pb/settlement_gateway_fixture.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::settlement_test {
namespace {

struct ToolResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class SettlementCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
    ASSERT_TRUE(gw_.ok());
  }

  // Runs `cfx --port <gateway> --api-key <user> --secret demo-<user>
  // <args>`, capturing stdout and stderr separately.
  ToolResult Run(const std::string& args,
                 const std::string& user = "clear-1") const {
    ToolResult r;
    const std::string err_file = tmp_.Sub("stderr");
    const std::string cmd =
        "env -u CFX_HOST -u CFX_PORT -u CFX_API_KEY -u CFX_API_SECRET " +
        std::string(CFX_TOOL) + " --port " + std::to_string(gw_.port()) +
        " --api-key " + user + " --secret demo-" + user + " " + args +
        " </dev/null 2>" + err_file;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return r;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
      r.out.append(buf, n);
    }
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(err_file);
    std::stringstream ss;
    ss << err.rdbuf();
    r.err = ss.str();
    return r;
  }

  // Expects `code` and one stderr line "cfx: ..." holding `reason`.
  static void ExpectError(const ToolResult& r, int code,
                          const std::string& reason) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("cfx: ", 0), 0u) << r.err;
    EXPECT_TRUE(Contains(r.err, reason)) << r.err;
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
  ASSERT_EQ(lines.size(), 4u) << csv.out;  // header, FIRM-C, PROV-A, PROV-B
  EXPECT_EQ(lines[0].rfind("date,account,clearing_member,contract,", 0), 0u);
  EXPECT_EQ(lines[1].rfind("2026-12-01,FIRM-C,CM-2,XB2SZ6,-2,5.85,1,", 0), 0u)
      << lines[1];
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
  EXPECT_EQ(in.out, "FIRM-B: deposited 250000.00, collateral 10250000.00\n");
  const ToolResult out = Run("collateral withdraw FIRM-B 0.5 --json");
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(Contains(out.out, "\"collateral_after\":\"10249999.50\""))
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

}  // namespace
}  // namespace cfx::gateway::settlement_test
