#include "exchange/journal.h"

#include <rocksdb/db.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/journal_record.h"
#include "exchange/rocksdb_status.h"

namespace cfx::exchange {
namespace {

constexpr char kFormatKey[] = "format";
constexpr char kFormatValue[] = "cfx-journal 1";
constexpr char kTableSeedKey[] = "table_seed";
constexpr int kSnapshotsKept = 2;

// RocksDB reports a damaged write-ahead log at open without naming it:
// name the candidates, so the message says where to look.
Status NameLogFiles(const std::string& dir, const Status& st) {
  for (const char* named : {".log", ".sst", "MANIFEST"}) {
    if (st.message().find(named) != std::string::npos) return st;
  }
  std::vector<std::string> logs;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".log") logs.push_back(e.path().string());
  }
  if (logs.empty()) return st;
  std::sort(logs.begin(), logs.end());
  std::string names;
  for (const std::string& l : logs) names += (names.empty() ? "" : ", ") + l;
  return DataLossError(st.message() + " (in the write-ahead log: " + names +
                       ")");
}

// 16 bytes from the kernel's CSPRNG, never all zero (the zero key means
// "none"). kInternal when getrandom() fails.
Result<SipKey> NewTableSeed() {
  SipKey k;
  while (k == SipKey{}) {
    uint64_t words[2];
    std::size_t got = 0;
    while (got < sizeof words) {
      const ssize_t n = getrandom(reinterpret_cast<char*>(words) + got,
                                  sizeof words - got, 0);
      if (n < 0 && errno != EINTR) {
        return InternalError(std::string("getrandom: ") + std::strerror(errno));
      }
      if (n > 0) got += static_cast<std::size_t>(n);
    }
    k = SipKey{words[0], words[1]};
  }
  return k;
}

