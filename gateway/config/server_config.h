#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"
#include "exchange/text_format.h"
#include "settlement/rules.h"

namespace cfx::gateway {

// Numbers equal cfx.wire.v1.Role and cfx.config.v1.Role.
enum class Role : uint8_t {
  kNone = 0,
  kTrader = 1,
  kProvider = 2,  // lists capacity; may also trade
  kClearingMember = 3,
  kRatingAgency = 4,
  kAttester = 5,
  kAdmin = 6,
};

// "trader", "provider", "clearing-member", "rating-agency", "attester",
// "admin"; "none" for kNone and anything else.
std::string_view RoleName(Role role);

// Operator rating tiers, best first: the registry's (reference_payload.h).
// Numbers equal cfx.config.v1.RatingTier and cfx.wire.v1.RatingTier.
using RatingTier = exchange::Tier;

// How a protobuf Logon with an API key is signed (docs/protocol.md, "Logon").
enum class ApiKeyKind : uint8_t {
  kHmacSha256,  // HMAC-SHA256 with a secret the exchange holds too
  kEd25519,     // Ed25519; the exchange holds only the public key
};

// "ed25519" or "hmac-sha256".
std::string_view ApiKeyKindName(ApiKeyKind kind);

// A protobuf order-entry credential: `id` is sent in the Logon. For
// kHmacSha256 `secret` is the HMAC key (never log it); for kEd25519
// `public_key` is the 32 raw bytes of the public key.
struct ApiKey {
  std::string id;
  std::string secret;
  ApiKeyKind kind = ApiKeyKind::kHmacSha256;
  std::string public_key;

