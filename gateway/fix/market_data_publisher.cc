// FixGateway's market data: MarketDataRequest (V) answered with snapshots
// (W) and subscriptions fed incremental refreshes (X) of books and trades,
// the CFX index values of CFX-<grade> symbols (MDEntryType 3),
// SecurityListRequest (x) and SecurityStatusRequest (e) with their
// SecurityStatus (f) updates (docs/fix.md).

#include <algorithm>
#include <string>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/fix/fix_gateway_state.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/md/market_data.h"
#include "gateway/md/status_reasons.h"
#include "index/index_name.h"
#include "index/index_service.h"
#include "index/print_reading.h"

namespace cfx::gateway::fix {

using exchange::Event;
using exchange::EventType;
using exchange::InstrumentState;
using exchange::Side;

namespace {

constexpr std::size_t kSnapshotTrades = 20;

const char* TradingStatus(InstrumentState s) {
  switch (s) {
    case InstrumentState::kPreOpen:
      return "21";
    case InstrumentState::kOpen:
      return "17";
    case InstrumentState::kHalted:
      return "2";
    case InstrumentState::kClosed:
      return "18";
    case InstrumentState::kExpired:
      return "4";
    default:
      return "20";
  }
}

}  // namespace

std::vector<Field> IndexEntry(const index::Print& p, int64_t fixing_ns) {
  const index::PrintReading r = index::ReadingOf(p);
  std::vector<Field> e;
  e.push_back({tag::kMDEntryType, "3"});
  // A field the print does not have is left out.
  if (r.value.has_value()) e.push_back({tag::kMDEntryPx, *r.value});
  const std::string fixing = FormatFixTime(exchange::Timestamp{fixing_ns});
  e.push_back({tag::kMDEntryDate, fixing.substr(0, 8)});  // YYYYMMDD
  e.push_back({tag::kMDEntryTime, fixing.substr(9)});     // HH:MM:SS.sss
  e.push_back({tag::kCfxIndexLevel, std::string(r.level)});
  e.push_back({tag::kCfxIndexDisrupted, r.disrupted ? "Y" : "N"});
  e.push_back({tag::kCfxIndexRevision, Str(uint64_t{p.revision})});
  e.push_back({tag::kCfxIndexComputedAt,
               FormatFixTime(exchange::Timestamp{p.computed_at_ns})});
  e.push_back({tag::kCfxIndexTradeCount, Str(uint64_t{p.trade_count})});
  e.push_back({tag::kCfxIndexDistinctSellers, Str(uint64_t{p.sellers})});
  e.push_back({tag::kCfxIndexDistinctBuyers, Str(uint64_t{p.buyers})});
  e.push_back({tag::kCfxIndexGPUHours, Str(p.gpu_hours)});
  if (r.p25.has_value()) e.push_back({tag::kCfxIndexP25, *r.p25});
  if (r.p75.has_value()) e.push_back({tag::kCfxIndexP75, *r.p75});
  std::string partitions;
  for (const uint32_t k : r.partitions_used) {
    if (!partitions.empty()) partitions += ' ';
    partitions += Str(uint64_t{k});
  }
  if (!partitions.empty())
    e.push_back({tag::kCfxIndexPartitionsUsed, partitions});
  if (r.usd_per_million_tokens.has_value()) {
    e.push_back({tag::kCfxIndexUSDPerMillionTokens, *r.usd_per_million_tokens});
  }
  if (r.attested_tokens_per_s_per_gpu.has_value()) {
    e.push_back(
        {tag::kCfxIndexAttestedTokensPerGPU, *r.attested_tokens_per_s_per_gpu});
  }
  std::string ids;
  for (const uint64_t id : p.trade_ids) {
    if (!ids.empty()) ids += ' ';
    ids += Str(id);
  }
  if (!ids.empty()) e.push_back({tag::kCfxIndexTradeIDs, std::move(ids)});
  return e;
}

void FixGateway::MarketDataReject(int s, const std::string& req_id, int reason,
                                  const std::string& text) {
  Message r;
  r.type = msg_type::kMarketDataRequestReject;
  r.Add(tag::kMDReqID, req_id);
  if (reason >= 0) r.Add(tag::kMDReqRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  Send(s, r);
}

// ------------------------------------------------------------ book requests

void FixGateway::OnMarketDataRequest(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kMDReqID);
  const std::string& sub_type = Get(m, tag::kSubscriptionRequestType);
  if (sub_type == "2") {
    const auto before = ss.md.size();
    std::erase_if(ss.md, [&](const SessionState::Subscription& x) {
      return x.req_id == req_id;
    });
    if (ss.md.size() == before) {
      MarketDataReject(s, req_id, -1,
                       "no live subscription has MDReqID " + req_id);
    }
    return;
  }
  if (sub_type != "0" && sub_type != "1") {
    return MarketDataReject(
        s, req_id, md_req_rej_reason::kUnsupportedSubscriptionRequestType,
        "SubscriptionRequestType(263) must be 0, 1 or 2");
  }
  const bool subscribe = sub_type == "1";
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t != nullptr && *t == "3") {
        return ReadServicesFor(s, m,
                               [this, subscribe](int r, const Message& x) {
                                 OnIndexRequest(r, x, subscribe);
                               });
      }
    }
  }
  const auto depth = ParseU64(Get(m, tag::kMarketDepth));
  if (!depth || *depth > 1'000'000) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "MarketDepth(264) must be 0 (full book) or N");
  }
  if (subscribe && *depth != 0) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "a subscription carries the full book: "
                            "MarketDepth(264) must be 0");
  }
  if (const std::string* t = m.Find(tag::kMDUpdateType);
      subscribe && t != nullptr && *t != "1") {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMDUpdateType,
                            "MDUpdateType(265) must be 1 (incremental)");
  }
  bool book = false, trades = false;
  std::vector<const InstrumentInfo*> symbols;
  if (!ReadBookRequest(s, m, &book, &trades, &symbols)) return;
  if (subscribe && !MaySubscribe(s, req_id, symbols.size())) return;
  // Entries built per command are not yet sent: flush them first, so the
  // snapshot and the updates after it line up.
  FlushMarketData();
  for (const InstrumentInfo* info : symbols) {
    Send(s, BookSnapshot(req_id, *info, book, trades, *depth));
    if (subscribe) {
      ss.md.push_back({req_id, info->id.value, book, trades});
    }
  }
}

