// The one home of price and money text (exchange/text_format.h): prices at
// the precision of their rule, money with exactly six decimals, and the one
// decimal reader.
#include "exchange/text_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>

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

TEST(FormatFixedDecimal, KeepsTheMinimumAndDropsFurtherTrailingZeros) {
  EXPECT_EQ(FormatFixedDecimal(58'000, 4, 2), "5.80");
  EXPECT_EQ(FormatFixedDecimal(58'120, 4, 2), "5.812");
  EXPECT_EQ(FormatFixedDecimal(58'125, 4, 2), "5.8125");
  EXPECT_EQ(FormatFixedDecimal(-5, 6, 3), "-0.000005");
  EXPECT_EQ(FormatFixedDecimal(12'000'000, 6, 0), "12");
  EXPECT_EQ(FormatFixedDecimal(12, 0, 0), "12");
  EXPECT_EQ(FormatFixedDecimal(std::numeric_limits<int64_t>::min(), 4, 2),
            "-922337203685477.5808");
  EXPECT_EQ(FormatMicros(5'805'000, 0), "5.805");
}

TEST(ParseDecimal, ReadsExactFixedPoint) {
  EXPECT_EQ(ParseDecimal("5.80", {.decimals = 4}).value, 58'000);
  EXPECT_EQ(ParseDecimal("5", {.decimals = 4}).value, 50'000);
  EXPECT_EQ(ParseDecimal("0.000001", {.decimals = 6}).value, 1);
  EXPECT_EQ(ParseDecimal("007.5", {.decimals = 6}).value, 7'500'000);
  EXPECT_EQ(ParseDecimal("0", {.decimals = 4}).value, 0);
  EXPECT_TRUE(ParseDecimal("0", {.decimals = 4}).ok());
  EXPECT_EQ(ParseDecimal("922337203685477.5807", {.decimals = 4}).value,
            std::numeric_limits<int64_t>::max());
}

TEST(ParseDecimal, NamesTheFirstProblemInItsOrder) {
  const DecimalSyntax four{.decimals = 4};
  EXPECT_EQ(ParseDecimal("", four).error, DecimalError::kEmpty);
  EXPECT_EQ(ParseDecimal(".5", four).error, DecimalError::kNoDigitBeforePoint);
  EXPECT_EQ(ParseDecimal(".", four).error, DecimalError::kNoDigitBeforePoint);
  EXPECT_EQ(ParseDecimal("-5", four).error, DecimalError::kNotADigit);
  EXPECT_EQ(ParseDecimal("5.8.0", four).error, DecimalError::kNotADigit);
  EXPECT_EQ(ParseDecimal("5.", four).error, DecimalError::kNoDigitAfterPoint);
  EXPECT_EQ(ParseDecimal("5.12345x", four).error, DecimalError::kNotADigit);
  EXPECT_EQ(ParseDecimal("5.12345", four).error,
            DecimalError::kTooManyDecimals);
  EXPECT_EQ(ParseDecimal("5.80000", four).error,
            DecimalError::kTooManyDecimals);
  EXPECT_EQ(ParseDecimal("922337203685477.5808", four).error,
            DecimalError::kTooLarge);
  EXPECT_EQ(ParseDecimal("1.5", four).value, 15'000);
  EXPECT_EQ(ParseDecimal("5.8", four).error, DecimalError::kNone);
}

TEST(ParseDecimal, OptionsWidenOnlyTheCallerThatAsks) {
  const DecimalSyntax fix{
      .decimals = 4, .zeros_beyond_decimals = true, .max_whole_digits = 14};
  EXPECT_EQ(ParseDecimal("5.800000", fix).value, 58'000);
  EXPECT_EQ(ParseDecimal("5.800010", fix).error,
            DecimalError::kTooManyDecimals);
  EXPECT_EQ(ParseDecimal("99999999999999", fix).value,
            int64_t{99'999'999'999'999} * 10'000);
  EXPECT_EQ(ParseDecimal("100000000000000", fix).error,
            DecimalError::kTooLarge);
  EXPECT_TRUE(ParseDecimal("100000000000000", {.decimals = 4}).ok());
}

TEST(ParseFixedDecimal, NulloptOnAnyErrorAndOutOfRangeDecimals) {
  EXPECT_EQ(ParseFixedDecimal("5.80", 4), 58'000);
  EXPECT_EQ(ParseFixedDecimal("5.", 4), std::nullopt);
  EXPECT_EQ(ParseFixedDecimal("5", 10), std::nullopt);
  EXPECT_EQ(ParseFixedDecimal("5", -1), std::nullopt);
}

TEST(ToHex, TwoLowercaseDigitsPerByte) {
  EXPECT_EQ(ToHex(""), "");
  EXPECT_EQ(ToHex(std::string_view("m\0\xff\x0a", 4)), "6d00ff0a");
}

}  // namespace
}  // namespace cfx::exchange
