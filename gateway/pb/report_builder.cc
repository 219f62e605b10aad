#include "gateway/pb/report_builder.h"

#include <string>

#include "exchange/core/reject_code.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using exchange::Event;
using exchange::EventType;

namespace {

const std::string kNoSymbol;

}  // namespace

w::OrderStatus WireOrderStatus(OrderState s) {
  switch (s) {
    case OrderState::kNew:
      return w::ORDER_STATUS_NEW;
    case OrderState::kPartiallyFilled:
      return w::ORDER_STATUS_PARTIALLY_FILLED;
    case OrderState::kFilled:
      return w::ORDER_STATUS_FILLED;
    case OrderState::kCanceled:
      return w::ORDER_STATUS_CANCELED;
    case OrderState::kExpired:
      return w::ORDER_STATUS_EXPIRED;
    case OrderState::kNone:
      break;
  }
  return w::ORDER_STATUS_UNKNOWN;
}

ReportBuilder::ReportBuilder(const ServerConfig& config,
                             const InstrumentTable& instruments,
                             const OrderView& orders)
    : instruments_(instruments),
      orders_(orders),
      last_seq_(config.engine.limits.max_accounts + 1, 0),
      next_index_(config.engine.limits.max_accounts + 1, 0) {}

const std::string& ReportBuilder::Symbol(exchange::InstrumentId id) const {
  const InstrumentInfo* info = instruments_.Get(id);
  return info == nullptr ? kNoSymbol : info->symbol;
}

w::ExecutionReport* ReportBuilder::StartReport(exchange::AccountId account,
                                               const Event& e) {
  (void)account;
  envelope_.Clear();
  w::ExecutionReport* r = envelope_.mutable_execution_report();
  r->set_transact_time_ns(e.ts.nanos);
  return r;
}

void ReportBuilder::FillOrder(w::ExecutionReport* r, exchange::OrderId id,
                              exchange::ClientOrderId client_order_id,
                              exchange::InstrumentId instrument,
                              exchange::Side side, exchange::Quantity leaves,
                              exchange::Quantity filled) {
  r->set_order_id(id.value);
  r->set_client_order_id(client_order_id.value);
  r->set_symbol(Symbol(instrument));
  r->set_side(WireSide(side));
  r->set_leaves_quantity(leaves.lots);
  r->set_cum_quantity(filled.lots);
  if (const OrderRecord* o = orders_.Find(id)) {
    r->set_order_type(static_cast<w::OrderType>(o->order_type));
    r->set_time_in_force(static_cast<w::TimeInForce>(o->tif));
    r->set_price(o->price.units);
    r->set_quantity(o->quantity.lots);
    r->set_order_status(WireOrderStatus(o->state));
  } else {
    r->set_quantity(leaves.lots + filled.lots);
  }
}

// Numbers the message in envelope_ and hands it out.
void ReportBuilder::Emit(exchange::AccountId account, const EmitFn& emit) {
  const uint32_t a = account.value;
  if (a >= last_seq_.size()) return;
  if (last_seq_[a] != seq_.value) {
    last_seq_[a] = seq_.value;
    next_index_[a] = 0;
  }
  const uint32_t index = next_index_[a]++;
  switch (envelope_.body_case()) {
    case w::Envelope::kExecutionReport:
      envelope_.mutable_execution_report()->set_seq(seq_.value);
      envelope_.mutable_execution_report()->set_index(index);
      break;
    case w::Envelope::kCancelReject:
      envelope_.mutable_cancel_reject()->set_seq(seq_.value);
      envelope_.mutable_cancel_reject()->set_index(index);
      break;
    case w::Envelope::kMassCancelReport:
      envelope_.mutable_mass_cancel_report()->set_seq(seq_.value);
      envelope_.mutable_mass_cancel_report()->set_index(index);
      break;
    default:
      break;
  }
  emit(account, envelope_);
}

// The reject of a command an account sent: an ExecutionReport for a new
// order, a CancelReject for a cancel or replace, a MassCancelReport for a
// mass cancel.
void ReportBuilder::Rejected(const Event& e, const EmitFn& emit) {
  if (e.account.value == 0) return;
  const auto code = static_cast<w::RejectReason>(e.reason);
  std::string text(exchange::RejectCodeName(e.reject_code()));
  // Name the requirement a spot sell misses (docs/matching.md).
  if (e.reject_code() == exchange::RejectCode::kGradeNotEligible) {
    text += ": ";
    text += exchange::EligibilityName(e.missing_eligibility());
  }
  envelope_.Clear();
  if (e.command == exchange::CommandType::kNewOrder) {
    w::ExecutionReport* r = envelope_.mutable_execution_report();
    r->set_transact_time_ns(e.ts.nanos);
    r->set_exec_type(w::EXEC_TYPE_REJECTED);
    r->set_order_status(w::ORDER_STATUS_REJECTED);
    r->set_client_order_id(e.client_order_id.value);
    r->set_symbol(Symbol(e.instrument));
    r->set_side(WireSide(e.side));
    r->set_price(e.price.units);
    r->set_quantity(e.quantity.lots);
    r->set_reject_reason(code);
    r->set_text(text);
  } else if (e.command == exchange::CommandType::kCancel ||
             e.command == exchange::CommandType::kReplace) {
    w::CancelReject* r = envelope_.mutable_cancel_reject();
    r->set_transact_time_ns(e.ts.nanos);
    r->set_client_order_id(e.client_order_id.value);
    r->set_order_id(e.order_id.value);
    r->set_replace(e.command == exchange::CommandType::kReplace);
    r->set_reason(code);
    r->set_text(text);
  } else if (e.command == exchange::CommandType::kMassCancel) {
    w::MassCancelReport* r = envelope_.mutable_mass_cancel_report();
    r->set_transact_time_ns(e.ts.nanos);
    r->set_client_order_id(e.client_order_id.value);
    r->set_symbol(Symbol(e.instrument));
    r->set_reject_reason(code);
    r->set_text(text);
  } else {
    return;
  }
  Emit(e.account, emit);
}

