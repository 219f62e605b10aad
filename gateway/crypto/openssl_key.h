#pragma once

#include <openssl/evp.h>

#include <memory>
#include <string_view>

namespace cfx::gateway::crypto::internal {

// Owning handles and raw-key constructors of OpenSSL 3 EVP, shared by the
// exchange's signature check (attestation_signature.cc) and the attest
// tools' signing and key files (gateway/tools/attest/ed25519.cc).

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

inline const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// The EVP key of 32 raw Ed25519 public key bytes; null if OpenSSL refuses.
inline Pkey PublicPkey(std::string_view public_key) {
  return Pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, Bytes(public_key), public_key.size()));
}

}  // namespace cfx::gateway::crypto::internal
