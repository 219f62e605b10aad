#include "exchange/journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/journal_record.h"
#include "exchange/recovery.h"
#include "tests/support/command_assertions.h"
#include "tests/support/random_commands.h"
#include "tests/support/temp_dir.h"

namespace cfx::exchange {
namespace {

namespace fs = std::filesystem;

using testing::ExpectSameCommand;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void DiscardEvents(void*, const Event*, std::size_t) {}

// A fresh journal directory per test, removed at the end.
class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
  }

  std::string dir() const { return tmp_.Sub("journal"); }

  std::unique_ptr<Journal> Open(const JournalOptions& options = {}) {
    auto j = Journal::Open(dir(), options);
    if (!j.has_value()) {
      ADD_FAILURE() << j.error().ToString();
      return nullptr;
    }
    if (j.value()->table_seed() != SipKey{}) seed_ = j.value()->table_seed();
    return std::move(j).value();
  }
  std::unique_ptr<Journal> OpenReadOnly() {
    return Open(JournalOptions{.create_if_missing = false, .read_only = true});
  }

  // Appends random commands first_seq.. in batches of up to `batch`.
  std::vector<Command> AppendRandom(Journal& j, std::size_t n,
                                    std::size_t batch = 100,
                                    uint64_t seed = 1) {
    const std::vector<Command> cmds =
        exchange::testing::RandomCommands(seed, n, j.last_seq().value + 1);
    for (std::size_t i = 0; i < n; i += batch) {
      const Status st = j.Append(cmds.data() + i, std::min(batch, n - i));
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    return cmds;
  }

  static Status ReplayAll(const Journal& j, Seq after,
                          std::vector<Command>* out) {
    return j.Replay(after, [out](const Command& c) {
      out->push_back(c);
      return Status::Ok();
    });
  }

  // The engine state after applying `cmds` to a fresh engine, seeded from
  // the journal's table seed as recovery seeds its engine.
  std::unique_ptr<Engine> Run(const std::vector<Command>& cmds,
                              std::size_t n) const {
    auto engine = Engine::Create(exchange::testing::SmallMarketConfig());
    if (!engine.has_value()) return nullptr;
    if (seed_ != SipKey{} && !engine.value()->SetTableKey(seed_).ok()) {
      return nullptr;
    }
    Event buffer[64];
    EventSink sink(buffer, 64, &DiscardEvents, nullptr);
    for (std::size_t i = 0; i < n; ++i) engine.value()->Apply(cmds[i], sink);
    sink.Flush();
    return std::move(engine).value();
  }

  // The on-disk table files of the journal, largest first.
  std::vector<fs::path> TableFiles() const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir())) {
      if (e.path().extension() == ".sst") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) {
                return fs::file_size(a) > fs::file_size(b);
              });
    return files;
  }

  cfx::testing::TempDir tmp_;
  SipKey seed_;  // the journal's, once Open() has seen it
};

// --- Append and replay ------------------------------------------------------

TEST_F(JournalTest, EmptyJournalReplaysNothing) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->last_seq(), Seq{0});
  std::vector<Command> out;
  const Status st = ReplayAll(*j, Seq{0}, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(out.empty());
  auto stats = j->Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats.value().first_seq, Seq{0});
  EXPECT_EQ(stats.value().last_seq, Seq{0});
  EXPECT_EQ(stats.value().commands, 0u);
  EXPECT_EQ(stats.value().snapshots, 0u);
}

TEST_F(JournalTest, ReplayYieldsEveryCommandInSeqOrder) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  // Batches of 1, 7, 100 and the rest: one WriteBatch each.
  const std::vector<Command> cmds = exchange::testing::RandomCommands(7, 1000);
  std::size_t done = 0;
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{892}}) {
    const Status st = j->Append(cmds.data() + done, n);
    ASSERT_TRUE(st.ok()) << st.ToString();
    done += n;
    EXPECT_EQ(j->last_seq(), Seq{done});
  }
  std::vector<Command> out;
  const Status st = ReplayAll(*j, Seq{0}, &out);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(out.size(), cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    ASSERT_EQ(out[i].seq, Seq{i + 1});
    ExpectSameCommand(out[i], cmds[i]);
  }
}