// Reads meta/table_seed (two u64, little-endian), writing a new one first
// when it is missing and the journal is writable.
Result<SipKey> LoadTableSeed(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta,
                             const JournalOptions& options,
                             const std::string& dir) {
  std::string bytes;
  rocksdb::Status s =
      db.Get(rocksdb::ReadOptions(), meta, kTableSeedKey, &bytes);
  if (s.IsNotFound()) {
    if (options.read_only) return SipKey{};
    Result<SipKey> k = options.genesis_table_seed != SipKey{}
                           ? Result<SipKey>(options.genesis_table_seed)
                           : NewTableSeed();
    if (!k.has_value()) return k.error();
    std::string value;
    ByteWriter w(&value);
    w.Put(k.value().k0);
    w.Put(k.value().k1);
    rocksdb::WriteOptions wo;
    wo.sync = true;
    CFX_RETURN_IF_ERROR(FromRocks(db.Put(wo, meta, kTableSeedKey, value),
                                  "journal " + dir, RocksErrors::kByKind));
    return k;
  }
  if (!s.ok()) return FromRocks(s, "journal " + dir, RocksErrors::kByKind);
  ByteReader r(bytes);
  SipKey k;
  k.k0 = r.Get<uint64_t>();
  k.k1 = r.Get<uint64_t>();
  if (bytes.size() != 16 || !r.ok() || k == SipKey{}) {
    return DataLossError("journal " + dir + ": bad table seed (" +
                         std::to_string(bytes.size()) + " bytes)");
  }
  return k;
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& dir,
                                               const JournalOptions& options) {
  std::unique_ptr<Journal> j(new Journal());
  j->dir_ = dir;
  j->options_ = options;
  std::error_code ec;
  if (options.create_if_missing && !options.read_only) {
    // A new journal dir is private (0700) whatever the umask.
    if (std::filesystem::create_directories(dir, ec) && !ec) {
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
    }
    if (ec) {
      return Status(StatusCode::kUnavailable,
                    "journal " + dir + ": cannot create: " + ec.message());
    }
  } else if (!std::filesystem::exists(dir, ec)) {
    return NotFoundError("journal " + dir + ": no such directory");
  }

  rocksdb::Options db_options;
  db_options.create_if_missing =
      options.create_if_missing && !options.read_only;
  db_options.create_missing_column_families = !options.read_only;
  db_options.paranoid_checks = true;
  // A record cut short at the very end of the write-ahead log is a write a
  // crash interrupted; its sync never returned, so it was never
  // acknowledged and is dropped. Damage anywhere else fails the open.
  // (kAbsoluteConsistency would refuse to restart after every such crash.)
  db_options.wal_recovery_mode =
      rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  db_options.max_background_jobs = 2;
  // The vector memtable (append-only, sorted once on flush or read) does not
  // take concurrent inserts; there is one writer anyway.
  db_options.allow_concurrent_memtable_write = false;
  db_options.keep_log_file_num = 5;
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 64 << 20;
  cf.memtable_factory.reset(new rocksdb::VectorRepFactory());
  cf.compression = rocksdb::kLZ4Compression;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 64 << 10;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, cf},
      {"commands", cf},
      {"snapshots", cf},
      {"meta", cf},
  };
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s;
  if (options.read_only) {
    s = rocksdb::DB::OpenForReadOnly(db_options, dir, families, &j->handles_,
                                     &raw);
  } else {
    s = rocksdb::DB::Open(db_options, dir, families, &j->handles_, &raw);
  }
  if (!s.ok()) {
    Status st = FromRocks(s, "journal " + dir, RocksErrors::kByKind);
    if (s.IsCorruption()) st = NameLogFiles(dir, st);
    return st;
  }
  j->db_.reset(raw);
  j->commands_ = j->handles_[1];
  j->snapshots_ = j->handles_[2];
  j->meta_ = j->handles_[3];

  std::string format;
  s = j->db_->Get(rocksdb::ReadOptions(), j->meta_, kFormatKey, &format);
  if (s.IsNotFound()) {
    if (options.read_only) {
      return InvalidArgumentError("journal " + dir + ": not a CFX journal");
    }
    rocksdb::WriteOptions wo;
    wo.sync = true;
    CFX_RETURN_IF_ERROR(
        FromRocks(j->db_->Put(wo, j->meta_, kFormatKey, kFormatValue),
                  "journal " + dir, RocksErrors::kByKind));
  } else if (!s.ok()) {
    return FromRocks(s, "journal " + dir, RocksErrors::kByKind);
  } else if (format != kFormatValue) {
    return InvalidArgumentError("journal " + dir + ": unsupported format '" +
                                format + "'");
  }

  Result<SipKey> seed =
      LoadTableSeed(*j->db_, j->meta_, options, dir);
  if (!seed.has_value()) return seed.error();
  j->table_seed_ = seed.value();

  std::unique_ptr<rocksdb::Iterator> it(
      j->db_->NewIterator(rocksdb::ReadOptions(), j->commands_));
  it->SeekToLast();
  if (it->Valid()) {
    Seq last;
    if (!ParseSeqKey(it->key().ToStringView(), &last)) {
      return DataLossError("journal " + dir + ": malformed key " +
                           std::to_string(it->key().size()) + " bytes long");
    }
    std::vector<Command> cmds;
    const Status st =
        DecodeCommandRecords(last, it->value().ToStringView(), &cmds);
    if (!st.ok()) {
      return DataLossError("journal " + dir + ": seq " +
                           std::to_string(last.value) + ": " + st.message() +
                           " in " + j->LocateFile(last));
    }
    j->last_ts_.store(cmds.back().ts.nanos, std::memory_order_relaxed);
    j->last_seq_.store(cmds.back().seq.value, std::memory_order_release);
  }
  CFX_RETURN_IF_ERROR(
      FromRocks(it->status(), "journal " + dir, RocksErrors::kByKind));
  return j;
}

Journal::~Journal() {
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* h : handles_) {
    db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

Status Journal::Append(const Command* cmds, std::size_t n,
                       const std::string_view* payloads) {
  if (n == 0) return Status::Ok();
  // One record for the whole batch, under the seq of its first command:
  // one memtable entry per group commit instead of one per command.
  const uint64_t last = last_seq_.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < n; ++i) {
    if (cmds[i].seq.value != last + 1 + i) {
      return InternalError("journal append: seq " +
                           std::to_string(cmds[i].seq.value) +
                           " but expected " + std::to_string(last + 1 + i));
    }
  }
  char key[8];
  EncodeSeqKey(cmds[0].seq, key);
  if (payloads == nullptr) {
    EncodeCommandRecords(cmds, n, &record_buffer_);
  } else {
    EncodeCommandRecords(cmds, n, payloads, &record_buffer_);
  }
  rocksdb::WriteBatch batch;
  const rocksdb::Status s =
      batch.Put(commands_, rocksdb::Slice(key, sizeof key),
                rocksdb::Slice(record_buffer_));
  if (!s.ok()) return FromRocks(s, "journal " + dir_, RocksErrors::kByKind);
  rocksdb::WriteOptions wo;
  wo.sync = options_.sync;
  CFX_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), "journal " + dir_,
                                RocksErrors::kByKind));
  // Durable (and visible to readers' iterators) now: publish the end.
  last_ts_.store(cmds[n - 1].ts.nanos, std::memory_order_relaxed);
  last_seq_.store(cmds[n - 1].seq.value, std::memory_order_release);
  return Status::Ok();
}