bool FixGateway::ReadBookRequest(int s, const Message& m, bool* book,
                                 bool* trades,
                                 std::vector<const InstrumentInfo*>* symbols) {
  const std::string& req_id = Get(m, tag::kMDReqID);
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t != nullptr && (*t == "0" || *t == "1")) {
        *book = true;
      } else if (t != nullptr && *t == "2") {
        *trades = true;
      } else {
        MarketDataReject(
            s, req_id, md_req_rej_reason::kUnsupportedMDEntryType,
            "MDEntryType(269) " + (t ? *t : std::string()) +
                " is not published; 0 (bid), 1 (offer), 2 (trade) and, for "
                "CFX-<grade> index symbols, 3 (index value) are");
        return false;
      }
    }
  }
  if (!*book && !*trades) {
    BusinessReject(s, m,
                   business_reject_reason::kConditionallyRequiredFieldMissing,
                   req_id, "NoMDEntryTypes(267) must name at least one type");
    return false;
  }
  if (const Group* g = m.FindGroup(tag::kNoRelatedSym)) {
    for (const auto& entry : g->entries) {
      const std::string* sym = FindIn(entry, tag::kSymbol);
      const InstrumentInfo* info =
          sym == nullptr ? nullptr : instruments_.Find(*sym);
      if (info == nullptr && sym != nullptr && IndexGradeOf(*sym) >= 0) {
        MarketDataReject(s, req_id, md_req_rej_reason::kUnsupportedMDEntryType,
                         *sym +
                             " is an index: its one MDEntryType(269) "
                             "is 3 (index value), requested alone");
        return false;
      }
      if (info == nullptr) {
        MarketDataReject(s, req_id, md_req_rej_reason::kUnknownSymbol,
                         "unknown Symbol(55) " + (sym ? *sym : ""));
        return false;
      }
      symbols->push_back(info);
    }
  }
  if (symbols->empty()) {
    BusinessReject(s, m,
                   business_reject_reason::kConditionallyRequiredFieldMissing,
                   req_id, "NoRelatedSym(146) must name at least one symbol");
    return false;
  }
  return true;
}

