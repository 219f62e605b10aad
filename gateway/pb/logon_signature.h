#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cfx::gateway::pb {

// The bytes a Logon signs (docs/protocol.md, "Logon"):
//   "CFX-LOGON-V1\n" + api_key + "\n" + decimal(timestamp_ns) + "\n" + nonce
std::string LogonSigningString(std::string_view api_key, int64_t timestamp_ns,
                               std::string_view nonce);

// HMAC-SHA256(secret, LogonSigningString(...)): 32 raw bytes.
std::string LogonSignature(std::string_view secret, std::string_view api_key,
                           int64_t timestamp_ns, std::string_view nonce);

// Constant-time check of a Logon signature.
bool VerifyLogonSignature(std::string_view secret, std::string_view api_key,
                          int64_t timestamp_ns, std::string_view nonce,
                          std::string_view signature);

}  // namespace cfx::gateway::pb
