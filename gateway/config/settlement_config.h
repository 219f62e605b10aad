#pragma once

#include "gateway/config/server_config.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {

// The settlement service's view of the market (settlement::
// SettlementConfig) from the server config: each futures contract's root
// (margin group, 1 + the root's position among the config's roots in
// order of first appearance), maturity, tick, initial reference, last
// trading day and underlying grade; the spot slots' GPU-hours per lot;
// each account's clearing member (1 + its position in clearing_members),
// names and opening collateral; the settlement instant at the fixing time;
// the exchange calendar (ServerConfig::calendar).
settlement::SettlementConfig BuildSettlementConfig(const ServerConfig& config);

}  // namespace cfx::gateway
