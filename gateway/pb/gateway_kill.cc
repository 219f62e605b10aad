// The protobuf gateway's kill switch requests (docs/protocol.md, "Kill
// switch"): KillSwitchRequest into one kKillSwitch command per account
// (gateway/session/kill_switches.h), the KillSwitchAck once every one is
// durable, and a KillSwitchStatus to the sessions of each account whose
// switch changed.

#include <string>
#include <utility>

#include "gateway/config/server_config.h"
#include "gateway/pb/gateway.h"
#include "gateway/session/metrics.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace {

w::RejectReason WireReason(KillSwitches::Refusal r) {
  switch (r) {
    case KillSwitches::Refusal::kNotAuthorized:
      return w::REJECT_REASON_NOT_AUTHORIZED;
    case KillSwitches::Refusal::kUnknownFirm:
      return w::REJECT_REASON_UNKNOWN_FIRM;
    case KillSwitches::Refusal::kUnknownAccount:
      return w::REJECT_REASON_UNKNOWN_ACCOUNT;
    case KillSwitches::Refusal::kNoTradingAccount:
      return w::REJECT_REASON_NO_TRADING_ACCOUNT;
    case KillSwitches::Refusal::kInvalidReasonText:
      return w::REJECT_REASON_INVALID_REASON_TEXT;
    case KillSwitches::Refusal::kNone:
      break;
  }
  return w::REJECT_REASON_UNSPECIFIED;
}

}  // namespace

void Gateway::OnKillSwitchRequest(Session& s, const w::KillSwitchRequest& m) {
  if (m.action() != w::KILL_SWITCH_ACTION_KILL &&
      m.action() != w::KILL_SWITCH_ACTION_REINSTATE) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM,
                   "kill_switch_request", "action", "action: KILL or REINSTATE");
    return;
  }
  if (m.firm().empty() == m.account().empty()) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD,
                   "kill_switch_request", m.firm().empty() ? "firm" : "account",
                   "exactly one of firm and account");
    return;
  }
  KillSwitches::Request r;
  r.firm = m.firm();
  r.account = m.account();
  r.kill = m.action() == w::KILL_SWITCH_ACTION_KILL;
  r.reason = m.reason();
  const KillSwitches::Plan plan = kill_switches_.Prepare(*s.user, r);
  out_.Clear();
  w::KillSwitchAck* ack = out_.mutable_kill_switch_ack();
  ack->set_request_id(m.request_id());
  ack->set_firm(m.firm());
  ack->set_account(m.account());
  ack->set_action(m.action());
  if (plan.refusal != KillSwitches::Refusal::kNone) {
    ack->set_accepted(false);
    ack->set_reason(WireReason(plan.refusal));
    ack->set_text(plan.text);
    SendDeskAck(s, /*rejected=*/true);
    return;
  }
  // The first command decides: a full ring refuses the request. Once one
  // is on, the others follow through the pending queue, so the request is
  // always answered.
  if (!PushDeskCommand(plan.commands.front())) {
    ack->set_accepted(false);
    ack->set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    ack->set_text(kBusyText);
    SendDeskAck(s, /*rejected=*/true);
    return;
  }
  for (std::size_t i = 1; i < plan.commands.size(); ++i) {
    if (!pending_commands_.empty() || !PushDeskCommand(plan.commands[i])) {
      pending_commands_.push_back(plan.commands[i]);
    }
  }
  kill_switches_.Submitted(plan, r, s.id);
  // The ack is built again from the request once the engine answers.
  pending_kill_acks_[plan.commands.front().client_order_id.value] = *ack;
}

void Gateway::OnKillSwitchEvent(const exchange::Event& e) {
  if (e.type == exchange::EventType::kKillSwitchSet && !sessions_.empty()) {
    out_.Clear();
    w::KillSwitchStatus* st = out_.mutable_kill_switch_status();
    const AccountInfo* a = config_.account(e.account);
    st->set_account(a != nullptr ? a->name : std::to_string(e.account.value));
    st->set_killed(e.killed());
    if (const std::string* why = kill_switches_.ReasonOf(e)) {
      st->set_reason(*why);
    }
    st->set_orders_cancelled(e.count);
    st->set_seq(e.seq.value);
    if (outbox_.Frame(out_)) {
      for (auto& [id, sp] : sessions_) {
        Session& s = *sp;
        if (s.state == Session::State::kActive && s.account == e.account) {
          outbox_.SendFramed(s, false, 0);
        }
      }
    }
  }
  bool complete = false;
  KillSwitches::Done done;
  if (!kill_switches_.OnEvent(e, &complete, &done) || !complete) return;
  auto pending = pending_kill_acks_.find(done.token);
  if (pending == pending_kill_acks_.end()) return;
  w::KillSwitchAck ack = std::move(pending->second);
  pending_kill_acks_.erase(pending);
  ack.set_accepted(true);
  for (const KillSwitches::AccountResult& r : done.results) {
    w::KillSwitchAccount* wa = ack.add_accounts();
    const AccountInfo* a = config_.account(r.account);
    wa->set_account(a != nullptr ? a->name : std::to_string(r.account.value));
    wa->set_orders_cancelled(r.orders_cancelled);
    wa->set_seq(r.seq);
    if (r.code != exchange::RejectCode::kNone && ack.accepted()) {
      ack.set_accepted(false);
      ack.set_reason(static_cast<w::RejectReason>(static_cast<int>(r.code)));
      ack.set_text(std::string(exchange::RejectCodeName(r.code)));
    }
  }
  auto it = sessions_.find(done.owner);
  if (it == sessions_.end() || it->second->state != Session::State::kActive) {
    return;
  }
  out_.Clear();
  *out_.mutable_kill_switch_ack() = std::move(ack);
  outbox_.Send(*it->second, out_);
}

}  // namespace cfx::gateway::pb
