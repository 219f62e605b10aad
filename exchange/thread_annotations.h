#pragma once

#include <mutex>

// Clang's thread-safety annotations (STYLE.md §6: cold-path mutexes carry
// GUARDED_BY), checked by `clang++ -Wthread-safety`; empty for other
// compilers. Mutex is a std::mutex the analysis knows as a capability, and
// MutexLock its scoped holder.

#if defined(__clang__)
#define CFX_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CFX_THREAD_ANNOTATION(x)
#endif

#define CFX_CAPABILITY(x) CFX_THREAD_ANNOTATION(capability(x))
#define CFX_SCOPED_CAPABILITY CFX_THREAD_ANNOTATION(scoped_lockable)
#define CFX_GUARDED_BY(x) CFX_THREAD_ANNOTATION(guarded_by(x))
#define CFX_PT_GUARDED_BY(x) CFX_THREAD_ANNOTATION(pt_guarded_by(x))
#define CFX_REQUIRES(...) \
  CFX_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define CFX_ACQUIRE(...) CFX_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define CFX_TRY_ACQUIRE(...) \
  CFX_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define CFX_RELEASE(...) CFX_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define CFX_NO_THREAD_SAFETY_ANALYSIS \
  CFX_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace cfx::exchange {

// Thread: any; a cold-path lock (never on the matching path).
class CFX_CAPABILITY("mutex") Mutex {
 public:
  void Lock() CFX_ACQUIRE() { mu_.lock(); }
  bool TryLock() CFX_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  void Unlock() CFX_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds `mu` for its scope.
class CFX_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) CFX_ACQUIRE(mu) : mu_(mu) { mu_.Lock(); }
  ~MutexLock() CFX_RELEASE() { mu_.Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

}  // namespace cfx::exchange
