#pragma once

#include <string>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {

// The sections of a settlement report after its positions and account
// totals (docs/cli.md, "Clearing"): the contracts (CSV only; the text has
// them first), the final settlements (one line per account and contract
// closed by final settlement), the day's fills and the cash movements, as
// text tables, CSV tables and JSON arrays.
// render.h's SettlementReportText/Csv/Json put them together.

// Text: one table each, or "final settlements: none", "trades: none",
// "movements: none", "margin calls: none".
//   ACCOUNT MEMBER CONTRACT FINAL_QUANTITY FSP AMOUNT FLAGS
//   TRADE_ID TIME ACCOUNT MEMBER CONTRACT SIDE QUANTITY PRICE FLAGS
//   KIND ACCOUNT MEMBER AMOUNT COUNTERPARTY REFERENCE
//   ACCOUNT MEMBER IM COLLATERAL MARGIN_CALL
std::string SettlementFinalsText(const wire::v1::SettlementReport& r);
std::string SettlementTradesText(const wire::v1::SettlementReport& r);
std::string SettlementMovementsText(const wire::v1::SettlementReport& r);
std::string SettlementMarginCallsText(const wire::v1::SettlementReport& r);

// CSV: a header line and one line per row, always (a table without rows is
// its header alone).
//   date,contract,settlement_price,tier,open_interest,flags
//   date,account,clearing_member,contract,final_quantity,
//     final_settlement_price,amount,flags
//   date,trade_id,match_time,account,clearing_member,contract,side,
//     quantity,price,flags
//   date,kind,account,clearing_member,amount,counterparty,reference
//   date,account,clearing_member,initial_margin,collateral,margin_call
std::string SettlementContractsCsv(const wire::v1::SettlementReport& r);
std::string SettlementFinalsCsv(const wire::v1::SettlementReport& r);
std::string SettlementTradesCsv(const wire::v1::SettlementReport& r);
std::string SettlementMovementsCsv(const wire::v1::SettlementReport& r);
std::string SettlementMarginCallsCsv(const wire::v1::SettlementReport& r);

// JSON arrays of objects: trades {trade_id, match_time, match_time_ns,
// account, clearing_member, symbol, side, quantity, price, busted} and
// movements {kind, account, clearing_member, amount, counterparty,
// reference}.
std::string SettlementTradesJson(const wire::v1::SettlementReport& r);
std::string SettlementMovementsJson(const wire::v1::SettlementReport& r);

// True for "", "0", "0.00", "-0.000": a decimal without a non-zero digit.
bool IsZeroDecimal(const std::string& decimal);

// "final", "DISRUPTED" or "final, DISRUPTED" ("" for neither).
std::string ContractFlags(const wire::v1::SettlementPrice& c);
// The flags of a position line: its contract's, then "closed" when final
// settlement closed it.
std::string PositionFlags(const wire::v1::SettlementReport& r,
                          const wire::v1::PositionLine& p);
// One CSV line: the fields joined by ',', each as it is or in quotes
// (doubled inside) when it holds a separator, a quote or a line break
// (RFC 4180).
std::string CsvLine(const std::vector<std::string>& fields);

}  // namespace cfx::gateway::cli
