// FixGateway's order entry: NewOrderSingle (D), OrderCancelRequest (F),
// OrderCancelReplaceRequest (G), OrderMassCancelRequest (q) and
// OrderStatusRequest (H) checked and turned into engine Commands, or
// refused with an ExecutionReport, OrderCancelReject, mass cancel report or
// BusinessMessageReject (docs/fix.md).

#include <memory>
#include <string>

#include "exchange/core/command.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/fix/fix_gateway_state.h"
#include "gateway/fix/fix_tags.h"

namespace cfx::gateway::fix {

using exchange::AccountId;
using exchange::Command;
using exchange::CommandType;
using exchange::Event;
using exchange::InstrumentId;
using exchange::OrderType;
using exchange::Price;
using exchange::Quantity;
using exchange::Side;
using exchange::TimeInForce;

namespace {

std::string ClOrdIdProblem() {
  return "ClOrdID(11) must be 1 to 20 printable ASCII characters without "
         "spaces";
}

}  // namespace

bool FixGateway::Submit(int s, const Command& c, const Message& m,
                        const std::string& ref_id) {
  if (!deps_.ring->TryPush(c)) {
    BusinessReject(s, m, business_reject_reason::kApplicationNotAvailable,
                   ref_id,
                   "the exchange is busy; nothing was accepted, try again");
    return false;
  }
  ++commands_submitted_;
  return true;
}

bool FixGateway::TradeDenied(int s, const Message& m,
                             const std::string& clordid) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  if (ss.trade_denied == nullptr) return false;
  BusinessReject(s, m, business_reject_reason::kNotAuthorized, clordid,
                 ss.trade_denied);
  return true;
}

const OrderRecord* FixGateway::OwnOrder(AccountId account,
                                        const std::string* order_id_text,
                                        uint64_t clordid) const {
  if (order_id_text == nullptr) {
    return orders_.FindByClientOrderId(account,
                                       exchange::ClientOrderId{clordid});
  }
  const auto oid = ParseU64(*order_id_text);
  const OrderRecord* o = oid ? orders_.Find(exchange::OrderId{*oid}) : nullptr;
  return o != nullptr && o->account == account ? o : nullptr;
}

void FixGateway::RejectNew(int s, const Message& m, int reason,
                           const std::string& text) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  Message r;
  r.type = msg_type::kExecutionReport;
  r.Add(tag::kOrderID, kNone);
  r.Add(tag::kClOrdID, Get(m, tag::kClOrdID));
  r.Add(tag::kExecID, reject_exec_prefix_ + Str(++reject_exec_count_));
  r.Add(tag::kExecType, std::string(1, exec_type::kRejected));
  r.Add(tag::kOrdStatus, std::string(1, ord_status::kRejected));
  if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
  for (int tag : {tag::kSymbol, tag::kSide, tag::kOrderQty, tag::kOrdType,
                  tag::kPrice, tag::kTimeInForce}) {
    if (const std::string* v = m.Find(tag)) r.Add(tag, *v);
  }
  r.Add(tag::kLeavesQty, "0");
  r.Add(tag::kCumQty, "0");
  r.Add(tag::kAvgPx, "0");
  r.Add(tag::kOrdRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, r);
}

void FixGateway::RejectCancel(int s, const Message& m, bool replace,
                              const OrderRecord* o, int reason,
                              const std::string& text) {
  Message r;
  r.type = msg_type::kOrderCancelReject;
  r.Add(tag::kOrderID, o != nullptr ? Str(o->id.value) : std::string(kNone));
  r.Add(tag::kClOrdID, Get(m, tag::kClOrdID));
  r.Add(tag::kOrigClOrdID, Get(m, tag::kOrigClOrdID));
  r.Add(tag::kOrdStatus, o != nullptr ? std::string(1, OrdStatusOf(o->state))
                                      : std::string(1, ord_status::kRejected));
  r.Add(tag::kCxlRejResponseTo, replace ? "2" : "1");
  r.Add(tag::kCxlRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
  r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, r);
}

// --------------------------------------------------------------- new order

