#include "gateway/config/server_config.h"

#include <arpa/inet.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>

#include "cfx/config/v1/config.pb.h"
#include "exchange/clock.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/password.h"

namespace cfx::gateway {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kTrader:
      return "trader";
    case Role::kProvider:
      return "provider";
    case Role::kClearingMember:
      return "clearing-member";
    case Role::kRatingAgency:
      return "rating-agency";
    case Role::kAttester:
      return "attester";
    case Role::kAdmin:
      return "admin";
    case Role::kNone:
      break;
  }
  return "none";
}

// ---------------------------------------------------------------------------
// ServerConfig lookups.

namespace {

template <typename Map>
const typename Map::mapped_type* Lookup(const Map& map, std::string_view key) {
  const auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

template <typename T, typename Map>
const T* ByIndex(const std::vector<T>& items, const Map& map,
                 std::string_view key) {
  const size_t* i = Lookup(map, key);
  return i == nullptr || *i >= items.size() ? nullptr : &items[*i];
}

}  // namespace

const InstrumentInfo* ServerConfig::FindInstrument(
    std::string_view symbol) const {
  return ByIndex(instruments, instrument_by_symbol_, symbol);
}

const InstrumentInfo* ServerConfig::instrument(
    exchange::InstrumentId id) const {
  if (id.value == 0 || id.value > instruments.size()) return nullptr;
  const InstrumentInfo& info = instruments[id.value - 1];
  return info.id == id ? &info : nullptr;
}

const AccountInfo* ServerConfig::account(exchange::AccountId id) const {
  if (id.value == 0 || id.value > accounts.size()) return nullptr;
  const AccountInfo& info = accounts[id.value - 1];
  return info.id == id ? &info : nullptr;
}

const AccountInfo* ServerConfig::FindAccount(std::string_view name) const {
  return ByIndex(accounts, account_by_name_, name);
}

const UserConfig* ServerConfig::FindUserByName(std::string_view name) const {
  return ByIndex(users, user_by_name_, name);
}

const UserConfig* ServerConfig::FindUserByApiKey(std::string_view key_id,
                                                 const ApiKey** key) const {
  if (key != nullptr) *key = nullptr;
  const auto* found = Lookup(api_key_, key_id);
  if (found == nullptr || found->first >= users.size()) return nullptr;
  const UserConfig& user = users[found->first];
  if (found->second >= user.api_keys.size()) return nullptr;
  if (key != nullptr) *key = &user.api_keys[found->second];
  return &user;
}

const UserConfig* ServerConfig::FindUserBySenderCompId(
    std::string_view id) const {
  return ByIndex(users, user_by_sender_comp_id_, id);
}

const GradeInfo* ServerConfig::FindGrade(std::string_view name) const {
  return ByIndex(grades, grade_by_name_, name);
}

const FirmInfo* ServerConfig::FindFirm(std::string_view name) const {
  return ByIndex(firms, firm_by_name_, name);
}

const ClearingMemberInfo* ServerConfig::FindClearingMember(
    std::string_view name) const {
  return ByIndex(clearing_members, clearing_member_by_name_, name);
}

void ServerConfig::RebuildIndex() {
  auto build = [](NameIndex& by_name, const auto& items, auto key) {
    by_name.clear();
    by_name.reserve(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string& k = key(items[i]);
      if (!k.empty()) by_name.emplace(k, i);  // first wins
    }
  };
  build(instrument_by_symbol_, instruments,
        [](const InstrumentInfo& x) -> const std::string& { return x.symbol; });
  build(account_by_name_, accounts,
        [](const AccountInfo& x) -> const std::string& { return x.name; });
  build(user_by_name_, users,
        [](const UserConfig& x) -> const std::string& { return x.name; });
  build(user_by_sender_comp_id_, users,
        [](const UserConfig& x) -> const std::string& {
          return x.fix_sender_comp_id;
        });
  build(grade_by_name_, grades,
        [](const GradeInfo& x) -> const std::string& { return x.name; });
  build(firm_by_name_, firms,
        [](const FirmInfo& x) -> const std::string& { return x.name; });
  build(
      clearing_member_by_name_, clearing_members,
      [](const ClearingMemberInfo& x) -> const std::string& { return x.name; });
  api_key_.clear();
  for (size_t u = 0; u < users.size(); ++u) {
    for (size_t k = 0; k < users[u].api_keys.size(); ++k) {
      api_key_.emplace(users[u].api_keys[k].id, std::make_pair(u, k));
    }
  }
}

// ---------------------------------------------------------------------------
// Helpers.

namespace internal {

std::optional<int64_t> ParseFixedDecimal(std::string_view text, int decimals) {
  if (decimals < 0 || decimals > 9) return std::nullopt;
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if (whole.empty()) return std::nullopt;
  if (dot != std::string_view::npos &&
      (frac.empty() || frac.size() > static_cast<size_t>(decimals))) {
    return std::nullopt;
  }
  int64_t value = 0;
  auto push = [&value](char c) {
    if (c < '0' || c > '9') return false;
    return !__builtin_mul_overflow(value, int64_t{10}, &value) &&
           !__builtin_add_overflow(value, int64_t{c - '0'}, &value);
  };
  for (char c : whole) {
    if (!push(c)) return std::nullopt;
  }
  for (char c : frac) {
    if (!push(c)) return std::nullopt;
  }
  for (size_t i = frac.size(); i < static_cast<size_t>(decimals); ++i) {
    if (!push('0')) return std::nullopt;
  }
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace internal

namespace {

namespace pb = ::cfx::config::v1;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::TextFormat;

constexpr uint32_t kDefaultMaxOrders = 1u << 20;
constexpr uint32_t kDefaultMaxAccounts = 1'024;
constexpr uint32_t kDefaultMaxInstruments = 256;
constexpr uint32_t kDefaultMonths = 12;
constexpr uint32_t kMaxMonths = 36;
constexpr uint32_t kDefaultContractGpuHours = 730;
constexpr int64_t kDefaultTickUnits = 100;  // $0.01
constexpr int64_t kDefaultMaxPriceUnits = 100 * exchange::kPriceUnitsPerUsd;
constexpr uint32_t kDefaultMinQuantity = 1;
constexpr uint32_t kDefaultMaxQuantity = 1'000;
constexpr uint32_t kDefaultBandBps = 1'000;
constexpr uint32_t kDefaultMarketBandBps = 500;
constexpr uint32_t kDefaultGpusPerNode = 8;
constexpr size_t kMinApiSecretBytes = 8;
constexpr size_t kMaxNameBytes = 64;
constexpr int kPriceDecimals = 4;   // 1/10,000 USD grid
constexpr int kAmountDecimals = 6;  // micro-dollars
constexpr size_t kMaxConfigBytes = 64u << 20;
constexpr std::string_view kExchangeCompId = "CFX";
constexpr char kMonthCodes[] = "FGHJKMNQUVXZ";

// Remembers the first error the text-format parser reports.
class FirstErrorCollector final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (has_error_) return;
    has_error_ = true;
    line_ = line;
    column_ = column;
    message_ = message;
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}

  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = -1;
  int column_ = -1;
  std::string message_;
};

// A field from the root message, e.g. users[3].account: printed in errors and
// looked up in the parser's ParseInfoTree for its line.
class FieldPath {
 public:
  FieldPath Field(std::string_view name) const { return With(name, -1); }
  FieldPath Field(std::string_view name, size_t index) const {
    return With(name, static_cast<int>(index));
  }

