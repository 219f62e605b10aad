#pragma once

#include "index/methodology.h"

namespace cfx::index::reference {

// The same contract as cfx::index::ComputeFixing(), written for clarity
// rather than speed: the oracle of the differential tests.
Print ReferenceFixing(const MethodologyConfig& config, const FixingInput& input,
                      Explanation* explain);

}  // namespace cfx::index::reference
