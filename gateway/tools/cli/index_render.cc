#include "gateway/tools/cli/index_render.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "gateway/pb/index_desk.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

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
    if (!partitions.empty()) partitions += ' ';
    partitions += std::to_string(k);
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
  return TrimmedLine(title) + FormatTable(rows, {});
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
    for (const std::string& note : x.notes()) out += TrimmedLine("  " + note);
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
                      OrDash(t.seller()), OrDash(t.buyer())});
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

}  // namespace cfx::gateway::cli
