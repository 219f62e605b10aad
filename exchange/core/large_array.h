#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
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

}  // namespace cfx::exchange::internal
