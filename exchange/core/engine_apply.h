// Internal to exchange_core: Apply, the handler of one command over the
// engine's state (EngineState). Its member functions are defined by concern:
// the book, the GTD heap, the pre-trade checks and the margin check inline
// here (they are on the matching path); the command handlers in engine.cc;
// the margin legs and the collateral command in risk.cc; the eligibility of
// spot sellers in eligibility.cc; the failure report of a spot trade in
// spot_trades.cc. Snapshot loading (snapshot.cc) rests orders through it.

#pragma once

#include <algorithm>
#include <cstdint>

#include "exchange/core/engine_state.h"
#include "exchange/core/margin.h"
#include "exchange/core/price_ladder.h"

namespace cfx::exchange {
namespace internal {

inline constexpr int64_t kMicrosPerPriceUnit =
    kMicrosPerUsd / kPriceUnitsPerUsd;

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
                        int64_t sell_extra, int64_t* buy, int64_t* sell);

  // Fills buy[] and sell[] with the margin legs of account `a` in its two
  // worst cases: a leg per margined instrument that is not expired and in
  // which `a` holds a position or open orders, or which is `inst`, at the
  // instrument's reference price (the last DSP, else the configured
  // initial reference). `inst` (0: none) gets `buy_extra` and `sell_extra`
  // more open lots; *at is the index of its leg. Returns the leg count, or
  // -1 when WorstLots() fails for a leg.
  int BuildLegs(AccountId a, uint32_t inst, int64_t buy_extra,
                int64_t sell_extra, MarginLeg* buy, MarginLeg* sell,
                std::size_t* at);

  int64_t WorstMargin(const MarginLeg* buy, const MarginLeg* sell, int n);

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
  int64_t MarginRequirement(AccountId a);

  bool WouldCross(const Book& b, Side side, Price p) const {
    return Crosses(b, side, p);
  }

  // ---- commands ----
  RejectCode CheckOrderFields(const Command& c) const;
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
  void AdvanceReference();
  EligibilityRow& RowOf(AccountId a, uint32_t grade) {
    return s_
        .eligibility[static_cast<std::size_t>(a.value) * kMaxGrades + grade];
  }

  // Lots `a` has committed in spot instrument `id`: resting sells plus lots
  // already sold (a negative position).
  int64_t Committed(AccountId a, uint32_t id);
  // The account's committed lots over every grade's instrument of one
  // delivery day, and the most nodes any grade lets it sell.
  int64_t CommittedOnDay(AccountId a, int64_t day);
  int64_t MaxNodes(AccountId a);
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
    return CheckSpotSellEligibility(b, a, extra, detail);
  }
  RejectCode CheckSpotSellEligibility(const Book& b, AccountId a, int64_t extra,
                                      uint32_t* detail);

  void RejectNotEligible(uint32_t detail);
  // Stores the changed rows, tells about each, and cancels the resting spot
  // sells the account may no longer keep (GRADE_ELIGIBILITY_LOST): all of
  // them in a grade it lost, else the newest first until what it has
  // committed per instrument and per delivery day fits its nodes.
  void ApplyEligibilityChanges();
  // The account's newest resting sell among the spot instruments that
  // `match(book id)` accepts; 0 when none.
  template <typename Accepts>
  uint32_t NewestSell(AccountId a, Accepts match);
  void CancelLost(uint32_t k);
  void EnforceEligibility(AccountId a);
  void EndOfSession();

  // Rests a taker's remainder, or cancels it per its time in force.
  void Finish(Book& b, Taker& t, InstrumentId inst, OrderType type,
              TimeInForce tif);

  EngineState& s_;
};

}  // namespace internal
}  // namespace cfx::exchange
