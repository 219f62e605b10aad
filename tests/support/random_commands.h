#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine_config.h"

namespace cfx::exchange::testing {

// A small two-instrument, eight-account configuration with a 20,000-order
// pool and room for 1,024 client order ids a day (a small table, so that
// tests can build thousands of engines), for randomized tests of replay
// and snapshots. Instrument 1 is a margined future, 2 a spot instrument;
// accounts 1 and 2 have collateral for about three contracts, the others
// $10,000,000.
EngineConfig SmallMarketConfig();

// `n` commands of every kind (valid and invalid), from `seed`, against
// SmallMarketConfig(), with dense seqs from `first_seq` and a clock that
// moves 1-50 µs per command from `start`. Deterministic per seed. One new
// order in 16 resends the account and client order id of a recent one
// (rejected DUPLICATE_CLIENT_ORDER_ID when that one was accepted the same
// trading day); about one command in 670 is an EndOfSession of all
// instruments; one in 40 is a kCollateral deposit, withdrawal or
// settlement booking (some for a date already booked); one in 300 kills
// the acting account and, while accounts are killed, one in 40 reinstates
// the longest killed one.
std::vector<Command> RandomCommands(
    uint64_t seed, std::size_t n, uint64_t first_seq = 1,
    int64_t start_ns = 1'800'000'000'000'000'000);

}  // namespace cfx::exchange::testing