void ReportBuilder::OnEvent(const Event& e, const EmitFn& emit) {
  seq_ = e.seq;
  switch (e.type) {
    case EventType::kOrderAccepted: {
      w::ExecutionReport* r = StartReport(e.account, e);
      r->set_exec_type(w::EXEC_TYPE_NEW);
      FillOrder(r, e.order_id, e.client_order_id, e.instrument, e.side,
                e.quantity, exchange::Quantity{0});
      r->set_order_status(w::ORDER_STATUS_NEW);
      r->set_price(e.price.units);
      r->set_quantity(e.quantity.lots);
      Emit(e.account, emit);
      break;
    }
    case EventType::kRejected:
      Rejected(e, emit);
      break;
    case EventType::kCancelAccepted:
    case EventType::kOrderCancelled: {
      w::ExecutionReport* r = StartReport(e.account, e);
      const bool expired =
          e.type == EventType::kOrderCancelled &&
          e.cancel_reason() == exchange::CancelReason::kExpired;
      r->set_exec_type(expired ? w::EXEC_TYPE_EXPIRED : w::EXEC_TYPE_CANCELED);
      FillOrder(r, e.order_id, e.client_order_id, e.instrument, e.side,
                exchange::Quantity{0}, e.filled);
      r->set_order_status(expired ? w::ORDER_STATUS_EXPIRED
                                  : w::ORDER_STATUS_CANCELED);
      r->set_cancel_reason(e.type == EventType::kCancelAccepted
                               ? w::CANCEL_REASON_USER_REQUEST
                               : static_cast<w::CancelReason>(e.reason));
      Emit(e.account, emit);
      break;
    }
    case EventType::kOrderReplaced: {
      w::ExecutionReport* r = StartReport(e.account, e);
      r->set_exec_type(w::EXEC_TYPE_REPLACED);
      FillOrder(r, e.order_id, e.client_order_id, e.instrument, e.side,
                e.leaves, e.filled);
      r->set_price(e.price.units);
      r->set_quantity(e.quantity.lots);
      Emit(e.account, emit);
      break;
    }
    case EventType::kOrderRestated: {
      w::ExecutionReport* r = StartReport(e.account, e);
      r->set_exec_type(w::EXEC_TYPE_RESTATED);
      FillOrder(r, e.order_id, e.client_order_id, e.instrument, e.side,
                e.leaves, e.filled);
      r->set_cancel_reason(static_cast<w::CancelReason>(e.reason));
      Emit(e.account, emit);
      break;
    }
    case EventType::kTrade: {
      // The aggressor's report first, then the resting order's.
      w::ExecutionReport* r = StartReport(e.account, e);
      r->set_exec_type(w::EXEC_TYPE_TRADE);
      FillOrder(r, e.order_id, e.client_order_id, e.instrument, e.side,
                e.leaves, e.filled);
      r->set_last_price(e.price.units);
      r->set_last_quantity(e.quantity.lots);
      r->set_trade_id(e.trade_id.value);
      r->set_aggressor(true);
      Emit(e.account, emit);
      r = StartReport(e.counter_account, e);
      r->set_exec_type(w::EXEC_TYPE_TRADE);
      FillOrder(r, e.counter_order_id, e.counter_client_order_id, e.instrument,
                exchange::Opposite(e.side), e.counter_leaves, e.counter_filled);
      r->set_last_price(e.price.units);
      r->set_last_quantity(e.quantity.lots);
      r->set_trade_id(e.trade_id.value);
      r->set_aggressor(false);
      Emit(e.counter_account, emit);
      break;
    }
    case EventType::kMassCancelDone: {
      envelope_.Clear();
      w::MassCancelReport* r = envelope_.mutable_mass_cancel_report();
      r->set_transact_time_ns(e.ts.nanos);
      r->set_client_order_id(e.client_order_id.value);
      r->set_symbol(Symbol(e.instrument));
      r->set_cancelled(e.count);
      Emit(e.account, emit);
      break;
    }
    default:
      break;
  }
}

void BuildOrderStatus(const InstrumentTable& instruments,
                      const OrderRecord* order, exchange::AccountId account,
                      exchange::OrderId id, w::ExecutionReport* out) {
  out->Clear();
  out->set_exec_type(w::EXEC_TYPE_ORDER_STATUS);
  out->set_order_id(id.value);
  if (order == nullptr || order->account != account) {
    out->set_order_status(w::ORDER_STATUS_UNKNOWN);
    out->set_reject_reason(w::REJECT_REASON_UNKNOWN_ORDER);
    out->set_text("UNKNOWN_ORDER");
    return;
  }
  out->set_transact_time_ns(order->updated.nanos);
  out->set_order_status(WireOrderStatus(order->state));
  out->set_client_order_id(order->client_order_id.value);
  const InstrumentInfo* info = instruments.Get(order->instrument);
  if (info != nullptr) out->set_symbol(info->symbol);
  out->set_side(WireSide(order->side));
  out->set_order_type(static_cast<w::OrderType>(order->order_type));
  out->set_time_in_force(static_cast<w::TimeInForce>(order->tif));
  out->set_price(order->price.units);
  out->set_quantity(order->quantity.lots);
  out->set_leaves_quantity(order->leaves.lots);
  out->set_cum_quantity(order->filled.lots);
}

}  // namespace cfx::gateway::pb
