#include "gateway/tools/client/decimal.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace cfx::gateway::client {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t Units(const std::string& text) {
  Result<exchange::Price> p = ParsePrice(text);
  EXPECT_TRUE(p.has_value()) << text << ": " << p.error().ToString();
  return p.has_value() ? p.value().units : -1;
}

void ExpectBadPrice(const std::string& text) {
  Result<exchange::Price> p = ParsePrice(text);
  ASSERT_FALSE(p.has_value())
      << "\"" << text << "\" parsed as " << p.value().units;
  EXPECT_EQ(p.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.error().message().find("invalid price"), std::string::npos)
      << p.error().message();
}

TEST(ParsePrice, WholeDollars) {
  EXPECT_EQ(Units("5"), 50'000);
  EXPECT_EQ(Units("0"), 0);
  EXPECT_EQ(Units("10"), 100'000);
}

TEST(ParsePrice, OneToFourDecimals) {
  EXPECT_EQ(Units("5.8"), 58'000);
  EXPECT_EQ(Units("5.80"), 58'000);
  EXPECT_EQ(Units("5.800"), 58'000);
  EXPECT_EQ(Units("5.8000"), 58'000);
  EXPECT_EQ(Units("5.8125"), 58'125);
  EXPECT_EQ(Units("5.01"), 50'100);
  EXPECT_EQ(Units("5.001"), 50'010);
  EXPECT_EQ(Units("0.0001"), 1);
  EXPECT_EQ(Units("0.0"), 0);
}

TEST(ParsePrice, LeadingZerosAreDigits) {
  EXPECT_EQ(Units("05.80"), 58'000);
  EXPECT_EQ(Units("0000000000000000000000000005.80"), 58'000);
}

TEST(ParsePrice, LargestPriceParsesExactly) {
  EXPECT_EQ(Units("922337203685477.5807"), kMax);
  EXPECT_EQ(Units("922337203685477"), kMax - 5807);
}

TEST(ParsePrice, OverflowIsAnError) {
  ExpectBadPrice("922337203685477.5808");
  ExpectBadPrice("922337203685478");
  ExpectBadPrice("9223372036854775807");
  ExpectBadPrice("99999999999999999999999999");
  ExpectBadPrice("18446744073709551616.0");
}

TEST(ParsePrice, MoreThanFourDecimalsIsAnError) {
  ExpectBadPrice("5.80001");
  ExpectBadPrice("5.00000");
  ExpectBadPrice("0.00001");
}

TEST(ParsePrice, SignsAreErrors) {
  ExpectBadPrice("-5.80");
  ExpectBadPrice("+5.80");
  ExpectBadPrice("-0");
  ExpectBadPrice("5.-8");
}

TEST(ParsePrice, ExponentsAreErrors) {
  ExpectBadPrice("5e2");
  ExpectBadPrice("5.8E1");
  ExpectBadPrice("1e-4");
}

TEST(ParsePrice, MalformedTextIsAnError) {
  for (const char* bad :
       {"", ".", ".5", "5.", "5..8", "5.8.1", " 5.80", "5.80 ", "5 .80", "5,80",
        "$5.80", "5.80$", "abc", "0x10", "inf", "nan", "5.8a", "١"}) {
    SCOPED_TRACE(bad);
    ExpectBadPrice(bad);
  }
  ExpectBadPrice(std::string("5\0", 2));
}

TEST(ParsePrice, ErrorQuotesALongArgumentShortened) {
  const std::string huge(1000, '9');
  Result<exchange::Price> p = ParsePrice(huge);
  ASSERT_FALSE(p.has_value());
  EXPECT_LT(p.error().message().size(), 120u);
}

TEST(FormatPrice, CentGridShowsTwoDecimals) {
  EXPECT_EQ(FormatPrice(exchange::Price{58'000}), "5.80");
  EXPECT_EQ(FormatPrice(exchange::Price{50'000}), "5.00");
  EXPECT_EQ(FormatPrice(exchange::Price{100}), "0.01");
  EXPECT_EQ(FormatPrice(exchange::Price{0}), "0.00");
  EXPECT_EQ(FormatPrice(exchange::Price{1'000'000}), "100.00");
}

TEST(FormatPrice, OffCentGridShowsFourDecimals) {
  EXPECT_EQ(FormatPrice(exchange::Price{58'125}), "5.8125");
  EXPECT_EQ(FormatPrice(exchange::Price{58'010}), "5.8010");
  EXPECT_EQ(FormatPrice(exchange::Price{1}), "0.0001");
  EXPECT_EQ(FormatPrice(exchange::Price{50}), "0.0050");
}

TEST(FormatPrice, NegativeAndExtremeValues) {
  EXPECT_EQ(FormatPrice(exchange::Price{-58'000}), "-5.80");
  EXPECT_EQ(FormatPrice(exchange::Price{-1}), "-0.0001");
  EXPECT_EQ(FormatPrice(exchange::Price{kMax}), "922337203685477.5807");
  EXPECT_EQ(FormatPrice(exchange::Price{kMin}), "-922337203685477.5808");
}

TEST(FormatPrice, RoundTripsThroughParsePrice) {
  for (const int64_t units :
       {int64_t{0}, int64_t{1}, int64_t{99}, int64_t{100}, int64_t{58'000},
        int64_t{58'125}, int64_t{9'999}, int64_t{10'000}, kMax - 1, kMax}) {
    SCOPED_TRACE(units);
    EXPECT_EQ(Units(FormatPrice(exchange::Price{units})), units);
  }
}

TEST(ParseQuantity, WholeLots) {
  Result<exchange::Quantity> q = ParseQuantity("5");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q.value().lots, 5);
  q = ParseQuantity("9223372036854775807");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q.value().lots, kMax);
  q = ParseQuantity("007");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q.value().lots, 7);
}

TEST(ParseQuantity, RejectsZeroSignsDecimalsOverflowAndGarbage) {
  for (const char* bad :
       {"", "0", "00", "-1", "+1", "1.5", "1.0", "1e3", " 1", "1 ", "one",
        "9223372036854775808", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    Result<exchange::Quantity> q = ParseQuantity(bad);
    ASSERT_FALSE(q.has_value());
    EXPECT_EQ(q.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(q.error().message().find("invalid quantity"), std::string::npos);
  }
}

}  // namespace
}  // namespace cfx::gateway::client
