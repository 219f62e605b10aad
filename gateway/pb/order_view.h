#pragma once

#include <cstdint>
#include <unordered_map>

#include "exchange/core/event.h"
#include "exchange/core/types.h"

namespace cfx::gateway::pb {

enum class OrderState : uint8_t {
  kNone = 0,
  kNew = 1,
  kPartiallyFilled = 2,
  kFilled = 3,
  kCanceled = 4,
  kExpired = 6,
};

// What the gateway knows of one order, from durable engine events.
struct OrderRecord {
  exchange::OrderId id;
  exchange::AccountId account;
  exchange::InstrumentId instrument;
  exchange::ClientOrderId client_order_id;
  exchange::Side side = exchange::Side::kNone;
  exchange::OrderType order_type = exchange::OrderType::kNone;
  exchange::TimeInForce tif = exchange::TimeInForce::kNone;
  exchange::Price price;        // 0 for market orders
  exchange::Quantity quantity;  // total, filled lots included
  exchange::Quantity leaves;
  exchange::Quantity filled;
  OrderState state = OrderState::kNone;
  exchange::Timestamp updated;
};

// Every order accepted since the start of the current trading day, plus
// every order still resting, keyed by order id: the source of order status
// answers and of the price and quantity that trade events do not carry.
// Terminal orders are dropped at each EndOfSession of all instruments.
//
// Thread: owned by one thread (the gateway thread, or a retransmission
// worker for its own copy). Memory: one hash map entry per order.
class OrderView {
 public:
  // Applies one engine event; events must arrive in seq order.
  void OnEvent(const exchange::Event& e);

  // The order, or nullptr when unknown.
  const OrderRecord* Find(exchange::OrderId id) const;

  std::size_t size() const { return orders_.size(); }

 private:
  OrderRecord* Get(exchange::OrderId id);
  void Fill(exchange::OrderId id, exchange::Quantity leaves,
            exchange::Quantity filled, exchange::Timestamp ts);

  std::unordered_map<uint64_t, OrderRecord> orders_;
};

}  // namespace cfx::gateway::pb
