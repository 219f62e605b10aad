#pragma once

#include <string>
#include <string_view>

#include "exchange/core/types.h"

namespace cfx::exchange {

// A price as decimal USD: two decimals when it is on the cent grid, else
// four ("5.80", "5.8125", "-0.01"). Exact for every int64 value.
std::string FormatPrice(Price price);

// `s` as a JSON string literal, quotes included: `"` and `\` escaped,
// control characters as \u00XX; other bytes as they are.
std::string JsonString(std::string_view s);

}  // namespace cfx::exchange
