// Internal to exchange_core: the order book of each instrument, as
// operations over EngineState's books: resting an order at the back of its
// price level and unlinking or reducing it, the level changes each command
// publishes (BookLevel events), cancels and expiry of resting orders, the
// FOK check, matching a taker against the opposite side, self-trade
// prevention, and the spot trades a match records. Inline: this is the
// matching path. Semantics: docs/matching.md.
//
// Thread: the matching thread. Memory: never allocates.

#pragma once

#include <algorithm>
#include <cstdint>

#include "exchange/core/command_context.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/order_pool.h"
#include "exchange/core/price_ladder.h"

namespace cfx::exchange {
namespace internal {

class OrderBook : public CommandContext {
 public:
  explicit OrderBook(EngineState& s) : CommandContext(s) {}

  // Snapshot loading: rests slot `k` (fields set) at the back of its level.
  // Registration (RegisterOrder) is separate so that account lists can be
  // rebuilt in order id order.
  void RestoreRest(uint32_t k) {
    Rest(s_.books[s_.orders[k].instrument.value], k);
    s_.touched_size = 0;
  }

 protected:
  // ---- levels ----
  uint32_t LevelIndex(const Book& b, Price p) const {
    return static_cast<uint32_t>(p.units / b.config.tick.units);
  }

  void Touch(uint32_t inst, Side side, PriceLadder& ladder, uint32_t i) {
    Level& l = ladder.at(i);
    if (l.touched_epoch == s_.epoch) return;
    l.touched_epoch = s_.epoch;
    l.old_lots = l.lots;
    l.old_count = l.count;
    s_.touched[s_.touched_size++] = internal::Touched{inst, side, i};
  }

  void EmitBookLevels() {
    for (uint32_t k = 0; k < s_.touched_size; ++k) {
      const internal::Touched& t = s_.touched[k];
      Book& b = s_.books[t.instrument];
      const Level& l = b.ladder(t.side).at(t.level);
      if (l.lots == l.old_lots && l.count == l.old_count) continue;
      if (b.state == InstrumentState::kPreOpen) b.indicative_due = true;
      Event& e = Base(EventType::kBookLevel);
      e.instrument = InstrumentId{t.instrument};
      e.side = t.side;
      e.price = Price{static_cast<int64_t>(t.level) * b.config.tick.units};
      e.quantity = Quantity{l.lots};
      e.count = l.count;
    }
    s_.touched_size = 0;
  }

  // Appends slot `k` (fields set) at the back of its level.
  void Rest(Book& b, uint32_t k) {
    Order& o = s_.orders[k];
    PriceLadder& ladder = b.ladder(o.side);
    const uint32_t i = LevelIndex(b, o.price);
    Touch(o.instrument.value, o.side, ladder, i);
    Level& l = ladder.at(i);
    o.prev = l.tail;
    o.next = 0;
    if (l.tail != 0) {
      s_.orders[l.tail].next = k;
    } else {
      l.head = k;
      ladder.Mark(i);
      if (IsBuy(o.side)) {
        if (i > b.best_bid) b.best_bid = i;
      } else {
        if (b.best_ask == 0 || i < b.best_ask) b.best_ask = i;
      }
    }
    l.tail = k;
    l.lots += o.leaves.lots;
    ++l.count;
    PositionRow& r = Row(o.account, o.instrument);
    (IsBuy(o.side) ? r.open_buy : r.open_sell) += o.leaves.lots;
  }

  // Unlinks slot `k` from its level; the slot stays allocated.
  void Unrest(Book& b, uint32_t k) {
    Order& o = s_.orders[k];
    PriceLadder& ladder = b.ladder(o.side);
    const uint32_t i = LevelIndex(b, o.price);
    Touch(o.instrument.value, o.side, ladder, i);
    Level& l = ladder.at(i);
    if (o.prev != 0)
      s_.orders[o.prev].next = o.next;
    else
      l.head = o.next;
    if (o.next != 0)
      s_.orders[o.next].prev = o.prev;
    else
      l.tail = o.prev;
    o.prev = o.next = 0;
    l.lots -= o.leaves.lots;
    --l.count;
    PositionRow& r = Row(o.account, o.instrument);
    (IsBuy(o.side) ? r.open_buy : r.open_sell) -= o.leaves.lots;
    if (l.count == 0) {
      ladder.Unmark(i);
      if (IsBuy(o.side)) {
        if (i == b.best_bid) b.best_bid = ladder.HighestBelow(i);
      } else {
        if (i == b.best_ask) b.best_ask = ladder.LowestAbove(i);
      }
    }
  }

  // Takes `lots` off a resting order's leaves (fill or decrement).
  void Reduce(Book& b, uint32_t k, int64_t lots) {
    Order& o = s_.orders[k];
    PriceLadder& ladder = b.ladder(o.side);
    const uint32_t i = LevelIndex(b, o.price);
    Touch(o.instrument.value, o.side, ladder, i);
    ladder.at(i).lots -= lots;
    o.leaves.lots -= lots;
    PositionRow& r = Row(o.account, o.instrument);
    (IsBuy(o.side) ? r.open_buy : r.open_sell) -= lots;
  }

