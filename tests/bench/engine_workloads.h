#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/status.h"

namespace cfx::bench {

// The engine workloads of `cfx-bench engine`. Each is a fully pre-generated
// command stream plus the engine configuration it is valid for.
enum class WorkloadKind {
  // One instrument, ~1,000 resting orders over ~750 levels; 50 % new passive
  // limits, 35 % cancels, 10 % replaces, 5 % aggressive (IOC or crossing).
  kStandard,
  // 1M resting orders on 500 levels (~2,000 per level), then 70 % cancels of
  // random live orders anywhere in their queues and 30 % new orders.
  kDeep,
  // Liquibook's test/perf/pt_order_book.cpp: alternating buy/sell limits,
  // buys in [1880, 1889] ticks, sells in [1884, 1893], 100..1000 lots.
  kLiquibookInserts,
};

inline constexpr WorkloadKind kAllWorkloads[] = {
    WorkloadKind::kStandard, WorkloadKind::kDeep,
    WorkloadKind::kLiquibookInserts};

std::string_view WorkloadName(WorkloadKind kind);

struct WorkloadOptions {
  // Timed commands; 0 = the workload's default (10M, 2M, 5M; smoke: 20k).
  uint64_t commands = 0;
  uint64_t seed = 1;
  // Tiny sizes and pools, for a sub-second check that the tool works.
  bool smoke = false;
};

// Share of each command kind in the timed part of a stream.
struct CommandMix {
  uint64_t new_passive = 0;     // non-crossing limit orders
  uint64_t new_aggressive = 0;  // IOC or limit orders that cross
  uint64_t cancels = 0;
  uint64_t replaces_quantity_down = 0;
  uint64_t replaces_price = 0;
};

struct Workload {
  WorkloadKind kind = WorkloadKind::kStandard;
  std::string name;
  std::string description;  // one line, for the human summary
  // Sized so the stream never meets a limit: every new order carries a
  // fresh client order id, so max_client_order_ids is at least the number
  // of new orders (and never below the engine's default).
  exchange::EngineConfig config;
  // Applied in order on a fresh engine: `warmup` untimed, then `timed`.
  // Seq and ts are left 0; the runner stamps them (see Stamp()).
  std::vector<exchange::Command> warmup;
  std::vector<exchange::Command> timed;
  CommandMix mix;
  // What a replay must produce, from the generator's own engine run. Only
  // when `has_expected` (the liquibook stream is generated without one).
  bool has_expected = false;
  uint64_t expected_state_hash = 0;
  uint64_t expected_trades = 0;
  uint64_t expected_resting = 0;
};

// Builds a workload. Streams are a pure function of (kind, options). The
// standard and deep generators apply each command to a private engine as
// they go and read its events, so they know exactly which orders are live,
// at which price and with which leaves; they only emit commands that engine
// accepts. Returns kInternal if a generated command is rejected (a generator
// bug) or kInvalidArgument for an impossible size.
Result<Workload> MakeWorkload(WorkloadKind kind,
                              const WorkloadOptions& options);

// The sequencer's stamp for the command at 1-based stream position `seq`
// (warm-up first, then timed): a dense seq and a ts 1 µs apart.
inline void Stamp(exchange::Command& c, uint64_t seq) {
  constexpr int64_t kBaseTs = 1'750'000'000'000'000'000;  // 2025-06-15
  constexpr int64_t kStepNanos = 1'000;
  c.seq = exchange::Seq{seq};
  c.ts = exchange::Timestamp{kBaseTs + static_cast<int64_t>(seq) * kStepNanos};
}

}  // namespace cfx::bench
