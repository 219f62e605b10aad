#include "gateway/fix/position_reports.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "exchange/civil_date.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_fields.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/session/visibility.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway::fix {

namespace {

using settlement::AccountSettlement;
using settlement::ContractSettlement;
using settlement::RunReport;
using settlement::SettlementConfig;

// The settlement of contract `instrument` in `r` (which may be null), or
// nullptr.
const ContractSettlement* ContractOf(const RunReport* r, uint32_t instrument) {
  if (r == nullptr) return nullptr;
  for (const ContractSettlement& c : r->contracts) {
    if (c.instrument == instrument) return &c;
  }
  return nullptr;
}

// The NoPositions (702) group of one line: FIN, and DLV for a contract
// closed by final settlement (0 at the end of the day and the quantity
// settled at the FSP as its delivery quantity).
Group Positions(const AccountSettlement::Line& l) {
  Group pos;
  pos.count_tag = tag::kNoPositions;
  pos.delimiter = tag::kPosType;
  const auto quantity = [&pos](const char* type, int64_t lots) {
    pos.entries.push_back({{tag::kPosType, type},
                           {tag::kLongQty, Str(std::max<int64_t>(lots, 0))},
                           {tag::kShortQty, Str(std::max<int64_t>(-lots, 0))}});
  };
  quantity("FIN", l.position);
  if (l.closed) quantity("DLV", l.final_quantity);
  return pos;
}

// One PositionReport (AP), without TotalNumPosReports(727). `prior` is the
// previous business date's settlement of the contract, or null.
Message PositionReport(const SettlementConfig& sc, const std::string& req_id,
                       std::size_t number, int64_t date,
                       const AccountSettlement& a,
                       const AccountSettlement::Line& l,
                       const ContractSettlement& c,
                       const ContractSettlement* prior) {
  Message r;
  r.type = msg_type::kPositionReport;
  r.Add(tag::kPosMaintRptID,
        "AP-" + req_id + "-" + Str(static_cast<int64_t>(number)));
  r.Add(tag::kPosReqID, req_id);
  r.Add(tag::kPosReqType, "0");
  r.Add(tag::kPosReqResult, "0");
  r.Add(tag::kClearingBusinessDate, exchange::FormatCompactDay(date));
  r.Add(tag::kAccount, sc.account_names[a.account]);
  r.Add(tag::kAccountType, "1");
  r.Add(tag::kSymbol, sc.instruments[l.instrument].symbol);
  r.Add(tag::kSettlPrice, settlement::SettlementPriceText(sc, c));
  r.Add(tag::kSettlPriceType, c.final ? "1" : "2");
  r.Add(tag::kPriorSettlPrice,
        prior != nullptr ? settlement::SettlementPriceText(sc, *prior)
                         : settlement::TickPriceText(
                               sc, l.instrument,
                               sc.instruments[l.instrument].initial_reference));
  r.Add(tag::kCfxSettlementTier, settlement::TierName(c.tier));
  if (c.final)
    r.Add(tag::kCfxFinalSettlementDisrupted, c.disrupted ? "Y" : "N");
  r.Add(tag::kCfxInitialMargin, settlement::AmountText(a.initial_margin));
  r.Add(tag::kCfxCollateral, settlement::AmountText(a.collateral));
  r.groups.push_back(Positions(l));
  Group amt;
  amt.count_tag = tag::kNoPosAmt;
  amt.delimiter = tag::kPosAmtType;
  amt.entries.push_back(
      {{tag::kPosAmtType, c.final ? "FMTM" : "IMTM"},
       {tag::kPosAmt, settlement::AmountText(l.variation_margin)}});
  r.groups.push_back(std::move(amt));
  return r;
}

}  // namespace

