// The FIX gateway's field conversions (docs/fix.md "Numbers" and
// "ClOrdID"): exact decimals, whole lots, ClOrdID mapping, AvgPx rounding.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "gateway/fix/fix_gateway.h"

namespace cfx::gateway::fix {
namespace {

TEST(FixPrice, ParsesDecimalsExactly) {
  EXPECT_EQ(ParseFixPrice("5.80"), 58'000);
  EXPECT_EQ(ParseFixPrice("5.8"), 58'000);
  EXPECT_EQ(ParseFixPrice("5"), 50'000);
  EXPECT_EQ(ParseFixPrice("5.8125"), 58'125);
  EXPECT_EQ(ParseFixPrice("0.0001"), 1);
  // Zeros past the fourth place carry no value.
  EXPECT_EQ(ParseFixPrice("5.800000"), 58'000);
}

TEST(FixPrice, RejectsWhatItCannotRepresent) {
  for (const char* bad :
       {"", ".", "5.", ".5", "-5.80", "+5.80", "5.80001", "5.805001", "5e1",
        " 5.80", "5.80 ", "5,80", "123456789012345.0", "abc"}) {
    EXPECT_FALSE(ParseFixPrice(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(FixQuantity, AcceptsWholeLotsOnly) {
  EXPECT_EQ(ParseFixQuantity("5"), 5);
  EXPECT_EQ(ParseFixQuantity("5.0"), 5);
  EXPECT_EQ(ParseFixQuantity("5.000"), 5);
  for (const char* bad : {"", "0", "0.0", "5.5", "-5", "5.", "1e3", " 5",
                          "99999999999999999999"}) {
    EXPECT_FALSE(ParseFixQuantity(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(FixClOrdId, ShortNumbersAreTheClientOrderIdItself) {
  EXPECT_EQ(ClientOrderIdForClOrdId("1"), 1u);
  EXPECT_EQ(ClientOrderIdForClOrdId("123456789012345678"), 123456789012345678u);
}

TEST(FixClOrdId, OtherTextHashesIntoTheTopHalf) {
  for (const char* text :
       {"A-1", "01", "1234567890123456789", "x", "12345678901234567890"}) {
    const uint64_t id = ClientOrderIdForClOrdId(text);
    EXPECT_NE(id, 0u) << text;
    EXPECT_NE(id >> 63, 0u) << text;
    EXPECT_EQ(id, ClientOrderIdForClOrdId(text)) << "stable: " << text;
  }
  EXPECT_NE(ClientOrderIdForClOrdId("A-1"), ClientOrderIdForClOrdId("A-2"));
}

TEST(FixClOrdId, InvalidTextMapsToZero) {
  EXPECT_EQ(ClientOrderIdForClOrdId(""), 0u);
  EXPECT_EQ(ClientOrderIdForClOrdId("has space"), 0u);
  EXPECT_EQ(ClientOrderIdForClOrdId("123456789012345678901"), 0u);  // 21
  EXPECT_EQ(ClientOrderIdForClOrdId(std::string("a\x01")), 0u);
  EXPECT_EQ(ClientOrderIdForClOrdId("caf\xc3\xa9"), 0u);
}

TEST(FixAvgPx, RoundsHalfEvenToSixPlaces) {
  EXPECT_EQ(FormatAvgPx(0, 0), "0");
  EXPECT_EQ(FormatAvgPx(Int128{58'000} * 3, 3), "5.8");
  // 5.80 x 1 + 5.81 x 2 = 17.42 over 3 lots = 5.806666...
  EXPECT_EQ(FormatAvgPx(Int128{58'000} + Int128{58'100} * 2, 3), "5.806667");
  // 1 unit over 8 lots = 0.0000125 USD: exactly half way at six places,
  // rounds to the even 0.000012.
  EXPECT_EQ(FormatAvgPx(1, 8), "0.000012");
  // 3 units over 8 lots = 0.0000375: half way, rounds up to even 0.000038.
  EXPECT_EQ(FormatAvgPx(3, 8), "0.000038");
}

TEST(FixTime, FormatsUtcMilliseconds) {
  // 2026-12-01T00:00:00Z plus 1.5 s.
  const exchange::Timestamp t{int64_t{1'796'083'200} * 1'000'000'000 +
                              1'500'000'000};
  EXPECT_EQ(FormatFixTime(t), "20261201-00:00:01.500");
}

// Found by tests/fuzz/fix_message_fuzzer (its corpus keeps the message as
// crash-time-beyond-int64-ns): a time past the last int64 nanosecond since
// the epoch is no time (ExpireTime(126) is then refused), not an overflow.
TEST(FixTime, TimesBeyondInt64NanosecondsAreRejected) {
  EXPECT_EQ(ParseFixTime("20261201-00:00:01.5"),
            int64_t{1'796'083'200} * 1'000'000'000 + 1'500'000'000);
  EXPECT_EQ(ParseFixTime("22620411-23:47:16.854775807"),
            std::numeric_limits<int64_t>::max());
  for (const char* bad : {"22620411-23:47:16.854775808",
                          "22620411-23:47:17", "60261201-12:00:00.000",
                          "99991231-23:59:59.999999999"}) {
    EXPECT_FALSE(ParseFixTime(bad).has_value()) << bad;
  }
}

// A date that the calendar does not have is no time: timegm would move
// February 31 on to March 3 and accept it.
TEST(FixTime, DatesThatDoNotExistAreRejected) {
  for (const char* bad : {"20260231-12:00:00", "20270229-00:00:00.000",
                          "20261131-23:59:59", "20261200-00:00:00",
                          "19691231-23:59:59"}) {
    EXPECT_FALSE(ParseFixTime(bad).has_value()) << bad;
  }
  EXPECT_EQ(ParseFixTime("20280229-00:00:00"),
            int64_t{1'835'395'200} * 1'000'000'000);
  // A leap second reads as the first second of the next minute, as before.
  EXPECT_EQ(ParseFixTime("20261231-23:59:60"),
            int64_t{1'798'761'600} * 1'000'000'000);
}

}  // namespace
}  // namespace cfx::gateway::fix
