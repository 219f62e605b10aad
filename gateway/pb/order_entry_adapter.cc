#include "gateway/pb/order_entry_adapter.h"

#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using exchange::Command;
using exchange::CommandType;

namespace {

constexpr std::size_t kMaxSymbolLength = 64;

constexpr const char kNewOrder[] = "new_order";
constexpr const char kCancelOrder[] = "cancel_order";
constexpr const char kReplaceOrder[] = "replace_order";
constexpr const char kMassCancel[] = "mass_cancel";

IngressReject Refuse(w::SessionRejectReason reason, const char* type,
                     const char* field, const char* text, uint64_t id) {
  return IngressReject{reason, type, field, text, id};
}

// The checks every order message starts with: the user may trade and the
// client order id is set.
std::optional<IngressReject> CheckEntry(const UserConfig& user,
                                        const char* type, uint64_t id) {
  if (const char* why = OrderEntryDenied(user)) {
    return Refuse(w::SESSION_REJECT_REASON_NOT_AUTHORIZED, type, nullptr, why,
                  id);
  }
  if (id == 0) {
    return Refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, type,
                  "client_order_id", "client_order_id is required (nonzero)",
                  0);
  }
  return std::nullopt;
}

// The quantity of a new or replacing order: set and positive.
std::optional<IngressReject> CheckQuantity(const char* type, int64_t quantity,
                                           uint64_t id) {
  if (quantity == 0) {
    return Refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, type, "quantity",
                  "quantity is required", id);
  }
  if (quantity < 0) {
    return Refuse(w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, type, "quantity",
                  "quantity must be positive", id);
  }
  return std::nullopt;
}

}  // namespace

const char* OrderEntryDenied(const UserConfig& user) {
  if (user.role != Role::kTrader && user.role != Role::kProvider) {
    return "this role may not enter orders";
  }
  if (user.account.value == 0) return "no trading account";
  return nullptr;
}

const char* OrderEntryAdapter::MessageType(w::Envelope::BodyCase body) {
  switch (body) {
    case w::Envelope::kNewOrder:
      return kNewOrder;
    case w::Envelope::kCancelOrder:
      return kCancelOrder;
    case w::Envelope::kReplaceOrder:
      return kReplaceOrder;
    case w::Envelope::kMassCancel:
      return kMassCancel;
    default:
      return "";
  }
}

const InstrumentInfo* OrderEntryAdapter::FindSymbol(
    std::string_view symbol) const {
  return symbol.size() > kMaxSymbolLength ? nullptr : instruments_.Find(symbol);
}

std::optional<IngressReject> OrderEntryAdapter::Decode(
    const w::Envelope& m, const UserConfig& user, exchange::AccountId account,
    Command* out) const {
  out->account = account;
  switch (m.body_case()) {
    case w::Envelope::kNewOrder:
      if (auto r =
              CheckEntry(user, kNewOrder, m.new_order().client_order_id())) {
        return r;
      }
      return NewOrder(m.new_order(), out);
    case w::Envelope::kCancelOrder:
      if (auto r = CheckEntry(user, kCancelOrder,
                              m.cancel_order().client_order_id())) {
        return r;
      }
      return Cancel(m.cancel_order(), out);
    case w::Envelope::kReplaceOrder:
      if (auto r = CheckEntry(user, kReplaceOrder,
                              m.replace_order().client_order_id())) {
        return r;
      }
      return Replace(m.replace_order(), out);
    case w::Envelope::kMassCancel:
      // A mass cancel's client order id is optional.
      if (const char* why = OrderEntryDenied(user)) {
        return Refuse(w::SESSION_REJECT_REASON_NOT_AUTHORIZED, kMassCancel,
                      nullptr, why, m.mass_cancel().client_order_id());
      }
      return MassCancel(m.mass_cancel(), out);
    default:
      return std::nullopt;
  }
}