void FixGateway::OnNewOrder(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (TradeDenied(s, m, clordid)) return;
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0) return RejectNew(s, m, ord_rej_reason::kOther, ClOrdIdProblem());
  if (const std::string* a = m.Find(tag::kAccount);
      a != nullptr && *a != ss.account_name) {
    return RejectNew(s, m, ord_rej_reason::kUnknownAccount,
                     "Account(1) " + *a + " is not this session's account");
  }
  const InstrumentInfo* info = instruments_.Find(Get(m, tag::kSymbol));
  if (info == nullptr) {
    return RejectNew(s, m, ord_rej_reason::kUnknownSymbol,
                     "unknown Symbol(55) " + Get(m, tag::kSymbol));
  }
  const std::string& side = Get(m, tag::kSide);
  if (side != "1" && side != "2") {
    return RejectNew(s, m, ord_rej_reason::kOther,
                     "Side(54) must be 1 (buy) or 2 (sell)");
  }
  const auto qty = ParseFixQuantity(Get(m, tag::kOrderQty));
  if (!qty) {
    return RejectNew(s, m, ord_rej_reason::kIncorrectQuantity,
                     "OrderQty(38) " + Get(m, tag::kOrderQty) +
                         " is not a positive whole number of lots");
  }
  const std::string& ord_type = Get(m, tag::kOrdType);
  if (ord_type != "1" && ord_type != "2") {
    return RejectNew(s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
                     "OrdType(40) must be 1 (market) or 2 (limit)");
  }
  const bool market = ord_type == "1";
  Command c;
  if (!ReadNewOrderPrice(s, m, market, &c)) return;
  if (!ReadNewOrderTerms(s, m, &c)) return;
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0) {
    return RejectNew(s, m, ord_rej_reason::kDuplicateOrder,
                     "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid +
                         " is already in flight");
  }
  c.type = CommandType::kNewOrder;
  c.account = ss.account;
  c.instrument = info->id;
  c.side = side == "1" ? Side::kBuy : Side::kSell;
  c.order_type = market ? OrderType::kMarket : OrderType::kLimit;
  c.client_order_id = exchange::ClientOrderId{id};
  c.quantity = Quantity{*qty};
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = 'D';
  p->clordid = clordid;
  p->received_ns = SteadyNs();
  // Its text is kept once the engine accepts it (OnOrderAccepted).
  pending_[key] = std::move(p);
}

bool FixGateway::ReadNewOrderPrice(int s, const Message& m, bool market,
                                   Command* c) {
  const std::string* price_text = m.Find(tag::kPrice);
  if (market) {
    if (price_text != nullptr) {
      RejectNew(s, m, ord_rej_reason::kOther,
                "a market order carries no Price(44)");
      return false;
    }
    c->price = Price{0};
    return true;
  }
  if (price_text == nullptr) {
    BusinessReject(
        s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
        Get(m, tag::kClOrdID), "Price(44) is required on a limit order");
    return false;
  }
  const auto p = ParseFixPrice(*price_text);
  if (!p || *p <= 0) {
    RejectNew(s, m, ord_rej_reason::kOther,
              "Price(44) " + *price_text +
                  " is not a positive decimal with at most 4 "
                  "decimal places");
    return false;
  }
  c->price = Price{*p};
  return true;
}

bool FixGateway::ReadNewOrderTerms(int s, const Message& m, Command* c) {
  const auto tif = TifOf(m.Find(tag::kTimeInForce));
  if (!tif) {
    RejectNew(s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
              "TimeInForce(59) must be 0 (day), 1 (GTC), 3 (IOC), 4 "
              "(FOK) or 6 (GTD)");
    return false;
  }
  const std::string* expire = m.Find(tag::kExpireTime);
  int64_t expire_ns = 0;
  if (*tif == TimeInForce::kGtd) {
    if (expire == nullptr) {
      BusinessReject(s, m,
                     business_reject_reason::kConditionallyRequiredFieldMissing,
                     Get(m, tag::kClOrdID),
                     "ExpireTime(126) is required with TimeInForce 6 "
                     "(GTD)");
      return false;
    }
    const auto t = ParseFixTime(*expire);
    if (!t) {
      RejectNew(s, m, ord_rej_reason::kOther,
                "ExpireTime(126) " + *expire +
                    " is not a UTC timestamp YYYYMMDD-HH:MM:SS[.sss]");
      return false;
    }
    expire_ns = *t;
  } else if (expire != nullptr) {
    RejectNew(s, m, ord_rej_reason::kOther,
              "ExpireTime(126) is only for TimeInForce 6 (GTD)");
    return false;
  }
  uint8_t flags = 0;
  if (const std::string* inst = m.Find(tag::kExecInst)) {
    if (*inst != "6") {
      RejectNew(
          s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
          "ExecInst(18) " + *inst + " is not supported; 6 (post-only) is");
      return false;
    }
    flags = exchange::kFlagPostOnly;
  }
  c->tif = *tif;
  c->flags = flags;
  if (*tif == TimeInForce::kGtd) {
    c->set_expire_time(exchange::Timestamp{expire_ns});
  }
  return true;
}

