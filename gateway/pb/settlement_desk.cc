#include "gateway/pb/settlement_desk.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "exchange/core/reject_code.h"
#include "exchange/text_format.h"
#include "gateway/config/instrument_table.h"
#include "gateway/pb/index_desk.h"
#include "gateway/session/visibility.h"
#include "settlement/margin_call.h"
#include "settlement/settlement_report.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace internal {

std::optional<int64_t> ParseAmountMicros(std::string_view text) {
  const std::optional<int64_t> micros = exchange::ParseFixedDecimal(text, 6);
  if (!micros.has_value() || *micros == 0) return std::nullopt;
  return micros;
}

}  // namespace internal

namespace {

using internal::Quote;
using internal::Refuse;
using settlement::AmountText;

// Added to each repeated element's size for its tag and length prefix.
constexpr std::size_t kElementOverhead = 8;

// Splits a long answer into parts: each Envelope of `*out` holds one `Part`
// (SettlementReport, MarginCallList) of about kMaxMessageBytes at most, with
// the request id and date; every part but the last has more = true.
template <typename Part>
class PartWriter {
 public:
  using MutablePart = Part* (w::Envelope::*)();

  // Starts the first part in the (one) Envelope of `*out`.
  PartWriter(std::vector<w::Envelope>* out, MutablePart mutable_part,
             uint64_t request_id, std::string date)
      : out_(out),
        mutable_part_(mutable_part),
        request_id_(request_id),
        date_(std::move(date)) {
    Start();
  }

  Part* part() const { return part_; }

  // Makes room for an element of `n` bytes: the next part starts when it
  // would not fit this one, unless this one is `empty` (a part holds at
  // least one element, however large). Then counts the element in.
  void Reserve(std::size_t n, bool empty) {
    if (used_ + n > SettlementDesk::kMaxMessageBytes && !empty) {
      part_->set_more(true);
      out_->emplace_back();
      Start();
    }
    used_ += n;
  }

 private:
  void Start() {
    part_ = (out_->back().*mutable_part_)();
    part_->set_request_id(request_id_);
    part_->set_date(date_);
    used_ = out_->back().ByteSizeLong();
  }

