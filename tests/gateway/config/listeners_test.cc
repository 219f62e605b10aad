// The listeners of the config (gateway/config/config_network.cc,
// listeners.h): the tls section, its checks, and the rule that a plaintext
// listener serves loopback only.

#include "gateway/config/listeners.h"

#include <gtest/gtest.h>

#include <string>

#include "gateway/config/demo_identities.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {
namespace {

std::string ErrorOf(const std::string& text) {
  Result<ServerConfig> r = ParseServerConfig(text, "t.textproto");
  if (r.has_value()) return "(parsed)";
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  return r.error().message();
}

TEST(Listeners, TlsSectionIsParsed) {
  Result<ServerConfig> r = ParseServerConfig(
      R"(network {
           tls {
             bind_address: "0.0.0.0"
             protobuf_port: 9869
             certificate_file: "tls/server.crt"
             private_key_file: "/etc/cfx/server.key"
             client_ca_file: "clients.pem"
           }
         })",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const NetworkConfig& n = r.value().network;
  ASSERT_TRUE(n.tls.has_value());
  EXPECT_EQ(n.tls->bind_address, "0.0.0.0");
  EXPECT_EQ(n.tls->protobuf_port, 9869);
  EXPECT_EQ(n.tls->fix_port, 0);  // absent: no such listener
  EXPECT_EQ(n.tls->https_port, 0);
  EXPECT_EQ(n.tls->certificate_file, "tls/server.crt");
  EXPECT_EQ(n.tls->private_key_file, "/etc/cfx/server.key");
  EXPECT_EQ(n.tls->client_ca_file, "clients.pem");
  EXPECT_FALSE(n.tls->skip_if_missing);
}

TEST(Listeners, TlsBindAddressDefaultsToThePlaintextOne) {
  Result<ServerConfig> r = ParseServerConfig(
      R"(network { bind_address: "::1" tls { https_port: 9443
         certificate_file: "c" private_key_file: "k" } })",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().network.tls->bind_address, "::1");
}

TEST(Listeners, NoTlsSectionMeansNoTlsListeners) {
  Result<ServerConfig> r = ParseServerConfig("", "t.textproto");
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r.value().network.tls.has_value());
}

TEST(Listeners, TlsSectionErrorsNameTheField) {
  EXPECT_EQ(ErrorOf(R"(network { tls { certificate_file: "c"
                       private_key_file: "k" } })"),
            "t.textproto:1: network.tls: needs at least one of fix_port, "
            "protobuf_port and https_port");
  EXPECT_EQ(ErrorOf(R"(network { tls { fix_port: 9868
                       private_key_file: "k" } })"),
            "t.textproto:1: network.tls.certificate_file: is required");
  EXPECT_EQ(ErrorOf(R"(network { tls { fix_port: 9868
                       certificate_file: "c" } })"),
            "t.textproto:1: network.tls.private_key_file: is required");
  EXPECT_EQ(ErrorOf(R"(network { tls { fix_port: 0 certificate_file: "c"
                       private_key_file: "k" } })"),
            "t.textproto:1: network.tls.fix_port: port must be in 1-65535, "
            "got 0");
  EXPECT_EQ(ErrorOf(R"(network { tls { bind_address: "x" fix_port: 1
                       certificate_file: "c" private_key_file: "k" } })"),
            "t.textproto:1: network.tls.bind_address: \"x\" is not an IPv4 "
            "or IPv6 address");
}

TEST(Listeners, TlsPortMayNotBeAnotherListenersPort) {
  EXPECT_EQ(ErrorOf(R"(network { tls { https_port: 9880
                       certificate_file: "c" private_key_file: "k" } })"),
            "t.textproto:1: network.tls.https_port: port 9880 is also the "
            "http_port");
  EXPECT_EQ(ErrorOf(R"(network { tls { fix_port: 9000 protobuf_port: 9000
                       certificate_file: "c" private_key_file: "k" } })"),
            "t.textproto:1: network.tls.protobuf_port: port 9000 is also the "
            "tls fix_port");
}

TEST(Listeners, LoopbackAddresses) {
  for (const char* a : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  }
  for (const char* a : {"0.0.0.0", "10.0.0.1", "::", "::ffff:10.0.0.1", "",
                        "localhost"}) {
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
  }
}

TEST(Listeners, PlaintextOffLoopbackIsRefusedNamingTheListeners) {
  ServerConfig config;
  EXPECT_TRUE(CheckPlaintextListenersOnLoopback(config).ok());
  config.network.bind_address = "0.0.0.0";
  const Status st = CheckPlaintextListenersOnLoopback(config);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "the plaintext listeners fix 0.0.0.0:9878, protobuf "
            "0.0.0.0:9879 and http 0.0.0.0:9880 bind a non-loopback address "
            "without TLS: set network.bind_address to 127.0.0.1 and serve "
            "other addresses through network.tls (docs/config.md, \"TLS\")");
}

TEST(Listeners, TlsOffLoopbackIsAllowed) {
  ServerConfig config;
  config.network.tls.emplace();
  config.network.tls->bind_address = "0.0.0.0";
  EXPECT_TRUE(CheckPlaintextListenersOnLoopback(config).ok());
}

TEST(Listeners, DemoIdentitiesRefuseATlsListenerOffLoopback) {
  Result<ServerConfig> demo = DefaultServerConfig();
  ASSERT_TRUE(demo.has_value());
  ServerConfig config = demo.value();
  ASSERT_TRUE(config.network.tls.has_value());
  EXPECT_TRUE(CheckDemoIdentitiesOnLoopback(config).ok());
  config.network.tls->bind_address = "0.0.0.0";
  const Status st = CheckDemoIdentitiesOnLoopback(config);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("the TLS listeners bind 0.0.0.0"),
            std::string::npos)
      << st.message();
}

TEST(Listeners, DemoConfigHasTheTlsListeners) {
  Result<ServerConfig> demo = DefaultServerConfig();
  ASSERT_TRUE(demo.has_value());
  const NetworkConfig& n = demo.value().network;
  EXPECT_EQ(n.bind_address, "127.0.0.1");
  EXPECT_EQ(n.fix_port, 9878);
  EXPECT_EQ(n.protobuf_port, 9879);
  EXPECT_EQ(n.http_port, 9880);
  ASSERT_TRUE(n.tls.has_value());
  EXPECT_EQ(n.tls->bind_address, "127.0.0.1");
  EXPECT_EQ(n.tls->fix_port, 9868);
  EXPECT_EQ(n.tls->protobuf_port, 9869);
  EXPECT_EQ(n.tls->https_port, 9443);
  EXPECT_EQ(n.tls->certificate_file, "tls/server.crt");
  EXPECT_EQ(n.tls->private_key_file, "tls/server.key");
  EXPECT_TRUE(n.tls->skip_if_missing);
}

}  // namespace
}  // namespace cfx::gateway
