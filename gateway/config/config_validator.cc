// The config builder's order of sections, its error messages and shared
// checks, and the engine's final validation pointed back at the config.
#include <charconv>
#include <optional>

#include "gateway/config/config_builder.h"

namespace cfx::gateway::config_internal {

constexpr size_t kMaxNameBytes = 64;

std::string Quote(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

bool IsName(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (char c : s) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

bool IsRoot(std::string_view s) {
  if (s.empty() || s.size() > 8) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

namespace {

// Parses exactly `width` decimal digits.
bool ParseDigits(std::string_view s, size_t width, int* out) {
  if (s.size() != width) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() &&
         s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

bool ParseYearMonth(std::string_view s, int* year, int* month) {
  return s.size() == 7 && s[4] == '-' && ParseDigits(s.substr(0, 4), 4, year) &&
         ParseDigits(s.substr(5, 2), 2, month) && *year >= 2000 &&
         *year <= 2199 && *month >= 1 && *month <= 12;
}

bool ParseHourMinute(std::string_view s, int64_t* seconds) {
  int h = 0, m = 0;
  if (s.size() != 5 || s[2] != ':' || !ParseDigits(s.substr(0, 2), 2, &h) ||
      !ParseDigits(s.substr(3, 2), 2, &m) || h > 23 || m > 59) {
    return false;
  }
  *seconds = int64_t{h} * 3600 + int64_t{m} * 60;
  return true;
}

Result<ServerConfig> Builder::Build() {
  CFX_RETURN_IF_ERROR(BuildNetwork());
  CFX_RETURN_IF_ERROR(BuildClock());
  CFX_RETURN_IF_ERROR(BuildIndex());
  CFX_RETURN_IF_ERROR(BuildCalendar());
  BuildLimitsAndSession();
  CFX_RETURN_IF_ERROR(BuildFirms());
  CFX_RETURN_IF_ERROR(BuildClearingMembers());
  CFX_RETURN_IF_ERROR(BuildGrades());
  CFX_RETURN_IF_ERROR(BuildFutures());
  CFX_RETURN_IF_ERROR(BuildSpot());
  CFX_RETURN_IF_ERROR(BuildAccounts());
  CFX_RETURN_IF_ERROR(BuildUsers());
  CFX_RETURN_IF_ERROR(BuildReference());
  CFX_RETURN_IF_ERROR(CheckEngine());
  out_.RebuildIndex();
  return std::move(out_);
}

Status Builder::ErrorAtLine(int line, const FieldPath& path,
                            std::string_view message) const {
  std::string m = filename_;
  m += ':';
  m += std::to_string(line > 0 ? line : 1);
  m += ": ";
  m += path.ToString();
  m += ": ";
  m += message;
  return InvalidArgumentError(std::move(m));
}

Status Builder::Error(const FieldPath& path, std::string_view message) const {
  return ErrorAtLine(path.Line(tree_), path, message);
}

Status Builder::CheckNewName(std::unordered_map<std::string, size_t>& seen,
                             std::string_view list, size_t index,
                             std::string_view name, std::string_view what,
                             std::string_view field) const {
  const FieldPath path = Root().Field(list, index).Field(field);
  if (name.empty()) return Error(path, std::string(field) + " is required");
  if (!IsName(name)) {
    return Error(path, Quote(name) +
                           " is not a name (1-64 printable ASCII characters, "
                           "no blanks)");
  }
  const auto [it, inserted] = seen.emplace(std::string(name), index);
  if (!inserted) {
    return Error(
        path, "duplicate " + std::string(what) + " " + Quote(name) +
                  " (first at line " +
                  std::to_string(Root().Field(list, it->second).Line(tree_)) +
                  ")");
  }
  return Status::Ok();
}

int Builder::LimitLine(bool limit_set, std::string_view limit,
                       const FieldPath& entry) const {
  return limit_set ? Root().Field("limits").Field(limit).Line(tree_)
                   : entry.Line(tree_);
}

Status Builder::CheckFirm(const FieldPath& path, std::string_view firm) const {
  if (firm.empty()) return Error(path, "firm is required");
  if (firms_.find(std::string(firm)) == firms_.end()) {
    return Error(path, "unknown firm " + Quote(firm));
  }
  return Status::Ok();
}

Result<exchange::Price> Builder::ParsePrice(const FieldPath& path,
                                            std::string_view text) const {
  if (text.empty()) return Error(path, "a USD price is required");
  const std::optional<int64_t> units =
      internal::ParseFixedDecimal(text, kPriceDecimals);
  if (!units.has_value()) {
    return Error(path, Quote(text) +
                           " is not a USD decimal with at most 4 decimals "
                           "(e.g. \"5.80\")");
  }
  if (*units <= 0) return Error(path, "must be > 0");
  return exchange::Price{*units};
}

Status Builder::CheckEngine() const {
  const Status s = exchange::ValidateEngineConfig(out_.engine);
  if (s.ok()) return s;
  const std::string& m = s.message();
  const std::string text = "rejected by the engine: " + m;
  auto number_after = [&m](std::string_view prefix) -> std::optional<size_t> {
    if (m.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    size_t n = 0;
    const char* begin = m.data() + prefix.size();
    const auto [ptr, ec] = std::from_chars(begin, m.data() + m.size(), n);
    if (ec != std::errc() || ptr == begin) return std::nullopt;
    return n;
  };
  if (const auto n = number_after("instrument ");
      n.has_value() && *n >= 1 && *n <= root_of_instrument_.size() &&
      root_of_instrument_[*n - 1] != static_cast<size_t>(-1)) {
    return Error(Root().Field("futures", root_of_instrument_[*n - 1]),
                 out_.instruments[*n - 1].symbol + ": " + text);
  }
  if (const auto n = number_after("account ");
      n.has_value() && *n >= 1 && *n <= out_.accounts.size()) {
    return Error(Root().Field("accounts", *n - 1), text);
  }
  FieldPath path = Root().Field("limits");
  if (m.compare(0, 7, "limits.") == 0) {
    const size_t end = m.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", 7);
    path = path.Field(m.substr(7, end - 7));
  }
  return Error(path, text);
}

}  // namespace cfx::gateway::config_internal
