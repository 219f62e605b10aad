#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gateway/tools/cli/connection.h"

namespace cfx::gateway::cli {

// The command groups of the cfx tool that use the protobuf gateway, each in
// its own file; AddGatewayCommands() (commands.h) registers them in this
// order, which is the order `cfx --help` lists them in. Each registers its
// commands on `app`; the command that runs reads the connection options
// from `*g` and writes its exit code to `*exit_code` (both must remain live
// while `app` parses).

// order new | cancel | replace | status | mass-cancel (order_commands.cc).
void AddOrderCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code);
// book, trades, watch, instruments, grades (market_data_commands.cc).
void AddMarketDataCommands(CLI::App& app,
                           const std::shared_ptr<GlobalOptions>& g,
                           int* exit_code);
// admin clock [show | advance | set], admin hash-password, admin user add |
// disable | enable | set-password | list (admin_commands.cc).
void AddAdminCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code);
// admin key add | revoke | list, under `admin` (api_key_commands.cc).
void AddApiKeyCommands(CLI::App& admin, const std::shared_ptr<GlobalOptions>& g,
                       int* exit_code);
// admin halt | resume, under `admin` (halt_commands.cc).
void AddHaltCommands(CLI::App& admin, const std::shared_ptr<GlobalOptions>& g,
                     int* exit_code);
// admin kill | reinstate under `admin`, and risk kill | reinstate
// (kill_commands.cc).
void AddKillCommands(CLI::App& admin, CLI::App& app,
                     const std::shared_ptr<GlobalOptions>& g, int* exit_code);
// rating set | revoke | show (reference_commands.cc).
void AddRatingCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                       int* exit_code);
// attest submit | list | key register | revoke, on the `attest` group
// (reference_commands.cc).
void AddAttestServerCommands(CLI::App& attest,
                             const std::shared_ptr<GlobalOptions>& g,
                             int* exit_code);
// index show | history | explain, on the `index` group of `app` when it
// exists (index_commands.cc).
void AddIndexCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code);
// settle status | report | calls | rerun, collateral deposit | withdraw
// (clearing_commands.cc).
void AddClearingCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                         int* exit_code);
// spot report-failure (reference_commands.cc).
void AddSpotCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                     int* exit_code);

// Sends `e` (one request the exchange answers with a ReferenceAck) and
// waits for its ack; `done(ack)` prints the accepted answer, a refusal
// prints its reason and returns kExitRejected (reference_commands.cc).
int RunReference(const GlobalOptions& g, const std::string& subject,
                 const wire::v1::Envelope& e, uint64_t request_id,
                 const std::function<void(const wire::v1::ReferenceAck&)>& done);

}  // namespace cfx::gateway::cli
