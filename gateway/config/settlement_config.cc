#include "gateway/config/settlement_config.h"

#include <cstdio>
#include <map>
#include <string>

#include "gateway/config/instrument_table.h"

namespace cfx::gateway {

settlement::SettlementConfig BuildSettlementConfig(const ServerConfig& config) {
  settlement::SettlementConfig out;
  out.calendar = config.calendar;
  out.settle_seconds = config.index.fixing_utc_seconds;
  std::map<std::string, uint32_t> grade_index;
  for (std::size_t g = 0; g < config.grades.size(); ++g) {
    grade_index[config.grades[g].name] = static_cast<uint32_t>(g);
  }
  std::map<std::string, uint32_t> roots;
  out.instruments.resize(config.instruments.size() + 1);
  for (const InstrumentInfo& info : config.instruments) {
    settlement::ContractInfo& c = out.instruments[info.id.value];
    const exchange::InstrumentConfig& ic =
        config.engine.instruments[info.id.value - 1];
    c.symbol = info.symbol;
    c.tick = ic.tick;
    c.initial_reference = ic.reference_price;
    if (auto it = grade_index.find(info.grade); it != grade_index.end()) {
      c.grade = it->second;
    }
    if (info.kind == exchange::InstrumentKind::kSpot) {
      c.spot = true;
      c.gpu_hours_per_lot = ic.gpu_hours_per_lot;
      if (c.symbol.empty()) c.symbol = info.grade + "-SPOT";
      continue;
    }
    c.future = true;
    c.root = roots.emplace(info.root, static_cast<uint32_t>(roots.size() + 1))
                 .first->second;
    c.gpu_hours = info.contract_gpu_hours > 0 ? info.contract_gpu_hours
                                              : ic.gpu_hours_per_lot;
    int year = 0;
    int month = 0;
    if (std::sscanf(info.maturity.c_str(), "%d-%d", &year, &month) == 2) {
      c.month = year * 12 + month - 1;
    }
    if (auto day = ParseDay(info.last_trading_day)) c.last_trading_day = *day;
  }
  std::map<std::string, uint32_t> members;
  out.member_names.push_back("");
  for (std::size_t m = 0; m < config.clearing_members.size(); ++m) {
    members[config.clearing_members[m].name] = static_cast<uint32_t>(m + 1);
    out.member_names.push_back(config.clearing_members[m].name);
  }
  const std::size_t n = config.accounts.size() + 1;
  out.ledger.account_member.assign(n, 0);
  out.account_names.assign(n, "");
  out.opening_collateral.assign(n, exchange::Amount{});
  for (const AccountInfo& a : config.accounts) {
    out.account_names[a.id.value] = a.name;
    out.opening_collateral[a.id.value] = a.collateral;
    if (auto it = members.find(a.clearing_member); it != members.end()) {
      out.ledger.account_member[a.id.value] = it->second;
    }
  }
  return out;
}

}  // namespace cfx::gateway