// ------------------------------------------------------- cancel and replace

const OrderRecord* FixGateway::CancelTarget(int s, const Message& m,
                                            bool replace, bool* handled) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string* order_id_text = m.Find(tag::kOrderID);
  const uint64_t orig =
      order_id_text != nullptr
          ? 0
          : ClientOrderIdForClOrdId(Get(m, tag::kOrigClOrdID));
  const OrderRecord* o = OwnOrder(ss.account, order_id_text, orig);
  if (o != nullptr || order_id_text != nullptr || orig == 0) return o;
  // The order's NewOrderSingle is still in flight: the request waits for
  // its acknowledgement.
  const Key okey{ss.account.value, orig};
  auto pit = pending_.find(okey);
  if (pit == pending_.end() || pit->second->kind != 'D') return nullptr;
  *handled = true;
  if (ss.held >= kMaxHeldPerSession) {
    RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kOther,
                 "too many requests waiting for their order's "
                 "acknowledgement");
    return nullptr;
  }
  ++ss.held;
  held_[okey].emplace_back(s, m);
  return nullptr;
}

bool FixGateway::ReadReplace(int s, const Message& m, const OrderRecord& o,
                             Command* c) {
  if (Get(m, tag::kOrdType) != "2") {
    RejectCancel(s, m, true, &o, cxl_rej_reason::kOther,
                 "OrdType(40) must be 2: a resting order is a limit "
                 "order");
    return false;
  }
  const std::string* price_text = m.Find(tag::kPrice);
  if (price_text == nullptr) {
    BusinessReject(s, m,
                   business_reject_reason::kConditionallyRequiredFieldMissing,
                   Get(m, tag::kClOrdID), "Price(44) is required on a replace");
    return false;
  }
  const auto p = ParseFixPrice(*price_text);
  if (!p || *p <= 0) {
    RejectCancel(s, m, true, &o, cxl_rej_reason::kOther,
                 "Price(44) " + *price_text +
                     " is not a positive decimal with at most 4 "
                     "decimal places");
    return false;
  }
  const auto qty = ParseFixQuantity(Get(m, tag::kOrderQty));
  if (!qty) {
    RejectCancel(s, m, true, &o, cxl_rej_reason::kOther,
                 "OrderQty(38) " + Get(m, tag::kOrderQty) +
                     " is not a positive whole number of lots");
    return false;
  }
  if (const std::string* t = m.Find(tag::kTimeInForce);
      t != nullptr && *t != std::string(1, TifChar(o.tif))) {
    RejectCancel(s, m, true, &o, cxl_rej_reason::kOther,
                 "TimeInForce(59) cannot be changed by a replace");
    return false;
  }
  c->type = CommandType::kReplace;
  c->price = Price{*p};
  c->quantity = Quantity{*qty};
  return true;
}

void FixGateway::OnCancel(int s, const Message& m, bool replace) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (TradeDenied(s, m, clordid)) return;
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0)
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kOther,
                        ClOrdIdProblem());
  if (const std::string* a = m.Find(tag::kAccount);
      a != nullptr && *a != ss.account_name) {
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER");
  }
  bool handled = false;
  const OrderRecord* o = CancelTarget(s, m, replace, &handled);
  if (handled) return;
  if (o == nullptr)
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER");
  if (o->done()) {
    return RejectCancel(s, m, replace, o, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER: the order is already done");
  }
  const InstrumentInfo* info = instruments_.Get(o->instrument);
  if (info == nullptr || Get(m, tag::kSymbol) != info->symbol) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kOther,
        "Symbol(55) " + Get(m, tag::kSymbol) + " is not the order's");
  }
  if (Get(m, tag::kSide) != std::string(1, SideChar(o->side))) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kOther,
        "Side(54) " + Get(m, tag::kSide) + " is not the order's");
  }
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0 ||
      orders_.FindByClientOrderId(ss.account, exchange::ClientOrderId{id}) !=
          nullptr) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kDuplicateClOrdIDReceived,
        "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid + " is already in use");
  }
  Command c;
  c.account = ss.account;
  c.client_order_id = exchange::ClientOrderId{id};
  c.set_order_id(o->id);
  c.type = CommandType::kCancel;
  if (replace && !ReadReplace(s, m, *o, &c)) return;
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = replace ? 'G' : 'F';
  p->clordid = clordid;
  p->orig_clordid = ClOrdIdText(ss.account, o->client_order_id.value);
  p->order_id = o->id.value;
  pending_[key] = std::move(p);
  if (!replace) pending_cancel_by_order_[o->id.value] = key;
}

