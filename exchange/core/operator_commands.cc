// Commands of the operator and of the services that touch no book except
// by cancelling: the kill switch of an account, the index fixing and the
// settlement re-run (the services act on their results).

#include <cstdint>

#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

void Apply::KillSwitch() {
  const Command& c = *s_.cmd;
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  if ((c.flags & ~kKnownKillSwitchFlags) != 0) {
    return Reject(RejectCode::kInvalidFlags);
  }
  AccountRow& a = s_.accounts[c.account.value];
  const bool kill = (c.flags & kFlagKill) != 0;
  // Idempotent: a kill of a killed account and a reinstate of a live one
  // are accepted and change nothing, so a firm's kill may include accounts
  // already killed. A kill cancels in order id order, as a mass cancel.
  uint32_t n = 0;
  if (kill) {
    uint32_t k = a.head;
    while (k != 0) {
      const uint32_t next = s_.orders[k].account_next;
      CancelResting(s_.books[s_.orders[k].instrument.value], k,
                    EventType::kOrderCancelled, CancelReason::kKillSwitch);
      ++n;
      k = next;
    }
  }
  a.killed = kill;
  Event& e = Base(EventType::kKillSwitchSet);
  e.account = c.account;
  e.set_killed(kill);
  e.count = n;
  e.client_order_id = c.client_order_id;
}

void Apply::IndexFixing() {
  const Command& c = *s_.cmd;
  // 9999-12-31 is day 2,932,896.
  const int64_t day = c.fixing_day();
  if (day <= 0 || day > 2'932'896) {
    return Reject(RejectCode::kInvalidFixingDay);
  }
  Event& e = Base(EventType::kIndexFixing);
  e.set_fixing_day(day);
}

void Apply::SettlementRerun() {
  const Command& c = *s_.cmd;
  // 9999-12-31 is day 2,932,896.
  const int64_t date = c.settlement_date();
  if (date <= 0 || date > 2'932'896) {
    return Reject(RejectCode::kInvalidSettlementDate);
  }
  Event& e = Base(EventType::kSettlementRerun);
  e.set_settlement_date(date);
  e.client_order_id = c.client_order_id;
}

}  // namespace internal
}  // namespace cfx::exchange
