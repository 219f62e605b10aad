#include "exchange/core/engine.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/large_array.h"
#include "exchange/core/margin.h"
#include "exchange/core/order_index.h"
#include "exchange/core/price_ladder.h"
#include "exchange/core/reference/registry.h"

namespace cfx::exchange {

namespace {

using internal::Book;
using internal::EngineState;
using internal::Level;
using internal::Order;
using internal::PositionRow;
using internal::PriceLadder;
using internal::Taker;

constexpr int64_t kMicrosPerPriceUnit = kMicrosPerUsd / kPriceUnitsPerUsd;

using internal::IsBuy;
using internal::SetReference;

class Apply {
 public:
  explicit Apply(EngineState& s) : s_(s) {}

  void Run(const Command& cmd, EventSink& out);

  // Snapshot loading: rests slot `k` (fields set) at the back of its level.
  // Registration (index, account list, GTD heap) is separate so that account
  // lists can be rebuilt in order id order.
  void RestoreRest(uint32_t k) {
    Rest(s_.books[s_.orders[k].instrument.value], k);
    s_.touched_size = 0;
  }
  void RestoreRegister(uint32_t k) { Register(k); }
  uint32_t RestoreAlloc() { return AllocSlot(); }

 private:
  // ---- events ----
  // Starts the next event in the sink's buffer; the caller fills it in
  // before starting another.
  Event& Base(EventType type) {
    Event& e = s_.out->Next();
    ClearEvent(e);
    e.seq = s_.cmd->seq;
    e.ts = s_.cmd->ts;
    e.type = type;
    return e;
  }

  void Reject(RejectCode code) { RejectEvent(code); }

  Event& RejectEvent(RejectCode code) {
    const Command& c = *s_.cmd;
    Event& e = Base(EventType::kRejected);
    e.command = c.type;
    e.reason = static_cast<uint16_t>(code);
    e.account = c.account;
    e.instrument = c.instrument;
    if (c.type == CommandType::kCancel || c.type == CommandType::kReplace) {
      e.order_id = c.order_id();
    }
    e.client_order_id = c.client_order_id;
    e.side = c.side;
    e.price = c.price;
    e.quantity = c.quantity;
    return e;
  }

  Event& OrderEvent(EventType type, const Order& o) {
    Event& e = Base(type);
    e.account = o.account;
    e.instrument = o.instrument;
    e.order_id = o.id;
    e.client_order_id = o.client_order_id;
    e.side = o.side;
    e.price = o.price;
    e.quantity = o.quantity;
    e.leaves = o.leaves;
    e.filled = o.filled;
    return e;
  }

  Event& TakerEvent(EventType type, const Taker& t, InstrumentId inst) {
    Event& e = Base(type);
    e.account = t.account;
    e.instrument = inst;
    e.order_id = t.id;
    e.client_order_id = t.client_order_id;
    e.side = t.side;
    e.price = t.event_price;
    e.leaves = t.leaves;
    e.filled = t.filled;
    return e;
  }

  // ---- state helpers ----
  Book* FindBook(InstrumentId id) {
    if (id.value == 0 || id.value >= s_.books.size()) return nullptr;
    Book& b = s_.books[id.value];
    return b.listed ? &b : nullptr;
  }

  bool AccountKnown(AccountId a) const {
    return a.value != 0 && a.value < s_.accounts.size() &&
           s_.accounts[a.value].configured;
  }

  PositionRow& Row(AccountId a, InstrumentId i) {
    return s_.positions[static_cast<std::size_t>(a.value) *
                            s_.limits.max_instruments +
                        i.value];
  }

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

  uint32_t AllocSlot() {
    const uint32_t k = s_.free_head;
    s_.free_head = s_.orders[k].next;
    ++s_.resting;
    return k;
  }

  // Registers a freshly filled slot: id index, account list, GTD heap.
  void Register(uint32_t k) {
    Order& o = s_.orders[k];
    s_.index.Insert(o.id.value, k);
    internal::AccountRow& a = s_.accounts[o.account.value];
    o.account_prev = a.tail;
    o.account_next = 0;
    if (a.tail != 0)
      s_.orders[a.tail].account_next = k;
    else
      a.head = k;
    a.tail = k;
    if (o.tif == TimeInForce::kGtd) HeapPush(k);
  }

  // Releases a slot that is no longer in any level. Forced inline: GCC 12
  // stopped inlining it when NewOrder() grew by the client order id check,
  // which cost ~25 instructions per command in `cfx-bench engine`.
  [[gnu::always_inline]] void Free(uint32_t k) {
    Order& o = s_.orders[k];
    s_.index.Erase(o.id.value);
    internal::AccountRow& a = s_.accounts[o.account.value];
    if (o.account_prev != 0)
      s_.orders[o.account_prev].account_next = o.account_next;
    else
      a.head = o.account_next;
    if (o.account_next != 0)
      s_.orders[o.account_next].account_prev = o.account_prev;
    else
      a.tail = o.account_prev;
    if (o.heap_pos != 0) HeapRemove(o.heap_pos);
    // The other fields are dead until Finish() or a snapshot load refills
    // them; heap_pos is already 0.
    o.id = OrderId{};
    o.next = s_.free_head;
    s_.free_head = k;
    --s_.resting;
  }

