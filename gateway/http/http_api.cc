#include "gateway/http/http_api.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "exchange/clock.h"
#include "gateway/config/instrument_table.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "index/index_name.h"
#include "index/index_service.h"

namespace cfx::gateway {

namespace {

using exchange::InstrumentState;
using exchange::Side;

constexpr std::string_view kInstrumentsPath = "/api/v1/instruments";
constexpr std::string_view kBookPrefix = "/api/v1/book/";
constexpr std::string_view kTradesPrefix = "/api/v1/trades/";
constexpr std::string_view kHealthPath = "/healthz";
constexpr std::string_view kMetricsPath = "/metrics";
constexpr std::string_view kIndexListPath = "/api/v1/index";
constexpr std::string_view kIndexPrefix = "/api/v1/index/";
constexpr std::string_view kIndexPagePath = "/index";
constexpr std::string_view kRevisionsParam = "revisions";
// Longest query value accepted: the limits are at most 4 digits.
constexpr std::size_t kMaxNumberLength = 7;
constexpr std::size_t kMaxKeyLength = 32;

std::string_view StateName(InstrumentState s) {
  // By InstrumentState value, from kNone.
  static constexpr std::string_view kNames[] = {
      "unknown", "pre_open", "open", "halted", "closed", "expired",
  };
  static_assert(std::size(kNames) ==
                static_cast<std::size_t>(InstrumentState::kExpired) + 1);
  const auto i = static_cast<std::size_t>(s);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

std::string_view KindName(exchange::InstrumentKind k) {
  switch (k) {
    case exchange::InstrumentKind::kFuture:
      return "future";
    case exchange::InstrumentKind::kSpot:
      return "spot";
    case exchange::InstrumentKind::kNone:
      break;
  }
  return "unknown";
}

bool IsSymbolChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool IsValidSymbol(std::string_view s) {
  if (s.empty() || s.size() > kMaxSymbolLength) return false;
  for (const char c : s) {
    if (!IsSymbolChar(c)) return false;
  }
  return true;
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

HttpReply Json(unsigned status, std::string body, Metrics::Endpoint endpoint) {
  return HttpReply{status, std::string(kJsonContentType), std::move(body),
                   endpoint};
}

HttpReply Error(unsigned status, std::string_view message,
                Metrics::Endpoint endpoint) {
  JsonWriter w;
  w.BeginObject().Key("error").String(message).EndObject();
  return Json(status, w.Take(), endpoint);
}

// Splits `query` ("a=1&b=2", possibly empty) into items and calls
// `item(key, value, has_value)` for each, after checking the key's syntax.
// Empty items ("a=1&&b=2", a trailing '&') are skipped. Returns the first
// error message, or empty on success.
template <typename Fn>
std::string ForEachQueryItem(std::string_view query, Fn&& item) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view()
                                          : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    if (key.empty() || key.size() > kMaxKeyLength) return "malformed query";
    for (const char c : key) {
      if (!IsKeyChar(c)) return "malformed query";
    }
    const bool has_value = eq != std::string_view::npos;
    std::string error = item(
        key, has_value ? pair.substr(eq + 1) : std::string_view(), has_value);
    if (!error.empty()) return error;
  }
  return {};
}

std::string UnknownParam(std::string_view key) {
  return "unknown query parameter \"" + std::string(key) + "\"";
}

std::string RepeatedParam(std::string_view key) {
  return "query parameter \"" + std::string(key) + "\" given twice";
}

// One numeric query parameter, e.g. depth=5.
struct NumberParam {
  std::string_view name;
  std::size_t value;
  std::size_t max;
  bool seen = false;
};

// Parses `query` into `params`. Every key must be one of `params`, at most
// once, with a decimal value in [0, max]. Returns an error message, or empty
// on success.
std::string ParseQuery(std::string_view query, NumberParam* params,
                       std::size_t n_params) {
  return ForEachQueryItem(
      query,
      [&](std::string_view key, std::string_view value,
          bool has_value) -> std::string {
        NumberParam* param = nullptr;
        for (std::size_t i = 0; i < n_params; ++i) {
          if (params[i].name == key) param = &params[i];
        }
        if (param == nullptr) return UnknownParam(key);
        const std::string range = "query parameter \"" + std::string(key) +
                                  "\" must be an integer from 0 to " +
                                  std::to_string(param->max);
        if (param->seen) return RepeatedParam(key);
        if (!has_value) return range;
        if (value.empty() || value.size() > kMaxNumberLength) return range;
        std::size_t v = 0;
        for (const char c : value) {
          if (c < '0' || c > '9') return range;
          v = v * 10 + static_cast<std::size_t>(c - '0');
        }
        if (v > param->max) return range;
        param->value = v;
        param->seen = true;
        return {};
      });
}

// One date query parameter, e.g. from=2026-12-01.
struct DateParam {
  std::string_view name;
  int64_t day = 0;  // days since 1970-01-01
  bool seen = false;
};

// The query of GET /api/v1/index/{grade}: from, to and revisions.
struct IndexQuery {
  DateParam from{"from"};
  DateParam to{"to"};
  bool all_revisions = false;  // revisions=all
  bool revisions_seen = false;
};

// Parses `query` into *q: "from" and "to" are "YYYY-MM-DD" values of real
// calendar days, "revisions" is "latest" or "all", each at most once.
// Returns an error message, or empty on success.
std::string ParseIndexQuery(std::string_view query, IndexQuery* q) {
  return ForEachQueryItem(
      query,
      [q](std::string_view key, std::string_view value,
          bool has_value) -> std::string {
        if (key == kRevisionsParam) {
          if (q->revisions_seen) return RepeatedParam(key);
          if (!has_value || (value != "latest" && value != "all")) {
            return "query parameter \"revisions\" must be \"latest\" or "
                   "\"all\"";
          }
          q->all_revisions = value == "all";
          q->revisions_seen = true;
          return {};
        }
        DateParam* param = key == q->from.name ? &q->from
                           : key == q->to.name ? &q->to
                                               : nullptr;
        if (param == nullptr) return UnknownParam(key);
        if (param->seen) return RepeatedParam(key);
        const std::optional<int64_t> day =
            has_value ? ParseDay(value) : std::nullopt;
        if (!day) {
          return "query parameter \"" + std::string(key) +
                 "\" must be a date YYYY-MM-DD";
        }
        param->day = *day;
        param->seen = true;
        return {};
      });
}

}  // namespace

HttpApi::HttpApi(const ServerConfig& config, const InstrumentTable& instruments,
                 const MarketDataStore& md, Metrics& metrics,
                 std::function<HealthInfo()> health)
    : instruments_(instruments),
      md_(md),
      metrics_(metrics),
      health_(std::move(health)) {
  engine_.resize(config.instruments.size());
  for (std::size_t i = 0; i < engine_.size(); ++i) {
    engine_[i].id = config.instruments[i].id;
    for (const auto& ic : config.engine.instruments) {
      if (ic.id == engine_[i].id) engine_[i] = ic;
    }
  }
}

HttpApi::Row HttpApi::RowOf(const InstrumentInfo& info) const {
  const std::size_t i = info.id.value - 1;
  Row row{&info, exchange::InstrumentConfig{}};
  if (i < engine_.size()) {
    row.engine = engine_[i];
  } else {
    row.engine.id = info.id;
  }
  return row;
}

bool HttpApi::FindRow(std::string_view symbol, Row* row) const {
  const InstrumentInfo* info = instruments_.Find(symbol);
  if (info == nullptr) return false;
  *row = RowOf(*info);
  return true;
}

bool HttpApi::ReadsIndex(std::string_view target) const {
  const std::string_view path = target.substr(0, target.find('?'));
  return index_ != nullptr &&
         (path == kIndexListPath || path == kIndexPagePath ||
          path.substr(0, kIndexPrefix.size()) == kIndexPrefix);
}

HttpReply HttpApi::Handle(std::string_view method,
                          std::string_view target) const {
  using Endpoint = Metrics::Endpoint;
  if (target.empty() || target.front() != '/' ||
      target.size() > kMaxTargetLength) {
    return Error(400, "malformed request target", Endpoint::kOther);
  }
  for (const char c : target) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '#') {
      return Error(400, "malformed request target", Endpoint::kOther);
    }
  }
  const std::size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query = question == std::string_view::npos
                                     ? std::string_view()
                                     : target.substr(question + 1);

  // Route first, so an unknown path is 404 whatever the method.
  Endpoint endpoint = Endpoint::kOther;
  std::string_view symbol;
  if (path == kInstrumentsPath) {
    endpoint = Endpoint::kInstruments;
  } else if (path.substr(0, kBookPrefix.size()) == kBookPrefix) {
    endpoint = Endpoint::kBook;
    symbol = path.substr(kBookPrefix.size());
  } else if (path.substr(0, kTradesPrefix.size()) == kTradesPrefix) {
    endpoint = Endpoint::kTrades;
    symbol = path.substr(kTradesPrefix.size());
  } else if (path == kHealthPath) {
    endpoint = Endpoint::kHealthz;
  } else if (path == kMetricsPath) {
    endpoint = Endpoint::kMetrics;
  } else if (path == kIndexListPath || path == kIndexPagePath ||
             path.substr(0, kIndexPrefix.size()) == kIndexPrefix) {
    return Index(method, path, query);
  } else {
    return Error(404, "not found", Endpoint::kOther);
  }
  if (method != "GET" && method != "HEAD") {
    return Error(405, "method not allowed", endpoint);
  }

  NumberParam params[1] = {{"", 0, 0}};
  std::size_t n_params = 0;
  if (endpoint == Endpoint::kBook) {
    params[0] = {"depth", kDefaultBookDepth, kMaxBookDepth};
    n_params = 1;
  } else if (endpoint == Endpoint::kTrades) {
    params[0] = {"limit", kDefaultTradeLimit, kMaxTradeLimit};
    n_params = 1;
  }
  if (std::string error = ParseQuery(query, params, n_params); !error.empty()) {
    return Error(400, error, endpoint);
  }

  Row row{nullptr, exchange::InstrumentConfig{}};
  if (endpoint == Endpoint::kBook || endpoint == Endpoint::kTrades) {
    if (!IsValidSymbol(symbol)) return Error(400, "invalid symbol", endpoint);
    if (!FindRow(symbol, &row)) {
      return Error(404, "unknown symbol \"" + std::string(symbol) + "\"",
                   endpoint);
    }
  }

  switch (endpoint) {
    case Endpoint::kInstruments:
      return Instruments();
    case Endpoint::kBook:
      return Book(row, params[0].value);
    case Endpoint::kTrades:
      return Trades(row, params[0].value);
    case Endpoint::kHealthz:
      return Health();
    case Endpoint::kMetrics:
      return HttpReply{200, std::string(kMetricsContentType), metrics_.Render(),
                       Endpoint::kMetrics};
    case Endpoint::kOther:
      break;
  }
  return Error(404, "not found", Endpoint::kOther);
}

