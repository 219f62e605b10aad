#include "gateway/tools/cli/render.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>

#include "exchange/text_format.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "gateway/pb/index_desk.h"
#include "gateway/tools/cli/settlement_sections.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

namespace {

std::string Price(int64_t units) {
  return client::FormatPrice(exchange::Price{units});
}

std::string Trim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string Line(std::string s) { return Trim(std::move(s)) + "\n"; }

// The fixed-width execution report row.
std::string ReportColumns(const std::string& exec, const std::string& status,
                          const std::string& order_id,
                          const std::string& client_order_id,
                          const std::string& symbol, const std::string& side,
                          const std::string& quantity, const std::string& price,
                          const std::string& leaves, const std::string& filled,
                          const std::string& detail) {
  char buf[512];
  std::snprintf(
      buf, sizeof buf, "%-12s %-16s %10s %20s  %-18s %-4s %6s %10s %6s %6s  %s",
      exec.c_str(), status.c_str(), order_id.c_str(), client_order_id.c_str(),
      symbol.c_str(), side.c_str(), quantity.c_str(), price.c_str(),
      leaves.c_str(), filled.c_str(), detail.c_str());
  return Line(buf);
}

}  // namespace

std::string ReasonText(const std::string& name, const std::string& text) {
  if (text.empty() || text == name) return name;
  // A text that already starts with the name ("GRADE_NOT_ELIGIBLE:
  // NO_RATING") is shown as it is.
  if (text.rfind(name + ":", 0) == 0) return text;
  return name + ": " + text;
}

std::string ExecutionReportHeader() {
  return ReportColumns("EXEC", "STATUS", "ORDER_ID", "CLIENT_ORDER_ID",
                       "SYMBOL", "SIDE", "QTY", "PRICE", "LEAVES", "FILLED",
                       "DETAIL");
}

std::string ExecutionReportRow(const w::ExecutionReport& r) {
  std::string detail;
  switch (r.exec_type()) {
    case w::EXEC_TYPE_TRADE:
      detail = std::to_string(r.last_quantity()) + " @ " +
               Price(r.last_price()) + " trade " +
               std::to_string(r.trade_id()) +
               (r.aggressor() ? " taker" : " maker");
      break;
    case w::EXEC_TYPE_CANCELED:
    case w::EXEC_TYPE_EXPIRED:
    case w::EXEC_TYPE_RESTATED:
      if (r.cancel_reason() != w::CANCEL_REASON_UNSPECIFIED) {
        detail = EnumName(r.cancel_reason());
      }
      break;
    case w::EXEC_TYPE_REJECTED:
      detail = ReasonText(EnumName(r.reject_reason()), r.text());
      break;
    default:
      if (r.reject_reason() != w::REJECT_REASON_UNSPECIFIED) {
        detail = ReasonText(EnumName(r.reject_reason()), r.text());
      } else {
        detail = r.text();
      }
      break;
  }
  const bool has_order = r.order_id() != 0;
  return ReportColumns(
      EnumName(r.exec_type()), EnumName(r.order_status()),
      has_order ? std::to_string(r.order_id()) : "-",
      r.client_order_id() != 0 ? std::to_string(r.client_order_id()) : "-",
      r.symbol().empty() ? "-" : r.symbol(),
      r.side() == w::SIDE_UNSPECIFIED ? "-" : EnumName(r.side()),
      std::to_string(r.quantity()),
      // Limit prices are positive: 0 is a market order's.
      r.price() == 0 && r.order_type() != w::ORDER_TYPE_LIMIT
          ? "MARKET"
          : Price(r.price()),
      std::to_string(r.leaves_quantity()), std::to_string(r.cum_quantity()),
      detail);
}

