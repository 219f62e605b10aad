#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cfx::gateway {

// Salted password hashes for FIX Logon passwords, stored in the config as
//   "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>"
// PBKDF2-HMAC-SHA256 (OpenSSL PKCS5_PBKDF2_HMAC), 32-byte hash; written in
// lower-case hex. docs/config.md shows how to make one.

// Iterations for new hashes (OWASP's PBKDF2-SHA256 floor is higher; this is
// what the demo config uses).
inline constexpr uint32_t kDefaultPasswordIterations = 100'000;
// Upper bound accepted when parsing, so a config cannot stall logons.
inline constexpr uint32_t kMaxPasswordIterations = 10'000'000;

// The encoded hash of `password` with raw `salt` bytes. Returns "" if
// iterations is 0 or above kMaxPasswordIterations, or OpenSSL fails.
std::string HashPassword(std::string_view password, std::string_view salt,
                         uint32_t iterations);

// True iff `encoded` is well formed and matches `password`. The hash is
// compared in constant time. False on any malformed encoding; never throws.
bool VerifyPassword(std::string_view encoded, std::string_view password);

// True iff `encoded` parses: the "pbkdf2-sha256" scheme, iterations in
// [1, kMaxPasswordIterations] without leading zeros, a salt of 1-64 bytes
// and a 32-byte hash, both in hex (either case).
bool IsWellFormedPasswordHash(std::string_view encoded);

// 16 random bytes (RAND_bytes) for HashPassword. Aborts if the system has no
// randomness, since a predictable salt must never be used.
std::string NewSalt();

}  // namespace cfx::gateway
