#include "gateway/pb/order_view.h"

namespace cfx::gateway::pb {

using exchange::Event;
using exchange::EventType;

OrderRecord* OrderView::Get(exchange::OrderId id) {
  auto it = orders_.find(id.value);
  return it == orders_.end() ? nullptr : &it->second;
}

const OrderRecord* OrderView::Find(exchange::OrderId id) const {
  auto it = orders_.find(id.value);
  return it == orders_.end() ? nullptr : &it->second;
}

void OrderView::Fill(exchange::OrderId id, exchange::Quantity leaves,
                     exchange::Quantity filled, exchange::Timestamp ts) {
  OrderRecord* o = Get(id);
  if (o == nullptr) return;
  o->leaves = leaves;
  o->filled = filled;
  o->updated = ts;
  o->state =
      leaves.lots == 0 ? OrderState::kFilled : OrderState::kPartiallyFilled;
}

void OrderView::OnEvent(const Event& e) {
  switch (e.type) {
    case EventType::kOrderAccepted: {
      OrderRecord& o = orders_[e.order_id.value];
      o.id = e.order_id;
      o.account = e.account;
      o.instrument = e.instrument;
      o.client_order_id = e.client_order_id;
      o.side = e.side;
      o.order_type = e.order_type;
      o.tif = e.tif;
      o.price = e.price;
      o.quantity = e.quantity;
      o.leaves = e.leaves;
      o.filled = e.filled;
      o.state = OrderState::kNew;
      o.updated = e.ts;
      break;
    }
    case EventType::kTrade:
      Fill(e.order_id, e.leaves, e.filled, e.ts);
      Fill(e.counter_order_id, e.counter_leaves, e.counter_filled, e.ts);
      break;
    case EventType::kCancelAccepted:
    case EventType::kOrderCancelled:
      if (OrderRecord* o = Get(e.order_id)) {
        o->leaves = exchange::Quantity{0};
        o->filled = e.filled;
        o->updated = e.ts;
        o->state = e.type == EventType::kOrderCancelled &&
                           e.cancel_reason() == exchange::CancelReason::kExpired
                       ? OrderState::kExpired
                       : OrderState::kCanceled;
      }
      break;
    case EventType::kOrderReplaced:
      if (OrderRecord* o = Get(e.order_id)) {
        o->client_order_id = e.client_order_id;
        o->price = e.price;
        o->quantity = e.quantity;
        o->leaves = e.leaves;
        o->filled = e.filled;
        o->updated = e.ts;
      }
      break;
    case EventType::kOrderRestated:
      if (OrderRecord* o = Get(e.order_id)) {
        o->leaves = e.leaves;
        o->updated = e.ts;
      }
      break;
    case EventType::kSessionEnded:
      if (e.instrument.value == 0) {
        for (auto it = orders_.begin(); it != orders_.end();) {
          const OrderState s = it->second.state;
          const bool terminal = s == OrderState::kFilled ||
                                s == OrderState::kCanceled ||
                                s == OrderState::kExpired;
          it = terminal ? orders_.erase(it) : std::next(it);
        }
      }
      break;
    default:
      break;
  }
}

}  // namespace cfx::gateway::pb
