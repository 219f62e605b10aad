#include "gateway/tools/cli/settlement_render.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/http/index_page.h"
#include "gateway/http/json.h"
#include "gateway/pb/index_desk.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

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

// True for "", "0", "0.00", "-0.000": a decimal without a non-zero digit.
bool IsZeroDecimal(const std::string& decimal) {
  return decimal.find_first_of("123456789") == std::string::npos;
}

// "final", "DISRUPTED" or "final, DISRUPTED" ("" for neither).
std::string ContractFlags(const w::SettlementPrice& c) {
  std::string flags = c.final() ? "final" : "";
  if (c.disrupted()) flags += flags.empty() ? "DISRUPTED" : ", DISRUPTED";
  return flags;
}

// The flags of a position line: its contract's, then "closed" when final
// settlement closed it.
std::string PositionFlags(const w::SettlementReport& r,
                          const w::PositionLine& p) {
  const w::SettlementPrice* c = FindContract(r, p.symbol());
  std::string flags = c != nullptr ? ContractFlags(*c) : std::string();
  if (p.closed()) flags += flags.empty() ? "closed" : ", closed";
  return flags;
}

// One CSV line: the fields joined by ',', each as it is or in quotes
// (doubled inside) when it holds a separator, a quote or a line break
// (RFC 4180).
std::string CsvLine(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += CsvField(fields[i]);
  }
  return out + "\n";
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

// The sections of a settlement report after its positions and account
// totals, in the text, CSV and JSON forms (docs/cli.md, "Clearing").
//
// Text: one table each, or "final settlements: none", "trades: none",
// "movements: none", "margin calls: none".
//   ACCOUNT MEMBER CONTRACT FINAL_QUANTITY FSP AMOUNT FLAGS
//   TRADE_ID TIME ACCOUNT MEMBER CONTRACT SIDE QUANTITY PRICE FLAGS
//   KIND ACCOUNT MEMBER AMOUNT COUNTERPARTY REFERENCE
//   ACCOUNT MEMBER IM COLLATERAL MARGIN_CALL
// CSV: a header line and one line per row, always (a table without rows is
// its header alone).
//   date,contract,settlement_price,tier,open_interest,flags
//   date,account,clearing_member,contract,final_quantity,
//     final_settlement_price,amount,flags
//   date,trade_id,match_time,account,clearing_member,contract,side,
//     quantity,price,flags
//   date,kind,account,clearing_member,amount,counterparty,reference
//   date,account,clearing_member,initial_margin,collateral,margin_call
// JSON arrays of objects: trades {trade_id, match_time, match_time_ns,
// account, clearing_member, symbol, side, quantity, price, busted} and
// movements {kind, account, clearing_member, amount, counterparty,
// reference}.

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

std::string SettlementPriceJson(const w::SettlementPrice& c) {
  return JsonObject()
      .Str("symbol", c.symbol())
      .Str("price", c.price())
      .Str("tier", c.tier())
      .Bool("final", c.final())
      .Bool("disrupted", c.disrupted())
      .Int("open_interest", c.open_interest())
      .str();
}

std::string SettlementPricesJson(
    const google::protobuf::RepeatedPtrField<w::SettlementPrice>& contracts) {
  std::string out = "[";
  for (const w::SettlementPrice& c : contracts) {
    if (out.size() > 1) out += ',';
    out += SettlementPriceJson(c);
  }
  return out + "]";
}

std::string MarginCallJson(const w::MarginCall& c) {
  return JsonObject()
      .Str("account", c.account())
      .Str("clearing_member", c.clearing_member())
      .Str("date", c.date())
      .Str("initial_margin", c.initial_margin())
      .Str("collateral", c.collateral())
      .Str("amount_due", c.amount_due())
      .Str("collateral_now", c.collateral_now())
      .Str("outstanding", c.outstanding())
      .Str("status", c.met() ? "MET" : "OPEN")
      .str();
}

}  // namespace

