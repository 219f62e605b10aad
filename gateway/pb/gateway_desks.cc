#include <string>
#include <utility>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/gateway.h"
#include "gateway/session/metrics.h"

// The protobuf gateway's requests to its desks and reference data: the
// instrument and grade lists, the clock, ratings and attestations
// (ReferenceDesk), the index (IndexDesk) and clearing (SettlementDesk), and
// the answers of the desks' commands once durable.

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace {

// The ack of a desk request the ring had no room for.
template <typename Ack>
void SetBusy(Ack* ack) {
  ack->set_accepted(false);
  ack->set_reason(w::REJECT_REASON_SYSTEM_BUSY);
  ack->set_text(kBusyText);
}

}  // namespace

// ---------------------------------------------------------------- reference

void Gateway::OnInstrumentList(Session& s) {
  out_.Clear();
  w::InstrumentList* list = out_.mutable_instrument_list();
  const MarketDataStore& md = *deps_.market_data;
  instruments_.ForEach([&](const InstrumentInfo& info) {
    const exchange::InstrumentConfig& ic =
        config_.engine.instruments[info.id.value - 1];
    const bool spot = info.kind == exchange::InstrumentKind::kSpot;
    w::Instrument* x = list->add_instruments();
    x->set_symbol(info.symbol);
    x->set_kind(static_cast<w::InstrumentKind>(info.kind));
    x->set_grade(info.grade);
    x->set_tick(ic.tick.units);
    x->set_contract_gpu_hours(info.contract_gpu_hours);
    x->set_min_quantity(ic.min_quantity.lots);
    x->set_max_quantity(ic.max_quantity.lots);
    x->set_reference_price(md.reference_price(info.id).units);
    x->set_state(WireState(md.state(info.id)));
    x->set_maturity(spot ? info.delivery_date : info.maturity);
    x->set_last_trading_day(info.last_trading_day);
    x->set_price_band_bps(ic.band_bps);
  });
  outbox_.Send(s, out_);
}

void Gateway::OnGradeList(Session& s) {
  out_.Clear();
  w::GradeList* list = out_.mutable_grade_list();
  static constexpr const char* kTiers[] = {
      "", "PLATINUM", "GOLD", "SILVER", "BRONZE", "UNDERPERFORM"};
  for (const GradeInfo& g : config_.grades) {
    w::Grade* x = list->add_grades();
    x->set_name(g.name);
    x->set_hardware(g.hardware);
    const auto tier = static_cast<std::size_t>(g.min_rating);
    x->set_min_rating(tier < std::size(kTiers) ? kTiers[tier] : "");
    x->set_min_output_tokens_per_s_per_gpu(g.min_output_tokens_per_s_per_gpu);
    x->set_recipe(g.recipe);
    x->set_max_attestation_age_days(
        static_cast<int32_t>(g.max_attestation_age_days));
    x->set_region(g.region);
    x->set_initial_reference_price(g.initial_reference.units);
  }
  outbox_.Send(s, out_);
}

void Gateway::OnReference(Session& s, const w::Envelope& m) {
  const exchange::Timestamp now = deps_.clock->Now();
  ReferenceDesk::Request r;
  switch (m.body_case()) {
    case w::Envelope::kRatingQuery: {
      w::RatingReport report = desk_.Ratings(*s.user, m.rating_query(), now);
      out_.Clear();
      *out_.mutable_rating_report() = std::move(report);
      outbox_.Send(s, out_);
      return;
    }
    case w::Envelope::kAttestationListRequest: {
      w::AttestationList list = desk_.Attestations(
          *s.user, m.attestation_list_request().request_id(), now);
      out_.Clear();
      *out_.mutable_attestation_list() = std::move(list);
      outbox_.Send(s, out_);
      return;
    }
    case w::Envelope::kRatingSet:
      r = desk_.RatingSet(*s.user, m.rating_set(), now);
      break;
    case w::Envelope::kRatingRevoke:
      r = desk_.RatingRevoke(*s.user, m.rating_revoke());
      break;
    case w::Envelope::kAttesterKeyRegister:
      r = desk_.KeyRegister(*s.user, m.attester_key_register());
      break;
    case w::Envelope::kAttesterKeyRevoke:
      r = desk_.KeyRevoke(*s.user, m.attester_key_revoke());
      break;
    case w::Envelope::kAttestationSubmit:
      r = desk_.AttestationSubmit(*s.user, m.attestation_submit());
      break;
    case w::Envelope::kSpotFailureReport:
      r = desk_.SpotFailure(*s.user, m.spot_failure_report());
      break;
    default:
      return;
  }
  SubmitReference(s, std::move(r));
}