std::string ExecutionReportJson(const w::ExecutionReport& r) {
  JsonObject o;
  o.Str("type", "execution_report")
      .Str("exec_type", EnumName(r.exec_type()))
      .Str("order_status", EnumName(r.order_status()))
      .Uint("order_id", r.order_id())
      .Uint("client_order_id", r.client_order_id())
      .Str("symbol", r.symbol())
      .Str("side", EnumName(r.side()));
  // The gateway's reports may leave these unset.
  if (r.order_type() != w::ORDER_TYPE_UNSPECIFIED) {
    o.Str("order_type", EnumName(r.order_type()));
  }
  if (r.time_in_force() != w::TIME_IN_FORCE_UNSPECIFIED) {
    o.Str("time_in_force", EnumName(r.time_in_force()));
  }
  o.Str("price", Price(r.price()))
      .Int("quantity", r.quantity())
      .Int("leaves_quantity", r.leaves_quantity())
      .Int("cum_quantity", r.cum_quantity());
  if (r.exec_type() == w::EXEC_TYPE_TRADE) {
    o.Str("last_price", Price(r.last_price()))
        .Int("last_quantity", r.last_quantity())
        .Uint("trade_id", r.trade_id())
        .Bool("aggressor", r.aggressor());
  }
  if (r.reject_reason() != w::REJECT_REASON_UNSPECIFIED) {
    o.Str("reject_reason", EnumName(r.reject_reason()));
  }
  if (r.cancel_reason() != w::CANCEL_REASON_UNSPECIFIED) {
    o.Str("cancel_reason", EnumName(r.cancel_reason()));
  }
  o.Str("text", r.text())
      .Uint("seq", r.seq())
      .Uint("index", r.index())
      .Str("transact_time", FormatTime(r.transact_time_ns()))
      .Int("transact_time_ns", r.transact_time_ns());
  return o.str();
}

std::string CancelRejectJson(const w::CancelReject& r) {
  return JsonObject()
      .Str("type", "cancel_reject")
      .Bool("replace", r.replace())
      .Uint("order_id", r.order_id())
      .Uint("client_order_id", r.client_order_id())
      .Str("reason", EnumName(r.reason()))
      .Str("text", r.text())
      .Uint("seq", r.seq())
      .Uint("index", r.index())
      .Str("transact_time", FormatTime(r.transact_time_ns()))
      .Int("transact_time_ns", r.transact_time_ns())
      .str();
}

std::string MassCancelReportText(const w::MassCancelReport& r) {
  std::string scope = r.symbol().empty() ? "all symbols" : r.symbol();
  return "mass cancel (" + scope + "): " + std::to_string(r.cancelled()) +
         (r.cancelled() == 1 ? " order" : " orders") + " cancelled\n";
}

std::string MassCancelReportJson(const w::MassCancelReport& r) {
  JsonObject o;
  o.Str("type", "mass_cancel_report")
      .Uint("client_order_id", r.client_order_id())
      .Str("symbol", r.symbol())
      .Uint("cancelled", r.cancelled());
  if (r.reject_reason() != w::REJECT_REASON_UNSPECIFIED) {
    o.Str("reject_reason", EnumName(r.reject_reason()));
  }
  return o.Str("text", r.text())
      .Uint("seq", r.seq())
      .Uint("index", r.index())
      .Str("transact_time", FormatTime(r.transact_time_ns()))
      .Int("transact_time_ns", r.transact_time_ns())
      .str();
}

std::string SessionRejectJson(const w::SessionReject& r) {
  return JsonObject()
      .Str("type", "session_reject")
      .Str("reason", EnumName(r.reason()))
      .Str("text", r.text())
      .Str("message_type", r.message_type())
      .Str("field", r.field())
      .Uint("client_order_id", r.client_order_id())
      .str();
}

std::string TradeHeader() {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-30s  %-18s %10s  %-4s %6s %10s %10s",
                "TIME", "SYMBOL", "TRADE_ID", "SIDE", "QTY", "PRICE", "SEQ");
  return Line(buf);
}

std::string TradeRow(const w::TradePrint& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%-30s  %-18s %10" PRIu64 "  %-4s %6" PRId64 " %10s %10" PRIu64,
                FormatTime(t.time_ns()).c_str(), t.symbol().c_str(),
                t.trade_id(), EnumName(t.aggressor_side()).c_str(),
                t.quantity(), Price(t.price()).c_str(), t.seq());
  return Line(buf);
}

