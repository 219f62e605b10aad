#include "settlement/settlement_report.h"

#include <cstdio>
#include <string>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/clock.h"
#include "exchange/text_format.h"

namespace cfx::settlement {

std::string AmountText(exchange::Amount amount) {
  return exchange::FormatAmount(amount);
}

std::string SettlementPriceText(const SettlementConfig& config,
                                const ContractSettlement& c) {
  if (c.final) {
    return exchange::FormatPrice(c.price, exchange::Price{kFspStep});
  }
  return TickPriceText(config, c.instrument, c.price);
}

std::string TickPriceText(const SettlementConfig& config, uint32_t instrument,
                          exchange::Price price) {
  const int64_t tick = instrument < config.instruments.size()
                           ? config.instruments[instrument].tick.units
                           : 0;
  return exchange::FormatPrice(price, exchange::Price{tick});
}

const char* TierName(DspTier tier) {
  switch (tier) {
    case DspTier::k1:
      return "1";
    case DspTier::k2:
      return "2";
    case DspTier::k3:
      return "3";
    case DspTier::kFinal:
      return "FINAL";
    case DspTier::kNone:
      break;
  }
  return "";
}

const char* CounterpartyName(BookKind book) {
  switch (book) {
    case BookKind::kHouse:
      return "CLEARING-HOUSE";
    case BookKind::kBank:
      return "BANK";
    case BookKind::kAccount:
    case BookKind::kMember:
      break;
  }
  return "";
}

std::string MovementReference(const SettlementConfig& config,
                              const Movement& m) {
  if (m.kind == MovementKind::kVariationMargin ||
      m.kind == MovementKind::kFinalSettlement) {
    if (m.ref < config.instruments.size()) {
      return config.instruments[m.ref].symbol;
    }
  }
  return std::to_string(m.ref);
}

const std::string& AccountName(const SettlementConfig& config, uint32_t a) {
  static const std::string kNone;
  return a < config.account_names.size() ? config.account_names[a] : kNone;
}

const std::string& MemberName(const SettlementConfig& config, uint32_t m) {
  static const std::string kNone;
  return m < config.member_names.size() ? config.member_names[m] : kNone;
}

namespace {

std::string Quoted(const std::string& s) { return exchange::JsonString(s); }

std::string Symbol(const SettlementConfig& config, uint32_t instrument) {
  return instrument < config.instruments.size()
             ? config.instruments[instrument].symbol
             : std::to_string(instrument);
}

}  // namespace

std::string ReportJson(const SettlementConfig& config, const RunReport& r,
                       uint32_t member) {
  const auto visible = [member](uint32_t m) {
    return m != 0 && (member == 0 || m == member);
  };
  std::string out =
      "{\"date\":\"" + exchange::FormatDay(r.date) + "\",\"contracts\":[";
  for (std::size_t k = 0; k < r.contracts.size(); ++k) {
    const ContractSettlement& c = r.contracts[k];
    if (k != 0) out += ',';
    out += "{\"symbol\":" + Quoted(Symbol(config, c.instrument)) +
           ",\"price\":\"" + SettlementPriceText(config, c) + "\",\"tier\":\"" +
           TierName(c.tier) + "\",\"final\":" + (c.final ? "true" : "false") +
           ",\"disrupted\":" + (c.disrupted ? "true" : "false") +
           ",\"open_interest\":" + std::to_string(c.open_interest) + "}";
  }
  out += "],\"accounts\":[";
  bool first = true;
  for (const AccountSettlement& a : r.accounts) {
    if (!visible(a.member)) continue;
    if (a.positions.empty() && a.variation_margin.micros == 0 &&
        a.spot_cash.micros == 0 && a.initial_margin.micros == 0) {
      continue;
    }
    if (!first) out += ',';
    first = false;
    out += "{\"account\":" + Quoted(AccountName(config, a.account)) +
           ",\"clearing_member\":" + Quoted(MemberName(config, a.member)) +
           ",\"positions\":{";
    for (std::size_t k = 0; k < a.positions.size(); ++k) {
      const AccountSettlement::Line& l = a.positions[k];
      if (k != 0) out += ',';
      out += Quoted(Symbol(config, l.instrument)) +
             ":{\"position\":" + std::to_string(l.position) +
             ",\"variation_margin\":\"" + AmountText(l.variation_margin) + "\"";
      if (l.closed) {
        out += ",\"closed\":true,\"final_quantity\":" +
               std::to_string(l.final_quantity);
      }
      out += "}";
    }
    out += "},\"fills\":" + std::to_string(a.fills) +
           ",\"variation_margin\":\"" + AmountText(a.variation_margin) +
           "\",\"spot_cash\":\"" + AmountText(a.spot_cash) +
           "\",\"initial_margin\":\"" + AmountText(a.initial_margin) +
           "\",\"collateral\":\"" + AmountText(a.collateral) +
           "\",\"margin_call\":\"" + AmountText(a.margin_call) + "\"}";
  }
  out += "],\"trades\":[";
  first = true;
  for (const TradeLine& t : r.trades) {
    if (!visible(t.member)) continue;
    if (!first) out += ',';
    first = false;
    out += "{\"trade_id\":" + std::to_string(t.trade_id) +
           ",\"match_time\":\"" +
           exchange::FormatUtcTimestamp(exchange::Timestamp{t.match_time}) +
           "\",\"account\":" + Quoted(AccountName(config, t.account)) +
           ",\"symbol\":" + Quoted(Symbol(config, t.instrument)) +
           ",\"side\":\"" + (t.lots > 0 ? "BUY" : "SELL") +
           "\",\"quantity\":" + std::to_string(t.lots > 0 ? t.lots : -t.lots) +
           ",\"price\":\"" + TickPriceText(config, t.instrument, t.price) +
           "\",\"busted\":" + (t.busted ? "true" : "false") + "}";
  }
  out += "],\"cash_movements\":[";
  first = true;
  for (const CashLine& c : r.cash) {
    if (!visible(c.member)) continue;
    if (!first) out += ',';
    first = false;
    out += "{\"kind\":\"" + std::string(MovementKindName(c.movement.kind)) +
           "\",\"account\":" + Quoted(AccountName(config, c.movement.account)) +
           ",\"amount\":\"" + AmountText(c.movement.amount) +
           "\",\"counterparty\":\"" + CounterpartyName(c.counterparty) +
           "\",\"reference\":" + Quoted(MovementReference(config, c.movement)) +
           "}";
  }
  out += "]}";
  return out;
}

}  // namespace cfx::settlement
