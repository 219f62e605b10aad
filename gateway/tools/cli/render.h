#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {

// How the cfx tool shows protocol messages: readable text (aligned columns,
// prices as decimals) or one JSON object per result (prices as decimal
// strings, times as UTC text plus *_ns integers). Every text function
// returns whole lines, each ending in '\n'; JSON functions return one object
// without a newline.

// "PRICE_NOT_ON_TICK: text", or just the name when the text is empty or
// repeats it.
std::string ReasonText(const std::string& name, const std::string& text);

// Execution reports as rows of a table with fixed-width columns.
std::string ExecutionReportHeader();
std::string ExecutionReportRow(const wire::v1::ExecutionReport& r);
std::string ExecutionReportJson(const wire::v1::ExecutionReport& r);

std::string CancelRejectJson(const wire::v1::CancelReject& r);
std::string MassCancelReportText(const wire::v1::MassCancelReport& r);
std::string MassCancelReportJson(const wire::v1::MassCancelReport& r);
std::string SessionRejectJson(const wire::v1::SessionReject& r);

// Trade prints as table rows.
std::string TradeHeader();
std::string TradeRow(const wire::v1::TradePrint& t);
std::string TradeJson(const wire::v1::TradePrint& t);

std::string BookUpdateJson(const wire::v1::BookUpdate& u);

// Reference data as aligned tables, and one JSON object per item.
std::string InstrumentsText(const wire::v1::InstrumentList& list);
std::string InstrumentJson(const wire::v1::Instrument& i);
std::string GradesText(const wire::v1::GradeList& list);
std::string GradeJson(const wire::v1::Grade& g);

std::string ClockText(const wire::v1::ClockReport& c);
std::string ClockJson(const wire::v1::ClockReport& c);

// The CFX index (docs/cli.md, "Index"). IndexPrintText: a title line
// ("CFX-B200-STD 2026-12-05: 6.125 USD per GPU-hour, level 1a") and one
// "label  value" line per field; at most kMaxTradeIdsShown trade ids, then
// how many more.
inline constexpr int kMaxTradeIdsShown = 20;
std::string IndexPrintText(const wire::v1::IndexPrint& p);
// One row per print: DATE, VALUE, LEVEL, TRADES, GPU_HOURS, RESTATED, and
// COMPUTED_AT after DATE when `computed_at` (every revision of a day).
std::string IndexHistoryText(const std::vector<wire::v1::IndexPrint>& prints,
                             bool computed_at = false);
// The print as one line of JSON: the same object as the HTTP port's
// GET /api/v1/index/{grade} (docs/http.md, "The print object"), null for
// an absent field.
std::string IndexPrintJson(const wire::v1::IndexPrint& p);
// The print, why each higher level did not apply, and tables of the
// contributing trades, the partitions and the excluded trades (a table
// only when it has rows).
std::string IndexExplanationText(const wire::v1::IndexExplanation& x);

// Clearing (docs/cli.md, "Clearing"). SettlementReportText: a title line
// ("settlement 2026-12-03"), a table of the contracts (CONTRACT, PRICE,
// TIER, OPEN_INTEREST, FLAGS), a table with one row per account and
// contract (ACCOUNT, MEMBER, CONTRACT, POSITION, VM, FLAGS: "closed" when
// final settlement closed it), one with one row per account (ACCOUNT,
// MEMBER, FILLS, VM, SPOT_CASH, IM, COLLATERAL), then the final
// settlements, the fills and the cash movements (settlement_sections.h);
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
// settlements, fills and movements tables (settlement_sections.h). Fields with
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

// Pads each column of `rows` to its widest cell, two spaces apart; columns
// whose index is in `right` are right-aligned. Trailing spaces are dropped.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::size_t>& right);

// An L2 book kept from a BookSnapshot and the BookUpdates after it.
//
// Thread: one thread. Memory: one map node per price level.
class LocalBook {
 public:
  void Reset(const wire::v1::BookSnapshot& s);
  // Applies an update of this book's symbol with seq at or after the
  // snapshot's; returns false (and changes nothing) for any other.
  bool Apply(const wire::v1::BookUpdate& u);

  // A side-by-side ladder of the best `depth` levels a side (0 = all) under
  // a title line "SYMBOL  STATE  seq N".
  std::string Text(std::size_t depth) const;
  std::string Json(std::size_t depth) const;

  const std::string& symbol() const { return symbol_; }
  uint64_t seq() const { return seq_; }

 private:
  struct Level {
    int64_t quantity = 0;
    uint32_t orders = 0;
  };

  std::string symbol_;
  uint64_t seq_ = 0;           // of the newest change applied
  uint64_t snapshot_seq_ = 0;  // updates after this one apply
  wire::v1::InstrumentState state_ = wire::v1::INSTRUMENT_STATE_UNSPECIFIED;
  std::map<int64_t, Level, std::greater<>> bids_;  // best (highest) first
  std::map<int64_t, Level> asks_;                  // best (lowest) first
};

}  // namespace cfx::gateway::cli