TEST_F(JournalTest, ReplayAfterASeqStartsAtTheNextOne) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 1000);
  std::vector<Command> out;
  ASSERT_TRUE(ReplayAll(*j, Seq{600}, &out).ok());
  ASSERT_EQ(out.size(), 400u);
  EXPECT_EQ(out.front().seq, Seq{601});
  EXPECT_EQ(out.back().seq, Seq{1000});
  out.clear();
  ASSERT_TRUE(ReplayAll(*j, Seq{1000}, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST_F(JournalTest, ReplayStopsAtTheCallbacksError) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100);
  uint64_t calls = 0;
  const Status st = j->Replay(Seq{0}, [&](const Command& c) {
    ++calls;
    return c.seq == Seq{40} ? InternalError("stop here") : Status::Ok();
  });
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(st.message(), "stop here");
  EXPECT_EQ(calls, 40u);
}

TEST_F(JournalTest, ReopenKeepsLastSeq) {
  std::vector<Command> first;
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    first = AppendRandom(*j, 500);
  }
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(j->last_seq(), Seq{500});
    // Appending continues densely after a reopen.
    AppendRandom(*j, 10, 10, /*seed=*/2);
    EXPECT_EQ(j->last_seq(), Seq{510});
    ASSERT_TRUE(j->Flush().ok());
  }
  auto ro = OpenReadOnly();
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(ro->last_seq(), Seq{510});
  std::vector<Command> out;
  ASSERT_TRUE(ReplayAll(*ro, Seq{0}, &out).ok());
  ASSERT_EQ(out.size(), 510u);
  ExpectSameCommand(out[499], first[499]);
}

TEST_F(JournalTest, AppendRefusesANonDenseSeq) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 10);
  Command next = cmds.back();

  next.seq = Seq{12};  // a gap
  Status st = j->Append(&next, 1);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_TRUE(Contains(st.message(), "seq 12 but expected 11")) << st.message();

  next.seq = Seq{10};  // a repeat
  st = j->Append(&next, 1);
  EXPECT_EQ(st.code(), StatusCode::kInternal);

  // A batch that goes wrong half way writes nothing.
  Command batch[2] = {cmds.back(), cmds.back()};
  batch[0].seq = Seq{11};
  batch[1].seq = Seq{13};
  st = j->Append(batch, 2);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_EQ(j->last_seq(), Seq{10});

  std::vector<Command> out;
  ASSERT_TRUE(ReplayAll(*j, Seq{0}, &out).ok());
  EXPECT_EQ(out.size(), 10u);
}

TEST_F(JournalTest, ReadOnlyOpenOfAMissingDirIsNotFound) {
  auto j = Journal::Open(
      dir(), JournalOptions{.create_if_missing = false, .read_only = true});
  ASSERT_FALSE(j.has_value());
  EXPECT_EQ(j.error().code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(j.error().message(), "no such directory"))
      << j.error().message();
  EXPECT_FALSE(fs::exists(dir()));
}

TEST_F(JournalTest, ReadOnlyOpenOfAnEmptyDirFailsAndCreatesNothing) {
  fs::create_directories(dir());
  auto j = Journal::Open(
      dir(), JournalOptions{.create_if_missing = false, .read_only = true});
  EXPECT_FALSE(j.has_value());
  EXPECT_TRUE(fs::is_empty(dir()));
}

TEST_F(JournalTest, ReadOnlyJournalRefusesAppends) {
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    AppendRandom(*j, 10);
  }
  auto ro = OpenReadOnly();
  ASSERT_NE(ro, nullptr);
  const Command next = exchange::testing::RandomCommands(3, 1, 11).front();
  EXPECT_FALSE(ro->Append(&next, 1).ok());
  EXPECT_EQ(ro->last_seq(), Seq{10});
}

TEST_F(JournalTest, StatsCountCommandsAndSnapshots) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 300);
  ASSERT_TRUE(j->WriteSnapshot(Seq{100}, "a").ok());
  ASSERT_TRUE(j->WriteSnapshot(Seq{200}, "b").ok());
  ASSERT_TRUE(j->Flush().ok());
  auto stats = j->Stats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats.value().first_seq, Seq{1});
  EXPECT_EQ(stats.value().last_seq, Seq{300});
  EXPECT_EQ(stats.value().commands, 300u);
  EXPECT_EQ(stats.value().snapshots, 2u);
  EXPECT_EQ(stats.value().latest_snapshot_seq, Seq{200});
  EXPECT_GT(stats.value().live_file_bytes, 0u);
}