  std::string ToString() const {
    std::string out;
    for (const Step& s : steps_) {
      if (!out.empty()) out += '.';
      out += s.name;
      if (s.index >= 0) {
        out += '[';
        out += std::to_string(s.index);
        out += ']';
      }
    }
    return out;
  }

  // 1-based line of the deepest step found in `tree`; 0 if none is.
  int Line(const TextFormat::ParseInfoTree& root) const {
    const Descriptor* desc = pb::ExchangeConfig::descriptor();
    const TextFormat::ParseInfoTree* tree = &root;
    int line = -1;
    for (const Step& s : steps_) {
      const FieldDescriptor* fd =
          desc == nullptr ? nullptr : desc->FindFieldByName(s.name);
      if (fd == nullptr || tree == nullptr) break;
      if (fd->is_repeated() != (s.index >= 0)) break;
      const TextFormat::ParseLocation loc = tree->GetLocation(fd, s.index);
      if (loc.line < 0) break;
      line = loc.line;
      if (fd->message_type() == nullptr) break;
      tree = tree->GetTreeForNested(fd, s.index);
      desc = fd->message_type();
    }
    return line + 1;
  }

 private:
  struct Step {
    std::string name;
    int index;  // -1 for a singular field
  };
  FieldPath With(std::string_view name, int index) const {
    FieldPath p = *this;
    p.steps_.push_back(Step{std::string(name), index});
    return p;
  }
  std::vector<Step> steps_;
};

std::string Quote(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

// Names of firms, users, accounts, ...: 1-64 printable ASCII bytes, no blank.
bool IsName(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameBytes) return false;
  for (char c : s) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

// Futures roots: 1-8 upper-case letters or digits.
bool IsRoot(std::string_view s) {
  if (s.empty() || s.size() > 8) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// Parses exactly `width` decimal digits.
bool ParseDigits(std::string_view s, size_t width, int* out) {
  if (s.size() != width) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() &&
         s.find_first_not_of("0123456789") == std::string_view::npos;
}

// "YYYY-MM", years 2000-2199.
bool ParseYearMonth(std::string_view s, int* year, int* month) {
  return s.size() == 7 && s[4] == '-' && ParseDigits(s.substr(0, 4), 4, year) &&
         ParseDigits(s.substr(5, 2), 2, month) && *year >= 2000 &&
         *year <= 2199 && *month >= 1 && *month <= 12;
}

// "HH:MM", 00:00-23:59, as seconds after midnight.
bool ParseHourMinute(std::string_view s, int64_t* seconds) {
  int h = 0, m = 0;
  if (s.size() != 5 || s[2] != ':' || !ParseDigits(s.substr(0, 2), 2, &h) ||
      !ParseDigits(s.substr(3, 2), 2, &m) || h > 23 || m > 59) {
    return false;
  }
  *seconds = int64_t{h} * 3600 + int64_t{m} * 60;
  return true;
}

std::string FormatUsd(int64_t units, int decimals) {
  int64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  std::string frac = std::to_string(units % scale);
  frac.insert(0, static_cast<size_t>(decimals) - frac.size(), '0');
  while (frac.size() > 2 && frac.back() == '0') frac.pop_back();
  return std::to_string(units / scale) + "." + frac;
}

std::string FormatPrice(exchange::Price p) {
  return FormatUsd(p.units, kPriceDecimals);
}

// Builds a ServerConfig from a parsed ExchangeConfig, checking everything.
class Builder {
 public:
  Builder(const pb::ExchangeConfig& in, const TextFormat::ParseInfoTree& tree,
          std::string_view filename)
      : in_(in), tree_(tree), filename_(filename) {}

  Result<ServerConfig> Build() {
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

 private:
  static FieldPath Root() { return FieldPath(); }

  // "<file>:<line>: <path>: <message>"; line 1 if the path is not in the file.
  Status ErrorAtLine(int line, const FieldPath& path,
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
  Status Error(const FieldPath& path, std::string_view message) const {
    return ErrorAtLine(path.Line(tree_), path, message);
  }

  // Requires `name`, field `field` of entry `index` of repeated field `list`,
  // to be a well-formed name of a `what` not in `seen`; adds it to `seen`.
  Status CheckNewName(std::unordered_map<std::string, size_t>& seen,
                      std::string_view list, size_t index,
                      std::string_view name, std::string_view what,
                      std::string_view field = "name") const {
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

  // Where a capacity error goes: the limit's line if the file sets it, else
  // the line of the entry that exceeds the default.
  int LimitLine(bool limit_set, std::string_view limit,
                const FieldPath& entry) const {
    return limit_set ? Root().Field("limits").Field(limit).Line(tree_)
                     : entry.Line(tree_);
  }

  Status BuildNetwork() {
    const pb::Network& n = in_.network();
    const FieldPath net = Root().Field("network");
    NetworkConfig& out = out_.network;
    if (!n.bind_address().empty()) {
      unsigned char buf[16];
      const char* address = n.bind_address().c_str();
      const bool is_ip = inet_pton(AF_INET, address, buf) == 1 ||
                         inet_pton(AF_INET6, address, buf) == 1;
      if (!is_ip || n.bind_address().find('\0') != std::string::npos) {
        return Error(
            net.Field("bind_address"),
            Quote(n.bind_address()) + " is not an IPv4 or IPv6 address");
      }
      out.bind_address = n.bind_address();
    }
    struct Port {
      const char* name;
      bool has;
      uint32_t value;
      uint16_t* out;
    };
    Port ports[] = {
        {"fix_port", n.has_fix_port(), n.fix_port(), &out.fix_port},
        {"protobuf_port", n.has_protobuf_port(), n.protobuf_port(),
         &out.protobuf_port},
        {"http_port", n.has_http_port(), n.http_port(), &out.http_port},
    };
    for (Port& p : ports) {
      if (!p.has) continue;
      if (p.value == 0 || p.value > 65'535) {
        return Error(net.Field(p.name),
                     "port must be in 1-65535, got " + std::to_string(p.value));
      }
      *p.out = static_cast<uint16_t>(p.value);
    }
    for (size_t j = 1; j < std::size(ports); ++j) {
      for (size_t i = 0; i < j; ++i) {
        if (*ports[i].out != *ports[j].out) continue;
        // Blame an explicitly set port: the later one if both are.
        const Port& blame = ports[j].has ? ports[j] : ports[i];
        const Port& other = ports[j].has ? ports[i] : ports[j];
        return Error(net.Field(blame.name), "port " +
                                                std::to_string(*blame.out) +
                                                " is also the " + other.name);
      }
    }
    return Status::Ok();
  }

  // Each holiday a weekday date, listed once.
  Status BuildCalendar() {
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
        return Error(
            at,
            "duplicate holiday " + Quote(text) + " (first at line " +
                std::to_string(path.Field("holiday", it->second).Line(tree_)) +
                ")");
      }
      days.push_back(*day);
    }
    out_.calendar = settlement::BusinessCalendar(std::move(days));
    return Status::Ok();
  }

  Status BuildClock() {
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
      Result<exchange::Timestamp> start =
          exchange::ParseUtcTimestamp(c.start());
      if (!start.has_value()) {
        return Error(clock.Field("start"), start.error().message());
      }
      out_.clock.start = start.value();
    }
    if (!c.session_end().empty() &&
        !ParseHourMinute(c.session_end(),
                         &out_.clock.session_end_utc_seconds)) {
      return Error(clock.Field("session_end"),
                   Quote(c.session_end()) +
                       " is not a UTC time of day \"HH:MM\" (00:00-23:59)");
    }
    return Status::Ok();
  }

  Status BuildIndex() {
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

  void BuildLimitsAndSession() {
    const pb::Limits& l = in_.limits();
    exchange::EngineLimits& out = out_.engine.limits;
    out.max_orders = l.max_orders() != 0 ? l.max_orders() : kDefaultMaxOrders;
    out.max_accounts =
        l.max_accounts() != 0 ? l.max_accounts() : kDefaultMaxAccounts;
    out.max_instruments =
        l.max_instruments() != 0 ? l.max_instruments() : kDefaultMaxInstruments;
    if (l.max_client_order_ids() != 0) {
      out.max_client_order_ids = l.max_client_order_ids();
    }
    const pb::Session& s = in_.session();
    SessionPolicy& session = out_.session;
    if (s.max_messages_per_second() != 0) {
      session.max_messages_per_second = s.max_messages_per_second();
    }
    if (s.logon_window_seconds() != 0) {
      session.logon_window_seconds = s.logon_window_seconds();
    }
    if (s.default_heartbeat_ms() != 0) {
      session.default_heartbeat_ms = s.default_heartbeat_ms();
    }
    if (s.max_sessions() != 0) session.max_sessions = s.max_sessions();
    if (in_.journal().snapshot_every() != 0) {
      out_.snapshot_every = in_.journal().snapshot_every();
    }
  }

  Status BuildFirms() {
    for (int i = 0; i < in_.firms_size(); ++i) {
      const pb::Firm& f = in_.firms(i);
      const FieldPath path = Root().Field("firms", static_cast<size_t>(i));
      CFX_RETURN_IF_ERROR(CheckNewName(firms_, "firms", static_cast<size_t>(i),
                                       f.name(), "firm"));
      out_.firms.push_back(FirmInfo{f.name(), f.affiliation_group()});
    }
    return Status::Ok();
  }

  // `firm` must name a configured firm.
  Status CheckFirm(const FieldPath& path, std::string_view firm) const {
    if (firm.empty()) return Error(path, "firm is required");
    if (firms_.find(std::string(firm)) == firms_.end()) {
      return Error(path, "unknown firm " + Quote(firm));
    }
    return Status::Ok();
  }

  Status BuildClearingMembers() {
    for (int i = 0; i < in_.clearing_members_size(); ++i) {
      const pb::ClearingMember& cm = in_.clearing_members(i);
      const size_t idx = static_cast<size_t>(i);
      const FieldPath path = Root().Field("clearing_members", idx);
      CFX_RETURN_IF_ERROR(CheckNewName(clearing_members_, "clearing_members",
                                       idx, cm.name(), "clearing member"));
      CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), cm.firm()));
      const auto [it, inserted] = cm_by_firm_.emplace(cm.firm(), cm.name());
      if (!inserted) {
        return Error(path.Field("firm"), "firm " + Quote(cm.firm()) +
                                             " already is clearing member " +
                                             Quote(it->second));
      }
      out_.clearing_members.push_back(ClearingMemberInfo{cm.name(), cm.firm()});
    }
    return Status::Ok();
  }

  Status BuildGrades() {
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
      info.min_output_tokens_per_s_per_gpu =
          g.min_output_tokens_per_s_per_gpu();
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

  // A positive USD price on the 1/10,000 grid.
  Result<exchange::Price> ParsePrice(const FieldPath& path,
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

  Status BuildFutures() {
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
        return Error(path.Field("months"),
                     "must be in 1-" + std::to_string(kMaxMonths) + ", got " +
                         std::to_string(months));
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
                     FormatPrice(ic.tick) +
                         " does not divide the initial_reference " +
                         FormatPrice(ic.reference_price) + " of grade " +
                         Quote(grade.name));
      }
      if (ic.reference_price > ic.max_price) {
        return Error(path.Field("max_price"),
                     FormatPrice(ic.max_price) +
                         " is below the initial_reference " +
                         FormatPrice(ic.reference_price) + " of grade " +
                         Quote(grade.name));
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
          return ErrorAtLine(
              LimitLine(in_.limits().max_instruments() != 0, "max_instruments",
                        path),
              Root().Field("limits").Field("max_instruments"),
              std::to_string(limits.max_instruments) +
                  " is too small: instrument ids reach " + std::to_string(id) +
                  " at root " + Quote(f.root()) +
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
        info.last_trading_day =
            FormatDay(out_.calendar.LastOfMonth(year, month));
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

  // ic->max_price from `text` (empty = $100.00), a multiple of ic->tick.
  Status MaxPrice(const FieldPath& path, const std::string& text,
                  exchange::InstrumentConfig* ic) const {
    ic->max_price = exchange::Price{kDefaultMaxPriceUnits};
    if (!text.empty()) {
      Result<exchange::Price> max = ParsePrice(path.Field("max_price"), text);
      if (!max.has_value()) return max.error();
      ic->max_price = max.value();
    }
    if (ic->max_price.units % ic->tick.units != 0) {
      return Error(path.Field("max_price"),
                   FormatPrice(ic->max_price) +
                       " is not a multiple of the tick " +
                       FormatPrice(ic->tick));
    }
    return Status::Ok();
  }

  // Quantity bounds and price bands of a FuturesRoot or the Spot section
  // (the same field names in both).
  template <typename M>
  Status OrderBounds(const FieldPath& path, const M& m,
                     exchange::InstrumentConfig* ic) const {
    const uint32_t min_q =
        m.has_min_quantity() ? m.min_quantity() : kDefaultMinQuantity;
    const uint32_t max_q =
        m.has_max_quantity() ? m.max_quantity() : kDefaultMaxQuantity;
    if (min_q == 0) return Error(path.Field("min_quantity"), "must be >= 1");
    if (max_q < min_q) {
      return Error(
          path.Field(m.has_max_quantity() ? "max_quantity" : "min_quantity"),
          "need min_quantity " + std::to_string(min_q) + " <= max_quantity " +
              std::to_string(max_q));
    }
    ic->min_quantity = exchange::Quantity{min_q};
    ic->max_quantity = exchange::Quantity{max_q};
    const uint32_t band =
        m.has_price_band_bps() ? m.price_band_bps() : kDefaultBandBps;
    if (band == 0 || band >= 10'000) {
      return Error(path.Field("price_band_bps"), "must be in 1-9999");
    }
    const uint32_t market_band =
        m.has_market_band_bps() ? m.market_band_bps() : kDefaultMarketBandBps;
    if (market_band == 0 || market_band >= 10'000) {
      return Error(path.Field("market_band_bps"), "must be in 1-9999");
    }
    ic->band_bps = static_cast<int32_t>(band);
    ic->market_band_bps = static_cast<int32_t>(market_band);
    return Status::Ok();
  }

  // listing_days + 1 spot slots per grade, after the futures.
  Status BuildSpot() {
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
                     FormatPrice(ic.reference_price) +
                         " is not a spot price on the $0.01 tick up to " +
                         FormatPrice(ic.max_price));
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

  // The engine's view of grades and providers (ratings, attestations).
  Status BuildReference() {
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
      return Error(
          Root().Field("grades"),
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

  Status BuildAccounts() {
    const exchange::EngineLimits& limits = out_.engine.limits;
    for (int i = 0; i < in_.accounts_size(); ++i) {
      const pb::Account& a = in_.accounts(i);
      const size_t idx = static_cast<size_t>(i);
      const FieldPath path = Root().Field("accounts", idx);
      CFX_RETURN_IF_ERROR(
          CheckNewName(accounts_, "accounts", idx, a.name(), "account"));
      CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), a.firm()));
      if (a.clearing_member().empty()) {
        return Error(path.Field("clearing_member"),
                     "clearing_member is required");
      }
      if (clearing_members_.find(a.clearing_member()) ==
          clearing_members_.end()) {
        return Error(path.Field("clearing_member"),
                     "unknown clearing member " + Quote(a.clearing_member()));
      }
      AccountInfo info;
      info.id = exchange::AccountId{static_cast<uint32_t>(idx + 1)};
      if (info.id.value >= limits.max_accounts) {
        return ErrorAtLine(
            LimitLine(in_.limits().max_accounts() != 0, "max_accounts", path),
            Root().Field("limits").Field("max_accounts"),
            std::to_string(limits.max_accounts) +
                " is too small: account ids reach " +
                std::to_string(info.id.value) + " at account " +
                Quote(a.name()) + " (max_accounts must exceed the highest id)");
      }
      info.name = a.name();
      info.firm = a.firm();
      info.clearing_member = a.clearing_member();
      if (!a.collateral().empty()) {
        const std::optional<int64_t> micros =
            internal::ParseFixedDecimal(a.collateral(), kAmountDecimals);
        if (!micros.has_value()) {
          return Error(path.Field("collateral"),
                       Quote(a.collateral()) +
                           " is not a USD decimal with at most 6 decimals "
                           "(e.g. \"10000000.00\")");
        }
        info.collateral = exchange::Amount{*micros};
      }
      switch (a.stp_mode()) {
        case pb::STP_MODE_UNSPECIFIED:
        case pb::STP_MODE_CANCEL_NEWEST:
          info.stp = exchange::StpMode::kCancelNewest;
          break;
        case pb::STP_MODE_CANCEL_OLDEST:
          info.stp = exchange::StpMode::kCancelOldest;
          break;
        case pb::STP_MODE_CANCEL_BOTH:
          info.stp = exchange::StpMode::kCancelBoth;
          break;
        case pb::STP_MODE_DECREMENT:
          info.stp = exchange::StpMode::kDecrement;
          break;
        default:
          return Error(path.Field("stp_mode"),
                       "unknown stp_mode " + std::to_string(a.stp_mode()));
      }
      out_.engine.accounts.push_back(
          exchange::AccountConfig{info.id, info.stp, info.collateral});
      out_.accounts.push_back(std::move(info));
    }
    return Status::Ok();
  }

  Status BuildUsers() {
    std::unordered_map<std::string, size_t> users;
    std::unordered_map<std::string, std::string> sender_comp_ids;  // -> user
    std::unordered_map<std::string, std::string> api_keys;         // -> user
    for (int i = 0; i < in_.users_size(); ++i) {
      const pb::User& u = in_.users(i);
      const size_t idx = static_cast<size_t>(i);
      const FieldPath path = Root().Field("users", idx);
      CFX_RETURN_IF_ERROR(CheckNewName(users, "users", idx, u.name(), "user"));
      CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), u.firm()));
      UserConfig user;
      user.name = u.name();
      user.firm = u.firm();
      const FieldPath role_path = path.Field("role");
      if (u.role() == pb::ROLE_UNSPECIFIED) {
        return Error(role_path, "role is required");
      }
      if (u.role() < pb::ROLE_TRADER || u.role() > pb::ROLE_ADMIN) {
        return Error(role_path, "unknown role " + std::to_string(u.role()));
      }
      user.role = static_cast<Role>(u.role());
      const FieldPath account_path = path.Field("account");
      const bool trades =
          user.role == Role::kTrader || user.role == Role::kProvider;
      if (trades) {
        if (u.account().empty()) {
          return Error(account_path, "a " + std::string(RoleName(user.role)) +
                                         " needs a trading account");
        }
        const auto it = accounts_.find(u.account());
        if (it == accounts_.end()) {
          return Error(account_path, "unknown account " + Quote(u.account()));
        }
        const AccountInfo& account = out_.accounts[it->second];
        if (account.firm != user.firm) {
          return Error(account_path,
                       "account " + Quote(account.name) + " belongs to firm " +
                           Quote(account.firm) + ", not " + Quote(user.firm));
        }
        user.account = account.id;
      } else if (!u.account().empty()) {
        return Error(account_path,
                     "only traders and providers have a trading account "
                     "(role " +
                         std::string(RoleName(user.role)) + ")");
      }
      if (user.role == Role::kClearingMember) {
        const auto it = cm_by_firm_.find(user.firm);
        if (it == cm_by_firm_.end()) {
          return Error(path.Field("firm"),
                       "firm " + Quote(user.firm) +
                           " is not the firm of any clearing member");
        }
        user.clearing_member = it->second;
      }
      if (!u.fix_sender_comp_id().empty()) {
        const FieldPath p = path.Field("fix_sender_comp_id");
        if (!IsName(u.fix_sender_comp_id())) {
          return Error(p, Quote(u.fix_sender_comp_id()) +
                              " is not a CompID (1-64 printable ASCII "
                              "characters, no blanks)");
        }
        if (u.fix_sender_comp_id() == kExchangeCompId) {
          return Error(p, "\"CFX\" is the exchange's own CompID");
        }
        const auto [it, inserted] =
            sender_comp_ids.emplace(u.fix_sender_comp_id(), u.name());
        if (!inserted) {
          return Error(p, "duplicate FIX SenderCompID " +
                              Quote(u.fix_sender_comp_id()) + " (also user " +
                              Quote(it->second) + ")");
        }
        user.fix_sender_comp_id = u.fix_sender_comp_id();
      }
      if (!u.password_hash().empty()) {
        if (!IsWellFormedPasswordHash(u.password_hash())) {
          return Error(path.Field("password_hash"),
                       "malformed password hash; expected "
                       "\"pbkdf2-sha256$<iterations>$<salt hex>$<32-byte "
                       "hash hex>\"");
        }
        user.password_hash = u.password_hash();
      }
      for (int k = 0; k < u.api_keys_size(); ++k) {
        const pb::ApiKey& key = u.api_keys(k);
        const FieldPath kp = path.Field("api_keys", static_cast<size_t>(k));
        if (key.id().empty()) return Error(kp.Field("id"), "id is required");
        if (!IsName(key.id())) {
          return Error(kp.Field("id"),
                       Quote(key.id()) +
                           " is not a key id (1-64 printable ASCII "
                           "characters, no blanks)");
        }
        const auto [it, inserted] = api_keys.emplace(key.id(), u.name());
        if (!inserted) {
          return Error(kp.Field("id"), "duplicate API key id " +
                                           Quote(key.id()) + " (also user " +
                                           Quote(it->second) + ")");
        }
        if (key.secret().size() < kMinApiSecretBytes) {
          return Error(kp.Field("secret"),
                       key.secret().empty()
                           ? std::string("secret is required")
                           : "secret must be at least " +
                                 std::to_string(kMinApiSecretBytes) + " bytes");
        }
        user.api_keys.push_back(ApiKey{key.id(), key.secret()});
      }
      out_.users.push_back(std::move(user));
    }
    return Status::Ok();
  }