  // ---- cancels and expiry ----
  // Cancels resting slot `k`: emits `type` with `reason`, then removes it.
  void CancelResting(Book& b, uint32_t k, EventType type, CancelReason reason) {
    Order& o = s_.orders[k];
    Event& e = OrderEvent(type, o);
    e.reason = static_cast<uint16_t>(reason);
    e.quantity = o.leaves;
    e.leaves = Quantity{0};
    Unrest(b, k);
    FreeSlot(s_, k);
  }

  // Cancels the resting DAY orders of `b` (every order when `all`) with
  // OrderCancelled(reason): bids from the best price down, then asks from
  // the best price up, FIFO within a price. Returns how many.
  uint32_t ExpireOrders(Book& b, CancelReason reason, bool all) {
    uint32_t n = 0;
    for (Side side : {Side::kBuy, Side::kSell}) {
      PriceLadder& ladder = b.ladder(side);
      uint32_t i = IsBuy(side) ? b.best_bid : b.best_ask;
      while (i != 0) {
        const uint32_t next_level =
            IsBuy(side) ? ladder.HighestBelow(i) : ladder.LowestAbove(i);
        uint32_t k = ladder.at(i).head;
        while (k != 0) {
          const uint32_t next = s_.orders[k].next;
          if (all || s_.orders[k].tif == TimeInForce::kDay) {
            CancelResting(b, k, EventType::kOrderCancelled, reason);
            ++n;
          }
          k = next;
        }
        i = next_level;
      }
    }
    return n;
  }

  // Cancels the GTD orders due at the command's time, the earliest first.
  // Returns how many.
  uint32_t ExpireDue() {
    uint32_t n = 0;
    while (s_.heap_size > 0 &&
           s_.orders[s_.heap[1]].expire_time <= s_.cmd->ts) {
      const uint32_t k = s_.heap[1];
      CancelResting(s_.books[s_.orders[k].instrument.value], k,
                    EventType::kOrderCancelled, CancelReason::kExpired);
      ++n;
    }
    return n;
  }

  // ---- matching ----
  bool Crosses(const Book& b, Side side, Price limit) const {
    if (IsBuy(side)) {
      return b.best_ask != 0 &&
             static_cast<int64_t>(b.best_ask) * b.config.tick.units <=
                 limit.units;
    }
    return b.best_bid != 0 &&
           static_cast<int64_t>(b.best_bid) * b.config.tick.units >=
               limit.units;
  }

  void CancelTaker(Taker& t, InstrumentId inst, CancelReason reason,
                   int64_t lots) {
    Event& e = TakerEvent(EventType::kOrderCancelled, t, inst);
    e.reason = static_cast<uint16_t>(reason);
    e.quantity = Quantity{lots};
    e.leaves = Quantity{0};
    t.leaves = Quantity{0};
    t.cancelled = true;
  }

  // True if a FOK order can fill completely (docs/matching.md, FOK).
  bool FokFillable(Book& b, const Taker& t) {
    const Side opp = Opposite(t.side);
    PriceLadder& ladder = b.ladder(opp);
    int64_t sum = 0;
    uint32_t i = IsBuy(t.side) ? b.best_ask : b.best_bid;
    const int64_t tick = b.config.tick.units;
    while (i != 0) {
      const int64_t p = static_cast<int64_t>(i) * tick;
      if (IsBuy(t.side) ? p > t.limit.units : p < t.limit.units) break;
      for (uint32_t k = ladder.at(i).head; k != 0; k = s_.orders[k].next) {
        const Order& o = s_.orders[k];
        if (o.account == t.account) {
          if (t.stp == StpMode::kCancelOldest) continue;
          return false;
        }
        sum += o.leaves.lots;
        if (sum >= t.leaves.lots) return true;
      }
      i = IsBuy(t.side) ? ladder.LowestAbove(i) : ladder.HighestBelow(i);
    }
    return false;
  }

  void Match(Book& b, Taker& t, InstrumentId inst) {
    const Side opp = Opposite(t.side);
    PriceLadder& ladder = b.ladder(opp);
    while (t.leaves.lots > 0 && Crosses(b, t.side, t.limit)) {
      const uint32_t i = IsBuy(t.side) ? b.best_ask : b.best_bid;
      const Price level_price{static_cast<int64_t>(i) * b.config.tick.units};
      uint32_t k = ladder.at(i).head;
      while (k != 0 && t.leaves.lots > 0) {
        Order& o = s_.orders[k];
        const uint32_t next = o.next;
        if (o.account == t.account) {
          if (!SelfTrade(b, t, inst, k)) return;
        } else {
          const int64_t q = std::min(o.leaves.lots, t.leaves.lots);
          Reduce(b, k, q);
          o.filled.lots += q;
          t.leaves.lots -= q;
          t.filled.lots += q;
          Trade(b, inst, level_price, q, t.side, t.account, t.id,
                t.client_order_id, t.leaves, t.filled, o);
          if (o.leaves.lots == 0) {
            Unrest(b, k);
            FreeSlot(s_, k);
          }
        }
        k = next;
      }
    }
  }

