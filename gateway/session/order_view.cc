#include "gateway/session/order_view.h"

#include <openssl/rand.h>

#include <iterator>
#include <random>

namespace cfx::gateway {

namespace {

exchange::SipKey DrawClientTableKey() {
  uint64_t words[2] = {0, 0};
  if (RAND_bytes(reinterpret_cast<unsigned char*>(words), sizeof words) != 1) {
    // OpenSSL could not seed itself; the kernel's generator then.
    std::random_device rd;
    for (uint64_t& w : words) w = (uint64_t{rd()} << 32) ^ rd();
  }
  return exchange::SipKey{words[0], words[1]};
}

}  // namespace

const exchange::SipKey& ClientTableKey() {
  static const exchange::SipKey key = DrawClientTableKey();
  return key;
}

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

const OrderRecord* OrderView::FindByClientOrderId(
    exchange::AccountId account, exchange::ClientOrderId id) const {
  if (by_client_order_id_.empty()) return nullptr;
  auto it = by_client_order_id_.find({account.value, id.value});
  return it == by_client_order_id_.end() ? nullptr
                                         : Find(exchange::OrderId{it->second});
}

void OrderView::Fill(exchange::OrderId id, exchange::Quantity leaves,
                     exchange::Quantity filled, const Event& e) {
  OrderRecord* o = Get(id);
  if (o == nullptr) return;
  o->leaves = leaves;
  o->filled = filled;
  o->notional += static_cast<Int128>(e.price.units) * e.quantity.lots;
  o->updated = e.ts;
  o->state =
      leaves.lots == 0 ? OrderState::kFilled : OrderState::kPartiallyFilled;
}

void OrderView::Index(const Event& e) {
  if (index_client_order_ids_) {
    by_client_order_id_[{e.account.value, e.client_order_id.value}] =
        e.order_id.value;
  }
}

void OrderView::EndOfDay() {
  std::erase_if(orders_, [](const auto& kv) { return kv.second.done(); });
  // Client order ids are unique per day: keep the current ids of the
  // orders kept.
  std::erase_if(by_client_order_id_, [this](const auto& kv) {
    const OrderRecord* o = Find(exchange::OrderId{kv.second});
    return o == nullptr || o->client_order_id.value != kv.first.second;
  });
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
      o.notional = 0;
      o.state = OrderState::kNew;
      o.updated = e.ts;
      Index(e);
      break;
    }
    case EventType::kTrade:
      Fill(e.order_id, e.leaves, e.filled, e);
      Fill(e.counter_order_id, e.counter_leaves, e.counter_filled, e);
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
        o->previous_client_order_id = o->client_order_id;
        o->client_order_id = e.client_order_id;
        o->price = e.price;
        o->quantity = e.quantity;
        o->leaves = e.leaves;
        o->filled = e.filled;
        o->updated = e.ts;
        o->state =
            e.filled.lots > 0 ? OrderState::kPartiallyFilled : OrderState::kNew;
        Index(e);
      }
      break;
    case EventType::kOrderRestated:
      if (OrderRecord* o = Get(e.order_id)) {
        o->leaves = e.leaves;
        o->updated = e.ts;
      }
      break;
    case EventType::kSessionEnded:
      if (e.instrument.value == 0) EndOfDay();
      break;
    default:
      break;
  }
}

}  // namespace cfx::gateway
