#pragma once

#include <string>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {

// Text functions return whole lines, each ending in '\n'; JSON functions
// return one object without a newline (render.h).

// The CFX index (docs/cli.md, "Index"). IndexPrintText: a title line
// ("CFX-B200-STD 2026-12-05: 6.125 USD per GPU-hour, level 1a") and one
// "label  value" line per field; at most kMaxTradeIdsShown trade ids, then
// how many more.
inline constexpr int kMaxTradeIdsShown = 20;
std::string IndexPrintText(const wire::v1::IndexPrint& p);
// One row per print: DATE, VALUE, LEVEL, TRADES, GPU_HOURS, RESTATED, and
// COMPUTED_AT after DATE when `computed_at` (every revision of a day).
std::string IndexHistoryText(const std::vector<wire::v1::IndexPrint>& prints,
                             bool computed_at = false);
// The print as one line of JSON: the same object as the HTTP port's
// GET /api/v1/index/{grade} (docs/http.md, "The print object"), null for
// an absent field.
std::string IndexPrintJson(const wire::v1::IndexPrint& p);
// The print, why each higher level did not apply, and tables of the
// contributing trades, the partitions and the excluded trades (a table
// only when it has rows).
std::string IndexExplanationText(const wire::v1::IndexExplanation& x);

}  // namespace cfx::gateway::cli