HttpReply HttpApi::Instruments() const {
  JsonWriter w;
  std::vector<BookLevel> best;
  w.BeginObject().Key("seq").Uint(md_.last_seq().value);
  w.Key("instruments").BeginArray();
  instruments_.ForEach([&](const InstrumentInfo& info) {
    const Row row = RowOf(info);
    const bool spot = info.kind == exchange::InstrumentKind::kSpot;
    w.BeginObject();
    w.Key("symbol").String(info.symbol);
    w.Key("kind").String(KindName(info.kind));
    w.Key("grade").String(info.grade);
    w.Key("root").String(info.root);
    w.Key("contract_gpu_hours").Int(info.contract_gpu_hours);
    w.Key("maturity").String(spot ? info.delivery_date : info.maturity);
    w.Key("last_trading_day").String(info.last_trading_day);
    w.Key("tick").Price(row.engine.tick);
    w.Key("min_quantity").Int(row.engine.min_quantity.lots);
    w.Key("max_quantity").Int(row.engine.max_quantity.lots);
    w.Key("price_band_bps").Int(row.engine.band_bps);
    w.Key("reference_price").Price(md_.reference_price(info.id));
    w.Key("state").String(StateName(md_.state(info.id)));
    for (const Side side : {Side::kBuy, Side::kSell}) {
      md_.Levels(info.id, side, 1, &best);
      w.Key(side == Side::kBuy ? "best_bid" : "best_ask");
      if (best.empty()) {
        w.Null();
      } else {
        w.Price(best.front().price);
      }
    }
    const exchange::Price last = md_.last_price(info.id);
    w.Key("last_price");
    if (last.units == 0) {
      w.Null();
    } else {
      w.Price(last);
    }
    w.Key("volume").Int(md_.volume(info.id).lots);
    w.EndObject();
  });
  w.EndArray().EndObject();
  return Json(200, w.Take(), Metrics::Endpoint::kInstruments);
}