std::string TradeJson(const w::TradePrint& t) {
  return JsonObject()
      .Str("type", "trade")
      .Str("symbol", t.symbol())
      .Uint("trade_id", t.trade_id())
      .Str("price", Price(t.price()))
      .Int("quantity", t.quantity())
      .Str("aggressor_side", EnumName(t.aggressor_side()))
      .Str("time", FormatTime(t.time_ns()))
      .Int("time_ns", t.time_ns())
      .Uint("seq", t.seq())
      .str();
}

std::string BookUpdateJson(const w::BookUpdate& u) {
  return JsonObject()
      .Str("type", "book_update")
      .Str("symbol", u.symbol())
      .Uint("seq", u.seq())
      .Str("side", EnumName(u.side()))
      .Str("price", Price(u.price()))
      .Int("quantity", u.quantity())
      .Uint("orders", u.order_count())
      .str();
}

std::string InstrumentsText(const w::InstrumentList& list) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"SYMBOL", "KIND", "GRADE", "STATE", "TICK", "REF_PRICE",
                  "BAND_BPS", "MIN_QTY", "MAX_QTY", "GPU_HOURS", "MATURITY",
                  "LAST_TRADING_DAY"});
  for (const w::Instrument& i : list.instruments()) {
    rows.push_back(
        {i.symbol(), EnumName(i.kind()), i.grade(), EnumName(i.state()),
         Price(i.tick()), Price(i.reference_price()),
         std::to_string(i.price_band_bps()), std::to_string(i.min_quantity()),
         std::to_string(i.max_quantity()),
         std::to_string(i.contract_gpu_hours()), i.maturity(),
         i.last_trading_day()});
  }
  return FormatTable(rows, {4, 5, 6, 7, 8, 9});
}

std::string InstrumentJson(const w::Instrument& i) {
  return JsonObject()
      .Str("type", "instrument")
      .Str("symbol", i.symbol())
      .Str("kind", EnumName(i.kind()))
      .Str("grade", i.grade())
      .Str("state", EnumName(i.state()))
      .Str("tick", Price(i.tick()))
      .Str("reference_price", Price(i.reference_price()))
      .Int("price_band_bps", i.price_band_bps())
      .Int("min_quantity", i.min_quantity())
      .Int("max_quantity", i.max_quantity())
      .Int("contract_gpu_hours", i.contract_gpu_hours())
      .Str("maturity", i.maturity())
      .Str("last_trading_day", i.last_trading_day())
      .str();
}

std::string GradesText(const w::GradeList& list) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"GRADE", "HARDWARE", "MIN_RATING", "MIN_TOKENS_PER_S",
                  "RECIPE", "MAX_ATTESTATION_AGE_DAYS", "REGION",
                  "INITIAL_REF_PRICE"});
  for (const w::Grade& g : list.grades()) {
    rows.push_back({g.name(), g.hardware(), g.min_rating(),
                    std::to_string(g.min_output_tokens_per_s_per_gpu()),
                    g.recipe(), std::to_string(g.max_attestation_age_days()),
                    g.region(), Price(g.initial_reference_price())});
  }
  return FormatTable(rows, {3, 5, 7});
}

std::string GradeJson(const w::Grade& g) {
  return JsonObject()
      .Str("type", "grade")
      .Str("name", g.name())
      .Str("hardware", g.hardware())
      .Str("min_rating", g.min_rating())
      .Int("min_output_tokens_per_s_per_gpu",
           g.min_output_tokens_per_s_per_gpu())
      .Str("recipe", g.recipe())
      .Int("max_attestation_age_days", g.max_attestation_age_days())
      .Str("region", g.region())
      .Str("initial_reference_price", Price(g.initial_reference_price()))
      .str();
}

std::string ClockText(const w::ClockReport& c) {
  return FormatTime(c.now_ns()) + (c.simulated() ? "  simulated" : "  wall") +
         "\n";
}

std::string ClockJson(const w::ClockReport& c) {
  return JsonObject()
      .Str("type", "clock")
      .Str("now", FormatTime(c.now_ns()))
      .Int("now_ns", c.now_ns())
      .Bool("simulated", c.simulated())
      .str();
}