// --- Snapshots
// ----------------------------------------------------------------

TEST_F(JournalTest, NoSnapshotIsNotFound) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 10);
  auto snap = j->FindLatestSnapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_FALSE(snap.value().found);
  EXPECT_TRUE(snap.value().skipped.empty());
}

TEST_F(JournalTest, NewestSnapshotIsFoundAndOlderOnesArePrunedToTwo) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100);
  for (const uint64_t seq :
       {uint64_t{10}, uint64_t{20}, uint64_t{30}, uint64_t{40}}) {
    ASSERT_TRUE(
        j->WriteSnapshot(Seq{seq}, "state at " + std::to_string(seq)).ok());
    auto snap = j->FindLatestSnapshot();
    ASSERT_TRUE(snap.has_value());
    ASSERT_TRUE(snap.value().found);
    EXPECT_EQ(snap.value().seq, Seq{seq});
    EXPECT_EQ(snap.value().bytes, "state at " + std::to_string(seq));
    auto stats = j->Stats();
    ASSERT_TRUE(stats.has_value());
    EXPECT_EQ(stats.value().snapshots, seq == 10 ? 1u : 2u);
  }
  // Only 30 and 40 remain: with 40 damaged, 30 is the fallback.
  std::string bad;
  EncodeSnapshotRecord("state at 40", &bad);
  bad.back() = static_cast<char>(bad.back() ^ 1);
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{40}, bad).ok());
  auto snap = j->FindLatestSnapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap.value().seq, Seq{30});
}

TEST_F(JournalTest, CorruptNewestSnapshotIsPassedOverWithAWarning) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100);
  ASSERT_TRUE(j->WriteSnapshot(Seq{50}, "good").ok());
  std::string bad;
  EncodeSnapshotRecord("newer", &bad);
  bad[kRecordHeaderSize + 2] =
      static_cast<char>(bad[kRecordHeaderSize + 2] ^ 0x20);
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{90}, bad).ok());

  auto snap = j->FindLatestSnapshot();
  ASSERT_TRUE(snap.has_value());
  ASSERT_TRUE(snap.value().found);
  EXPECT_EQ(snap.value().seq, Seq{50});
  EXPECT_EQ(snap.value().bytes, "good");
  ASSERT_EQ(snap.value().skipped.size(), 1u);
  EXPECT_TRUE(Contains(snap.value().skipped[0], "snapshot at seq 90"));
  EXPECT_TRUE(Contains(snap.value().skipped[0], "checksum mismatch"))
      << snap.value().skipped[0];
}

TEST_F(JournalTest, TruncatedSnapshotIsPassedOverWithAWarning) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100);
  ASSERT_TRUE(j->WriteSnapshot(Seq{50}, "good").ok());
  std::string bad;
  EncodeSnapshotRecord(std::string(100, 'x'), &bad);
  bad.resize(60);
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{90}, bad).ok());
  auto snap = j->FindLatestSnapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap.value().seq, Seq{50});
  ASSERT_EQ(snap.value().skipped.size(), 1u);
  EXPECT_TRUE(Contains(snap.value().skipped[0], "truncated"))
      << snap.value().skipped[0];
}

TEST_F(JournalTest, SnapshotBeyondTheJournalIsPassedOverWithAWarning) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100);
  ASSERT_TRUE(j->WriteSnapshot(Seq{100}, "good").ok());
  ASSERT_TRUE(j->WriteSnapshot(Seq{150}, "ahead of the journal").ok());
  auto snap = j->FindLatestSnapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap.value().seq, Seq{100});
  ASSERT_EQ(snap.value().skipped.size(), 1u);
  EXPECT_TRUE(
      Contains(snap.value().skipped[0],
               "snapshot at seq 150: beyond the last journaled seq 100"))
      << snap.value().skipped[0];
}

// --- Recovery
// -----------------------------------------------------------------

