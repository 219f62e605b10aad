#pragma once

#include <cstdint>
#include <string_view>

#include "exchange/core/types.h"

namespace cfx::settlement {
struct SettlementConfig;
}  // namespace cfx::settlement

namespace cfx::gateway {

struct UserConfig;

// Who may see which account's clearing results (positions, settlement
// reports, margin calls), for every protocol: the admin sees every account,
// a clearing member the accounts it clears, any other user its own account.
// Accounts of no clearing member (member 0) are seen by nobody.
struct AccountVisibility {
  bool all = false;        // the admin
  bool by_member = false;  // a clearing member: the accounts of `member`
  // The settlement member index of the user's clearing member; 0 when it
  // has none or the name is unknown (a clearing member then sees nothing).
  // 0 for the admin.
  uint32_t member = 0;
  exchange::AccountId own;  // the user's trading account ({0} = none)

  // True iff the user may see `account`, cleared by member `account_member`.
  bool MaySee(uint32_t account_member, exchange::AccountId account) const;
};

// What `user` may see of the accounts of `config`.
AccountVisibility VisibilityOf(const UserConfig& user,
                               const settlement::SettlementConfig& config);

// The member index (1-based) of clearing member `name` in `config`, or 0.
uint32_t MemberIndex(const settlement::SettlementConfig& config,
                     std::string_view name);

}  // namespace cfx::gateway
