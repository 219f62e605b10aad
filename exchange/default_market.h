#pragma once

#include <string>
#include <vector>

#include "exchange/core/engine_config.h"

namespace cfx::exchange {

// The market cfx-exchanged runs on when no config file is given: the
// cash-settled futures of DESIGN.md §2 (roots XB2S on B200-STD and XB2P on
// B200-PRM, 12 consecutive months from December 2026, ids 1-24), the spot
// slots of both grades (8 each, ids 25-40, listed by the sequencer), the
// grades' eligibility rules with the providers PROV-A, PROV-B and PROV-C,
// and one trading account per demo firm of DESIGN.md §6 (ids 1-6: FIRM-A,
// FIRM-B, FIRM-C, PROV-A, PROV-B, PROV-C), cancel-newest self-trade
// prevention. Equal to the engine part of the embedded default config.
struct DefaultMarket {
  EngineConfig engine;
  // symbols[id] names instrument id; accounts[id] names account id.
  std::vector<std::string> symbols;
  std::vector<std::string> accounts;
};

DefaultMarket MakeDefaultMarket();

// The grades of DESIGN.md §2 as the registry needs them: B200-STD (Bronze or
// better, >= 200 tokens/s/GPU, 30 days) and B200-PRM (Gold or better, >= 285,
// 7 days), both "NVIDIA B200", 8 GPUs per node, recipe "ref-8k1k-i100".
std::vector<ReferenceGrade> DesignGrades();

}  // namespace cfx::exchange
