#include "gateway/fix/fix_fields.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>

#include "exchange/civil_date.h"
#include "exchange/core/money.h"
#include "exchange/text_format.h"
#include "gateway/fix/fix_tags.h"

namespace cfx::gateway::fix {

using exchange::TimeInForce;

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr std::size_t kMaxClOrdIdLength = 20;

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

char TifChar(TimeInForce t) {
  switch (t) {
    case TimeInForce::kGtc:
      return '1';
    case TimeInForce::kIoc:
      return '3';
    case TimeInForce::kFok:
      return '4';
    case TimeInForce::kGtd:
      return '6';
    default:
      return '0';
  }
}

std::optional<TimeInForce> TifOf(const std::string* v) {
  if (v == nullptr) return TimeInForce::kDay;
  if (v->size() != 1) return std::nullopt;
  switch ((*v)[0]) {
    case '0':
      return TimeInForce::kDay;
    case '1':
      return TimeInForce::kGtc;
    case '3':
      return TimeInForce::kIoc;
    case '4':
      return TimeInForce::kFok;
    case '6':
      return TimeInForce::kGtd;
    default:
      return std::nullopt;
  }
}

char OrdStatusOf(OrderState s) {
  switch (s) {
    case OrderState::kPartiallyFilled:
      return ord_status::kPartiallyFilled;
    case OrderState::kFilled:
      return ord_status::kFilled;
    case OrderState::kCanceled:
      return ord_status::kCanceled;
    case OrderState::kExpired:
      return ord_status::kExpired;
    default:
      return ord_status::kNew;
  }
}

const std::string& Get(const Message& m, int tag) {
  static const std::string kEmpty;
  const std::string* v = m.Find(tag);
  return v == nullptr ? kEmpty : *v;
}

std::optional<uint64_t> ParseU64(std::string_view s) {
  if (!IsDigits(s) || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "YYYYMMDD-HH:MM:SS" with an optional fraction of 1 to 9 digits, on a date
// that exists in the calendar (ParseCompactDay: no February 31).
std::optional<int64_t> ParseFixTime(std::string_view s) {
  if (s.size() < 17 || s[8] != '-' || s[11] != ':' || s[14] != ':') {
    return std::nullopt;
  }
  auto num = [&](std::size_t at, std::size_t n) -> int {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  const std::optional<int64_t> day = exchange::ParseCompactDay(s.substr(0, 8));
  const int h = num(9, 2), m = num(12, 2), sec = num(15, 2);
  if (!day || h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) {
    return std::nullopt;
  }
  int64_t frac = 0;
  if (s.size() > 17) {
    if (s[17] != '.' || s.size() == 18 || s.size() > 27) return std::nullopt;
    std::size_t digits = s.size() - 18;
    for (std::size_t i = 18; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      frac = frac * 10 + (s[i] - '0');
    }
    for (; digits < 9; ++digits) frac *= 10;
  }
  // A leap second (:60) counts as the first second of the next minute.
  const int64_t t = *day * 86'400 + int64_t{h} * 3'600 + int64_t{m} * 60 + sec;
  // Past 2262-04-11T23:47:16.854775807Z the nanoseconds overflow int64.
  int64_t ns = 0;
  if (__builtin_mul_overflow(t, kNanosPerSecond, &ns) ||
      __builtin_add_overflow(ns, frac, &ns)) {
    return std::nullopt;
  }
  return ns;
}

uint64_t ClientOrderIdForClOrdId(std::string_view text) {
  if (text.empty() || text.size() > kMaxClOrdIdLength) return 0;
  for (char c : text) {
    if (c <= ' ' || c > '~') return 0;
  }
  if (text.size() <= 18 && IsDigits(text) && text[0] != '0') {
    return *ParseU64(text);
  }
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h | (uint64_t{1} << 63);
}

std::optional<int64_t> ParseFixPrice(std::string_view text) {
  // Trailing zeros beyond 4 places carry no value ("5.800000"); 14 whole
  // digits at most.
  const exchange::ParsedDecimal d = exchange::ParseDecimal(
      text, exchange::DecimalSyntax{.decimals = 4,
                                    .zeros_beyond_decimals = true,
                                    .max_whole_digits = 14});
  if (!d.ok()) return std::nullopt;
  return d.value;
}

std::optional<int64_t> ParseFixQuantity(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (dot != std::string_view::npos) {
    const std::string_view frac = text.substr(dot + 1);
    if (frac.empty() || !std::all_of(frac.begin(), frac.end(),
                                     [](char c) { return c == '0'; })) {
      return std::nullopt;
    }
  }
  const auto v = ParseU64(whole);
  if (!v || *v == 0 || *v > static_cast<uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(*v);
}

std::string FormatAvgPx(Int128 notional, int64_t lots) {
  if (lots <= 0) return "0";
  // The notional is in price units; six places are micro-dollars.
  const Int128 num = notional * exchange::kMicrosPerPriceUnit;
  Int128 q = num / lots;
  const Int128 r = num % lots;
  if (2 * r > lots || (2 * r == lots && (q & 1) != 0)) ++q;
  return exchange::FormatMicros(static_cast<int64_t>(q), 0);
}

std::string FormatFixTime(exchange::Timestamp t) {
  const time_t secs = static_cast<time_t>(t.nanos / kNanosPerSecond);
  const int millis = static_cast<int>((t.nanos % kNanosPerSecond) / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d:%02d:%02d.%03d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, millis);
  return buf;
}

}  // namespace cfx::gateway::fix
