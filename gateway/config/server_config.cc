#include "gateway/config/server_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>

#include "cfx/config/v1/config.pb.h"
#include "gateway/config/config_builder.h"
#include "gateway/config/demo_identities.h"

namespace cfx::gateway {

std::string_view RoleName(Role role) {
  // By Role value, from kNone.
  static constexpr std::string_view kNames[] = {
      "none",          "trader",   "provider", "clearing-member",
      "rating-agency", "attester", "admin",
  };
  static_assert(std::size(kNames) ==
                static_cast<std::size_t>(Role::kAdmin) + 1);
  const auto i = static_cast<std::size_t>(role);
  return i < std::size(kNames) ? kNames[i] : "none";
}

std::string_view ApiKeyKindName(ApiKeyKind kind) {
  return kind == ApiKeyKind::kEd25519 ? "ed25519" : "hmac-sha256";
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

namespace {

namespace pb = ::cfx::config::v1;
using google::protobuf::TextFormat;

constexpr size_t kMaxConfigBytes = 64u << 20;

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
  return config_internal::Builder(config, tree, filename).Build();
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
  auto config = ParseServerConfig(text, path);
  if (config.has_value()) MarkDemoIdentities(config.value());
  return config;
}

Result<ServerConfig> DefaultServerConfig() {
  auto config = ParseServerConfig(EmbeddedDefaultConfigText(),
                                  "<built-in exchange.textproto>");
  if (config.has_value()) {
    for (UserConfig& u : config.value().users) u.demo = true;
  }
  return config;
}

}  // namespace cfx::gateway