TEST_F(JournalTest, RecoveryFromSnapshotPlusTailEqualsFullReplay) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 3000, 256, /*seed=*/11);
  const auto at_2000 = Run(cmds, 2000);
  ASSERT_NE(at_2000, nullptr);
  ASSERT_TRUE(j->WriteSnapshot(Seq{2000}, at_2000->SaveSnapshot()).ok());
  const auto full = Run(cmds, cmds.size());

  auto engine = Engine::Create(exchange::testing::SmallMarketConfig());
  ASSERT_TRUE(engine.has_value());
  auto report = Recover(*j, *engine.value());
  ASSERT_TRUE(report.has_value()) << report.error().ToString();
  EXPECT_EQ(report.value().snapshot_seq, Seq{2000});
  EXPECT_EQ(report.value().replayed, 1000u);
  EXPECT_EQ(report.value().last_seq, Seq{3000});
  EXPECT_EQ(report.value().state_hash, full->StateHash());
  EXPECT_TRUE(report.value().warnings.empty());
}

TEST_F(JournalTest, RecoveryPassesOverACorruptNewestSnapshot) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 3000, 256, /*seed=*/12);
  ASSERT_TRUE(
      j->WriteSnapshot(Seq{1000}, Run(cmds, 1000)->SaveSnapshot()).ok());
  std::string bad;
  EncodeSnapshotRecord(Run(cmds, 2000)->SaveSnapshot(), &bad);
  bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x04);
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{2000}, bad).ok());

  auto engine = Engine::Create(exchange::testing::SmallMarketConfig());
  ASSERT_TRUE(engine.has_value());
  auto report = Recover(*j, *engine.value());
  ASSERT_TRUE(report.has_value()) << report.error().ToString();
  EXPECT_EQ(report.value().snapshot_seq, Seq{1000});
  EXPECT_EQ(report.value().replayed, 2000u);
  EXPECT_EQ(report.value().state_hash, Run(cmds, cmds.size())->StateHash());
  ASSERT_EQ(report.value().warnings.size(), 1u);
  EXPECT_TRUE(Contains(report.value().warnings[0], "snapshot at seq 2000"));
  EXPECT_TRUE(Contains(report.value().warnings[0], "checksum mismatch"));
}

TEST_F(JournalTest, RecoveryRefusesASnapshotFiledUnderAnotherSeq) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 200, 50, /*seed=*/13);
  // The state at seq 100 filed as seq 150: replaying from 151 would
  // silently skip 101-150.
  ASSERT_TRUE(j->WriteSnapshot(Seq{150}, Run(cmds, 100)->SaveSnapshot()).ok());
  auto engine = Engine::Create(exchange::testing::SmallMarketConfig());
  ASSERT_TRUE(engine.has_value());
  auto report = Recover(*j, *engine.value());
  ASSERT_FALSE(report.has_value());
  EXPECT_EQ(report.error().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(report.error().message(), "holds the state at seq 100"))
      << report.error().message();
}

TEST_F(JournalTest, RecoveryStopsAtACorruptRecord) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 500, /*batch=*/1);
  std::string record;
  EncodeCommandRecord(cmds[299], &record);
  record[kRecordHeaderSize + 30] =
      static_cast<char>(record[kRecordHeaderSize + 30] ^ 0x01);
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{300}, record).ok());
  auto engine = Engine::Create(exchange::testing::SmallMarketConfig());
  ASSERT_TRUE(engine.has_value());
  auto report = Recover(*j, *engine.value());
  ASSERT_FALSE(report.has_value());
  EXPECT_EQ(report.error().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(report.error().message(), "seq 300: checksum mismatch"))
      << report.error().message();
}

// --- Corruption is reported precisely
// ------------------------------------------

TEST_F(JournalTest, FlippedPayloadByteNamesSeqAndTheWriteAheadLog) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 100, /*batch=*/1);
  std::string record;
  EncodeCommandRecord(cmds[49], &record);
  record[kRecordHeaderSize + 20] =
      static_cast<char>(record[kRecordHeaderSize + 20] ^ 0x08);
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{50}, record).ok());

  uint64_t applied = 0;
  const Status st = j->Replay(Seq{0}, [&](const Command&) {
    ++applied;
    return Status::Ok();
  });
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 50: checksum mismatch"))
      << st.message();
  EXPECT_TRUE(Contains(st.message(), "in the write-ahead log of " + dir()))
      << st.message();
  EXPECT_EQ(applied, 49u);  // nothing at or after the bad record
}

