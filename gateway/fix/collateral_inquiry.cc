#include "gateway/fix/collateral_inquiry.h"

#include <string>
#include <vector>

#include "exchange/civil_date.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/fix/position_reports.h"
#include "gateway/session/visibility.h"
#include "settlement/margin_call.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway::fix {

namespace {

// CollInquiryStatus(945) and CollInquiryResult(946) values.
constexpr const char* kAccepted = "0";
constexpr const char* kRejected = "4";
constexpr const char* kSuccessful = "0";
constexpr const char* kNotSupported = "8";
constexpr const char* kUnauthorized = "9";
constexpr const char* kOther = "99";
// CollStatus(910): the collateral the clearing house holds for the account.
constexpr const char* kAssigned = "3";

}  // namespace

std::vector<Message> AnswerCollateralInquiry(
    const Message& m, const UserConfig& user,
    const settlement::SettlementService* settlement) {
  const std::string* id_field = m.Find(tag::kCollInquiryID);
  const std::string id = id_field != nullptr ? *id_field : std::string();
  const std::string* only = m.Find(tag::kAccount);
  std::vector<Message> out(1);
  Message& ack = out[0];
  ack.type = msg_type::kCollateralInquiryAck;
  ack.Add(tag::kCollInquiryID, id);
  const auto finish = [&](const char* status, const char* result,
                          std::size_t reports, const std::string& date,
                          const std::string& text) {
    ack.Add(tag::kCollInquiryStatus, status);
    ack.Add(tag::kCollInquiryResult, result);
    ack.Add(tag::kTotNumReports, std::to_string(reports));
    if (only != nullptr) ack.Add(tag::kAccount, *only);
    if (!date.empty()) ack.Add(tag::kClearingBusinessDate, date);
    if (!text.empty()) ack.Add(tag::kText, text);
    return out;
  };
  if (settlement == nullptr) {
    return finish(kRejected, kNotSupported, 0, "",
                  "margin calls are not available on this server");
  }
  if (user.role != Role::kClearingMember && user.role != Role::kAdmin) {
    return finish(kRejected, kUnauthorized, 0, "",
                  "margin calls are for clearing members and the admin");
  }
  if (const std::string* sub = m.Find(tag::kSubscriptionRequestType);
      sub != nullptr && *sub != "0") {
    return finish(kRejected, kNotSupported, 0, "",
                  "SubscriptionRequestType(263) must be 0 (snapshot)");
  }
  const ClearingRun run = FindClearingRun(m, *settlement);
  if (run.report == nullptr) return finish(kRejected, kOther, 0, "", run.text);
  const int64_t date = run.date;
  const settlement::SettlementConfig& sc = settlement->config();
  const AccountVisibility sees = VisibilityOf(user, sc);
  if (sees.by_member && sees.member == 0) {
    return finish(kRejected, kUnauthorized, 0, "",
                  "not a clearing member's session");
  }
  // Member 0: every member's calls (the admin).
  const uint32_t member = sees.by_member ? sees.member : 0;
  std::vector<settlement::MarginCall> calls =
      settlement::MarginCalls(*run.report, settlement->ledger(), member);
  const auto name = [&sc](uint32_t account) {
    return settlement::AccountName(sc, account);
  };
  if (only != nullptr) {
    std::erase_if(calls, [&](const settlement::MarginCall& c) {
      return name(c.account) != *only;
    });
  }
  const std::string fix_date = exchange::FormatCompactDay(date);
  finish(kAccepted, kSuccessful, calls.size(), fix_date,
         calls.empty() ? "no margin calls for " + fix_date : std::string());
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const settlement::MarginCall& c = calls[k];
    Message r;
    r.type = msg_type::kCollateralReport;
    r.Add(tag::kCollRptID, "BA-" + id + "-" + std::to_string(k + 1));
    r.Add(tag::kCollInquiryID, id);
    r.Add(tag::kCollStatus, kAssigned);
    r.Add(tag::kTotNumReports, std::to_string(calls.size()));
    r.Add(tag::kAccount, name(c.account));
    r.Add(tag::kClearingBusinessDate, fix_date);
    r.Add(tag::kCurrency, "USD");
    r.Add(tag::kMarginExcess,
          settlement::AmountText(
              exchange::Amount{c.collateral.micros - c.initial_margin.micros}));
    r.Add(tag::kTotalNetValue, settlement::AmountText(c.collateral));
    r.Add(tag::kCashOutstanding, settlement::AmountText(c.outstanding));
    r.Add(tag::kCfxInitialMargin, settlement::AmountText(c.initial_margin));
    r.Add(tag::kCfxMarginCallAmount, settlement::AmountText(c.amount_due));
    r.Add(tag::kCfxCollateralNow, settlement::AmountText(c.collateral_now));
    r.Add(tag::kCfxMarginCallStatus, c.met ? "MET" : "OPEN");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace cfx::gateway::fix