  std::vector<w::Envelope>* out_;
  MutablePart mutable_part_;
  uint64_t request_id_;
  std::string date_;
  Part* part_ = nullptr;
  std::size_t used_ = 0;
};

const std::string& Symbol(const settlement::SettlementConfig& c,
                          uint32_t instrument) {
  static const std::string kNone;
  return instrument < c.instruments.size() ? c.instruments[instrument].symbol
                                           : kNone;
}

void ToWire(const settlement::SettlementConfig& config,
            const settlement::ContractSettlement& c, w::SettlementPrice* out) {
  out->set_symbol(Symbol(config, c.instrument));
  out->set_price(settlement::SettlementPriceText(config, c));
  out->set_tier(settlement::TierName(c.tier));
  out->set_final(c.final);
  out->set_disrupted(c.disrupted);
  out->set_open_interest(c.open_interest);
}

void ToWire(const settlement::SettlementConfig& config,
            const settlement::AccountSettlement& a, w::AccountSettlement* out) {
  out->set_account(settlement::AccountName(config, a.account));
  out->set_clearing_member(settlement::MemberName(config, a.member));
  for (const settlement::AccountSettlement::Line& l : a.positions) {
    w::PositionLine* p = out->add_positions();
    p->set_symbol(Symbol(config, l.instrument));
    p->set_position(l.position);
    p->set_variation_margin(AmountText(l.variation_margin));
    if (l.closed) {
      p->set_closed(true);
      p->set_final_quantity(l.final_quantity);
    }
  }
  out->set_fills(a.fills);
  out->set_variation_margin(AmountText(a.variation_margin));
  out->set_spot_cash(AmountText(a.spot_cash));
  out->set_initial_margin(AmountText(a.initial_margin));
  out->set_collateral(AmountText(a.collateral));
  out->set_margin_call(AmountText(a.margin_call));
}

void ToWire(const settlement::SettlementConfig& config,
            const settlement::TradeLine& t, w::SettlementTrade* out) {
  out->set_trade_id(t.trade_id);
  out->set_match_time_ns(t.match_time);
  out->set_account(settlement::AccountName(config, t.account));
  out->set_clearing_member(settlement::MemberName(config, t.member));
  out->set_symbol(Symbol(config, t.instrument));
  out->set_side(t.lots > 0 ? w::SIDE_BUY : w::SIDE_SELL);
  out->set_quantity(t.lots > 0 ? t.lots : -t.lots);
  out->set_price(settlement::TickPriceText(config, t.instrument, t.price));
  out->set_busted(t.busted);
}

void ToWire(const settlement::SettlementConfig& config,
            const settlement::CashLine& c, w::CashMovement* out) {
  out->set_kind(std::string(settlement::MovementKindName(c.movement.kind)));
  out->set_account(settlement::AccountName(config, c.movement.account));
  out->set_clearing_member(settlement::MemberName(config, c.member));
  out->set_amount(AmountText(c.movement.amount));
  out->set_counterparty(settlement::CounterpartyName(c.counterparty));
  out->set_reference(settlement::MovementReference(config, c.movement));
}

void ToWire(const settlement::SettlementConfig& config,
            const settlement::MarginCall& c, w::MarginCall* out) {
  out->set_account(settlement::AccountName(config, c.account));
  out->set_clearing_member(settlement::MemberName(config, c.member));
  out->set_date(FormatDay(c.date));
  out->set_initial_margin(AmountText(c.initial_margin));
  out->set_collateral(AmountText(c.collateral));
  out->set_amount_due(AmountText(c.amount_due));
  out->set_collateral_now(AmountText(c.collateral_now));
  out->set_outstanding(AmountText(c.outstanding));
  out->set_met(c.met);
}

bool MaySeeSettlement(const UserConfig& user) {
  return user.role == Role::kClearingMember || user.role == Role::kAdmin;
}

}  // namespace

std::optional<uint32_t> SettlementDesk::Scope(const UserConfig& user) const {
  const AccountVisibility v = VisibilityOf(user, settlement_->config());
  return v.all ? std::nullopt : std::optional<uint32_t>(v.member);
}

const settlement::RunReport* SettlementDesk::SettledRun(
    const UserConfig& user, uint64_t id, const std::string& date,
    const std::string& what, w::Envelope* refusal) const {
  if (!MaySeeSettlement(user)) {
    *refusal = Refuse(id, w::REJECT_REASON_NOT_AUTHORIZED,
                      what + " are for clearing members and the admin");
    return nullptr;
  }
  if (settlement_ == nullptr) {
    *refusal = Refuse(id, w::REJECT_REASON_SETTLEMENT_UNAVAILABLE,
                      "this exchange runs no settlement");
    return nullptr;
  }
  int64_t day = 0;
  if (date.empty()) {
    const std::vector<int64_t> dates = settlement_->SettledDates();
    if (dates.empty()) {
      *refusal = Refuse(id, w::REJECT_REASON_NOT_SETTLED,
                        "no business day has been settled yet");
      return nullptr;
    }
    day = dates.back();
  } else {
    const std::optional<int64_t> d = ParseDay(date);
    if (!d.has_value()) {
      *refusal = Refuse(id, w::REJECT_REASON_INVALID_DATE,
                        "date " + Quote(date) +
                            " is not a calendar date YYYY-MM-DD between "
                            "1970-01-01 and 9999-12-31");
      return nullptr;
    }
    day = *d;
  }
  const settlement::RunReport* report = settlement_->Report(day);
  if (report == nullptr) {
    *refusal = Refuse(id, w::REJECT_REASON_NOT_SETTLED,
                      FormatDay(day) + " has not been settled");
  }
  return report;
}

