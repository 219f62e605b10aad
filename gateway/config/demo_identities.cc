#include "gateway/config/demo_identities.h"

#include <openssl/evp.h>

#include <set>
#include <utility>

#include "gateway/config/listeners.h"

namespace cfx::gateway {

namespace {

// Password hashes and "id key" pairs (the secret or public key) of the built-in demo users.
struct DemoCredentials {
  std::set<std::string> password_hashes;
  std::set<std::pair<std::string, std::string>> api_keys;
};

const std::string& KeyOf(const ApiKey& k) {
  return k.kind == ApiKeyKind::kEd25519 ? k.public_key : k.secret;
}

DemoCredentials BuiltInDemoCredentials() {
  DemoCredentials out;
  auto demo = DefaultServerConfig();
  if (!demo.has_value()) return out;
  for (const UserConfig& u : demo.value().users) {
    if (!u.password_hash.empty()) out.password_hashes.insert(u.password_hash);
    for (const ApiKey& k : u.api_keys) out.api_keys.insert({k.id, KeyOf(k)});
  }
  return out;
}

bool UsesDemoCredentials(const UserConfig& u, const DemoCredentials& demo) {
  if (demo.password_hashes.count(u.password_hash) != 0) return true;
  for (const ApiKey& k : u.api_keys) {
    if (demo.api_keys.count({k.id, KeyOf(k)}) != 0) return true;
  }
  return false;
}

}  // namespace

std::string DemoPrivateKey(std::string_view user) {
  const std::string input = "CFX-DEMO-KEY-V1\n" + std::string(user);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(input.data(), input.size(), md, &len, EVP_sha256(),
                 nullptr) != 1) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(md), len);
}

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
