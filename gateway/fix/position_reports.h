#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gateway/fix/fix_engine.h"

namespace cfx::settlement {
class SettlementService;
struct RunReport;
}  // namespace cfx::settlement

namespace cfx::gateway {
struct UserConfig;
}  // namespace cfx::gateway

namespace cfx::gateway::fix {

// The settlement run a clearing request asks about: that of its
// ClearingBusinessDate(715), or the latest settled one when absent.
struct ClearingRun {
  enum class Problem { kFound, kBadDate, kNothingSettled, kNotSettled };
  const settlement::RunReport* report = nullptr;  // null unless kFound
  int64_t date = 0;                               // days since 1970-01-01
  Problem problem = Problem::kFound;
  std::string text;  // why there is no run (docs/fix.md)
};
ClearingRun FindClearingRun(const Message& m,
                            const settlement::SettlementService& settlement);

// The answer to a RequestForPositions (AN) from `user` (docs/fix.md,
// "Positions"): a RequestForPositionsAck (AO), then one PositionReport (AP)
// per account and contract of the business date's settlement. A clearing
// member sees its own accounts, the admin every account, anyone else its
// own account (gateway/session/visibility.h); an Account(1) outside that
// set is answered like one without positions. `settlement` may be null:
// every request is then answered "not available" (PosReqResult 4).
std::vector<Message> AnswerRequestForPositions(
    const Message& m, const UserConfig& user,
    const settlement::SettlementService* settlement);

}  // namespace cfx::gateway::fix
