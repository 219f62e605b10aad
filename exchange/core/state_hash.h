#pragma once

#include <cstdint>

namespace cfx::exchange {

// FNV-1a 64 over a canonical sequence of integers. The engine and the
// reference book in tests feed the same fields in the same order, so equal
// hashes mean equal state regardless of internal layout.
class StateHasher {
 public:
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (v >> (8 * i)) & 0xffu;
      h_ *= 0x100000001b3ull;
    }
  }
  void Add(int64_t v) { Add(static_cast<uint64_t>(v)); }
  void Add(uint32_t v) { Add(static_cast<uint64_t>(v)); }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

// What one remembered (account, client order id) pair contributes to the
// state hash: FNV-1a 64 of the two values, each as a 64-bit integer. The
// state hash adds the wrapping sum of these terms, which does not depend on
// the order the pairs are kept in.
inline uint64_t ClientOrderIdHashTerm(uint32_t account, uint64_t id) {
  StateHasher h;
  h.Add(account);
  h.Add(id);
  return h.value();
}

}  // namespace cfx::exchange
