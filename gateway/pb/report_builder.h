#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/event.h"
#include "gateway/config/instrument_table.h"
#include "gateway/session/order_view.h"

namespace cfx::gateway::pb {

// Turns durable engine events into the order-entry messages of the accounts
// they concern (ExecutionReport, CancelReject, MassCancelReport) and numbers
// them: a message's position is (seq, index), index counting from 0 among
// the messages one command causes for one account. The live gateway and a
// retransmission replay run the same builder over the same events, so they
// produce the same messages at the same positions.
//
// Symbols come from an InstrumentTable, and orders from an OrderView, that
// the owner feeds each event before OnEvent(): the live gateway's are the
// server's (the ones both gateways read).
//
// Thread: owned by one thread, the one that feeds `instruments` and
// `orders`. Memory: per-account counters sized from the config; one
// reusable Envelope.
class ReportBuilder {
 public:
  using EmitFn =
      std::function<void(exchange::AccountId, const wire::v1::Envelope&)>;

  // `instruments` and `orders` must outlive the builder.
  ReportBuilder(const ServerConfig& config, const InstrumentTable& instruments,
                const OrderView& orders);

  // Calls emit(account, message) for each message `e` causes, in order.
  // REQUIRES: `instruments` and `orders` have been fed `e`.
  void OnEvent(const exchange::Event& e, const EmitFn& emit);

  const OrderView& orders() const { return orders_; }
  const InstrumentTable& instruments() const { return instruments_; }

 private:
  wire::v1::ExecutionReport* StartReport(exchange::AccountId account,
                                         const exchange::Event& e);
  void Emit(exchange::AccountId account, const EmitFn& emit);
  void Rejected(const exchange::Event& e, const EmitFn& emit);
  void FillOrder(wire::v1::ExecutionReport* r, exchange::OrderId id,
                 exchange::ClientOrderId client_order_id,
                 exchange::InstrumentId instrument, exchange::Side side,
                 exchange::Quantity leaves, exchange::Quantity filled);
  const std::string& Symbol(exchange::InstrumentId id) const;

  const InstrumentTable& instruments_;
  const OrderView& orders_;
  std::vector<uint64_t> last_seq_;    // by account id
  std::vector<uint32_t> next_index_;  // by account id
  wire::v1::Envelope envelope_;
  exchange::Seq seq_;
  uint32_t index_ = 0;
};

// Builds the answer to an OrderStatusRequest from an order record; an order
// that is unknown or belongs to another account gets ORDER_STATUS_UNKNOWN.
// The symbol is the order's instrument's as listed in `instruments`.
void BuildOrderStatus(const InstrumentTable& instruments,
                      const OrderRecord* order, exchange::AccountId account,
                      exchange::OrderId id, wire::v1::ExecutionReport* out);

wire::v1::OrderStatus WireOrderStatus(OrderState s);

inline wire::v1::Side WireSide(exchange::Side s) {
  return s == exchange::Side::kBuy    ? wire::v1::SIDE_BUY
         : s == exchange::Side::kSell ? wire::v1::SIDE_SELL
                                      : wire::v1::SIDE_UNSPECIFIED;
}

}  // namespace cfx::gateway::pb
