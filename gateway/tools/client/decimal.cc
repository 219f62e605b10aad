#include "gateway/tools/client/decimal.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
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
  const auto invalid = [&](const char* why) {
    return InvalidArgumentError("invalid price " + Quote(text) + ": " + why);
  };
  if (text.empty()) return invalid("empty");
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty()) return invalid("expected a digit before '.'");
  for (const char c : whole) {
    if (!IsDigit(c)) {
      return invalid("expected an unsigned decimal such as 5.80");
    }
  }
  if (dot != std::string_view::npos) {
    if (frac.empty()) return invalid("expected a digit after '.'");
    for (const char c : frac) {
      if (!IsDigit(c)) {
        return invalid("expected an unsigned decimal such as 5.80");
      }
    }
    if (frac.size() > kMaxDecimals) {
      return invalid("more than 4 decimals (the price grid is $0.0001)");
    }
  }
  int64_t units = 0;
  int64_t frac_units = 0;
  bool ok = AccumulateDigits(whole, &units) &&
            !__builtin_mul_overflow(units, exchange::kPriceUnitsPerUsd, &units);
  ok = ok && AccumulateDigits(frac, &frac_units);
  for (std::size_t i = frac.size(); ok && i < kMaxDecimals; ++i) {
    frac_units *= 10;
  }
  ok = ok && !__builtin_add_overflow(units, frac_units, &units);
  if (!ok) return invalid("too large");
  return exchange::Price{units};
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
