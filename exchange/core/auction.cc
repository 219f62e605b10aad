// Pre-open and the opening auction (docs/matching.md, "Pre-open and the
// opening auction"): the opening price of a crossed book, the uncross at
// that price, scheduled opens and the indicative opening published during a
// pre-open. Cold next to matching: it runs once per open and after the
// commands that change a PRE_OPEN book.
//
// Thread: the matching thread. Memory: never allocates.

#include <algorithm>
#include <cstdint>

#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/order_pool.h"

namespace cfx::exchange {
namespace internal {

namespace {

// The price in [lo, hi] (price units, both on the tick) nearest `ref`; the
// lower one when two are equally near.
int64_t NearestInRange(int64_t lo, int64_t hi, int64_t tick, int64_t ref) {
  if (ref <= lo) return lo;
  if (ref >= hi) return hi;
  const int64_t below = ref / tick * tick;
  if (below == ref) return ref;
  const int64_t above = below + tick;
  return ref - below <= above - ref ? below : above;
}

}  // namespace

// Sweeps the crossed range [best ask, best bid] once, upwards. Between two
// consecutive break points (an ask level, where the asks at or below the
// price grow; the price above a bid level, where the bids at or above it
// shrink) both volumes are constant, so each such segment is one candidate:
// its executable lots and imbalance, and its price nearest the reference.
Apply::Uncross Apply::FindUncross(const Book& b) const {
  const PriceLadder& bids = *b.bids;
  const PriceLadder& asks = *b.asks;
  const uint32_t low = b.best_ask;
  const uint32_t high = b.best_bid;
  const int64_t tick = b.config.tick.units;
  int64_t buy = 0;  // bids at or above the segment
  for (uint32_t i = high; i != 0 && i >= low; i = bids.HighestBelow(i)) {
    buy += bids.at(i).lots;
  }
  int64_t sell = asks.at(low).lots;  // asks at or below the segment
  uint32_t next_ask = asks.LowestAbove(low);
  uint32_t next_bid = bids.at(low).count != 0 ? low : bids.LowestAbove(low);
  Uncross best;
  int64_t best_imbalance = 0;
  int64_t best_distance = 0;
  for (uint32_t from = low; from <= high;) {
    uint32_t to = high;
    if (next_ask != 0 && next_ask - 1 < to) to = next_ask - 1;
    if (next_bid != 0 && next_bid < to) to = next_bid;
    const int64_t lots = std::min(buy, sell);
    const int64_t imbalance = buy > sell ? buy - sell : sell - buy;
    const int64_t price = NearestInRange(from * tick, to * tick, tick,
                                         b.reference.units);
    const int64_t distance = price > b.reference.units
                                 ? price - b.reference.units
                                 : b.reference.units - price;
    if (best.level == 0 || lots > best.lots ||
        (lots == best.lots &&
         (imbalance < best_imbalance ||
          (imbalance == best_imbalance && distance < best_distance)))) {
      best.level = static_cast<uint32_t>(price / tick);
      best.lots = lots;
      best.buy_surplus = buy - lots;
      best.sell_surplus = sell - lots;
      best_imbalance = imbalance;
      best_distance = distance;
    }
    if (to == high) break;
    from = to + 1;
    if (next_bid == to) {
      buy -= bids.at(to).lots;
      next_bid = bids.LowestAbove(to);
    }
    if (next_ask == from) {
      sell += asks.at(from).lots;
      next_ask = asks.LowestAbove(from);
    }
  }
  return best;
}

// Best bid against best ask, each the first in time at its price, while
// both may trade at `level`; the newer of the two is the aggressor. Two
// orders of one account do not trade: the newer is cancelled.
int64_t Apply::UncrossAt(Book& b, InstrumentId inst, uint32_t level) {
  const Price price{static_cast<int64_t>(level) * b.config.tick.units};
  int64_t traded = 0;
  while (b.best_bid != 0 && b.best_ask != 0 && b.best_bid >= level &&
         b.best_ask <= level) {
    const uint32_t kb = b.bids->at(b.best_bid).head;
    const uint32_t ka = b.asks->at(b.best_ask).head;
    const bool bid_newer = s_.orders[kb].id > s_.orders[ka].id;
    const uint32_t kn = bid_newer ? kb : ka;
    const uint32_t ko = bid_newer ? ka : kb;
    Order& n = s_.orders[kn];
    Order& o = s_.orders[ko];
    if (n.account == o.account) {
      CancelResting(b, kn, EventType::kOrderCancelled,
                    CancelReason::kSelfTradePrevention);
      continue;
    }
    const int64_t q = std::min(n.leaves.lots, o.leaves.lots);
    Reduce(b, kb, q);  // the bid's level first, then the ask's
    Reduce(b, ka, q);
    n.filled.lots += q;
    o.filled.lots += q;
    Trade(b, inst, price, q, n.side, n.account, n.id, n.client_order_id,
          n.leaves, n.filled, o);
    traded += q;
    for (const uint32_t k : {ko, kn}) {
      if (s_.orders[k].leaves.lots == 0) {
        Unrest(b, k);
        FreeSlot(s_, k);
      }
    }
  }
  return traded;
}

void Apply::OpenBook(Book& b, InstrumentId inst) {
  b.open_at = 0;
  Price first{0};
  int64_t traded = 0;
  // One pass leaves the book uncrossed unless self-trade cancels changed
  // what could trade; each pass trades or cancels, so this ends.
  while (Crossed(b)) {
    const Uncross u = FindUncross(b);
    const int64_t lots = UncrossAt(b, inst, u.level);
    if (traded == 0 && lots != 0) {
      first = Price{static_cast<int64_t>(u.level) * b.config.tick.units};
    }
    traded += lots;
  }
  Event& e = Base(EventType::kInstrumentOpened);
  e.instrument = inst;
  e.state = InstrumentState::kOpen;
  e.price = first;
  e.quantity = Quantity{traded};
}

void Apply::OpenDue() {
  const int64_t now = s_.cmd->ts.nanos;
  for (;;) {
    uint32_t due = 0;
    for (uint32_t id = 1; id < s_.books.size(); ++id) {
      const Book& b = s_.books[id];
      if (!b.listed || b.state != InstrumentState::kPreOpen ||
          b.open_at == 0 || b.open_at > now) {
        continue;
      }
      if (due == 0 || b.open_at < s_.books[due].open_at) due = id;
    }
    if (due == 0) break;
    Book& b = s_.books[due];
    b.state = InstrumentState::kOpen;
    OpenBook(b, InstrumentId{due});
  }
  RefreshPreOpen(s_);
}

void Apply::PublishIndicative() {
  for (uint32_t id = 1; id < s_.books.size(); ++id) {
    Book& b = s_.books[id];
    if (!b.indicative_due) continue;
    b.indicative_due = false;
    if (b.state != InstrumentState::kPreOpen) continue;
    Event& e = Base(EventType::kIndicativeOpen);
    e.instrument = InstrumentId{id};
    if (!Crossed(b)) continue;
    const Uncross u = FindUncross(b);
    e.price = Price{static_cast<int64_t>(u.level) * b.config.tick.units};
    e.quantity = Quantity{u.lots};
    if (u.buy_surplus != 0) {
      e.side = Side::kBuy;
      e.leaves = Quantity{u.buy_surplus};
    } else if (u.sell_surplus != 0) {
      e.side = Side::kSell;
      e.leaves = Quantity{u.sell_surplus};
    }
  }
}

}  // namespace internal
}  // namespace cfx::exchange