Status Journal::WriteSnapshot(Seq seq, std::string_view bytes) {
  std::string record;
  EncodeSnapshotRecord(bytes, &record);
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Put(snapshots_, SeqKey(seq), record);
  if (!s.ok()) return FromRocks(s, "journal " + dir_, RocksErrors::kByKind);
  // Keep the newest few: find the seq below which to drop.
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), snapshots_));
  int kept = 1;  // the new one
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    Seq older;
    if (!ParseSeqKey(it->key().ToStringView(), &older) || older >= seq)
      continue;
    if (++kept > kSnapshotsKept) {
      s = batch.DeleteRange(snapshots_, SeqKey(Seq{0}),
                            SeqKey(Seq{older.value + 1}));
      if (!s.ok()) return FromRocks(s, "journal " + dir_, RocksErrors::kByKind);
      break;
    }
  }
  CFX_RETURN_IF_ERROR(
      FromRocks(it->status(), "journal " + dir_, RocksErrors::kByKind));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->Write(wo, &batch), "journal " + dir_,
                   RocksErrors::kByKind);
}

Result<SnapshotRecord> Journal::FindLatestSnapshot() const {
  return FindSnapshot(Seq{UINT64_MAX});
}

Result<SnapshotRecord> Journal::FindSnapshotAtOrBefore(Seq seq) const {
  return FindSnapshot(seq);
}

Result<SnapshotRecord> Journal::FindSnapshot(Seq at_most) const {
  SnapshotRecord out;
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, snapshots_));
  // The end after the iterator: a snapshot is written only once its seq is
  // durable, i.e. after Append() published it, so a snapshot the iterator
  // sees lies beyond this end only if its record is wrong.
  const Seq end = last_seq();
  if (at_most.value == UINT64_MAX) {
    it->SeekToLast();
  } else {
    it->SeekForPrev(SeqKey(at_most));
  }
  for (; it->Valid(); it->Prev()) {
    Seq seq;
    if (!ParseSeqKey(it->key().ToStringView(), &seq)) {
      out.skipped.push_back("snapshot with a malformed key");
      continue;
    }
    if (seq > end) {
      out.skipped.push_back("snapshot at seq " + std::to_string(seq.value) +
                            ": beyond the last journaled seq " +
                            std::to_string(end.value));
      continue;
    }
    std::string_view payload;
    const Status st =
        DecodeSnapshotRecord(it->value().ToStringView(), &payload);
    if (!st.ok()) {
      out.skipped.push_back("snapshot at seq " + std::to_string(seq.value) +
                            ": " + st.message());
      continue;
    }
    out.found = true;
    out.seq = seq;
    out.bytes.assign(payload);
    return out;
  }
  if (!it->status().ok()) {
    return FromRocks(it->status(), "journal " + dir_ + " snapshots",
                     RocksErrors::kByKind);
  }
  return out;
}

Status Journal::Replay(Seq after, const ReplayFn& fn,
                       const ProgressFn& progress) const {
  return ReplayRange(after, last_seq(), fn, progress);
}

Status Journal::ReplayRange(Seq after, Seq through, const ReplayFn& fn,
                            const ProgressFn& progress) const {
  if (!fn) return ReplayRangeWithPayloads(after, through, nullptr, progress);
  return ReplayRangeWithPayloads(
      after, through,
      [&fn](const Command& c, std::string_view) { return fn(c); }, progress);
}

Status Journal::ReplayWithPayloads(Seq after, const ReplayPayloadFn& fn,
                                   const ProgressFn& progress) const {
  return ReplayRangeWithPayloads(after, last_seq(), fn, progress);
}