  // Runs exchange::ValidateEngineConfig and points its error at the config.
  Status CheckEngine() const {
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

  const pb::ExchangeConfig& in_;
  const TextFormat::ParseInfoTree& tree_;
  std::string filename_;
  ServerConfig out_;
  // Name -> index of the entry, for references and duplicates.
  std::unordered_map<std::string, size_t> firms_;
  std::unordered_map<std::string, size_t> clearing_members_;
  std::unordered_map<std::string, size_t> grades_;
  std::unordered_map<std::string, size_t> accounts_;
  std::unordered_map<std::string, std::string> cm_by_firm_;  // firm -> member
  std::vector<size_t> root_of_instrument_;  // instrument id - 1 -> futures[i]
};

// Byte offset of the tokenizer's 0-based (line, column), where a tab
// advances the column to the next multiple of 8; text.size() if past the end.
size_t OffsetOf(std::string_view text, int line, int column) {
  size_t i = 0;
  for (int l = 0; l < line; ++l) {
    i = text.find('\n', i);
    if (i == std::string_view::npos) return text.size();
    ++i;
  }
  for (int c = 0; i < text.size() && text[i] != '\n'; ++i) {
    c = text[i] == '\t' ? c + 8 - c % 8 : c + 1;
    if (c > column) break;
  }
  return i;
}

// The tokenizer's 0-based (line, column) of byte `offset`.
void PositionOf(std::string_view text, size_t offset, int* line, int* column) {
  *line = 0;
  *column = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++*line;
      *column = 0;
    } else {
      *column = text[i] == '\t' ? *column + 8 - *column % 8 : *column + 1;
    }
  }
}

bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

// The parser reports an unknown field name, an unknown enum value or a
// repeated singular field at the token after it (for an enum value at the end
// of a line, on the next line). Moves (line, column) back to the last
// occurrence of the quoted name before it, so the error points at the culprit.
void PointAtCulprit(std::string_view text, const std::string& message,
                    int* line, int* column) {
  static constexpr std::string_view kPatterns[] = {
      "has no field named \"", "Unknown enumeration value of \"",
      "Non-repeated field \""};
  for (std::string_view pattern : kPatterns) {
    const size_t p = message.find(pattern);
    if (p == std::string::npos) continue;
    const size_t start = p + pattern.size();
    const size_t end = message.find('"', start);
    if (end == std::string::npos || end == start) return;
    const std::string_view name =
        std::string_view(message).substr(start, end - start);
    const size_t limit = OffsetOf(text, *line, *column);
    if (limit < name.size()) return;
    for (size_t at = text.rfind(name, limit - name.size());
         at != std::string_view::npos;
         at = at == 0 ? std::string_view::npos : text.rfind(name, at - 1)) {
      const size_t after = at + name.size();
      if ((at == 0 || !IsTokenChar(text[at - 1])) &&
          (after >= text.size() || !IsTokenChar(text[after]))) {
        PositionOf(text, at, line, column);
        return;
      }
    }
    return;
  }
}

}  // namespace

