#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace cfx::exchange::internal {

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

template <typename T>
using LargeArray = std::unique_ptr<T[], FreeDeleter>;

// Allocates `n` value-initialised Ts for a large, randomly accessed pool
// (orders, the order index). Arrays of 2 MiB or more are aligned to 2 MiB
// and, on Linux, marked for transparent huge pages: a million-order pool
// otherwise spends much of a cancel in page-table walks. Called only at
// engine construction. Returns nullptr if memory is exhausted.
template <typename T>
LargeArray<T> AllocateLarge(std::size_t n) {
  static_assert(std::is_trivially_destructible_v<T>);
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t bytes = n * sizeof(T);
  void* p = nullptr;
  if (bytes >= kHuge) {
    p = std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p != nullptr) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  } else {
    p = std::malloc(bytes == 0 ? 1 : bytes);
  }
  if (p == nullptr) return nullptr;
  T* t = static_cast<T*>(p);
  for (std::size_t i = 0; i < n; ++i) new (t + i) T();
  return LargeArray<T>(t);
}

// Releases an AllocateZeroedLarge() array: unmaps its `mapped` bytes, or
// frees it when 0.
struct UnmapDeleter {
  std::size_t mapped = 0;
  void operator()(void* p) const noexcept {
#if defined(__linux__)
    if (mapped != 0) {
      munmap(p, mapped);
      return;
    }
#endif
    std::free(p);
  }
};

template <typename T>
using ZeroedArray = std::unique_ptr<T[], UnmapDeleter>;

// Allocates `n` zero-filled Ts without touching them, for a table sized for
// a worst case that usually fills a fraction (the client order id table).
// Arrays of 2 MiB or more are a fresh anonymous mapping, aligned to 2 MiB
// and marked for transparent huge pages as in AllocateLarge(): creating one
// costs system calls, not a memset, and the first write into each 2 MiB
// maps it, zeroed. Smaller ones come from calloc. T must be a type whose
// all-zero bytes are a valid value. Called only at engine construction.
// Returns nullptr if memory is exhausted.
template <typename T>
ZeroedArray<T> AllocateZeroedLarge(std::size_t n) {
  static_assert(std::is_trivially_default_constructible_v<T> &&
                std::is_trivially_destructible_v<T>);
  const std::size_t bytes = (n == 0 ? 1 : n) * sizeof(T);
#if defined(__linux__)
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (bytes >= kHuge) {
    // Over-map by 2 MiB and trim, so the array starts on a 2 MiB boundary.
    const std::size_t over = bytes + kHuge;
    void* m = mmap(nullptr, over, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return ZeroedArray<T>(nullptr, UnmapDeleter{});
    char* const base = static_cast<char*>(m);
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    char* const p = reinterpret_cast<char*>((addr + kHuge - 1) / kHuge * kHuge);
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t length = (bytes + page - 1) / page * page;
    if (p != base) munmap(base, static_cast<std::size_t>(p - base));
    char* const tail = p + length;
    if (tail < base + over) {
      munmap(tail, static_cast<std::size_t>(base + over - tail));
    }
#if defined(MADV_HUGEPAGE)
    madvise(p, length, MADV_HUGEPAGE);
#endif
    return ZeroedArray<T>(reinterpret_cast<T*>(p), UnmapDeleter{length});
  }
#endif
  return ZeroedArray<T>(static_cast<T*>(std::calloc(1, bytes)), UnmapDeleter{});
}

}  // namespace cfx::exchange::internal