HttpReply HttpApi::Book(const Row& row, std::size_t depth) const {
  const InstrumentInfo& info = *row.info;
  JsonWriter w;
  std::vector<BookLevel> levels;
  w.BeginObject();
  w.Key("symbol").String(info.symbol);
  w.Key("seq").Uint(md_.last_seq().value);
  w.Key("state").String(StateName(md_.state(info.id)));
  for (const Side side : {Side::kBuy, Side::kSell}) {
    md_.Levels(info.id, side, depth, &levels);
    w.Key(side == Side::kBuy ? "bids" : "asks").BeginArray();
    for (const auto& level : levels) {
      w.BeginObject();
      w.Key("price").Price(level.price);
      w.Key("quantity").Int(level.quantity.lots);
      w.Key("orders").Uint(level.order_count);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  return Json(200, w.Take(), Metrics::Endpoint::kBook);
}

HttpReply HttpApi::Trades(const Row& row, std::size_t limit) const {
  const InstrumentInfo& info = *row.info;
  std::vector<TradeRecord> trades;
  md_.RecentTrades(info.id, limit, &trades);
  JsonWriter w;
  w.BeginObject();
  w.Key("symbol").String(info.symbol);
  w.Key("trades").BeginArray();
  for (const auto& t : trades) {
    w.BeginObject();
    w.Key("trade_id").Uint(t.id.value);
    w.Key("seq").Uint(t.seq.value);
    w.Key("time").String(exchange::FormatUtcTimestamp(t.ts));
    w.Key("price").Price(t.price);
    w.Key("quantity").Int(t.quantity.lots);
    w.Key("aggressor")
        .String(t.aggressor == Side::kBuy    ? "buy"
                : t.aggressor == Side::kSell ? "sell"
                                             : "none");
    w.EndObject();
  }
  w.EndArray().EndObject();
  return Json(200, w.Take(), Metrics::Endpoint::kTrades);
}

HttpReply HttpApi::Health() const {
  HealthInfo h{true, "ok", 0, 0, 0};
  if (health_) h = health_();
  JsonWriter w;
  w.BeginObject();
  w.Key("ok").Bool(h.ok);
  w.Key("status").String(h.status);
  w.Key("durable_seq").Uint(h.durable_seq);
  w.Key("applied_seq").Uint(h.applied_seq);
  w.Key("exchange_time")
      .String(exchange::FormatUtcTimestamp(
          exchange::Timestamp{h.exchange_time_ns}));
  w.Key("exchange_time_ns").Int(h.exchange_time_ns);
  w.EndObject();
  return Json(h.ok ? 200 : 503, w.Take(), Metrics::Endpoint::kHealthz);
}

HttpReply HttpApi::Index(std::string_view method, std::string_view path,
                         std::string_view query) const {
  // Counted with "other": Metrics::Endpoint has no index endpoint.
  constexpr Metrics::Endpoint kEndpoint = Metrics::Endpoint::kOther;
  if (method != "GET" && method != "HEAD") {
    return Error(405, "method not allowed", kEndpoint);
  }
  if (path == kIndexListPath || path == kIndexPagePath) {
    if (std::string error = ParseQuery(query, nullptr, 0); !error.empty()) {
      return Error(400, error, kEndpoint);
    }
    return path == kIndexListPath ? IndexList() : IndexPage();
  }
  const std::string_view name = path.substr(kIndexPrefix.size());
  if (!IsValidSymbol(name)) return Error(400, "invalid grade", kEndpoint);
  IndexQuery q;
  DateParam& from = q.from;
  DateParam& to = q.to;
  if (std::string error = ParseIndexQuery(query, &q); !error.empty()) {
    return Error(400, error, kEndpoint);
  }
  // The grade ("B200-STD") or the index ("CFX-B200-STD").
  int32_t found = -1;
  if (index_ != nullptr) {
    found = index_->FindGrade(name);
    if (const auto grade = index::GradeOfIndexName(name);
        found < 0 && grade.has_value()) {
      found = index_->FindGrade(*grade);
    }
  }
  if (found < 0) {
    return Error(404, "unknown index \"" + std::string(name) + "\"", kEndpoint);
  }
  const auto grade = static_cast<uint32_t>(found);
  const std::string& grade_name = index_->config().grades[grade];
  const index::Print* latest = index_->Latest(grade);
  if (!from.seen && !to.seen) {
    if (latest == nullptr) {
      return Error(404, "no print yet for " + IndexName(grade_name), kEndpoint);
    }
    if (!q.all_revisions) {
      JsonWriter w;
      WriteIndexPrint(grade_name, *latest, &w);
      return Json(200, w.Take(), kEndpoint);
    }
    // Every revision of the latest print's day: a history of that day.
    from.day = to.day = latest->day;
  } else if (from.seen && to.seen) {
    if (from.day > to.day) {
      return Error(400, "query parameter \"from\" is after \"to\"", kEndpoint);
    }
    if (to.day - from.day >= kMaxIndexDays) {
      return Error(
          400,
          "a history covers at most " + std::to_string(kMaxIndexDays) + " days",
          kEndpoint);
    }
  } else if (from.seen) {
    // Up to the latest print, at most kMaxIndexDays.
    to.day = latest == nullptr ? from.day : latest->day;
    to.day = std::clamp(to.day, from.day, from.day + kMaxIndexDays - 1);
  } else {
    // From the first print, at most kMaxIndexDays: the days before the
    // first print have none.
    from.day = to.day - (kMaxIndexDays - 1);
  }
  using Revisions = index::IndexService::HistoryRevisions;
  const Revisions revisions =
      q.all_revisions ? Revisions::kAll : Revisions::kLatest;
  if (q.all_revisions) {
    constexpr std::size_t kMax = index::IndexService::kMaxRevisionsPerRequest;
    const std::size_t n = index_->RevisionCount(grade, from.day, to.day);
    if (n > kMax) {
      return Error(400,
                   FormatDay(from.day) + " to " + FormatDay(to.day) +
                       " holds " + std::to_string(n) +
                       " revisions; a history with every revision holds at "
                       "most " +
                       std::to_string(kMax),
                   kEndpoint);
    }
  }
  JsonWriter w;
  w.BeginObject();
  w.Key("index").String(IndexName(grade_name));
  w.Key("grade").String(grade_name);
  w.Key("from").String(FormatDay(from.day));
  w.Key("to").String(FormatDay(to.day));
  w.Key("revisions").String(q.all_revisions ? "all" : "latest");
  w.Key("prints").BeginArray();
  for (const index::Print& p :
       index_->History(grade, from.day, to.day, revisions)) {
    WriteIndexPrint(grade_name, p, &w);
  }
  w.EndArray().EndObject();
  return Json(200, w.Take(), kEndpoint);
}

HttpReply HttpApi::IndexList() const {
  JsonWriter w;
  w.BeginObject().Key("grades").BeginArray();
  if (index_ != nullptr) {
    const std::vector<std::string>& grades = index_->config().grades;
    for (std::size_t g = 0; g < grades.size(); ++g) {
      w.BeginObject();
      w.Key("index").String(IndexName(grades[g]));
      w.Key("grade").String(grades[g]);
      w.Key("latest");
      if (const index::Print* p = index_->Latest(static_cast<uint32_t>(g))) {
        WriteIndexPrint(grades[g], *p, &w);
      } else {
        w.Null();
      }
      w.EndObject();
    }
  }
  w.EndArray().EndObject();
  return Json(200, w.Take(), Metrics::Endpoint::kOther);
}

HttpReply HttpApi::IndexPage() const {
  std::vector<IndexSeries> series;
  if (index_ != nullptr) {
    const std::vector<std::string>& grades = index_->config().grades;
    for (std::size_t g = 0; g < grades.size(); ++g) {
      IndexSeries s;
      s.grade = grades[g];
      const auto grade = static_cast<uint32_t>(g);
      if (const index::Print* latest = index_->Latest(grade)) {
        s.prints = index_->History(grade, latest->day - (kMaxIndexDays - 1),
                                   latest->day);
      }
      series.push_back(std::move(s));
    }
  }
  return HttpReply{200, std::string(kHtmlContentType), RenderIndexPage(series),
                   Metrics::Endpoint::kOther};
}

}  // namespace cfx::gateway
