#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/core/status.h"
#include "exchange/journal.h"

namespace cfx::exchange {

struct RecoveryReport {
  Seq snapshot_seq;       // 0 when recovery started from an empty engine
  uint64_t replayed = 0;  // commands replayed after the snapshot
  Seq last_seq;
  uint64_t state_hash = 0;
  double seconds = 0;
  // Snapshots passed over because they did not verify.
  std::vector<std::string> warnings;
};

// Rebuilds `engine` (fresh, from the journal's config) from the journal's
// table seed (SeedEngine()), the newest valid snapshot and the journal
// after it. Returns kDataLoss naming seq and file
// on a corrupt journal; never skips a record.
Result<RecoveryReport> Recover(const Journal& journal, Engine& engine,
                               const Journal::ProgressFn& progress = nullptr);

// Sets the fresh `engine`'s table key from the journal's table seed, if it
// has one (docs/journal.md, "Table seed"): every engine that replays a
// journal does so first, so it hashes its tables as the live engine did and
// reaches the same StateHash().
Status SeedEngine(const Journal& journal, Engine& engine);

// Loads `snapshot` (found) into the fresh `engine` and checks that it holds
// the state at its seq. Returns kDataLoss naming the seq and the journal's
// dir when it does not load (e.g. a config listing other instruments) or
// holds another seq's state.
Status LoadSnapshotRecord(const Journal& journal,
                          const SnapshotRecord& snapshot, Engine& engine);

// One line for logs: "recovered 12345 commands (snapshot at seq 10000 +
// 2345 replayed), last seq 12345, state hash 0123456789abcdef, 0.012 s".
std::string DescribeRecovery(const RecoveryReport& r);

}  // namespace cfx::exchange
