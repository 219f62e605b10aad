#pragma once

// `cfx-bench abuse --workload logon-flood` (abuse_logon.cc): a victim
// session's order round trip, quiet and during floods of wrong-password FIX
// logons and wrong-signature protobuf logons, in the same run.

#include <cstdint>

#include "exchange/core/status.h"
#include "tests/bench/abuse_bench.h"

namespace cfx::bench {

Result<AbuseRun> RunLogonFloodAbuse(const AbuseOptions& options, uint32_t run);

}  // namespace cfx::bench
