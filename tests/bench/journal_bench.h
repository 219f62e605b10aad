#pragma once

#include <cstdint>
#include <string>

#include "exchange/core/status.h"
#include "tests/bench/latency_histogram.h"

namespace cfx::bench {

struct JournalBenchOptions {
  // Commands pushed through the pipeline (standard workload, warm-up
  // included). 0 = 10,000,000 (smoke: 20,000).
  uint64_t commands = 0;
  uint64_t seed = 1;
  // Where the journal goes; a fresh directory is created under it and
  // removed afterwards. Default: $TMPDIR or /tmp.
  std::string dir;
  // Snapshot interval of the shard. Default: 1,000,000.
  uint64_t snapshot_every = 1'000'000;
  // One command in this many has its submit-to-durable latency recorded.
  uint32_t latency_every = 16;
  // Offered load of the latency phase, commands/s. Default: 300,000.
  uint64_t offered_rate = 300'000;
  bool smoke = false;
  bool quiet = false;
};

// One run of `cfx-bench journal`:
// 0. fsync: the device's synced-write latency, the floor for phase 1.
// 1. latency: a producer thread pushes the standard workload into a
//    Pipeline (sequencer + synced RocksDB journal + engine) at a fixed
//    offered rate (open loop, 5 s); an egress thread takes the durable
//    events and records, for sampled commands, the time from their
//    scheduled push to durable.
// 2. durable: the same in a journal of its own, with the producer pushing
//    as fast as the rings accept.
// 3. replay: the journal is read back from seq 1 through a fresh engine.
// 4. restart: the pipeline is reopened as after a crash (no shutdown
//    snapshot: newest periodic snapshot + tail), started, and one new order
//    is pushed; the time until its acknowledgement is the restart time.
struct JournalBenchResult {
  // write + fdatasync of 10 KB to a plain file in the same directory.
  LatencyHistogram fsync_latency;
  uint64_t commands = 0;
  double durable_seconds = 0;
  double durable_per_s = 0;
  uint64_t journal_writes = 0;  // synced WriteBatches
  LatencyHistogram durable_latency;
  uint64_t latency_commands = 0;
  uint64_t latency_writes = 0;
  double latency_achieved_per_s = 0;
  double replay_seconds = 0;
  double replay_per_s = 0;
  double restart_seconds = 0;
  uint64_t restart_snapshot_seq = 0;
  uint64_t restart_replayed = 0;
  uint64_t live_file_bytes = 0;
  bool hashes_match = false;  // replay and restart reach the run's state
};

Result<JournalBenchResult> RunJournalBench(const JournalBenchOptions& options);

}  // namespace cfx::bench
