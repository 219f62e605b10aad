#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "exchange/core/large_array.h"

namespace cfx::exchange::internal {

// The (account, client order id) pairs of the new orders accepted in the
// current trading day (docs/matching.md, "Client order ids"): a hash set
// with linear probing, sized in the constructor for `max_entries` and never
// resized (capacity a power of two >= 2 x max_entries, so it is at most half
// full and every probe run ends).
//
// Pairs are only ever added; Clear() forgets them all in O(1) by starting a
// new generation. An entry counts only if it carries the current
// generation, and with no erase in between, the first slot of a probe run
// that does not hold a current entry ends every lookup (stale entries are
// free slots). An insertion list keeps the filled slots in order, so
// snapshots and the state hash take O(size), not O(capacity).
//
// Thread: owned by the engine's thread; no internal locking.
// Memory: allocated in the constructor only, zero-filled and touched as
// pairs arrive (AllocateZeroedLarge): 16 bytes per slot plus 4 per entry.
class ClientOrderIdSet {
 public:
  // Where a lookup ended: the slot that holds the pair, or the free slot
  // where Insert() puts it.
  struct Probe {
    uint64_t slot = 0;
    bool found = false;
  };

  explicit ClientOrderIdSet(uint32_t max_entries) : max_(max_entries) {
    const uint64_t cap =
        std::max<uint64_t>(16, std::bit_ceil(2 * uint64_t{max_entries}));
    mask_ = cap - 1;
    slots_ = AllocateZeroedLarge<Entry>(cap);
    order_ = AllocateZeroedLarge<uint32_t>(max_entries);
  }

  // False if the constructor could not allocate its memory.
  bool ok() const { return slots_ != nullptr && order_ != nullptr; }
  uint32_t size() const { return size_; }
  bool full() const { return size_ >= max_; }

  // Hints the cache line where a lookup of the pair starts.
  void Prefetch(uint32_t account, uint64_t id) const {
    __builtin_prefetch(&slots_[Hash(account, id) & mask_]);
  }

  Probe Find(uint32_t account, uint64_t id) const {
    uint64_t i = Hash(account, id) & mask_;
    while (true) {
      const Entry& e = slots_[i];
      if (e.generation != generation_) return Probe{i, false};
      if (e.id == id && e.account == account) return Probe{i, true};
      i = (i + 1) & mask_;
    }
  }

  // Adds the pair at `p.slot`. REQUIRES: `p` is what Find() of this pair
  // returned, not found, with no Insert() or Clear() since; !full().
  void Insert(const Probe& p, uint32_t account, uint64_t id) {
    slots_[p.slot] = Entry{id, account, generation_};
    order_[size_++] = static_cast<uint32_t>(p.slot);
  }

  // Adds the pair; returns false, changing nothing, if it is already
  // present or the set is full (snapshot loading).
  bool TryInsert(uint32_t account, uint64_t id) {
    const Probe p = Find(account, id);
    if (p.found || full()) return false;
    Insert(p, account, id);
    return true;
  }

  // Forgets every pair. O(1) but once per 2^32 calls, when the generation
  // wraps and the table is zeroed.
  void Clear() {
    size_ = 0;
    if (++generation_ == 0) {
      std::memset(static_cast<void*>(slots_.get()), 0,
                  (mask_ + 1) * sizeof(Entry));
      generation_ = 1;
    }
  }

  // Calls fn(account, client order id) for every pair, in insertion order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (uint32_t k = 0; k < size_; ++k) {
      const Entry& e = slots_[order_[k]];
      fn(e.account, e.id);
    }
  }

 private:
  // All-zero bytes = a slot never used (generation 0 is never current).
  struct Entry {
    uint64_t id;
    uint32_t account;
    uint32_t generation;
  };

  // murmur3's 64-bit finalizer over both fields: client order ids are
  // chosen by clients and often sequential, so the low bits must mix.
  static uint64_t Hash(uint32_t account, uint64_t id) {
    uint64_t x = id ^ (uint64_t{account} * 0x9E3779B97F4A7C15ull);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
  }

  uint64_t mask_ = 0;
  uint32_t max_ = 0;
  uint32_t size_ = 0;
  uint32_t generation_ = 1;
  ZeroedArray<Entry> slots_;     // [0, mask_]
  ZeroedArray<uint32_t> order_;  // [0, max_): filled slots, oldest first
};

}  // namespace cfx::exchange::internal
