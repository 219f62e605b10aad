#include "gateway/pb/halt_desk.h"

#include <string>
#include <utility>

#include "exchange/core/reject_code.h"
#include "gateway/config/instrument_table.h"
#include "gateway/md/market_data.h"
#include "gateway/md/status_reasons.h"
#include "gateway/pb/market_data_publisher.h"
#include "gateway/session/kill_switches.h"

namespace cfx::gateway::pb {

namespace w = ::cfx::wire::v1;
using exchange::InstrumentState;

namespace {

// The root an instrument answers to in a request: a future's root, a spot
// listing's grade.
const std::string& RootOf(const InstrumentInfo& info) {
  return info.kind == exchange::InstrumentKind::kSpot ? info.grade : info.root;
}

}  // namespace

HaltDesk::Plan HaltDesk::Request(const UserConfig& user,
                                 const w::TradingHaltRequest& m) {
  Plan p;
  p.ack.set_request_id(m.request_id());
  const auto refuse = [&p](w::RejectReason reason, std::string text) {
    p.cmds.clear();
    p.symbols.clear();
    p.ack.set_accepted(false);
    p.ack.set_reason(reason);
    p.ack.set_text(std::move(text));
    return std::move(p);
  };
  if (user.role != Role::kAdmin) {
    return refuse(w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin may halt or resume trading");
  }
  if (!ValidReasonText(m.reason())) {
    return refuse(w::REJECT_REASON_INVALID_REASON_TEXT,
                  "reason: at most 200 printable ASCII characters");
  }
  const bool halt = m.action() == w::HALT_ACTION_HALT;
  if ((halt && m.pre_open_seconds() != 0) ||
      m.pre_open_seconds() > exchange::kMaxPreOpenNanos / 1'000'000'000) {
    return refuse(w::REJECT_REASON_INVALID_PRE_OPEN_LENGTH,
                  halt ? "pre_open_seconds: only for a resume"
                       : "pre_open_seconds: at most 86400");
  }
  const uint32_t seconds =
      m.pre_open_seconds() != 0 ? m.pre_open_seconds() : kDefaultPreOpenSeconds;
  std::vector<const InstrumentInfo*> targets;
  if (m.target_case() == w::TradingHaltRequest::kSymbol) {
    const InstrumentInfo* info = instruments_.Find(m.symbol());
    if (info == nullptr) {
      return refuse(w::REJECT_REASON_UNKNOWN_SYMBOL,
                    "unknown symbol " + m.symbol());
    }
    targets.push_back(info);
  } else {
    bool any = false;
    instruments_.ForEach([&](const InstrumentInfo& info) {
      if (m.target_case() == w::TradingHaltRequest::kRoot &&
          RootOf(info) != m.root()) {
        return;
      }
      any = true;
      const InstrumentState s = market_data_.state(info.id);
      if (halt ? (s == InstrumentState::kOpen || s == InstrumentState::kPreOpen)
               : s == InstrumentState::kHalted) {
        targets.push_back(&info);
      }
    });
    const std::string what = m.target_case() == w::TradingHaltRequest::kRoot
                                 ? "root " + m.root()
                                 : std::string("the exchange");
    if (!any) {
      return refuse(w::REJECT_REASON_UNKNOWN_ROOT,
                    "no instrument has root " + m.root());
    }
    if (targets.empty()) {
      return refuse(
          static_cast<w::RejectReason>(
              exchange::RejectCode::kInvalidStateTransition),
          halt ? "no instrument of " + what + " is open or in pre-open"
               : "no instrument of " + what + " is halted");
    }
  }
  for (const InstrumentInfo* info : targets) {
    exchange::Command c;
    c.type = exchange::CommandType::kSetInstrumentState;
    c.instrument = info->id;
    c.state = halt ? InstrumentState::kHalted : InstrumentState::kPreOpen;
    if (!halt) c.set_pre_open_nanos(uint64_t{seconds} * 1'000'000'000);
    c.client_order_id = exchange::ClientOrderId{reasons_.Add(m.reason())};
    p.cmds.push_back(c);
    p.symbols.push_back(info->symbol);
  }
  p.ack.set_accepted(true);
  return p;
}

bool HaltDesk::Submitted(Plan& plan, std::size_t submitted,
                         uint64_t session_id) {
  if (submitted == 0) return false;
  const uint64_t request = next_request_++;
  Pending& pending = pending_[request];
  pending.session_id = session_id;
  pending.waiting = submitted;
  pending.ack = std::move(plan.ack);
  for (std::size_t i = 0; i < plan.cmds.size(); ++i) {
    w::TradingHaltAck::Result* r = pending.ack.add_results();
    r->set_symbol(plan.symbols[i]);
    if (i < submitted) {
      by_token_[plan.cmds[i].client_order_id.value] = {
          request, static_cast<int>(i)};
      continue;
    }
    r->set_accepted(false);
    r->set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    r->set_text("the exchange is busy: not submitted");
    pending.ack.set_accepted(false);
  }
  return true;
}

bool HaltDesk::OnEvent(const exchange::Event& e, uint64_t* session_id,
                       w::TradingHaltAck* ack) {
  const bool answer =
      e.type == exchange::EventType::kInstrumentStateChanged ||
      (e.type == exchange::EventType::kRejected &&
       e.command == exchange::CommandType::kSetInstrumentState);
  if (!answer || by_token_.empty()) return false;
  auto it = by_token_.find(e.client_order_id.value);
  if (it == by_token_.end()) return false;
  const auto [request, index] = it->second;
  by_token_.erase(it);
  Pending& pending = pending_[request];
  w::TradingHaltAck::Result* r = pending.ack.mutable_results(index);
  r->set_seq(e.seq.value);
  if (e.type == exchange::EventType::kInstrumentStateChanged) {
    r->set_accepted(true);
    r->set_state(WireState(e.state));
  } else {
    r->set_accepted(false);
    r->set_reason(static_cast<w::RejectReason>(e.reason));
    r->set_text(std::string(exchange::RejectCodeName(e.reject_code())));
    r->set_state(WireState(market_data_.state(e.instrument)));
    pending.ack.set_accepted(false);
  }
  if (--pending.waiting != 0) return false;
  *session_id = pending.session_id;
  *ack = std::move(pending.ack);
  pending_.erase(request);
  return true;
}

}  // namespace cfx::gateway::pb