  // Cancels resting slot `k`: emits `type` with `reason`, then removes it.
  void CancelResting(Book& b, uint32_t k, EventType type, CancelReason reason) {
    Order& o = s_.orders[k];
    Event& e = OrderEvent(type, o);
    e.reason = static_cast<uint16_t>(reason);
    e.quantity = o.leaves;
    e.leaves = Quantity{0};
    Unrest(b, k);
    Free(k);
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

  // ---- GTD heap, keyed by (expire time, order id) ----
  bool HeapLess(uint32_t a, uint32_t b) const {
    const Order& x = s_.orders[a];
    const Order& y = s_.orders[b];
    if (x.expire_time != y.expire_time) return x.expire_time < y.expire_time;
    return x.id < y.id;
  }
  void HeapSet(uint32_t pos, uint32_t k) {
    s_.heap[pos] = k;
    s_.orders[k].heap_pos = pos;
  }
  void SiftUp(uint32_t pos) {
    const uint32_t k = s_.heap[pos];
    while (pos > 1 && HeapLess(k, s_.heap[pos / 2])) {
      HeapSet(pos, s_.heap[pos / 2]);
      pos /= 2;
    }
    HeapSet(pos, k);
  }
  void SiftDown(uint32_t pos) {
    const uint32_t k = s_.heap[pos];
    while (true) {
      uint32_t c = pos * 2;
      if (c > s_.heap_size) break;
      if (c + 1 <= s_.heap_size && HeapLess(s_.heap[c + 1], s_.heap[c])) ++c;
      if (!HeapLess(s_.heap[c], k)) break;
      HeapSet(pos, s_.heap[c]);
      pos = c;
    }
    HeapSet(pos, k);
  }
  void HeapPush(uint32_t k) {
    s_.heap[++s_.heap_size] = k;
    SiftUp(s_.heap_size);
  }
  void HeapRemove(uint32_t pos) {
    s_.orders[s_.heap[pos]].heap_pos = 0;
    const uint32_t last = s_.heap[s_.heap_size--];
    if (pos > s_.heap_size) return;
    s_.heap[pos] = last;
    SiftUp(pos);
    SiftDown(s_.orders[last].heap_pos);
  }

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
          PositionRow& tr = Row(t.account, inst);
          PositionRow& mr = Row(o.account, inst);
          tr.position += IsBuy(t.side) ? q : -q;
          mr.position += IsBuy(t.side) ? -q : q;
          Event& e = Base(EventType::kTrade);
          e.trade_id = TradeId{s_.next_trade_id++};
          e.instrument = inst;
          e.side = t.side;
          e.price = level_price;
          e.quantity = Quantity{q};
          e.account = t.account;
          e.order_id = t.id;
          e.client_order_id = t.client_order_id;
          e.leaves = t.leaves;
          e.filled = t.filled;
          e.counter_account = o.account;
          e.counter_order_id = o.id;
          e.counter_client_order_id = o.client_order_id;
          e.counter_leaves = o.leaves;
          e.counter_filled = o.filled;
          if (b.delivery_day != 0) {
            const AccountId seller = IsBuy(t.side) ? o.account : t.account;
            e.count = RowOf(seller, b.config.grade).milli_tokens;
            RecordSpotTrade(b, e.trade_id, inst, t.account, o.account,
                            IsBuy(t.side), level_price, q);
          }
          if (o.leaves.lots == 0) {
            Unrest(b, k);
            Free(k);
          }
        }
        k = next;
      }
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

  // ---- pre-trade checks shared by new order and replace ----
  RejectCode CheckLimitPrice(const Book& b, Price p) const {
    if (p.units <= 0) return RejectCode::kInvalidPrice;
    if (p.units % b.config.tick.units != 0) return RejectCode::kPriceNotOnTick;
    if (p > b.config.max_price) return RejectCode::kPriceOutOfRange;
    return RejectCode::kNone;
  }

  RejectCode CheckBand(const Book& b, Side side, Price p) const {
    if (IsBuy(side) ? p > b.band_high : p < b.band_low) {
      return RejectCode::kPriceOutsideBand;
    }
    return RejectCode::kNone;
  }

  RejectCode CheckNotional(const Book& b, Price p, Quantity q) const {
    int64_t v = 0;
    if (__builtin_mul_overflow(p.units, kMicrosPerPriceUnit, &v) ||
        __builtin_mul_overflow(v, q.lots, &v) ||
        __builtin_mul_overflow(v, b.config.gpu_hours_per_lot, &v)) {
      return RejectCode::kNotionalOverflow;
    }
    return RejectCode::kNone;
  }

  // `added` = extra open lots on `side` that the command would create.
  RejectCode CheckPositionLimit(const Book& b, AccountId a, InstrumentId inst,
                                Side side, int64_t added) {
    const int64_t limit = b.config.position_limit.lots;
    if (limit == 0 || added <= 0) return RejectCode::kNone;
    const PositionRow& r = Row(a, inst);
    const int64_t exposure =
        IsBuy(side) ? r.position + r.open_buy : -r.position + r.open_sell;
    if (exposure + added > limit) return RejectCode::kPositionLimitExceeded;
    return RejectCode::kNone;
  }

  // ---- initial margin (DESIGN.md §5, docs/matching.md "Margin") ----
  // The lots of row `r` of book `b` when every open buy fills (*buy) and
  // when every open sell fills (*sell), with `buy_extra` and `sell_extra`
  // more open lots. False when one of them, or its |lots| x gpu_hours x
  // reference price, leaves int64 (InitialMargin's precondition).
  static bool WorstLots(const PositionRow& r, const Book& b, int64_t buy_extra,
                        int64_t sell_extra, int64_t* buy, int64_t* sell) {
    int64_t open = 0;
    if (__builtin_add_overflow(r.open_buy, buy_extra, &open) ||
        __builtin_add_overflow(r.position, open, buy) ||
        __builtin_add_overflow(r.open_sell, sell_extra, &open) ||
        __builtin_sub_overflow(r.position, open, sell)) {
      return false;
    }
    for (const int64_t lots : {*buy, *sell}) {
      int64_t v = 0;
      if (lots == INT64_MIN ||
          __builtin_mul_overflow(lots < 0 ? -lots : lots,
                                 b.config.gpu_hours_per_lot, &v) ||
          __builtin_mul_overflow(v, b.reference.units, &v)) {
        return false;
      }
    }
    return true;
  }

  // Fills buy[] and sell[] with the margin legs of account `a` in its two
  // worst cases: a leg per margined instrument that is not expired and in
  // which `a` holds a position or open orders, or which is `inst`, at the
  // instrument's reference price (the last DSP, else the configured
  // initial reference). `inst` (0: none) gets `buy_extra` and `sell_extra`
  // more open lots; *at is the index of its leg. Returns the leg count, or
  // -1 when WorstLots() fails for a leg.
  int BuildLegs(AccountId a, uint32_t inst, int64_t buy_extra,
                int64_t sell_extra, MarginLeg* buy, MarginLeg* sell,
                std::size_t* at) {
    int n = 0;
    for (const uint32_t id : s_.margined_books) {
      const Book& b = s_.books[id];
      const PositionRow& r = Row(a, InstrumentId{id});
      const bool here = id == inst;
      if (b.state == InstrumentState::kExpired ||
          (!here && r.position == 0 && r.open_buy == 0 && r.open_sell == 0)) {
        continue;
      }
      int64_t buy_lots = 0;
      int64_t sell_lots = 0;
      if (!WorstLots(r, b, here ? buy_extra : 0, here ? sell_extra : 0,
                     &buy_lots, &sell_lots)) {
        return -1;
      }
      if (here) *at = static_cast<std::size_t>(n);
      MarginLeg& l = buy[n];
      l.group = b.config.margin_group;
      l.month = b.config.maturity_month;
      l.lots = buy_lots;
      l.price = b.reference.units;
      l.gpu_hours = b.config.gpu_hours_per_lot;
      sell[n] = l;
      sell[n].lots = sell_lots;
      ++n;
    }
    return n;
  }

