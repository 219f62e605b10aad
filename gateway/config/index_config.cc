#include "gateway/config/index_config.h"

#include <algorithm>
#include <map>
#include <string>

#include "gateway/config/instrument_table.h"

namespace cfx::gateway {

index::IndexConfig BuildIndexConfig(const ServerConfig& config) {
  index::IndexConfig out;
  out.methodology.fixing_seconds = config.index.fixing_utc_seconds;
  out.methodology.restate_until_seconds =
      config.index.restatement_until_utc_seconds;
  for (const GradeInfo& g : config.grades) {
    out.grades.push_back(g.name);
    out.gpu_hours_per_lot.push_back(int64_t{g.gpus_per_node} * 24);
  }
  const std::size_t n = out.grades.size();
  out.reference_grade.assign(n, -1);
  if (n == 2) {
    out.reference_grade[0] = 1;
    out.reference_grade[1] = 0;
  }
  out.instrument_grade.assign(config.instruments.size() + 1, 0);
  for (const InstrumentInfo& info : config.instruments) {
    if (info.kind != exchange::InstrumentKind::kSpot) continue;
    for (std::size_t g = 0; g < n; ++g) {
      if (out.grades[g] == info.grade) {
        out.instrument_grade[info.id.value] = static_cast<uint32_t>(g + 1);
      }
    }
  }
  // Firm ids are 1-based positions in config.firms; a named affiliation
  // group takes the id of its first firm.
  out.firm_names.push_back("");
  std::map<std::string, uint32_t> firm_id;
  std::map<std::string, uint32_t> group_id;
  std::vector<uint32_t> firm_group(config.firms.size() + 1, 0);
  for (std::size_t i = 0; i < config.firms.size(); ++i) {
    const FirmInfo& f = config.firms[i];
    const uint32_t id = static_cast<uint32_t>(i + 1);
    out.firm_names.push_back(f.name);
    firm_id[f.name] = id;
    if (f.affiliation_group.empty()) {
      firm_group[id] = id;
    } else {
      firm_group[id] = group_id.emplace(f.affiliation_group, id).first->second;
    }
  }
  out.account_firm.assign(config.accounts.size() + 1, 0);
  out.account_group.assign(config.accounts.size() + 1, 0);
  for (const AccountInfo& a : config.accounts) {
    auto it = firm_id.find(a.firm);
    if (it == firm_id.end()) continue;
    out.account_firm[a.id.value] = it->second;
    out.account_group[a.id.value] = firm_group[it->second];
  }
  for (const InstrumentInfo& info : config.instruments) {
    if (info.kind != exchange::InstrumentKind::kFuture) continue;
    if (auto day = ParseDay(info.last_trading_day)) {
      out.never_restated_days.push_back(*day);
    }
  }
  std::sort(out.never_restated_days.begin(), out.never_restated_days.end());
  out.never_restated_days.erase(std::unique(out.never_restated_days.begin(),
                                            out.never_restated_days.end()),
                                out.never_restated_days.end());
  return out;
}

}  // namespace cfx::gateway