// ---------------------------------------------------------------- index

namespace {

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

// The level as every interface spells it ("1a" ... "DISRUPTED").
std::string LevelText(const w::IndexPrint& p) { return OrDash(p.level_name()); }

std::string TradeIdsText(const w::IndexPrint& p) {
  if (p.trade_ids().empty()) return "-";
  std::string out;
  const int shown = std::min(p.trade_ids_size(), kMaxTradeIdsShown);
  for (int i = 0; i < shown; ++i) {
    if (i > 0) out += ' ';
    out += std::to_string(p.trade_ids(i));
  }
  // trade_count is the whole input set; the print may carry fewer ids.
  const uint64_t total = std::max<uint64_t>(
      p.trade_count(), static_cast<uint64_t>(p.trade_ids_size()));
  if (total > static_cast<uint64_t>(shown)) {
    out += " ... and " + std::to_string(total - static_cast<uint64_t>(shown)) +
           " more";
  }
  return out;
}

}  // namespace

std::string IndexPrintText(const w::IndexPrint& p) {
  std::string title = p.index() + " " + p.date() + ": " +
                      (p.has_value() ? p.value() + " USD per GPU-hour"
                                     : std::string("no value")) +
                      ", level " + LevelText(p);
  if (p.disrupted()) title += ", DISRUPTED";
  if (p.restated()) title += ", RESTATED";
  std::string partitions;
  for (uint32_t k : p.partitions_used()) {
    partitions += (partitions.empty() ? "" : " ") + std::to_string(k);
  }
  std::vector<std::vector<std::string>> rows = {
      {"value", p.has_value() ? p.value() : "none"},
      {"level", LevelText(p)},
      {"disrupted", p.disrupted() ? "yes" : "no"},
      {"revision", std::to_string(p.revision()) +
                       (p.restated() ? " (restated)" : " (fixing)")},
      {"computed at", FormatTime(p.computed_at_ns())},
      {"trades", std::to_string(p.trade_count())},
      {"sellers", std::to_string(p.distinct_sellers())},
      {"buyers", std::to_string(p.distinct_buyers())},
      {"GPU-hours", std::to_string(p.gpu_hours())},
      {"p25", OrDash(p.p25())},
      {"p75", OrDash(p.p75())},
      {"partitions", OrDash(partitions)},
      {"USD per million tokens", OrDash(p.usd_per_million_tokens())},
      {"attested tokens/s/GPU", OrDash(p.attested_tokens_per_s_per_gpu())},
      {"trade ids", TradeIdsText(p)},
  };
  return Line(title) + FormatTable(rows, {});
}

std::string IndexHistoryText(const std::vector<w::IndexPrint>& prints,
                             bool computed_at) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"DATE", "VALUE", "LEVEL", "TRADES", "GPU_HOURS", "RESTATED"});
  if (computed_at) rows[0].insert(rows[0].begin() + 1, "COMPUTED_AT");
  for (const w::IndexPrint& p : prints) {
    rows.push_back(
        {p.date(), p.has_value() ? p.value() : "-", LevelText(p),
         std::to_string(p.trade_count()), std::to_string(p.gpu_hours()),
         p.restated() ? "yes (revision " + std::to_string(p.revision()) + ")"
                      : "-"});
    if (computed_at) {
      rows.back().insert(rows.back().begin() + 1,
                         FormatTime(p.computed_at_ns()));
    }
  }
  const std::size_t shift = computed_at ? 1 : 0;
  return FormatTable(rows, {1 + shift, 3 + shift, 4 + shift});
}

std::string IndexPrintJson(const w::IndexPrint& p) {
  JsonWriter w;
  WriteIndexPrint(p.grade(), pb::PrintFromWire(p), &w);
  return w.Take();
}

