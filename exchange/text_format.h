#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/types.h"

namespace cfx::exchange {

// A price as decimal USD: two decimals when it is on the cent grid, else
// four ("5.80", "5.8125", "-0.01"). Exact for every int64 value.
std::string FormatPrice(Price price);

// A price at the precision of the rule that made it: `step` is that rule's
// grid (a DSP or a trade price: the contract's tick; an FSP: $0.001), and
// the price gets the decimals the step needs, at least two: ("5.90" at a
// $0.01 tick, "5.808" at $0.001). A price off its step, or a step <= 0,
// falls back to FormatPrice(price), so nothing is ever lost.
std::string FormatPrice(Price price, Price step);

// Money as decimal USD with exactly six decimals, the ledger's micro-dollar
// ("146.000000", "-0.000001", "0.000000"): the one money format of every
// settlement report and feed (docs/settlement.md, "Reports"). Exact for
// every int64 value.
std::string FormatAmount(Amount amount);

// Micro-units (micro-dollars, micro-GPU-hours: any 6-decimal fixed point)
// as a decimal with at least `min_decimals` and at most 6 places, exact,
// trailing zeros beyond the minimum dropped: FormatMicros(5'800'000, 3) ==
// "5.800", FormatMicros(6'262'500, 3) == "6.2625", FormatMicros(-5, 3) ==
// "-0.000005", FormatMicros(12'000'000, 0) == "12". Exact for every int64
// value. REQUIRES: 0 <= min_decimals <= 6.
std::string FormatMicros(int64_t micros, int min_decimals);

// `s` as a JSON string literal, quotes included: `"` and `\` escaped,
// control characters as \u00XX; other bytes as they are.
std::string JsonString(std::string_view s);

// `bytes` as lowercase hex, two digits a byte ("6d00ff"): how a message
// names a stored key or value that does not decode.
std::string ToHex(std::string_view bytes);

}  // namespace cfx::exchange