  // Books one fill of `q` lots at `price` whose quantities are already
  // taken off both orders: the positions, the Trade event (aggressor on
  // `side` with its leaves and filled after the fill; `o` the resting
  // order) and, in a listed spot book, the spot trade.
  [[gnu::always_inline]] void Trade(Book& b, InstrumentId inst, Price price,
                                    int64_t q, Side side, AccountId account,
                                    OrderId id, ClientOrderId client_order_id,
                                    Quantity leaves, Quantity filled,
                                    const Order& o) {
    PositionRow& tr = Row(account, inst);
    PositionRow& mr = Row(o.account, inst);
    tr.position += IsBuy(side) ? q : -q;
    mr.position += IsBuy(side) ? -q : q;
    Event& e = Base(EventType::kTrade);
    e.trade_id = TradeId{s_.next_trade_id++};
    e.instrument = inst;
    e.side = side;
    e.price = price;
    e.quantity = Quantity{q};
    e.account = account;
    e.order_id = id;
    e.client_order_id = client_order_id;
    e.leaves = leaves;
    e.filled = filled;
    e.counter_account = o.account;
    e.counter_order_id = o.id;
    e.counter_client_order_id = o.client_order_id;
    e.counter_leaves = o.leaves;
    e.counter_filled = o.filled;
    if (b.delivery_day != 0) {
      const AccountId seller = IsBuy(side) ? o.account : account;
      e.set_seller_milli_tokens(RowOf(seller, b.config.grade).milli_tokens);
      RecordSpotTrade(b, e.trade_id, inst, account, o.account, IsBuy(side),
                      price, q);
    }
  }

  // Applies self-trade prevention between taker `t` and resting slot `k`.
  // Returns false when matching must stop.
  bool SelfTrade(Book& b, Taker& t, InstrumentId inst, uint32_t k) {
    constexpr CancelReason kStp = CancelReason::kSelfTradePrevention;
    switch (t.stp) {
      case StpMode::kCancelOldest:
        CancelResting(b, k, EventType::kOrderCancelled, kStp);
        return true;
      case StpMode::kCancelBoth:
        CancelResting(b, k, EventType::kOrderCancelled, kStp);
        CancelTaker(t, inst, kStp, t.leaves.lots);
        return false;
      case StpMode::kDecrement: {
        Order& o = s_.orders[k];
        const int64_t d = std::min(o.leaves.lots, t.leaves.lots);
        if (o.leaves.lots == d) {
          CancelResting(b, k, EventType::kOrderCancelled, kStp);
        } else {
          Reduce(b, k, d);
          Event& e = OrderEvent(EventType::kOrderRestated, o);
          e.reason = static_cast<uint16_t>(kStp);
          e.quantity = Quantity{d};
        }
        if (t.leaves.lots == d) {
          CancelTaker(t, inst, kStp, d);
          return false;
        }
        t.leaves.lots -= d;
        Event& e = TakerEvent(EventType::kOrderRestated, t, inst);
        e.reason = static_cast<uint16_t>(kStp);
        e.quantity = Quantity{d};
        return true;
      }
      case StpMode::kCancelNewest:
      case StpMode::kAccountDefault:
        break;
    }
    CancelTaker(t, inst, kStp, t.leaves.lots);
    return false;
  }

  // ---- spot trades ----
  void RecordSpotTrade(const Book& b, TradeId id, InstrumentId inst,
                       AccountId taker, AccountId maker, bool taker_buys,
                       Price price, int64_t q) {
    internal::SpotTrade t;
    t.trade_id = id.value;
    t.day = b.delivery_day;
    t.price = price.units;
    t.quantity = q;
    t.instrument = inst.value;
    t.buyer = (taker_buys ? taker : maker).value;
    t.seller = (taker_buys ? maker : taker).value;
    // Room was checked when the order entered (SpotTradeRoom).
    if (s_.spot_trades.size() < s_.spot_trades.capacity()) {
      s_.spot_trades.push_back(t);
    }
  }

  // An order that may trade up to `lots` lots in listed spot book `b` needs
  // room for that many trades in the table.
  bool SpotTradeRoom(const Book& b, int64_t lots) const {
    return b.delivery_day == 0 ||
           static_cast<int64_t>(s_.spot_trades.capacity() -
                                s_.spot_trades.size()) >= lots;
  }
};

}  // namespace internal
}  // namespace cfx::exchange
