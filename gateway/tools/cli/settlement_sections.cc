#include "gateway/tools/cli/settlement_sections.h"

#include <string>
#include <vector>

#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

const w::SettlementPrice* FindContract(const w::SettlementReport& r,
                                       const std::string& symbol) {
  for (const w::SettlementPrice& c : r.contracts()) {
    if (c.symbol() == symbol) return &c;
  }
  return nullptr;
}

// One row per account and contract closed by final settlement: account,
// member, contract, quantity, FSP, amount, flags.
std::vector<std::vector<std::string>> FinalRows(const w::SettlementReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const w::AccountSettlement& a : r.accounts()) {
    for (const w::PositionLine& p : a.positions()) {
      if (!p.closed()) continue;
      const w::SettlementPrice* c = FindContract(r, p.symbol());
      rows.push_back({a.account(), a.clearing_member(), p.symbol(),
                      std::to_string(p.final_quantity()),
                      c != nullptr ? c->price() : std::string(),
                      p.variation_margin(),
                      c != nullptr && c->disrupted() ? "DISRUPTED" : ""});
    }
  }
  return rows;
}

std::vector<std::string> TradeRow(const w::SettlementTrade& t) {
  return {std::to_string(t.trade_id()),
          FormatTime(t.match_time_ns()),
          t.account(),
          t.clearing_member(),
          t.symbol(),
          EnumName(t.side()),
          std::to_string(t.quantity()),
          t.price(),
          t.busted() ? "busted" : ""};
}

std::vector<std::string> MovementRow(const w::CashMovement& m) {
  return {m.kind(),   m.account(),      m.clearing_member(),
          m.amount(), m.counterparty(), m.reference()};
}

// A table of `header` and `rows`, or "<none>: none".
std::string Table(std::vector<std::vector<std::string>> rows,
                  std::vector<std::string> header,
                  const std::vector<std::size_t>& right,
                  const std::string& none) {
  if (rows.empty()) return none + ": none\n";
  rows.insert(rows.begin(), std::move(header));
  return FormatTable(rows, right);
}

// `header` and the rows, each prefixed with the report's date.
std::string Csv(const w::SettlementReport& r,
                const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::string out = CsvLine(header);
  for (const std::vector<std::string>& row : rows) {
    std::vector<std::string> fields = {r.date()};
    fields.insert(fields.end(), row.begin(), row.end());
    out += CsvLine(fields);
  }
  return out;
}

std::vector<std::vector<std::string>> TradeRows(const w::SettlementReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const w::SettlementTrade& t : r.trades()) rows.push_back(TradeRow(t));
  return rows;
}

std::vector<std::vector<std::string>> MovementRows(
    const w::SettlementReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const w::CashMovement& m : r.movements()) {
    rows.push_back(MovementRow(m));
  }
  return rows;
}

// The accounts the run called for margin: amount due = IM - collateral.
std::vector<std::vector<std::string>> MarginCallRows(
    const w::SettlementReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const w::AccountSettlement& a : r.accounts()) {
    if (IsZeroDecimal(a.margin_call())) continue;
    rows.push_back({a.account(), a.clearing_member(), a.initial_margin(),
                    a.collateral(), a.margin_call()});
  }
  return rows;
}

}  // namespace

bool IsZeroDecimal(const std::string& decimal) {
  return decimal.find_first_of("123456789") == std::string::npos;
}

std::string ContractFlags(const w::SettlementPrice& c) {
  std::string flags = c.final() ? "final" : "";
  if (c.disrupted()) flags += flags.empty() ? "DISRUPTED" : ", DISRUPTED";
  return flags;
}

std::string PositionFlags(const w::SettlementReport& r,
                          const w::PositionLine& p) {
  const w::SettlementPrice* c = FindContract(r, p.symbol());
  std::string flags = c != nullptr ? ContractFlags(*c) : std::string();
  if (p.closed()) flags += flags.empty() ? "closed" : ", closed";
  return flags;
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  return out + "\n";
}

std::string SettlementFinalsText(const w::SettlementReport& r) {
  return Table(FinalRows(r),
               {"ACCOUNT", "MEMBER", "CONTRACT", "FINAL_QUANTITY", "FSP",
                "AMOUNT", "FLAGS"},
               {3, 4, 5}, "final settlements");
}

std::string SettlementTradesText(const w::SettlementReport& r) {
  return Table(TradeRows(r),
               {"TRADE_ID", "TIME", "ACCOUNT", "MEMBER", "CONTRACT", "SIDE",
                "QUANTITY", "PRICE", "FLAGS"},
               {0, 6, 7}, "trades");
}

std::string SettlementMovementsText(const w::SettlementReport& r) {
  return Table(
      MovementRows(r),
      {"KIND", "ACCOUNT", "MEMBER", "AMOUNT", "COUNTERPARTY", "REFERENCE"}, {3},
      "movements");
}

std::string SettlementMarginCallsText(const w::SettlementReport& r) {
  return Table(MarginCallRows(r),
               {"ACCOUNT", "MEMBER", "IM", "COLLATERAL", "MARGIN_CALL"},
               {2, 3, 4}, "margin calls");
}

std::string SettlementContractsCsv(const w::SettlementReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const w::SettlementPrice& c : r.contracts()) {
    rows.push_back({c.symbol(), c.price(), c.tier(),
                    std::to_string(c.open_interest()), ContractFlags(c)});
  }
  return Csv(r,
             {"date", "contract", "settlement_price", "tier", "open_interest",
              "flags"},
             rows);
}

std::string SettlementFinalsCsv(const w::SettlementReport& r) {
  return Csv(r,
             {"date", "account", "clearing_member", "contract",
              "final_quantity", "final_settlement_price", "amount", "flags"},
             FinalRows(r));
}

std::string SettlementTradesCsv(const w::SettlementReport& r) {
  return Csv(r,
             {"date", "trade_id", "match_time", "account", "clearing_member",
              "contract", "side", "quantity", "price", "flags"},
             TradeRows(r));
}

std::string SettlementMovementsCsv(const w::SettlementReport& r) {
  return Csv(r,
             {"date", "kind", "account", "clearing_member", "amount",
              "counterparty", "reference"},
             MovementRows(r));
}

std::string SettlementMarginCallsCsv(const w::SettlementReport& r) {
  return Csv(r,
             {"date", "account", "clearing_member", "initial_margin",
              "collateral", "margin_call"},
             MarginCallRows(r));
}

std::string SettlementTradesJson(const w::SettlementReport& r) {
  std::string out = "[";
  for (const w::SettlementTrade& t : r.trades()) {
    if (out.size() > 1) out += ',';
    out += JsonObject()
               .Uint("trade_id", t.trade_id())
               .Str("match_time", FormatTime(t.match_time_ns()))
               .Int("match_time_ns", t.match_time_ns())
               .Str("account", t.account())
               .Str("clearing_member", t.clearing_member())
               .Str("symbol", t.symbol())
               .Str("side", EnumName(t.side()))
               .Int("quantity", t.quantity())
               .Str("price", t.price())
               .Bool("busted", t.busted())
               .str();
  }
  return out + "]";
}

std::string SettlementMovementsJson(const w::SettlementReport& r) {
  std::string out = "[";
  for (const w::CashMovement& m : r.movements()) {
    if (out.size() > 1) out += ',';
    out += JsonObject()
               .Str("kind", m.kind())
               .Str("account", m.account())
               .Str("clearing_member", m.clearing_member())
               .Str("amount", m.amount())
               .Str("counterparty", m.counterparty())
               .Str("reference", m.reference())
               .str();
  }
  return out + "]";
}

}  // namespace cfx::gateway::cli