  int64_t WorstMargin(const MarginLeg* buy, const MarginLeg* sell, int n) {
    const auto size = static_cast<std::size_t>(n);
    return std::max(InitialMargin({buy, size}, s_.margin),
                    InitialMargin({sell, size}, s_.margin));
  }

  // Pre-trade margin check of an order on `b` that adds `added` open lots
  // (negative: removes) on `side` for account `a`. INSUFFICIENT_MARGIN iff
  // the worst case with them exceeds the collateral and the worst case
  // without them; NOTIONAL_OVERFLOW when a worst-case leg, with or without
  // them, leaves int64. Spot instruments are not margined.
  RejectCode CheckMargin(const Book& b, AccountId a, InstrumentId inst,
                         Side side, int64_t added) {
    if (b.config.margin_group == 0 || added == 0) return RejectCode::kNone;
    MarginLeg buy[kMaxMarginLegs];
    MarginLeg sell[kMaxMarginLegs];
    std::size_t at = 0;
    const int n = BuildLegs(a, inst.value, IsBuy(side) ? added : 0,
                            IsBuy(side) ? 0 : added, buy, sell, &at);
    int64_t buy_without = 0;
    int64_t sell_without = 0;
    if (n < 0 ||
        !WorstLots(Row(a, inst), b, 0, 0, &buy_without, &sell_without)) {
      return RejectCode::kNotionalOverflow;
    }
    const int64_t with = WorstMargin(buy, sell, n);
    if (with <= s_.accounts[a.value].collateral) return RejectCode::kNone;
    buy[at].lots = buy_without;
    sell[at].lots = sell_without;
    return with > WorstMargin(buy, sell, n) ? RejectCode::kInsufficientMargin
                                            : RejectCode::kNone;
  }

  // The account's margin requirement: its worst case as it stands, or -1
  // when a leg leaves int64.
  int64_t MarginRequirement(AccountId a) {
    MarginLeg buy[kMaxMarginLegs];
    MarginLeg sell[kMaxMarginLegs];
    std::size_t at = 0;
    const int n = BuildLegs(a, 0, 0, 0, buy, sell, &at);
    return n < 0 ? -1 : WorstMargin(buy, sell, n);
  }

  bool WouldCross(const Book& b, Side side, Price p) const {
    return Crosses(b, side, p);
  }

  // ---- commands ----
  void NewOrder();
  void Cancel();
  void Replace();
  void MassCancel();
  void SetState();
  void SetReferencePrice();
  void ListInstrument();
  void ReferenceData();
  void ReportFailure();
  void IndexFixing();
  void Collateral();
  void SettlementRerun();

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

  // ---- eligibility (reference data) ----
  void AdvanceReference() {
    s_.changes.clear();
    s_.registry->AdvanceTime(s_.cmd->ts, &s_.changes);
    s_.next_reference_change = s_.registry->next_change().nanos;
    ApplyEligibilityChanges();
  }

  EligibilityRow& RowOf(AccountId a, uint32_t grade) {
    return s_
        .eligibility[static_cast<std::size_t>(a.value) * kMaxGrades + grade];
  }

  // Lots `a` has committed in spot instrument `id`: resting sells plus lots
  // already sold (a negative position).
  int64_t Committed(AccountId a, uint32_t id) {
    const PositionRow& r = Row(a, InstrumentId{id});
    return r.open_sell + std::max<int64_t>(0, -r.position);
  }

  // The account's committed lots over every grade's instrument of one
  // delivery day, and the most nodes any grade lets it sell.
  int64_t CommittedOnDay(AccountId a, int64_t day) {
    int64_t n = 0;
    for (uint32_t id : s_.spot_books) {
      const Book& b = s_.books[id];
      if (b.delivery_day == day && b.state != InstrumentState::kNone) {
        n += Committed(a, id);
      }
    }
    return n;
  }
  int64_t MaxNodes(AccountId a) {
    int64_t n = 0;
    for (uint32_t g = 0; g < s_.grades; ++g) {
      const EligibilityRow& r = RowOf(a, g);
      if (r.status == Eligibility::kEligible) n = std::max<int64_t>(n, r.nodes);
    }
    return n;
  }

  // A spot sell adding `extra` lots in `b` (DESIGN.md §3): the account must
  // be eligible for the grade, and its attested nodes must cover what it
  // has committed for the delivery day, in the grade and over all grades.
  // On a reject *detail is the Eligibility naming the missing requirement.
  RejectCode CheckGradeEligibility(const Book& b, AccountId a, Side side,
                                   int64_t extra, uint32_t* detail) {
    if (!s_.eligibility_required || b.config.kind != InstrumentKind::kSpot ||
        side != Side::kSell || extra <= 0) {
      return RejectCode::kNone;
    }
    const EligibilityRow& r = RowOf(a, b.config.grade);
    if (r.status != Eligibility::kEligible) {
      *detail = static_cast<uint32_t>(r.status);
      return RejectCode::kGradeNotEligible;
    }
    const uint32_t id = static_cast<uint32_t>(&b - s_.books.data());
    if (Committed(a, id) + extra > r.nodes ||
        CommittedOnDay(a, b.delivery_day) + extra > MaxNodes(a)) {
      *detail = static_cast<uint32_t>(Eligibility::kCapacityExceeded);
      return RejectCode::kGradeNotEligible;
    }
    return RejectCode::kNone;
  }

  void RejectNotEligible(uint32_t detail) {
    RejectEvent(RejectCode::kGradeNotEligible).count = detail;
  }

  // Stores the changed rows, tells about each, and cancels the resting spot
  // sells the account may no longer keep (GRADE_ELIGIBILITY_LOST): all of
  // them in a grade it lost, else the newest first until what it has
  // committed per instrument and per delivery day fits its nodes.
  void ApplyEligibilityChanges() {
    for (const EligibilityChange& ch : s_.changes) {
      if (ch.account.value >= s_.accounts.size() || ch.grade >= kMaxGrades) {
        continue;
      }
      RowOf(ch.account, ch.grade) = ch.row;
      Event& e = Base(EventType::kEligibilityChanged);
      e.account = ch.account;
      e.count = ch.grade;
      e.reason = static_cast<uint16_t>(ch.row.status);
      e.quantity = Quantity{ch.row.nodes};
    }
    for (std::size_t i = 0; i < s_.changes.size(); ++i) {
      const AccountId a = s_.changes[i].account;
      if (i > 0 && s_.changes[i - 1].account == a) continue;
      if (a.value >= s_.accounts.size()) continue;
      EnforceEligibility(a);
    }
    s_.changes.clear();
  }

  // The account's newest resting sell among the spot instruments that
  // `match(book id)` accepts; 0 when none.
  template <typename Match>
  uint32_t NewestSell(AccountId a, Match match) {
    for (uint32_t k = s_.accounts[a.value].tail; k != 0;
         k = s_.orders[k].account_prev) {
      const Order& o = s_.orders[k];
      if (o.side == Side::kSell && match(o.instrument.value)) return k;
    }
    return 0;
  }

