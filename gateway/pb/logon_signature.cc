#include "gateway/pb/logon_signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "gateway/crypto/ed25519.h"

namespace cfx::gateway::pb {

namespace {

// prefix + api_key + "\n" + decimal(timestamp_ns) + "\n" + nonce
std::string SigningString(std::string_view prefix, std::string_view api_key,
                          int64_t timestamp_ns, std::string_view nonce) {
  std::string s(prefix);
  s.append(api_key);
  s += '\n';
  s += std::to_string(timestamp_ns);
  s += '\n';
  s.append(nonce);
  return s;
}

}  // namespace

std::string LogonSigningString(std::string_view api_key, int64_t timestamp_ns,
                               std::string_view nonce) {
  return SigningString("CFX-LOGON-V1\n", api_key, timestamp_ns, nonce);
}

std::string Ed25519LogonSigningString(std::string_view api_key,
                                      int64_t timestamp_ns,
                                      std::string_view nonce) {
  return SigningString("CFX-LOGON-ED25519-V1\n", api_key, timestamp_ns, nonce);
}

Result<std::string> Ed25519LogonSignature(std::string_view private_key,
                                          std::string_view api_key,
                                          int64_t timestamp_ns,
                                          std::string_view nonce) {
  return crypto::Sign(private_key,
                      Ed25519LogonSigningString(api_key, timestamp_ns, nonce));
}

bool VerifyLogon(const ApiKey& key, std::string_view api_key,
                 int64_t timestamp_ns, std::string_view nonce,
                 std::string_view signature) {
  if (key.kind == ApiKeyKind::kEd25519) {
    return crypto::Verify(
        key.public_key,
        Ed25519LogonSigningString(api_key, timestamp_ns, nonce), signature);
  }
  return VerifyLogonSignature(key.secret, api_key, timestamp_ns, nonce,
                              signature);
}

std::string LogonSignature(std::string_view secret, std::string_view api_key,
                           int64_t timestamp_ns, std::string_view nonce) {
  const std::string msg = LogonSigningString(api_key, timestamp_ns, nonce);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), out,
       &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

bool VerifyLogonSignature(std::string_view secret, std::string_view api_key,
                          int64_t timestamp_ns, std::string_view nonce,
                          std::string_view signature) {
  const std::string expected =
      LogonSignature(secret, api_key, timestamp_ns, nonce);
  return signature.size() == expected.size() &&
         CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) == 0;
}

}  // namespace cfx::gateway::pb
