#include "gateway/tools/cli/render.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

namespace {

std::string Price(int64_t units) {
  return client::FormatPrice(exchange::Price{units});
}

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
  return TrimmedLine(buf);
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
  return TrimmedLine(buf);
}

std::string TradeRow(const w::TradePrint& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%-30s  %-18s %10" PRIu64 "  %-4s %6" PRId64 " %10s %10" PRIu64,
                FormatTime(t.time_ns()).c_str(), t.symbol().c_str(),
                t.trade_id(), EnumName(t.aggressor_side()).c_str(),
                t.quantity(), Price(t.price()).c_str(), t.seq());
  return TrimmedLine(buf);
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
    out += TrimmedLine(std::move(line));
  }
  return out;
}

std::string TrimmedLine(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

}  // namespace cfx::gateway::cli