std::optional<IngressReject> OrderEntryAdapter::NewOrder(const w::NewOrder& m,
                                                         Command* out) const {
  const uint64_t id = m.client_order_id();
  const auto refuse = [id](w::SessionRejectReason reason, const char* field,
                           const char* text) {
    return Refuse(reason, kNewOrder, field, text, id);
  };
  if (m.symbol().empty()) {
    return refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, "symbol",
                  "symbol is required");
  }
  const InstrumentInfo* info = FindSymbol(m.symbol());
  if (info == nullptr) {
    return refuse(w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, "symbol",
                  "unknown symbol");
  }
  if (m.side() != w::SIDE_BUY && m.side() != w::SIDE_SELL) {
    return refuse(w::SESSION_REJECT_REASON_INVALID_ENUM, "side",
                  "side must be SIDE_BUY or SIDE_SELL");
  }
  if (m.order_type() != w::ORDER_TYPE_LIMIT &&
      m.order_type() != w::ORDER_TYPE_MARKET) {
    return refuse(w::SESSION_REJECT_REASON_INVALID_ENUM, "order_type",
                  "order_type must be LIMIT or MARKET");
  }
  if (m.time_in_force() < w::TIME_IN_FORCE_DAY ||
      m.time_in_force() > w::TIME_IN_FORCE_GTD) {
    return refuse(w::SESSION_REJECT_REASON_INVALID_ENUM, "time_in_force",
                  "time_in_force must be DAY, GTC, IOC, FOK or GTD");
  }
  if (m.stp_mode() < w::STP_MODE_ACCOUNT_DEFAULT ||
      m.stp_mode() > w::STP_MODE_DECREMENT) {
    return refuse(w::SESSION_REJECT_REASON_INVALID_ENUM, "stp_mode",
                  "unknown stp_mode");
  }
  if (auto r = CheckQuantity(kNewOrder, m.quantity(), id)) return r;
  const bool market = m.order_type() == w::ORDER_TYPE_MARKET;
  if (!market && m.price() == 0) {
    return refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, "price",
                  "a limit order needs a price");
  }
  if (m.price() < 0 || (market && m.price() != 0)) {
    return refuse(
        w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "price",
        market ? "a market order carries no price" : "price must be positive");
  }
  const bool gtd = m.time_in_force() == w::TIME_IN_FORCE_GTD;
  if (gtd && m.expire_time_ns() == 0) {
    return refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, "expire_time_ns",
                  "a GTD order needs expire_time_ns");
  }
  if (m.expire_time_ns() < 0 || (!gtd && m.expire_time_ns() != 0)) {
    return refuse(w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "expire_time_ns",
                  gtd ? "expire_time_ns must be positive"
                      : "expire_time_ns is for GTD orders only");
  }
  Command& c = *out;
  c.type = CommandType::kNewOrder;
  c.instrument = info->id;
  c.side =
      m.side() == w::SIDE_BUY ? exchange::Side::kBuy : exchange::Side::kSell;
  c.order_type =
      market ? exchange::OrderType::kMarket : exchange::OrderType::kLimit;
  c.tif = static_cast<exchange::TimeInForce>(m.time_in_force());
  c.stp = static_cast<exchange::StpMode>(m.stp_mode());
  c.flags = m.post_only() ? exchange::kFlagPostOnly : 0;
  c.client_order_id = exchange::ClientOrderId{id};
  c.price = exchange::Price{m.price()};
  c.quantity = exchange::Quantity{m.quantity()};
  if (gtd) c.set_expire_time(exchange::Timestamp{m.expire_time_ns()});
  return std::nullopt;
}

std::optional<IngressReject> OrderEntryAdapter::Cancel(const w::CancelOrder& m,
                                                       Command* out) const {
  const uint64_t id = m.client_order_id();
  if (m.order_id() == 0) {
    return Refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, kCancelOrder,
                  "order_id", "order_id is required", id);
  }
  out->type = CommandType::kCancel;
  out->client_order_id = exchange::ClientOrderId{id};
  out->set_order_id(exchange::OrderId{m.order_id()});
  return std::nullopt;
}

std::optional<IngressReject> OrderEntryAdapter::Replace(
    const w::ReplaceOrder& m, Command* out) const {
  const uint64_t id = m.client_order_id();
  const auto refuse = [id](w::SessionRejectReason reason, const char* field,
                           const char* text) {
    return Refuse(reason, kReplaceOrder, field, text, id);
  };
  if (m.order_id() == 0) {
    return refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, "order_id",
                  "order_id is required");
  }
  if (m.price() == 0) {
    return refuse(w::SESSION_REJECT_REASON_MISSING_FIELD, "price",
                  "price is required");
  }
  if (m.price() < 0) {
    return refuse(w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "price",
                  "price must be positive");
  }
  if (auto r = CheckQuantity(kReplaceOrder, m.quantity(), id)) return r;
  out->type = CommandType::kReplace;
  out->client_order_id = exchange::ClientOrderId{id};
  out->set_order_id(exchange::OrderId{m.order_id()});
  out->price = exchange::Price{m.price()};
  out->quantity = exchange::Quantity{m.quantity()};
  return std::nullopt;
}

std::optional<IngressReject> OrderEntryAdapter::MassCancel(
    const w::MassCancel& m, Command* out) const {
  const uint64_t id = m.client_order_id();
  exchange::InstrumentId instrument;
  if (!m.symbol().empty()) {
    const InstrumentInfo* info = FindSymbol(m.symbol());
    if (info == nullptr) {
      return Refuse(w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, kMassCancel,
                    "symbol", "unknown symbol", id);
    }
    instrument = info->id;
  }
  out->type = CommandType::kMassCancel;
  out->instrument = instrument;
  out->client_order_id = exchange::ClientOrderId{id};
  return std::nullopt;
}

}  // namespace cfx::gateway::pb
