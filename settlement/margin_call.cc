#include "settlement/margin_call.h"

namespace cfx::settlement {

std::vector<MarginCall> MarginCalls(const RunReport& report,
                                    const Ledger& ledger, uint32_t member) {
  std::vector<MarginCall> out;
  for (const AccountSettlement& a : report.accounts) {
    if (a.margin_call.micros <= 0 || a.member == 0) continue;
    if (member != 0 && a.member != member) continue;
    MarginCall c;
    c.date = report.date;
    c.account = a.account;
    c.member = a.member;
    c.initial_margin = a.initial_margin;
    c.collateral = a.collateral;
    c.amount_due = a.margin_call;
    c.collateral_now = exchange::Amount{ledger.Balance(a.account)};
    c.outstanding.micros =
        c.initial_margin > c.collateral_now
            ? c.initial_margin.micros - c.collateral_now.micros
            : 0;
    c.met = c.outstanding.micros == 0;
    out.push_back(c);
  }
  return out;
}

}  // namespace cfx::settlement
