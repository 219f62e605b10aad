#include "exchange/text_format.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace cfx::exchange {

std::string FormatPrice(Price price) {
  const bool negative = price.units < 0;
  // Magnitude in unsigned arithmetic, so INT64_MIN formats too.
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(price.units)
                                : static_cast<uint64_t>(price.units);
  constexpr auto kPer = static_cast<uint64_t>(kPriceUnitsPerUsd);
  const uint64_t whole = mag / kPer;
  const uint64_t frac = mag % kPer;
  char buf[40];
  if (frac % 100 == 0) {
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%02" PRIu64,
                  negative ? "-" : "", whole, frac / 100);
  } else {
    std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%04" PRIu64,
                  negative ? "-" : "", whole, frac);
  }
  return buf;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

}  // namespace cfx::exchange