Result<ServerConfig> ParseServerConfig(std::string_view text,
                                       std::string_view filename) {
  pb::ExchangeConfig config;
  TextFormat::ParseInfoTree tree;
  FirstErrorCollector errors;
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(std::string(text), &config)) {
    std::string m(filename);
    if (errors.has_error()) {
      int line = errors.line();
      int column = errors.column();
      PointAtCulprit(text, errors.message(), &line, &column);
      m += ':';
      m += std::to_string(line + 1);
      m += ':';
      m += std::to_string(column + 1);
      m += ": ";
      m += errors.message();
    } else {
      m += ": not a valid cfx.config.v1.ExchangeConfig";
    }
    return InvalidArgumentError(std::move(m));
  }
  return Builder(config, tree, filename).Build();
}

Result<ServerConfig> LoadServerConfig(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return NotFoundError(path + ": cannot open: " + std::strerror(errno));
  }
  std::string text;
  char buf[1 << 16];
  bool failed = false;
  for (;;) {
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    text.append(buf, n);
    if (text.size() > kMaxConfigBytes) break;
    if (n < sizeof buf) {
      failed = std::ferror(f) != 0;
      break;
    }
  }
  const int read_errno = errno;
  std::fclose(f);
  if (failed) {
    return InvalidArgumentError(path +
                                ": cannot read: " + std::strerror(read_errno));
  }
  if (text.size() > kMaxConfigBytes) {
    return InvalidArgumentError(path + ": larger than " +
                                std::to_string(kMaxConfigBytes >> 20) + " MiB");
  }
  return ParseServerConfig(text, path);
}

Result<ServerConfig> DefaultServerConfig() {
  return ParseServerConfig(EmbeddedDefaultConfigText(),
                           "<built-in exchange.textproto>");
}

}  // namespace cfx::gateway
