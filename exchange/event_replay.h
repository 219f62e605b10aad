#pragma once

#include <functional>

#include "exchange/core/engine_config.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"
#include "exchange/journal.h"

namespace cfx::exchange {

// Re-derives the engine events of the journaled commands in (after, through]:
// loads the newest snapshot with seq <= after (or starts from an empty engine
// built from `config`), replays the journal's commands up to `through`, and
// passes every event whose seq > after to fn, in order. The events are
// byte-identical to the ones the live engine emitted for those commands
// (the engine is deterministic), provided `config` is the live engine's.
// Used to retransmit events and to seed gateway views.
//
// Returns kOutOfRange if `through` is beyond the journal's durable end
// (last_seq()), kInvalidArgument if through < after, the journal's error
// (kDataLoss ...) otherwise; on an error `fn` may already have seen the
// events of the commands before the damage. Only the two newest snapshots
// are kept, so for an older `after` the replay starts from seq 1.
//
// Thread: any thread, also while the sequencer appends to the same Journal
// (reads only). Cold path: allocates an Engine.
Status ReplayEvents(const Journal& journal, const EngineConfig& config,
                    Seq after, Seq through,
                    const std::function<void(const Event&)>& fn);

}  // namespace cfx::exchange