TEST_F(JournalTest, FlippedPayloadByteNamesSeqAndTheTableFile) {
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    const std::vector<Command> cmds = AppendRandom(*j, 100, /*batch=*/1);
    std::string record;
    EncodeCommandRecord(cmds[49], &record);
    record[kRecordHeaderSize + 20] =
        static_cast<char>(record[kRecordHeaderSize + 20] ^ 0x08);
    ASSERT_TRUE(j->PutRawRecordForTest(Seq{50}, record).ok());
    ASSERT_TRUE(j->Flush().ok());
  }
  auto j = OpenReadOnly();
  ASSERT_NE(j, nullptr);
  const Status st = j->Replay(Seq{0}, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 50: checksum mismatch"))
      << st.message();
  EXPECT_TRUE(Contains(st.message(), "in table file " + dir() + "/"))
      << st.message();
  EXPECT_TRUE(Contains(st.message(), ".sst")) << st.message();
}

TEST_F(JournalTest, TruncatedLastRecordIsReported) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 100, /*batch=*/1);
  const Command next = exchange::testing::RandomCommands(5, 1, 101).front();
  std::string record;
  EncodeCommandRecord(next, &record);
  record.resize(record.size() - 10);  // a write cut short
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{101}, record).ok());

  const Status st = j->Replay(Seq{0}, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 101: truncated record"))
      << st.message();
  EXPECT_TRUE(Contains(st.message(), dir())) << st.message();
}

TEST_F(JournalTest, MissingSeqIsReported) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 10, /*batch=*/1);
  const Command c12 = exchange::testing::RandomCommands(5, 1, 12).front();
  std::string record;
  EncodeCommandRecord(c12, &record);
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{12}, record).ok());

  const Status st = j->Replay(Seq{0}, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 11 is missing (next is 12)"))
      << st.message();
}

TEST_F(JournalTest, RecordUnderTheWrongKeyIsReported) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 10, /*batch=*/1);
  std::string record;
  EncodeCommandRecord(cmds[3], &record);  // seq 4's record
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{11}, record).ok());
  const Status st = j->Replay(Seq{0}, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(),
                       "seq 11: record under key 11 holds seq 4 at position 0"))
      << st.message();
}

TEST_F(JournalTest, FlippedByteInATableFileIsNeverOk) {
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    AppendRandom(*j, 10'000, 1'000);
    ASSERT_TRUE(j->Flush().ok());
  }
  const std::vector<fs::path> tables = TableFiles();
  ASSERT_FALSE(tables.empty());
  const fs::path sst = tables.front();  // the commands: by far the largest
  {
    std::fstream f(sst, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open());
    const auto middle = static_cast<std::streamoff>(fs::file_size(sst) / 2);
    f.seekg(middle);
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    f.seekp(middle);
    f.write(&byte, 1);
    ASSERT_TRUE(f.good());
  }

  for (const bool read_only : {false, true}) {
    SCOPED_TRACE(read_only ? "read-only" : "read-write");
    auto j = Journal::Open(dir(), JournalOptions{.create_if_missing = false,
                                                 .read_only = read_only});
    Status st;
    if (!j.has_value()) {
      st = j.error();
    } else {
      st = j.value()->Replay(Seq{0}, nullptr);
    }
    ASSERT_FALSE(st.ok()) << "a damaged table file replayed cleanly";
    EXPECT_EQ(st.code(), StatusCode::kDataLoss) << st.ToString();
    EXPECT_TRUE(Contains(st.message(), sst.filename().string()))
        << st.message();
  }
}

TEST_F(JournalTest, WriteCutShortAtTheEndOfTheLogIsDropped) {
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    AppendRandom(*j, 1'000, 100);
  }  // closed without a flush: the commands are only in the log
  fs::path log;
  for (const auto& e : fs::directory_iterator(dir())) {
    if (e.path().extension() == ".log" &&
        (log.empty() || fs::file_size(e.path()) > fs::file_size(log))) {
      log = e.path();
    }
  }
  ASSERT_FALSE(log.empty());
  // What a crash in the middle of writing the last batch leaves behind:
  // that batch was never synced, so never acknowledged.
  fs::resize_file(log, fs::file_size(log) - 50);
  auto j = Open();
  ASSERT_NE(j, nullptr);
  EXPECT_EQ(j->last_seq(), Seq{900});
  std::vector<Command> out;
  const Status st = ReplayAll(*j, Seq{0}, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out.size(), 900u);
  // The journal continues densely after the dropped batch.
  AppendRandom(*j, 10, 10, /*seed=*/4);
  EXPECT_EQ(j->last_seq(), Seq{910});
}

