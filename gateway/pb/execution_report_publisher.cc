#include "gateway/pb/execution_report_publisher.h"

#include <algorithm>

#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/pb/order_entry_adapter.h"
#include "gateway/session/metrics.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using exchange::AccountId;

ExecutionReportPublisher::ExecutionReportPublisher(
    const ServerConfig& config, const InstrumentTable& instruments,
    const OrderView& orders, Outbox& outbox, Resender& history)
    : config_(config),
      instruments_(instruments),
      outbox_(outbox),
      history_(history),
      builder_(config, instruments, orders),
      by_account_(config.engine.limits.max_accounts + 1) {}

void ExecutionReportPublisher::Add(Session& s) {
  if (s.account.value != 0) by_account_[s.account.value].push_back(&s);
}

void ExecutionReportPublisher::Remove(Session& s) {
  if (s.account.value == 0 || s.user == nullptr) return;
  auto& v = by_account_[s.account.value];
  v.erase(std::remove(v.begin(), v.end(), &s), v.end());
}

void ExecutionReportPublisher::OnEvent(const exchange::Event& e) {
  seq_ = e.seq.value;
  builder_.OnEvent(e, [this](AccountId account, const w::Envelope& env) {
    Publish(account, env);
  });
}

void ExecutionReportPublisher::Publish(AccountId account,
                                       const w::Envelope& env) {
  auto& sessions = by_account_[account.value];
  Metrics* metrics = outbox_.metrics();
  const bool ack =
      env.has_execution_report() &&
      (env.execution_report().exec_type() == w::EXEC_TYPE_NEW ||
       env.execution_report().exec_type() == w::EXEC_TYPE_REJECTED);
  if (ack && metrics != nullptr) {
    const w::ExecutionReport& r = env.execution_report();
    if (r.exec_type() == w::EXEC_TYPE_REJECTED) metrics->OrderRejected();
    // A session's orders are acknowledged in the order it sent them.
    for (Session* s : sessions) {
      if (!s->acks.empty() && s->acks.front().first == r.client_order_id()) {
        metrics->ObserveOrderToAck(
            static_cast<double>(SteadyNs() - s->acks.front().second) * 1e-9);
        s->acks.pop_front();
        break;
      }
    }
  }
  if (!outbox_.Frame(env)) return;
  history_.Record(account, env, outbox_.framed());
  for (Session* s : sessions) outbox_.SendFramed(*s, true, seq_);
}

void ExecutionReportPublisher::OnTradeBust(const exchange::Event& e,
                                           const SessionMap& sessions) {
  const AccountInfo* buyer = config_.account(e.account);
  const AccountInfo* seller = config_.account(e.counter_account);
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  for (auto& [id, sp] : sessions) {
    Session& s = *sp;
    if (s.state != Session::State::kActive || s.user == nullptr) continue;
    const UserConfig& u = *s.user;
    const bool cm = u.role == Role::kClearingMember;
    const bool is_buyer =
        buyer != nullptr && (cm ? buyer->clearing_member == u.clearing_member
                                : u.account == buyer->id);
    const bool is_seller =
        seller != nullptr && (cm ? seller->clearing_member == u.clearing_member
                                 : u.account == seller->id);
    if (!is_buyer && !is_seller) continue;
    out_.Clear();
    w::TradeBust* b = out_.mutable_trade_bust();
    b->set_trade_id(e.trade_id.value);
    if (info != nullptr) {
      b->set_symbol(info->symbol);
      b->set_delivery_date(info->delivery_date);
    }
    b->set_price(e.price.units);
    b->set_quantity(e.quantity.lots);
    if (is_buyer) b->set_buyer_account(buyer->name);
    if (is_seller) b->set_seller_account(seller->name);
    b->set_reported_by(e.side == exchange::Side::kBuy ? w::SIDE_BUY
                                                      : w::SIDE_SELL);
    b->set_seq(e.seq.value);
    b->set_time_ns(e.ts.nanos);
    outbox_.Send(s, out_);
  }
}

void ExecutionReportPublisher::OnOrderStatus(Session& s,
                                             const w::OrderStatusRequest& m) {
  constexpr const char* kType = "order_status_request";
  if (const char* why = OrderEntryDenied(*s.user)) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, kType, nullptr,
                   why);
    return;
  }
  if (m.order_id() == 0) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, kType, "order_id",
                   "order_id is required");
    return;
  }
  const exchange::OrderId id{m.order_id()};
  out_.Clear();
  BuildOrderStatus(instruments_, builder_.orders().Find(id), s.account, id,
                   out_.mutable_execution_report());
  outbox_.Send(s, out_);
}

}  // namespace cfx::gateway::pb
