#pragma once

#include <functional>
#include <string>

#include "exchange/core/engine_config.h"
#include "exchange/core/status.h"

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// Registers the `journal` subcommand group of the cfx tool on `app`:
// `stats`, `dump` and `verify`, read-only operator views of a journal
// (docs/journal.md, "Operator commands"). The command that runs writes its
// exit code to `*exit_code`; `exit_code` must remain live while `app`
// parses. Results go to stdout, errors and progress to stderr.
//
// `load_config(path)` gives the engine config `verify` replays with: the
// exchange config at `path` (--config), or the built-in one for "".
using EngineConfigLoader =
    std::function<Result<exchange::EngineConfig>(const std::string& path)>;
void AddJournalCommands(CLI::App& app, int* exit_code,
                        EngineConfigLoader load_config);

}  // namespace cfx::gateway::cli
