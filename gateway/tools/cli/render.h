#pragma once

#include <cstddef>
#include <cstdint>
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

// Pads each column of `rows` to its widest cell, two spaces apart; columns
// whose index is in `right` are right-aligned. Trailing spaces are dropped.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<std::size_t>& right);

// `s` without trailing spaces, and a newline: one line of text output.
std::string TrimmedLine(std::string s);

}  // namespace cfx::gateway::cli
