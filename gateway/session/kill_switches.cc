#include "gateway/session/kill_switches.h"

#include <algorithm>
#include <utility>

#include "gateway/config/server_config.h"

namespace cfx::gateway {

using exchange::Command;
using exchange::CommandType;
using exchange::Event;
using exchange::EventType;

bool ValidReasonText(const std::string& text) {
  if (text.size() > KillSwitches::kMaxReasonBytes) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c <= 0x7e;
  });
}

KillSwitches::Plan KillSwitches::Prepare(const UserConfig& user,
                                         const Request& r) {
  Plan p;
  const auto refuse = [&p](Refusal why, std::string text) {
    p.refusal = why;
    p.text = std::move(text);
    return p;
  };
  const bool admin = user.role == Role::kAdmin;
  if (!admin && user.role != Role::kClearingMember) {
    return refuse(Refusal::kNotAuthorized,
                  "only the admin or a clearing member may use kill switches");
  }
  if (!r.firm.empty() && !admin) {
    return refuse(Refusal::kNotAuthorized,
                  "only the admin may kill or reinstate a firm; name an "
                  "account you clear");
  }
  if (!ValidReasonText(r.reason)) {
    return refuse(Refusal::kInvalidReasonText,
                  "reason: at most " + std::to_string(kMaxReasonBytes) +
                      " bytes of printable ASCII");
  }
  std::vector<exchange::AccountId> targets;
  if (!r.firm.empty()) {
    if (config_.FindFirm(r.firm) == nullptr) {
      return refuse(Refusal::kUnknownFirm, "no firm \"" + r.firm + "\"");
    }
    for (const AccountInfo& a : config_.accounts) {
      if (a.firm == r.firm) targets.push_back(a.id);
    }
    if (targets.empty()) {
      return refuse(Refusal::kNoTradingAccount,
                    "firm \"" + r.firm + "\" has no trading account");
    }
  } else {
    // Another member's account is answered as one that does not exist.
    const AccountInfo* a = config_.FindAccount(r.account);
    if (a == nullptr ||
        (!admin && (user.clearing_member.empty() ||
                    a->clearing_member != user.clearing_member))) {
      return refuse(Refusal::kUnknownAccount,
                    "no account \"" + r.account + "\"");
    }
    targets.push_back(a->id);
  }
  std::sort(targets.begin(), targets.end());
  const exchange::ClientOrderId token{next_token_++};
  for (const exchange::AccountId id : targets) {
    Command c;
    c.type = CommandType::kKillSwitch;
    c.account = id;
    c.flags = r.kill ? exchange::kFlagKill : uint8_t{0};
    c.client_order_id = token;
    p.commands.push_back(c);
  }
  return p;
}

void KillSwitches::Submitted(const Plan& plan, const Request& r,
                             uint64_t owner) {
  if (plan.commands.empty()) return;
  Pending& p = pending_[plan.commands.front().client_order_id.value];
  p.owner = owner;
  p.reason = r.reason;
  p.outstanding = plan.commands.size();
  for (const Command& c : plan.commands) {
    AccountResult a;
    a.account = c.account;
    p.results.push_back(a);
  }
}

const std::string* KillSwitches::ReasonOf(const Event& e) const {
  if (e.type != EventType::kKillSwitchSet || pending_.empty()) return nullptr;
  auto it = pending_.find(e.client_order_id.value);
  return it == pending_.end() ? nullptr : &it->second.reason;
}

bool KillSwitches::OnEvent(const Event& e, bool* complete, Done* done) {
  *complete = false;
  const bool answer = e.type == EventType::kKillSwitchSet ||
                      (e.type == EventType::kRejected &&
                       e.command == CommandType::kKillSwitch);
  if (!answer || pending_.empty()) return false;
  auto it = pending_.find(e.client_order_id.value);
  if (it == pending_.end()) return false;
  Pending& p = it->second;
  auto r = std::find_if(
      p.results.begin(), p.results.end(),
      [&e](const AccountResult& a) { return a.account == e.account; });
  if (r == p.results.end() || r->seq != 0) return false;
  r->seq = e.seq.value;
  if (e.type == EventType::kKillSwitchSet) {
    r->orders_cancelled = e.count;
  } else {
    r->code = e.reject_code();
  }
  if (--p.outstanding != 0) return true;
  *complete = true;
  done->token = it->first;
  done->owner = p.owner;
  done->results = std::move(p.results);
  pending_.erase(it);
  return true;
}

}  // namespace cfx::gateway
