#include "gateway/tools/client/decimal.h"

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>

namespace cfx::gateway::client {
namespace {

constexpr int kMaxDecimals = 4;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Quotes `text` for an error message, shortened so a huge argument cannot
// flood the one-line error.
std::string Quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "\"";
  out.append(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  out += '"';
  return out;
}

// Accumulates decimal digits into *value; false on overflow.
bool AccumulateDigits(std::string_view digits, int64_t* value) {
  for (const char c : digits) {
    if (__builtin_mul_overflow(*value, int64_t{10}, value) ||
        __builtin_add_overflow(*value, int64_t{c - '0'}, value)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<exchange::Price> ParsePrice(std::string_view text) {
  const exchange::ParsedDecimal d = exchange::ParseDecimal(
      text, exchange::DecimalSyntax{.decimals = kMaxDecimals});
  if (d.ok()) return exchange::Price{d.value};
  // Why, by exchange::DecimalError.
  static constexpr const char* kWhy[] = {
      "",
      "empty",
      "expected a digit before '.'",
      "expected an unsigned decimal such as 5.80",
      "expected a digit after '.'",
      "more than 4 decimals (the price grid is $0.0001)",
      "too large",
  };
  static_assert(std::size(kWhy) ==
                static_cast<std::size_t>(exchange::DecimalError::kTooLarge) +
                    1);
  const char* why = kWhy[static_cast<std::size_t>(d.error)];
  return InvalidArgumentError("invalid price " + Quote(text) + ": " + why);
}

Result<exchange::Quantity> ParseQuantity(std::string_view text) {
  const auto invalid = [&](const char* why) {
    return InvalidArgumentError("invalid quantity " + Quote(text) + ": " + why);
  };
  if (text.empty()) return invalid("empty");
  for (const char c : text) {
    if (!IsDigit(c)) return invalid("expected a whole number of lots");
  }
  int64_t lots = 0;
  if (!AccumulateDigits(text, &lots)) return invalid("too large");
  if (lots == 0) return invalid("must be at least 1");
  return exchange::Quantity{lots};
}

}  // namespace cfx::gateway::client
