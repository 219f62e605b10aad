// FixGateway's execution reports: durable engine events to
// ExecutionReports (8), OrderCancelRejects (9), OrderMassCancelReports (r)
// and clearing members' drop copies, after the day's order view
// (gateway/session/order_view.h) applied them (docs/fix.md).

#include <algorithm>
#include <memory>
#include <string>

#include "exchange/core/event.h"
#include "exchange/text_format.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/fix/fix_gateway_state.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/session/metrics.h"

namespace cfx::gateway::fix {

using exchange::AccountId;
using exchange::CommandType;
using exchange::Event;
using exchange::EventType;
using exchange::OrderId;
using exchange::OrderType;
using exchange::RejectCode;
using exchange::Side;

namespace {

int OrdRejReason(RejectCode c) {
  switch (c) {
    case RejectCode::kUnknownInstrument:
      return ord_rej_reason::kUnknownSymbol;
    case RejectCode::kInstrumentNotOpen:
    case RejectCode::kInstrumentExpired:
      return ord_rej_reason::kExchangeClosed;
    case RejectCode::kQuantityAboveMaximum:
    case RejectCode::kPositionLimitExceeded:
    case RejectCode::kInsufficientMargin:
    case RejectCode::kNotionalOverflow:
      return ord_rej_reason::kOrderExceedsLimit;
    case RejectCode::kDuplicateClientOrderId:
      return ord_rej_reason::kDuplicateOrder;
    case RejectCode::kQuantityBelowMinimum:
      return ord_rej_reason::kIncorrectQuantity;
    case RejectCode::kUnknownAccount:
      return ord_rej_reason::kUnknownAccount;
    case RejectCode::kPriceOutsideBand:
      return ord_rej_reason::kPriceExceedsCurrentPriceBand;
    case RejectCode::kPostOnlyWouldCross:
    case RejectCode::kMarketOrderNeedsIocOrFok:
    case RejectCode::kPostOnlyNotAllowed:
      return ord_rej_reason::kUnsupportedOrderCharacteristic;
    default:
      return ord_rej_reason::kOther;
  }
}

int CxlRejReason(RejectCode c) {
  switch (c) {
    case RejectCode::kUnknownOrder:
      return cxl_rej_reason::kUnknownOrder;
    case RejectCode::kDuplicateClientOrderId:
      return cxl_rej_reason::kDuplicateClOrdIDReceived;
    case RejectCode::kInstrumentNotOpen:
      return cxl_rej_reason::kBrokerExchangeOption;
    default:
      return cxl_rej_reason::kOther;
  }
}

}  // namespace

Message MassCancelReport(const std::string& clordid, const std::string& type,
                         const std::string& symbol, const std::string& response,
                         int reject_reason, const std::string& text,
                         uint64_t affected, exchange::Timestamp ts) {
  Message r;
  // From a std::string, not a char*: GCC 12 sees a false -Wrestrict
  // overlap (PR 105329) in the inlined assignment.
  r.type = std::string(msg_type::kOrderMassCancelReport);
  r.Add(tag::kClOrdID, clordid);
  r.Add(tag::kOrderID, clordid);
  r.Add(tag::kMassCancelRequestType, type);
  r.Add(tag::kMassCancelResponse, response);
  if (response == "0") {
    r.Add(tag::kMassCancelRejectReason, std::to_string(reject_reason));
  } else {
    r.Add(tag::kTotalAffectedOrders, std::to_string(affected));
  }
  if (!symbol.empty()) r.Add(tag::kSymbol, symbol);
  if (!text.empty()) r.Add(tag::kText, text);
  r.Add(tag::kTransactTime, FormatFixTime(ts));
  return r;
}

// ------------------------------------------------------------------ events

void FixGateway::OnEvent(const Event& e, BookLevelChange level) {
  if (live_) {
    FlushClOrdIdFile();
    if (e.seq != md_seq_) FlushMarketData();
    md_seq_ = e.seq;
    MarketData(e, level);
  }
  if (own_orders_ != nullptr) own_orders_->OnEvent(e);
  // A replace's report names the order's client order id before it.
  uint64_t previous = 0;
  if (e.type == EventType::kOrderReplaced) {
    if (const OrderRecord* o = orders_.Find(e.order_id)) {
      previous = o->previous_client_order_id.value;
    }
  }
  switch (e.type) {
    case EventType::kOrderAccepted:
      return OnOrderAccepted(e);
    case EventType::kTrade:
      return OnTrade(e);
    case EventType::kTradeBusted:
      return TradeBust(e);
    case EventType::kCancelAccepted:
    case EventType::kOrderCancelled:
      return OnOrderCancelled(e);
    case EventType::kOrderReplaced:
      return OnOrderReplaced(e, previous);
    case EventType::kOrderRestated:
      return OnOrderRestated(e);
    case EventType::kMassCancelDone:
      return OnMassCancelDone(e);
    case EventType::kRejected:
      return OnRejected(e);
    case EventType::kInstrumentListed:
      // Its previous listing's trades can no longer be busted.
      std::erase_if(spot_fills_, [&e](const auto& kv) {
        return kv.second.buy.instrument == e.instrument;
      });
      return EndSubscriptions(e.instrument);
    case EventType::kInstrumentStateChanged:
    case EventType::kInstrumentOpened:
      return PublishSecurityStatus(e);
    case EventType::kKillSwitchSet:
      return KillSwitchNews(e);
    case EventType::kSessionEnded:
      if (e.instrument.value == 0) OnDayEnded();
      return;
    default:
      return;
  }
}

std::unique_ptr<FixGateway::Pending> FixGateway::TakePending(
    AccountId a, exchange::ClientOrderId c, char kind) {
  if (pending_.empty()) return nullptr;
  auto it = pending_.find({a.value, c.value});
  if (it == pending_.end() || it->second->kind != kind) return nullptr;
  auto p = std::move(it->second);
  pending_.erase(it);
  return p;
}

void FixGateway::ReleaseHeld(AccountId a, exchange::ClientOrderId c) {
  if (held_.empty()) return;
  auto it = held_.find({a.value, c.value});
  if (it == held_.end()) return;
  for (auto& h : it->second) released_.push_back(std::move(h));
  held_.erase(it);
}

void FixGateway::OnOrderAccepted(const Event& e) {
  auto p = TakePending(e.account, e.client_order_id, 'D');
  // Accepted: from now on its reports carry the text (a rejected order's
  // is never kept).
  if (p != nullptr) {
    RememberClOrdIdText(e.account, e.client_order_id.value, p->clordid);
  }
  if (p != nullptr && deps_.metrics != nullptr) {
    deps_.metrics->ObserveOrderToAck(
        static_cast<double>(SteadyNs() - p->received_ns) * 1e-9);
  }
  if (live_ && Watched(e.account)) {
    if (const OrderRecord* o = orders_.Find(e.order_id)) {
      SendToAccount(e.account, ExecReport(*o, exec_type::kNew, e));
    }
  }
  ReleaseHeld(e.account, e.client_order_id);
}

void FixGateway::OnTrade(const Event& e) {
  if (!live_) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  const bool spot = info != nullptr && info->spot_slot;
  // No report to send and no fill to keep: the orders are not looked up.
  if (!spot && !drop_copy_active_ && !Watched(e.account) &&
      !Watched(e.counter_account)) {
    return;
  }
  const OrderRecord* a = orders_.Find(e.order_id);
  const OrderRecord* c = orders_.Find(e.counter_order_id);
  for (const OrderRecord* o : {a, c}) {
    if (o == nullptr || !Watched(o->account)) continue;
    SendToAccount(o->account,
                  FillReport(*o, exec_type::kTrade, e, e.price, e.quantity));
  }
  DropCopy(e, false);
  DropCopy(e, true);
  if (a != nullptr && c != nullptr && spot) {
    const bool a_buys = e.side == Side::kBuy;
    spot_fills_[e.trade_id.value] =
        SpotFill{a_buys ? *a : *c, a_buys ? *c : *a, e.price, e.quantity};
  }
}

void FixGateway::OnOrderCancelled(const Event& e) {
  const OrderRecord* o = orders_.Find(e.order_id);
  if (o == nullptr) return;
  std::unique_ptr<Pending> p;
  if (e.type == EventType::kCancelAccepted) {
    auto it = pending_cancel_by_order_.find(e.order_id.value);
    if (it != pending_cancel_by_order_.end()) {
      auto pit = pending_.find(it->second);
      if (pit != pending_.end()) {
        p = std::move(pit->second);
        pending_.erase(pit);
      }
      pending_cancel_by_order_.erase(it);
    }
  }
  if (!live_ || !Watched(o->account)) return;
  Message r =
      ExecReport(*o,
                 o->state == OrderState::kExpired ? exec_type::kExpired
                                                  : exec_type::kCanceled,
                 e);
  if (p != nullptr) {
    for (Field& f : r.fields) {
      if (f.tag == tag::kClOrdID) f.value = p->clordid;
    }
    r.Add(tag::kOrigClOrdID, p->orig_clordid);
  }
  if (e.type == EventType::kOrderCancelled) {
    r.Add(tag::kText,
          std::string(exchange::CancelReasonName(e.cancel_reason())));
  }
  SendToAccount(o->account, r);
}

void FixGateway::OnOrderReplaced(const Event& e, uint64_t previous) {
  const OrderRecord* o = orders_.Find(e.order_id);
  if (o == nullptr) return;
  auto p = TakePending(e.account, e.client_order_id, 'G');
  if (p != nullptr) {
    RememberClOrdIdText(e.account, e.client_order_id.value, p->clordid);
  }
  if (!live_ || !Watched(o->account)) return;
  Message r = ExecReport(*o, exec_type::kReplaced, e);
  r.Add(tag::kOrigClOrdID,
        p != nullptr ? p->orig_clordid : ClOrdIdText(o->account, previous));
  SendToAccount(o->account, r);
}

void FixGateway::OnOrderRestated(const Event& e) {
  const OrderRecord* o = orders_.Find(e.order_id);
  if (o == nullptr || !live_ || !Watched(o->account)) return;
  Message r = ExecReport(*o, exec_type::kRestated, e);
  r.Add(tag::kExecRestatementReason, "8");
  r.Add(tag::kText, std::string(exchange::CancelReasonName(e.cancel_reason())));
  SendToAccount(o->account, r);
}

void FixGateway::OnMassCancelDone(const Event& e) {
  auto p = TakePending(e.account, e.client_order_id, 'q');
  if (!live_ || p == nullptr) return;
  const std::string type(1, p->mass_type);
  Send(p->session, MassCancelReport(p->clordid, type, p->symbol, type, 0, "",
                                    e.count, e.ts));
}

void FixGateway::OnRejected(const Event& e) {
  std::string reason(exchange::RejectCodeName(e.reject_code()));
  // Name the requirement a spot sell misses (docs/matching.md).
  if (e.reject_code() == RejectCode::kGradeNotEligible) {
    reason += ": ";
    reason += exchange::EligibilityName(e.missing_eligibility());
  }
  if (e.command == CommandType::kNewOrder) {
    OnNewOrderRejected(e, reason);
  } else if (e.command == CommandType::kCancel ||
             e.command == CommandType::kReplace) {
    OnCancelRejected(e, reason);
  } else if (e.command == CommandType::kMassCancel) {
    OnMassCancelRejected(e, reason);
  }
}

void FixGateway::OnNewOrderRejected(const Event& e, const std::string& reason) {
  auto p = TakePending(e.account, e.client_order_id, 'D');
  ReleaseHeld(e.account, e.client_order_id);
  if (!live_ || !Watched(e.account)) return;
  Message r;
  r.type = msg_type::kExecutionReport;
  r.Add(tag::kOrderID, kNone);
  r.Add(tag::kClOrdID, p != nullptr
                           ? p->clordid
                           : ClOrdIdText(e.account, e.client_order_id.value));
  r.Add(tag::kExecID, NextExecId(e.seq));
  r.Add(tag::kExecType, std::string(1, exec_type::kRejected));
  r.Add(tag::kOrdStatus, std::string(1, ord_status::kRejected));
  if (const AccountInfo* a = config_.account(e.account))
    r.Add(tag::kAccount, a->name);
  if (const InstrumentInfo* i = instruments_.Get(e.instrument)) {
    r.Add(tag::kSymbol, i->symbol);
  }
  if (e.side != Side::kNone)
    r.Add(tag::kSide, std::string(1, SideChar(e.side)));
  r.Add(tag::kOrderQty, Str(e.quantity.lots));
  if (e.price.units != 0) r.Add(tag::kPrice, exchange::FormatPrice(e.price));
  r.Add(tag::kLeavesQty, "0");
  r.Add(tag::kCumQty, "0");
  r.Add(tag::kAvgPx, "0");
  r.Add(tag::kOrdRejReason, Str(int64_t{OrdRejReason(e.reject_code())}));
  r.Add(tag::kText, reason);
  r.Add(tag::kTransactTime, FormatFixTime(e.ts));
  SendToAccount(e.account, r);
}

void FixGateway::OnCancelRejected(const Event& e, const std::string& reason) {
  const bool replace = e.command == CommandType::kReplace;
  auto p = TakePending(e.account, e.client_order_id, replace ? 'G' : 'F');
  if (!replace) pending_cancel_by_order_.erase(e.order_id.value);
  if (!live_ || (p == nullptr && !Watched(e.account))) return;
  const OrderRecord* o = orders_.Find(e.order_id);
  if (o != nullptr && o->account != e.account) o = nullptr;
  Message r;
  r.type = msg_type::kOrderCancelReject;
  r.Add(tag::kOrderID, o != nullptr ? Str(o->id.value) : std::string(kNone));
  r.Add(tag::kClOrdID, p != nullptr
                           ? p->clordid
                           : ClOrdIdText(e.account, e.client_order_id.value));
  r.Add(tag::kOrigClOrdID,
        p != nullptr   ? p->orig_clordid
        : o != nullptr ? ClOrdIdText(o->account, o->client_order_id.value)
                       : std::string(kNone));
  r.Add(tag::kOrdStatus, o != nullptr ? std::string(1, OrdStatusOf(o->state))
                                      : std::string(1, ord_status::kRejected));
  r.Add(tag::kCxlRejResponseTo, replace ? "2" : "1");
  r.Add(tag::kCxlRejReason, Str(int64_t{CxlRejReason(e.reject_code())}));
  r.Add(tag::kText, reason);
  if (const AccountInfo* a = config_.account(e.account))
    r.Add(tag::kAccount, a->name);
  r.Add(tag::kTransactTime, FormatFixTime(e.ts));
  if (p != nullptr) {
    Send(p->session, r);
  } else {
    SendToAccount(e.account, r);
  }
}

void FixGateway::OnMassCancelRejected(const Event& e,
                                      const std::string& reason) {
  auto p = TakePending(e.account, e.client_order_id, 'q');
  if (!live_ || p == nullptr) return;
  const int why = e.reject_code() == RejectCode::kUnknownInstrument
                      ? mass_cancel_reject_reason::kInvalidOrUnknownSecurity
                      : mass_cancel_reject_reason::kOther;
  Send(p->session, MassCancelReport(p->clordid, std::string(1, p->mass_type),
                                    p->symbol, "0", why, reason, 0, e.ts));
}

void FixGateway::OnDayEnded() {
  // The order view forgot finished orders and their client order ids
  // (unique per day): so do the ClOrdID texts, in memory and on disk.
  PruneClOrdIdTexts();
  if (live_) {
    const Status st = RewriteClOrdIdFile();
    if (!st.ok()) Log(st.message());
  }
}

// ------------------------------------------------------------------ reports

std::string FixGateway::NextExecId(exchange::Seq seq) {
  if (seq != exec_seq_) {
    exec_seq_ = seq;
    exec_index_ = 0;
  }
  return Str(seq.value) + "-" + Str(uint64_t{exec_index_++});
}

Message FixGateway::ExecReport(const OrderRecord& o, char type,
                               const Event& e) {
  Message r;
  r.type = std::string(msg_type::kExecutionReport);  // as above (-Wrestrict)
  r.Add(tag::kOrderID, Str(o.id.value));
  r.Add(tag::kClOrdID, ClOrdIdText(o.account, o.client_order_id.value));
  r.Add(tag::kExecID, type == exec_type::kOrderStatus
                          ? reject_exec_prefix_ + Str(++reject_exec_count_)
                          : NextExecId(e.seq));
  r.Add(tag::kExecType, std::string(1, type));
  r.Add(tag::kOrdStatus, std::string(1, OrdStatusOf(o.state)));
  if (const AccountInfo* a = config_.account(o.account))
    r.Add(tag::kAccount, a->name);
  if (const InstrumentInfo* i = instruments_.Get(o.instrument)) {
    r.Add(tag::kSymbol, i->symbol);
  }
  r.Add(tag::kSide, std::string(1, SideChar(o.side)));
  r.Add(tag::kOrderQty, Str(o.quantity.lots));
  r.Add(tag::kOrdType, o.order_type == OrderType::kMarket ? "1" : "2");
  if (o.order_type != OrderType::kMarket)
    r.Add(tag::kPrice, exchange::FormatPrice(o.price));
  r.Add(tag::kTimeInForce, std::string(1, TifChar(o.tif)));
  r.Add(tag::kLeavesQty, Str(o.leaves.lots));
  r.Add(tag::kCumQty, Str(o.filled.lots));
  r.Add(tag::kAvgPx, FormatAvgPx(o.notional, o.filled.lots));
  r.Add(tag::kTransactTime, FormatFixTime(e.ts));
  return r;
}

Message FixGateway::FillReport(const OrderRecord& o, char type, const Event& e,
                               exchange::Price price,
                               exchange::Quantity quantity) {
  Message r = ExecReport(o, type, e);
  r.Add(tag::kLastQty, Str(quantity.lots));
  r.Add(tag::kLastPx, exchange::FormatPrice(price));
  r.Add(tag::kTrdMatchID, Str(e.trade_id.value));
  return r;
}

void FixGateway::KillSwitchNews(const Event& e) {
  if (!live_ || !Watched(e.account)) return;
  const AccountInfo* a = config_.account(e.account);
  const std::string name =
      a != nullptr ? a->name : std::to_string(e.account.value);
  Message news;
  news.type = std::string(msg_type::kNews);
  news.Add(tag::kOrigTime, FormatFixTime(e.ts));
  news.Add(tag::kHeadline, e.killed() ? "KILL SWITCH ON " + name
                                      : "KILL SWITCH OFF " + name);
  Group lines{tag::kLinesOfText, tag::kText, {}};
  lines.entries.push_back(
      {{tag::kText, e.killed()
                        ? "new orders and replaces are refused "
                          "(ACCOUNT_KILLED); " +
                              std::to_string(e.count) +
                              " resting orders cancelled (KILL_SWITCH)"
                        : "orders are accepted again"}});
  const std::string* why = deps_.kill_switches != nullptr
                               ? deps_.kill_switches->ReasonOf(e)
                               : nullptr;
  if (why != nullptr && !why->empty()) {
    lines.entries.push_back({{tag::kText, "reason: " + *why}});
  }
  news.groups.push_back(std::move(lines));
  SendToAccount(e.account, news);
}

bool FixGateway::Watched(AccountId account) const {
  if (account.value >= by_account_.size()) return false;
  for (int s : by_account_[account.value]) {
    if (sessions_[static_cast<std::size_t>(s)]->active) return true;
  }
  return false;
}

void FixGateway::SendToAccount(AccountId account, const Message& m) {
  if (account.value >= by_account_.size()) return;
  for (int s : by_account_[account.value]) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, m);
  }
}