bool FixGateway::MaySubscribe(int s, const std::string& req_id, std::size_t n) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  for (const auto& x : ss.md) {
    if (x.req_id == req_id) {
      MarketDataReject(s, req_id, md_req_rej_reason::kDuplicateMDReqID,
                       "MDReqID " + req_id + " is already live");
      return false;
    }
  }
  if (ss.md.size() + n > kMaxSubscriptionsPerSession) {
    MarketDataReject(s, req_id, md_req_rej_reason::kInsufficientBandwidth,
                     "at most " + Str(uint64_t{kMaxSubscriptionsPerSession}) +
                         " subscriptions per session");
    return false;
  }
  return true;
}

Message FixGateway::BookSnapshot(const std::string& req_id,
                                 const InstrumentInfo& info, bool book,
                                 bool trades, std::size_t depth) const {
  const MarketDataStore& md = *deps_.market_data;
  Message w;
  w.type = msg_type::kMarketDataSnapshotFullRefresh;
  w.Add(tag::kMDReqID, req_id);
  w.Add(tag::kSymbol, info.symbol);
  Group g;
  g.count_tag = tag::kNoMDEntries;
  g.delimiter = tag::kMDEntryType;
  if (book) {
    std::vector<BookLevel> levels;
    for (Side side : {Side::kBuy, Side::kSell}) {
      md.Levels(info.id, side, depth, &levels);
      for (const BookLevel& l : levels) {
        g.entries.push_back(
            {{tag::kMDEntryType, side == Side::kBuy ? "0" : "1"},
             {tag::kMDEntryPx, exchange::FormatPrice(l.price)},
             {tag::kMDEntrySize, Str(l.quantity.lots)},
             {tag::kNumberOfOrders, Str(uint64_t{l.order_count})}});
      }
    }
  }
  if (trades) {
    std::vector<TradeRecord> recent;
    md.RecentTrades(info.id, kSnapshotTrades, &recent);
    for (const TradeRecord& t : recent) {
      g.entries.push_back({{tag::kMDEntryType, "2"},
                           {tag::kMDEntryPx, exchange::FormatPrice(t.price)},
                           {tag::kMDEntrySize, Str(t.quantity.lots)},
                           {tag::kTradeID, Str(t.id.value)}});
    }
  }
  if (g.entries.empty()) {
    w.Add(tag::kNoMDEntries, "0");
  } else {
    w.groups.push_back(std::move(g));
  }
  return w;
}

// ----------------------------------------------------------- index values

int32_t FixGateway::IndexGradeOf(const std::string& symbol) const {
  const auto grade = index::GradeOfIndexName(symbol);
  if (deps_.index == nullptr || !grade.has_value()) return -1;
  return deps_.index->FindGrade(*grade);
}

Message FixGateway::IndexSnapshot(const std::string& req_id, uint32_t grade,
                                  const index::Print* print) const {
  Message w;
  w.type = msg_type::kMarketDataSnapshotFullRefresh;
  w.Add(tag::kMDReqID, req_id);
  w.Add(tag::kSymbol, index::IndexName(deps_.index->config().grades[grade]));
  if (print == nullptr) {
    w.Add(tag::kNoMDEntries, "0");
    return w;
  }
  Group g;
  g.count_tag = tag::kNoMDEntries;
  g.delimiter = tag::kMDEntryType;
  g.entries.push_back(IndexEntry(
      *print, deps_.index->config().methodology.FixingNs(print->day)));
  w.groups.push_back(std::move(g));
  return w;
}

