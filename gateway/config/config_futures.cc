// The grades and futures sections of the config: products and their monthly
// contracts.
#include <cstdio>

#include "exchange/text_format.h"
#include "gateway/config/config_builder.h"
#include "gateway/config/instrument_table.h"

namespace cfx::gateway::config_internal {

Status Builder::BuildGrades() {
  for (int i = 0; i < in_.grades_size(); ++i) {
    const pb::Grade& g = in_.grades(i);
    const size_t idx = static_cast<size_t>(i);
    const FieldPath path = Root().Field("grades", idx);
    CFX_RETURN_IF_ERROR(
        CheckNewName(grades_, "grades", idx, g.name(), "grade"));
    GradeInfo info;
    info.name = g.name();
    info.hardware = g.hardware();
    if (g.gpu_model().empty()) {
      return Error(path.Field("gpu_model"), "gpu_model is required");
    }
    info.gpu_model = g.gpu_model();
    info.gpus_per_node =
        g.has_gpus_per_node() ? g.gpus_per_node() : kDefaultGpusPerNode;
    if (info.gpus_per_node == 0 || info.gpus_per_node > 1'024) {
      return Error(path.Field("gpus_per_node"), "must be in 1-1024");
    }
    if (g.min_rating() == pb::RATING_TIER_UNSPECIFIED) {
      return Error(path.Field("min_rating"), "min_rating is required");
    }
    if (g.min_rating() < pb::RATING_TIER_PLATINUM ||
        g.min_rating() > pb::RATING_TIER_UNDERPERFORM) {
      return Error(path.Field("min_rating"),
                   "unknown rating tier " + std::to_string(g.min_rating()));
    }
    info.min_rating = static_cast<RatingTier>(g.min_rating());
    if (g.min_output_tokens_per_s_per_gpu() == 0) {
      return Error(path.Field("min_output_tokens_per_s_per_gpu"),
                   "must be > 0");
    }
    info.min_output_tokens_per_s_per_gpu = g.min_output_tokens_per_s_per_gpu();
    if (g.recipe().empty()) {
      return Error(path.Field("recipe"), "recipe is required");
    }
    info.recipe = g.recipe();
    if (g.max_attestation_age_days() == 0) {
      return Error(path.Field("max_attestation_age_days"), "must be > 0");
    }
    info.max_attestation_age_days = g.max_attestation_age_days();
    if (g.region().empty()) {
      return Error(path.Field("region"), "region is required");
    }
    info.region = g.region();
    Result<exchange::Price> ref =
        ParsePrice(path.Field("initial_reference"), g.initial_reference());
    if (!ref.has_value()) return ref.error();
    info.initial_reference = ref.value();
    out_.grades.push_back(std::move(info));
  }
  return Status::Ok();
}

Status Builder::BuildFutures() {
  const exchange::EngineLimits& limits = out_.engine.limits;
  std::unordered_map<std::string, size_t> roots;
  for (int i = 0; i < in_.futures_size(); ++i) {
    const pb::FuturesRoot& f = in_.futures(i);
    const size_t idx = static_cast<size_t>(i);
    const FieldPath path = Root().Field("futures", idx);
    if (!f.root().empty() && !IsRoot(f.root())) {
      return Error(path.Field("root"),
                   Quote(f.root()) +
                       " is not a root (1-8 upper-case letters and digits)");
    }
    CFX_RETURN_IF_ERROR(
        CheckNewName(roots, "futures", idx, f.root(), "root", "root"));
    const auto grade_it = grades_.find(f.grade());
    if (f.grade().empty())
      return Error(path.Field("grade"), "grade is required");
    if (grade_it == grades_.end()) {
      return Error(path.Field("grade"), "unknown grade " + Quote(f.grade()));
    }
    const GradeInfo& grade = out_.grades[grade_it->second];
    int year = 0, month = 0;
    if (!ParseYearMonth(f.first_month(), &year, &month)) {
      return Error(path.Field("first_month"),
                   Quote(f.first_month()) +
                       " is not a month \"YYYY-MM\" (years 2000-2199)");
    }
    const uint32_t months = f.has_months() ? f.months() : kDefaultMonths;
    if (months == 0 || months > kMaxMonths) {
      return Error(path.Field("months"), "must be in 1-" +
                                             std::to_string(kMaxMonths) +
                                             ", got " + std::to_string(months));
    }
    const uint32_t gpu_hours = f.has_contract_gpu_hours()
                                   ? f.contract_gpu_hours()
                                   : kDefaultContractGpuHours;
    if (gpu_hours == 0) {
      return Error(path.Field("contract_gpu_hours"), "must be > 0");
    }
    exchange::InstrumentConfig ic;
    ic.kind = exchange::InstrumentKind::kFuture;
    ic.tick = exchange::Price{kDefaultTickUnits};
    if (!f.tick().empty()) {
      Result<exchange::Price> tick = ParsePrice(path.Field("tick"), f.tick());
      if (!tick.has_value()) return tick.error();
      ic.tick = tick.value();
    }
    CFX_RETURN_IF_ERROR(MaxPrice(path, f.max_price(), &ic));
    ic.reference_price = grade.initial_reference;
    if (ic.reference_price.units % ic.tick.units != 0) {
      return Error(path.Field("tick"),
                   exchange::FormatPriceShort(ic.tick) +
                       " does not divide the initial_reference " +
                       exchange::FormatPriceShort(ic.reference_price) +
                       " of grade " + Quote(grade.name));
    }
    if (ic.reference_price > ic.max_price) {
      return Error(path.Field("max_price"),
                   exchange::FormatPriceShort(ic.max_price) +
                       " is below the initial_reference " +
                       exchange::FormatPriceShort(ic.reference_price) +
                       " of grade " + Quote(grade.name));
    }
    CFX_RETURN_IF_ERROR(OrderBounds(path, f, &ic));
    ic.position_limit = exchange::Quantity{f.position_limit()};
    ic.gpu_hours_per_lot = gpu_hours;
    ic.initial_state = exchange::InstrumentState::kOpen;
    ic.grade = static_cast<uint32_t>(grade_it->second);
    // Initial margin: one group per root, in config order.
    ic.margin_group = static_cast<uint32_t>(idx) + 1;

    for (uint32_t k = 0; k < months; ++k) {
      const uint64_t id = out_.instruments.size() + 1;
      if (id >= limits.max_instruments) {
        return ErrorAtLine(LimitLine(in_.limits().max_instruments() != 0,
                                     "max_instruments", path),
                           Root().Field("limits").Field("max_instruments"),
                           std::to_string(limits.max_instruments) +
                               " is too small: instrument ids reach " +
                               std::to_string(id) + " at root " +
                               Quote(f.root()) +
                               " (max_instruments must exceed the highest id)");
      }
      ic.id = exchange::InstrumentId{static_cast<uint32_t>(id)};
      ic.maturity_month = year * 12 + month - 1;
      InstrumentInfo info;
      info.id = ic.id;
      info.kind = exchange::InstrumentKind::kFuture;
      info.symbol =
          f.root() + kMonthCodes[month - 1] + std::to_string(year % 10);
      info.grade = grade.name;
      info.root = f.root();
      info.contract_gpu_hours = gpu_hours;
      char maturity[16];
      std::snprintf(maturity, sizeof maturity, "%04d-%02d", year, month);
      info.maturity = maturity;
      info.last_trading_day = FormatDay(out_.calendar.LastOfMonth(year, month));
      out_.instruments.push_back(std::move(info));
      out_.engine.instruments.push_back(ic);
      root_of_instrument_.push_back(idx);
      if (++month > 12) {
        month = 1;
        ++year;
      }
    }
  }
  return Status::Ok();
}

Status Builder::MaxPrice(const FieldPath& path, const std::string& text,
                         exchange::InstrumentConfig* ic) const {
  ic->max_price = exchange::Price{kDefaultMaxPriceUnits};
  if (!text.empty()) {
    Result<exchange::Price> max = ParsePrice(path.Field("max_price"), text);
    if (!max.has_value()) return max.error();
    ic->max_price = max.value();
  }
  if (ic->max_price.units % ic->tick.units != 0) {
    return Error(path.Field("max_price"),
                 exchange::FormatPriceShort(ic->max_price) +
                     " is not a multiple of the tick " +
                     exchange::FormatPriceShort(ic->tick));
  }
  return Status::Ok();
}

}  // namespace cfx::gateway::config_internal
