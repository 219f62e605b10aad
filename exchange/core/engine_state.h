// Internal to exchange_core: the state an Engine owns (books, order pool,
// accounts, positions, spot trades) and the small helpers every part of the
// engine shares. Not part of the public API; included by the engine's .cc
// files only.

#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "exchange/core/engine.h"
#include "exchange/core/large_array.h"
#include "exchange/core/margin.h"
#include "exchange/core/order_index.h"
#include "exchange/core/price_ladder.h"
#include "exchange/core/reference/registry.h"

namespace cfx::exchange {
namespace internal {

// A resting order in the shared pool. Slot 0 is the null slot.
struct Order {
  OrderId id;
  ClientOrderId client_order_id;
  Price price;
  Quantity quantity;  // total order quantity, filled included
  Quantity leaves;
  Quantity filled;
  Timestamp expire_time;  // GTD only
  AccountId account;
  InstrumentId instrument;
  uint32_t prev = 0;  // level FIFO
  uint32_t next = 0;  // level FIFO; free-list link while free
  uint32_t account_prev = 0;
  uint32_t account_next = 0;
  uint32_t heap_pos = 0;  // 1-based position in the GTD heap; 0 = none
  Side side = Side::kNone;
  TimeInForce tif = TimeInForce::kNone;
  StpMode stp = StpMode::kCancelNewest;  // resolved at entry
  uint8_t flags = 0;
};

struct Book {
  InstrumentConfig config;
  bool listed = false;
  InstrumentState state = InstrumentState::kNone;
  Price reference;
  Price band_high;     // highest accepted buy limit
  Price band_low;      // lowest accepted sell limit
  Price buy_protect;   // market buy limit
  Price sell_protect;  // market sell limit
  std::unique_ptr<PriceLadder> bids;
  std::unique_ptr<PriceLadder> asks;
  uint32_t best_bid = 0;  // level index, 0 = empty
  uint32_t best_ask = 0;
  // Spot: the delivery day (days since 1970-01-01) the slot was last listed
  // for; 0 for an instrument listed from the config.
  int64_t delivery_day = 0;
  // PRE_OPEN with a scheduled open: its time (ns since 1970-01-01); else 0.
  int64_t open_at = 0;
  // Within one command: a PRE_OPEN book whose indicative opening is to be
  // published after it (levels changed, reference set, pre-open entered).
  bool indicative_due = false;

  PriceLadder& ladder(Side s) { return s == Side::kBuy ? *bids : *asks; }
  const PriceLadder& ladder(Side s) const {
    return s == Side::kBuy ? *bids : *asks;
  }
};

struct AccountRow {
  bool configured = false;
  StpMode stp = StpMode::kCancelNewest;
  uint32_t head = 0;  // resting orders in order id order
  uint32_t tail = 0;
  // Micro-dollars; negative after a settlement booking it could not cover
  // (a margin call).
  int64_t collateral = 0;
  // The last settlement date booked (days since 1970-01-01); 0 = none.
  int64_t settled_date = 0;
  // Kill switch on (kKillSwitch): no resting orders, new orders and
  // replaces refused until a reinstate.
  bool killed = false;
};

struct PositionRow {
  int64_t position = 0;
  int64_t open_buy = 0;
  int64_t open_sell = 0;
};

// A trade in a listed spot instrument, kept for delivery-failure reports.
struct SpotTrade {
  uint64_t trade_id = 0;
  int64_t day = 0;  // delivery day
  int64_t price = 0;
  int64_t quantity = 0;
  uint32_t instrument = 0;
  uint32_t buyer = 0;
  uint32_t seller = 0;
  uint32_t busted = 0;  // 0 or 1
};

struct Touched {
  uint32_t instrument;
  Side side;
  uint32_t level;
};

// The order entering the book: a new order, or a resting order whose
// replace lost its priority.
struct Taker {
  uint32_t slot = 0;  // pool slot if it already has one (replace)
  OrderId id;
  ClientOrderId client_order_id;
  AccountId account;
  Side side = Side::kNone;
  Price limit;        // matching limit (protection price for market orders)
  Price event_price;  // price shown in events (0 for market orders)
  Quantity leaves;
  Quantity filled;
  StpMode stp = StpMode::kCancelNewest;
  bool cancelled = false;
};

struct EngineState {
  EngineLimits limits;
  Seq last_seq;
  uint64_t next_order_id = 1;
  uint64_t next_trade_id = 1;

