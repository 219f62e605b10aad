#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "exchange/core/types.h"

namespace cfx::index {

// What final settlement reads of the index (docs/settlement.md): the
// latest print of (grade, day), its value and whether it came from trades.
struct Fixing {
  bool has_value = false;
  exchange::IndexPrice value;
  bool from_trades = false;  // Level 1a, 1b or 2
};

// The fixing of (grade, day) (days since 1970-01-01); nullopt when the day
// has no print. IndexService::Fixings() is the one over the index's prints.
// Settlement holds one (SettlementService::set_fixings) and calls it while
// it runs a last trading day; whatever the lookup reads must stay live and
// unchanged meanwhile.
using FixingLookup =
    std::function<std::optional<Fixing>(uint32_t grade, int64_t day)>;

}  // namespace cfx::index
