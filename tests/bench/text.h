#pragma once

#include <cstdint>
#include <string>

namespace cfx::bench {

// 1234567 -> "1,234,567".
inline std::string WithCommas(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0 && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace cfx::bench
