#include "gateway/md/market_data.h"

#include <algorithm>

namespace cfx::gateway {

using exchange::EventType;
using exchange::InstrumentId;
using exchange::Price;
using exchange::Quantity;
using exchange::Side;

namespace {

// Ids far beyond any engine's instrument table are config errors; ignoring
// them keeps a bad config from sizing a huge table.
constexpr uint32_t kMaxInstrumentId = 1u << 16;

template <typename Map>
void CopyLevels(const Map& levels, std::size_t max_levels,
                std::vector<BookLevel>* out) {
  for (const auto& [price, level] : levels) {
    if (max_levels != 0 && out->size() == max_levels) break;
    out->push_back(BookLevel{Price{price}, Quantity{level.lots}, level.orders});
  }
}

template <typename Map>
BookLevelChange SetLevel(Map& levels, const exchange::Event& e) {
  if (e.quantity.lots <= 0) {
    levels.erase(e.price.units);
    return BookLevelChange::kDelete;
  }
  const auto [it, added] = levels.try_emplace(e.price.units);
  it->second.lots = e.quantity.lots;
  it->second.orders = e.count;
  return added ? BookLevelChange::kNew : BookLevelChange::kChange;
}

}  // namespace

MarketDataStore::MarketDataStore(const ServerConfig& config,
                                 std::size_t trades_kept)
    : trades_kept_(trades_kept) {
  uint32_t max_id = 0;
  for (const auto& info : config.instruments) {
    if (info.id.value <= kMaxInstrumentId) {
      max_id = std::max(max_id, info.id.value);
    }
  }
  for (const auto& ic : config.engine.instruments) {
    if (ic.id.value <= kMaxInstrumentId) max_id = std::max(max_id, ic.id.value);
  }
  books_.resize(std::size_t{max_id} + 1);
  for (const auto& info : config.instruments) {
    if (info.id.value != 0 && info.id.value <= max_id) {
      books_[info.id.value].known = true;
    }
  }
  for (const auto& ic : config.engine.instruments) {
    if (ic.id.value == 0 || ic.id.value > max_id) continue;
    Book& book = books_[ic.id.value];
    book.known = true;
    book.state = ic.initial_state;
    book.reference_price = ic.reference_price;
  }
}

MarketDataStore::Book* MarketDataStore::Find(InstrumentId id) {
  if (id.value >= books_.size() || !books_[id.value].known) return nullptr;
  return &books_[id.value];
}

const MarketDataStore::Book* MarketDataStore::Find(InstrumentId id) const {
  if (id.value >= books_.size() || !books_[id.value].known) return nullptr;
  return &books_[id.value];
}

BookLevelChange MarketDataStore::OnEvent(const exchange::Event& e) {
  if (e.seq > last_seq_) last_seq_ = e.seq;
  switch (e.type) {
    case EventType::kBookLevel: {
      Book* book = Find(e.instrument);
      if (book == nullptr) return BookLevelChange::kNone;
      if (e.side == Side::kBuy) return SetLevel(book->bids, e);
      if (e.side == Side::kSell) return SetLevel(book->asks, e);
      return BookLevelChange::kNone;
    }
    case EventType::kTrade: {
      Book* book = Find(e.instrument);
      if (book == nullptr) return BookLevelChange::kNone;
      book->last_price = e.price;
      book->volume.lots += e.quantity.lots;
      if (trades_kept_ == 0) return BookLevelChange::kNone;
      const TradeRecord trade{e.trade_id, e.seq,      e.ts,
                              e.price,    e.quantity, e.side};
      if (book->trades.size() < trades_kept_) {
        book->trades.push_back(trade);
      } else {
        book->trades[book->next_trade] = trade;
      }
      book->next_trade = (book->next_trade + 1) % trades_kept_;
      return BookLevelChange::kNone;
    }
    case EventType::kInstrumentStateChanged:
    case EventType::kInstrumentOpened: {
      Book* book = Find(e.instrument);
      if (book == nullptr) return BookLevelChange::kNone;
      book->state = e.state;
      if (e.state != exchange::InstrumentState::kPreOpen) {
        book->indicative = Indicative{};
      }
      return BookLevelChange::kNone;
    }
    case EventType::kIndicativeOpen: {
      Book* book = Find(e.instrument);
      if (book != nullptr) {
        book->indicative = Indicative{e.price, e.quantity, e.side, e.leaves};
      }
      return BookLevelChange::kNone;
    }
    case EventType::kReferencePriceSet: {
      Book* book = Find(e.instrument);
      if (book != nullptr) book->reference_price = e.price;
      return BookLevelChange::kNone;
    }
    case EventType::kInstrumentListed: {
      // A spot slot starts a new instrument: nothing of the previous
      // listing remains.
      Book* book = Find(e.instrument);
      if (book == nullptr) return BookLevelChange::kNone;
      book->state = e.state;
      book->reference_price = e.price;
      book->last_price = Price{};
      book->volume = Quantity{};
      book->bids.clear();
      book->asks.clear();
      book->trades.clear();
      book->indicative = Indicative{};
      book->next_trade = 0;
      return BookLevelChange::kNone;
    }
    default:
      return BookLevelChange::kNone;
  }
}

void MarketDataStore::Levels(InstrumentId id, Side side, std::size_t max_levels,
                             std::vector<BookLevel>* out) const {
  out->clear();
  const Book* book = Find(id);
  if (book == nullptr) return;
  if (side == Side::kBuy) {
    CopyLevels(book->bids, max_levels, out);
  } else if (side == Side::kSell) {
    CopyLevels(book->asks, max_levels, out);
  }
}

void MarketDataStore::RecentTrades(InstrumentId id, std::size_t max,
                                   std::vector<TradeRecord>* out) const {
  out->clear();
  const Book* book = Find(id);
  if (book == nullptr) return;
  const std::size_t n = book->trades.size();
  const std::size_t take = std::min(max, n);
  // The oldest record sits at next_trade once the ring is full, at 0 before.
  const std::size_t oldest = n < trades_kept_ ? 0 : book->next_trade;
  for (std::size_t i = n - take; i < n; ++i) {
    out->push_back(book->trades[(oldest + i) % n]);
  }
}

MarketDataStore::Indicative MarketDataStore::indicative(InstrumentId id) const {
  const Book* book = Find(id);
  return book == nullptr ? Indicative{} : book->indicative;
}

exchange::InstrumentState MarketDataStore::state(InstrumentId id) const {
  const Book* book = Find(id);
  return book == nullptr ? exchange::InstrumentState::kNone : book->state;
}

Price MarketDataStore::reference_price(InstrumentId id) const {
  const Book* book = Find(id);
  return book == nullptr ? Price{} : book->reference_price;
}

Price MarketDataStore::last_price(InstrumentId id) const {
  const Book* book = Find(id);
  return book == nullptr ? Price{} : book->last_price;
}

Quantity MarketDataStore::volume(InstrumentId id) const {
  const Book* book = Find(id);
  return book == nullptr ? Quantity{} : book->volume;
}

}  // namespace cfx::gateway
