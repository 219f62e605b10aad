#pragma once

#include "exchange/core/engine_config.h"
#include "exchange/default_market.h"
#include "tests/support/random_commands.h"

namespace cfx::exchange::fuzz {

// The engine config of the fuzz targets that build engines (one per input):
// the small test market (tests/support/random_commands.h) with two
// attestation providers (accounts 4 and 5) on the DESIGN.md grades, so that
// reference data has rows to load, and pools of 256 orders and client order
// ids, so that an engine is quick to create. The seeds in
// tests/fuzz/corpus/{journal_record,snapshot} were written with it.
inline const EngineConfig& FuzzMarketConfig() {
  static const EngineConfig config = [] {
    EngineConfig c = testing::SmallMarketConfig();
    c.limits.max_orders = 256;
    c.limits.max_client_order_ids = 256;
    c.reference.grades = DesignGrades();
    c.reference.providers = {{"PROV-A", AccountId{4}},
                             {"PROV-B", AccountId{5}}};
    return c;
  }();
  return config;
}

}  // namespace cfx::exchange::fuzz
