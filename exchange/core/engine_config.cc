#include "exchange/core/engine_config.h"

#include <string>
#include <utility>
#include <vector>

namespace cfx::exchange {
namespace {

std::string InstrumentName(const InstrumentConfig& c) {
  return "instrument " + std::to_string(c.id.value);
}

// The fields of one instrument that need no other instrument: kind, tick and
// price range, quantities, bands, GPU-hours, initial state and grade.
Status ValidateInstrumentFields(const InstrumentConfig& c,
                                const EngineConfig& config) {
  const std::string n = InstrumentName(c);
  if (c.kind != InstrumentKind::kSpot && c.kind != InstrumentKind::kFuture) {
    return InvalidArgumentError(n + ": kind must be spot or future");
  }
  if (c.tick.units <= 0) return InvalidArgumentError(n + ": tick must be > 0");
  if (c.max_price.units <= 0 || c.max_price.units % c.tick.units != 0) {
    return InvalidArgumentError(
        n + ": max_price must be a positive multiple of tick");
  }
  const int64_t levels = c.max_price.units / c.tick.units;
  if (levels > (1 << 22)) {
    return InvalidArgumentError(n +
                                ": max_price / tick must be <= 2^22 levels");
  }
  if (c.reference_price.units <= 0 || c.reference_price > c.max_price) {
    return InvalidArgumentError(n +
                                ": reference_price must be in (0, max_price]");
  }
  if (c.min_quantity.lots < 1 || c.max_quantity < c.min_quantity) {
    return InvalidArgumentError(n + ": need 1 <= min_quantity <= max_quantity");
  }
  if (c.max_quantity.lots > (int64_t{1} << 40)) {
    return InvalidArgumentError(n + ": max_quantity must be <= 2^40");
  }
  if (c.position_limit.lots < 0) {
    return InvalidArgumentError(n + ": position_limit must be >= 0");
  }
  if (c.band_bps <= 0 || c.band_bps >= 10'000) {
    return InvalidArgumentError(n + ": band_bps must be in (0, 10000)");
  }
  if (c.market_band_bps <= 0 || c.market_band_bps >= 10'000) {
    return InvalidArgumentError(n + ": market_band_bps must be in (0, 10000)");
  }
  if (c.gpu_hours_per_lot <= 0) {
    return InvalidArgumentError(n + ": gpu_hours_per_lot must be > 0");
  }
  if ((c.initial_state == InstrumentState::kNone &&
       c.kind != InstrumentKind::kSpot) ||
      static_cast<uint8_t>(c.initial_state) >
          static_cast<uint8_t>(InstrumentState::kExpired)) {
    return InvalidArgumentError(n + ": initial_state is not a state");
  }
  if (c.grade >= kMaxGrades || (!config.reference.grades.empty() &&
                                c.grade >= config.reference.grades.size())) {
    return InvalidArgumentError(n + ": grade is not a configured grade");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateEngineConfig(const EngineConfig& config) {
  const EngineLimits& l = config.limits;
  if (l.max_orders == 0 || l.max_orders > (1u << 30)) {
    return InvalidArgumentError("limits.max_orders must be in [1, 2^30]");
  }
  if (l.max_accounts < 2 || l.max_accounts > (1u << 20)) {
    return InvalidArgumentError("limits.max_accounts must be in [2, 2^20]");
  }
  if (l.max_instruments < 2 || l.max_instruments > (1u << 16)) {
    return InvalidArgumentError("limits.max_instruments must be in [2, 65536]");
  }
  if (l.max_client_order_ids == 0 || l.max_client_order_ids > (1u << 30)) {
    return InvalidArgumentError(
        "limits.max_client_order_ids must be in [1, 2^30]");
  }
  if (static_cast<uint64_t>(l.max_accounts) * l.max_instruments > (1u << 26)) {
    return InvalidArgumentError(
        "limits.max_accounts * limits.max_instruments must be <= 2^26");
  }
  if (config.margin.initial_margin_bp < 0 ||
      config.margin.initial_margin_bp > 10'000) {
    return InvalidArgumentError(
        "margin.initial_margin_bp must be in [0, 10000]");
  }
  if (config.margin.spread_credit_bp < 0 ||
      config.margin.spread_credit_bp > 10'000) {
    return InvalidArgumentError(
        "margin.spread_credit_bp must be in [0, 10000]");
  }
  std::vector<bool> seen(l.max_instruments, false);
  // (margin group, maturity month) of the margined instruments so far.
  std::vector<std::pair<uint32_t, int32_t>> margined;
  uint64_t total_levels = 0;
  for (const InstrumentConfig& c : config.instruments) {
    const std::string n = InstrumentName(c);
    if (c.id.value == 0 || c.id.value >= l.max_instruments) {
      return InvalidArgumentError(n + ": id must be in [1, max_instruments)");
    }
    if (seen[c.id.value]) return InvalidArgumentError(n + ": duplicate id");
    seen[c.id.value] = true;
    CFX_RETURN_IF_ERROR(ValidateInstrumentFields(c, config));
    total_levels += static_cast<uint64_t>(c.max_price.units / c.tick.units);
    if (c.margin_group != 0) {
      if (c.kind != InstrumentKind::kFuture) {
        return InvalidArgumentError(
            n + ": margin_group must be 0 on a spot instrument");
      }
      for (const auto& [group, month] : margined) {
        if (group == c.margin_group && month == c.maturity_month) {
          return InvalidArgumentError(
              n +
              ": another instrument has the same margin_group and "
              "maturity_month");
        }
      }
      if (margined.size() == kMaxMarginLegs) {
        return InvalidArgumentError(n + ": more than " +
                                    std::to_string(kMaxMarginLegs) +
                                    " instruments with a margin_group");
      }
      margined.emplace_back(c.margin_group, c.maturity_month);
    }
  }
  if (total_levels > (uint64_t{1} << 26)) {
    return InvalidArgumentError(
        "sum of max_price / tick over instruments must be <= 2^26");
  }
  std::vector<bool> seen_account(l.max_accounts, false);
  for (const AccountConfig& a : config.accounts) {
    const std::string n = "account " + std::to_string(a.id.value);
    if (a.id.value == 0 || a.id.value >= l.max_accounts) {
      return InvalidArgumentError(n + ": id must be in [1, max_accounts)");
    }
    if (seen_account[a.id.value])
      return InvalidArgumentError(n + ": duplicate id");
    seen_account[a.id.value] = true;
    if (a.stp == StpMode::kAccountDefault ||
        static_cast<uint8_t>(a.stp) >
            static_cast<uint8_t>(StpMode::kDecrement)) {
      return InvalidArgumentError(n + ": stp must be a concrete mode");
    }
    if (a.collateral.micros < 0) {
      return InvalidArgumentError(n + ": collateral must be >= 0");
    }
  }
  if (config.reference.grades.size() > kMaxGrades) {
    return InvalidArgumentError("at most " + std::to_string(kMaxGrades) +
                                " grades");
  }
  for (const ReferenceProvider& p : config.reference.providers) {
    if (p.account.value == 0 || p.account.value >= l.max_accounts ||
        !seen_account[p.account.value]) {
      return InvalidArgumentError("provider " + p.firm +
                                  ": account is not a configured account");
    }
  }
  return Status::Ok();
}

}  // namespace cfx::exchange
