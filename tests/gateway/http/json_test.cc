#include "gateway/http/json.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace cfx::gateway {
namespace {

using exchange::Price;

TEST(JsonFormatPrice, TwoDecimalsOnTheCentGrid) {
  EXPECT_EQ(FormatPrice(Price{58'000}), "5.80");
  EXPECT_EQ(FormatPrice(Price{58'100}), "5.81");
  EXPECT_EQ(FormatPrice(Price{0}), "0.00");
  EXPECT_EQ(FormatPrice(Price{100}), "0.01");
  EXPECT_EQ(FormatPrice(Price{1'000'000}), "100.00");
}

TEST(JsonFormatPrice, FourDecimalsOffTheCentGrid) {
  EXPECT_EQ(FormatPrice(Price{58'125}), "5.8125");
  EXPECT_EQ(FormatPrice(Price{58'010}), "5.8010");
  EXPECT_EQ(FormatPrice(Price{1}), "0.0001");
}

TEST(JsonFormatPrice, Negative) {
  EXPECT_EQ(FormatPrice(Price{-58'000}), "-5.80");
  EXPECT_EQ(FormatPrice(Price{-5}), "-0.0005");
  EXPECT_EQ(FormatPrice(Price{std::numeric_limits<int64_t>::min()}),
            "-922337203685477.5808");
  EXPECT_EQ(FormatPrice(Price{std::numeric_limits<int64_t>::max()}),
            "922337203685477.5807");
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

TEST(AppendJsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(Quoted("plain"), R"("plain")");
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("\n\r\t"), R"("\n\r\t")");
  EXPECT_EQ(Quoted(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(Quoted(std::string("a\0b", 3)), R"("a\u0000b")");
  EXPECT_EQ(Quoted("</script>&"), R"("\u003c/script\u003e\u0026")");
  EXPECT_EQ(Quoted("\xc3\xa9"), "\"\xc3\xa9\"");  // UTF-8 passes through
}

TEST(JsonWriter, PlacesCommasAndColons) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(-1);
  w.Key("b").BeginArray().Uint(1).String("x").Null().Bool(false).EndArray();
  w.Key("c").BeginObject().EndObject();
  w.Key("d")
      .BeginArray()
      .BeginObject()
      .Key("e")
      .Bool(true)
      .EndObject()
      .BeginObject()
      .EndObject()
      .EndArray();
  w.Key("p").Price(Price{58'000});
  w.EndObject();
  EXPECT_EQ(w.str(),
            R"({"a":-1,"b":[1,"x",null,false],"c":{},"d":[{"e":true},{}],)"
            R"("p":"5.80"})");
}

}  // namespace
}  // namespace cfx::gateway
