// How the cfx tool shows clearing messages (docs/cli.md, "Clearing"): the
// settlement report as a table, CSV and JSON, the status, the collateral
// answer.
#include "gateway/tools/cli/settlement_render.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "gateway/tools/cli/render.h"

namespace cfx::gateway::cli {
namespace {

namespace w = cfx::wire::v1;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Two contracts (one finally settled, DISRUPTED); FIRM-A long 3 XB2SZ6,
// closed by final settlement, and short XB2SF7, FIRM-B with spot cash
// only, "ODD,NAME" idle with a comma in its name; two fills and three cash
// movements.
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
  l->set_position(0);
  l->set_variation_margin("146.000000");
  l->set_closed(true);
  l->set_final_quantity(3);
  l = a->add_positions();
  l->set_symbol("XB2SF7");
  l->set_position(-1);
  l->set_variation_margin("-73.500000");
  a->set_fills(4);
  a->set_variation_margin("72.500000");
  a->set_spot_cash("0.000000");
  a->set_initial_margin("646.050000");
  a->set_collateral("10000072.500000");
  w::AccountSettlement* b = r.add_accounts();
  b->set_account("FIRM-B");
  b->set_clearing_member("CM-1");
  b->set_variation_margin("0.000000");
  b->set_spot_cash("-1152.000000");
  b->set_initial_margin("0.000000");
  b->set_collateral("9998848.000000");
  w::AccountSettlement* c = r.add_accounts();
  c->set_account("ODD,NAME");
  c->set_clearing_member("CM-1");
  c->set_variation_margin("0.000000");
  c->set_spot_cash("0.000000");
  c->set_initial_margin("0.000000");
  c->set_collateral("5.000000");
  w::SettlementTrade* t = r.add_trades();
  t->set_trade_id(41);
  t->set_match_time_ns(1'798'748'400'000'000'000);  // 2026-12-31T20:20Z
  t->set_account("FIRM-A");
  t->set_clearing_member("CM-1");
  t->set_symbol("XB2SF7");
  t->set_side(w::SIDE_SELL);
  t->set_quantity(1);
  t->set_price("5.95");
  t = r.add_trades();
  t->set_trade_id(42);
  t->set_match_time_ns(1'798'748'460'000'000'000);  // 20:21
  t->set_account("FIRM-B");
  t->set_clearing_member("CM-1");
  t->set_symbol("B200-STD-20270102");
  t->set_side(w::SIDE_BUY);
  t->set_quantity(2);
  t->set_price("6.00");
  t->set_busted(true);
  w::CashMovement* m = r.add_movements();
  m->set_kind("DEPOSIT");
  m->set_account("ODD,NAME");
  m->set_clearing_member("CM-1");
  m->set_amount("5.000000");
  m->set_counterparty("BANK");
  m->set_reference("17");
  m = r.add_movements();
  m->set_kind("FINAL_SETTLEMENT");
  m->set_account("FIRM-A");
  m->set_clearing_member("CM-1");
  m->set_amount("146.000000");
  m->set_counterparty("CLEARING-HOUSE");
  m->set_reference("XB2SZ6");
  m = r.add_movements();
  m->set_kind("SPOT_CASH");
  m->set_account("FIRM-B");
  m->set_clearing_member("CM-1");
  m->set_amount("-1152.000000");
  m->set_counterparty("CLEARING-HOUSE");
  m->set_reference("38");
  return r;
}

TEST(SettlementRender, TextShowsPricesPositionsTotalsFinalsFillsAndCash) {
  const std::string text = SettlementReportText(Report());
  EXPECT_EQ(
      text,
      "settlement 2026-12-31\n"
      "CONTRACT  PRICE  TIER   OPEN_INTEREST  FLAGS\n"
      "XB2SZ6    6.125  FINAL              3  final, DISRUPTED\n"
      "XB2SF7     5.90  1                 12\n"
      "\n"
      "ACCOUNT  MEMBER  CONTRACT  POSITION          VM  FLAGS\n"
      "FIRM-A   CM-1    XB2SZ6           0  146.000000  closed\n"
      "FIRM-A   CM-1    XB2SF7          -1  -73.500000\n"
      "\n"
      "ACCOUNT   MEMBER  FILLS         VM     SPOT_CASH          IM       "
      "COLLATERAL\n"
      "FIRM-A    CM-1        4  72.500000      0.000000  646.050000  "
      "10000072.500000\n"
      "FIRM-B    CM-1        0   0.000000  -1152.000000    0.000000   "
      "9998848.000000\n"
      "ODD,NAME  CM-1        0   0.000000      0.000000    0.000000         "
      "5.000000\n"
      "\n"
      "ACCOUNT  MEMBER  CONTRACT  FINAL_QUANTITY    FSP      AMOUNT  FLAGS\n"
      "FIRM-A   CM-1    XB2SZ6                 3  6.125  146.000000  "
      "DISRUPTED\n"
      "\n"
      "TRADE_ID  TIME                            ACCOUNT  MEMBER  CONTRACT"
      "           SIDE  QUANTITY  PRICE  FLAGS\n"
      "      41  2026-12-31T20:20:00.000000000Z  FIRM-A   CM-1    XB2SF7"
      "             SELL         1   5.95\n"
      "      42  2026-12-31T20:21:00.000000000Z  FIRM-B   CM-1    "
      "B200-STD-20270102  BUY          2   6.00  busted\n"
      "\n"
      "KIND              ACCOUNT   MEMBER        AMOUNT  COUNTERPARTY    "
      "REFERENCE\n"
      "DEPOSIT           ODD,NAME  CM-1        5.000000  BANK            17\n"
      "FINAL_SETTLEMENT  FIRM-A    CM-1      146.000000  CLEARING-HOUSE  "
      "XB2SZ6\n"
      "SPOT_CASH         FIRM-B    CM-1    -1152.000000  CLEARING-HOUSE  38\n"
      "\n"
      "margin calls: none\n");
}

TEST(SettlementRender, TextOfAnEmptyReportSaysNone) {
  w::SettlementReport r;
  r.set_date("2026-12-01");
  EXPECT_EQ(SettlementReportText(r),
            "settlement 2026-12-01\ncontracts: none\n\npositions: none\n\n"
            "accounts: none\n\nfinal settlements: none\n\ntrades: none\n\n"
            "movements: none\n\nmargin calls: none\n");
}

TEST(SettlementRender, CsvHasOneTableASectionWithFlagsFinalsFillsAndCash) {
  const std::vector<std::string> lines = Lines(SettlementReportCsv(Report()));
  const std::vector<std::string> expected = {
      "date,account,clearing_member,contract,position,settlement_price,tier,"
      "variation_margin,spot_cash,initial_margin,collateral,flags",
      // A contract closed by final settlement: position 0, every flag.
      "2026-12-31,FIRM-A,CM-1,XB2SZ6,0,6.125,FINAL,146.000000,0.000000,"
      "646.050000,10000072.500000,\"final, DISRUPTED, closed\"",
      "2026-12-31,FIRM-A,CM-1,XB2SF7,-1,5.90,1,-73.500000,0.000000,"
      "646.050000,10000072.500000,",
      "2026-12-31,FIRM-B,CM-1,SPOT,,,,0.000000,-1152.000000,0.000000,"
      "9998848.000000,",
      // A name with a comma is quoted; an idle account still shows its
      // collateral.
      "2026-12-31,\"ODD,NAME\",CM-1,,,,,0.000000,0.000000,0.000000,5.000000,",
      "",
      "date,contract,settlement_price,tier,open_interest,flags",
      "2026-12-31,XB2SZ6,6.125,FINAL,3,\"final, DISRUPTED\"",
      "2026-12-31,XB2SF7,5.90,1,12,",
      "",
      "date,account,clearing_member,contract,final_quantity,"
      "final_settlement_price,amount,flags",
      "2026-12-31,FIRM-A,CM-1,XB2SZ6,3,6.125,146.000000,DISRUPTED",
      "",
      "date,trade_id,match_time,account,clearing_member,contract,side,"
      "quantity,price,flags",
      "2026-12-31,41,2026-12-31T20:20:00.000000000Z,FIRM-A,CM-1,XB2SF7,SELL,"
      "1,5.95,",
      "2026-12-31,42,2026-12-31T20:21:00.000000000Z,FIRM-B,CM-1,"
      "B200-STD-20270102,BUY,2,6.00,busted",
      "",
      "date,kind,account,clearing_member,amount,counterparty,reference",
      "2026-12-31,DEPOSIT,\"ODD,NAME\",CM-1,5.000000,BANK,17",
      "2026-12-31,FINAL_SETTLEMENT,FIRM-A,CM-1,146.000000,CLEARING-HOUSE,"
      "XB2SZ6",
      "2026-12-31,SPOT_CASH,FIRM-B,CM-1,-1152.000000,CLEARING-HOUSE,38",
      "",
      "date,account,clearing_member,initial_margin,collateral,margin_call",
  };
  EXPECT_EQ(lines, expected);
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
                      "\"positions\":[{\"symbol\":\"XB2SZ6\",\"position\":0,"
                      "\"variation_margin\":\"146.000000\",\"closed\":true,"
                      "\"final_quantity\":3},{\"symbol\":\"XB2SF7\","
                      "\"position\":-1,\"variation_margin\":\"-73.500000\","
                      "\"closed\":false,\"final_quantity\":0}],\"fills\":4,"
                      "\"variation_margin\":\"72.500000\",\"spot_cash\":"
                      "\"0.000000\",\"initial_margin\":\"646.050000\","
                      "\"collateral\":\"10000072.500000\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"trades\":[{\"trade_id\":41,\"match_time\":"
                      "\"2026-12-31T20:20:00.000000000Z\",\"match_time_ns\":"
                      "1798748400000000000,\"account\":\"FIRM-A\","
                      "\"clearing_member\":\"CM-1\",\"symbol\":\"XB2SF7\","
                      "\"side\":\"SELL\",\"quantity\":1,\"price\":\"5.95\","
                      "\"busted\":false},"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"movements\":[{\"kind\":\"DEPOSIT\",\"account\":"
                      "\"ODD,NAME\",\"clearing_member\":\"CM-1\",\"amount\":"
                      "\"5.000000\",\"counterparty\":\"BANK\",\"reference\":"
                      "\"17\"},"),
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

TEST(SettlementRender, MarginCallsShowWhatIsDueAndWhetherItIsMet) {
  w::MarginCallList l;
  l.set_date("2026-12-01");
  w::MarginCall* c = l.add_calls();
  c->set_account("FIRM-A");
  c->set_clearing_member("CM-1");
  c->set_date("2026-12-01");
  c->set_initial_margin("1149.75");
  c->set_collateral("697.00");
  c->set_amount_due("452.75");
  c->set_collateral_now("1197.00");
  c->set_outstanding("0.00");
  c->set_met(true);
  EXPECT_EQ(
      MarginCallListText(l),
      "margin calls 2026-12-01\n"
      "ACCOUNT  MEMBER       IM  COLLATERAL     DUE  COLLATERAL_NOW  "
      "OUTSTANDING  STATUS\n"
      "FIRM-A   CM-1    1149.75      697.00  452.75         1197.00         "
      "0.00  MET\n");
  EXPECT_EQ(MarginCallListJson(l),
            "{\"type\":\"margin_calls\",\"date\":\"2026-12-01\",\"calls\":[{"
            "\"account\":\"FIRM-A\",\"clearing_member\":\"CM-1\",\"date\":"
            "\"2026-12-01\",\"initial_margin\":\"1149.75\",\"collateral\":"
            "\"697.00\",\"amount_due\":\"452.75\",\"collateral_now\":"
            "\"1197.00\",\"outstanding\":\"0.00\",\"status\":\"MET\"}]}");
  w::MarginCallList none;
  none.set_date("2026-12-02");
  EXPECT_EQ(MarginCallListText(none), "margin calls 2026-12-02: none\n");
}

TEST(SettlementRender, AReportWithACallListsItAfterTheAccounts) {
  w::SettlementReport r = Report();
  r.mutable_accounts(0)->set_margin_call("12.34");
  const std::string text = SettlementReportText(r);
  EXPECT_NE(
      text.find(
          "\nACCOUNT  MEMBER          IM       COLLATERAL  "
          "MARGIN_CALL\nFIRM-A   CM-1    646.050000  10000072.500000        "
          "12.34\n"),
      std::string::npos)
      << text;
  EXPECT_NE(SettlementReportCsv(r).find(
                "\ndate,account,clearing_member,initial_margin,collateral,"
                "margin_call\n2026-12-31,FIRM-A,CM-1,646.050000,"
                "10000072.500000,12.34\n"),
            std::string::npos)
      << SettlementReportCsv(r);
  EXPECT_NE(
      SettlementReportJson(r).find(
          ",\"margin_calls\":[{\"account\":\"FIRM-A\",\"clearing_member\":"
          "\"CM-1\",\"amount_due\":\"12.34\"}]}"),
      std::string::npos);
}

TEST(SettlementRender, StatusOfARefusedRunNamesItsDateAndTheWaitingDates) {
  w::SettlementStatus s;
  s.set_ok(false);
  s.set_error("positions net to zero per contract");
  s.set_refused_date("2026-12-01");
  s.add_waiting_dates("2026-12-01");
  s.add_waiting_dates("2026-12-02");
  EXPECT_EQ(SettlementStatusText(s),
            "settlement: STOPPED: positions net to zero per contract\n"
            "refused run: 2026-12-01 (cfx settle rerun 2026-12-01 once fixed); "
            "waiting: 2026-12-01 2026-12-02\n"
            "settled dates: none\n");
  EXPECT_NE(SettlementStatusJson(s).find(
                ",\"refused_date\":\"2026-12-01\",\"waiting_dates\":["
                "\"2026-12-01\",\"2026-12-02\"]}"),
            std::string::npos)
      << SettlementStatusJson(s);
}

}  // namespace
}  // namespace cfx::gateway::cli
