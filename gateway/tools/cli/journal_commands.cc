#include "gateway/tools/cli/journal_commands.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/clock.h"
#include "exchange/core/engine.h"
#include "exchange/core/event.h"
#include "exchange/journal.h"
#include "exchange/recovery.h"
#include "exchange/text_format.h"
#include "gateway/tools/cli/exit_codes.h"
#include "gateway/tools/cli/journal_format.h"

namespace cfx::gateway::cli {

using exchange::Command;
using exchange::Engine;
using exchange::EngineConfig;
using exchange::Event;
using exchange::EventSink;
using exchange::Journal;
using exchange::JournalOptions;
using exchange::JournalStats;
using exchange::JsonString;
using exchange::RecoveryReport;
using exchange::Seq;

namespace {

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// --- Output helpers ---------------------------------------------------------

void PrintError(const char* command, const std::string& line) {
  std::fprintf(stderr, "cfx journal %s: %s\n", command, line.c_str());
  std::fflush(stderr);
}

// Progress of a long replay on stderr: one line per report, or one line
// rewritten in place when stderr is a terminal (and `rewrite` allows it).
class Progress {
 public:
  Progress(std::string label, bool rewrite)
      : label_(std::move(label)),
        rewrite_(rewrite && isatty(STDERR_FILENO) != 0) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { Done(); }

  Journal::ProgressFn fn() {
    return [this](Seq done, Seq last) { Report(done, last); };
  }
  // Ends a rewritten line.
  void Done() {
    if (open_line_) std::fputc('\n', stderr);
    open_line_ = false;
  }

 private:
  void Report(Seq done, Seq last) {
    const double pct = last.value == 0
                           ? 100.0
                           : 100.0 * static_cast<double>(done.value) /
                                 static_cast<double>(last.value);
    std::fprintf(stderr, "%s%s: seq %" PRIu64 " of %" PRIu64 " (%.0f%%)%s",
                 rewrite_ ? "\r" : "", label_.c_str(), done.value, last.value,
                 pct, rewrite_ ? "" : "\n");
    std::fflush(stderr);
    open_line_ = rewrite_;
  }

  std::string label_;
  bool rewrite_;
  bool open_line_ = false;
};

// Opens `dir` read-only. On failure prints one line and stores the exit
// code: kExitUsage when the dir is missing or not a journal, kExitFailed
// when it is damaged.
std::unique_ptr<Journal> OpenReadOnly(const char* command,
                                      const std::string& dir, int* exit_code) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    PrintError(command, "data dir " + dir + ": no such directory");
    *exit_code = kExitUsage;
    return nullptr;
  }
  if (!std::filesystem::exists(std::filesystem::path(dir) / "CURRENT", ec)) {
    PrintError(command, "data dir " + dir +
                            ": not a CFX journal (no RocksDB CURRENT file)");
    *exit_code = kExitUsage;
    return nullptr;
  }
  auto journal = Journal::Open(
      dir, JournalOptions{.create_if_missing = false, .read_only = true});
  if (!journal.has_value()) {
    const Status& st = journal.error();
    PrintError(command, st.ToString());
    *exit_code = st.code() == StatusCode::kNotFound ||
                         st.code() == StatusCode::kInvalidArgument
                     ? kExitUsage
                     : kExitFailed;
    return nullptr;
  }
  return std::move(journal).value();
}

// Bytes of every regular file in `dir` (table files, write-ahead logs,
// manifest, options, info logs).
uint64_t DirectoryBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code fec;
    if (entry.is_regular_file(fec)) {
      const auto n = entry.file_size(fec);
      if (!fec) total += n;
    }
  }
  return total;
}

void DiscardEvents(void*, const Event*, std::size_t) {}

struct JournalArgs {
  std::string data_dir;
  std::string config;  // verify: exchange config file; "" = built in
  EngineConfigLoader load_config;
  bool json = false;
  uint64_t from = 1;
  uint64_t to = std::numeric_limits<uint64_t>::max();
};

// --- Commands ---------------------------------------------------------------

int RunStats(const JournalArgs& args) {
  int rc = kExitOk;
  const std::unique_ptr<Journal> journal =
      OpenReadOnly("stats", args.data_dir, &rc);
  if (journal == nullptr) return rc;
  const Result<JournalStats> stats = journal->Stats();
  if (!stats.has_value()) {
    PrintError("stats", stats.error().ToString());
    return kExitFailed;
  }
  const JournalStats& s = stats.value();
  const uint64_t disk = DirectoryBytes(args.data_dir);
  if (args.json) {
    std::printf("{\"data_dir\":%s,\"first_seq\":%" PRIu64
                ",\"last_seq\":%" PRIu64 ",\"commands\":%" PRIu64
                ",\"snapshots\":%" PRIu64 ",\"latest_snapshot_seq\":%" PRIu64
                ",\"table_file_bytes\":%" PRIu64 ",\"bytes_on_disk\":%" PRIu64
                "}\n",
                JsonString(args.data_dir).c_str(), s.first_seq.value,
                s.last_seq.value, s.commands, s.snapshots,
                s.latest_snapshot_seq.value, s.live_file_bytes, disk);
  } else {
    std::printf("data dir             %s\n", args.data_dir.c_str());
    std::printf("first seq            %" PRIu64 "\n", s.first_seq.value);
    std::printf("last seq             %" PRIu64 "\n", s.last_seq.value);
    std::printf("commands             %" PRIu64 "\n", s.commands);
    std::printf("snapshots            %" PRIu64 "\n", s.snapshots);
    std::printf("latest snapshot seq  %" PRIu64 "\n",
                s.latest_snapshot_seq.value);
    std::printf("table file bytes     %" PRIu64 "\n", s.live_file_bytes);
    std::printf("bytes on disk        %" PRIu64 "\n", disk);
  }
  return kExitOk;
}

