#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine_config.h"

namespace cfx::exchange::testing {

// A small two-instrument, eight-account configuration with a 20,000-order
// pool, for randomized tests of replay and snapshots.
EngineConfig SmallMarketConfig();

// `n` commands of every kind (valid and invalid), from `seed`, against
// SmallMarketConfig(), with dense seqs from `first_seq` and a clock that
// moves 1-50 µs per command from `start`. Deterministic per seed.
std::vector<Command> RandomCommands(
    uint64_t seed, std::size_t n, uint64_t first_seq = 1,
    int64_t start_ns = 1'800'000'000'000'000'000);

}  // namespace cfx::exchange::testing
