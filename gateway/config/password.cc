#include "gateway/config/password.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cfx::gateway {
namespace {

constexpr std::string_view kScheme = "pbkdf2-sha256";
constexpr size_t kHashBytes = 32;
constexpr size_t kMaxSaltBytes = 64;

std::string ToHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes non-empty, even-length hex; false otherwise.
bool FromHex(std::string_view hex, std::string* out) {
  if (hex.empty() || hex.size() % 2 != 0) return false;
  out->clear();
  out->reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]);
    const int lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>((hi << 4) | lo));
  }
  return true;
}

struct Parsed {
  uint32_t iterations = 0;
  std::string salt;
  std::string hash;
};

// Splits off the text before the next '$'; false if there is none.
bool NextPart(std::string_view* rest, std::string_view* part) {
  const size_t dollar = rest->find('$');
  if (dollar == std::string_view::npos) return false;
  *part = rest->substr(0, dollar);
  rest->remove_prefix(dollar + 1);
  return true;
}

bool Parse(std::string_view encoded, Parsed* out) {
  std::string_view rest = encoded;
  std::string_view scheme, iterations, salt;
  if (!NextPart(&rest, &scheme) || scheme != kScheme) return false;
  if (!NextPart(&rest, &iterations) || !NextPart(&rest, &salt)) return false;
  const std::string_view hash = rest;  // no further '$' allowed
  if (hash.find('$') != std::string_view::npos) return false;
  if (iterations.empty() || iterations.size() > 8 || iterations[0] == '0') {
    return false;
  }
  uint64_t n = 0;
  for (char c : iterations) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n > kMaxPasswordIterations) return false;
  out->iterations = static_cast<uint32_t>(n);
  if (!FromHex(salt, &out->salt) || out->salt.size() > kMaxSaltBytes) {
    return false;
  }
  return FromHex(hash, &out->hash) && out->hash.size() == kHashBytes;
}

// PBKDF2-HMAC-SHA256 of `password`; false if OpenSSL fails.
bool Derive(std::string_view password, std::string_view salt,
            uint32_t iterations, unsigned char (&out)[kHashBytes]) {
  if (password.size() > static_cast<size_t>(INT32_MAX) ||
      salt.size() > static_cast<size_t>(INT32_MAX)) {
    return false;
  }
  return PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                           reinterpret_cast<const unsigned char*>(salt.data()),
                           static_cast<int>(salt.size()),
                           static_cast<int>(iterations), EVP_sha256(),
                           static_cast<int>(kHashBytes), out) == 1;
}

}  // namespace

std::string HashPassword(std::string_view password, std::string_view salt,
                         uint32_t iterations) {
  if (iterations == 0 || iterations > kMaxPasswordIterations) return "";
  unsigned char hash[kHashBytes];
  if (!Derive(password, salt, iterations, hash)) return "";
  std::string out(kScheme);
  out += '$';
  out += std::to_string(iterations);
  out += '$';
  out += ToHex(salt);
  out += '$';
  out +=
      ToHex(std::string_view(reinterpret_cast<const char*>(hash), kHashBytes));
  return out;
}

bool VerifyPassword(std::string_view encoded, std::string_view password) {
  Parsed p;
  if (!Parse(encoded, &p)) return false;
  unsigned char hash[kHashBytes];
  if (!Derive(password, p.salt, p.iterations, hash)) return false;
  return CRYPTO_memcmp(hash, p.hash.data(), kHashBytes) == 0;
}

bool IsWellFormedPasswordHash(std::string_view encoded) {
  Parsed p;
  return Parse(encoded, &p);
}

std::string NewSalt() {
  unsigned char salt[16];
  if (RAND_bytes(salt, sizeof salt) != 1) {
    std::fputs("cfx: RAND_bytes failed: no randomness for a password salt\n",
               stderr);
    std::abort();
  }
  return std::string(reinterpret_cast<const char*>(salt), sizeof salt);
}

}  // namespace cfx::gateway
