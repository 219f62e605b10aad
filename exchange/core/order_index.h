#pragma once

#include <cstdint>
#include <memory>

namespace cfx::exchange::internal {

// Open-addressing map from order id (non-zero) to order slot, linear probing
// with backward-shift deletion (no tombstones). Order ids are dense, so the
// identity hash spreads them perfectly.
//
// Thread: owned by the engine's thread. Memory: allocated in the
// constructor only; capacity is a power of two >= 2 x max entries.
class OrderIndex {
 public:
  explicit OrderIndex(uint32_t max_entries) {
    uint64_t cap = 16;
    while (cap < 2ull * max_entries) cap <<= 1;
    mask_ = cap - 1;
    slots_.reset(new Entry[cap]());
  }

  // Returns the slot for `id`, or 0.
  uint32_t Find(uint64_t id) const {
    for (uint64_t i = id & mask_;; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.id == id) return e.slot;
      if (e.id == 0) return 0;
    }
  }

  // REQUIRES: `id` absent, fewer than max_entries present.
  void Insert(uint64_t id, uint32_t slot) {
    uint64_t i = id & mask_;
    while (slots_[i].id != 0) i = (i + 1) & mask_;
    slots_[i] = Entry{id, slot};
  }

  // REQUIRES: `id` present.
  void Erase(uint64_t id) {
    uint64_t i = id & mask_;
    while (slots_[i].id != id) i = (i + 1) & mask_;
    uint64_t j = i;
    while (true) {
      j = (j + 1) & mask_;
      if (slots_[j].id == 0) break;
      const uint64_t home = slots_[j].id & mask_;
      // Move j back to the hole at i unless its home lies in (i, j].
      const bool home_in_range =
          i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!home_in_range) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Entry{};
  }

 private:
  struct Entry {
    uint64_t id = 0;
    uint32_t slot = 0;
  };
  uint64_t mask_ = 0;
  std::unique_ptr<Entry[]> slots_;
};

}  // namespace cfx::exchange::internal
