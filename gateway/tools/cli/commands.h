#pragma once

#include "gateway/tools/cli/exit_codes.h"

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// Registers, on the root `app`, the connection options (--host, --port,
// --api-key, --secret, their CFX_* environment variables, --json,
// --timeout) and the commands that use the protobuf gateway: `order new |
// cancel | replace | status | mass-cancel`, `book`, `trades`,
// `instruments`, `grades`, `watch` and `admin clock | hash-password`.
// REQUIRES: `app` falls through to its parent (CLI::App::fallthrough()) so
// the connection options may follow a subcommand.
//
// The command that runs prints its results to stdout, at most one error
// line ("cfx: ...") to stderr, and writes its exit code to `*exit_code`,
// which must remain live while `app` parses.
// `attest`, when not null, is the `attest` group (attest_commands.h) that
// gets the server commands `submit`, `list` and `key register | revoke`;
// `rating set | revoke | show`, `spot report-failure`, `index show |
// history | explain`, `settle status | report` and `collateral deposit |
// withdraw` are added to `app` (`index` joins the group of that name when
// it exists).
void AddGatewayCommands(CLI::App& app, int* exit_code,
                        CLI::App* attest = nullptr);

}  // namespace cfx::gateway::cli
