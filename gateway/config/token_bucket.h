#pragma once

#include <algorithm>
#include <cstdint>

namespace cfx::gateway {

// A per-session message throttle: `rate` messages per second, burst one
// second's worth. Integer arithmetic in thousandths of a message.
// Thread: one owner. Memory: none.
class TokenBucket {
 public:
  // Full bucket at `now_ns` (steady clock).
  void Reset(int64_t rate, int64_t now_ns) {
    milli_ = rate * 1000;
    last_ns_ = now_ns;
  }

  // Refills for the time since the last call and takes one message's
  // token; false (nothing taken) when the bucket is empty.
  bool TryTake(int64_t rate, int64_t now_ns) {
    constexpr int64_t kNanosPerSecond = 1'000'000'000;
    const int64_t elapsed =
        std::min<int64_t>(now_ns - last_ns_, kNanosPerSecond);
    last_ns_ = now_ns;
    milli_ =
        std::min<int64_t>(rate * 1000, milli_ + elapsed * rate / 1'000'000);
    if (milli_ < 1000) return false;
    milli_ -= 1000;
    return true;
  }

 private:
  int64_t milli_ = 0;
  int64_t last_ns_ = 0;
};

}  // namespace cfx::gateway
