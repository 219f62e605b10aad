// The one civil-date module (exchange/civil_date.h): days since 1970-01-01
// to "YYYY-MM-DD" / "YYYYMMDD" and back.
#include "exchange/civil_date.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace cfx::exchange {
namespace {

constexpr int64_t kLastDay = 2'932'896;  // 9999-12-31

TEST(CivilDate, FormatsKnownDaysBothWays) {
  EXPECT_EQ(FormatDay(0), "1970-01-01");
  EXPECT_EQ(FormatCompactDay(0), "19700101");
  EXPECT_EQ(FormatDay(11'016), "2000-02-29");
  EXPECT_EQ(FormatDay(20'792), "2026-12-05");
  EXPECT_EQ(FormatCompactDay(20'792), "20261205");
  EXPECT_EQ(FormatDay(kLastDay), "9999-12-31");
  EXPECT_EQ(FormatCompactDay(kLastDay), "99991231");
  EXPECT_EQ(FormatDay(-1), "1969-12-31");
}

TEST(CivilDate, RoundTripsEveryDayOfTheRangeInBothForms) {
  for (int64_t day = 0; day <= kLastDay; day += 7) {
    ASSERT_EQ(ParseDay(FormatDay(day)), day) << day;
    ASSERT_EQ(ParseCompactDay(FormatCompactDay(day)), day) << day;
    const CivilDate c = CivilFromDays(day);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), day) << day;
  }
  for (int64_t day = kLastDay - 400; day <= kLastDay; ++day) {
    ASSERT_EQ(ParseDay(FormatDay(day)), day) << day;
  }
}

TEST(CivilDate, LeapDaysExistOnlyInLeapYears) {
  EXPECT_EQ(ParseDay("2000-02-29"), 11'016);
  EXPECT_EQ(ParseDay("2024-02-29"), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(ParseCompactDay("20240229"), DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(ParseDay("1900-02-29"), std::nullopt);
  EXPECT_EQ(ParseDay("2100-02-29"), std::nullopt);
  EXPECT_EQ(ParseDay("2026-02-29"), std::nullopt);
  EXPECT_EQ(ParseCompactDay("20260229"), std::nullopt);
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2026, 2), 28);
  EXPECT_EQ(DaysInMonth(2026, 4), 30);
  EXPECT_EQ(DaysInMonth(2026, 12), 31);
}

TEST(CivilDate, ParsesTheEndsOfTheRange) {
  EXPECT_EQ(ParseDay("1970-01-01"), 0);
  EXPECT_EQ(ParseCompactDay("19700101"), 0);
  EXPECT_EQ(ParseDay("9999-12-31"), kLastDay);
  EXPECT_EQ(ParseCompactDay("99991231"), kLastDay);
}

TEST(CivilDate, RejectsMalformedDates) {
  for (const char* bad :
       {"", "1969-12-31", "2026-13-01", "2026-00-10", "2026-04-31",
        "2026-04-00", "2026-4-01", "2026-04-1", "2026/04/01", "2026-04-01 ",
        " 2026-04-01", "+026-04-01", "2026-0a-01", "20260401", "2026-04-01T"}) {
    EXPECT_EQ(ParseDay(bad), std::nullopt) << '"' << bad << '"';
  }
  for (const char* bad : {"", "19691231", "20261301", "20260431", "2026041",
                          "202604011", "2026-4-1", "2026O401", "+0260401"}) {
    EXPECT_EQ(ParseCompactDay(bad), std::nullopt) << '"' << bad << '"';
  }
}

}  // namespace
}  // namespace cfx::exchange
