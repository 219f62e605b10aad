// cfx: the command-line tool of DESIGN.md §6 (docs/cli.md). Each subcommand
// group registers itself on the root app and reports its exit code:
// `journal` (gateway/tools/cli/journal_commands.h) and `index recompute`
// (gateway/tools/cli/index_tool.h) read a data dir on disk; the others
// (gateway/tools/cli/commands.h) talk to the protobuf gateway. Exit codes: 0
// success, 1 refused by the exchange or a failed check, 2 bad arguments,
// 3 connection or logon failure, 4 timeout. An error is one line on stderr.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gateway/config/server_config.h"
#include "gateway/config/user_directory.h"
#include "gateway/tools/cli/attest_commands.h"
#include "gateway/tools/cli/keygen_command.h"
#include "gateway/tools/cli/commands.h"
#include "gateway/tools/cli/demo.h"
#include "gateway/tools/cli/index_tool.h"
#include "gateway/tools/cli/journal_commands.h"

namespace {

// CLI11's parse errors as one line: "cfx: <what>". A word where a
// subcommand was required is named: CLI11 would only say "A subcommand is
// required".
std::string OneLineFailure(const CLI::App* app, const CLI::Error& e) {
  std::string what = e.what();
  const CLI::App* at = app;
  std::string path;
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    path += at->get_name() + " ";
  }
  const std::vector<std::string> extra = app->remaining(/*recurse=*/true);
  if (e.get_name() == "RequiredError" && !extra.empty() &&
      at->get_require_subcommand_min() > 0) {
    what = "unknown command \"" + path + extra.front() + "\"";
  }
  std::string line = "cfx: " + what;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = cfx::gateway::cli;
  CLI::App app{"CFX command-line tool (docs/cli.md)"};
  app.require_subcommand(1);
  // Connection options may follow the subcommand: cfx book XB2SZ6 --json.
  app.fallthrough();
  // Set before the subcommands are added, which inherit it.
  app.failure_message(OneLineFailure);
  int exit_code = cli::kExitOk;
  cli::AddJournalCommands(
      app, &exit_code,
      [](const std::string& path) -> cfx::Result<cfx::exchange::EngineConfig> {
        auto config = path.empty() ? cfx::gateway::DefaultServerConfig()
                                   : cfx::gateway::LoadServerConfig(path);
        if (!config.has_value()) return config.error();
        // Seeded as cfx-exchanged seeds it (SeededEngineConfig).
        return cfx::gateway::SeededEngineConfig(config.value());
      });
  CLI::App* attest = cli::AddAttestCommands(app, &exit_code);
  cli::AddKeygenCommand(app, &exit_code);
  cli::AddGatewayCommands(app, &exit_code, attest);
  cli::AddIndexRecompute(app, &exit_code);
  cli::AddDemoCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every parse error exits 2 with one line on stderr.
    return app.exit(e) == 0 ? cli::kExitOk : cli::kExitUsage;
  }
  return exit_code;
}
