#pragma once

#include <cstdint>
#include <string>

#include "settlement/ledger.h"
#include "settlement/rules.h"
#include "settlement/settlement_service.h"

namespace cfx::settlement {

// How clearing writes a report's values (docs/settlement.md, "Reports"):
// the one place every settlement report and feed (the protobuf desk, FIX
// PositionReport, the report kept here) takes its text from. Dates are
// "YYYY-MM-DD" (exchange::FormatDay, exchange/civil_date.h).

// Money: USD with exactly six decimals (exchange::FormatAmount).
std::string AmountText(exchange::Amount amount);
// A contract's settlement price at the precision of its rule: a DSP at the
// contract's tick ("5.90"), an FSP at $0.001 ("5.808").
std::string SettlementPriceText(const SettlementConfig& config,
                                const ContractSettlement& c);
// A price of `instrument` (a trade, a prior DSP, the initial reference) at
// the instrument's tick.
std::string TickPriceText(const SettlementConfig& config, uint32_t instrument,
                          exchange::Price price);
// "1", "2", "3", "FINAL"; "" for kNone.
const char* TierName(DspTier tier);
// "CLEARING-HOUSE" (kHouse), "BANK" (kBank); "" for the other books.
const char* CounterpartyName(BookKind book);
// What a movement's ref names: the contract's symbol (VM, final
// settlement), the trade id (spot cash), the command's sequence number
// (deposit, withdrawal; 0 for the opening collateral).
std::string MovementReference(const SettlementConfig& config,
                              const Movement& m);
// The name of account `a` / clearing member `m` ("" if unknown).
const std::string& AccountName(const SettlementConfig& config, uint32_t a);
const std::string& MemberName(const SettlementConfig& config, uint32_t m);

// The report as JSON. member != 0 keeps only that clearing member's
// accounts, fills and movements.
std::string ReportJson(const SettlementConfig& config, const RunReport& r,
                       uint32_t member = 0);

}  // namespace cfx::settlement