void FixGateway::OnIndexRequest(int s, const Message& m, bool subscribe) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kMDReqID);
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t == nullptr || *t != "3") {
        return MarketDataReject(s, req_id,
                                md_req_rej_reason::kUnsupportedMDEntryType,
                                "MDEntryType(269) 3 (index value) cannot be "
                                "combined with other entry types: request it "
                                "alone, for CFX-<grade> symbols");
      }
    }
  }
  const auto depth = ParseU64(Get(m, tag::kMarketDepth));
  if (!depth || *depth > 1) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "MarketDepth(264) must be 0 or 1 for an index: "
                            "it has one value");
  }
  std::vector<uint32_t> grades;
  if (const Group* g = m.FindGroup(tag::kNoRelatedSym)) {
    for (const auto& entry : g->entries) {
      const std::string* sym = FindIn(entry, tag::kSymbol);
      const std::string name = sym == nullptr ? std::string() : *sym;
      const int32_t grade = IndexGradeOf(name);
      if (grade >= 0) {
        grades.push_back(static_cast<uint32_t>(grade));
      } else if (instruments_.Find(name) != nullptr) {
        return MarketDataReject(s, req_id,
                                md_req_rej_reason::kUnsupportedMDEntryType,
                                "MDEntryType(269) 3 (index value) is "
                                "published for CFX-<grade> index symbols "
                                "only; " +
                                    name + " is an instrument");
      } else {
        return MarketDataReject(s, req_id, md_req_rej_reason::kUnknownSymbol,
                                "unknown index Symbol(55) " + name);
      }
    }
  }
  if (grades.empty()) {
    return BusinessReject(
        s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
        req_id, "NoRelatedSym(146) must name at least one symbol");
  }
  if (subscribe && !MaySubscribe(s, req_id, grades.size())) return;
  // Book and trade entries built for the current command go out first, so
  // every session sees the updates in one order.
  FlushMarketData();
  for (const uint32_t grade : grades) {
    Send(s, IndexSnapshot(req_id, grade, deps_.index->Latest(grade)));
    if (subscribe) {
      SessionState::Subscription sub;
      sub.req_id = req_id;
      sub.index_grade = static_cast<int32_t>(grade);
      ss.md.push_back(std::move(sub));
    }
  }
}

void FixGateway::OnIndexPrint(const index::Print& print) {
  if (!live_ || deps_.index == nullptr) return;
  FlushMarketData();
  for (const auto& s : sessions_) {
    if (!s->logged_on) continue;
    for (const auto& sub : s->md) {
      if (sub.index_grade < 0 ||
          static_cast<uint32_t>(sub.index_grade) != print.grade) {
        continue;
      }
      Send(s->index, IndexSnapshot(sub.req_id, print.grade, &print));
    }
  }
}

// ------------------------------------------------------------- securities

