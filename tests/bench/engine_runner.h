#pragma once

#include <array>
#include <cstdint>

#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "tests/bench/engine_workloads.h"
#include "tests/bench/latency_histogram.h"

namespace cfx::bench {

// Events seen by the benchmark's EventSink, by EventType.
struct EventCounts {
  std::array<uint64_t, 32> by_type{};

  uint64_t of(exchange::EventType t) const {
    return by_type[static_cast<uint8_t>(t) & 31u];
  }
  uint64_t total() const;
};

// One replay of a workload on a fresh engine.
struct PassResult {
  double seconds = 0;      // the timed commands only, wall (steady) clock
  double cpu_seconds = 0;  // the same span in this thread's CPU time: less
                           // than `seconds` when the thread was preempted
  EventCounts warmup_events;
  EventCounts timed_events;
  uint64_t state_hash = 0;      // Engine::StateHash() at the end
  uint64_t resting_orders = 0;  // at the end
  uint64_t levels = 0;          // non-empty (side, price) levels at the end
};

struct RunOptions {
  // The latency pass times one command in every `latency_every` on average
  // (gaps uniform in [1, 2 * latency_every - 1]); 0 skips the pass.
  uint32_t latency_every = 16;
  uint64_t seed = 1;  // for the sampling gaps
};

// One run = a throughput pass (a plain Apply loop, one clock read before and
// after) and, unless disabled, a latency pass over the same stream on
// another fresh engine, in which sampled commands are timed one by one with
// std::chrono::steady_clock. The sink is flushed (outside the timed window)
// before each sampled command, so a sample never includes the sink's own
// event counting, only Engine::Apply.
struct RunResult {
  PassResult throughput;
  bool has_latency = false;
  PassResult latency_pass;
  LatencyHistogram latency;
};

// Returns the engine's creation error if the workload's config is invalid.
Result<RunResult> RunWorkload(const Workload& w, const RunOptions& options);

// Median of two back-to-back steady_clock reads, in ns: the overhead
// included in every latency sample.
uint64_t MeasureClockOverheadNanos();

}  // namespace cfx::bench
