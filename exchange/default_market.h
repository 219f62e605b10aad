#pragma once

#include <string>
#include <vector>

#include "exchange/core/engine_config.h"

namespace cfx::exchange {

// The market cfx-exchanged runs on when no config file is given: the
// cash-settled futures of DESIGN.md §2 (roots XB2S on B200-STD and XB2P on
// B200-PRM, 12 consecutive months from December 2026) and one trading
// account per demo firm of DESIGN.md §6 (ids 1-6: FIRM-A, FIRM-B, FIRM-C,
// PROV-A, PROV-B, PROV-C), cancel-newest self-trade prevention.
struct DefaultMarket {
  EngineConfig engine;
  // symbols[id] names instrument id; accounts[id] names account id.
  std::vector<std::string> symbols;
  std::vector<std::string> accounts;
};

DefaultMarket MakeDefaultMarket();

}  // namespace cfx::exchange