bool FixGateway::DropCopyWatched(AccountId account,
                                 const std::vector<int>** sessions) const {
  if (!drop_copy_active_) return false;
  const AccountInfo* a = config_.account(account);
  if (a == nullptr) return false;
  auto cm = by_clearing_member_.find(a->clearing_member);
  if (cm == by_clearing_member_.end()) return false;
  *sessions = &cm->second;
  return std::any_of(cm->second.begin(), cm->second.end(), [this](int s) {
    return sessions_[static_cast<std::size_t>(s)]->active;
  });
}

void FixGateway::SendDropCopy(const OrderRecord& o, const Message& r) {
  const std::vector<int>* sessions = nullptr;
  if (!DropCopyWatched(o.account, &sessions)) return;
  Message copy = r;
  copy.Add(tag::kCopyMsgIndicator, "Y");
  for (int s : *sessions) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, copy);
  }
}

void FixGateway::DropCopy(const Event& e, bool counter) {
  if (!drop_copy_active_) return;
  const OrderRecord* o =
      orders_.Find(counter ? e.counter_order_id : e.order_id);
  const std::vector<int>* sessions = nullptr;
  // No report is built (nor ExecID taken) for nobody.
  if (o == nullptr || !DropCopyWatched(o->account, &sessions)) return;
  Message r = FillReport(*o, exec_type::kTrade, e, e.price, e.quantity);
  r.Add(tag::kCopyMsgIndicator, "Y");
  for (int s : *sessions) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, r);
  }
}

void FixGateway::TradeBust(const Event& e) {
  auto it = spot_fills_.find(e.trade_id.value);
  if (it == spot_fills_.end()) return;
  const SpotFill f = it->second;
  spot_fills_.erase(it);
  if (!live_) return;
  const std::string text =
      std::string("trade busted: delivery failure reported by the ") +
      (e.side == Side::kBuy ? "buyer" : "seller");
  for (const OrderRecord* o : {&f.buy, &f.sell}) {
    Message r = FillReport(*o, exec_type::kTradeCancel, e, f.price, f.quantity);
    r.Add(tag::kText, text);
    if (Watched(o->account)) SendToAccount(o->account, r);
    SendDropCopy(*o, r);
  }
}

}  // namespace cfx::gateway::fix
