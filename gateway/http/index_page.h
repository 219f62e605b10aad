#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/http/json.h"
#include "index/index_name.h"
#include "index/methodology.h"

namespace cfx::gateway {

// The CFX index's public views on the HTTP port (docs/http.md): the JSON
// object of one print and the history page with its SVG chart. Both are
// built from published prints only, which name no firm (DESIGN.md §4.5).

// The index name of a grade (index/index_name.h).
using index::IndexName;

// Micro-dollars as a decimal with at least `min_decimals` places
// (exchange/text_format.h).
using exchange::FormatMicros;

// Appends `print` of `grade` as the JSON object of GET /api/v1/index/{grade}:
// index, grade, date, revision, restated, computed_at, level, disrupted,
// value, trade_count, distinct_sellers, distinct_buyers, gpu_hours, p25,
// p75, partitions_used, usd_per_million_tokens,
// attested_tokens_per_s_per_gpu, trade_ids; the text of index::ReadingOf(),
// null for a field the print does not have. `cfx --json` prints the same.
void WriteIndexPrint(std::string_view grade, const index::Print& print,
                     JsonWriter* w);

// One grade's history on the chart.
struct IndexSeries {
  std::string grade;                 // "B200-STD"
  std::vector<index::Print> prints;  // the latest revision per day, oldest
                                     // first
};

// The HTML page of GET /index: one inline SVG line chart (no script, no
// external asset) with one polyline per grade that has a value, x = fixing
// date, y = value in USD per GPU-hour, and one marker per print whose shape
// shows its level (filled circle 1a/1b, hollow circle 2, square 3, triangle
// 4, red cross DISRUPTED; a print without a value sits on the x axis), each
// with a <title> naming the index, date, value, level and revision; then a
// legend and a table of each grade's latest print. Every text is escaped.
// Works with no grade, no print, and one print.
std::string RenderIndexPage(const std::vector<IndexSeries>& series);

}  // namespace cfx::gateway
