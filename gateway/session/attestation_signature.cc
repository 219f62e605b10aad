#include "gateway/session/attestation_signature.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace cfx::gateway::attest {

namespace {

constexpr std::string_view kKeyIdPrefix = "ed25519:";
constexpr std::size_t kKeyIdHexDigits = 16;

}  // namespace

std::string AttesterKeyId(std::string_view public_key) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  std::string id(kKeyIdPrefix);
  if (EVP_Digest(public_key.data(), public_key.size(), md, &md_len,
                 EVP_sha256(), nullptr) != 1 ||
      md_len < kKeyIdHexDigits / 2) {
    // Unreachable with a working libcrypto; an id no key can have.
    ERR_clear_error();
    return id + "unavailable";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < kKeyIdHexDigits / 2; ++i) {
    id.push_back(kHex[md[i] >> 4]);
    id.push_back(kHex[md[i] & 0x0F]);
  }
  return id;
}

bool IsAttesterKeyId(std::string_view text) {
  if (text.size() != kKeyIdPrefix.size() + kKeyIdHexDigits ||
      text.substr(0, kKeyIdPrefix.size()) != kKeyIdPrefix) {
    return false;
  }
  for (char c : text.substr(kKeyIdPrefix.size())) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace cfx::gateway::attest