void Gateway::SubmitReference(Session& s, ReferenceDesk::Request r) {
  if (r.submit && PushDeskCommand(r.cmd)) {
    desk_.Submitted(r, s.id);
    return;
  }
  if (r.submit) {  // the ring is full
    const uint64_t request_id = r.ack.request_id();
    desk_.Abandon(r);
    r.ack = w::ReferenceAck();
    r.ack.set_request_id(request_id);
    r.ack.set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    r.ack.set_text(kBusyText);
  }
  out_.Clear();
  *out_.mutable_reference_ack() = std::move(r.ack);
  SendDeskAck(s, /*rejected=*/true);
}

void Gateway::OnReferenceEvent(const exchange::Event& e) {
  uint64_t session_id = 0;
  if (desk_.OnEvent(e, &session_id, &reference_ack_)) {
    auto it = sessions_.find(session_id);
    if (it != sessions_.end() && it->second->state == Session::State::kActive) {
      out_.Clear();
      *out_.mutable_reference_ack() = std::move(reference_ack_);
      outbox_.Send(*it->second, out_);
    }
    if (const exchange::ReferenceUser* u = desk_.changed_user()) {
      OnUserChanged(*u);
    }
  }
  if (e.type == exchange::EventType::kTradeBusted) {
    reports_.OnTradeBust(e, sessions_);
  }
}

// ---------------------------------------------------------------- index

void Gateway::OnIndexRequest(Session& s, const w::Envelope& m) {
  const std::vector<w::Envelope> answer =
      m.has_index_query()
          ? index_desk_.Query(m.index_query())
          : index_desk_.Explain(*s.user, m.index_explain_request());
  for (const w::Envelope& e : answer) outbox_.Send(s, e);
}

// ---------------------------------------------------------------- clearing

void Gateway::OnClearingRequest(Session& s, const w::Envelope& m) {
  if (m.has_settlement_query()) {
    for (const w::Envelope& e :
         settlement_desk_.Report(*s.user, m.settlement_query())) {
      outbox_.Send(s, e);
    }
    return;
  }
  if (m.has_settlement_status_request()) {
    outbox_.Send(
        s, settlement_desk_.Status(*s.user, m.settlement_status_request()));
    return;
  }
  if (m.has_margin_call_query()) {
    for (const w::Envelope& e :
         settlement_desk_.Calls(*s.user, m.margin_call_query())) {
      outbox_.Send(s, e);
    }
    return;
  }
  if (m.has_settlement_rerun_request()) {
    SettlementDesk::Rerun r =
        settlement_desk_.RerunRequest(*s.user, m.settlement_rerun_request());
    if (r.submit && PushDeskCommand(r.cmd)) {
      settlement_desk_.Submitted(r, s.id);
      return;
    }
    if (r.submit) SetBusy(&r.ack);
    out_.Clear();
    *out_.mutable_settlement_rerun_ack() = std::move(r.ack);
    SendDeskAck(s, /*rejected=*/false);
    return;
  }
  const w::CollateralRequest& c = m.collateral_request();
  if (c.action() != w::COLLATERAL_ACTION_DEPOSIT &&
      c.action() != w::COLLATERAL_ACTION_WITHDRAW) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM,
                   "collateral_request", "action",
                   "action: DEPOSIT or WITHDRAW");
    return;
  }
  SettlementDesk::Request r = settlement_desk_.Collateral(*s.user, c);
  if (r.submit && PushDeskCommand(r.cmd)) {
    settlement_desk_.Submitted(r, s.id);
    return;
  }
  if (r.submit) SetBusy(&r.ack);
  out_.Clear();
  *out_.mutable_collateral_ack() = std::move(r.ack);
  SendDeskAck(s, /*rejected=*/true);
}

void Gateway::OnHaltRequest(Session& s, const w::TradingHaltRequest& m) {
  if (m.action() != w::HALT_ACTION_HALT &&
      m.action() != w::HALT_ACTION_RESUME) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM,
                   "trading_halt_request", "action", "action: HALT or RESUME");
    return;
  }
  if (m.target_case() == w::TradingHaltRequest::TARGET_NOT_SET ||
      (m.target_case() == w::TradingHaltRequest::kAll && !m.all())) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD,
                   "trading_halt_request", "target",
                   "one of symbol, root or all is required");
    return;
  }
  HaltDesk::Plan plan = halt_desk_.Request(*s.user, m);
  std::size_t pushed = 0;
  while (pushed < plan.cmds.size() && PushDeskCommand(plan.cmds[pushed])) {
    ++pushed;
  }
  if (halt_desk_.Submitted(plan, pushed, s.id)) return;
  if (!plan.cmds.empty()) SetBusy(&plan.ack);
  out_.Clear();
  *out_.mutable_trading_halt_ack() = std::move(plan.ack);
  SendDeskAck(s, /*rejected=*/false);
}