TEST_F(JournalTest, FlippedByteInTheWriteAheadLogFailsTheOpenNamingIt) {
  {
    auto j = Open();
    ASSERT_NE(j, nullptr);
    AppendRandom(*j, 1'000);
  }  // closed without a flush: the commands are only in the log
  fs::path log;
  for (const auto& e : fs::directory_iterator(dir())) {
    if (e.path().extension() == ".log" &&
        (log.empty() || fs::file_size(e.path()) > fs::file_size(log))) {
      log = e.path();
    }
  }
  ASSERT_FALSE(log.empty());
  ASSERT_GT(fs::file_size(log), 1'000u * kRecordHeaderSize);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    const auto middle = static_cast<std::streamoff>(fs::file_size(log) / 2);
    f.seekg(middle);
    char byte = 0;
    f.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x01);
    f.seekp(middle);
    f.write(&byte, 1);
    ASSERT_TRUE(f.good());
  }
  for (const bool read_only : {false, true}) {
    SCOPED_TRACE(read_only ? "read-only" : "read-write");
    auto j = Journal::Open(dir(), JournalOptions{.create_if_missing = false,
                                                 .read_only = read_only});
    ASSERT_FALSE(j.has_value()) << "a damaged log opened cleanly";
    EXPECT_EQ(j.error().code(), StatusCode::kDataLoss) << j.error().ToString();
    EXPECT_TRUE(Contains(j.error().message(), log.filename().string()))
        << j.error().message();
  }
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// --- Records that hold a whole batch ----------------------------------------

TEST_F(JournalTest, ReplayFromTheMiddleOfABatchRecordStartsAtTheNextSeq) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 300, /*batch=*/100);
  std::vector<Command> out;
  ASSERT_TRUE(ReplayAll(*j, Seq{150}, &out).ok());
  ASSERT_EQ(out.size(), 150u);
  EXPECT_EQ(out.front().seq.value, 151u);
  EXPECT_EQ(out.back().seq.value, 300u);
  out.clear();
  ASSERT_TRUE(ReplayAll(*j, Seq{200}, &out).ok());  // a record boundary
  ASSERT_EQ(out.size(), 100u);
  EXPECT_EQ(out.front().seq.value, 201u);
  out.clear();
  ASSERT_TRUE(ReplayAll(*j, Seq{300}, &out).ok());  // nothing after the end
  EXPECT_TRUE(out.empty());
}

TEST_F(JournalTest, FlippedByteInABatchRecordNamesItsFirstSeq) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 100, /*batch=*/50);
  std::string record;
  EncodeCommandRecords(cmds.data() + 50, 50, &record);
  record[kRecordHeaderSize + 64 * 7 + 3] ^= 0x10;
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{51}, record).ok());
  uint64_t applied = 0;
  const Status st = j->Replay(Seq{0}, [&](const Command&) {
    ++applied;
    return Status::Ok();
  });
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 51: checksum mismatch"))
      << st.message();
  EXPECT_EQ(applied, 50u);  // the whole damaged record is refused
}

TEST_F(JournalTest, OverlappingRecordsAreReported) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 20, /*batch=*/10);
  std::string record;
  EncodeCommandRecords(cmds.data() + 4, 3, &record);  // seqs 5-7 again
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{5}, record).ok());
  const Status st = j->Replay(Seq{0}, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "record at seq 5 overlaps seq 10"))
      << st.message();
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// --- Lookups for event replay -----------------------------------------------

TEST_F(JournalTest, SnapshotAtOrBeforeASeqIsTheNewestNotAfterIt) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 300);
  ASSERT_TRUE(j->WriteSnapshot(Seq{100}, "at 100").ok());
  ASSERT_TRUE(j->WriteSnapshot(Seq{200}, "at 200").ok());
  struct Case {
    uint64_t seq;
    bool found;
    uint64_t want;
  };
  for (const Case& c :
       {Case{99, false, 0}, Case{100, true, 100}, Case{150, true, 100},
        Case{200, true, 200}, Case{250, true, 200}, Case{1'000, true, 200}}) {
    SCOPED_TRACE("seq " + std::to_string(c.seq));
    auto snap = j->FindSnapshotAtOrBefore(Seq{c.seq});
    ASSERT_TRUE(snap.has_value()) << snap.error().ToString();
    EXPECT_EQ(snap.value().found, c.found);
    if (c.found) {
      EXPECT_EQ(snap.value().seq, Seq{c.want});
      EXPECT_EQ(snap.value().bytes, "at " + std::to_string(c.want));
    }
    EXPECT_TRUE(snap.value().skipped.empty());
  }
  auto latest = j->FindLatestSnapshot();
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest.value().seq, Seq{200});
}