std::string IndexExplanationText(const w::IndexExplanation& x) {
  std::string out = IndexPrintText(x.print());
  if (!x.notes().empty()) {
    out += "why not a higher level:\n";
    for (const std::string& note : x.notes()) out += Line("  " + note);
  }
  if (x.trades().empty()) {
    out += "contributing trades: none\n";
  } else {
    out += "contributing trades:\n";
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"TRADE_ID", "AGE", "PRICE", "GPU_HOURS", "WEIGHT", "KEPT",
                    "PARTITION", "SELLER", "BUYER"});
    for (const w::IndexContributingTrade& t : x.trades()) {
      rows.push_back({std::to_string(t.trade_id()),
                      std::to_string(t.age_days()), t.price(),
                      std::to_string(t.gpu_hours()), t.weight(),
                      OrDash(t.kept_weight()),
                      t.partition() == 0 ? "-" : std::to_string(t.partition()),
                      t.seller(), t.buyer()});
    }
    out += FormatTable(rows, {0, 1, 2, 3, 4, 5, 6});
  }
  if (!x.partitions().empty()) {
    out += "partitions:\n";
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"PARTITION", "TRADES", "VWM"});
    for (const w::IndexPartition& pv : x.partitions()) {
      rows.push_back({std::to_string(pv.partition()),
                      std::to_string(pv.trade_count()), pv.vwm()});
    }
    out += FormatTable(rows, {0, 1, 2});
  }
  if (!x.excluded().empty()) {
    out += "excluded trades:\n";
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"TRADE_ID", "AGE", "PRICE", "REASON"});
    for (const w::IndexExcludedTrade& t : x.excluded()) {
      rows.push_back({std::to_string(t.trade_id()),
                      std::to_string(t.age_days()), t.price(), t.reason()});
    }
    out += FormatTable(rows, {0, 1, 2});
  }
  return out;
}

std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::size_t>& right) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(width[c] - row[c].size(), ' ');
      const bool align_right =
          std::find(right.begin(), right.end(), c) != right.end();
      line += align_right ? pad + row[c] : row[c] + pad;
    }
    out += Line(std::move(line));
  }
  return out;
}

void LocalBook::Reset(const w::BookSnapshot& s) {
  symbol_ = s.symbol();
  seq_ = s.seq();
  snapshot_seq_ = s.seq();
  state_ = s.state();
  bids_.clear();
  asks_.clear();
  for (const w::Level& l : s.bids()) {
    bids_[l.price()] = Level{l.quantity(), l.order_count()};
  }
  for (const w::Level& l : s.asks()) {
    asks_[l.price()] = Level{l.quantity(), l.order_count()};
  }
}

bool LocalBook::Apply(const w::BookUpdate& u) {
  if (u.symbol() != symbol_ || u.seq() <= snapshot_seq_) return false;
  const Level level{u.quantity(), u.order_count()};
  switch (u.side()) {
    case w::SIDE_BUY:
      if (u.quantity() == 0) {
        bids_.erase(u.price());
      } else {
        bids_[u.price()] = level;
      }
      break;
    case w::SIDE_SELL:
      if (u.quantity() == 0) {
        asks_.erase(u.price());
      } else {
        asks_[u.price()] = level;
      }
      break;
    default:
      return false;
  }
  seq_ = std::max(seq_, u.seq());
  return true;
}

std::string LocalBook::Text(std::size_t depth) const {
  std::string out = symbol_ + "  " + EnumName(state_) + "  seq " +
                    std::to_string(seq_) + "\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%6s %10s %10s | %-10s %-10s %-6s", "ORDERS",
                "BID_QTY", "BID", "ASK", "ASK_QTY", "ORDERS");
  out += Line(buf);
  std::size_t rows = std::max(bids_.size(), asks_.size());
  if (depth != 0) rows = std::min(rows, depth);
  auto bid = bids_.begin();
  auto ask = asks_.begin();
  for (std::size_t i = 0; i < rows; ++i) {
    std::string left(6 + 1 + 10 + 1 + 10, ' ');
    std::string right;
    if (bid != bids_.end()) {
      std::snprintf(buf, sizeof buf, "%6u %10" PRId64 " %10s",
                    bid->second.orders, bid->second.quantity,
                    Price(bid->first).c_str());
      left = buf;
      ++bid;
    }
    if (ask != asks_.end()) {
      std::snprintf(buf, sizeof buf, "%-10s %-10" PRId64 " %-6u",
                    Price(ask->first).c_str(), ask->second.quantity,
                    ask->second.orders);
      right = buf;
      ++ask;
    }
    out += Line(left + " | " + right);
  }
  if (rows == 0) out += "(empty book)\n";
  return out;
}

