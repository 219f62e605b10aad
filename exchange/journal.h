#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/keyed_hash.h"
#include "exchange/core/status.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace cfx::exchange {

struct JournalOptions {
  // Create the data dir and journal when absent. Default: true.
  bool create_if_missing = true;
  // Open without write access (operator tools). Default: false.
  bool read_only = false;
  // fsync every Append() before it returns. Default: true. Only benchmarks
  // that measure the cost of durability turn it off.
  bool sync = true;
  // The table seed a new journal gets at genesis (docs/journal.md, "Table
  // seed"). Default (zero): 16 random bytes. Only runs that compare two
  // journals' state hashes (tests, benchmarks) fix it; an existing
  // journal's seed is never replaced.
  SipKey genesis_table_seed{};
};

struct JournalStats {
  Seq first_seq;  // 0 when empty
  Seq last_seq;
  uint64_t commands = 0;
  uint64_t snapshots = 0;
  Seq latest_snapshot_seq;
  uint64_t live_file_bytes = 0;
};

struct SnapshotRecord {
  bool found = false;
  Seq seq;
  std::string bytes;
  // Newer snapshots that failed verification and were passed over, one line
  // each naming seq and reason; recovery logs them.
  std::vector<std::string> skipped;
};

// The durable, append-only command log and snapshot store on RocksDB
// (format: docs/journal.md). Keys are big-endian seqs; values are
// versioned, checksummed records.
//
// Thread: Append() from the sequencer thread only (the single writer);
// WriteSnapshot() from the thread that owns the engine; the read methods
// (last_seq(), FindLatestSnapshot(), FindSnapshotAtOrBefore(), Replay(),
// ReplayRange(), Stats()) from any thread, also while Append() and
// WriteSnapshot() run: RocksDB reads are thread-safe and see a consistent
// point in time, and the only member Append() changes that they read,
// last_seq(), is atomic. Memory: allocates (cold path).
class Journal {
 public:
  // Opens the journal in `dir`. Returns kDataLoss if RocksDB reports
  // corruption (the message names the file), kInvalidArgument if `dir`
  // holds something that is not a CFX journal.
  static Result<std::unique_ptr<Journal>> Open(const std::string& dir,
                                               const JournalOptions& options);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends `n` commands as one atomic write, durable when it returns OK.
  // payloads[i] is the payload of a kReferenceData cmds[i] (null: none).
  // REQUIRES: their seqs continue last_seq() densely.
  Status Append(const Command* cmds, std::size_t n,
                const std::string_view* payloads = nullptr);

  // Seq of the last appended command, 0 when empty: the journal's durable
  // end (Append() publishes it once its write is durable). Any thread.
  Seq last_seq() const {
    return Seq{last_seq_.load(std::memory_order_acquire)};
  }
  // Time of the last appended command; 0 when empty. Only from the writer
  // thread, or before it starts: it may lag last_seq() while Append() runs.
  Timestamp last_ts() const {
    return Timestamp{last_ts_.load(std::memory_order_relaxed)};
  }

  Status WriteSnapshot(Seq seq, std::string_view bytes);

  // The seed of the engine's tables keyed by client values
  // (Engine::SetTableKey(); docs/journal.md, "Table seed"): 16 random bytes
  // written once, when a writable Open() finds none (a new journal, or one
  // made before seeds existed). The zero key when a read-only open finds
  // none.
  const SipKey& table_seed() const { return table_seed_; }

  // The newest snapshot whose record verifies.
  Result<SnapshotRecord> FindLatestSnapshot() const;

  // The newest snapshot at or before `seq` whose record verifies (found is
  // false when there is none: start from an empty engine). Newer ones that
  // fail verification, or lie beyond last_seq(), are passed over and named
  // in `skipped`, as by FindLatestSnapshot(). Only the two newest
  // snapshots are kept, so an old `seq` usually finds none.
  Result<SnapshotRecord> FindSnapshotAtOrBefore(Seq seq) const;

  using ReplayFn = std::function<Status(const Command&)>;
  // With the command's payload (empty unless it is kReferenceData).
  using ReplayPayloadFn =
      std::function<Status(const Command&, std::string_view payload)>;
  using ProgressFn = std::function<void(Seq done, Seq last)>;

  // Calls `fn` for every command with seq > `after`, in seq order, after
  // checking that seqs are dense from after + 1. A corrupt or missing record
  // stops the replay with kDataLoss naming the seq and the file that holds
  // it; nothing is skipped. `progress` (optional) is called every 1M records.
  // The end is last_seq() as of the call: commands appended meanwhile may
  // or may not be included.
  Status Replay(Seq after, const ReplayFn& fn,
                const ProgressFn& progress = nullptr) const;

  // As Replay(), for the commands with seq in (after, through] only; stops
  // reading after `through`. Returns kOutOfRange if `through` is beyond
  // last_seq() and does nothing then; an empty range (through <= after) is
  // OK and calls nothing.
  Status ReplayRange(Seq after, Seq through, const ReplayFn& fn,
                     const ProgressFn& progress = nullptr) const;

  // As Replay() and ReplayRange(), handing each command's payload too.
  Status ReplayWithPayloads(Seq after, const ReplayPayloadFn& fn,
                            const ProgressFn& progress = nullptr) const;
  Status ReplayRangeWithPayloads(Seq after, Seq through,
                                 const ReplayPayloadFn& fn,
                                 const ProgressFn& progress = nullptr) const;

  Result<JournalStats> Stats() const;

  // Flushes memtables to table files (clean shutdown).
  Status Flush();

  // Writes `record` under `seq` unchecked: for corruption tests only.
  Status PutRawRecordForTest(Seq seq, std::string_view record);
  // Writes `record` as the snapshot record at `seq`, unchecked and without
  // pruning: for corruption tests only.
  Status PutRawSnapshotRecordForTest(Seq seq, std::string_view record);

  const std::string& dir() const { return dir_; }

 private:
  Journal() = default;
  // Names the table file whose key range holds `seq`, or "the write-ahead
  // log" when no table file does.
  std::string LocateFile(Seq seq) const;

  // Snapshot lookup shared by FindLatestSnapshot() and
  // FindSnapshotAtOrBefore().
  Result<SnapshotRecord> FindSnapshot(Seq at_most) const;

  std::string dir_;
  JournalOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* commands_ = nullptr;
  rocksdb::ColumnFamilyHandle* snapshots_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_ = nullptr;
  SipKey table_seed_;
  // Written by Open() and Append() (release, after the write is durable);
  // read from any thread.
  std::atomic<uint64_t> last_seq_{0};
  std::atomic<int64_t> last_ts_{0};
  std::string record_buffer_;  // Append()'s, reused; writer thread only
};

}  // namespace cfx::exchange
