#pragma once

#include <string>
#include <string_view>

#include "exchange/core/status.h"

namespace cfx::gateway::crypto {

// Standard base64 with padding (RFC 4648 §4), and its strict inverse:
// rejects whitespace, other alphabets, missing padding and non-zero unused
// bits, so every byte string has exactly one accepted encoding. The
// signature of a signed attestation file is written in it.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64DecodeStrict(std::string_view text);

}  // namespace cfx::gateway::crypto