  void CancelLost(uint32_t k) {
    CancelResting(s_.books[s_.orders[k].instrument.value], k,
                  EventType::kOrderCancelled,
                  CancelReason::kGradeEligibilityLost);
  }

  void EnforceEligibility(AccountId a) {
    for (uint32_t id : s_.spot_books) {
      Book& b = s_.books[id];
      if (b.state == InstrumentState::kNone ||
          b.state == InstrumentState::kExpired) {
        continue;
      }
      const EligibilityRow& r = RowOf(a, b.config.grade);
      auto here = [id](uint32_t inst) { return inst == id; };
      while (
          Row(a, InstrumentId{id}).open_sell > 0 &&
          (r.status != Eligibility::kEligible || Committed(a, id) > r.nodes)) {
        const uint32_t k = NewestSell(a, here);
        if (k == 0) break;
        CancelLost(k);
      }
    }
    const int64_t max_nodes = MaxNodes(a);
    for (uint32_t id : s_.spot_books) {
      const Book& b = s_.books[id];
      if (b.state == InstrumentState::kNone ||
          b.state == InstrumentState::kExpired) {
        continue;
      }
      const int64_t day = b.delivery_day;
      auto same_day = [this, day](uint32_t inst) {
        const Book& x = s_.books[inst];
        return x.config.kind == InstrumentKind::kSpot &&
               x.delivery_day == day && x.state != InstrumentState::kNone;
      };
      while (CommittedOnDay(a, day) > max_nodes) {
        const uint32_t k = NewestSell(a, same_day);
        if (k == 0) break;
        CancelLost(k);
      }
    }
  }
  void EndOfSession();

  // Rests a taker's remainder, or cancels it per its time in force.
  void Finish(Book& b, Taker& t, InstrumentId inst, OrderType type,
              TimeInForce tif);

