#include "gateway/config/demo_identities.h"

#include <arpa/inet.h>

#include <cstring>
#include <set>
#include <utility>

namespace cfx::gateway {

namespace {

// Password hashes and "id secret" pairs of the built-in demo users.
struct DemoCredentials {
  std::set<std::string> password_hashes;
  std::set<std::pair<std::string, std::string>> api_keys;
};

DemoCredentials BuiltInDemoCredentials() {
  DemoCredentials out;
  auto demo = DefaultServerConfig();
  if (!demo.has_value()) return out;
  for (const UserConfig& u : demo.value().users) {
    if (!u.password_hash.empty()) out.password_hashes.insert(u.password_hash);
    for (const ApiKey& k : u.api_keys) out.api_keys.insert({k.id, k.secret});
  }
  return out;
}

bool UsesDemoCredentials(const UserConfig& u, const DemoCredentials& demo) {
  if (demo.password_hashes.count(u.password_hash) != 0) return true;
  for (const ApiKey& k : u.api_keys) {
    if (demo.api_keys.count({k.id, k.secret}) != 0) return true;
  }
  return false;
}

// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104.
bool IsLoopback(const std::string& address) {
  unsigned char v4[4];
  if (::inet_pton(AF_INET, address.c_str(), v4) == 1) return v4[0] == 127;
  unsigned char v6[16];
  if (::inet_pton(AF_INET6, address.c_str(), v6) != 1) return false;
  static constexpr unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                                  0, 0, 0, 0, 0, 0, 0, 1};
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0,    0,
                                                0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(v6, kLoopback, 16) == 0) return true;
  return std::memcmp(v6, kMapped, 12) == 0 && v6[12] == 127;
}

}  // namespace

void MarkDemoIdentities(ServerConfig& config) {
  const DemoCredentials demo = BuiltInDemoCredentials();
  for (UserConfig& u : config.users) u.demo = UsesDemoCredentials(u, demo);
}

std::string DemoIdentityList(const ServerConfig& config) {
  std::string names;
  for (const UserConfig& u : config.users) {
    if (!u.demo) continue;
    names += names.empty() ? "" : ", ";
    names += u.name;
  }
  return names;
}

Status CheckDemoIdentitiesOnLoopback(const ServerConfig& config) {
  const std::string users = DemoIdentityList(config);
  if (users.empty()) return Status::Ok();
  if (IsLoopback(config.network.bind_address)) return Status::Ok();
  return FailedPreconditionError(
      "the fix, protobuf and http listeners bind " +
      config.network.bind_address +
      ", not a loopback address, and the config has demo identities (" + users +
      ") whose credentials are published: give those users their own "
      "password hashes and API keys (docs/config.md), or bind 127.0.0.1");
}

}  // namespace cfx::gateway
