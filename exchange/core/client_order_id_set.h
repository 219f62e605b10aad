#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "exchange/core/keyed_hash.h"
#include "exchange/core/large_array.h"

namespace cfx::exchange::internal {

// The (account, client order id) pairs of the new orders accepted in the
// current trading day (docs/matching.md, "Client order ids"): a hash set
// with linear probing, sized in the constructor for `max_entries` and never
// resized (capacity a power of two >= 2 x max_entries, so it is at most half
// full).
//
// Clients choose the ids, so the hash is keyed (SipHash-1-3 under the
// engine's table key, SetKey()): without the key nobody can compute ids that
// collide. Probing is bounded: a pair lives at most kMaxProbe - 1 slots
// after its home slot. When the kMaxProbe slots from a pair's home slot are
// all taken, Find() reports no room and the engine rejects the order
// CLIENT_ORDER_ID_LIMIT, as for a full table. At most half full under a key
// the client cannot learn, that is expected far less than once in 10^12
// full days at the default size (docs/matching.md); the bound keeps any
// lookup to kMaxProbe slots.
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
  // Slots a lookup reads at most: the home slot and the next 255.
  static constexpr uint32_t kMaxProbe = 256;

  // Where a lookup ended: the slot that holds the pair, or the free slot
  // where Insert() puts it (`room`); neither when the kMaxProbe slots from
  // the home slot hold other pairs.
  struct Probe {
    uint64_t slot = 0;
    bool found = false;
    bool room = false;
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
    for (uint32_t n = 0; n < kMaxProbe; ++n) {
      const Entry& e = slots_[i];
      if (e.generation != generation_) return Probe{i, false, true};
      if (e.id == id && e.account == account) return Probe{i, true, false};
      i = (i + 1) & mask_;
    }
    return Probe{};
  }

  // How many slots after its home slot the pair lives, or kMaxProbe when
  // it is not present (tests and benchmarks).
  uint32_t Displacement(uint32_t account, uint64_t id) const {
    const Probe p = Find(account, id);
    if (!p.found) return kMaxProbe;
    return static_cast<uint32_t>((p.slot - Hash(account, id)) & mask_);
  }

  // Sets the hash key. REQUIRES: the set is empty (the engine sets it once,
  // before its first command or snapshot).
  void SetKey(const SipKey& key) { key_ = key; }
  const SipKey& key() const { return key_; }

  // Adds the pair at `p.slot`. REQUIRES: `p` is what Find() of this pair
  // returned, not found, with room, with no Insert() or Clear() since;
  // !full().
  void Insert(const Probe& p, uint32_t account, uint64_t id) {
    slots_[p.slot] = Entry{id, account, generation_};
    order_[size_++] = static_cast<uint32_t>(p.slot);
  }

  // Adds the pair; returns false, changing nothing, if it is already
  // present, the set is full or its probe run has no room (snapshot
  // loading).
  bool TryInsert(uint32_t account, uint64_t id) {
    const Probe p = Find(account, id);
    if (!p.room || full()) return false;
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

  // Keyed: clients choose the ids (see the class comment).
  uint64_t Hash(uint32_t account, uint64_t id) const {
    return SipHash13(key_, id, account);
  }

  SipKey key_;
  uint64_t mask_ = 0;
  uint32_t max_ = 0;
  uint32_t size_ = 0;
  uint32_t generation_ = 1;
  ZeroedArray<Entry> slots_;     // [0, mask_]
  ZeroedArray<uint32_t> order_;  // [0, max_): filled slots, oldest first
};

}  // namespace cfx::exchange::internal