std::string LocalBook::Json(std::size_t depth) const {
  const auto levels = [depth](const auto& side) {
    std::string json = "[";
    std::size_t n = 0;
    for (const auto& [price, level] : side) {
      if (depth != 0 && n == depth) break;
      if (n++ > 0) json += ',';
      json += JsonObject()
                  .Str("price", Price(price))
                  .Int("quantity", level.quantity)
                  .Uint("orders", level.orders)
                  .str();
    }
    return json + "]";
  };
  return JsonObject()
      .Str("type", "book")
      .Str("symbol", symbol_)
      .Uint("seq", seq_)
      .Str("state", EnumName(state_))
      .Raw("bids", levels(bids_))
      .Raw("asks", levels(asks_))
      .str();
}

// ---------------------------------------------------------------- clearing

namespace {

std::string SettlementPriceJson(const w::SettlementPrice& c) {
  return JsonObject()
      .Str("symbol", c.symbol())
      .Str("price", c.price())
      .Str("tier", c.tier())
      .Bool("final", c.final())
      .Bool("disrupted", c.disrupted())
      .Int("open_interest", c.open_interest())
      .str();
}

std::string SettlementPricesJson(
    const google::protobuf::RepeatedPtrField<w::SettlementPrice>& contracts) {
  std::string out = "[";
  for (const w::SettlementPrice& c : contracts) {
    if (out.size() > 1) out += ',';
    out += SettlementPriceJson(c);
  }
  return out + "]";
}

std::string MarginCallJson(const w::MarginCall& c) {
  return JsonObject()
      .Str("account", c.account())
      .Str("clearing_member", c.clearing_member())
      .Str("date", c.date())
      .Str("initial_margin", c.initial_margin())
      .Str("collateral", c.collateral())
      .Str("amount_due", c.amount_due())
      .Str("collateral_now", c.collateral_now())
      .Str("outstanding", c.outstanding())
      .Str("status", c.met() ? "MET" : "OPEN")
      .str();
}

}  // namespace

std::string SettlementReportText(const w::SettlementReport& r) {
  std::string out = "settlement " + r.date() + "\n";
  std::vector<std::vector<std::string>> contracts = {
      {"CONTRACT", "PRICE", "TIER", "OPEN_INTEREST", "FLAGS"}};
  for (const w::SettlementPrice& c : r.contracts()) {
    contracts.push_back({c.symbol(), c.price(), c.tier(),
                         std::to_string(c.open_interest()), ContractFlags(c)});
  }
  out += contracts.size() > 1 ? FormatTable(contracts, {1, 3})
                              : std::string("contracts: none\n");
  std::vector<std::vector<std::string>> positions = {
      {"ACCOUNT", "MEMBER", "CONTRACT", "POSITION", "VM", "FLAGS"}};
  std::vector<std::vector<std::string>> accounts = {
      {"ACCOUNT", "MEMBER", "FILLS", "VM", "SPOT_CASH", "IM", "COLLATERAL"}};
  for (const w::AccountSettlement& a : r.accounts()) {
    for (const w::PositionLine& p : a.positions()) {
      positions.push_back({a.account(), a.clearing_member(), p.symbol(),
                           std::to_string(p.position()), p.variation_margin(),
                           p.closed() ? "closed" : ""});
    }
    accounts.push_back({a.account(), a.clearing_member(),
                        std::to_string(a.fills()), a.variation_margin(),
                        a.spot_cash(), a.initial_margin(), a.collateral()});
  }
  out += "\n";
  out += positions.size() > 1 ? FormatTable(positions, {3, 4})
                              : std::string("positions: none\n");
  out += "\n";
  out += accounts.size() > 1 ? FormatTable(accounts, {2, 3, 4, 5, 6})
                             : std::string("accounts: none\n");
  out += "\n" + SettlementFinalsText(r);
  out += "\n" + SettlementTradesText(r);
  out += "\n" + SettlementMovementsText(r);
  out += "\n" + SettlementMarginCallsText(r);
  return out;
}

