#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/status.h"

namespace cfx::gateway::crypto {

// Ed25519 (RFC 8032) keys, signing and verification through OpenSSL 3 EVP:
// attestations (docs/attestations.md) and protobuf API keys
// (docs/protocol.md, "Logon"). Keys and signatures are raw bytes in
// std::string: a private key is the 32-byte seed, a public key 32 bytes, a
// signature 64.
//
// Private key bytes are never logged or printed: no function here puts them
// in a Status message.
//
// Thread: every function is safe to call from any thread.

inline constexpr std::size_t kEd25519PrivateKeyBytes = 32;
// The lengths the core checks registered keys and signatures by.
using exchange::kEd25519PublicKeyBytes;
using exchange::kEd25519SignatureBytes;

// True iff `signature` is a valid 64-byte signature of `message` by the
// 32-byte `public_key`. Wrong lengths are false.
bool Verify(std::string_view public_key, std::string_view message,
            std::string_view signature);

struct Ed25519KeyPair {
  std::string private_key;  // 32-byte seed; secret
  std::string public_key;   // 32 bytes
};

// A fresh key pair from OpenSSL's CSPRNG. kInternal if OpenSSL fails.
Result<Ed25519KeyPair> GenerateKeyPair();

// The public key of a 32-byte private seed; kInvalidArgument for another
// length.
Result<std::string> PublicKeyOf(std::string_view private_key);

// The 64-byte signature of `message`; kInvalidArgument if `private_key` is
// not 32 bytes.
Result<std::string> Sign(std::string_view private_key,
                         std::string_view message);

// PEM forms, as `openssl genpkey -algorithm ed25519` writes them: a private
// key is unencrypted PKCS#8 ("-----BEGIN PRIVATE KEY-----"), a public key
// SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----"). `openssl pkey` reads
// both. The Parse functions take the first PEM block of that type and
// return kInvalidArgument if there is none, it is encrypted, or the key is
// not Ed25519.
Result<std::string> PrivateKeyToPem(std::string_view private_key);
Result<std::string> PublicKeyToPem(std::string_view public_key);
Result<std::string> PrivateKeyFromPem(std::string_view pem);
Result<std::string> PublicKeyFromPem(std::string_view pem);

// Key files. Writing never replaces a file: kAlreadyExists if `path`
// exists. A private key file gets mode 0600, a public one 0644. Errors
// start with the path: "k.key: not an unencrypted PEM private key (BEGIN
// PRIVATE KEY)".
Status WritePrivateKeyFile(const std::string& path,
                           std::string_view private_key);
Status WritePublicKeyFile(const std::string& path, std::string_view public_key);
Result<std::string> ReadPrivateKeyFile(const std::string& path);
Result<std::string> ReadPublicKeyFile(const std::string& path);

// A fresh key pair written to `prefix` + ".key" (private, 0600) and
// `prefix` + ".pub" (0644), both PEM; returns the raw public key. Refuses
// (kAlreadyExists) when either file exists; on a failure neither is left.
Result<std::string> WriteNewKeyPair(const std::string& prefix);

// Overwrites `secret` with zeros (OPENSSL_cleanse, which the compiler may
// not elide) and empties it. For private keys once they are used.
void Wipe(std::string& secret);

}  // namespace cfx::gateway::crypto
