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

std::string FormatFixedDecimal(int64_t value, int decimals, int min_decimals) {
  const bool negative = value < 0;
  // Magnitude in unsigned arithmetic, so INT64_MIN formats too.
  const uint64_t mag = negative ? 0 - static_cast<uint64_t>(value)
                                : static_cast<uint64_t>(value);
  uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%0*" PRIu64,
                negative ? "-" : "", mag / scale, decimals, mag % scale);
  std::string out = buf;
  if (decimals == 0) out.pop_back();  // "%0*" wrote one '0' for width 0
  const std::size_t min_size =
      out.find('.') + 1 + static_cast<std::size_t>(min_decimals);
  while (out.size() > min_size && out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();  // no decimals left: no point either
  return out;
}

std::string FormatPriceShort(Price price) {
  return FormatFixedDecimal(price.units, 4, 2);
}

std::string FormatMicros(int64_t micros, int min_decimals) {
  return FormatFixedDecimal(micros, 6, min_decimals);
}

std::string FormatAmount(Amount amount) { return FormatMicros(amount.micros, 6); }

namespace {

bool AllDigits(std::string_view s) {
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

ParsedDecimal ParseDecimal(std::string_view text, const DecimalSyntax& syntax) {
  const auto fail = [](DecimalError e) { return ParsedDecimal{0, e}; };
  if (text.empty()) return fail(DecimalError::kEmpty);
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  std::string_view frac =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty()) return fail(DecimalError::kNoDigitBeforePoint);
  if (!AllDigits(whole)) return fail(DecimalError::kNotADigit);
  if (dot != std::string_view::npos) {
    if (frac.empty()) return fail(DecimalError::kNoDigitAfterPoint);
    if (!AllDigits(frac)) return fail(DecimalError::kNotADigit);
  }
  const auto decimals = static_cast<std::size_t>(syntax.decimals);
  if (syntax.zeros_beyond_decimals) {
    while (frac.size() > decimals && frac.back() == '0') frac.remove_suffix(1);
  }
  if (frac.size() > decimals) return fail(DecimalError::kTooManyDecimals);
  if (syntax.max_whole_digits != 0 && whole.size() > syntax.max_whole_digits) {
    return fail(DecimalError::kTooLarge);
  }
  int64_t value = 0;
  const auto push = [&value](char c) {
    return !__builtin_mul_overflow(value, int64_t{10}, &value) &&
           !__builtin_add_overflow(value, int64_t{c - '0'}, &value);
  };
  for (const char c : whole) {
    if (!push(c)) return fail(DecimalError::kTooLarge);
  }
  for (std::size_t i = 0; i < decimals; ++i) {
    if (!push(i < frac.size() ? frac[i] : '0')) {
      return fail(DecimalError::kTooLarge);
    }
  }
  return ParsedDecimal{value, DecimalError::kNone};
}

std::optional<int64_t> ParseFixedDecimal(std::string_view text, int decimals) {
  if (decimals < 0 || decimals > 9) return std::nullopt;
  const ParsedDecimal d =
      ParseDecimal(text, DecimalSyntax{.decimals = decimals});
  if (!d.ok()) return std::nullopt;
  return d.value;
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