Status Journal::ReplayRangeWithPayloads(Seq after, Seq through,
                                        const ReplayPayloadFn& fn,
                                        const ProgressFn& progress) const {
  // Read the durable end before creating the iterator, so the iterator
  // sees at least every command up to it (Append() publishes last_seq()
  // after its write), also while the sequencer appends.
  const Seq end = last_seq();
  if (through > end) {
    return OutOfRangeError(
        "journal " + dir_ + ": seq " + std::to_string(through.value) +
        " is beyond the last journaled seq " + std::to_string(end.value));
  }
  if (through <= after) return Status::Ok();
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  ro.readahead_size = 4 << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, commands_));
  Seq expect{after.value + 1};
  std::vector<Command> cmds;
  std::vector<std::string> payloads;
  bool first_record = true;
  // The record holding `expect` is the last one keyed at or below it.
  it->SeekForPrev(SeqKey(expect));
  if (!it->Valid() && it->status().ok()) it->SeekToFirst();
  for (; it->Valid(); it->Next()) {
    Seq key;
    if (!ParseSeqKey(it->key().ToStringView(), &key)) {
      return DataLossError("journal " + dir_ + ": malformed key after seq " +
                           std::to_string(expect.value - 1) + " in " +
                           LocateFile(expect));
    }
    if (key > expect) {
      return DataLossError("journal " + dir_ + ": seq " +
                           std::to_string(expect.value) +
                           " is missing (next is " + std::to_string(key.value) +
                           ") in " + LocateFile(expect));
    }
    const Status st =
        DecodeCommandRecords(key, it->value().ToStringView(), &cmds, &payloads);
    if (!st.ok()) {
      return DataLossError("journal " + dir_ + ": seq " +
                           std::to_string(key.value) + ": " + st.message() +
                           " in " + LocateFile(key));
    }
    if (key < expect) {
      if (!first_record) {
        return DataLossError("journal " + dir_ + ": record at seq " +
                             std::to_string(key.value) + " overlaps seq " +
                             std::to_string(expect.value - 1) + " in " +
                             LocateFile(key));
      }
      // The record found by SeekForPrev may end before `expect`: then
      // `expect` is past the journal's end, or missing (the next record
      // says which).
      if (key.value + cmds.size() <= expect.value) {
        first_record = false;
        continue;
      }
    }
    first_record = false;
    for (std::size_t i = 0; i < cmds.size(); ++i) {
      const Command& c = cmds[i];
      if (c.seq < expect) continue;
      if (c.seq > through) break;
      if (fn) CFX_RETURN_IF_ERROR(fn(c, payloads[i]));
      if (progress && c.seq.value % 1'000'000 == 0) progress(c.seq, end);
      ++expect.value;
    }
    if (expect > through) return Status::Ok();
  }
  if (!it->status().ok()) {
    return DataLossError("journal " + dir_ + ": cannot read seq " +
                         std::to_string(expect.value) + " (" +
                         LocateFile(expect) + "): " + it->status().ToString());
  }
  return DataLossError("journal " + dir_ + ": ends at seq " +
                       std::to_string(expect.value - 1) +
                       " but the last key is " + std::to_string(end.value));
}

Result<JournalStats> Journal::Stats() const {
  JournalStats st;
  st.last_seq = last_seq();
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), commands_));
  it->SeekToFirst();
  if (it->Valid()) ParseSeqKey(it->key().ToStringView(), &st.first_seq);
  if (st.first_seq.value != 0)
    st.commands = st.last_seq.value - st.first_seq.value + 1;
  std::unique_ptr<rocksdb::Iterator> snaps(
      db_->NewIterator(rocksdb::ReadOptions(), snapshots_));
  for (snaps->SeekToFirst(); snaps->Valid(); snaps->Next()) {
    ++st.snapshots;
    ParseSeqKey(snaps->key().ToStringView(), &st.latest_snapshot_seq);
  }
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  for (const auto& f : files) st.live_file_bytes += f.size;
  return st;
}

Status Journal::Flush() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  return FromRocks(db_->Flush(fo, {commands_, snapshots_, meta_}),
                   "journal " + dir_, RocksErrors::kByKind);
}

Status Journal::PutRawRecordForTest(Seq seq, std::string_view record) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  CFX_RETURN_IF_ERROR(FromRocks(db_->Put(wo, commands_, SeqKey(seq), record),
                                "journal " + dir_, RocksErrors::kByKind));
  if (seq > last_seq()) {
    last_seq_.store(seq.value, std::memory_order_release);
  }
  return Status::Ok();
}

Status Journal::PutRawSnapshotRecordForTest(Seq seq, std::string_view record) {
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->Put(wo, snapshots_, SeqKey(seq), record),
                   "journal " + dir_, RocksErrors::kByKind);
}

std::string Journal::LocateFile(Seq seq) const {
  const std::string key = SeqKey(seq);
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  for (const auto& f : files) {
    if (f.column_family_name != "commands") continue;
    if (f.smallestkey <= key && key <= f.largestkey) {
      return "table file " + f.db_path + f.name;
    }
  }
  return "the write-ahead log of " + dir_;
}

}  // namespace cfx::exchange
