// The clock, index (fixing window) and calendar (settlement business days)
// sections of the config.
#include <map>
#include <optional>

#include "exchange/clock.h"
#include "gateway/config/config_builder.h"
#include "gateway/config/instrument_table.h"

namespace cfx::gateway::config_internal {

Status Builder::BuildClock() {
  const pb::Clock& c = in_.clock();
  const FieldPath clock = Root().Field("clock");
  if (c.kind() == "simulated") {
    out_.clock.simulated = true;
  } else if (c.kind().empty() || c.kind() == "wall") {
    out_.clock.simulated = false;
  } else {
    return Error(clock.Field("kind"),
                 "must be \"wall\" or \"simulated\", got " + Quote(c.kind()));
  }
  if (!c.start().empty()) {
    Result<exchange::Timestamp> start = exchange::ParseUtcTimestamp(c.start());
    if (!start.has_value()) {
      return Error(clock.Field("start"), start.error().message());
    }
    out_.clock.start = start.value();
  }
  if (!c.session_end().empty() &&
      !ParseHourMinute(c.session_end(), &out_.clock.session_end_utc_seconds)) {
    return Error(clock.Field("session_end"),
                 Quote(c.session_end()) +
                     " is not a UTC time of day \"HH:MM\" (00:00-23:59)");
  }
  return Status::Ok();
}

Status Builder::BuildIndex() {
  const pb::Index& x = in_.index();
  const FieldPath index = Root().Field("index");
  IndexSettings& out = out_.index;
  if (!x.fixing_time().empty() &&
      !ParseHourMinute(x.fixing_time(), &out.fixing_utc_seconds)) {
    return Error(index.Field("fixing_time"),
                 Quote(x.fixing_time()) +
                     " is not a UTC time of day \"HH:MM\" (00:00-23:59)");
  }
  if (!x.restatement_until().empty() &&
      !ParseHourMinute(x.restatement_until(),
                       &out.restatement_until_utc_seconds)) {
    return Error(index.Field("restatement_until"),
                 Quote(x.restatement_until()) +
                     " is not a UTC time of day \"HH:MM\" (00:00-23:59)");
  }
  if (out.restatement_until_utc_seconds < out.fixing_utc_seconds) {
    return Error(index.Field("restatement_until"),
                 "must not be before fixing_time");
  }
  return Status::Ok();
}

Status Builder::BuildCalendar() {
  const FieldPath path = Root().Field("calendar");
  std::map<int64_t, size_t> seen;  // day -> index of its first listing
  std::vector<int64_t> days;
  const auto& holidays = in_.calendar().holiday();
  for (int i = 0; i < holidays.size(); ++i) {
    const size_t index = static_cast<size_t>(i);
    const std::string& text = holidays[i];
    const FieldPath at = path.Field("holiday", index);
    const std::optional<int64_t> day = ParseDay(text);
    if (!day.has_value()) {
      return Error(at, Quote(text) +
                           " is not a date \"YYYY-MM-DD\" (1970-01-01 to "
                           "9999-12-31)");
    }
    if (!settlement::BusinessCalendar().IsBusinessDay(*day)) {
      return Error(at, Quote(text) +
                           " is a Saturday or Sunday, never a business day: "
                           "list the weekday the exchange closes instead");
    }
    const auto [it, inserted] = seen.emplace(*day, index);
    if (!inserted) {
      return Error(at, "duplicate holiday " + Quote(text) + " (first at line " +
                           std::to_string(
                               path.Field("holiday", it->second).Line(tree_)) +
                           ")");
    }
    days.push_back(*day);
  }
  out_.calendar = settlement::BusinessCalendar(std::move(days));
  return Status::Ok();
}

}  // namespace cfx::gateway::config_internal
