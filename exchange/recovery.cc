#include "exchange/recovery.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>

namespace cfx::exchange {
namespace {
void DiscardEvents(void*, const Event*, std::size_t) {}
}  // namespace

Status SeedEngine(const Journal& journal, Engine& engine) {
  if (journal.table_seed() == SipKey{}) return Status::Ok();
  const Status st = engine.SetTableKey(journal.table_seed());
  if (!st.ok())
    return InternalError("journal " + journal.dir() + ": " + st.message());
  return Status::Ok();
}

Status LoadSnapshotRecord(const Journal& journal,
                          const SnapshotRecord& snapshot, Engine& engine) {
  const Status st = engine.LoadSnapshot(snapshot.bytes);
  if (!st.ok()) {
    return DataLossError("snapshot at seq " +
                         std::to_string(snapshot.seq.value) + " in " +
                         journal.dir() + ": " + st.message());
  }
  // A snapshot filed under the wrong seq would replay from the wrong point
  // and silently skip or repeat commands.
  if (engine.last_seq() != snapshot.seq) {
    return DataLossError("snapshot at seq " +
                         std::to_string(snapshot.seq.value) + " in " +
                         journal.dir() + ": holds the state at seq " +
                         std::to_string(engine.last_seq().value));
  }
  return Status::Ok();
}

Result<RecoveryReport> Recover(const Journal& journal, Engine& engine,
                               const Journal::ProgressFn& progress) {
  const auto start = std::chrono::steady_clock::now();
  RecoveryReport report;
  CFX_RETURN_IF_ERROR(SeedEngine(journal, engine));
  auto snap = journal.FindLatestSnapshot();
  if (!snap.has_value()) return snap.error();
  report.warnings = snap.value().skipped;
  if (snap.value().found) {
    CFX_RETURN_IF_ERROR(LoadSnapshotRecord(journal, snap.value(), engine));
    report.snapshot_seq = snap.value().seq;
  }
  Event buffer[256];
  EventSink sink(buffer, 256, &DiscardEvents, nullptr);
  const Status st = journal.ReplayWithPayloads(
      report.snapshot_seq,
      [&](const Command& c, std::string_view payload) {
        engine.Apply(c, payload, sink);
        ++report.replayed;
        return Status::Ok();
      },
      progress);
  if (!st.ok()) return st;
  sink.Flush();
  report.last_seq = engine.last_seq();
  report.state_hash = engine.StateHash();
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return report;
}

std::string DescribeRecovery(const RecoveryReport& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "recovered %" PRIu64 " commands (snapshot at seq %" PRIu64
                " + %" PRIu64 " replayed), last seq %" PRIu64
                ", state hash %016" PRIx64 ", %.3f s",
                r.snapshot_seq.value + r.replayed, r.snapshot_seq.value,
                r.replayed, r.last_seq.value, r.state_hash, r.seconds);
  return buf;
}

}  // namespace cfx::exchange
