#include "gateway/config/demo_identities.h"

#include <set>
#include <utility>

#include "gateway/config/listeners.h"

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
  const NetworkConfig& n = config.network;
  // A TLS listener off loopback serves the same published credentials.
  const bool tls_off_loopback =
      n.tls.has_value() && !IsLoopbackAddress(n.tls->bind_address);
  if (IsLoopbackAddress(n.bind_address) && !tls_off_loopback) {
    return Status::Ok();
  }
  const std::string address =
      IsLoopbackAddress(n.bind_address) ? n.tls->bind_address : n.bind_address;
  return FailedPreconditionError(
      std::string(IsLoopbackAddress(n.bind_address)
                      ? "the TLS listeners bind "
                      : "the fix, protobuf and http listeners bind ") +
      address +
      ", not a loopback address, and the config has demo identities (" + users +
      ") whose credentials are published: give those users their own "
      "password hashes and API keys (docs/config.md), or bind 127.0.0.1");
}

}  // namespace cfx::gateway