void FixGateway::OnSecurityList(int s, const Message& m) {
  const std::string& req_id = Get(m, tag::kSecurityReqID);
  const std::string& type = Get(m, tag::kSecurityListRequestType);
  std::vector<const InstrumentInfo*> list;
  if (type == "4") {
    instruments_.ForEach(
        [&list](const InstrumentInfo& i) { list.push_back(&i); });
  } else if (type == "0") {
    const std::string* sym = m.Find(tag::kSymbol);
    if (sym == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          req_id,
          "Symbol(55) is required with "
          "SecurityListRequestType 0");
    }
    if (const InstrumentInfo* i = instruments_.Find(*sym)) {
      list.push_back(i);
    }
  } else {
    return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                          "SecurityListRequestType(559) must be 0 (symbol) "
                          "or 4 (all)");
  }
  Message y;
  y.type = msg_type::kSecurityList;
  y.Add(tag::kSecurityReqID, req_id);
  y.Add(tag::kSecurityResponseID, req_id);
  y.Add(tag::kSecurityRequestResult, list.empty() ? "2" : "0");
  if (list.empty()) {
    y.Add(tag::kText, "no instrument matches");
    Send(s, y);
    return;
  }
  Group g;
  g.count_tag = tag::kNoRelatedSym;
  g.delimiter = tag::kSymbol;
  for (const InstrumentInfo* i : list) {
    std::vector<Field> e;
    e.push_back({tag::kSymbol, i->symbol});
    const bool future = i->kind == exchange::InstrumentKind::kFuture;
    e.push_back({tag::kSecurityType, future ? "FUT" : "SPOT"});
    if (future && i->maturity.size() == 7) {
      e.push_back({tag::kMaturityMonthYear,
                   i->maturity.substr(0, 4) + i->maturity.substr(5, 2)});
    }
    // MaturityDate: a future's last trading day, a spot's delivery day.
    const std::string& d = future ? i->last_trading_day : i->delivery_date;
    if (d.size() == 10) {
      e.push_back({tag::kMaturityDate,
                   d.substr(0, 4) + d.substr(5, 2) + d.substr(8, 2)});
    }
    e.push_back({tag::kCurrency, "USD"});
    const std::size_t idx = i->id.value - 1;
    if (idx < config_.engine.instruments.size()) {
      e.push_back(
          {tag::kMinPriceIncrement,
           exchange::FormatPrice(config_.engine.instruments[idx].tick)});
    }
    e.push_back({tag::kContractMultiplier, Str(i->contract_gpu_hours)});
    e.push_back({tag::kCfxGrade, i->grade});
    e.push_back({tag::kCfxContractUnit, "GPU-HOUR"});
    e.push_back({tag::kSecurityTradingStatus,
                 TradingStatus(deps_.market_data->state(i->id))});
    g.entries.push_back(std::move(e));
  }
  y.groups.push_back(std::move(g));
  Send(s, y);
}

void FixGateway::OnSecurityStatus(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kSecurityStatusReqID);
  const std::string& type = Get(m, tag::kSubscriptionRequestType);
  const InstrumentInfo* info = instruments_.Find(Get(m, tag::kSymbol));
  if (type == "2") {
    ss.status.erase(
        std::remove_if(ss.status.begin(), ss.status.end(),
                       [&](const SessionState::StatusSubscription& x) {
                         return x.req_id == req_id;
                       }),
        ss.status.end());
    return;
  }
  if (info == nullptr) {
    return BusinessReject(s, m, business_reject_reason::kUnknownSecurity,
                          req_id, "unknown Symbol(55) " + Get(m, tag::kSymbol));
  }
  if (type != "0" && type != "1") {
    return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                          "SubscriptionRequestType(263) must be 0, 1 or 2");
  }
  if (type == "1") {
    if (ss.status.size() >= kMaxSubscriptionsPerSession) {
      return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                            "too many security status subscriptions");
    }
    ss.status.push_back({req_id, info->id.value});
  }
  Message f;
  f.type = msg_type::kSecurityStatus;
  f.Add(tag::kSecurityStatusReqID, req_id);
  f.Add(tag::kSymbol, info->symbol);
  f.Add(tag::kSecurityTradingStatus,
        TradingStatus(deps_.market_data->state(info->id)));
  f.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, f);
}

