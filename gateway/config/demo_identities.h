#pragma once

#include <string>
#include <string_view>

#include "exchange/core/status.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {

// Demo identities: the users of the built-in demo config
// (deploy/config/exchange.textproto), whose passwords and API key secrets
// are published. They may only serve loopback addresses (docs/config.md,
// "Demo identities").

// The published Ed25519 private key (32-byte seed) of demo user `user`:
// SHA-256("CFX-DEMO-KEY-V1\n" + user). The built-in demo config carries the
// matching public keys; the cfx tool logs on with these when no --key or
// --secret is given.
std::string DemoPrivateKey(std::string_view user);

// Sets UserConfig::demo on every user of `config` that logs on with demo
// credentials: its password hash, or one of its API keys (id and secret or
// public key),
// is one of the built-in demo config's. LoadServerConfig() and
// DefaultServerConfig() call it.
void MarkDemoIdentities(ServerConfig& config);

// The names of the users marked demo, in config order, joined by ", ";
// "" when there are none.
std::string DemoIdentityList(const ServerConfig& config);

// Ok unless `config` has demo identities and its listeners bind an address
// that is not loopback: then kFailedPrecondition naming the listeners, the
// address and the demo users.
Status CheckDemoIdentitiesOnLoopback(const ServerConfig& config);

}  // namespace cfx::gateway
