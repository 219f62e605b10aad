#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

// The exchange clock, read only by the sequencer: the engine sees time only
// through the ts the sequencer stamps.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp Now() const noexcept = 0;
};

// Wall-clock UTC time.
class WallClock final : public Clock {
 public:
  Timestamp Now() const noexcept override;
};

// Time that moves only when told to, so a test or a demo can run days in
// seconds (DESIGN.md §6). Thread: Now() from any thread; Set() and Advance()
// from one controlling thread.
class SimulatedClock final : public Clock {
 public:
  explicit SimulatedClock(Timestamp start) : now_(start.nanos) {}
  Timestamp Now() const noexcept override {
    return Timestamp{now_.load(std::memory_order_acquire)};
  }
  // Moves the clock to `t`; returns kInvalidArgument if `t` is in the past.
  Status Set(Timestamp t);
  void Advance(int64_t nanos) {
    now_.fetch_add(nanos, std::memory_order_acq_rel);
  }

 private:
  std::atomic<int64_t> now_;
};

// Parses "YYYY-MM-DDTHH:MM:SSZ" (UTC). Returns kInvalidArgument otherwise.
Result<Timestamp> ParseUtcTimestamp(std::string_view text);

// Formats as "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ".
std::string FormatUtcTimestamp(Timestamp t);

}  // namespace cfx::exchange
