#pragma once

#include <functional>
#include <string>

#include "exchange/core/command.h"
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

// One readable line (no newline) for a journaled command: seq, UTC time,
// type and the fields the type uses, then any other non-zero field as
// name=value, e.g.
//   42 2026-12-01T00:00:01.000000000Z NEW_ORDER acct=1 inst=3 BUY LIMIT GTC 5
//   @ 5.8300 cl=17
std::string FormatCommandText(const exchange::Command& cmd);

// One JSON object (no newline) holding every field of `cmd`.
std::string FormatCommandJson(const exchange::Command& cmd);

}  // namespace cfx::gateway::cli
