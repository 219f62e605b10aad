#pragma once

#include <string>
#include <string_view>

namespace cfx::gateway::attest {

// The exchange's side of attestation signatures (docs/attestations.md):
// Ed25519 (RFC 8032) verification through OpenSSL 3 EVP and the attester
// key id. Keys and signatures are raw bytes in std::string: a public key is
// 32 bytes, a signature 64. Making keys and signing are the attest tools'
// (gateway/tools/attest/ed25519.h).
//
// Thread: every function is safe to call from any thread.

// True iff `signature` is a valid 64-byte signature of `message` by the
// 32-byte `public_key`. Wrong lengths are false.
bool Verify(std::string_view public_key, std::string_view message,
            std::string_view signature);

// "ed25519:" + the first 16 lower-case hex digits of SHA-256(public_key),
// e.g. "ed25519:3f9a0c2b7d1e4a56". REQUIRES: public_key is 32 bytes (any
// bytes are hashed, but only those ids are meaningful).
std::string AttesterKeyId(std::string_view public_key);

// True iff `text` has the form of an AttesterKeyId().
bool IsAttesterKeyId(std::string_view text);

}  // namespace cfx::gateway::attest