ClearingRun FindClearingRun(const Message& m,
                            const settlement::SettlementService& settlement) {
  ClearingRun run;
  if (const std::string* d = m.Find(tag::kClearingBusinessDate)) {
    const std::optional<int64_t> day = exchange::ParseCompactDay(*d);
    if (!day.has_value()) {
      run.problem = ClearingRun::Problem::kBadDate;
      run.text = "ClearingBusinessDate(715) must be YYYYMMDD";
      return run;
    }
    run.date = *day;
  } else {
    const std::vector<int64_t> dates = settlement.SettledDates();
    if (dates.empty()) {
      run.problem = ClearingRun::Problem::kNothingSettled;
      run.text = "no business date is settled yet";
      return run;
    }
    run.date = dates.back();
  }
  run.report = settlement.Report(run.date);
  if (run.report == nullptr) {
    run.problem = ClearingRun::Problem::kNotSettled;
    run.text = exchange::FormatCompactDay(run.date) + " is not settled";
  }
  return run;
}

std::vector<Message> AnswerRequestForPositions(
    const Message& m, const UserConfig& user,
    const settlement::SettlementService* settlement) {
  const std::string* req_field = m.Find(tag::kPosReqID);
  const std::string req_id = req_field != nullptr ? *req_field : std::string();
  const std::string* only = m.Find(tag::kAccount);
  std::vector<Message> out(1);
  // RequestForPositionsAck (AO), first in `out`.
  const auto ack = [&](int result, int status, const std::string& text,
                       std::size_t total) {
    Message& a = out[0];
    a.type = msg_type::kRequestForPositionsAck;
    a.Add(tag::kPosMaintRptID, "AO-" + req_id);
    a.Add(tag::kPosReqID, req_id);
    a.Add(tag::kTotalNumPosReports, Str(static_cast<int64_t>(total)));
    a.Add(tag::kPosReqResult, Str(int64_t{result}));
    a.Add(tag::kPosReqStatus, Str(int64_t{status}));
    if (only != nullptr) a.Add(tag::kAccount, *only);
    if (!text.empty()) a.Add(tag::kText, text);
    return out;
  };
  if (settlement == nullptr) {
    return ack(4, 2, "positions are not available on this server", 0);
  }
  if (Get(m, tag::kPosReqType) != "0") {
    return ack(1, 2, "PosReqType(724) must be 0 (positions)", 0);
  }
  const ClearingRun run = FindClearingRun(m, *settlement);
  if (run.problem == ClearingRun::Problem::kBadDate) {
    return ack(1, 2, run.text, 0);
  }
  if (run.report == nullptr) return ack(2, 0, run.text, 0);
  const SettlementConfig& sc = settlement->config();
  const AccountVisibility sees = VisibilityOf(user, sc);
  if (sees.by_member && sees.member == 0) {
    return ack(3, 2, "not a clearing member's session", 0);
  }
  // The previous business date's prices, for PriorSettlPrice(734).
  const RunReport* prior = nullptr;
  for (const int64_t d : settlement->SettledDates()) {
    if (d < run.date) prior = settlement->Report(d);
  }
  for (const AccountSettlement& a : run.report->accounts) {
    if (!sees.MaySee(a.member, exchange::AccountId{a.account})) continue;
    if (only != nullptr && *only != settlement::AccountName(sc, a.account)) {
      continue;
    }
    for (const AccountSettlement::Line& l : a.positions) {
      const ContractSettlement* c = ContractOf(run.report, l.instrument);
      if (c == nullptr) continue;
      out.push_back(PositionReport(sc, req_id, out.size(), run.date, a, l, *c,
                                   ContractOf(prior, l.instrument)));
    }
  }
  const std::size_t reports = out.size() - 1;
  if (reports == 0) {
    return ack(2, 0, "no positions for " + exchange::FormatCompactDay(run.date),
               0);
  }
  ack(0, 0, "", reports);
  for (std::size_t k = 1; k < out.size(); ++k) {
    out[k].Add(tag::kTotalNumPosReports, Str(static_cast<int64_t>(reports)));
  }
  return out;
}

}  // namespace cfx::gateway::fix
