#include "gateway/pb/market_data_publisher.h"

#include <algorithm>
#include <string>

#include "gateway/config/instrument_table.h"
#include "gateway/md/market_data.h"
#include "gateway/md/status_reasons.h"
#include "gateway/pb/order_entry_adapter.h"
#include "gateway/pb/report_builder.h"
#include "gateway/pb/session.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace {

constexpr uint32_t kMaxRecentTrades = 1'000;

void Add(std::vector<std::vector<Session*>>& table, uint32_t id, Session* s) {
  auto& v = table[id];
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

void Erase(std::vector<Session*>& v, Session* s) {
  v.erase(std::remove(v.begin(), v.end(), s), v.end());
}

void Erase(std::vector<uint32_t>& v, uint32_t id) {
  v.erase(std::remove(v.begin(), v.end(), id), v.end());
}

void AddId(std::vector<uint32_t>& v, uint32_t id) {
  if (std::find(v.begin(), v.end(), id) == v.end()) v.push_back(id);
}

void AddLevels(const std::vector<BookLevel>& levels,
               google::protobuf::RepeatedPtrField<w::Level>* out) {
  for (const BookLevel& l : levels) {
    w::Level* x = out->Add();
    x->set_price(l.price.units);
    x->set_quantity(l.quantity.lots);
    x->set_order_count(l.order_count);
  }
}

void SetTradePrint(const std::string& symbol, exchange::Seq seq,
                   exchange::TradeId id, exchange::Price price,
                   exchange::Quantity quantity, exchange::Side aggressor,
                   exchange::Timestamp ts, w::TradePrint* p) {
  p->set_symbol(symbol);
  p->set_seq(seq.value);
  p->set_trade_id(id.value);
  p->set_price(price.units);
  p->set_quantity(quantity.lots);
  p->set_aggressor_side(WireSide(aggressor));
  p->set_time_ns(ts.nanos);
}

}  // namespace

MarketDataPublisher::MarketDataPublisher(std::size_t instrument_count,
                                         const InstrumentTable& instruments,
                                         const OrderEntryAdapter& symbols,
                                         const MarketDataStore& market_data,
                                         const StatusReasons& reasons,
                                         Outbox& outbox)
    : instruments_(instruments),
      symbols_(symbols),
      market_data_(market_data),
      reasons_(reasons),
      outbox_(outbox),
      depth_subscribers_(instrument_count + 1),
      trade_subscribers_(instrument_count + 1) {}

void MarketDataPublisher::OnSubscribe(Session& s,
                                      const w::MarketDataSubscribe& m) {
  constexpr const char* kType = "market_data_subscribe";
  if (m.symbol().empty()) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, kType, "symbol",
                   "symbol is required");
    return;
  }
  const InstrumentInfo* info = symbols_.FindSymbol(m.symbol());
  if (info == nullptr) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, kType, "symbol",
                   "unknown symbol");
    return;
  }
  if (!m.depth() && !m.trades()) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, kType, "depth",
                   "ask for depth, trades or both");
    return;
  }
  if (m.recent_trades() > kMaxRecentTrades ||
      (m.recent_trades() != 0 && !m.trades())) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, kType,
                   "recent_trades",
                   "recent_trades: at most 1000, and only with trades");
    return;
  }
  const uint32_t id = info->id.value;
  const MarketDataStore& md = market_data_;
  if (m.depth()) {
    out_.Clear();
    w::BookSnapshot* snap = out_.mutable_book_snapshot();
    snap->set_symbol(info->symbol);
    snap->set_seq(md.last_seq().value);
    snap->set_state(WireState(md.state(info->id)));
    std::vector<BookLevel> levels;
    md.Levels(info->id, exchange::Side::kBuy, 0, &levels);
    AddLevels(levels, snap->mutable_bids());
    levels.clear();
    md.Levels(info->id, exchange::Side::kSell, 0, &levels);
    AddLevels(levels, snap->mutable_asks());
    outbox_.Send(s, out_);
    if (md.state(info->id) == exchange::InstrumentState::kPreOpen) {
      const MarketDataStore::Indicative ind = md.indicative(info->id);
      SetIndicative(info->symbol, md.last_seq(), ind.price, ind.quantity,
                    ind.surplus_side, ind.surplus);
      outbox_.Send(s, out_);
    }
    AddId(s.depth, id);
    Add(depth_subscribers_, id, &s);
  }
  if (m.trades()) {
    if (m.recent_trades() != 0) {
      std::vector<TradeRecord> trades;
      md.RecentTrades(info->id, m.recent_trades(), &trades);
      for (const TradeRecord& t : trades) {
        out_.Clear();
        SetTradePrint(info->symbol, t.seq, t.id, t.price, t.quantity,
                      t.aggressor, t.ts, out_.mutable_trade_print());
        outbox_.Send(s, out_);
      }
    }
    AddId(s.trades, id);
    Add(trade_subscribers_, id, &s);
  }
}

