#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

// A price with 2 to 4 decimals, trailing zeros beyond two dropped ("5.80",
// "5.812", "5.8125"): how the server config's messages name prices.
// FormatFixedDecimal(price.units, 4, 2).
std::string FormatPriceShort(Price price);

// Money as decimal USD with exactly six decimals, the ledger's micro-dollar
// ("146.000000", "-0.000001", "0.000000"): the one money format of every
// settlement report and feed (docs/settlement.md, "Reports"). Exact for
// every int64 value.
std::string FormatAmount(Amount amount);

// `value` units of 10^-decimals as a decimal with at least `min_decimals`
// and at most `decimals` places, exact, trailing zeros beyond the minimum
// dropped, and no point when no decimal is left: FormatFixedDecimal(58'100,
// 4, 2) == "5.81", FormatFixedDecimal(58'125, 4, 2) == "5.8125",
// FormatFixedDecimal(-5, 6, 3) == "-0.000005", FormatFixedDecimal(12, 0, 0)
// == "12". Exact for every int64 value.
// REQUIRES: 0 <= min_decimals <= decimals <= 9.
std::string FormatFixedDecimal(int64_t value, int decimals, int min_decimals);

// Micro-units (micro-dollars, micro-GPU-hours: any 6-decimal fixed point)
// as FormatFixedDecimal(micros, 6, min_decimals): FormatMicros(5'800'000, 3)
// == "5.800", FormatMicros(6'262'500, 3) == "6.2625", FormatMicros(-5, 3) ==
// "-0.000005", FormatMicros(12'000'000, 0) == "12".
// REQUIRES: 0 <= min_decimals <= 6.
std::string FormatMicros(int64_t micros, int min_decimals);

// ---- Parsing: the one reader of decimal prices and amounts (the config,
// the FIX Price(44), clearing requests, the cfx tool).

// Why decimal text did not parse, in the order ParseDecimal checks.
enum class DecimalError : uint8_t {
  kNone = 0,
  kEmpty,               // ""
  kNoDigitBeforePoint,  // ".5", "."
  kNotADigit,           // a sign, a blank, an exponent, a second '.', ...
  kNoDigitAfterPoint,   // "5."
  kTooManyDecimals,     // more fraction digits than the syntax takes
  kTooLarge,  // more whole digits than the syntax takes, or past INT64_MAX
};

// The decimal text a caller takes: digits, optionally '.' and one or more
// digits; never a sign, blank or exponent.
struct DecimalSyntax {
  // The fixed point: the value is in units of 10^-decimals (4: price
  // units, 6: micro-dollars). REQUIRES: 0 <= decimals <= 9. Default: 4.
  int decimals = 4;
  // Whether fraction digits beyond `decimals` are taken when they are all
  // '0' ("5.800000" at 4 decimals, as FIX prices). Default: false.
  bool zeros_beyond_decimals = false;
  // More digits than this before the point are kTooLarge; 0 = only the
  // int64 bound. Default: 0.
  std::size_t max_whole_digits = 0;
};

struct ParsedDecimal {
  int64_t value = 0;  // units of 10^-decimals; 0 unless ok()
  DecimalError error = DecimalError::kNone;
  bool ok() const { return error == DecimalError::kNone; }
};

// Parses `text` exactly into units of 10^-syntax.decimals ("5.80" at 4
// decimals is 58'000), or the first problem found, in DecimalError's order.
// Zero is a value; a caller that wants it positive checks.
ParsedDecimal ParseDecimal(std::string_view text, const DecimalSyntax& syntax);

// ParseDecimal(text, {decimals}).value, or nullopt on any error and for
// `decimals` outside 0..9: ParseFixedDecimal("5.80", 4) == 58'000.
std::optional<int64_t> ParseFixedDecimal(std::string_view text, int decimals);

// `s` as a JSON string literal, quotes included: `"` and `\` escaped,
// control characters as \u00XX; other bytes as they are.
std::string JsonString(std::string_view s);

// `bytes` as lowercase hex, two digits a byte ("6d00ff"): how a message
// names a stored key or value that does not decode.
std::string ToHex(std::string_view bytes);

}  // namespace cfx::exchange
