#pragma once

#include <cstdint>
#include <vector>

#include "gateway/fix/fix_engine.h"

namespace cfx::settlement {
class SettlementService;
}  // namespace cfx::settlement

namespace cfx::gateway {
struct UserConfig;
}  // namespace cfx::gateway

namespace cfx::gateway::fix {

// The answer to a CollateralInquiry (BB) from `user` (docs/fix.md,
// "Margin calls"): a CollateralInquiryAck (BG), then one CollateralReport
// (BA) per margin call of the settled business date. A clearing member
// sees its own accounts' calls, the admin every account's; other roles are
// refused (BG CollInquiryStatus 4, CollInquiryResult 9). An Account(1) the
// asker may not see is answered like one without a call.
// `settlement` may be null: every inquiry is then refused (result 8).
std::vector<Message> AnswerCollateralInquiry(
    const Message& m, const UserConfig& user,
    const settlement::SettlementService* settlement);

}  // namespace cfx::gateway::fix