std::string SettlementReportCsv(const w::SettlementReport& r) {
  std::string out =
      CsvLine({"date", "account", "clearing_member", "contract", "position",
               "settlement_price", "tier", "variation_margin", "spot_cash",
               "initial_margin", "collateral", "flags"});
  const std::string zero = exchange::FormatAmount(exchange::Amount{});
  for (const w::AccountSettlement& a : r.accounts()) {
    for (const w::PositionLine& p : a.positions()) {
      std::string price;
      std::string tier;
      for (const w::SettlementPrice& c : r.contracts()) {
        if (c.symbol() == p.symbol()) {
          price = c.price();
          tier = c.tier();
        }
      }
      out += CsvLine({r.date(), a.account(), a.clearing_member(), p.symbol(),
                      std::to_string(p.position()), price, tier,
                      p.variation_margin(), zero, a.initial_margin(),
                      a.collateral(), PositionFlags(r, p)});
    }
    const bool spot = !IsZeroDecimal(a.spot_cash());
    if (spot) {
      out += CsvLine({r.date(), a.account(), a.clearing_member(), "SPOT", "",
                      "", "", zero, a.spot_cash(), a.initial_margin(),
                      a.collateral(), ""});
    }
    if (a.positions().empty() && !spot) {
      out += CsvLine({r.date(), a.account(), a.clearing_member(), "", "", "",
                      "", zero, zero, a.initial_margin(), a.collateral(), ""});
    }
  }
  out += "\n" + SettlementContractsCsv(r);
  out += "\n" + SettlementFinalsCsv(r);
  out += "\n" + SettlementTradesCsv(r);
  out += "\n" + SettlementMovementsCsv(r);
  out += "\n" + SettlementMarginCallsCsv(r);
  return out;
}

std::string SettlementReportJson(const w::SettlementReport& r) {
  std::string accounts = "[";
  for (const w::AccountSettlement& a : r.accounts()) {
    std::string positions = "[";
    for (const w::PositionLine& p : a.positions()) {
      if (positions.size() > 1) positions += ',';
      positions += JsonObject()
                       .Str("symbol", p.symbol())
                       .Int("position", p.position())
                       .Str("variation_margin", p.variation_margin())
                       .Bool("closed", p.closed())
                       .Int("final_quantity", p.final_quantity())
                       .str();
    }
    positions += "]";
    if (accounts.size() > 1) accounts += ',';
    accounts += JsonObject()
                    .Str("account", a.account())
                    .Str("clearing_member", a.clearing_member())
                    .Raw("positions", positions)
                    .Int("fills", a.fills())
                    .Str("variation_margin", a.variation_margin())
                    .Str("spot_cash", a.spot_cash())
                    .Str("initial_margin", a.initial_margin())
                    .Str("collateral", a.collateral())
                    .str();
  }
  accounts += "]";
  // The run's margin calls: account and amount due.
  std::string calls = "[";
  for (const w::AccountSettlement& a : r.accounts()) {
    if (IsZeroDecimal(a.margin_call())) continue;
    if (calls.size() > 1) calls += ',';
    calls += JsonObject()
                 .Str("account", a.account())
                 .Str("clearing_member", a.clearing_member())
                 .Str("amount_due", a.margin_call())
                 .str();
  }
  calls += "]";
  return JsonObject()
      .Str("type", "settlement_report")
      .Str("date", r.date())
      .Raw("contracts", SettlementPricesJson(r.contracts()))
      .Raw("accounts", accounts)
      .Raw("trades", SettlementTradesJson(r))
      .Raw("movements", SettlementMovementsJson(r))
      .Raw("margin_calls", calls)
      .str();
}

