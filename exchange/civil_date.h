#pragma once

// Civil (proleptic Gregorian, UTC, no time zones) dates as days since
// 1970-01-01, and their "YYYY-MM-DD" and FIX "YYYYMMDD" text. The one place
// that converts between a day number and a year/month/day (H. Hinnant,
// "chrono-Compatible Low-Level Date Algorithms"); valid for negative years.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cfx::exchange {

// A calendar date: year, month 1-12, day of month 1-31.
struct CivilDate {
  int64_t year = 1970;
  int64_t month = 1;
  int64_t day = 1;
};

// Days since 1970-01-01 of (year, month 1-12, day 1-31) (days_from_civil).
constexpr int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;                          // [0, 399]
  const int64_t mp = m > 2 ? m - 3 : m + 9;                   // [0, 11]
  const int64_t doy = (153 * mp + 2) / 5 + d - 1;             // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;  // [0, 146096]
  return era * 146'097 + doe - 719'468;
}

// The date of `day` days since 1970-01-01 (civil_from_days).
CivilDate CivilFromDays(int64_t day);

bool IsLeapYear(int64_t y);

// Days in month `m` (1-12) of year `y`.
int64_t DaysInMonth(int64_t y, int64_t m);

// "YYYY-MM-DD" of `day` (days since 1970-01-01), e.g. 0 -> "1970-01-01".
std::string FormatDay(int64_t day);

// "YYYYMMDD" of `day` (the FIX LocalMktDate form), e.g. 0 -> "19700101".
std::string FormatCompactDay(int64_t day);

// The day of a "YYYY-MM-DD" date between 1970-01-01 and 9999-12-31 that
// exists in the calendar; nullopt otherwise.
std::optional<int64_t> ParseDay(std::string_view date);

// The same for a "YYYYMMDD" date.
std::optional<int64_t> ParseCompactDay(std::string_view date);

}  // namespace cfx::exchange