std::string SettlementReportText(const w::SettlementReport& r) {
  std::string out = "settlement " + r.date() + "\n";
  std::vector<std::vector<std::string>> contracts = {
      {"CONTRACT", "PRICE", "TIER", "OPEN_INTEREST", "FLAGS"}};
  for (const w::SettlementPrice& c : r.contracts()) {
    contracts.push_back({c.symbol(), c.price(), c.tier(),
                         std::to_string(c.open_interest()), ContractFlags(c)});
  }
  out += contracts.size() > 1 ? FormatTable(contracts, {1, 3})
                              : std::string("contracts: none\n");
  std::vector<std::vector<std::string>> positions = {
      {"ACCOUNT", "MEMBER", "CONTRACT", "POSITION", "VM", "FLAGS"}};
  std::vector<std::vector<std::string>> accounts = {
      {"ACCOUNT", "MEMBER", "FILLS", "VM", "SPOT_CASH", "IM", "COLLATERAL"}};
  for (const w::AccountSettlement& a : r.accounts()) {
    for (const w::PositionLine& p : a.positions()) {
      positions.push_back({a.account(), a.clearing_member(), p.symbol(),
                           std::to_string(p.position()), p.variation_margin(),
                           p.closed() ? "closed" : ""});
    }
    accounts.push_back({a.account(), a.clearing_member(),
                        std::to_string(a.fills()), a.variation_margin(),
                        a.spot_cash(), a.initial_margin(), a.collateral()});
  }
  out += "\n";
  out += positions.size() > 1 ? FormatTable(positions, {3, 4})
                              : std::string("positions: none\n");
  out += "\n";
  out += accounts.size() > 1 ? FormatTable(accounts, {2, 3, 4, 5, 6})
                             : std::string("accounts: none\n");
  out += "\n" + SettlementFinalsText(r);
  out += "\n" + SettlementTradesText(r);
  out += "\n" + SettlementMovementsText(r);
  out += "\n" + SettlementMarginCallsText(r);
  return out;
}

std::string SettlementReportCsv(const w::SettlementReport& r) {
  std::string out =
      CsvLine({"date", "account", "clearing_member", "contract", "position",
               "settlement_price", "tier", "variation_margin", "spot_cash",
               "initial_margin", "collateral", "flags"});
  const std::string zero = exchange::FormatAmount(exchange::Amount{});
  for (const w::AccountSettlement& a : r.accounts()) {
    for (const w::PositionLine& p : a.positions()) {
      std::string price;
      std::string tier;
      for (const w::SettlementPrice& c : r.contracts()) {
        if (c.symbol() == p.symbol()) {
          price = c.price();
          tier = c.tier();
        }
      }
      out += CsvLine({r.date(), a.account(), a.clearing_member(), p.symbol(),
                      std::to_string(p.position()), price, tier,
                      p.variation_margin(), zero, a.initial_margin(),
                      a.collateral(), PositionFlags(r, p)});
    }
    const bool spot = !IsZeroDecimal(a.spot_cash());
    if (spot) {
      out += CsvLine({r.date(), a.account(), a.clearing_member(), "SPOT", "",
                      "", "", zero, a.spot_cash(), a.initial_margin(),
                      a.collateral(), ""});
    }
    if (a.positions().empty() && !spot) {
      out += CsvLine({r.date(), a.account(), a.clearing_member(), "", "", "",
                      "", zero, zero, a.initial_margin(), a.collateral(), ""});
    }
  }
  out += "\n" + SettlementContractsCsv(r);
  out += "\n" + SettlementFinalsCsv(r);
  out += "\n" + SettlementTradesCsv(r);
  out += "\n" + SettlementMovementsCsv(r);
  out += "\n" + SettlementMarginCallsCsv(r);
  return out;
}

std::string SettlementReportJson(const w::SettlementReport& r) {
  std::string accounts = "[";
  for (const w::AccountSettlement& a : r.accounts()) {
    std::string positions = "[";
    for (const w::PositionLine& p : a.positions()) {
      if (positions.size() > 1) positions += ',';
      positions += JsonObject()
                       .Str("symbol", p.symbol())
                       .Int("position", p.position())
                       .Str("variation_margin", p.variation_margin())
                       .Bool("closed", p.closed())
                       .Int("final_quantity", p.final_quantity())
                       .str();
    }
    positions += "]";
    if (accounts.size() > 1) accounts += ',';
    accounts += JsonObject()
                    .Str("account", a.account())
                    .Str("clearing_member", a.clearing_member())
                    .Raw("positions", positions)
                    .Int("fills", a.fills())
                    .Str("variation_margin", a.variation_margin())
                    .Str("spot_cash", a.spot_cash())
                    .Str("initial_margin", a.initial_margin())
                    .Str("collateral", a.collateral())
                    .str();
  }
  accounts += "]";
  // The run's margin calls: account and amount due.
  std::string calls = "[";
  for (const w::AccountSettlement& a : r.accounts()) {
    if (IsZeroDecimal(a.margin_call())) continue;
    if (calls.size() > 1) calls += ',';
    calls += JsonObject()
                 .Str("account", a.account())
                 .Str("clearing_member", a.clearing_member())
                 .Str("amount_due", a.margin_call())
                 .str();
  }
  calls += "]";
  return JsonObject()
      .Str("type", "settlement_report")
      .Str("date", r.date())
      .Raw("contracts", SettlementPricesJson(r.contracts()))
      .Raw("accounts", accounts)
      .Raw("trades", SettlementTradesJson(r))
      .Raw("movements", SettlementMovementsJson(r))
      .Raw("margin_calls", calls)
      .str();
}

