#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/keyed_hash.h"
#include "exchange/core/types.h"
#include "gateway/session/client_order_index.h"

namespace cfx::gateway {

// Sums of price x lots (average prices); __extension__ keeps -Wpedantic quiet.
__extension__ using Int128 = __int128;

// (account, client order id): names an order of the day.
using ClientOrderKey = std::pair<uint32_t, uint64_t>;

// The key of this process's tables keyed by client-chosen values: 16 bytes
// from OpenSSL's RAND_bytes, drawn at the first call and never sent or
// logged, so no client can compute keys that collide. Any thread.
const exchange::SipKey& ClientTableKey();

// The hash of the tables keyed by (account, client order id): the order
// view's index and the FIX gateway's ClOrdID tables. Clients choose the ids,
// so the hash is keyed (SipHash-1-3 under ClientTableKey()): an unkeyed one
// let a client fill one bucket chain, and every lookup walked it. The low 4
// bits of the id are added after hashing, so each run of 16 consecutive ids
// of an account still lands in consecutive buckets (the table is walked in
// order, not at random: scrambling every key cost 1.3 us per order in cache
// misses at a million orders); ids that differ above those bits hash
// independently under the key.
// std::unordered_map chains its buckets, so probing needs no bound of its
// own: under the key each chain holds the load factor's share (<= 1).
struct ClientOrderKeyHash {
  exchange::SipKey key = ClientTableKey();
  std::size_t operator()(const ClientOrderKey& k) const {
    return static_cast<std::size_t>(
        exchange::SipHash13(key, k.second >> 4, k.first) + (k.second & 15));
  }
};

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
  exchange::ClientOrderId client_order_id;  // the current one (replaces)
  // The one before the last replace ({0} until a replace): the replace's
  // report names it (OrigClOrdID).
  exchange::ClientOrderId previous_client_order_id;
  exchange::Side side = exchange::Side::kNone;
  exchange::OrderType order_type = exchange::OrderType::kNone;
  exchange::TimeInForce tif = exchange::TimeInForce::kNone;
  exchange::Price price;        // 0 for market orders
  exchange::Quantity quantity;  // total, filled lots included
  exchange::Quantity leaves;
  exchange::Quantity filled;
  Int128 notional = 0;  // sum of fill price x lots (AvgPx)
  OrderState state = OrderState::kNone;
  exchange::Timestamp updated;

  // Filled, cancelled or expired: the order takes no more requests.
  bool done() const {
    return state == OrderState::kFilled || state == OrderState::kCanceled ||
           state == OrderState::kExpired;
  }
};

// Every order accepted since the start of the current trading day, plus
// every order still resting, keyed by order id: the source of order status
// answers and of the price and quantity that trade events do not carry.
// Terminal orders are dropped at each EndOfSession of all instruments.
//
// The engine numbers orders in sequence, so the day's orders lie in chunks
// of kChunk records indexed by order id, from the day's first id on (an
// accept allocates only when it opens a chunk); the orders still resting
// from earlier days, and any order whose id does not fit the run (ids far
// apart), are kept in a hash map beside them.
//
// With `index_client_order_ids`, the view also finds orders by (account,
// client order id): every client order id an order carried today (the
// first and each replace's) names it until the day's end, when only the
// current ids of the orders kept stay (ClientOrderIndex).
//
// The exchange server keeps one view, fed each event before both
// protocols' publishers, which read it (FixGatewayDeps::orders,
// pb::GatewayDeps::orders); a gateway built without one keeps its own.
//
// Thread: owned by one thread (the gateway thread). Memory: one record per
// order id of the day from the first (ids the engine skipped included),
// one hash map entry per order carried from an earlier day, and when
// indexed two to four 24-byte index slots per client order id.
class OrderView {
 public:
  static constexpr std::size_t kChunk = 1024;
  // An accept whose id is further than this past the day's run starts a
  // new run (the records so far move to the map).
  static constexpr uint64_t kMaxGap = 64 * kChunk;

  explicit OrderView(bool index_client_order_ids = false);

  // Applies one engine event; events must arrive in seq order.
  void OnEvent(const exchange::Event& e);

  // The order, or nullptr when unknown.
  const OrderRecord* Find(exchange::OrderId id) const;

  // The order that carried client order id `id` of `account` today, or
  // nullptr (always nullptr without the index).
  const OrderRecord* FindByClientOrderId(exchange::AccountId account,
                                         exchange::ClientOrderId id) const;

  // Calls f(const OrderRecord&) for every order, in no particular order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [id, o] : carried_) f(o);
    for (const auto& chunk : chunks_) {
      for (std::size_t i = 0; i < kChunk; ++i) {
        if (chunk[i].state != OrderState::kNone) f(chunk[i]);
      }
    }
  }

  std::size_t size() const { return carried_.size() + in_run_; }

 private:
  OrderRecord* Get(exchange::OrderId id);
  // The record for a newly accepted order (reset when the id was seen).
  OrderRecord& Add(exchange::OrderId id);
  // Moves the run's live records to carried_ (all of them, or only the
  // unfinished ones) and empties the run.
  void CloseRun(bool drop_done);
  void Fill(exchange::OrderId id, exchange::Quantity leaves,
            exchange::Quantity filled, const exchange::Event& e);
  void Index(const exchange::Event& e);
  void EndOfDay();

  bool index_client_order_ids_;
  // The run: order id first_ + k is chunks_[k / kChunk][k % kChunk]; a
  // record with state kNone is an id never accepted.
  uint64_t first_ = 0;  // 0: no run
  std::vector<std::unique_ptr<OrderRecord[]>> chunks_;
  std::size_t in_run_ = 0;  // records of the run with a state
  std::unordered_map<uint64_t, OrderRecord> carried_;
  ClientOrderIndex by_client_order_id_;
};

}  // namespace cfx::gateway