TEST_F(JournalTest, SnapshotAtOrBeforePassesOverBadAndBeyondTheEndOnes) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  AppendRandom(*j, 300);
  ASSERT_TRUE(j->WriteSnapshot(Seq{100}, "at 100").ok());
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{200}, "garbage").ok());
  std::string beyond;
  EncodeSnapshotRecord("at 400", &beyond);
  ASSERT_TRUE(j->PutRawSnapshotRecordForTest(Seq{400}, beyond).ok());
  auto snap = j->FindSnapshotAtOrBefore(Seq{500});
  ASSERT_TRUE(snap.has_value());
  ASSERT_TRUE(snap.value().found);
  EXPECT_EQ(snap.value().seq, Seq{100});
  ASSERT_EQ(snap.value().skipped.size(), 2u);
  EXPECT_TRUE(
      Contains(snap.value().skipped[0],
               "snapshot at seq 400: beyond the last journaled seq 300"))
      << snap.value().skipped[0];
  EXPECT_TRUE(Contains(snap.value().skipped[1], "snapshot at seq 200"))
      << snap.value().skipped[1];
  // Below the bad ones, nothing is passed over.
  snap = j->FindSnapshotAtOrBefore(Seq{150});
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap.value().seq, Seq{100});
  EXPECT_TRUE(snap.value().skipped.empty());
}

TEST_F(JournalTest, ReplayRangeYieldsExactlyTheRange) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 300, /*batch=*/64);
  for (const auto& [after, through] :
       std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 300}, {0, 1}, {63, 64}, {64, 65}, {10, 200}, {299, 300}}) {
    SCOPED_TRACE(std::to_string(after) + ".." + std::to_string(through));
    std::vector<Command> out;
    const Status st =
        j->ReplayRange(Seq{after}, Seq{through}, [&](const Command& c) {
          out.push_back(c);
          return Status::Ok();
        });
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(out.size(), through - after);
    for (std::size_t i = 0; i < out.size(); ++i) {
      ExpectSameCommand(out[i], cmds[after + i]);
    }
  }
  int calls = 0;
  auto count = [&](const Command&) {
    ++calls;
    return Status::Ok();
  };
  EXPECT_TRUE(j->ReplayRange(Seq{300}, Seq{300}, count).ok());
  EXPECT_TRUE(j->ReplayRange(Seq{200}, Seq{100}, count).ok());
  const Status beyond = j->ReplayRange(Seq{0}, Seq{301}, count);
  EXPECT_EQ(beyond.code(), StatusCode::kOutOfRange) << beyond.ToString();
  EXPECT_TRUE(Contains(beyond.message(), "beyond the last journaled seq 300"))
      << beyond.message();
  EXPECT_EQ(calls, 0);
}

TEST_F(JournalTest, ReplayRangeStillReportsDamageInsideTheRange) {
  auto j = Open();
  ASSERT_NE(j, nullptr);
  const std::vector<Command> cmds = AppendRandom(*j, 100, /*batch=*/1);
  std::string record;
  EncodeCommandRecord(cmds[49], &record);
  record[kRecordHeaderSize + 20] =
      static_cast<char>(record[kRecordHeaderSize + 20] ^ 0x08);
  ASSERT_TRUE(j->PutRawRecordForTest(Seq{50}, record).ok());
  auto none = [](const Command&) { return Status::Ok(); };
  EXPECT_TRUE(j->ReplayRange(Seq{0}, Seq{49}, none).ok());    // before it
  EXPECT_TRUE(j->ReplayRange(Seq{50}, Seq{100}, none).ok());  // after it
  const Status st = j->ReplayRange(Seq{40}, Seq{60}, none);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_TRUE(Contains(st.message(), "seq 50: checksum mismatch"))
      << st.message();
}

}  // namespace
}  // namespace cfx::exchange