std::string MarginCallListText(const w::MarginCallList& l) {
  if (l.calls().empty()) return "margin calls " + l.date() + ": none\n";
  std::vector<std::vector<std::string>> rows = {
      {"ACCOUNT", "MEMBER", "IM", "COLLATERAL", "DUE", "COLLATERAL_NOW",
       "OUTSTANDING", "STATUS"}};
  for (const w::MarginCall& c : l.calls()) {
    rows.push_back({c.account(), c.clearing_member(), c.initial_margin(),
                    c.collateral(), c.amount_due(), c.collateral_now(),
                    c.outstanding(), c.met() ? "MET" : "OPEN"});
  }
  return "margin calls " + l.date() + "\n" + FormatTable(rows, {2, 3, 4, 5, 6});
}

std::string MarginCallListJson(const w::MarginCallList& l) {
  std::string calls = "[";
  for (const w::MarginCall& c : l.calls()) {
    if (calls.size() > 1) calls += ',';
    calls += MarginCallJson(c);
  }
  calls += "]";
  return JsonObject()
      .Str("type", "margin_calls")
      .Str("date", l.date())
      .Raw("calls", calls)
      .str();
}

std::string SettlementStatusText(const w::SettlementStatus& s) {
  std::string out = s.ok() ? std::string("settlement: ok\n")
                           : TrimmedLine("settlement: STOPPED: " + s.error());
  if (!s.refused_date().empty()) {
    std::string waiting;
    for (const std::string& d : s.waiting_dates()) waiting += " " + d;
    out += "refused run: " + s.refused_date() + " (cfx settle rerun " +
           s.refused_date() + " once fixed); waiting:" + waiting + "\n";
  }
  if (s.settled_dates().empty()) return out + "settled dates: none\n";
  out += "latest settled date: " + s.latest_date() + "\n";
  std::vector<std::vector<std::string>> contracts = {
      {"CONTRACT", "PRICE", "TIER", "OPEN_INTEREST", "FLAGS"}};
  for (const w::SettlementPrice& c : s.contracts()) {
    contracts.push_back({c.symbol(), c.price(), c.tier(),
                         std::to_string(c.open_interest()), ContractFlags(c)});
  }
  if (contracts.size() > 1) out += FormatTable(contracts, {1, 3});
  out += "settled dates (" + std::to_string(s.settled_dates_size()) + "):";
  for (const std::string& d : s.settled_dates()) out += " " + d;
  return out + "\n";
}

std::string SettlementStatusJson(const w::SettlementStatus& s) {
  std::string dates = "[";
  for (const std::string& d : s.settled_dates()) {
    if (dates.size() > 1) dates += ',';
    dates += JsonString(d);
  }
  dates += "]";
  JsonObject o;
  o.Str("type", "settlement_status")
      .Bool("ok", s.ok())
      .Str("error", s.error())
      .Str("latest_date", s.latest_date())
      .Raw("contracts", SettlementPricesJson(s.contracts()))
      .Raw("settled_dates", dates);
  // A refused run: its date and the dates its re-run performs.
  if (!s.refused_date().empty()) {
    std::string waiting = "[";
    for (const std::string& d : s.waiting_dates()) {
      if (waiting.size() > 1) waiting += ',';
      waiting += JsonString(d);
    }
    o.Str("refused_date", s.refused_date()).Raw("waiting_dates", waiting + "]");
  }
  return o.str();
}

std::string CollateralAckText(const w::CollateralAck& a) {
  const bool withdrawal = !a.amount().empty() && a.amount()[0] == '-';
  const std::string amount = withdrawal ? a.amount().substr(1) : a.amount();
  return a.account() + ": " + (withdrawal ? "withdrew " : "deposited ") +
         amount + ", collateral " + a.collateral_after() + "\n";
}

std::string CollateralAckJson(const w::CollateralAck& a) {
  JsonObject o;
  o.Str("type", "collateral")
      .Str("account", a.account())
      .Str("amount", a.amount())
      .Bool("accepted", a.accepted());
  if (a.accepted()) {
    o.Str("collateral_after", a.collateral_after()).Uint("seq", a.seq());
  } else {
    o.Str("reason", EnumName(a.reason())).Str("text", a.text());
  }
  return o.str();
}

}  // namespace cfx::gateway::cli
