// The spot trade table: a trade either party reports as failed before the
// failure deadline of its delivery day is busted.

#include <algorithm>
#include <cstdint>

#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

void Apply::ReportFailure() {
  const Command& c = *s_.cmd;
  const uint64_t id = c.trade_id().value;
  auto it = std::lower_bound(
      s_.spot_trades.begin(), s_.spot_trades.end(), id,
      [](const internal::SpotTrade& t, uint64_t v) { return t.trade_id < v; });
  // Another firm's trade answers as one that does not exist.
  if (it == s_.spot_trades.end() || it->trade_id != id ||
      (it->buyer != c.account.value && it->seller != c.account.value)) {
    return Reject(RejectCode::kUnknownTrade);
  }
  if (it->busted != 0) return Reject(RejectCode::kTradeAlreadyBusted);
  constexpr int64_t kDay = 86'400'000'000'000;
  if (c.ts.nanos >= it->day * kDay + s_.spot_failure_deadline_ns) {
    return Reject(RejectCode::kFailureDeadlinePassed);
  }
  it->busted = 1;
  Event& e = Base(EventType::kTradeBusted);
  e.trade_id = TradeId{it->trade_id};
  e.instrument = InstrumentId{it->instrument};
  e.price = Price{it->price};
  e.quantity = Quantity{it->quantity};
  e.account = AccountId{it->buyer};
  e.counter_account = AccountId{it->seller};
  e.side = it->buyer == c.account.value ? Side::kBuy : Side::kSell;
  e.client_order_id = c.client_order_id;
  e.set_delivery_day(it->day);
}

}  // namespace internal
}  // namespace cfx::exchange
