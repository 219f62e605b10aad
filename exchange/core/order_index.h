#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "exchange/core/large_array.h"

namespace cfx::exchange::internal {

// Open-addressing map from order id (non-zero) to order slot: Robin Hood
// linear probing with backward-shift deletion (no tombstones). Order ids are
// dense, so the identity hash places most entries at home; an erase stops at
// the first entry that is at home or empty, so it is O(1) even inside a long
// run of consecutive live ids (plain linear probing scanned the whole run).
//
// Thread: owned by the engine's thread. Memory: allocated in the
// constructor only; capacity is a power of two >= 2 x max entries.
class OrderIndex {
 public:
  explicit OrderIndex(uint32_t max_entries) {
    uint64_t cap = 16;
    while (cap < 2ull * max_entries) cap <<= 1;
    mask_ = cap - 1;
    slots_ = AllocateLarge<Entry>(cap);
  }

  // Hints the cache line where a lookup of `id` starts.
  void Prefetch(uint64_t id) const { __builtin_prefetch(&slots_[id & mask_]); }

  // Returns the slot for `id`, or 0.
  uint32_t Find(uint64_t id) const {
    uint64_t i = id & mask_;
    for (uint64_t dist = 0;; ++dist, i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (e.id == id) return e.slot;
      if (e.id == 0 || Distance(e.id, i) < dist) return 0;
    }
  }

  // REQUIRES: `id` absent, fewer than max_entries present.
  void Insert(uint64_t id, uint32_t slot) {
    Entry cur{id, slot};
    uint64_t i = id & mask_;
    for (uint64_t dist = 0;; ++dist, i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (e.id == 0) {
        e = cur;
        return;
      }
      const uint64_t d = Distance(e.id, i);
      if (d < dist) {
        std::swap(cur, e);
        dist = d;
      }
    }
  }

  // REQUIRES: `id` present.
  void Erase(uint64_t id) {
    uint64_t i = id & mask_;
    while (slots_[i].id != id) i = (i + 1) & mask_;
    while (true) {
      const uint64_t j = (i + 1) & mask_;
      const Entry& n = slots_[j];
      if (n.id == 0 || Distance(n.id, j) == 0) break;
      slots_[i] = n;
      i = j;
    }
    slots_[i] = Entry{};
  }

 private:
  struct Entry {
    uint64_t id = 0;
    uint32_t slot = 0;
  };
  uint64_t Distance(uint64_t id, uint64_t pos) const {
    return (pos - (id & mask_)) & mask_;
  }
  uint64_t mask_ = 0;
  LargeArray<Entry> slots_;
};

}  // namespace cfx::exchange::internal
