// cfx: the command-line tool of DESIGN.md §6. Each subcommand group
// registers itself on the root app (today `journal`; order, book, index and
// admin groups plug in the same way) and reports its exit code: 0 success,
// 1 failure (e.g. a corrupt journal), 2 bad arguments or a missing data dir.

#include <CLI/CLI.hpp>

#include "exchange/journal_tool.h"

int main(int argc, char** argv) {
  CLI::App app{"CFX command-line tool"};
  app.require_subcommand(1);
  int exit_code = cfx::exchange::kExitOk;
  cfx::exchange::AddJournalCommands(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every parse error exits 2 with CLI11's message.
    return app.exit(e) == 0 ? cfx::exchange::kExitOk
                            : cfx::exchange::kExitUsage;
  }
  return exit_code;
}
