#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "exchange/core/types.h"

namespace cfx::exchange {

// Bounded single-producer single-consumer ring (rigtorp/SPSCQueue): head and
// tail on separate cache lines, each side caching the other's index.
// A full ring is back-pressure: TryPush() returns false, it never blocks.
//
// Thread: exactly one producer thread and one consumer thread.
// Memory: the slots are allocated in the constructor only.
template <typename T>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // REQUIRES: capacity is a power of two >= 2.
  explicit SpscRing(std::size_t capacity)
      : mask_(capacity - 1), slots_(new T[capacity]) {}
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  std::size_t capacity() const { return mask_ + 1; }

  bool TryPush(const T& v) noexcept {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - cached_head_ > mask_) {
      cached_head_ = head_.load(std::memory_order_acquire);
      if (tail - cached_head_ > mask_) return false;
    }
    slots_[tail & mask_] = v;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  // The oldest element, or nullptr when empty. Valid until Pop().
  const T* Front() noexcept {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head == cached_tail_) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head == cached_tail_) return nullptr;
    }
    return &slots_[head & mask_];
  }

  // REQUIRES: Front() returned non-null.
  void Pop() noexcept {
    head_.store(head_.load(std::memory_order_relaxed) + 1,
                std::memory_order_release);
  }

  bool TryPop(T* out) noexcept {
    const T* f = Front();
    if (f == nullptr) return false;
    *out = *f;
    Pop();
    return true;
  }

  // Elements in the ring as seen from any thread; approximate.
  std::size_t SizeApprox() const noexcept {
    return static_cast<std::size_t>(tail_.load(std::memory_order_acquire) -
                                    head_.load(std::memory_order_acquire));
  }

 private:
  const uint64_t mask_;
  std::unique_ptr<T[]> slots_;
  alignas(kCacheLineSize) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;  // consumer's view of tail_
  alignas(kCacheLineSize) std::atomic<uint64_t> tail_{0};
  uint64_t cached_head_ = 0;  // producer's view of head_
  char pad_[kCacheLineSize - sizeof(uint64_t)];
};

}  // namespace cfx::exchange
