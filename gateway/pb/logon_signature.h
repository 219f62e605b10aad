#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/status.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway::pb {

// The bytes a Logon signs (docs/protocol.md, "Logon"):
//   "CFX-LOGON-V1\n" + api_key + "\n" + decimal(timestamp_ns) + "\n" + nonce
std::string LogonSigningString(std::string_view api_key, int64_t timestamp_ns,
                               std::string_view nonce);

// HMAC-SHA256(secret, LogonSigningString(...)): 32 raw bytes.
std::string LogonSignature(std::string_view secret, std::string_view api_key,
                           int64_t timestamp_ns, std::string_view nonce);

// The bytes a Logon with an ed25519 key signs (docs/protocol.md, "Logon"):
//   "CFX-LOGON-ED25519-V1\n" + api_key + "\n" + decimal(timestamp_ns) + "\n"
//   + nonce
std::string Ed25519LogonSigningString(std::string_view api_key,
                                      int64_t timestamp_ns,
                                      std::string_view nonce);

// Ed25519(private_key, Ed25519LogonSigningString(...)): 64 raw bytes;
// kInvalidArgument unless `private_key` is a 32-byte seed.
Result<std::string> Ed25519LogonSignature(std::string_view private_key,
                                          std::string_view api_key,
                                          int64_t timestamp_ns,
                                          std::string_view nonce);

// True iff `signature` signs the Logon with `key`: Ed25519 over
// Ed25519LogonSigningString() with its public key, or HMAC-SHA256 with its
// secret (VerifyLogonSignature). A signature of the other kind is false.
bool VerifyLogon(const ApiKey& key, std::string_view api_key,
                 int64_t timestamp_ns, std::string_view nonce,
                 std::string_view signature);

// Constant-time check of an HMAC Logon signature.
bool VerifyLogonSignature(std::string_view secret, std::string_view api_key,
                          int64_t timestamp_ns, std::string_view nonce,
                          std::string_view signature);

}  // namespace cfx::gateway::pb