// ------------------------------------------------------ mass cancel, status

void FixGateway::OnMassCancel(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (TradeDenied(s, m, clordid)) return;
  const std::string& type = Get(m, tag::kMassCancelRequestType);
  auto refuse = [&](int reason, const std::string& text) {
    Send(s, MassCancelReport(clordid, type, Get(m, tag::kSymbol), "0", reason,
                             text, 0, deps_.clock->Now()));
  };
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0)
    return refuse(mass_cancel_reject_reason::kOther, ClOrdIdProblem());
  InstrumentId instrument;
  if (type == "1") {
    const std::string* sym = m.Find(tag::kSymbol);
    if (sym == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          clordid,
          "Symbol(55) is required with "
          "MassCancelRequestType 1");
    }
    const InstrumentInfo* info = instruments_.Find(*sym);
    if (info == nullptr)
      return refuse(mass_cancel_reject_reason::kInvalidOrUnknownSecurity,
                    "unknown Symbol(55) " + *sym);
    instrument = info->id;
  } else if (type != "7") {
    return refuse(mass_cancel_reject_reason::kMassCancelNotSupported,
                  "MassCancelRequestType(530) must be 1 (security) or 7 (all)");
  }
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0) {
    return refuse(mass_cancel_reject_reason::kOther,
                  "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid +
                      " is already in flight");
  }
  Command c;
  c.type = CommandType::kMassCancel;
  c.account = ss.account;
  c.instrument = instrument;
  c.client_order_id = exchange::ClientOrderId{id};
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = 'q';
  p->clordid = clordid;
  p->mass_type = type[0];
  if (type == "1") p->symbol = Get(m, tag::kSymbol);
  pending_[key] = std::move(p);
}

void FixGateway::OnOrderStatus(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (TradeDenied(s, m, clordid)) return;
  const std::string* oid_text = m.Find(tag::kOrderID);
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  const OrderRecord* o = OwnOrder(ss.account, oid_text, id);
  bool pending_new = false;
  if (o == nullptr && oid_text == nullptr) {
    auto pit = pending_.find(Key{ss.account.value, id});
    pending_new = pit != pending_.end() && pit->second->kind == 'D';
  }
  Message r;
  r.type = msg_type::kExecutionReport;
  if (o != nullptr) {
    Event none;
    none.ts = deps_.clock->Now();
    r = ExecReport(*o, exec_type::kOrderStatus, none);
  } else {
    r.Add(tag::kOrderID, kNone);
    r.Add(tag::kClOrdID, clordid);
    r.Add(tag::kExecID, reject_exec_prefix_ + Str(++reject_exec_count_));
    r.Add(tag::kExecType, std::string(1, exec_type::kOrderStatus));
    r.Add(tag::kOrdStatus, std::string(1, pending_new ? ord_status::kPendingNew
                                                      : ord_status::kRejected));
    if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
    for (int tag : {tag::kSymbol, tag::kSide}) {
      if (const std::string* v = m.Find(tag)) r.Add(tag, *v);
    }
    r.Add(tag::kLeavesQty, "0");
    r.Add(tag::kCumQty, "0");
    r.Add(tag::kAvgPx, "0");
    if (!pending_new) {
      r.Add(tag::kOrdRejReason, Str(int64_t{ord_rej_reason::kUnknownOrder}));
      r.Add(tag::kText, "UNKNOWN_ORDER");
    }
    r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  }
  if (const std::string* req = m.Find(tag::kOrdStatusReqID))
    r.Add(tag::kOrdStatusReqID, *req);
  Send(s, r);
}

}  // namespace cfx::gateway::fix
