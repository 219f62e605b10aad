#include "gateway/tools/cli/index_tool.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "exchange/event_replay.h"
#include "exchange/journal.h"
#include "exchange/text_format.h"
#include "gateway/config/index_config.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/tools/cli/exit_codes.h"
#include "index/index_name.h"
#include "index/index_service.h"

namespace cfx::gateway::cli {
namespace {

struct RecomputeArgs {
  std::string grade;
  std::string date;
  std::string data_dir;
  std::string config;
  bool json = false;
};

int Fail(int code, const std::string& line) {
  std::fprintf(stderr, "cfx index recompute: %s\n", line.c_str());
  return code;
}

// "5.817" from micro-dollars (published values are multiples of $0.001,
// index/methodology.h).
std::string Usd3(int64_t micros) { return exchange::FormatMicros(micros, 3); }

std::string ValueText(const index::Print& p) {
  return p.has_value ? Usd3(p.value.micros) : std::string("none");
}

std::string PrintJson(const index::Print& p) {
  std::string out =
      "{\"level\":" + exchange::JsonString(index::LevelName(p.level)) +
      ",\"revision\":" + std::to_string(p.revision) + ",\"value\":";
  out += p.has_value ? "\"" + Usd3(p.value.micros) + "\"" : "null";
  out += ",\"trade_count\":" + std::to_string(p.trade_count) +
         ",\"gpu_hours\":" + std::to_string(p.gpu_hours) + "}";
  return out;
}

int Run(const RecomputeArgs& a) {
  Result<ServerConfig> config =
      a.config.empty() ? DefaultServerConfig() : LoadServerConfig(a.config);
  if (!config.has_value()) {
    return Fail(kExitUsage, config.error().message());
  }
  const index::IndexConfig ic = BuildIndexConfig(config.value());
  std::string grade_name = a.grade;
  if (grade_name.rfind(index::kIndexNamePrefix, 0) == 0) {
    grade_name = grade_name.substr(index::kIndexNamePrefix.size());
  }
  int32_t grade = -1;
  for (std::size_t i = 0; i < ic.grades.size(); ++i) {
    if (ic.grades[i] == grade_name) grade = static_cast<int32_t>(i);
  }
  if (grade < 0) return Fail(kExitUsage, "unknown grade \"" + a.grade + "\"");
  const std::optional<int64_t> day = ParseDay(a.date);
  if (!day) {
    return Fail(kExitUsage, "date \"" + a.date + "\" is not YYYY-MM-DD");
  }
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(a.data_dir) / "CURRENT",
                               ec)) {
    return Fail(kExitUsage, "data dir " + a.data_dir + ": not a CFX journal");
  }
  auto journal = exchange::Journal::Open(
      a.data_dir,
      exchange::JournalOptions{.create_if_missing = false, .read_only = true});
  if (!journal.has_value()) {
    return Fail(kExitFailed, journal.error().ToString());
  }
  // The journal alone: every command replayed through the engine, every
  // event through a fresh index service.
  auto fresh = index::IndexService::InMemory(ic);
  const exchange::Seq last = journal.value()->last_seq();
  const Status st = exchange::ReplayEvents(
      *journal.value(), config.value().engine, exchange::Seq{0}, last,
      [&](const exchange::Event& e) { fresh->OnEvent(e); });
  if (!st.ok()) return Fail(kExitFailed, st.ToString());
  const uint32_t g = static_cast<uint32_t>(grade);
  const index::Print* recomputed = fresh->Find(g, *day);
  if (recomputed == nullptr) {
    return Fail(kExitUsage, "the journal holds no fixing of CFX-" + grade_name +
                                " for " + a.date);
  }
  // What the exchange published, when its index store is there.
  const std::string store = a.data_dir + "/index";
  std::unique_ptr<index::IndexService> published_svc;
  const index::Print* published = nullptr;
  if (std::filesystem::exists(std::filesystem::path(store) / "CURRENT", ec)) {
    auto opened = index::IndexService::Open(ic, store, /*read_only=*/true);
    if (!opened.has_value()) {
      return Fail(kExitFailed, opened.error().ToString());
    }
    published_svc = std::move(opened).value();
    published = published_svc->Find(g, *day);
  }
  const bool equal = published != nullptr && *published == *recomputed;
  if (a.json) {
    std::printf(
        "{\"index\":%s,\"date\":%s,\"recomputed\":%s,\"published\":%s,"
        "\"equal\":%s}\n",
        exchange::JsonString(index::IndexName(grade_name)).c_str(),
        exchange::JsonString(a.date).c_str(), PrintJson(*recomputed).c_str(),
        published ? PrintJson(*published).c_str() : "null",
        equal ? "true" : "false");
  } else {
    std::printf(
        "CFX-%s %s recomputed from %llu journaled commands: %s "
        "(level %s, revision %u, %u trades)\n",
        grade_name.c_str(), a.date.c_str(),
        static_cast<unsigned long long>(last.value),
        ValueText(*recomputed).c_str(),
        std::string(index::LevelName(recomputed->level)).c_str(),
        recomputed->revision, recomputed->trade_count);
    if (published == nullptr) {
      std::printf("published: none\n");
    } else {
      std::printf("published: %s (level %s, revision %u): %s\n",
                  ValueText(*published).c_str(),
                  std::string(index::LevelName(published->level)).c_str(),
                  published->revision, equal ? "equal" : "DIFFERENT");
    }
  }
  if (published == nullptr) return kExitOk;
  return equal ? kExitOk : kExitFailed;
}

}  // namespace

void AddIndexRecompute(CLI::App& app, int* exit_code) {
  CLI::App* group = nullptr;
  for (CLI::App* sub : app.get_subcommands(
           [](CLI::App* a) { return a->get_name() == "index"; })) {
    group = sub;
  }
  if (group == nullptr) {
    group = app.add_subcommand("index", "The CFX index (docs/cli.md)");
    group->require_subcommand(1);
  }
  auto args = std::make_shared<RecomputeArgs>();
  CLI::App* cmd = group->add_subcommand(
      "recompute",
      "Recompute a fixing from the journal alone and compare it with the "
      "published one");
  cmd->add_option("grade", args->grade, "Grade, e.g. B200-STD")->required();
  cmd->add_option("date", args->date, "Fixing date, YYYY-MM-DD")->required();
  cmd->add_option("--data-dir", args->data_dir,
                  "The exchange's data dir (journal; index store in index/)")
      ->required();
  cmd->add_option("--config", args->config,
                  "The exchange config the journal was written with "
                  "(default: the built-in deploy/config/exchange.textproto)");
  cmd->add_flag("--json", args->json, "One JSON object");
  cmd->callback([args, exit_code] { *exit_code = Run(*args); });
}

}  // namespace cfx::gateway::cli
