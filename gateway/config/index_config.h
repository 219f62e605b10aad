#pragma once

#include "gateway/config/server_config.h"
#include "index/index_service.h"

namespace cfx::gateway {

// The index service's view of the market (index::IndexConfig) from the
// server config: the grades and their GPU-hours per lot, each grade's
// Level 3 reference grade (the other one when there are exactly two), the
// spot instruments' grades, each account's firm and affiliation group
// (firms of one affiliation_group share a group; a firm without one is a
// group of its own), the fixing and restatement times, and the futures'
// last trading days, whose fixings are never restated.
index::IndexConfig BuildIndexConfig(const ServerConfig& config);

}  // namespace cfx::gateway