void FixGateway::PublishSecurityStatus(const Event& e) {
  if (!live_) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  if (info == nullptr) return;
  // Text (58): the admin's reason for a halt or resume; after the opening
  // auction, its price and lots.
  std::string text;
  if (e.type == EventType::kInstrumentOpened) {
    text = e.quantity.lots == 0
               ? std::string("opened: no auction trade")
               : "opened: " + std::to_string(e.quantity.lots) + " lots at " +
                     exchange::FormatPrice(e.price);
  } else if (deps_.status_reasons != nullptr) {
    text = std::string(deps_.status_reasons->Find(e.client_order_id.value));
  }
  for (const auto& s : sessions_) {
    if (!s->logged_on) continue;
    for (const auto& sub : s->status) {
      if (sub.instrument != e.instrument.value) continue;
      Message f;
      f.type = msg_type::kSecurityStatus;
      f.Add(tag::kSecurityStatusReqID, sub.req_id);
      f.Add(tag::kSymbol, info->symbol);
      f.Add(tag::kSecurityTradingStatus, TradingStatus(e.state));
      f.Add(tag::kTransactTime, FormatFixTime(e.ts));
      if (!text.empty()) f.Add(tag::kText, text);
      Send(s->index, f);
    }
  }
}

void FixGateway::EndSubscriptions(exchange::InstrumentId instrument) {
  // They named the previous listing's symbol.
  for (const auto& s : sessions_) {
    std::erase_if(s->md, [&](const SessionState::Subscription& x) {
      return x.instrument == instrument.value;
    });
    std::erase_if(s->status, [&](const SessionState::StatusSubscription& x) {
      return x.instrument == instrument.value;
    });
  }
}

// ------------------------------------------------------------ incrementals

void FixGateway::MarketData(const Event& e, BookLevelChange level) {
  if (e.type != EventType::kBookLevel && e.type != EventType::kTrade) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  if (info == nullptr) return;
  bool wanted = false;
  for (const auto& s : sessions_) {
    for (const auto& sub : s->md) {
      if (sub.instrument == e.instrument.value &&
          (e.type == EventType::kTrade ? sub.trades : sub.book)) {
        wanted = true;
      }
    }
  }
  if (!wanted) return;
  std::vector<Field> entry;
  if (e.type == EventType::kBookLevel) {
    // MDUpdateAction(279): 0 new, 1 change, 2 delete.
    const bool gone = e.quantity.lots <= 0;
    const char* action = gone                                ? "2"
                         : level == BookLevelChange::kChange ? "1"
                                                             : "0";
    entry.push_back({tag::kMDUpdateAction, action});
    entry.push_back({tag::kMDEntryType, e.side == Side::kBuy ? "0" : "1"});
    entry.push_back({tag::kSymbol, info->symbol});
    entry.push_back({tag::kMDEntryPx, exchange::FormatPrice(e.price)});
    if (!gone) {
      entry.push_back({tag::kMDEntrySize, Str(e.quantity.lots)});
      entry.push_back({tag::kNumberOfOrders, Str(uint64_t{e.count})});
    }
  } else {
    entry.push_back({tag::kMDUpdateAction, "0"});
    entry.push_back({tag::kMDEntryType, "2"});
    entry.push_back({tag::kSymbol, info->symbol});
    entry.push_back({tag::kMDEntryPx, exchange::FormatPrice(e.price)});
    entry.push_back({tag::kMDEntrySize, Str(e.quantity.lots)});
    entry.push_back({tag::kTradeID, Str(e.trade_id.value)});
  }
  md_entries_.emplace_back(e.instrument.value, std::move(entry));
}

void FixGateway::FlushMarketData() {
  if (md_entries_.empty()) return;
  for (const auto& s : sessions_) {
    if (!s->logged_on) continue;
    for (const auto& sub : s->md) {
      if (sub.index_grade >= 0) continue;
      Group g;
      g.count_tag = tag::kNoMDEntries;
      g.delimiter = tag::kMDUpdateAction;
      for (const auto& [instrument, entry] : md_entries_) {
        if (instrument != sub.instrument) continue;
        const bool trade = entry[1].value == "2";
        if (trade ? !sub.trades : !sub.book) continue;
        g.entries.push_back(entry);
      }
      if (g.entries.empty()) continue;
      Message x;
      x.type = msg_type::kMarketDataIncrementalRefresh;
      x.Add(tag::kMDReqID, sub.req_id);
      x.groups.push_back(std::move(g));
      Send(s->index, x);
    }
  }
  md_entries_.clear();
}

}  // namespace cfx::gateway::fix
