// The spot section of the config, and the engine's reference view of grades
// and provider firms.
#include <map>

#include "exchange/text_format.h"
#include "gateway/config/config_builder.h"

namespace cfx::gateway::config_internal {

Status Builder::BuildSpot() {
  const exchange::EngineLimits& limits = out_.engine.limits;
  const pb::Spot& sp = in_.spot();
  const FieldPath path = Root().Field("spot");
  SpotConfig& out = out_.spot;
  out.listing_days = sp.has_listing_days() ? sp.listing_days() : 7;
  if (out.listing_days == 0 || out.listing_days > 30) {
    return Error(path.Field("listing_days"), "must be in 1-30");
  }
  if (!sp.failure_deadline().empty()) {
    int64_t t = 0;
    if (!ParseHourMinute(sp.failure_deadline(), &t)) {
      return Error(
          path.Field("failure_deadline"),
          Quote(sp.failure_deadline()) + " is not a time of day \"HH:MM\"");
    }
    out.failure_deadline_seconds = t;
  }
  out_.engine.spot_failure_deadline_ns =
      out.failure_deadline_seconds * 1'000'000'000;
  exchange::InstrumentConfig ic;
  ic.kind = exchange::InstrumentKind::kSpot;
  ic.tick = exchange::Price{kDefaultTickUnits};
  CFX_RETURN_IF_ERROR(MaxPrice(path, sp.max_price(), &ic));
  CFX_RETURN_IF_ERROR(OrderBounds(path, sp, &ic));
  ic.initial_state = exchange::InstrumentState::kNone;
  for (size_t g = 0; g < out_.grades.size(); ++g) {
    const GradeInfo& grade = out_.grades[g];
    ic.grade = static_cast<uint32_t>(g);
    ic.gpu_hours_per_lot = int64_t{grade.gpus_per_node} * 24;
    ic.reference_price = grade.initial_reference;
    if (ic.reference_price.units % ic.tick.units != 0 ||
        ic.reference_price > ic.max_price) {
      return Error(Root().Field("grades", g).Field("initial_reference"),
                   exchange::FormatPriceShort(ic.reference_price) +
                       " is not a spot price on the $0.01 tick up to " +
                       exchange::FormatPriceShort(ic.max_price));
    }
    out.first_slot.push_back(exchange::InstrumentId{
        static_cast<uint32_t>(out_.instruments.size() + 1)});
    for (uint32_t k = 0; k <= out.listing_days; ++k) {
      const uint64_t id = out_.instruments.size() + 1;
      if (id >= limits.max_instruments) {
        return Error(Root().Field("limits").Field("max_instruments"),
                     std::to_string(limits.max_instruments) +
                         " is too small: the spot slots of grade " +
                         Quote(grade.name) + " reach instrument id " +
                         std::to_string(id));
      }
      ic.id = exchange::InstrumentId{static_cast<uint32_t>(id)};
      InstrumentInfo info;
      info.id = ic.id;
      info.kind = exchange::InstrumentKind::kSpot;
      info.grade = grade.name;
      info.grade_index = static_cast<uint32_t>(g);
      info.spot_slot = true;
      info.contract_gpu_hours = ic.gpu_hours_per_lot;
      out_.instruments.push_back(std::move(info));
      out_.engine.instruments.push_back(ic);
      root_of_instrument_.push_back(static_cast<size_t>(-1));
    }
  }
  return Status::Ok();
}

Status Builder::BuildReference() {
  exchange::ReferenceConfig& ref = out_.engine.reference;
  for (const GradeInfo& g : out_.grades) {
    exchange::ReferenceGrade rg;
    rg.name = g.name;
    rg.gpu_model = g.gpu_model;
    rg.gpus_per_node = g.gpus_per_node;
    rg.min_tier = g.min_rating;
    rg.min_output_milli_tokens_per_s_per_gpu =
        uint64_t{g.min_output_tokens_per_s_per_gpu} * 1'000;
    rg.recipe = g.recipe;
    rg.max_attestation_age_ns =
        int64_t{g.max_attestation_age_days} * 86'400 * 1'000'000'000;
    ref.grades.push_back(std::move(rg));
  }
  if (ref.grades.size() > exchange::kMaxGrades) {
    return Error(Root().Field("grades"),
                 "at most " + std::to_string(exchange::kMaxGrades) + " grades");
  }
  // A provider firm lists capacity from one trading account.
  std::map<std::string, exchange::AccountId> providers;
  for (size_t i = 0; i < out_.users.size(); ++i) {
    const UserConfig& u = out_.users[i];
    if (u.role != Role::kProvider) continue;
    auto [it, added] = providers.emplace(u.firm, u.account);
    if (!added && it->second != u.account) {
      return Error(Root().Field("users", i).Field("account"),
                   "provider firm " + Quote(u.firm) +
                       " already lists capacity from another account; a "
                       "provider firm has one trading account");
    }
  }
  for (const auto& [firm, account] : providers) {
    ref.providers.push_back(exchange::ReferenceProvider{firm, account});
  }
  return Status::Ok();
}

}  // namespace cfx::gateway::config_internal
