#pragma once

#include <string>
#include <string_view>

namespace cfx::gateway::attest {

// The attester key id of an Ed25519 public key (docs/attestations.md); the
// signatures themselves are verified with crypto::Verify
// (gateway/crypto/ed25519.h).
//
// Thread: every function is safe to call from any thread.

// "ed25519:" + the first 16 lower-case hex digits of SHA-256(public_key),
// e.g. "ed25519:3f9a0c2b7d1e4a56". REQUIRES: public_key is 32 bytes (any
// bytes are hashed, but only those ids are meaningful).
std::string AttesterKeyId(std::string_view public_key);

// True iff `text` has the form of an AttesterKeyId().
bool IsAttesterKeyId(std::string_view text);

}  // namespace cfx::gateway::attest
