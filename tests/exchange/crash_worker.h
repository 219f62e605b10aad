#pragma once

#include <cstdint>
#include <string>

#include "exchange/pipeline.h"

namespace cfx::exchange::testing {

// Shared by the crash test and its worker process.
inline constexpr int64_t kCrashStartNs = 1'800'000'000'000'000'000;

inline PipelineOptions CrashOptions(const std::string& dir) {
  PipelineOptions o;
  o.data_dir = dir;
  o.shard.snapshot_every = 1'500;
  o.timers = false;  // seq = submission order
  o.engine_ring = 1 << 12;
  return o;
}

}  // namespace cfx::exchange::testing