std::vector<w::Envelope> SettlementDesk::Report(
    const UserConfig& user, const w::SettlementQuery& q) const {
  const uint64_t id = q.request_id();
  std::vector<w::Envelope> out(1);
  const settlement::RunReport* report =
      SettledRun(user, id, q.date(), "settlement reports", &out[0]);
  if (report == nullptr) return out;
  const settlement::SettlementConfig& config = settlement_->config();
  const std::optional<uint32_t> scope = Scope(user);
  PartWriter<w::SettlementReport> parts(&out,
                                        &w::Envelope::mutable_settlement_report,
                                        id, FormatDay(report->date));
  // Puts one element of a report (a contract, account, fill, movement)
  // into the current part, or a new one when it would not fit.
  const auto append = [&](const auto& line, auto element, auto add) {
    ToWire(config, line, &element);
    const w::SettlementReport& part = *parts.part();
    parts.Reserve(element.ByteSizeLong() + kElementOverhead,
                  part.contracts_size() == 0 && part.accounts_size() == 0 &&
                      part.trades_size() == 0 && part.movements_size() == 0);
    *add(*parts.part()) = std::move(element);
  };
  const auto visible = [&scope](uint32_t member) {
    return member != 0 && (!scope.has_value() || member == *scope);
  };
  for (const settlement::ContractSettlement& c : report->contracts) {
    append(c, w::SettlementPrice(),
           [](w::SettlementReport& r) { return r.add_contracts(); });
  }
  for (const settlement::AccountSettlement& a : report->accounts) {
    if (!visible(a.member)) continue;
    append(a, w::AccountSettlement(),
           [](w::SettlementReport& r) { return r.add_accounts(); });
  }
  for (const settlement::TradeLine& t : report->trades) {
    if (!visible(t.member)) continue;
    append(t, w::SettlementTrade(),
           [](w::SettlementReport& r) { return r.add_trades(); });
  }
  for (const settlement::CashLine& c : report->cash) {
    if (!visible(c.member)) continue;
    append(c, w::CashMovement(),
           [](w::SettlementReport& r) { return r.add_movements(); });
  }
  return out;
}

w::Envelope SettlementDesk::Status(const UserConfig& user,
                                   const w::SettlementStatusRequest& m) const {
  if (!MaySeeSettlement(user)) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "settlement status is for clearing members and the admin");
  }
  if (settlement_ == nullptr) {
    return Refuse(m.request_id(), w::REJECT_REASON_SETTLEMENT_UNAVAILABLE,
                  "this exchange runs no settlement");
  }
  w::Envelope e;
  w::SettlementStatus* s = e.mutable_settlement_status();
  s->set_request_id(m.request_id());
  const std::vector<int64_t> dates = settlement_->SettledDates();
  const std::size_t first =
      dates.size() > kMaxStatusDates ? dates.size() - kMaxStatusDates : 0;
  for (std::size_t i = first; i < dates.size(); ++i) {
    s->add_settled_dates(FormatDay(dates[i]));
  }
  const cfx::Status& st = settlement_->status();
  s->set_ok(st.ok());
  if (!st.ok()) s->set_error(st.message());
  if (settlement_->refused_date() != 0) {
    s->set_refused_date(FormatDay(settlement_->refused_date()));
    for (const int64_t d : settlement_->WaitingDates()) {
      s->add_waiting_dates(FormatDay(d));
    }
  }
  if (!dates.empty()) {
    s->set_latest_date(FormatDay(dates.back()));
    if (const settlement::RunReport* r = settlement_->Report(dates.back())) {
      for (const settlement::ContractSettlement& c : r->contracts) {
        ToWire(settlement_->config(), c, s->add_contracts());
      }
    }
  }
  return e;
}