// The ack of a halt request goes to its session once every command is
// durable; a session gone since then gets nothing (the states changed all
// the same).
void Gateway::OnHaltEvent(const exchange::Event& e) {
  uint64_t session_id = 0;
  if (!halt_desk_.OnEvent(e, &session_id, &halt_ack_)) return;
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second->state != Session::State::kActive) {
    return;
  }
  out_.Clear();
  *out_.mutable_trading_halt_ack() = std::move(halt_ack_);
  outbox_.Send(*it->second, out_);
}

bool Gateway::PushDeskCommand(const exchange::Command& c) {
  if (!deps_.ring->TryPush(c)) return false;
  ++commands_submitted_;
  return true;
}

void Gateway::SendDeskAck(Session& s, bool rejected) {
  if (rejected && deps_.metrics != nullptr) deps_.metrics->OrderRejected();
  outbox_.Send(s, out_);
}

// The engine's answer to a CollateralRequest goes to the session that
// sent it, once durable; a session gone since then gets nothing (the
// collateral moved all the same).
void Gateway::OnClearingEvent(const exchange::Event& e) {
  uint64_t session_id = 0;
  if (settlement_desk_.OnEvent(e, &session_id, &collateral_ack_)) {
    out_.Clear();
    *out_.mutable_collateral_ack() = std::move(collateral_ack_);
  } else if (settlement_desk_.OnRerunEvent(e, &session_id, &rerun_ack_)) {
    out_.Clear();
    *out_.mutable_settlement_rerun_ack() = std::move(rerun_ack_);
  } else {
    return;
  }
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second->state != Session::State::kActive) {
    return;
  }
  outbox_.Send(*it->second, out_);
}

void Gateway::OnIndexPrint(const index::Print& p) {
  if (deps_.index == nullptr) return;
  out_.Clear();
  index_desk_.ToWire(p, out_.mutable_index_print());
  if (!outbox_.Frame(out_)) return;
  for (auto& [id, sp] : sessions_) {
    Session& s = *sp;
    if (s.state != Session::State::kActive || s.user == nullptr) continue;
    outbox_.SendFramed(s, false, 0);
  }
}

void Gateway::OnClock(Session& s, const w::ClockRequest& m) {
  if (s.user->role != Role::kAdmin) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "clock_request",
                   nullptr, "only the admin may use the clock");
    return;
  }
  switch (m.action_case()) {
    case w::ClockRequest::ACTION_NOT_SET:
      outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "clock_request",
                     "action", "read, advance_ns or set_time_ns is required");
      return;
    case w::ClockRequest::kRead:
      break;
    case w::ClockRequest::kAdvanceNs:
    case w::ClockRequest::kSetTimeNs: {
      if (deps_.simulated_clock == nullptr) {
        outbox_.Reject(s, w::SESSION_REJECT_REASON_NOT_SUPPORTED,
                       "clock_request", nullptr,
                       "the exchange runs on the wall clock");
        return;
      }
      if (m.action_case() == w::ClockRequest::kAdvanceNs) {
        if (m.advance_ns() <= 0) {
          outbox_.Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE,
                         "clock_request", "advance_ns",
                         "advance_ns must be positive");
          return;
        }
        deps_.simulated_clock->Advance(m.advance_ns());
      } else {
        const Status st =
            deps_.simulated_clock->Set(exchange::Timestamp{m.set_time_ns()});
        if (!st.ok()) {
          outbox_.Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE,
                         "clock_request", "set_time_ns", st.message());
          return;
        }
      }
      break;
    }
  }
  out_.Clear();
  out_.mutable_clock_report()->set_now_ns(deps_.clock->Now().nanos);
  out_.mutable_clock_report()->set_simulated(deps_.simulated_clock != nullptr);
  for (int64_t day : deps_.config->calendar.holidays()) {
    out_.mutable_clock_report()->add_holidays(FormatDay(day));
  }
  outbox_.Send(s, out_);
}

}  // namespace cfx::gateway::pb
