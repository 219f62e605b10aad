#pragma once

#include <chrono>
#include <thread>

namespace cfx::exchange {

// Aeron-style back-off for duty-cycle loops: spin, then yield, then park
// briefly, resetting as soon as there is work.
class BackoffIdle {
 public:
  void Idle(int work_count) {
    if (work_count > 0) {
      spins_ = 0;
      return;
    }
    ++spins_;
    if (spins_ < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    } else if (spins_ < 128) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  int spins_ = 0;
};

}  // namespace cfx::exchange