int RunDump(const JournalArgs& args) {
  if (args.to < args.from) {
    PrintError("dump", "--to " + std::to_string(args.to) + " is below --from " +
                           std::to_string(args.from));
    return kExitUsage;
  }
  int rc = kExitOk;
  const std::unique_ptr<Journal> journal =
      OpenReadOnly("dump", args.data_dir, &rc);
  if (journal == nullptr) return rc;
  uint64_t from = args.from == 0 ? 1 : args.from;
  // A journal that does not start at seq 1 is dumped from its first seq.
  const Result<JournalStats> stats = journal->Stats();
  if (stats.has_value() && stats.value().first_seq.value > from) {
    from = stats.value().first_seq.value;
  }

  bool reached_end = false;
  Progress progress("cfx journal dump", /*rewrite=*/isatty(STDOUT_FILENO) == 0);
  const Status st = journal->Replay(
      Seq{from - 1},
      [&](const Command& c) -> Status {
        if (c.seq.value > args.to) {
          reached_end = true;
          return FailedPreconditionError("past --to");  // stops the replay
        }
        const std::string line =
            args.json ? FormatCommandJson(c) : FormatCommandText(c);
        std::fwrite(line.data(), 1, line.size(), stdout);
        std::fputc('\n', stdout);
        return Status::Ok();
      },
      progress.fn());
  progress.Done();
  std::fflush(stdout);
  if (!st.ok() && !reached_end) {
    PrintError("dump", st.ToString());
    return kExitFailed;
  }
  if (std::ferror(stdout)) {
    PrintError("dump", "cannot write to stdout");
    return kExitFailed;
  }
  return kExitOk;
}

// Pass 1 of verify: reads every record from `first` (checksum, version,
// seq density) and applies each to `full` when it is set. Returns how many
// records it checked.
Result<uint64_t> CheckRecords(Journal& journal, Seq first, Engine* full) {
  Event buffer[256];
  EventSink sink(buffer, 256, &DiscardEvents, nullptr);
  uint64_t checked = 0;
  Progress progress("cfx journal verify: checking", /*rewrite=*/true);
  const Status st = journal.ReplayWithPayloads(
      Seq{first.value == 0 ? 0 : first.value - 1},
      [&](const Command& c, std::string_view payload) {
        if (full != nullptr) full->Apply(c, payload, sink);
        ++checked;
        return Status::Ok();
      },
      progress.fn());
  progress.Done();
  if (!st.ok()) return st;
  sink.Flush();
  return checked;
}

// The result of a verify that passed, as JSON or as text.
void PrintVerified(const JournalArgs& args, uint64_t checked, Seq first,
                   Seq last, const RecoveryReport& r, const Engine* full) {
  if (args.json) {
    std::string warnings = "[";
    for (std::size_t i = 0; i < r.warnings.size(); ++i) {
      if (i != 0) warnings += ',';
      warnings += JsonString(r.warnings[i]);
    }
    warnings += ']';
    const std::string full_hash =
        full != nullptr ? "\"" + Hex16(full->StateHash()) + "\"" : "null";
    std::printf(
        "{\"ok\":true,\"data_dir\":%s,\"records_checked\":%" PRIu64
        ",\"first_seq\":%" PRIu64 ",\"last_seq\":%" PRIu64
        ",\"snapshot_seq\":%" PRIu64 ",\"replayed\":%" PRIu64
        ",\"state_hash\":\"%s\",\"full_replay_hash\":%s,\"warnings\":%s}\n",
        JsonString(args.data_dir).c_str(), checked, first.value, last.value,
        r.snapshot_seq.value, r.replayed, Hex16(r.state_hash).c_str(),
        full_hash.c_str(), warnings.c_str());
    return;
  }
  std::printf("data dir          %s\n", args.data_dir.c_str());
  if (checked == 0) {
    std::printf("records checked   0 (empty journal)\n");
  } else {
    std::printf("records checked   %" PRIu64 " (seq %" PRIu64 " to %" PRIu64
                ")\n",
                checked, first.value, last.value);
  }
  std::printf("last seq          %" PRIu64 "\n", last.value);
  if (r.snapshot_seq.value != 0) {
    std::printf("recovery          snapshot at seq %" PRIu64 " + %" PRIu64
                " commands replayed\n",
                r.snapshot_seq.value, r.replayed);
  } else {
    std::printf("recovery          no snapshot, %" PRIu64
                " commands replayed\n",
                r.replayed);
  }
  std::printf("state hash        %s\n", Hex16(r.state_hash).c_str());
  if (full != nullptr) {
    std::printf("full replay hash  %s (from seq 1, equal)\n",
                Hex16(full->StateHash()).c_str());
  } else {
    std::printf("full replay hash  skipped: the journal starts at seq %" PRIu64
                "\n",
                first.value);
  }
  for (const std::string& w : r.warnings)
    std::printf("warning: %s\n", w.c_str());
  std::printf("OK\n");
}

