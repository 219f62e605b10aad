// Initial margin of an account (DESIGN.md §5, docs/matching.md "Margin"):
// the legs of its margin group at their worst case, the requirement, and
// the collateral command that books or withdraws against it.

#include <cstddef>
#include <cstdint>

#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/margin.h"

namespace cfx::exchange {
namespace internal {

bool Apply::WorstLots(const PositionRow& r, const Book& b, int64_t buy_extra,
                      int64_t sell_extra, int64_t* buy, int64_t* sell) {
  int64_t open = 0;
  if (__builtin_add_overflow(r.open_buy, buy_extra, &open) ||
      __builtin_add_overflow(r.position, open, buy) ||
      __builtin_add_overflow(r.open_sell, sell_extra, &open) ||
      __builtin_sub_overflow(r.position, open, sell)) {
    return false;
  }
  for (const int64_t lots : {*buy, *sell}) {
    int64_t v = 0;
    if (lots == INT64_MIN ||
        __builtin_mul_overflow(lots < 0 ? -lots : lots,
                               b.config.gpu_hours_per_lot, &v) ||
        __builtin_mul_overflow(v, b.reference.units, &v)) {
      return false;
    }
  }
  return true;
}

int Apply::BuildLegs(AccountId a, uint32_t inst, int64_t buy_extra,
                     int64_t sell_extra, MarginLeg* buy, MarginLeg* sell,
                     std::size_t* at) {
  int n = 0;
  for (const uint32_t id : s_.margined_books) {
    const Book& b = s_.books[id];
    const PositionRow& r = Row(a, InstrumentId{id});
    const bool here = id == inst;
    if (b.state == InstrumentState::kExpired ||
        (!here && r.position == 0 && r.open_buy == 0 && r.open_sell == 0)) {
      continue;
    }
    int64_t buy_lots = 0;
    int64_t sell_lots = 0;
    if (!WorstLots(r, b, here ? buy_extra : 0, here ? sell_extra : 0, &buy_lots,
                   &sell_lots)) {
      return -1;
    }
    if (here) *at = static_cast<std::size_t>(n);
    MarginLeg& l = buy[n];
    l.group = b.config.margin_group;
    l.month = b.config.maturity_month;
    l.lots = buy_lots;
    l.price = b.reference.units;
    l.gpu_hours = b.config.gpu_hours_per_lot;
    sell[n] = l;
    sell[n].lots = sell_lots;
    ++n;
  }
  return n;
}

int64_t Apply::WorstMargin(const MarginLeg* buy, const MarginLeg* sell, int n) {
  const auto size = static_cast<std::size_t>(n);
  return std::max(InitialMargin({buy, size}, s_.margin),
                  InitialMargin({sell, size}, s_.margin));
}

int64_t Apply::MarginRequirement(AccountId a) {
  MarginLeg buy[kMaxMarginLegs];
  MarginLeg sell[kMaxMarginLegs];
  std::size_t at = 0;
  const int n = BuildLegs(a, 0, 0, 0, buy, sell, &at);
  return n < 0 ? -1 : WorstMargin(buy, sell, n);
}

void Apply::Collateral() {
  const Command& c = *s_.cmd;
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  const int64_t amount = c.amount().micros;
  if (amount == 0) return Reject(RejectCode::kInvalidAmount);
  // 9999-12-31 is day 2,932,896.
  const int64_t date = c.settlement_date();
  if (date < 0 || date > 2'932'896) {
    return Reject(RejectCode::kInvalidSettlementDate);
  }
  internal::AccountRow& a = s_.accounts[c.account.value];
  if (date != 0 && date <= a.settled_date) {
    return Reject(RejectCode::kAlreadySettled);
  }
  int64_t after = 0;
  if (__builtin_add_overflow(a.collateral, amount, &after)) {
    return Reject(RejectCode::kInvalidAmount);
  }
  // A member's withdrawal must leave what the account's positions and open
  // orders need; a settlement booking always applies (below zero: a margin
  // call, and risk-adding orders fail the pre-trade check).
  if (date == 0 && amount < 0) {
    const int64_t required = MarginRequirement(c.account);
    if (after < 0 || required < 0 || after < required) {
      return Reject(RejectCode::kInsufficientMargin);
    }
  }
  a.collateral = after;
  if (date != 0) a.settled_date = date;
  Event& e = Base(EventType::kCollateralChanged);
  e.account = c.account;
  e.set_amount(Amount{amount});
  e.set_collateral(Amount{after});
  e.set_settlement_date(date);
  e.client_order_id = c.client_order_id;
}

}  // namespace internal
}  // namespace cfx::exchange
