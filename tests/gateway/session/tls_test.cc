// The TLS contexts and the handshake failure log (gateway/session/tls.h).

#include "gateway/session/tls.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace cfx::gateway {
namespace {

class TlsServerContextTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cfx::testing::WriteTestCerts(dir_.path())); }
  TlsFiles Files(const std::string& cert, const std::string& key) const {
    return TlsFiles{dir_.Sub(cert), dir_.Sub(key), ""};
  }
  cfx::testing::TempDir dir_;
};

TEST_F(TlsServerContextTest, LoadsACertificateAndItsKey) {
  auto tls = TlsServerContext::Load(Files("server.crt", "server.key"));
  ASSERT_TRUE(tls.has_value()) << tls.error().ToString();
  EXPECT_NE(tls.value()->Current(), nullptr);
  EXPECT_FALSE(tls.value()->mutual());
}

TEST_F(TlsServerContextTest, MissingFileIsNamed) {
  auto tls = TlsServerContext::Load(Files("absent.crt", "server.key"));
  ASSERT_FALSE(tls.has_value());
  EXPECT_EQ(tls.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tls.error().message().find("certificate " + dir_.Sub("absent.crt")),
            std::string::npos)
      << tls.error().message();
}

TEST_F(TlsServerContextTest, KeyOfAnotherCertificateIsRefused) {
  auto tls = TlsServerContext::Load(Files("server.crt", "server2.key"));
  ASSERT_FALSE(tls.has_value());
  // OpenSSL checks the pair as the key loads: "key values mismatch".
  EXPECT_NE(tls.error().message().find("private key " + dir_.Sub("server2.key") +
                                       ": key values mismatch"),
            std::string::npos)
      << tls.error().message();
}

TEST_F(TlsServerContextTest, BadClientCaIsNamed) {
  TlsFiles files = Files("server.crt", "server.key");
  files.client_ca_file = dir_.Sub("absent-ca.crt");
  auto tls = TlsServerContext::Load(files);
  ASSERT_FALSE(tls.has_value());
  EXPECT_NE(tls.error().message().find("client CA " + files.client_ca_file),
            std::string::npos)
      << tls.error().message();
}

TEST_F(TlsServerContextTest, ReloadSwapsTheContextAndAFailedOneKeepsIt) {
  auto tls = TlsServerContext::Load(Files("server.crt", "server.key"));
  ASSERT_TRUE(tls.has_value());
  const auto first = tls.value()->Current();
  ASSERT_TRUE(tls.value()->Reload().ok());
  const auto second = tls.value()->Current();
  EXPECT_NE(first, second);
  EXPECT_EQ(tls.value()->reloads(), 1u);
  ASSERT_TRUE(cfx::testing::WriteTextFile(dir_.Sub("server.key"), "garbage"));
  EXPECT_FALSE(tls.value()->Reload().ok());
  EXPECT_EQ(tls.value()->Current(), second);
  EXPECT_EQ(tls.value()->reloads(), 1u);
}

TEST(TlsClientContext, BadServerNameAndMissingCaAreRefused) {
  TlsClientOptions o;
  o.ca_file = "/nonexistent/ca.crt";
  auto c = MakeTlsClientContext(o, "localhost");
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message().find("CA /nonexistent/ca.crt"),
            std::string::npos)
      << c.error().message();
}

TEST(TlsFailureLog, LogsTheFirstThenAtMostOnePerInterval) {
  TlsFailureLog log(std::chrono::hours(1));
  const boost::system::error_code ec = asio::error::connection_reset;
  const std::string first = log.Failed("fix gateway", ec);
  EXPECT_EQ(first.rfind("fix gateway: TLS handshake failed: ", 0), 0u) << first;
  EXPECT_EQ(log.Failed("fix gateway", ec), "");
  EXPECT_EQ(log.Failed("fix gateway", ec), "");
  EXPECT_EQ(log.failures(), 3u);
}

TEST(TlsFailureLog, CountsTheLinesLeftOut) {
  TlsFailureLog log(std::chrono::nanoseconds(0));
  const boost::system::error_code ec = asio::error::connection_reset;
  EXPECT_NE(log.Failed("https", ec), "");
  // A zero interval logs every one: nothing is left out.
  EXPECT_EQ(log.Failed("https", ec).find("more not logged"), std::string::npos);
}

}  // namespace
}  // namespace cfx::gateway
