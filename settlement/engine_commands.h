#pragma once

#include <vector>

#include "exchange/core/command.h"
#include "settlement/settlement_service.h"

namespace cfx::settlement {

// The commands that tell the engine a run's outcome. They go through the
// sequencer like any other, so the journal holds them and a replay
// reproduces their effect. With `prices`: each contract's new settlement
// price (kSetReferencePrice: the reference of its bands and its margin), or
// for a contract finally settled, its expiry (kSetInstrumentState
// kExpired: the FSP is on $0.001, not a price the book takes); then each
// account's net booking (kCollateral, target = the run's date, so that the
// engine applies a date once). In the order of result.contracts and
// result.bookings.
std::vector<exchange::Command> EngineCommands(const RunResult& result,
                                              bool prices);

}  // namespace cfx::settlement