  std::vector<Book> books;
  std::vector<AccountRow> accounts;
  std::vector<PositionRow> positions;  // [account * max_instruments + inst]

  LargeArray<Order> orders;  // [0, max_orders]; 0 is null
  uint32_t free_head = 0;
  uint32_t resting = 0;
  OrderIndex index;
  // Client order ids of the new orders accepted since the last
  // EndOfSession of all instruments.
  ClientOrderIdSet client_order_ids;

  std::unique_ptr<uint32_t[]> heap;  // GTD min-heap of slots, 1-based
  uint32_t heap_size = 0;

  std::unique_ptr<Touched[]> touched;
  uint32_t touched_size = 0;
  uint32_t epoch = 0;

  // Reference data: ratings, keys, attestations (cold path), and each
  // provider account's eligibility per grade, the registry's rows cached
  // for the order path: [account * kMaxGrades + grade].
  std::unique_ptr<Registry> registry;
  std::vector<EligibilityRow> eligibility;
  std::vector<EligibilityChange> changes;  // scratch
  int64_t next_reference_change = 0;       // registry's; 0 = none
  uint64_t empty_registry_hash = 0;        // hashed in only once it differs
  bool eligibility_required = false;       // grades configured
  uint32_t grades = 0;
  std::vector<uint32_t> spot_books;  // ids of spot instruments
  // Ids of the instruments with a margin group, ascending; at most
  // kMaxMarginLegs (ValidateEngineConfig).
  std::vector<uint32_t> margined_books;
  MarginParams margin;
  // Trades of listed spot instruments in trade id order; capacity
  // limits.max_spot_trades, reserved at creation.
  std::vector<internal::SpotTrade> spot_trades;
  int64_t spot_failure_deadline_ns = 0;
  // Books in PRE_OPEN, and the earliest scheduled open among them (0 =
  // none): kept by RefreshPreOpen() after every change of state.
  uint32_t pre_open_books = 0;
  int64_t next_open = 0;

  // Current command.
  const Command* cmd = nullptr;
  std::string_view payload;
  EventSink* out = nullptr;

  explicit EngineState(const EngineConfig& c)
      : limits(c.limits),
        index(c.limits.max_orders),
        client_order_ids(c.limits.max_client_order_ids) {}
};

inline bool IsBuy(Side s) { return s == Side::kBuy; }

// Computes the price bands of `b` from its reference price.
inline void SetReference(Book& b, Price ref) {
  const int64_t tick = b.config.tick.units;
  auto band = [&](int32_t bps) {
    const int64_t raw = ref.units * bps / 10'000;
    return raw / tick * tick;
  };
  b.reference = ref;
  const int64_t band_units = band(b.config.band_bps);
  b.band_high = Price{ref.units + band_units};
  b.band_low = Price{ref.units - band_units};
  const int64_t m = band(b.config.market_band_bps);
  b.buy_protect = Price{std::min(ref.units + m, b.config.max_price.units)};
  b.sell_protect = Price{std::max(ref.units - m, tick)};
}

// True when the best bid is at or above the best ask (only outside OPEN).
inline bool Crossed(const Book& b) {
  return b.best_bid != 0 && b.best_ask != 0 && b.best_bid >= b.best_ask;
}

// Recounts the PRE_OPEN books and the earliest scheduled open.
inline void RefreshPreOpen(EngineState& s) {
  s.pre_open_books = 0;
  s.next_open = 0;
  for (const Book& b : s.books) {
    if (!b.listed || b.state != InstrumentState::kPreOpen) continue;
    ++s.pre_open_books;
    if (b.open_at != 0 && (s.next_open == 0 || b.open_at < s.next_open)) {
      s.next_open = b.open_at;
    }
  }
}

// Calls fn(const Order&) for every resting order of `b`: bids from the best
// price down, then asks from the best price up, FIFO within a price (the
// canonical order of the state hash and of snapshots).
template <typename Fn>
inline void ForEachOrderInPriority(const EngineState& s, const Book& b, Fn fn) {
  for (Side side : {Side::kBuy, Side::kSell}) {
    const PriceLadder& ladder = b.ladder(side);
    for (uint32_t i = IsBuy(side) ? b.best_bid : b.best_ask; i != 0;
         i = IsBuy(side) ? ladder.HighestBelow(i) : ladder.LowestAbove(i)) {
      for (uint32_t k = ladder.at(i).head; k != 0; k = s.orders[k].next) {
        fn(s.orders[k]);
      }
    }
  }
}

}  // namespace internal
}  // namespace cfx::exchange
