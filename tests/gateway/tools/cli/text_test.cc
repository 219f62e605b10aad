#include "gateway/tools/cli/text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {
namespace {

namespace w = cfx::wire::v1;

int64_t Ns(const std::string& text) {
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  EXPECT_TRUE(d.has_value()) << text << ": " << d.error().ToString();
  return d.has_value() ? d.value().count() : -1;
}

constexpr int64_t kSecond = 1'000'000'000;

TEST(ParseDuration, EachUnit) {
  EXPECT_EQ(Ns("250ms"), 250'000'000);
  EXPECT_EQ(Ns("90s"), 90 * kSecond);
  EXPECT_EQ(Ns("15m"), 15 * 60 * kSecond);
  EXPECT_EQ(Ns("6h"), 6 * 3600 * kSecond);
  EXPECT_EQ(Ns("2d"), 2 * 86400 * kSecond);
  EXPECT_EQ(Ns("0s"), 0);
}

TEST(ParseDuration, GroupsAddUp) {
  EXPECT_EQ(Ns("1h30m"), 5400 * kSecond);
  EXPECT_EQ(Ns("1d1h1m1s1ms"), (86400 + 3600 + 60 + 1) * kSecond + 1'000'000);
  EXPECT_EQ(Ns("1m1m"), 120 * kSecond);
}

TEST(ParseDuration, RejectsMalformedText) {
  for (const char* bad :
       {"", "5", "s", "m5", "5x", "5 s", " 5s", "5s ", "-5s", "+5s", "1.5h",
        "5S", "5sec", "5mss", "1h30", "5us", "5ns"}) {
    SCOPED_TRACE(bad);
    Result<std::chrono::nanoseconds> d = ParseDuration(bad);
    ASSERT_FALSE(d.has_value());
    EXPECT_EQ(d.error().code(), StatusCode::kInvalidArgument);
  }
}

TEST(ParseDuration, RejectsOverflow) {
  EXPECT_EQ(Ns("106751d"), int64_t{106751} * 86400 * kSecond);
  EXPECT_FALSE(ParseDuration("106752d").has_value());
  EXPECT_FALSE(ParseDuration("9223372036854775808ms").has_value());
  EXPECT_FALSE(ParseDuration("106751d106751d").has_value());
}

TEST(EnumName, StripsTheTypePrefix) {
  EXPECT_EQ(EnumName(w::EXEC_TYPE_TRADE), "TRADE");
  EXPECT_EQ(EnumName(w::ORDER_STATUS_PARTIALLY_FILLED), "PARTIALLY_FILLED");
  EXPECT_EQ(EnumName(w::REJECT_REASON_PRICE_NOT_ON_TICK), "PRICE_NOT_ON_TICK");
  EXPECT_EQ(EnumName(w::TIME_IN_FORCE_GTD), "GTD");
  EXPECT_EQ(EnumName(w::STP_MODE_ACCOUNT_DEFAULT), "ACCOUNT_DEFAULT");
  EXPECT_EQ(EnumName(w::LOGON_REJECT_REASON_NONCE_REUSED), "NONCE_REUSED");
  EXPECT_EQ(EnumName(w::SIDE_SELL), "SELL");
}

TEST(EnumName, UnknownValueIsItsNumber) {
  EXPECT_EQ(EnumName(static_cast<w::RejectReason>(777)), "777");
  EXPECT_EQ(EnumName(static_cast<w::Side>(-1)), "-1");
}

TEST(JsonObject, EscapesAndOrdersKeys) {
  EXPECT_EQ(JsonObject().str(), "{}");
  EXPECT_EQ(JsonObject()
                .Str("s", "a\"b\\c\n\x01")
                .Int("i", -5)
                .Uint("u", 18'446'744'073'709'551'615u)
                .Bool("b", true)
                .Raw("r", "[1,2]")
                .str(),
            "{\"s\":\"a\\\"b\\\\c\\u000a\\u0001\",\"i\":-5,"
            "\"u\":18446744073709551615,\"b\":true,\"r\":[1,2]}");
}

}  // namespace
}  // namespace cfx::gateway::cli
