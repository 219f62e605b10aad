#pragma once

#include <string>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {

// Text functions return whole lines, each ending in '\n'; JSON functions
// return one object without a newline (render.h).

// Clearing (docs/cli.md, "Clearing"). SettlementReportText: a title line
// ("settlement 2026-12-03"), a table of the contracts (CONTRACT, PRICE,
// TIER, OPEN_INTEREST, FLAGS), a table with one row per account and
// contract (ACCOUNT, MEMBER, CONTRACT, POSITION, VM, FLAGS: "closed" when
// final settlement closed it), one with one row per account (ACCOUNT,
// MEMBER, FILLS, VM, SPOT_CASH, IM, COLLATERAL), then the final
// settlements, the fills and the cash movements;
// tables one empty line apart, a table without rows says "none". When the
// run issued margin calls, a "margin calls" table follows (ACCOUNT, MEMBER,
// IM, COLLATERAL, MARGIN_CALL).
std::string SettlementReportText(const wire::v1::SettlementReport& r);
// A header line, then one line per account and contract, one "SPOT" line
// per account with spot cash, and one line with an empty contract for an
// account with neither: date, account, clearing_member, contract,
// position, settlement_price, tier, variation_margin, spot_cash,
// initial_margin, collateral, flags (the contract's "final", "DISRUPTED",
// and "closed"). Then, each after an empty line, the contracts, final
// settlements, fills and movements tables. Fields with
// ',', '"' or a line break are quoted (RFC 4180).
std::string SettlementReportCsv(const wire::v1::SettlementReport& r);
// One object: {"type":"settlement_report","date":...,"contracts":[...],
// "accounts":[...],"trades":[...],"movements":[...],"margin_calls":[{
// "account","clearing_member","amount_due"}]}; money and prices as decimal
// strings.
std::string SettlementReportJson(const wire::v1::SettlementReport& r);
// Margin calls (docs/cli.md, "settle calls"): a title line ("margin calls
// 2026-12-02"), then one row per call (ACCOUNT, MEMBER, IM, COLLATERAL,
// DUE, COLLATERAL_NOW, OUTSTANDING, STATUS OPEN or MET), or "none".
std::string MarginCallListText(const wire::v1::MarginCallList& l);
// {"type":"margin_calls","date":...,"calls":[{"account":...,"status":
// "OPEN"|"MET",...}]}.
std::string MarginCallListJson(const wire::v1::MarginCallList& l);
// "ok" or the error (and a refused run's date and the dates waiting behind
// it), the latest date and its prices, the settled dates.
std::string SettlementStatusText(const wire::v1::SettlementStatus& s);
std::string SettlementStatusJson(const wire::v1::SettlementStatus& s);
// "FIRM-A: deposited 250000.00, collateral 10250000.00".
std::string CollateralAckText(const wire::v1::CollateralAck& a);
std::string CollateralAckJson(const wire::v1::CollateralAck& a);

}  // namespace cfx::gateway::cli
