#include "gateway/config/demo_identities.h"

#include <gtest/gtest.h>

#include <string>

namespace cfx::gateway {
namespace {

ServerConfig Demo() {
  auto c = DefaultServerConfig();
  EXPECT_TRUE(c.has_value());
  return c.value();
}

TEST(DemoIdentities, BuiltInUsersAreDemo) {
  const ServerConfig c = Demo();
  ASSERT_FALSE(c.users.empty());
  for (const UserConfig& u : c.users) EXPECT_TRUE(u.demo) << u.name;
  EXPECT_EQ(DemoIdentityList(c).rfind(c.users.front().name + ", ", 0), 0u);
}

TEST(DemoIdentities, UserWithItsOwnCredentialsIsNotDemo) {
  ServerConfig c = Demo();
  UserConfig& own = c.users.front();
  own.password_hash = "pbkdf2-sha256$100000$00$00";
  for (ApiKey& k : own.api_keys) k.public_key = std::string(32, 'x');
  MarkDemoIdentities(c);
  EXPECT_FALSE(c.users.front().demo);
  for (std::size_t i = 1; i < c.users.size(); ++i) {
    EXPECT_TRUE(c.users[i].demo) << c.users[i].name;
  }
  EXPECT_EQ(DemoIdentityList(c).find(c.users.front().name + ","),
            std::string::npos);
}

TEST(DemoIdentities, OnlyLoopbackAddressesMayServeThem) {
  ServerConfig c = Demo();
  for (const char* ok : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"}) {
    c.network.bind_address = ok;
    EXPECT_TRUE(CheckDemoIdentitiesOnLoopback(c).ok()) << ok;
  }
  for (const char* bad : {"0.0.0.0", "10.1.2.3", "::", "::ffff:10.0.0.1"}) {
    c.network.bind_address = bad;
    const Status st = CheckDemoIdentitiesOnLoopback(c);
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << bad;
    EXPECT_NE(st.message().find(std::string("listeners bind ") + bad),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("admin"), std::string::npos) << st.message();
  }
}

TEST(DemoIdentities, ConfigWithoutDemoUsersMayBindAnyAddress) {
  ServerConfig c = Demo();
  for (UserConfig& u : c.users) u.demo = false;
  c.network.bind_address = "0.0.0.0";
  EXPECT_TRUE(CheckDemoIdentitiesOnLoopback(c).ok());
}

}  // namespace
}  // namespace cfx::gateway
