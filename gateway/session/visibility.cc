#include "gateway/session/visibility.h"

#include <string>
#include <vector>

#include "gateway/config/server_config.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {

bool AccountVisibility::MaySee(uint32_t account_member,
                               exchange::AccountId account) const {
  if (account_member == 0) return false;
  if (all) return true;
  if (by_member) return member != 0 && account_member == member;
  return account == own;
}

uint32_t MemberIndex(const settlement::SettlementConfig& config,
                     std::string_view name) {
  if (name.empty()) return 0;
  const std::vector<std::string>& members = config.member_names;
  for (uint32_t i = 1; i < members.size(); ++i) {
    if (members[i] == name) return i;
  }
  return 0;
}

AccountVisibility VisibilityOf(const UserConfig& user,
                               const settlement::SettlementConfig& config) {
  AccountVisibility v;
  v.own = user.account;
  if (user.role == Role::kAdmin) {
    v.all = true;
    return v;
  }
  v.by_member = user.role == Role::kClearingMember;
  v.member = MemberIndex(config, user.clearing_member);
  return v;
}

}  // namespace cfx::gateway