  EngineState& s_;
};

void Apply::Run(const Command& cmd, EventSink& out) {
  s_.out = &out;
  s_.cmd = &cmd;
  if (cmd.seq <= s_.last_seq) {
    Reject(RejectCode::kSequenceOutOfOrder);
    return;
  }
  s_.last_seq = cmd.seq;
  if (++s_.epoch == 0) {
    for (Book& b : s_.books) {
      if (!b.listed) continue;
      for (uint32_t i = 0; i <= b.bids->size(); ++i)
        b.bids->at(i).touched_epoch = 0;
      for (uint32_t i = 0; i <= b.asks->size(); ++i)
        b.asks->at(i).touched_epoch = 0;
    }
    s_.epoch = 1;
  }
  const uint32_t expired = ExpireDue();
  if (s_.next_reference_change != 0 &&
      cmd.ts.nanos >= s_.next_reference_change) {
    AdvanceReference();
  }
  switch (cmd.type) {
    case CommandType::kNewOrder:
      NewOrder();
      break;
    case CommandType::kCancel:
      Cancel();
      break;
    case CommandType::kReplace:
      Replace();
      break;
    case CommandType::kMassCancel:
      MassCancel();
      break;
    case CommandType::kSetInstrumentState:
      SetState();
      break;
    case CommandType::kSetReferencePrice:
      SetReferencePrice();
      break;
    case CommandType::kEndOfSession:
      EndOfSession();
      break;
    case CommandType::kListInstrument:
      ListInstrument();
      break;
    case CommandType::kReferenceData:
      ReferenceData();
      break;
    case CommandType::kReportFailure:
      ReportFailure();
      break;
    case CommandType::kIndexFixing:
      IndexFixing();
      break;
    case CommandType::kCollateral:
      Collateral();
      break;
    case CommandType::kSettlementRerun:
      SettlementRerun();
      break;
    case CommandType::kTimer: {
      Event& e = Base(EventType::kTimerDone);
      e.count = expired;
      break;
    }
    case CommandType::kNone:
    default:
      Reject(RejectCode::kUnknownCommand);
      break;
  }
  EmitBookLevels();
}

void Apply::NewOrder() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  if (c.side != Side::kBuy && c.side != Side::kSell) {
    return Reject(RejectCode::kInvalidSide);
  }
  if (c.order_type != OrderType::kLimit && c.order_type != OrderType::kMarket) {
    return Reject(RejectCode::kInvalidOrderType);
  }
  if (c.tif == TimeInForce::kNone ||
      static_cast<uint8_t>(c.tif) > static_cast<uint8_t>(TimeInForce::kGtd)) {
    return Reject(RejectCode::kInvalidTimeInForce);
  }
  if (static_cast<uint8_t>(c.stp) > static_cast<uint8_t>(StpMode::kDecrement)) {
    return Reject(RejectCode::kInvalidStpMode);
  }
  if ((c.flags & ~kKnownFlags) != 0) return Reject(RejectCode::kInvalidFlags);
  // A resent order is answered DUPLICATE whatever has changed since the
  // original (state, band, position), so this comes before those checks.
  const bool has_client_order_id = c.client_order_id.value != 0;
  internal::ClientOrderIdSet::Probe client_order_id_slot;
  if (has_client_order_id) {
    client_order_id_slot =
        s_.client_order_ids.Find(c.account.value, c.client_order_id.value);
    if (client_order_id_slot.found) {
      return Reject(RejectCode::kDuplicateClientOrderId);
    }
  }
  if (b.state == InstrumentState::kExpired) {
    return Reject(RejectCode::kInstrumentExpired);
  }
  if (b.state != InstrumentState::kOpen) {
    return Reject(RejectCode::kInstrumentNotOpen);
  }
  if (c.quantity < b.config.min_quantity) {
    return Reject(RejectCode::kQuantityBelowMinimum);
  }
  if (c.quantity > b.config.max_quantity) {
    return Reject(RejectCode::kQuantityAboveMaximum);
  }
  const bool market = c.order_type == OrderType::kMarket;
  if (market) {
    if (c.tif != TimeInForce::kIoc && c.tif != TimeInForce::kFok) {
      return Reject(RejectCode::kMarketOrderNeedsIocOrFok);
    }
  } else if (RejectCode r = CheckLimitPrice(b, c.price);
             r != RejectCode::kNone) {
    return Reject(r);
  }
  const bool can_rest =
      !market && c.tif != TimeInForce::kIoc && c.tif != TimeInForce::kFok;
  const bool post_only = (c.flags & kFlagPostOnly) != 0;
  if (post_only && !can_rest) return Reject(RejectCode::kPostOnlyNotAllowed);
  if (c.tif == TimeInForce::kGtd) {
    if (c.expire_time().nanos == 0)
      return Reject(RejectCode::kMissingExpireTime);
    if (c.expire_time() <= c.ts) return Reject(RejectCode::kExpireTimeInPast);
  }
  const Price limit =
      market ? (IsBuy(c.side) ? b.buy_protect : b.sell_protect) : c.price;
  if (!market) {
    if (RejectCode r = CheckBand(b, c.side, c.price); r != RejectCode::kNone) {
      return Reject(r);
    }
  }
  if (RejectCode r = CheckNotional(b, limit, c.quantity);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckPositionLimit(b, c.account, c.instrument, c.side,
                                        c.quantity.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r =
          CheckMargin(b, c.account, c.instrument, c.side, c.quantity.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  uint32_t detail = 0;
  if (CheckGradeEligibility(b, c.account, c.side, c.quantity.lots, &detail) !=
      RejectCode::kNone) {
    return RejectNotEligible(detail);
  }
  if (!SpotTradeRoom(b, c.quantity.lots)) {
    return Reject(RejectCode::kSystemBusy);
  }
  if (post_only && WouldCross(b, c.side, c.price)) {
    return Reject(RejectCode::kPostOnlyWouldCross);
  }
  if (can_rest && s_.free_head == 0) return Reject(RejectCode::kOrderBookFull);
  if (has_client_order_id) {
    if (s_.client_order_ids.full()) {
      return Reject(RejectCode::kClientOrderIdLimit);
    }
    s_.client_order_ids.Insert(client_order_id_slot, c.account.value,
                               c.client_order_id.value);
  }

  Taker t;
  t.id = OrderId{s_.next_order_id++};
  t.client_order_id = c.client_order_id;
  t.account = c.account;
  t.side = c.side;
  t.limit = limit;
  t.event_price = market ? Price{0} : c.price;
  t.leaves = c.quantity;
  t.stp = c.stp == StpMode::kAccountDefault ? s_.accounts[c.account.value].stp
                                            : c.stp;
  Event& accepted = TakerEvent(EventType::kOrderAccepted, t, c.instrument);
  accepted.quantity = c.quantity;
  accepted.order_type = c.order_type;
  accepted.tif = c.tif;

  if (c.tif == TimeInForce::kFok && !FokFillable(b, t)) {
    CancelTaker(t, c.instrument, CancelReason::kFokNotFilled, t.leaves.lots);
    return;
  }
  Match(b, t, c.instrument);
  Finish(b, t, c.instrument, c.order_type, c.tif);
}

void Apply::Finish(Book& b, Taker& t, InstrumentId inst, OrderType type,
                   TimeInForce tif) {
  const Command& c = *s_.cmd;
  if (t.cancelled || t.leaves.lots == 0) {
    if (t.slot != 0) Free(t.slot);
    return;
  }
  if (type == OrderType::kMarket) {
    const bool blocked = IsBuy(t.side) ? b.best_ask != 0 : b.best_bid != 0;
    CancelTaker(
        t, inst,
        blocked ? CancelReason::kMarketProtection : CancelReason::kIocRemainder,
        t.leaves.lots);
    return;
  }
  if (tif == TimeInForce::kIoc || tif == TimeInForce::kFok) {
    CancelTaker(t, inst, CancelReason::kIocRemainder, t.leaves.lots);
    return;
  }
  uint32_t k = t.slot;
  if (k == 0) {
    k = AllocSlot();
    Order& o = s_.orders[k];
    o.id = t.id;
    o.client_order_id = t.client_order_id;
    o.price = t.limit;
    o.quantity = c.quantity;
    o.leaves = t.leaves;
    o.filled = t.filled;
    o.expire_time = tif == TimeInForce::kGtd ? c.expire_time() : Timestamp{};
    o.account = t.account;
    o.instrument = inst;
    o.side = t.side;
    o.tif = tif;
    o.stp = t.stp;
    o.flags = c.flags;
    Register(k);
  } else {
    Order& o = s_.orders[k];
    o.leaves = t.leaves;
    o.filled = t.filled;
  }
  Rest(b, k);
}

void Apply::Cancel() {
  const Command& c = *s_.cmd;
  const uint32_t k = s_.index.Find(c.order_id().value);
  if (k == 0 || s_.orders[k].account != c.account) {
    return Reject(RejectCode::kUnknownOrder);
  }
  Book& b = s_.books[s_.orders[k].instrument.value];
  CancelResting(b, k, EventType::kCancelAccepted, CancelReason::kUserRequest);
}

void Apply::Replace() {
  const Command& c = *s_.cmd;
  const uint32_t k = s_.index.Find(c.order_id().value);
  if (k == 0 || s_.orders[k].account != c.account) {
    return Reject(RejectCode::kUnknownOrder);
  }
  Order& o = s_.orders[k];
  Book& b = s_.books[o.instrument.value];
  if (b.state != InstrumentState::kOpen) {
    return Reject(RejectCode::kInstrumentNotOpen);
  }
  if (c.quantity < b.config.min_quantity) {
    return Reject(RejectCode::kQuantityBelowMinimum);
  }
  if (c.quantity > b.config.max_quantity) {
    return Reject(RejectCode::kQuantityAboveMaximum);
  }
  if (c.quantity <= o.filled) {
    return Reject(RejectCode::kReplaceQuantityNotAboveFilled);
  }
  if (RejectCode r = CheckLimitPrice(b, c.price); r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckBand(b, o.side, c.price); r != RejectCode::kNone) {
    return Reject(r);
  }
  if (c.price == o.price && c.quantity == o.quantity) {
    return Reject(RejectCode::kReplaceNoChange);
  }
  const int64_t new_leaves = c.quantity.lots - o.filled.lots;
  if (RejectCode r = CheckPositionLimit(b, o.account, o.instrument, o.side,
                                        new_leaves - o.leaves.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckMargin(b, o.account, o.instrument, o.side,
                                 new_leaves - o.leaves.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  uint32_t detail = 0;
  if (CheckGradeEligibility(b, o.account, o.side, new_leaves - o.leaves.lots,
                            &detail) != RejectCode::kNone) {
    return RejectNotEligible(detail);
  }
  if (!SpotTradeRoom(b, new_leaves)) return Reject(RejectCode::kSystemBusy);
  const bool price_changed = c.price != o.price;
  if ((o.flags & kFlagPostOnly) != 0 && price_changed &&
      WouldCross(b, o.side, c.price)) {
    return Reject(RejectCode::kPostOnlyWouldCross);
  }

  if (!price_changed && new_leaves <= o.leaves.lots) {
    // Quantity down at the same price: keeps its place in the queue.
    Reduce(b, k, o.leaves.lots - new_leaves);
    o.quantity = c.quantity;
    o.client_order_id = c.client_order_id;
    OrderEvent(EventType::kOrderReplaced, o);
    return;
  }
  // Loses priority: leave the level, match if it now crosses, rest again.
  Unrest(b, k);
  o.price = c.price;
  o.quantity = c.quantity;
  o.leaves = Quantity{new_leaves};
  o.client_order_id = c.client_order_id;
  OrderEvent(EventType::kOrderReplaced, o);
  Taker t;
  t.slot = k;
  t.id = o.id;
  t.client_order_id = o.client_order_id;
  t.account = o.account;
  t.side = o.side;
  t.limit = o.price;
  t.event_price = o.price;
  t.leaves = o.leaves;
  t.filled = o.filled;
  t.stp = o.stp;
  const InstrumentId inst = o.instrument;
  Match(b, t, inst);
  Finish(b, t, inst, OrderType::kLimit, o.tif);
}

void Apply::MassCancel() {
  const Command& c = *s_.cmd;
  if (c.instrument.value != 0 && FindBook(c.instrument) == nullptr) {
    return Reject(RejectCode::kUnknownInstrument);
  }
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  uint32_t n = 0;
  uint32_t k = s_.accounts[c.account.value].head;
  while (k != 0) {
    const uint32_t next = s_.orders[k].account_next;
    const InstrumentId inst = s_.orders[k].instrument;
    if (c.instrument.value == 0 || inst == c.instrument) {
      CancelResting(s_.books[inst.value], k, EventType::kOrderCancelled,
                    CancelReason::kMassCancel);
      ++n;
    }
    k = next;
  }
  Event& e = Base(EventType::kMassCancelDone);
  e.account = c.account;
  e.instrument = c.instrument;
  e.client_order_id = c.client_order_id;
  e.count = n;
}

void Apply::SetState() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  if (c.state == InstrumentState::kNone ||
      static_cast<uint8_t>(c.state) >
          static_cast<uint8_t>(InstrumentState::kExpired)) {
    return Reject(RejectCode::kInvalidInstrumentState);
  }
  if (b.state == InstrumentState::kExpired || c.state == b.state) {
    return Reject(RejectCode::kInvalidStateTransition);
  }
  b.state = c.state;
  Event& e = Base(EventType::kInstrumentStateChanged);
  e.instrument = c.instrument;
  e.state = c.state;
  if (c.state != InstrumentState::kClosed &&
      c.state != InstrumentState::kExpired) {
    return;
  }
  const bool all = c.state == InstrumentState::kExpired;
  ExpireOrders(
      b, all ? CancelReason::kInstrumentExpired : CancelReason::kExpired, all);
}

void Apply::EndOfSession() {
  const Command& c = *s_.cmd;
  if (c.instrument.value != 0 && FindBook(c.instrument) == nullptr) {
    return Reject(RejectCode::kUnknownInstrument);
  }
  uint32_t n = 0;
  for (uint32_t id = 1; id < s_.books.size(); ++id) {
    Book& b = s_.books[id];
    if (!b.listed || (c.instrument.value != 0 && id != c.instrument.value)) {
      continue;
    }
    n += ExpireOrders(b, CancelReason::kExpired, /*all=*/false);
  }
  // The trading day ends: client order ids may be used again.
  if (c.instrument.value == 0) s_.client_order_ids.Clear();
  Event& e = Base(EventType::kSessionEnded);
  e.instrument = c.instrument;
  e.count = n;
}

void Apply::SetReferencePrice() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  if (c.price.units <= 0 || c.price > bp->config.max_price) {
    return Reject(RejectCode::kInvalidReferencePrice);
  }
  SetReference(*bp, c.price);
  Event& e = Base(EventType::kReferencePriceSet);
  e.instrument = c.instrument;
  e.price = c.price;
}

void Apply::ListInstrument() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  // Only a spot slot is listed by command, and only when it holds no live
  // instrument: never listed, or expired (every order already gone).
  if (b.config.kind != InstrumentKind::kSpot ||
      b.config.initial_state != InstrumentState::kNone ||
      (b.state != InstrumentState::kNone &&
       b.state != InstrumentState::kExpired)) {
    return Reject(RejectCode::kInvalidListing);
  }
  // 9999-12-31 is day 2,932,896.
  const auto day = static_cast<int64_t>(c.target);
  if (day <= 0 || day > 2'932'896) return Reject(RejectCode::kInvalidListing);
  // Price 0: the slot's reference, the configured initial reference until
  // the grade's index fixes, then the latest fixing (DESIGN.md §2), which
  // is on $0.001, not necessarily on the tick. A price given is on the tick.
  const Price ref = c.price.units == 0 ? b.reference : c.price;
  if (ref.units <= 0 || ref > b.config.max_price ||
      (c.price.units != 0 && ref.units % b.config.tick.units != 0)) {
    return Reject(RejectCode::kInvalidReferencePrice);
  }
  // A new instrument in the slot: nothing of the previous one remains. Its
  // trades leave the table: their delivery day, and with it the failure
  // deadline, has passed (the calendar lists a slot again only for a later
  // day than the one it held).
  for (uint32_t a = 0; a < s_.accounts.size(); ++a) {
    Row(AccountId{a}, c.instrument) = PositionRow{};
  }
  std::erase_if(s_.spot_trades, [&](const internal::SpotTrade& t) {
    return t.instrument == c.instrument.value;
  });
  b.delivery_day = day;
  b.state = InstrumentState::kOpen;
  SetReference(b, ref);
  Event& e = Base(EventType::kInstrumentListed);
  e.instrument = c.instrument;
  e.state = b.state;
  e.price = ref;
  e.count = static_cast<uint32_t>(day);
}

void Apply::ReportFailure() {
  const Command& c = *s_.cmd;
  const uint64_t id = c.target;
  auto it = std::lower_bound(
      s_.spot_trades.begin(), s_.spot_trades.end(), id,
      [](const internal::SpotTrade& t, uint64_t v) { return t.trade_id < v; });
  // Another firm's trade answers as one that does not exist.
  if (it == s_.spot_trades.end() || it->trade_id != id ||
      (it->buyer != c.account.value && it->seller != c.account.value)) {
    return Reject(RejectCode::kUnknownTrade);
  }
  if (it->busted != 0) return Reject(RejectCode::kTradeAlreadyBusted);
  constexpr int64_t kDay = 86'400'000'000'000;
  if (c.ts.nanos >= it->day * kDay + s_.spot_failure_deadline_ns) {
    return Reject(RejectCode::kFailureDeadlinePassed);
  }
  it->busted = 1;
  Event& e = Base(EventType::kTradeBusted);
  e.trade_id = TradeId{it->trade_id};
  e.instrument = InstrumentId{it->instrument};
  e.price = Price{it->price};
  e.quantity = Quantity{it->quantity};
  e.account = AccountId{it->buyer};
  e.counter_account = AccountId{it->seller};
  e.side = it->buyer == c.account.value ? Side::kBuy : Side::kSell;
  e.client_order_id = c.client_order_id;
  e.count = static_cast<uint32_t>(it->day);
}

void Apply::IndexFixing() {
  const Command& c = *s_.cmd;
  const uint64_t day = c.target;
  if (day == 0 || day > 2'932'896) {
    return Reject(RejectCode::kInvalidFixingDay);
  }
  Event& e = Base(EventType::kIndexFixing);
  e.count = static_cast<uint32_t>(day);
}

void Apply::SettlementRerun() {
  const Command& c = *s_.cmd;
  // 9999-12-31 is day 2,932,896.
  if (c.target == 0 || c.target > 2'932'896) {
    return Reject(RejectCode::kInvalidSettlementDate);
  }
  Event& e = Base(EventType::kSettlementRerun);
  e.count = static_cast<uint32_t>(c.target);
  e.client_order_id = c.client_order_id;
}

void Apply::Collateral() {
  const Command& c = *s_.cmd;
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  const int64_t amount = c.quantity.lots;
  if (amount == 0) return Reject(RejectCode::kInvalidAmount);
  // 9999-12-31 is day 2,932,896.
  if (c.target > 2'932'896) return Reject(RejectCode::kInvalidSettlementDate);
  const auto date = static_cast<int64_t>(c.target);
  internal::AccountRow& a = s_.accounts[c.account.value];
  if (date != 0 && date <= a.settled_date) {
    return Reject(RejectCode::kAlreadySettled);
  }
  int64_t after = 0;
  if (__builtin_add_overflow(a.collateral, amount, &after)) {
    return Reject(RejectCode::kInvalidAmount);
  }
  // A member's withdrawal must leave what the account's positions and open
  // orders need; a settlement booking always applies (below zero: a margin
  // call, and risk-adding orders fail the pre-trade check).
  if (date == 0 && amount < 0) {
    const int64_t required = MarginRequirement(c.account);
    if (after < 0 || required < 0 || after < required) {
      return Reject(RejectCode::kInsufficientMargin);
    }
  }
  a.collateral = after;
  if (date != 0) a.settled_date = date;
  Event& e = Base(EventType::kCollateralChanged);
  e.account = c.account;
  e.quantity = Quantity{amount};
  e.leaves = Quantity{after};
  e.count = static_cast<uint32_t>(date);
  e.client_order_id = c.client_order_id;
}

void Apply::ReferenceData() {
  const Command& c = *s_.cmd;
  s_.changes.clear();
  const RejectCode r = s_.registry->Apply(s_.payload, c.ts, &s_.changes);
  s_.next_reference_change = s_.registry->next_change().nanos;
  if (r != RejectCode::kNone) {
    s_.changes.clear();
    return Reject(r);
  }
  Event& e = Base(EventType::kReferenceAccepted);
  e.account = c.account;
  e.client_order_id = c.client_order_id;
  ApplyEligibilityChanges();
}

}  // namespace

namespace internal {

uint32_t RestoreAlloc(EngineState& s) { return Apply(s).RestoreAlloc(); }

void RestoreRest(EngineState& s, uint32_t k) { Apply(s).RestoreRest(k); }

void RestoreRegister(EngineState& s, uint32_t k) {
  Apply(s).RestoreRegister(k);
}

}  // namespace internal

Result<std::unique_ptr<Engine>> Engine::Create(const EngineConfig& config) {
  CFX_RETURN_IF_ERROR(ValidateEngineConfig(config));
  auto s = std::make_unique<EngineState>(config);
  const EngineLimits& l = config.limits;
  s->books.resize(l.max_instruments);
  uint64_t total_levels = 0;
  for (const InstrumentConfig& ic : config.instruments) {
    Book& b = s->books[ic.id.value];
    b.config = ic;
    b.listed = true;
    b.state = ic.initial_state;
    const auto levels =
        static_cast<uint32_t>(ic.max_price.units / ic.tick.units);
    b.bids = std::make_unique<PriceLadder>(levels);
    b.asks = std::make_unique<PriceLadder>(levels);
    total_levels += 2ull * (levels + 1);
    SetReference(b, ic.reference_price);
  }
  s->accounts.resize(l.max_accounts);
  for (const AccountConfig& a : config.accounts) {
    s->accounts[a.id.value].configured = true;
    s->accounts[a.id.value].stp = a.stp;
    s->accounts[a.id.value].collateral = a.collateral.micros;
  }
  s->positions.resize(static_cast<std::size_t>(l.max_accounts) *
                      l.max_instruments);
  if (!s->client_order_ids.ok()) {
    return Status(StatusCode::kResourceExhausted,
                  "engine: cannot allocate the client order id table for " +
                      std::to_string(l.max_client_order_ids) + " ids");
  }
  s->orders = internal::AllocateLarge<Order>(l.max_orders + 1);
  // Free list in ascending slot order.
  for (uint32_t k = l.max_orders; k >= 1; --k) {
    s->orders[k].next = s->free_head;
    s->free_head = k;
  }
  s->heap.reset(new uint32_t[l.max_orders + 1]());
  s->spot_trades.reserve(l.max_spot_trades);
  s->spot_failure_deadline_ns = config.spot_failure_deadline_ns;
  s->registry = std::make_unique<Registry>(config.reference);
  s->empty_registry_hash = s->registry->Hash();
  s->next_reference_change = s->registry->next_change().nanos;
  s->eligibility.assign(static_cast<std::size_t>(l.max_accounts) * kMaxGrades,
                        EligibilityRow{});
  s->eligibility_required = !config.reference.grades.empty();
  s->grades = static_cast<uint32_t>(config.reference.grades.size());
  for (const InstrumentConfig& ic : config.instruments) {
    if (ic.kind == InstrumentKind::kSpot) s->spot_books.push_back(ic.id.value);
  }
  std::sort(s->spot_books.begin(), s->spot_books.end());
  for (const InstrumentConfig& ic : config.instruments) {
    if (ic.margin_group != 0) s->margined_books.push_back(ic.id.value);
  }
  std::sort(s->margined_books.begin(), s->margined_books.end());
  s->margin = config.margin;
  s->touched.reset(new internal::Touched[total_levels + 1]);
  return std::unique_ptr<Engine>(new Engine(std::move(s)));
}

Engine::Engine(std::unique_ptr<internal::EngineState> state)
    : s_(std::move(state)) {}

Engine::~Engine() = default;

void Engine::Apply(const Command& cmd, EventSink& out) noexcept {
  class Apply a(*s_);
  a.Run(cmd, out);
}

void Engine::Apply(const Command& cmd, std::string_view payload,
                   EventSink& out) noexcept {
  s_->payload = payload;
  class Apply a(*s_);
  a.Run(cmd, out);
  s_->payload = {};
}

namespace {

bool TargetsOrder(const Command& c) {
  return c.type == CommandType::kCancel || c.type == CommandType::kReplace;
}

// How many commands ahead a new order's client order id slot is
// prefetched: further than the stages below, because the table is far
// larger than the caches (128 MiB at the default size), so a lookup misses
// the caches and mostly the TLB too. 3 to 10 measured alike with `cfx-bench
// engine --workload standard` (53 % new orders); without the prefetch the
// run took twice as long.
constexpr std::size_t kClientOrderIdAhead = 8;

// The client order id slot of a new order. Forced inline: GCC 12's IPA
// finds a void function whose only effect is __builtin_prefetch "pure" and
// deletes the calls. It does the same to PrefetchOrder() and
// PrefetchNeighbours() below, which are compiled out today; forcing them
// inline made `cfx-bench engine` deep 1.5x faster and standard 35 % slower,
// a trade-off left to its own change.
[[gnu::always_inline]] inline void PrefetchClientOrderId(const EngineState& s,
                                                         const Command& c) {
  if (c.type == CommandType::kNewOrder && c.client_order_id.value != 0) {
    s.client_order_ids.Prefetch(c.account.value, c.client_order_id.value);
  }
}

// Stage 1 of the prefetch pipeline: the index entry of the target order.
void PrefetchIndex(const EngineState& s, const Command& c) {
  if (TargetsOrder(c)) s.index.Prefetch(c.target);
}

// Stage 2: the target order itself (its index entry is in cache by now).
void PrefetchOrder(const EngineState& s, const Command& c) {
  if (!TargetsOrder(c)) return;
  const uint32_t k = s.index.Find(c.target);
  if (k == 0) return;
  const char* p = reinterpret_cast<const char*>(&s.orders[k]);
  __builtin_prefetch(p);
  __builtin_prefetch(p + sizeof(Order) - 1);
}

// Stage 3: what applying the command will unlink or append to: the target
// order's queue and account-list neighbours, or for a new order the tail
// of its price level and of its account's list.
void PrefetchNeighbours(const EngineState& s, const Command& c) {
  if (TargetsOrder(c)) {
    const uint32_t k = s.index.Find(c.target);
    if (k == 0) return;
    const Order& o = s.orders[k];
    __builtin_prefetch(&s.orders[o.prev]);
    __builtin_prefetch(&s.orders[o.next]);
    __builtin_prefetch(&s.orders[o.account_prev]);
    __builtin_prefetch(&s.orders[o.account_next]);
    return;
  }
  if (c.type != CommandType::kNewOrder) return;
  if (c.account.value != 0 && c.account.value < s.accounts.size()) {
    __builtin_prefetch(&s.orders[s.accounts[c.account.value].tail]);
  }
  if (c.instrument.value == 0 || c.instrument.value >= s.books.size()) return;
  const Book& b = s.books[c.instrument.value];
  if (!b.listed || (c.side != Side::kBuy && c.side != Side::kSell) ||
      c.price.units <= 0 || c.price > b.config.max_price) {
    return;
  }
  const auto i = static_cast<uint32_t>(c.price.units / b.config.tick.units);
  __builtin_prefetch(&s.orders[b.ladder(c.side).at(i).tail]);
}

}  // namespace

void Engine::ApplyBatch(const Command* cmds, std::size_t n,
                        EventSink& out) noexcept {
  class Apply a(*s_);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kClientOrderIdAhead < n) {
      PrefetchClientOrderId(*s_, cmds[i + kClientOrderIdAhead]);
    }
    if (i + 3 < n) PrefetchIndex(*s_, cmds[i + 3]);
    if (i + 2 < n) PrefetchOrder(*s_, cmds[i + 2]);
    if (i + 1 < n) PrefetchNeighbours(*s_, cmds[i + 1]);
    a.Run(cmds[i], out);
  }
}

