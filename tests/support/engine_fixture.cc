#include "tests/support/engine_fixture.h"

namespace cfx::exchange {

std::ostream& operator<<(std::ostream& os, const Event& e) {
  os << "{seq=" << e.seq.value << " type=" << static_cast<int>(e.type);
  if (e.type == EventType::kRejected) {
    os << " command=" << static_cast<int>(e.command)
       << " reject=" << RejectCodeName(e.reject_code());
  } else if (e.reason != 0) {
    os << " reason=" << CancelReasonName(e.cancel_reason());
  }
  os << " inst=" << e.instrument.value << " side=" << static_cast<int>(e.side)
     << " acct=" << e.account.value << " order=" << e.order_id.value
     << " cl=" << e.client_order_id.value << " px=" << e.price.units
     << " qty=" << e.quantity.lots << " leaves=" << e.leaves.lots
     << " filled=" << e.filled.lots;
  if (e.type == EventType::kTrade) {
    os << " trade=" << e.trade_id.value << " cacct=" << e.counter_account.value
       << " corder=" << e.counter_order_id.value
       << " ccl=" << e.counter_client_order_id.value
       << " cleaves=" << e.counter_leaves.lots
       << " cfilled=" << e.counter_filled.lots;
  }
  if (e.count != 0) os << " count=" << e.count;
  if (e.state != InstrumentState::kNone)
    os << " state=" << static_cast<int>(e.state);
  return os << "}";
}

}  // namespace cfx::exchange
