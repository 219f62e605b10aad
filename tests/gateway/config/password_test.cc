#include "gateway/config/password.h"

#include <gtest/gtest.h>

#include <string>

namespace cfx::gateway {
namespace {

TEST(Password, HashMatchesRfc7914Vector) {
  // RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", 1), first 32 bytes.
  EXPECT_EQ(HashPassword("passwd", "salt", 1),
            "pbkdf2-sha256$1$73616c74$"
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc");
}

TEST(Password, VerifiesOnlyTheRightPassword) {
  const std::string h = HashPassword("demo-trader-a", NewSalt(), 1'000);
  EXPECT_TRUE(VerifyPassword(h, "demo-trader-a"));
  EXPECT_FALSE(VerifyPassword(h, "demo-trader-b"));
  EXPECT_FALSE(VerifyPassword(h, ""));
  EXPECT_TRUE(IsWellFormedPasswordHash(h));
}

TEST(Password, AcceptsUpperCaseHex) {
  EXPECT_TRUE(VerifyPassword(
      "pbkdf2-sha256$80000$4E61436C$"
      "4DDCD8F60B98BE21830CEE5EF22701F9641A4418D04C0414AEFF08876B34AB56",
      "Password"));
}

TEST(Password, RejectsMalformedEncodings) {
  const std::string good = HashPassword("pw", "salt", 1);
  ASSERT_TRUE(VerifyPassword(good, "pw"));
  const std::string hash =
      "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc";
  for (const std::string& bad : {
           std::string(),
           std::string("pbkdf2-sha256"),
           "pbkdf2-sha1$1$73616c74$" + hash,
           "pbkdf2-sha256$0$73616c74$" + hash,
           "pbkdf2-sha256$01$73616c74$" + hash,
           "pbkdf2-sha256$-1$73616c74$" + hash,
           "pbkdf2-sha256$10000001$73616c74$" + hash,
           "pbkdf2-sha256$99999999999999999999$73616c74$" + hash,
           "pbkdf2-sha256$1$$" + hash,
           "pbkdf2-sha256$1$7361c74$" + hash,
           "pbkdf2-sha256$1$73616g74$" + hash,
           "pbkdf2-sha256$1$73616c74$" + hash.substr(2),
           "pbkdf2-sha256$1$73616c74$" + hash + "00",
           "pbkdf2-sha256$1$73616c74$" + hash + "$",
           std::string("pbkdf2-sha256$1$73616c74"),
           "pbkdf2-sha256$1$" + std::string(130, 'a') + "$" + hash,
       }) {
    EXPECT_FALSE(VerifyPassword(bad, "passwd")) << bad;
    EXPECT_FALSE(IsWellFormedPasswordHash(bad)) << bad;
  }
}

TEST(Password, RefusesBadIterationCounts) {
  EXPECT_EQ(HashPassword("pw", "salt", 0), "");
  EXPECT_EQ(HashPassword("pw", "salt", kMaxPasswordIterations + 1), "");
}

TEST(Password, NewSaltIs16RandomBytes) {
  const std::string a = NewSalt();
  const std::string b = NewSalt();
  EXPECT_EQ(a.size(), 16u);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace cfx::gateway
