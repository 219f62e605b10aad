// Who may see which account (gateway/session/visibility.h).

#include "gateway/session/visibility.h"

#include <gtest/gtest.h>

#include "gateway/config/server_config.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {
namespace {

settlement::SettlementConfig Members() {
  settlement::SettlementConfig sc;
  sc.member_names = {"", "alpha-clearing", "beta-clearing"};
  return sc;
}

TEST(Visibility, TheAdminSeesEveryClearedAccount) {
  UserConfig admin;
  admin.role = Role::kAdmin;
  const AccountVisibility v = VisibilityOf(admin, Members());
  EXPECT_TRUE(v.all);
  EXPECT_TRUE(v.MaySee(1, exchange::AccountId{5}));
  EXPECT_TRUE(v.MaySee(2, exchange::AccountId{6}));
  EXPECT_FALSE(v.MaySee(0, exchange::AccountId{7}));
}

TEST(Visibility, AClearingMemberSeesTheAccountsItClears) {
  UserConfig cm;
  cm.role = Role::kClearingMember;
  cm.clearing_member = "beta-clearing";
  const AccountVisibility v = VisibilityOf(cm, Members());
  EXPECT_EQ(v.member, 2u);
  EXPECT_TRUE(v.MaySee(2, exchange::AccountId{6}));
  EXPECT_FALSE(v.MaySee(1, exchange::AccountId{5}));
  cm.clearing_member = "unknown";
  const AccountVisibility none = VisibilityOf(cm, Members());
  EXPECT_EQ(none.member, 0u);
  EXPECT_FALSE(none.MaySee(2, exchange::AccountId{6}));
}

TEST(Visibility, ATraderSeesItsOwnAccount) {
  UserConfig trader;
  trader.role = Role::kTrader;
  trader.account = exchange::AccountId{5};
  const AccountVisibility v = VisibilityOf(trader, Members());
  EXPECT_TRUE(v.MaySee(1, exchange::AccountId{5}));
  EXPECT_FALSE(v.MaySee(1, exchange::AccountId{6}));
}

TEST(Visibility, MemberIndexIsOneBasedAndZeroWhenUnknown) {
  EXPECT_EQ(MemberIndex(Members(), "alpha-clearing"), 1u);
  EXPECT_EQ(MemberIndex(Members(), ""), 0u);
  EXPECT_EQ(MemberIndex(Members(), "gamma"), 0u);
}

}  // namespace
}  // namespace cfx::gateway
