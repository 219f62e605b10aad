#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cfx::gateway::crypto::test_vector {

// The Ed25519 test vector the signing and verification tests share
// (tests/gateway/session/attestation_signature_test.cc,
// tests/gateway/tools/attest/ed25519_test.cc).

inline std::string FromHex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(
        std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// RFC 8032 §7.1, TEST 1 (empty message).
inline const std::string kRfcPrivate =
    FromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
inline const std::string kRfcPublic =
    FromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
inline const std::string kRfcSignature = FromHex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590"
    "a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");

}  // namespace cfx::gateway::crypto::test_vector
