#pragma once

#include <cstdint>
#include <vector>

#include "exchange/core/types.h"
#include "settlement/ledger.h"
#include "settlement/settlement_service.h"

namespace cfx::settlement {

// A margin call (DESIGN.md §5, docs/settlement.md "Margin calls"): the run
// of `date` found the account's collateral below its initial margin.
struct MarginCall {
  int64_t date = 0;  // the run that issued it
  uint32_t account = 0;
  uint32_t member = 0;
  exchange::Amount initial_margin;  // after that run
  exchange::Amount collateral;      // after that run
  exchange::Amount amount_due;      // initial_margin - collateral (> 0)
  // The account's collateral now: its ledger balance, with every deposit,
  // withdrawal and run booked since.
  exchange::Amount collateral_now;
  // What is still missing: initial_margin - collateral_now, or 0 once the
  // collateral covers the initial margin the call was computed against.
  exchange::Amount outstanding;
  bool met = false;  // outstanding == 0
};

// The calls of the run of report.date, by account id; member != 0 keeps
// only that clearing member's accounts.
std::vector<MarginCall> MarginCalls(const RunReport& report,
                                    const Ledger& ledger, uint32_t member = 0);

}  // namespace cfx::settlement