void MarketDataPublisher::OnUnsubscribe(Session& s,
                                        const w::MarketDataUnsubscribe& m) {
  const InstrumentInfo* info =
      m.symbol().empty() ? nullptr : symbols_.FindSymbol(m.symbol());
  if (info == nullptr) {
    outbox_.Reject(
        s,
        m.symbol().empty() ? w::SESSION_REJECT_REASON_MISSING_FIELD
                           : w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL,
        "market_data_unsubscribe", "symbol",
        m.symbol().empty() ? "symbol is required" : "unknown symbol");
    return;
  }
  const uint32_t id = info->id.value;
  const bool had =
      std::find(s.depth.begin(), s.depth.end(), id) != s.depth.end() ||
      std::find(s.trades.begin(), s.trades.end(), id) != s.trades.end();
  if (!had) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE,
                   "market_data_unsubscribe", "symbol", "not subscribed");
    return;
  }
  Erase(s.depth, id);
  Erase(s.trades, id);
  Erase(depth_subscribers_[id], &s);
  Erase(trade_subscribers_[id], &s);
}

void MarketDataPublisher::OnEvent(const exchange::Event& e) {
  const uint32_t id = e.instrument.value;
  if (e.type == exchange::EventType::kInstrumentListed) {
    EndSubscriptions(id);
    return;
  }
  if (id >= depth_subscribers_.size()) return;
  if (e.type == exchange::EventType::kInstrumentStateChanged ||
      e.type == exchange::EventType::kInstrumentOpened) {
    const InstrumentInfo* info = instruments_.Get(e.instrument);
    if (info != nullptr) PublishStatus(e, *info);
    return;
  }
  if (e.type == exchange::EventType::kIndicativeOpen) {
    const InstrumentInfo* info = instruments_.Get(e.instrument);
    if (info == nullptr || depth_subscribers_[id].empty()) return;
    SetIndicative(info->symbol, e.seq, e.price, e.quantity, e.side, e.leaves);
    if (!outbox_.Frame(out_)) return;
    for (Session* s : depth_subscribers_[id]) outbox_.SendFramed(*s, false, 0);
    return;
  }
  const bool depth = e.type == exchange::EventType::kBookLevel &&
                     id < depth_subscribers_.size() &&
                     !depth_subscribers_[id].empty();
  const bool trade = e.type == exchange::EventType::kTrade &&
                     id < trade_subscribers_.size() &&
                     !trade_subscribers_[id].empty();
  if (!depth && !trade) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  if (info == nullptr) return;
  out_.Clear();
  if (depth) {
    w::BookUpdate* u = out_.mutable_book_update();
    u->set_symbol(info->symbol);
    u->set_seq(e.seq.value);
    u->set_side(WireSide(e.side));
    u->set_price(e.price.units);
    u->set_quantity(e.quantity.lots);
    u->set_order_count(e.count);
    if (!outbox_.Frame(out_)) return;
    for (Session* s : depth_subscribers_[id]) outbox_.SendFramed(*s, false, 0);
  } else {
    SetTradePrint(info->symbol, e.seq, e.trade_id, e.price, e.quantity, e.side,
                  e.ts, out_.mutable_trade_print());
    if (!outbox_.Frame(out_)) return;
    for (Session* s : trade_subscribers_[id]) outbox_.SendFramed(*s, false, 0);
  }
}

void MarketDataPublisher::SetIndicative(const std::string& symbol,
                                        exchange::Seq seq,
                                        exchange::Price price,
                                        exchange::Quantity quantity,
                                        exchange::Side side,
                                        exchange::Quantity surplus) {
  out_.Clear();
  w::IndicativeOpen* x = out_.mutable_indicative_open();
  x->set_symbol(symbol);
  x->set_seq(seq.value);
  x->set_price(price.units);
  x->set_quantity(quantity.lots);
  x->set_surplus_side(WireSide(side));
  x->set_surplus_quantity(surplus.lots);
}

void MarketDataPublisher::PublishStatus(const exchange::Event& e,
                                        const InstrumentInfo& info) {
  const uint32_t id = e.instrument.value;
  if (depth_subscribers_[id].empty() && trade_subscribers_[id].empty()) return;
  out_.Clear();
  w::InstrumentStatus* x = out_.mutable_instrument_status();
  x->set_symbol(info.symbol);
  x->set_seq(e.seq.value);
  x->set_state(WireState(e.state));
  if (e.type == exchange::EventType::kInstrumentOpened) {
    x->set_opening_price(e.price.units);
    x->set_opening_quantity(e.quantity.lots);
  } else {
    x->set_reason(std::string(reasons_.Find(e.client_order_id.value)));
    x->set_open_time_ns(e.open_time().nanos);
  }
  if (!outbox_.Frame(out_)) return;
  for (Session* s : depth_subscribers_[id]) outbox_.SendFramed(*s, false, 0);
  for (Session* s : trade_subscribers_[id]) {
    // Once to a session subscribed to both.
    if (std::find(s->depth.begin(), s->depth.end(), id) != s->depth.end()) {
      continue;
    }
    outbox_.SendFramed(*s, false, 0);
  }
}

void MarketDataPublisher::Remove(Session& s) {
  for (uint32_t id : s.depth) Erase(depth_subscribers_[id], &s);
  for (uint32_t id : s.trades) Erase(trade_subscribers_[id], &s);
}

// A slot listed again is a new instrument: subscriptions to its previous
// listing end (they named the old symbol).
void MarketDataPublisher::EndSubscriptions(uint32_t id) {
  if (id >= depth_subscribers_.size()) return;
  for (auto* table : {&depth_subscribers_, &trade_subscribers_}) {
    for (Session* s : (*table)[id]) {
      Erase(s->depth, id);
      Erase(s->trades, id);
    }
    (*table)[id].clear();
  }
}

}  // namespace cfx::gateway::pb