  static ApiKey Hmac(std::string key_id, std::string hmac_secret) {
    return ApiKey{std::move(key_id), std::move(hmac_secret),
                  ApiKeyKind::kHmacSha256, {}};
  }
  static ApiKey Ed25519(std::string key_id, std::string raw_public_key) {
    return ApiKey{std::move(key_id), {}, ApiKeyKind::kEd25519,
                  std::move(raw_public_key)};
  }
};

struct UserConfig {
  std::string name;
  std::string firm;
  Role role = Role::kNone;
  // The trading account of a trader or provider; {0} = no trading account.
  exchange::AccountId account;
  // For kClearingMember users: the clearing member they act for (the one
  // whose firm is `firm`). Empty for other roles.
  std::string clearing_member;
  // Empty = no FIX access.
  std::string fix_sender_comp_id;
  // "pbkdf2-sha256$..." (password.h); empty = no password logon.
  std::string password_hash;
  std::vector<ApiKey> api_keys;
  // Logs on with the published credentials of a built-in demo user
  // (demo_identities.h): may only serve loopback addresses.
  bool demo = false;
};

struct AccountInfo {
  exchange::AccountId id;
  std::string name;
  std::string firm;
  std::string clearing_member;
  exchange::Amount collateral;  // initial collateral
  exchange::StpMode stp = exchange::StpMode::kCancelNewest;
};

struct FirmInfo {
  std::string name;
  std::string affiliation_group;  // empty = none
};

struct ClearingMemberInfo {
  std::string name;
  std::string firm;
};

// A grade (DESIGN.md §2).
struct GradeInfo {
  std::string name;
  std::string hardware;
  std::string gpu_model;
  uint32_t gpus_per_node = 8;
  RatingTier min_rating = RatingTier::kNone;
  uint32_t min_output_tokens_per_s_per_gpu = 0;
  std::string recipe;
  uint32_t max_attestation_age_days = 0;
  std::string region;
  exchange::Price initial_reference;
};

// A listed instrument with what lies outside the engine: symbol, grade and
// calendar. The engine's view is ServerConfig::engine.instruments[id - 1].
struct InstrumentInfo {
  exchange::InstrumentId id;
  std::string symbol;  // e.g. "XB2SZ6"
  exchange::InstrumentKind kind = exchange::InstrumentKind::kFuture;
  std::string grade;
  std::string root;  // futures root, e.g. "XB2S"
  int64_t contract_gpu_hours = 0;
  std::string maturity;          // "YYYY-MM"
  // "YYYY-MM-DD": the last business day of the month (ServerConfig::calendar)
  std::string last_trading_day;
  std::string delivery_date;     // spot: "YYYY-MM-DD", the UTC delivery day
  // Spot slots: the grade's index; the symbol and delivery date are those of
  // the slot's current listing (InstrumentTable), empty in the config.
  uint32_t grade_index = 0;
  bool spot_slot = false;
};

// Spot listing (DESIGN.md §2; config.proto Spot).
struct SpotConfig {
  uint32_t listing_days = 7;
  // Seconds after 00:00 UTC of the delivery day until which a delivery
  // failure may be reported. Default: 12:00.
  int64_t failure_deadline_seconds = 12 * 3600;
  // Per grade, in grade order: the id of its first spot slot; the grade's
  // slots are first .. first + listing_days.
  std::vector<exchange::InstrumentId> first_slot;
};

// The index (DESIGN.md §4; config.proto Index).
struct IndexSettings {
  int64_t fixing_utc_seconds = 21 * 3600;
  int64_t restatement_until_utc_seconds = 23 * 3600;
};

// The TLS listeners (config.proto Tls, docs/config.md "TLS").
struct TlsListenerConfig {
  std::string bind_address{};  // never empty once built
  // 0: no such TLS listener.
  uint16_t fix_port = 0;
  uint16_t protobuf_port = 0;
  uint16_t https_port = 0;
  // As written; relative ones are relative to the data dir.
  std::string certificate_file{};
  std::string private_key_file{};
  std::string client_ca_file{};  // empty: no client certificates
  bool skip_if_missing = false;
};

struct NetworkConfig {
  // The plaintext listeners.
  std::string bind_address = "127.0.0.1";
  uint16_t fix_port = 9878;
  uint16_t protobuf_port = 9879;
  uint16_t http_port = 9880;
  // Set: the config has a tls section.
  std::optional<TlsListenerConfig> tls{};
};

// 2026-12-01T00:00:00Z.
inline constexpr exchange::Timestamp kDefaultSimulatedStart{
    int64_t{1'796'083'200} * 1'000'000'000};

struct ClockConfig {
  bool simulated = false;
  // Start of the simulated clock. Default: 2026-12-01T00:00:00Z.
  exchange::Timestamp start = kDefaultSimulatedStart;
  // End of the trading day, seconds after 00:00 UTC. Default: 21:00.
  int64_t session_end_utc_seconds = 21 * 3600;
};

struct SessionPolicy {
  uint32_t max_messages_per_second = 50'000;
  uint32_t logon_window_seconds = 30;
  uint32_t default_heartbeat_ms = 5'000;
  // Logged-on sessions at once, per port.
  uint32_t max_sessions = 256;
  // Pre-logon connections (accepted, not logged on; HTTP: idle) per port:
  // the deadline to log on, the budget (the oldest is closed when it is
  // full) and the cap per source address (one more is refused).
  uint32_t pre_logon_timeout_ms = 3'000;
  uint32_t max_pre_logon = 64;
  uint32_t max_pre_logon_per_source = 8;
  // Protobuf resume: messages kept per account, and the most one resume
  // resends (docs/protocol.md).
  uint32_t resend_max_messages = 2'500;
};

// The validated exchange configuration (deploy/config/exchange.textproto,
// schema proto/cfx/config/v1/config.proto, docs/config.md).
//
// A plain value: copy and move freely; the lookups index into the vectors,
// so they stay valid in copies. Code that edits the vectors after parsing
// must call RebuildIndex(). Thread: const methods from any thread.
struct ServerConfig {
  exchange::EngineConfig engine;            // instruments and accounts, limits
  std::vector<InstrumentInfo> instruments;  // instruments[i].id.value == i + 1
  std::vector<GradeInfo> grades;
  std::vector<AccountInfo> accounts;  // accounts[i].id.value == i + 1
  std::vector<FirmInfo> firms;
  std::vector<ClearingMemberInfo> clearing_members;
  std::vector<UserConfig> users;
  NetworkConfig network;
  ClockConfig clock;
  SessionPolicy session;
  SpotConfig spot;
  IndexSettings index;
  // Business days: Monday to Friday minus the configured holidays
  // (config.proto Calendar). Default: no holidays.
  settlement::BusinessCalendar calendar;
  // Journal snapshot every N commands.
  uint64_t snapshot_every = 1'000'000;

  // nullptr if unknown. O(1).
  const InstrumentInfo* FindInstrument(std::string_view symbol) const;
  const InstrumentInfo* instrument(exchange::InstrumentId id) const;
  const AccountInfo* account(exchange::AccountId id) const;
  const AccountInfo* FindAccount(std::string_view name) const;
  const UserConfig* FindUserByName(std::string_view name) const;
  // The user holding API key `key_id`; stores the key in *key (if `key` is
  // not null). nullptr if none.
  const UserConfig* FindUserByApiKey(std::string_view key_id,
                                     const ApiKey** key) const;
  // The user with FIX SenderCompID `id`; nullptr if none.
  const UserConfig* FindUserBySenderCompId(std::string_view id) const;
  const GradeInfo* FindGrade(std::string_view name) const;
  const FirmInfo* FindFirm(std::string_view name) const;
  const ClearingMemberInfo* FindClearingMember(std::string_view name) const;

  // Rebuilds the name lookups from the vectors.
  void RebuildIndex();

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };
  using NameIndex =
      std::unordered_map<std::string, size_t, StringHash, std::equal_to<>>;
  NameIndex instrument_by_symbol_;
  NameIndex account_by_name_;
  NameIndex user_by_name_;
  NameIndex user_by_sender_comp_id_;
  std::unordered_map<std::string, std::pair<size_t, size_t>, StringHash,
                     std::equal_to<>>
      api_key_;  // key id -> (user index, key index)
  NameIndex grade_by_name_;
  NameIndex firm_by_name_;
  NameIndex clearing_member_by_name_;
};

// Parses text-format `text` against cfx.config.v1.ExchangeConfig, applies
// defaults and checks every name, reference and range. Errors are
// kInvalidArgument with the message
//   "<filename>:<line>: <field path>: <message>"
// e.g. `exchange.textproto:42: users[3].account: unknown account "FIRM-Z"`,
// or "<filename>:<line>:<column>: <parser message>" for a syntax error or an
// unknown field. Also runs exchange::ValidateEngineConfig.
Result<ServerConfig> ParseServerConfig(std::string_view text,
                                       std::string_view filename);

// Reads and parses the file at `path` (named as given in errors). Returns
// kNotFound if it cannot be opened, kInvalidArgument if it cannot be read or
// is invalid.
Result<ServerConfig> LoadServerConfig(const std::string& path);

// deploy/config/exchange.textproto as of the build.
std::string_view EmbeddedDefaultConfigText();

// Parses EmbeddedDefaultConfigText() (named "<built-in exchange.textproto>").
Result<ServerConfig> DefaultServerConfig();

namespace internal {

// Parses an unsigned decimal ("5", "5.8", "10000000.00") exactly into
// integer units of 10^-decimals: ParseFixedDecimal("5.80", 4) == 58'000
// (exchange/text_format.h, the one decimal reader).
using exchange::ParseFixedDecimal;

// Days since 1970-01-01 of a proleptic Gregorian date.
using exchange::DaysFromCivil;

}  // namespace internal

}  // namespace cfx::gateway
