#pragma once

#include <string>

#include "exchange/core/command.h"

namespace cfx::gateway::cli {

// The text and JSON forms of a journaled command, as `cfx journal dump`
// prints them (docs/journal.md, "Operator commands").

// One readable line (no newline) for a journaled command: seq, UTC time,
// type and the fields the type uses, then any other non-zero field as
// name=value, e.g.
//   42 2026-12-01T00:00:01.000000000Z NEW_ORDER acct=1 inst=3 BUY LIMIT GTC 5
//   @ 5.8300 cl=17
std::string FormatCommandText(const exchange::Command& cmd);

// One JSON object (no newline) holding every field of `cmd`.
std::string FormatCommandJson(const exchange::Command& cmd);

}  // namespace cfx::gateway::cli
