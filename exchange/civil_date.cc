#include "exchange/civil_date.h"

#include <cstddef>
#include <cstdio>

namespace cfx::exchange {

namespace {

// "YYYY" `sep` "MM" `sep` "DD"; no separator when `sep` is 0.
std::string FormatDate(int64_t day, char sep) {
  const CivilDate c = CivilFromDays(day);
  char buf[80];  // room for any int64 fields, so GCC sees no truncation
  if (sep == 0) {
    std::snprintf(buf, sizeof buf, "%04lld%02lld%02lld",
                  static_cast<long long>(c.year),
                  static_cast<long long>(c.month),
                  static_cast<long long>(c.day));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld%c%02lld%c%02lld",
                  static_cast<long long>(c.year), sep,
                  static_cast<long long>(c.month), sep,
                  static_cast<long long>(c.day));
  }
  return buf;
}

// The day of the 4-digit year, 2-digit month and 2-digit day at `starts` in
// `date`, between 1970-01-01 and 9999-12-31; nullopt unless all are digits
// and the date exists.
std::optional<int64_t> ParseFields(std::string_view date,
                                   const std::size_t (&starts)[3]) {
  int64_t parts[3] = {0, 0, 0};
  const std::size_t lens[3] = {4, 2, 2};
  for (int i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < lens[i]; ++j) {
      const char c = date[starts[i] + j];
      if (c < '0' || c > '9') return std::nullopt;
      parts[i] = parts[i] * 10 + (c - '0');
    }
  }
  const int64_t y = parts[0], m = parts[1], d = parts[2];
  if (y < 1970 || m < 1 || m > 12 || d < 1) return std::nullopt;
  if (d > DaysInMonth(y, m)) return std::nullopt;
  return DaysFromCivil(y, m, d);
}

}  // namespace

CivilDate CivilFromDays(int64_t day) {
  const int64_t z = day + 719'468;
  const int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const int64_t doe = z - era * 146'097;
  const int64_t yoe = (doe - doe / 1'460 + doe / 36'524 - doe / 146'096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  CivilDate c;
  c.day = doy - (153 * mp + 2) / 5 + 1;
  c.month = mp < 10 ? mp + 3 : mp - 9;
  c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
  return c;
}

bool IsLeapYear(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int64_t DaysInMonth(int64_t y, int64_t m) {
  static constexpr int64_t kDays[12] = {31, 28, 31, 30, 31, 30,
                                        31, 31, 30, 31, 30, 31};
  if (m == 2 && IsLeapYear(y)) return 29;
  return kDays[m - 1];
}

std::string FormatDay(int64_t day) { return FormatDate(day, '-'); }

std::string FormatCompactDay(int64_t day) { return FormatDate(day, 0); }

std::optional<int64_t> ParseDay(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') {
    return std::nullopt;
  }
  return ParseFields(date, {0, 5, 8});
}

std::optional<int64_t> ParseCompactDay(std::string_view date) {
  if (date.size() != 8) return std::nullopt;
  return ParseFields(date, {0, 4, 6});
}

}  // namespace cfx::exchange
