#include "gateway/session/order_view.h"

#include <openssl/rand.h>

#include <iterator>
#include <random>
#include <utility>

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

OrderView::OrderView(bool index_client_order_ids)
    : index_client_order_ids_(index_client_order_ids),
      by_client_order_id_(ClientTableKey()) {}

OrderRecord* OrderView::Get(exchange::OrderId id) {
  return const_cast<OrderRecord*>(std::as_const(*this).Find(id));
}

const OrderRecord* OrderView::Find(exchange::OrderId id) const {
  if (first_ != 0 && id.value >= first_) {
    const uint64_t k = id.value - first_;
    if (k / kChunk < chunks_.size()) {
      const OrderRecord& o = chunks_[k / kChunk][k % kChunk];
      return o.state == OrderState::kNone ? nullptr : &o;
    }
  }
  if (carried_.empty()) return nullptr;
  auto it = carried_.find(id.value);
  return it == carried_.end() ? nullptr : &it->second;
}

const OrderRecord* OrderView::FindByClientOrderId(
    exchange::AccountId account, exchange::ClientOrderId id) const {
  const uint64_t order = by_client_order_id_.Find(account.value, id.value);
  return order == 0 ? nullptr : Find(exchange::OrderId{order});
}

OrderRecord& OrderView::Add(exchange::OrderId id) {
  if (first_ != 0 && id.value >= first_ &&
      id.value - first_ >= chunks_.size() * kChunk + kMaxGap) {
    CloseRun(/*drop_done=*/false);
  }
  if (first_ == 0) first_ = id.value;
  if (id.value != 0 && id.value >= first_) {
    const uint64_t k = id.value - first_;
    while (k / kChunk >= chunks_.size()) {
      chunks_.push_back(std::make_unique<OrderRecord[]>(kChunk));
    }
    OrderRecord& o = chunks_[k / kChunk][k % kChunk];
    if (o.state == OrderState::kNone) ++in_run_;
    o = OrderRecord{};
    return o;
  }
  OrderRecord& o = carried_[id.value];
  o = OrderRecord{};
  return o;
}

void OrderView::CloseRun(bool drop_done) {
  for (const auto& chunk : chunks_) {
    for (std::size_t i = 0; i < kChunk; ++i) {
      const OrderRecord& o = chunk[i];
      if (o.state == OrderState::kNone || (drop_done && o.done())) continue;
      carried_.emplace(o.id.value, o);
    }
  }
  chunks_.clear();
  in_run_ = 0;
  first_ = 0;
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
    by_client_order_id_.Put(e.account.value, e.client_order_id.value,
                            e.order_id.value);
  }
}

void OrderView::EndOfDay() {
  std::erase_if(carried_, [](const auto& kv) { return kv.second.done(); });
  CloseRun(/*drop_done=*/true);
  // Client order ids are unique per day: keep the current ids of the
  // orders kept.
  by_client_order_id_.Clear();
  if (index_client_order_ids_) {
    for (const auto& [id, o] : carried_) {
      by_client_order_id_.Put(o.account.value, o.client_order_id.value,
                              o.id.value);
    }
  }
}

void OrderView::OnEvent(const Event& e) {
  switch (e.type) {
    case EventType::kOrderAccepted: {
      OrderRecord& o = Add(e.order_id);
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
