#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace cfx::exchange {

// Fixed slots for the variable-length payloads of kReferenceData commands on
// their way from a gateway through the sequencer (which journals them) to
// the engine (which applies them). A command carries its slot number; each
// slot is held by a count of parties and is free again when the last one
// releases it. Lock-free; never allocates after construction.
//
// Thread: Put() from producer threads, Get()/Release() by the holders.
class PayloadArena {
 public:
  // REQUIRES: slots >= 1.
  PayloadArena(std::size_t slots, std::size_t slot_bytes)
      : slot_bytes_(slot_bytes),
        slots_(slots),
        meta_(new Meta[slots]),
        bytes_(new char[slots * slot_bytes]) {}
  PayloadArena(const PayloadArena&) = delete;
  PayloadArena& operator=(const PayloadArena&) = delete;

  std::size_t slot_bytes() const { return slot_bytes_; }

  // Copies `bytes` into a free slot held by `holders` parties and returns
  // its number, or -1 when every slot is in use or `bytes` is too long.
  int64_t Put(std::string_view bytes, int holders) {
    if (bytes.size() > slot_bytes_ || holders <= 0) return -1;
    for (std::size_t i = 0; i < slots_; ++i) {
      int expected = 0;
      if (!meta_[i].refs.compare_exchange_strong(expected, -1,
                                                 std::memory_order_acquire)) {
        continue;
      }
      std::copy(bytes.begin(), bytes.end(), bytes_.get() + i * slot_bytes_);
      meta_[i].size = bytes.size();
      meta_[i].refs.store(holders, std::memory_order_release);
      return static_cast<int64_t>(i);
    }
    return -1;
  }

  // The bytes of a held slot; empty for a number that is not a slot.
  std::string_view Get(uint64_t slot) const {
    if (slot >= slots_) return {};
    return std::string_view(bytes_.get() + slot * slot_bytes_,
                            meta_[slot].size);
  }

  void Release(uint64_t slot) {
    if (slot >= slots_) return;
    meta_[slot].refs.fetch_sub(1, std::memory_order_acq_rel);
  }

  // Slots in use; approximate.
  std::size_t InUse() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < slots_; ++i) {
      n += meta_[i].refs.load(std::memory_order_relaxed) != 0 ? 1 : 0;
    }
    return n;
  }

 private:
  struct Meta {
    std::atomic<int> refs{0};  // 0 free, -1 being filled, else holders
    std::size_t size = 0;
  };
  const std::size_t slot_bytes_;
  const std::size_t slots_;
  std::unique_ptr<Meta[]> meta_;
  std::unique_ptr<char[]> bytes_;
};

}  // namespace cfx::exchange