std::string MarginCallListText(const w::MarginCallList& l) {
  if (l.calls().empty()) return "margin calls " + l.date() + ": none\n";
  std::vector<std::vector<std::string>> rows = {
      {"ACCOUNT", "MEMBER", "IM", "COLLATERAL", "DUE", "COLLATERAL_NOW",
       "OUTSTANDING", "STATUS"}};
  for (const w::MarginCall& c : l.calls()) {
    rows.push_back({c.account(), c.clearing_member(), c.initial_margin(),
                    c.collateral(), c.amount_due(), c.collateral_now(),
                    c.outstanding(), c.met() ? "MET" : "OPEN"});
  }
  return "margin calls " + l.date() + "\n" + FormatTable(rows, {2, 3, 4, 5, 6});
}

std::string MarginCallListJson(const w::MarginCallList& l) {
  std::string calls = "[";
  for (const w::MarginCall& c : l.calls()) {
    if (calls.size() > 1) calls += ',';
    calls += MarginCallJson(c);
  }
  calls += "]";
  return JsonObject()
      .Str("type", "margin_calls")
      .Str("date", l.date())
      .Raw("calls", calls)
      .str();
}

std::string SettlementStatusText(const w::SettlementStatus& s) {
  std::string out = s.ok() ? std::string("settlement: ok\n")
                           : Line("settlement: STOPPED: " + s.error());
  if (!s.refused_date().empty()) {
    std::string waiting;
    for (const std::string& d : s.waiting_dates()) waiting += " " + d;
    out += "refused run: " + s.refused_date() + " (cfx settle rerun " +
           s.refused_date() + " once fixed); waiting:" + waiting + "\n";
  }
  if (s.settled_dates().empty()) return out + "settled dates: none\n";
  out += "latest settled date: " + s.latest_date() + "\n";
  std::vector<std::vector<std::string>> contracts = {
      {"CONTRACT", "PRICE", "TIER", "OPEN_INTEREST", "FLAGS"}};
  for (const w::SettlementPrice& c : s.contracts()) {
    contracts.push_back({c.symbol(), c.price(), c.tier(),
                         std::to_string(c.open_interest()), ContractFlags(c)});
  }
  if (contracts.size() > 1) out += FormatTable(contracts, {1, 3});
  out += "settled dates (" + std::to_string(s.settled_dates_size()) + "):";
  for (const std::string& d : s.settled_dates()) out += " " + d;
  return out + "\n";
}

std::string SettlementStatusJson(const w::SettlementStatus& s) {
  std::string dates = "[";
  for (const std::string& d : s.settled_dates()) {
    if (dates.size() > 1) dates += ',';
    dates += JsonString(d);
  }
  dates += "]";
  JsonObject o;
  o.Str("type", "settlement_status")
      .Bool("ok", s.ok())
      .Str("error", s.error())
      .Str("latest_date", s.latest_date())
      .Raw("contracts", SettlementPricesJson(s.contracts()))
      .Raw("settled_dates", dates);
  // A refused run: its date and the dates its re-run performs.
  if (!s.refused_date().empty()) {
    std::string waiting = "[";
    for (const std::string& d : s.waiting_dates()) {
      if (waiting.size() > 1) waiting += ',';
      waiting += JsonString(d);
    }
    o.Str("refused_date", s.refused_date()).Raw("waiting_dates", waiting + "]");
  }
  return o.str();
}

std::string CollateralAckText(const w::CollateralAck& a) {
  const bool withdrawal = !a.amount().empty() && a.amount()[0] == '-';
  const std::string amount = withdrawal ? a.amount().substr(1) : a.amount();
  return a.account() + ": " + (withdrawal ? "withdrew " : "deposited ") +
         amount + ", collateral " + a.collateral_after() + "\n";
}

std::string CollateralAckJson(const w::CollateralAck& a) {
  JsonObject o;
  o.Str("type", "collateral")
      .Str("account", a.account())
      .Str("amount", a.amount())
      .Bool("accepted", a.accepted());
  if (a.accepted()) {
    o.Str("collateral_after", a.collateral_after()).Uint("seq", a.seq());
  } else {
    o.Str("reason", EnumName(a.reason())).Str("text", a.text());
  }
  return o.str();
}

}  // namespace cfx::gateway::cli
