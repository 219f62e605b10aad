#pragma once

#include <string>
#include <string_view>

#include "exchange/core/status.h"
#include "exchange/core/types.h"
#include "exchange/text_format.h"

namespace cfx::gateway::client {

// Text forms of prices and quantities for people (the cfx tool), exact and
// integer-only: a price is USD per GPU-hour on the exchange's 1/10,000 grid
// (exchange::kPriceUnitsPerUsd), so "5.80" is 58,000 units.

// Parses an unsigned USD decimal: digits, optionally '.' and 1 to 4 more
// digits ("5", "5.8", "5.80", "5.8125", "0.0001"). Returns kInvalidArgument
// for anything else: an empty string, a sign, a fifth decimal, an exponent,
// spaces, a lone '.' or a trailing one ("5."), or a value above
// 922337203685477.5807 (INT64_MAX units).
Result<exchange::Price> ParsePrice(std::string_view text);

// "5.80" when the price is on the cent grid, else four decimals ("5.8125")
// (exchange/text_format.h).
using exchange::FormatPrice;

// Parses a positive whole number of lots ("5"). Returns kInvalidArgument for
// zero, signs, decimals, spaces, garbage, or more than INT64_MAX.
Result<exchange::Quantity> ParseQuantity(std::string_view text);

}  // namespace cfx::gateway::client
