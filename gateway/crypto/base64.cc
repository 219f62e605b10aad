#include "gateway/crypto/base64.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cfx::gateway::crypto {

namespace {

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v =
        static_cast<uint32_t>(static_cast<unsigned char>(bytes[i]) << 16 |
                              static_cast<unsigned char>(bytes[i + 1]) << 8 |
                              static_cast<unsigned char>(bytes[i + 2]));
    out.push_back(kBase64Alphabet[v >> 18 & 63]);
    out.push_back(kBase64Alphabet[v >> 12 & 63]);
    out.push_back(kBase64Alphabet[v >> 6 & 63]);
    out.push_back(kBase64Alphabet[v & 63]);
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i]))
                 << 16;
    if (rest == 2) {
      v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    out.push_back(kBase64Alphabet[v >> 18 & 63]);
    out.push_back(kBase64Alphabet[v >> 12 & 63]);
    out.push_back(rest == 2 ? kBase64Alphabet[v >> 6 & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64DecodeStrict(std::string_view text) {
  if (text.size() % 4 != 0) {
    return InvalidArgumentError("base64 length not a multiple of 4");
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') pad = text[i + 2] == '=' ? 2 : 1;
    uint32_t v = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      int d = 0;
      if (j < 4 - static_cast<std::size_t>(pad)) {
        d = Base64Value(text[i + j]);
        if (d < 0) return InvalidArgumentError("not base64");
      }
      v = v << 6 | static_cast<uint32_t>(d);
    }
    // The bits under the padding must be zero: one encoding per value.
    if ((pad == 1 && (v & 0xFF) != 0) || (pad == 2 && (v & 0xFFFF) != 0)) {
      return InvalidArgumentError("not canonical base64");
    }
    out.push_back(static_cast<char>(v >> 16 & 0xFF));
    if (pad < 2) out.push_back(static_cast<char>(v >> 8 & 0xFF));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xFF));
  }
  return out;
}

}  // namespace cfx::gateway::crypto