Seq Engine::last_seq() const noexcept { return s_->last_seq; }

std::size_t Engine::resting_orders() const noexcept { return s_->resting; }

Price Engine::best_price(InstrumentId instrument, Side side) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return {};
  const Book& b = s_->books[instrument.value];
  if (!b.listed) return {};
  const uint32_t i = side == Side::kBuy ? b.best_bid : b.best_ask;
  return Price{static_cast<int64_t>(i) * b.config.tick.units};
}

Quantity Engine::level_quantity(InstrumentId instrument, Side side,
                                Price price) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return {};
  const Book& b = s_->books[instrument.value];
  if (!b.listed || price.units <= 0 || price.units % b.config.tick.units != 0 ||
      price > b.config.max_price) {
    return {};
  }
  const auto i = static_cast<uint32_t>(price.units / b.config.tick.units);
  return Quantity{b.ladder(side).at(i).lots};
}

int64_t Engine::position(AccountId account,
                         InstrumentId instrument) const noexcept {
  if (account.value >= s_->accounts.size() ||
      instrument.value >= s_->limits.max_instruments) {
    return 0;
  }
  return s_
      ->positions[static_cast<std::size_t>(account.value) *
                      s_->limits.max_instruments +
                  instrument.value]
      .position;
}

Timestamp Engine::next_expiry() const noexcept {
  int64_t t = s_->next_reference_change;
  if (s_->heap_size != 0) {
    const int64_t gtd = s_->orders[s_->heap[1]].expire_time.nanos;
    if (t == 0 || gtd < t) t = gtd;
  }
  return Timestamp{t};
}

int64_t Engine::delivery_day(InstrumentId instrument) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return 0;
  return s_->books[instrument.value].delivery_day;
}

EligibilityRow Engine::eligibility(AccountId account,
                                   uint32_t grade) const noexcept {
  if (account.value >= s_->accounts.size() || grade >= kMaxGrades) return {};
  return s_->eligibility[static_cast<std::size_t>(account.value) * kMaxGrades +
                         grade];
}

const Registry& Engine::registry() const noexcept { return *s_->registry; }

Amount Engine::collateral(AccountId account) const noexcept {
  if (account.value >= s_->accounts.size()) return {};
  return Amount{s_->accounts[account.value].collateral};
}

int64_t Engine::settled_date(AccountId account) const noexcept {
  if (account.value >= s_->accounts.size()) return 0;
  return s_->accounts[account.value].settled_date;
}

InstrumentState Engine::state(InstrumentId instrument) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) {
    return InstrumentState::kNone;
  }
  return s_->books[instrument.value].state;
}

}  // namespace cfx::exchange
