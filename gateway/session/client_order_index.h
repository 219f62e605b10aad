#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "exchange/core/keyed_hash.h"

namespace cfx::gateway {

// (account, client order id) -> order id: the order view's ClOrdID index
// (order_view.h). An open-addressing table with linear probing, at most half
// full (it doubles before an insert would pass that), with no erase but
// Clear(): the view rebuilds it at each day's end. Slots are flat, so an
// insert allocates nothing but when the table doubles.
//
// Clients choose the ids, so the home slot is keyed, as
// ClientOrderKeyHash: SipHash-1-3 under ClientTableKey() of (account,
// id >> 4) picks a block of 16 slots, and the low 4 bits of the id the slot
// within it. A run of 16 consecutive ids of an account fills one block (the
// table is walked in order, not at random); ids that differ above those
// bits land in blocks chosen independently under the key, which nobody
// outside this process knows, so no client can make its ids, or anybody
// else's, share a probe run beyond the 16 ids of one block.
//
// Thread: owned by one thread. Memory: 24 bytes a slot, at least 2 slots
// an entry (at most 4 just after doubling), allocated as entries arrive.
class ClientOrderIndex {
 public:
  explicit ClientOrderIndex(const exchange::SipKey& key);

  // Maps (account, id) to `order_id` (not 0), replacing an earlier mapping.
  void Put(uint32_t account, uint64_t id, uint64_t order_id);

  // The order id mapped to (account, id), or 0.
  uint64_t Find(uint32_t account, uint64_t id) const;

  // Forgets every entry and returns the memory.
  void Clear();

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  // How many slots after its home slot the entry for (account, id) lies,
  // or capacity() when there is none (tests).
  std::size_t Displacement(uint32_t account, uint64_t id) const;

 private:
  struct Slot {
    uint64_t id = 0;
    uint64_t order_id = 0;  // 0: a free slot
    uint32_t account = 0;
  };
  static constexpr std::size_t kMinSlots = 1024;

  std::size_t Home(uint32_t account, uint64_t id) const;
  // The slot holding (account, id), or the free slot that ends its run.
  std::size_t Probe(uint32_t account, uint64_t id) const;
  void Grow();

  exchange::SipKey key_;
  std::vector<Slot> slots_;  // empty, or a power of two >= kMinSlots
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace cfx::gateway