std::vector<w::Envelope> SettlementDesk::Calls(
    const UserConfig& user, const w::MarginCallQuery& q) const {
  const uint64_t id = q.request_id();
  std::vector<w::Envelope> out(1);
  const settlement::RunReport* report =
      SettledRun(user, id, q.date(), "margin calls", &out[0]);
  if (report == nullptr) return out;
  const std::optional<uint32_t> scope = Scope(user);
  PartWriter<w::MarginCallList> parts(&out,
                                      &w::Envelope::mutable_margin_call_list,
                                      id, FormatDay(report->date));
  // A member without a member index sees nothing (scope 0 matches none).
  const uint32_t member = scope.has_value() ? *scope : 0;
  if (scope.has_value() && member == 0) return out;
  const settlement::SettlementConfig& config = settlement_->config();
  for (const settlement::MarginCall& c :
       settlement::MarginCalls(*report, settlement_->ledger(), member)) {
    if (!q.account().empty() &&
        settlement::AccountName(config, c.account) != q.account()) {
      continue;
    }
    w::MarginCall call;
    ToWire(config, c, &call);
    parts.Reserve(call.ByteSizeLong() + kElementOverhead,
                  parts.part()->calls_size() == 0);
    *parts.part()->add_calls() = std::move(call);
  }
  return out;
}

