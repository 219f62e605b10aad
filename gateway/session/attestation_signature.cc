#include "gateway/session/attestation_signature.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "gateway/session/openssl_key.h"

namespace cfx::gateway::attest {

namespace {

using exchange::kEd25519PublicKeyBytes;
using exchange::kEd25519SignatureBytes;

constexpr std::string_view kKeyIdPrefix = "ed25519:";
constexpr std::size_t kKeyIdHexDigits = 16;

}  // namespace

bool Verify(std::string_view public_key, std::string_view message,
            std::string_view signature) {
  if (public_key.size() != kEd25519PublicKeyBytes ||
      signature.size() != kEd25519SignatureBytes) {
    return false;
  }
  internal::Pkey pkey = internal::PublicPkey(public_key);
  internal::MdCtx ctx(EVP_MD_CTX_new());
  const bool ok =
      pkey != nullptr && ctx != nullptr &&
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) ==
          1 &&
      EVP_DigestVerify(ctx.get(), internal::Bytes(signature), signature.size(),
                       internal::Bytes(message), message.size()) == 1;
  // A bad signature leaves an error on OpenSSL's queue.
  ERR_clear_error();
  return ok;
}

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
