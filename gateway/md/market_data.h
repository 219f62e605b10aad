#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {

// One aggregated price level of an L2 book.
struct BookLevel {
  exchange::Price price;
  exchange::Quantity quantity;
  uint32_t order_count = 0;
};

// One public trade print: no account, order or firm.
struct TradeRecord {
  exchange::TradeId id;
  exchange::Seq seq;
  exchange::Timestamp ts;
  exchange::Price price;
  exchange::Quantity quantity;
  exchange::Side aggressor = exchange::Side::kNone;
};

// What MarketDataStore::OnEvent() did to a book's price level: a
// kBookLevel event adds a level (kNew), changes one (kChange) or removes
// one (kDelete, a quantity of 0, also when the level was not there); every
// other event, and a level of an unknown instrument, is kNone.
enum class BookLevelChange : uint8_t { kNone, kNew, kChange, kDelete };

// Public, anonymous market data per instrument, built from durable engine
// events: L2 books, recent trades, state, reference price, last price and
// the volume traded since start. Nothing here identifies an account, an
// order or a firm.
//
// Instruments are those of `config` (ServerConfig::instruments and
// ServerConfig::engine.instruments); their initial state and reference price
// come from the engine config. Events and queries for any other instrument
// id are ignored / answer empty.
//
// Thread: the gateway thread; no internal locking.
// Memory: grows with the number of price levels (one std::map node each)
// and with the trade ring, up to `trades_kept` records per instrument.
class MarketDataStore {
 public:
  // `config` is only read in the constructor.
  explicit MarketDataStore(const ServerConfig& config,
                           std::size_t trades_kept = 1000);
  MarketDataStore(const MarketDataStore&) = delete;
  MarketDataStore& operator=(const MarketDataStore&) = delete;

  // Applies one durable event: kBookLevel, kTrade, kInstrumentStateChanged,
  // kInstrumentOpened, kIndicativeOpen (kept while PRE_OPEN),
  // kReferencePriceSet and kInstrumentListed (a spot slot's new listing:
  // its book, trades, last price and volume start afresh) change the store;
  // every other type only advances last_seq(). Returns what it did to a
  // price level, so that incremental market data follow the store without
  // reading its state before the event. REQUIRES: events arrive in seq
  // order.
  BookLevelChange OnEvent(const exchange::Event& e);

  // Replaces `*out` with the levels of one side, best first (bids highest
  // first, asks lowest first), at most `max_levels` of them (0 = all).
  void Levels(exchange::InstrumentId id, exchange::Side side,
              std::size_t max_levels, std::vector<BookLevel>* out) const;

  // Replaces `*out` with up to `max` most recent trades, oldest first.
  void RecentTrades(exchange::InstrumentId id, std::size_t max,
                    std::vector<TradeRecord>* out) const;

  // kNone for an unknown instrument.
  exchange::InstrumentState state(exchange::InstrumentId id) const;
  // The indicative opening of a PRE_OPEN instrument (docs/matching.md,
  // "Pre-open and the opening auction"): the last kIndicativeOpen; all
  // zero when not PRE_OPEN or none published yet.
  struct Indicative {
    exchange::Price price;        // 0 = the book does not cross
    exchange::Quantity quantity;  // lots that would trade
    exchange::Side surplus_side = exchange::Side::kNone;
    exchange::Quantity surplus;
  };
  Indicative indicative(exchange::InstrumentId id) const;
  // 0 for an unknown instrument.
  exchange::Price reference_price(exchange::InstrumentId id) const;
  // Price of the last trade; 0 = no trade yet (or unknown instrument).
  exchange::Price last_price(exchange::InstrumentId id) const;
  // Lots traded since start; 0 for an unknown instrument.
  exchange::Quantity volume(exchange::InstrumentId id) const;
  // Seq of the last event passed to OnEvent() (0 before the first): the
  // store reflects every durable event up to and including it.
  exchange::Seq last_seq() const { return last_seq_; }

 private:
  struct Level {
    int64_t lots = 0;
    uint32_t orders = 0;
  };
  struct Book {
    bool known = false;
    exchange::InstrumentState state = exchange::InstrumentState::kNone;
    exchange::Price reference_price;
    exchange::Price last_price;
    exchange::Quantity volume;
    Indicative indicative;
    std::map<int64_t, Level, std::greater<>> bids;  // best (highest) first
    std::map<int64_t, Level> asks;                  // best (lowest) first
    std::vector<TradeRecord> trades;  // ring of up to trades_kept_ records
    std::size_t next_trade = 0;       // ring slot the next trade overwrites
  };

  Book* Find(exchange::InstrumentId id);
  const Book* Find(exchange::InstrumentId id) const;

  std::size_t trades_kept_;
  std::vector<Book> books_;  // indexed by InstrumentId::value
  exchange::Seq last_seq_;
};

}  // namespace cfx::gateway
