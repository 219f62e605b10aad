#include "gateway/crypto/base64.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace cfx::gateway::crypto {
namespace {

TEST(Base64, RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 70; ++n) {
    const std::string text = Base64Encode(bytes);
    Result<std::string> back = Base64DecodeStrict(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(back.value(), bytes);
    bytes.push_back(static_cast<char>(n * 37 + 5));
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
}

TEST(Base64, StrictDecodeRejectsNonCanonicalText) {
  for (std::string_view bad : {"Zm8", "Zm9=", "Zh==", "Zg=a",
                               "Z===", "Zm 8=", "Zm8=\n", "Zg==Zg==", "Zm-_"}) {
    EXPECT_FALSE(Base64DecodeStrict(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace cfx::gateway::crypto