SettlementDesk::Rerun SettlementDesk::RerunRequest(
    const UserConfig& user, const w::SettlementRerunRequest& m) {
  Rerun r;
  r.ack.set_request_id(m.request_id());
  r.ack.set_date(m.date());
  const auto refuse = [&r](w::RejectReason reason, std::string text) {
    r.ack.set_accepted(false);
    r.ack.set_reason(reason);
    r.ack.set_text(std::move(text));
    return r;
  };
  if (user.role != Role::kAdmin) {
    return refuse(w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin may re-run a settlement date");
  }
  if (settlement_ == nullptr) {
    return refuse(w::REJECT_REASON_SETTLEMENT_UNAVAILABLE,
                  "this exchange runs no settlement");
  }
  const std::optional<int64_t> day = ParseDay(m.date());
  if (!day.has_value()) {
    return refuse(w::REJECT_REASON_INVALID_DATE,
                  "date " + Quote(m.date()) +
                      " is not a calendar date YYYY-MM-DD between "
                      "1970-01-01 and 9999-12-31");
  }
  const int64_t refused = settlement_->refused_date();
  if (refused == 0 || refused != *day) {
    return refuse(w::REJECT_REASON_NOTHING_TO_RERUN,
                  refused == 0 ? "no settlement run is refused"
                               : FormatDay(*day) +
                                     " is not the refused run; the refused "
                                     "run is " +
                                     FormatDay(refused));
  }
  r.submit = true;
  r.cmd.type = exchange::CommandType::kSettlementRerun;
  r.cmd.set_settlement_date(*day);
  r.cmd.client_order_id = exchange::ClientOrderId{next_token_++};
  return r;
}

void SettlementDesk::Submitted(const Rerun& r, uint64_t session_id) {
  pending_reruns_[r.cmd.client_order_id.value] = {session_id, r.ack};
}

bool SettlementDesk::OnRerunEvent(const exchange::Event& e,
                                  uint64_t* session_id,
                                  w::SettlementRerunAck* ack) {
  const bool answer = e.type == exchange::EventType::kSettlementRerun ||
                      (e.type == exchange::EventType::kRejected &&
                       e.command == exchange::CommandType::kSettlementRerun);
  if (!answer || pending_reruns_.empty()) return false;
  auto it = pending_reruns_.find(e.client_order_id.value);
  if (it == pending_reruns_.end()) return false;
  *session_id = it->second.session_id;
  *ack = std::move(it->second.ack);
  pending_reruns_.erase(it);
  ack->set_seq(e.seq.value);
  if (e.type == exchange::EventType::kSettlementRerun) {
    ack->set_accepted(true);
    return true;
  }
  const exchange::RejectCode code = e.reject_code();
  ack->set_accepted(false);
  ack->set_reason(static_cast<w::RejectReason>(static_cast<int>(code)));
  ack->set_text(std::string(exchange::RejectCodeName(code)));
  return true;
}

SettlementDesk::Request SettlementDesk::Collateral(
    const UserConfig& user, const w::CollateralRequest& m) {
  Request r;
  w::CollateralAck& ack = r.ack;
  ack.set_request_id(m.request_id());
  ack.set_account(m.account());
  const auto refuse = [&r](w::RejectReason reason, std::string text) {
    r.ack.set_accepted(false);
    r.ack.set_reason(reason);
    r.ack.set_text(std::move(text));
    return r;
  };
  if (user.role != Role::kClearingMember) {
    return refuse(w::REJECT_REASON_NOT_AUTHORIZED,
                  "only a clearing member deposits or withdraws collateral");
  }
  // Another member's account is answered as one that does not exist.
  const AccountInfo* account = config_.FindAccount(m.account());
  if (account == nullptr || user.clearing_member.empty() ||
      account->clearing_member != user.clearing_member) {
    return refuse(w::REJECT_REASON_UNKNOWN_ACCOUNT,
                  "no account " + Quote(m.account()));
  }
  const std::optional<int64_t> micros = internal::ParseAmountMicros(m.amount());
  if (!micros.has_value()) {
    return refuse(w::REJECT_REASON_INVALID_AMOUNT,
                  "amount " + Quote(m.amount()) +
                      " is not a positive USD amount with at most 6 "
                      "decimals, at most 9223372036854.775807");
  }
  const bool withdraw = m.action() == w::COLLATERAL_ACTION_WITHDRAW;
  const int64_t signed_micros = withdraw ? -*micros : *micros;
  ack.set_amount(AmountText(exchange::Amount{signed_micros}));
  r.submit = true;
  r.cmd.type = exchange::CommandType::kCollateral;
  r.cmd.account = account->id;
  r.cmd.set_amount(exchange::Amount{signed_micros});
  r.cmd.set_settlement_date(0);  // a member's deposit or withdrawal
  r.cmd.client_order_id = exchange::ClientOrderId{next_token_++};
  return r;
}

void SettlementDesk::Submitted(const Request& r, uint64_t session_id) {
  Pending p;
  p.session_id = session_id;
  p.ack = r.ack;
  p.account = r.cmd.account;
  pending_[r.cmd.client_order_id.value] = std::move(p);
}

bool SettlementDesk::OnEvent(const exchange::Event& e, uint64_t* session_id,
                             w::CollateralAck* ack) {
  // A settlement run's bookings (dated) are not requests.
  const bool answer = (e.type == exchange::EventType::kCollateralChanged &&
                       e.settlement_date() == 0) ||
                      (e.type == exchange::EventType::kRejected &&
                       e.command == exchange::CommandType::kCollateral);
  if (!answer || pending_.empty()) return false;
  auto it = pending_.find(e.client_order_id.value);
  if (it == pending_.end() || it->second.account != e.account) return false;
  Pending p = std::move(it->second);
  pending_.erase(it);
  *session_id = p.session_id;
  *ack = std::move(p.ack);
  ack->set_seq(e.seq.value);
  if (e.type == exchange::EventType::kCollateralChanged) {
    ack->set_accepted(true);
    ack->set_collateral_after(AmountText(e.collateral()));
    return true;
  }
  const exchange::RejectCode code = e.reject_code();
  ack->set_accepted(false);
  ack->set_reason(static_cast<w::RejectReason>(static_cast<int>(code)));
  std::string text(exchange::RejectCodeName(code));
  if (code == exchange::RejectCode::kInsufficientMargin) {
    text +=
        ": the withdrawal would leave less collateral than the account's "
        "margin requirement, or less than zero";
  } else if (code == exchange::RejectCode::kInvalidAmount) {
    text += ": the collateral would leave the 64-bit range";
  } else if (code == exchange::RejectCode::kUnknownAccount) {
    text = "no account " + Quote(ack->account());
  }
  ack->set_text(std::move(text));
  return true;
}

}  // namespace cfx::gateway::pb
