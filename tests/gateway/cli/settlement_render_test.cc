// How the cfx tool shows clearing messages (docs/cli.md, "Clearing"): the
// settlement report as a table, CSV and JSON, the status, the collateral
// answer.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "gateway/cli/render.h"

namespace cfx::gateway::cli {
namespace {

namespace w = cfx::wire::v1;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Two contracts (one finally settled, DISRUPTED); FIRM-A long XB2SZ6 and
// short XB2SF7, FIRM-B with spot cash only, PROV-C idle, "ODD,NAME" with a
// comma in its name.
w::SettlementReport Report() {
  w::SettlementReport r;
  r.set_request_id(1);
  r.set_date("2026-12-31");
  w::SettlementPrice* z6 = r.add_contracts();
  z6->set_symbol("XB2SZ6");
  z6->set_price("6.125");
  z6->set_tier("FINAL");
  z6->set_final(true);
  z6->set_disrupted(true);
  z6->set_open_interest(3);
  w::SettlementPrice* f7 = r.add_contracts();
  f7->set_symbol("XB2SF7");
  f7->set_price("5.90");
  f7->set_tier("1");
  f7->set_open_interest(12);
  w::AccountSettlement* a = r.add_accounts();
  a->set_account("FIRM-A");
  a->set_clearing_member("CM-1");
  w::PositionLine* l = a->add_positions();
  l->set_symbol("XB2SZ6");
  l->set_position(3);
  l->set_variation_margin("146.00");
  l = a->add_positions();
  l->set_symbol("XB2SF7");
  l->set_position(-1);
  l->set_variation_margin("-73.50");
  a->set_fills(4);
  a->set_variation_margin("72.50");
  a->set_spot_cash("0.00");
  a->set_initial_margin("646.05");
  a->set_collateral("10000072.50");
  w::AccountSettlement* b = r.add_accounts();
  b->set_account("FIRM-B");
  b->set_clearing_member("CM-1");
  b->set_variation_margin("0.00");
  b->set_spot_cash("-1152.00");
  b->set_initial_margin("0.00");
  b->set_collateral("9998848.00");
  w::AccountSettlement* c = r.add_accounts();
  c->set_account("ODD,NAME");
  c->set_clearing_member("CM-1");
  c->set_variation_margin("0.00");
  c->set_spot_cash("0.00");
  c->set_initial_margin("0.00");
  c->set_collateral("5.00");
  return r;
}

TEST(SettlementRender, TextShowsPricesThenPositionsThenAccountTotals) {
  const std::string text = SettlementReportText(Report());
  EXPECT_EQ(text,
            "settlement 2026-12-31\n"
            "CONTRACT  PRICE  TIER   OPEN_INTEREST  FLAGS\n"
            "XB2SZ6    6.125  FINAL              3  final, DISRUPTED\n"
            "XB2SF7     5.90  1                 12\n"
            "\n"
            "ACCOUNT  MEMBER  CONTRACT  POSITION      VM\n"
            "FIRM-A   CM-1    XB2SZ6           3  146.00\n"
            "FIRM-A   CM-1    XB2SF7          -1  -73.50\n"
            "\n"
            "ACCOUNT   MEMBER  FILLS     VM  SPOT_CASH      IM   COLLATERAL\n"
            "FIRM-A    CM-1        4  72.50       0.00  646.05  10000072.50\n"
            "FIRM-B    CM-1        0   0.00   -1152.00    0.00   9998848.00\n"
            "ODD,NAME  CM-1        0   0.00       0.00    0.00         5.00\n");
}

TEST(SettlementRender, TextOfAnEmptyReportSaysNone) {
  w::SettlementReport r;
  r.set_date("2026-12-01");
  EXPECT_EQ(SettlementReportText(r),
            "settlement 2026-12-01\ncontracts: none\n\npositions: none\n\n"
            "accounts: none\n");
}

TEST(SettlementRender, CsvHasAHeaderAndOneLinePerAccountAndContract) {
  const std::vector<std::string> lines = Lines(SettlementReportCsv(Report()));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "date,account,clearing_member,contract,position,settlement_price,"
            "tier,variation_margin,spot_cash,initial_margin,collateral");
  EXPECT_EQ(lines[1],
            "2026-12-31,FIRM-A,CM-1,XB2SZ6,3,6.125,FINAL,146.00,0,646.05,"
            "10000072.50");
  EXPECT_EQ(lines[2],
            "2026-12-31,FIRM-A,CM-1,XB2SF7,-1,5.90,1,-73.50,0,646.05,"
            "10000072.50");
  EXPECT_EQ(lines[3],
            "2026-12-31,FIRM-B,CM-1,SPOT,,,,0,-1152.00,0.00,9998848.00");
  // A name with a comma is quoted; an idle account still shows its
  // collateral.
  EXPECT_EQ(lines[4], "2026-12-31,\"ODD,NAME\",CM-1,,,,,0,0,0.00,5.00");
}

TEST(SettlementRender, JsonIsOneObjectWithDecimalStrings) {
  const std::string json = SettlementReportJson(Report());
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.rfind("{\"type\":\"settlement_report\",\"date\":"
                       "\"2026-12-31\",\"contracts\":[{\"symbol\":\"XB2SZ6\","
                       "\"price\":\"6.125\",\"tier\":\"FINAL\",\"final\":true,"
                       "\"disrupted\":true,\"open_interest\":3},",
                       0),
            0u)
      << json;
  EXPECT_NE(json.find("{\"account\":\"FIRM-A\",\"clearing_member\":\"CM-1\","
                      "\"positions\":[{\"symbol\":\"XB2SZ6\",\"position\":3,"
                      "\"variation_margin\":\"146.00\"},{\"symbol\":"
                      "\"XB2SF7\",\"position\":-1,\"variation_margin\":"
                      "\"-73.50\"}],\"fills\":4,\"variation_margin\":"
                      "\"72.50\",\"spot_cash\":\"0.00\",\"initial_margin\":"
                      "\"646.05\",\"collateral\":\"10000072.50\"}"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.back(), '}');
}

TEST(SettlementRender, StatusShowsHealthLatestPricesAndDates) {
  w::SettlementStatus s;
  s.set_ok(true);
  s.add_settled_dates("2026-12-01");
  s.add_settled_dates("2026-12-02");
  s.set_latest_date("2026-12-02");
  w::SettlementPrice* p = s.add_contracts();
  p->set_symbol("XB2SZ6");
  p->set_price("5.90");
  p->set_tier("2");
  p->set_open_interest(3);
  EXPECT_EQ(SettlementStatusText(s),
            "settlement: ok\n"
            "latest settled date: 2026-12-02\n"
            "CONTRACT  PRICE  TIER  OPEN_INTEREST  FLAGS\n"
            "XB2SZ6     5.90  2                 3\n"
            "settled dates (2): 2026-12-01 2026-12-02\n");
  w::SettlementStatus stopped;
  stopped.set_ok(false);
  stopped.set_error("cash conserved");
  EXPECT_EQ(SettlementStatusText(stopped),
            "settlement: STOPPED: cash conserved\nsettled dates: none\n");
  EXPECT_EQ(SettlementStatusJson(stopped),
            "{\"type\":\"settlement_status\",\"ok\":false,\"error\":\"cash "
            "conserved\",\"latest_date\":\"\",\"contracts\":[],"
            "\"settled_dates\":[]}");
}

TEST(SettlementRender, CollateralAckNamesTheMovementAndTheNewCollateral) {
  w::CollateralAck a;
  a.set_account("FIRM-A");
  a.set_amount("250000.00");
  a.set_collateral_after("10250000.00");
  a.set_accepted(true);
  a.set_seq(17);
  EXPECT_EQ(CollateralAckText(a),
            "FIRM-A: deposited 250000.00, collateral 10250000.00\n");
  EXPECT_EQ(CollateralAckJson(a),
            "{\"type\":\"collateral\",\"account\":\"FIRM-A\",\"amount\":"
            "\"250000.00\",\"accepted\":true,\"collateral_after\":"
            "\"10250000.00\",\"seq\":17}");
  a.set_amount("-1.5");
  a.set_collateral_after("10249998.50");
  EXPECT_EQ(CollateralAckText(a),
            "FIRM-A: withdrew 1.5, collateral 10249998.50\n");
  w::CollateralAck refused;
  refused.set_account("FIRM-A");
  refused.set_amount("-1.5");
  refused.set_reason(w::REJECT_REASON_INSUFFICIENT_MARGIN);
  refused.set_text("INSUFFICIENT_MARGIN");
  EXPECT_EQ(CollateralAckJson(refused),
            "{\"type\":\"collateral\",\"account\":\"FIRM-A\",\"amount\":"
            "\"-1.5\",\"accepted\":false,\"reason\":\"INSUFFICIENT_MARGIN\","
            "\"text\":\"INSUFFICIENT_MARGIN\"}");
}

}  // namespace
}  // namespace cfx::gateway::cli
