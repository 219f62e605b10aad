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

std::string FormatPrice(Price price, Price step) {
  if (step.units <= 0) return FormatPrice(price);
  // Decimals the step needs (at least two), and the units per last digit.
  int decimals = 4;
  int64_t per_digit = 1;
  for (int64_t s = step.units; decimals > 2 && s % 10 == 0; s /= 10) {
    --decimals;
    per_digit *= 10;
  }
  if (decimals == 2 || price.units % per_digit != 0) return FormatPrice(price);
  const bool negative = price.units < 0;
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(price.units)
                                : static_cast<uint64_t>(price.units);
  constexpr auto kPer = static_cast<uint64_t>(kPriceUnitsPerUsd);
  const auto digit = static_cast<uint64_t>(per_digit);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%0*" PRIu64,
                negative ? "-" : "", mag / kPer, decimals,
                (mag % kPer) / digit);
  return buf;
}

std::string FormatMicros(int64_t micros, int min_decimals) {
  const bool negative = micros < 0;
  // Magnitude in unsigned arithmetic, so INT64_MIN formats too.
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(micros)
                                : static_cast<uint64_t>(micros);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64,
                negative ? "-" : "", mag / 1'000'000, mag % 1'000'000);
  std::string out = buf;
  const std::size_t min_size =
      out.find('.') + 1 + static_cast<std::size_t>(min_decimals);
  while (out.size() > min_size && out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();  // no decimals left: no point either
  return out;
}

std::string FormatAmount(Amount amount) { return FormatMicros(amount.micros, 6); }

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

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

}  // namespace cfx::exchange
