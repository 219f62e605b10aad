#include "gateway/tools/cli/commands.h"

#include <CLI/CLI.hpp>
#include <memory>

#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/connection.h"

namespace cfx::gateway::cli {

void AddGatewayCommands(CLI::App& app, int* exit_code, CLI::App* attest) {
  auto g = std::make_shared<GlobalOptions>();
  AddConnectionOptions(app, *g);
  AddOrderCommands(app, g, exit_code);
  AddMarketDataCommands(app, g, exit_code);
  AddAdminCommands(app, g, exit_code);
  AddRatingCommands(app, g, exit_code);
  if (attest != nullptr) AddAttestServerCommands(*attest, g, exit_code);
  AddIndexCommands(app, g, exit_code);
  AddClearingCommands(app, g, exit_code);
  AddSpotCommands(app, g, exit_code);
}

}  // namespace cfx::gateway::cli
