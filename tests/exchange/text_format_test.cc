// The one home of price and money text (exchange/text_format.h): prices at
// the precision of their rule, money with exactly six decimals.
#include "exchange/text_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace cfx::exchange {
namespace {

constexpr Price kCent{100};  // the B200 tick
constexpr Price kMill{10};   // the FSP's $0.001

TEST(FormatPriceAtStep, ADspHasTheTicksTwoDecimals) {
  EXPECT_EQ(FormatPrice(Price{59'000}, kCent), "5.90");
  EXPECT_EQ(FormatPrice(Price{0}, kCent), "0.00");
  EXPECT_EQ(FormatPrice(Price{-100}, kCent), "-0.01");
}

TEST(FormatPriceAtStep, AnFspHasThreeDecimalsEvenOnTheCent) {
  EXPECT_EQ(FormatPrice(Price{58'080}, kMill), "5.808");
  EXPECT_EQ(FormatPrice(Price{61'200}, kMill), "6.120");
  EXPECT_EQ(FormatPrice(Price{-58'080}, kMill), "-5.808");
}

TEST(FormatPriceAtStep, APriceOffItsStepKeepsEveryDigit) {
  EXPECT_EQ(FormatPrice(Price{58'085}, kMill), "5.8085");
  EXPECT_EQ(FormatPrice(Price{58'080}, kCent), "5.8080");
  EXPECT_EQ(FormatPrice(Price{58'085}, Price{0}), "5.8085");
  EXPECT_EQ(FormatPrice(Price{58'085}, Price{1}), "5.8085");
  // A whole-dollar step still writes cents.
  EXPECT_EQ(FormatPrice(Price{60'000}, Price{10'000}), "6.00");
  EXPECT_EQ(FormatPrice(Price{std::numeric_limits<int64_t>::min()}, kMill),
            "-922337203685477.5808");
}

TEST(FormatAmount, AlwaysSixDecimals) {
  EXPECT_EQ(FormatAmount(Amount{146'000'000}), "146.000000");
  EXPECT_EQ(FormatAmount(Amount{0}), "0.000000");
  EXPECT_EQ(FormatAmount(Amount{-1}), "-0.000001");
  EXPECT_EQ(FormatAmount(Amount{2'020'275'000}), "2020.275000");
  EXPECT_EQ(FormatAmount(Amount{std::numeric_limits<int64_t>::min()}),
            "-9223372036854.775808");
  EXPECT_EQ(FormatAmount(Amount{std::numeric_limits<int64_t>::max()}),
            "9223372036854.775807");
}

TEST(ToHex, TwoLowercaseDigitsPerByte) {
  EXPECT_EQ(ToHex(""), "");
  EXPECT_EQ(ToHex(std::string_view("m\0\xff\x0a", 4)), "6d00ff0a");
}

}  // namespace
}  // namespace cfx::exchange