int RunVerify(const JournalArgs& args) {
  int rc = kExitOk;
  const std::unique_ptr<Journal> journal =
      OpenReadOnly("verify", args.data_dir, &rc);
  if (journal == nullptr) return rc;
  auto fail = [&](const std::string& line) {
    PrintError("verify", line);
    if (args.json) {
      std::printf("{\"ok\":false,\"error\":%s}\n", JsonString(line).c_str());
    }
    return kExitFailed;
  };
  const Result<JournalStats> stats = journal->Stats();
  if (!stats.has_value()) return fail(stats.error().ToString());
  const Seq first = stats.value().first_seq;
  const Seq last = journal->last_seq();
  Result<EngineConfig> config = args.load_config(args.config);
  if (!config.has_value()) {
    PrintError("verify", config.error().message());
    return kExitUsage;
  }
  const EngineConfig engine_config = std::move(config).value();

  // Pass 1: every record (checksum, version, seq density). When the journal
  // starts at seq 1 the same pass is a full replay through its own engine.
  std::unique_ptr<Engine> full;
  if (first.value <= 1) {
    auto engine = Engine::Create(engine_config);
    if (!engine.has_value()) return fail(engine.error().ToString());
    full = std::move(engine).value();
    const Status seeded = SeedEngine(*journal, *full);
    if (!seeded.ok()) return fail(seeded.ToString());
  }
  Result<uint64_t> checked = CheckRecords(*journal, first, full.get());
  if (!checked.has_value()) return fail(checked.error().ToString());

  // Pass 2: recovery as cfx-exchanged does it, newest snapshot + tail.
  auto engine = Engine::Create(engine_config);
  if (!engine.has_value()) return fail(engine.error().ToString());
  Result<RecoveryReport> report = [&] {
    Progress progress("cfx journal verify: recovering", /*rewrite=*/true);
    return Recover(*journal, *engine.value(), progress.fn());
  }();
  if (!report.has_value()) return fail(report.error().ToString());
  const RecoveryReport& r = report.value();

  if (r.last_seq != last) {
    return fail("recovery ended at seq " + std::to_string(r.last_seq.value) +
                " but the journal ends at seq " + std::to_string(last.value));
  }
  if (full != nullptr && full->last_seq() != last) {
    return fail("full replay ended at seq " +
                std::to_string(full->last_seq().value) +
                " but the journal ends at seq " + std::to_string(last.value));
  }
  if (full != nullptr && full->StateHash() != r.state_hash) {
    return fail("state hash mismatch: snapshot at seq " +
                std::to_string(r.snapshot_seq.value) + " + " +
                std::to_string(r.replayed) + " replayed gives " +
                Hex16(r.state_hash) + ", full replay from seq 1 gives " +
                Hex16(full->StateHash()));
  }

  PrintVerified(args, checked.value(), first, last, r, full.get());
  return kExitOk;
}

}  // namespace

void AddJournalCommands(CLI::App& app, int* exit_code,
                        EngineConfigLoader load_config) {
  CLI::App* group = app.add_subcommand(
      "journal", "Inspect and check a journal (read-only; docs/journal.md)");
  group->require_subcommand(1);
  auto args = std::make_shared<JournalArgs>();
  args->load_config = std::move(load_config);
  auto common = [args](CLI::App* cmd) {
    cmd->add_option("--data-dir", args->data_dir, "Journal directory")
        ->required();
    cmd->add_flag("--json", args->json, "One JSON object per line");
  };

  CLI::App* stats = group->add_subcommand(
      "stats", "First and last seq, commands, snapshots, bytes on disk");
  common(stats);
  stats->callback([args, exit_code] { *exit_code = RunStats(*args); });

  CLI::App* dump =
      group->add_subcommand("dump", "One line per command, in seq order");
  common(dump);
  dump->add_option("--from", args->from, "First seq to print")
      ->capture_default_str();
  dump->add_option("--to", args->to, "Last seq to print (default: the last)");
  dump->callback([args, exit_code] { *exit_code = RunDump(*args); });

  CLI::App* verify = group->add_subcommand(
      "verify",
      "Check every record, recover from the newest snapshot + tail, compare "
      "with a full replay");
  common(verify);
  verify->add_option(
      "--config", args->config,
      "The exchange config the journal was written with "
      "(default: the built-in deploy/config/exchange.textproto)");
  verify->callback([args, exit_code] { *exit_code = RunVerify(*args); });
}

}  // namespace cfx::gateway::cli
