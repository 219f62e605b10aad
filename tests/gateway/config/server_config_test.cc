#include "gateway/config/server_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "exchange/clock.h"
#include "gateway/config/demo_identities.h"
#include "gateway/crypto/ed25519.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/reference/registry.h"
#include "exchange/default_market.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/password.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway {
namespace {

using exchange::AccountId;
using exchange::InstrumentId;

// A small valid config. Error tests change one line and expect that line
// number in the message, so keep the line numbers in the comments in sync.
constexpr char kBase[] =
    R"cfg(network { fix_port: 19878 protobuf_port: 19879 http_port: 19880 }
clock { kind: "simulated" start: "2027-01-04T00:00:00Z" session_end: "20:30" }
limits { max_orders: 1000 max_accounts: 8 max_instruments: 16 }
grades {
  name: "G1"
  gpu_model: "NVIDIA B200"
  min_rating: RATING_TIER_GOLD
  min_output_tokens_per_s_per_gpu: 285
  recipe: "ref-8k1k-i100"
  max_attestation_age_days: 7
  region: "US"
  initial_reference: "6.40"
}
futures { root: "XG" grade: "G1" first_month: "2027-11" months: 3 }
firms { name: "F1" affiliation_group: "grp" }
firms { name: "F2" }
firms { name: "CM" }
clearing_members { name: "CM-X" firm: "CM" }
accounts { name: "A1" firm: "F1" clearing_member: "CM-X" collateral: "1.5" }
accounts { name: "A2" firm: "F2" clearing_member: "CM-X" stp_mode: STP_MODE_DECREMENT }
users {
  name: "u1"
  firm: "F1"
  role: ROLE_TRADER
  account: "A1"
  fix_sender_comp_id: "U1"
  password_hash: "pbkdf2-sha256$1$73616c74$55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
  api_keys { id: "k1" secret: "secret-1-random-0123456789abcdef" }
}
users {
  name: "u2"
  firm: "F2"
  role: ROLE_PROVIDER
  account: "A2"
  fix_sender_comp_id: "U2"
  api_keys { id: "k2" secret: "secret-2-random-0123456789abcdef" }
}
users { name: "cm" firm: "CM" role: ROLE_CLEARING_MEMBER fix_sender_comp_id: "CMX" }
users { name: "ops" firm: "F1" role: ROLE_ADMIN }
)cfg";
// Lines: 1 network, 2 clock, 3 limits, 4-13 grades[0] (7 min_rating, 12
// initial_reference), 14 futures[0], 15-17 firms, 18 clearing_members[0],
// 19-20 accounts, 21-29 users[0] (25 account, 27 password_hash, 28 api_keys),
// 30-37 users[1], 38 users[2], 39 users[3]; text appended starts at line 40.
// Instrument ids: 1-3 the futures XGX7, XGZ7, XGF8, then 4-11 the 8 spot
// slots of G1 (the default spot listing_days 7, plus one), so
// max_instruments must be at least 12.

// kBase with `from` (which must occur exactly once) replaced by `to`.
std::string With(std::string_view from, std::string_view to) {
  std::string text = kBase;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The error message of parsing `text` as "t.textproto".
std::string ErrorOf(const std::string& text) {
  Result<ServerConfig> r = ParseServerConfig(text, "t.textproto");
  if (r.has_value()) return "(parsed)";
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  return r.error().message();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const ServerConfig& Demo() {
  static const ServerConfig config = [] {
    Result<ServerConfig> r = DefaultServerConfig();
    EXPECT_TRUE(r.has_value()) << r.error().message();
    return r.has_value() ? std::move(r).value() : ServerConfig();
  }();
  return config;
}

// --- The shipped demo config -------------------------------------------------

TEST(ServerConfig, EmbeddedTextIsTheShippedFile) {
  EXPECT_EQ(EmbeddedDefaultConfigText(),
            ReadFile(CFX_SOURCE_DIR "/deploy/config/exchange.textproto"));
}

TEST(ServerConfig, ShippedFileLoads) {
  Result<ServerConfig> r =
      LoadServerConfig(CFX_SOURCE_DIR "/deploy/config/exchange.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  // 2 roots x 12 months of futures, then 2 grades x 8 spot slots.
  EXPECT_EQ(r.value().instruments.size(), 40u);
}

TEST(ServerConfig, DemoMarketEqualsDefaultMarket) {
  const exchange::DefaultMarket market = exchange::MakeDefaultMarket();
  const ServerConfig& c = Demo();
  ASSERT_EQ(c.engine.instruments.size(), market.engine.instruments.size());
  ASSERT_EQ(c.instruments.size(), market.engine.instruments.size());
  for (size_t i = 0; i < c.instruments.size(); ++i) {
    const exchange::InstrumentConfig& a = c.engine.instruments[i];
    const exchange::InstrumentConfig& b = market.engine.instruments[i];
    SCOPED_TRACE(market.symbols[i + 1]);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.id.value, i + 1);
    EXPECT_EQ(c.instruments[i].id, a.id);
    EXPECT_EQ(c.instruments[i].symbol, market.symbols[i + 1]);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.tick, b.tick);
    EXPECT_EQ(a.max_price, b.max_price);
    EXPECT_EQ(a.reference_price, b.reference_price);
    EXPECT_EQ(a.min_quantity, b.min_quantity);
    EXPECT_EQ(a.max_quantity, b.max_quantity);
    EXPECT_EQ(a.position_limit, b.position_limit);
    EXPECT_EQ(a.band_bps, b.band_bps);
    EXPECT_EQ(a.market_band_bps, b.market_band_bps);
    EXPECT_EQ(a.gpu_hours_per_lot, b.gpu_hours_per_lot);
    EXPECT_EQ(a.initial_state, b.initial_state);
    EXPECT_EQ(a.margin_group, b.margin_group);
    EXPECT_EQ(a.maturity_month, b.maturity_month);
  }
  ASSERT_EQ(c.accounts.size(), 6u);
  ASSERT_EQ(c.engine.accounts.size(), market.engine.accounts.size());
  for (size_t i = 0; i < c.accounts.size(); ++i) {
    EXPECT_EQ(c.accounts[i].id.value, i + 1);
    EXPECT_EQ(c.accounts[i].name, market.accounts[i + 1]);
    EXPECT_EQ(c.accounts[i].firm, market.accounts[i + 1]);
    EXPECT_EQ(c.accounts[i].collateral.micros,
              int64_t{10'000'000} * exchange::kMicrosPerUsd);
    EXPECT_EQ(c.accounts[i].stp, exchange::StpMode::kCancelNewest);
    EXPECT_EQ(c.engine.accounts[i].id, market.engine.accounts[i].id);
    EXPECT_EQ(c.engine.accounts[i].stp, market.engine.accounts[i].stp);
    EXPECT_EQ(c.engine.accounts[i].collateral,
              market.engine.accounts[i].collateral);
  }
  const char* cms[] = {"CM-1", "CM-1", "CM-2", "CM-2", "CM-2", "CM-1"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(c.accounts[i].clearing_member, cms[i]) << c.accounts[i].name;
  }
}

TEST(ServerConfig, DemoInstrumentCalendar) {
  const ServerConfig& c = Demo();
  const InstrumentInfo* z6 = c.FindInstrument("XB2SZ6");
  ASSERT_NE(z6, nullptr);
  EXPECT_EQ(z6->id.value, 1u);
  EXPECT_EQ(z6->kind, exchange::InstrumentKind::kFuture);
  EXPECT_EQ(z6->grade, "B200-STD");
  EXPECT_EQ(z6->root, "XB2S");
  EXPECT_EQ(z6->contract_gpu_hours, 730);
  EXPECT_EQ(z6->maturity, "2026-12");
  EXPECT_EQ(z6->last_trading_day, "2026-12-31");
  const InstrumentInfo* f7 = c.FindInstrument("XB2PF7");
  ASSERT_NE(f7, nullptr);
  EXPECT_EQ(f7->id.value, 14u);
  EXPECT_EQ(f7->grade, "B200-PRM");
  EXPECT_EQ(f7->maturity, "2027-01");
  EXPECT_EQ(f7->last_trading_day, "2027-01-29");  // the 31st is a Sunday
  const InstrumentInfo* x7 = c.FindInstrument("XB2PX7");
  ASSERT_NE(x7, nullptr);
  EXPECT_EQ(x7->id.value, 24u);
  EXPECT_EQ(x7->maturity, "2027-11");
  EXPECT_EQ(c.engine.instruments[23].reference_price.units, 64'000);
  // Initial margin: one group per root, the maturity as a month number;
  // spot slots are not margined.
  EXPECT_EQ(c.engine.instruments[0].margin_group, 1u);
  EXPECT_EQ(c.engine.instruments[0].maturity_month, 2026 * 12 + 11);
  EXPECT_EQ(c.engine.instruments[13].margin_group, 2u);  // XB2PF7
  EXPECT_EQ(c.engine.instruments[13].maturity_month, 2027 * 12 + 0);
  EXPECT_EQ(c.engine.instruments[24].margin_group, 0u);  // first spot slot
}

TEST(ServerConfig, DemoGrades) {
  const ServerConfig& c = Demo();
  ASSERT_EQ(c.grades.size(), 2u);
  const GradeInfo* std_grade = c.FindGrade("B200-STD");
  ASSERT_NE(std_grade, nullptr);
  EXPECT_EQ(std_grade->gpu_model, "NVIDIA B200");
  EXPECT_EQ(std_grade->hardware, "NVIDIA B200 SXM 180 GB, 8-GPU HGX node");
  EXPECT_EQ(std_grade->gpus_per_node, 8u);
  EXPECT_EQ(std_grade->min_rating, RatingTier::kBronze);
  EXPECT_EQ(std_grade->min_output_tokens_per_s_per_gpu, 200u);
  EXPECT_EQ(std_grade->recipe, "ref-8k1k-i100");
  EXPECT_EQ(std_grade->max_attestation_age_days, 30u);
  EXPECT_EQ(std_grade->region, "US");
  EXPECT_EQ(std_grade->initial_reference.units, 58'000);
  const GradeInfo* prm = c.FindGrade("B200-PRM");
  ASSERT_NE(prm, nullptr);
  EXPECT_EQ(prm->min_rating, RatingTier::kGold);
  EXPECT_EQ(prm->min_output_tokens_per_s_per_gpu, 285u);
  EXPECT_EQ(prm->max_attestation_age_days, 7u);
  EXPECT_EQ(prm->initial_reference.units, 64'000);
  EXPECT_EQ(c.FindGrade("B300-STD"), nullptr);
}

TEST(ServerConfig, DemoServerSettings) {
  const ServerConfig& c = Demo();
  EXPECT_EQ(c.network.bind_address, "127.0.0.1");
  EXPECT_EQ(c.network.fix_port, 9878);
  EXPECT_EQ(c.network.protobuf_port, 9879);
  EXPECT_EQ(c.network.http_port, 9880);
  EXPECT_FALSE(c.clock.simulated);
  EXPECT_EQ(c.clock.start,
            exchange::ParseUtcTimestamp("2026-12-01T00:00:00Z").value());
  EXPECT_EQ(c.clock.session_end_utc_seconds, 21 * 3600);
  EXPECT_EQ(c.engine.limits.max_orders, 1u << 20);
  EXPECT_EQ(c.engine.limits.max_accounts, 1'024u);
  EXPECT_EQ(c.engine.limits.max_instruments, 256u);
  EXPECT_EQ(c.session.max_messages_per_second, 50'000u);
  EXPECT_EQ(c.snapshot_every, 1'000'000u);
  ASSERT_EQ(c.firms.size(), 11u);
  ASSERT_EQ(c.clearing_members.size(), 2u);
  EXPECT_EQ(c.FindClearingMember("CM-2")->firm, "CM-2");
}

TEST(ServerConfig, DemoUsersMatchDesign) {
  struct Expected {
    const char* name;
    const char* firm;
    Role role;
    uint32_t account;
    const char* clearing_member;
    const char* comp_id;
  };
  const Expected expected[] = {
      {"trader-a", "FIRM-A", Role::kTrader, 1, "CM-1", "TRADER_A"},
      {"trader-b", "FIRM-B", Role::kTrader, 2, "CM-1", "TRADER_B"},
      {"trader-c", "FIRM-C", Role::kTrader, 3, "CM-2", "TRADER_C"},
      {"provider-a", "PROV-A", Role::kProvider, 4, "CM-2", "PROVIDER_A"},
      {"provider-b", "PROV-B", Role::kProvider, 5, "CM-2", "PROVIDER_B"},
      {"provider-c", "PROV-C", Role::kProvider, 6, "CM-1", "PROVIDER_C"},
      {"clear-1", "CM-1", Role::kClearingMember, 0, "CM-1", "CLEAR_1"},
      {"clear-2", "CM-2", Role::kClearingMember, 0, "CM-2", "CLEAR_2"},
      {"rater", "RATER", Role::kRatingAgency, 0, "", "RATER"},
      {"attester", "ATTEST", Role::kAttester, 0, "", "ATTESTER"},
      {"admin", "CFX", Role::kAdmin, 0, "", "ADMIN"},
  };
  const ServerConfig& c = Demo();
  ASSERT_EQ(c.users.size(), std::size(expected));
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.name);
    const UserConfig* u = c.FindUserByName(e.name);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->firm, e.firm);
    EXPECT_EQ(u->role, e.role);
    EXPECT_EQ(u->account.value, e.account);
    if (e.account != 0) {
      EXPECT_EQ(c.account(u->account)->clearing_member, e.clearing_member);
    } else {
      EXPECT_EQ(u->clearing_member, e.clearing_member);
    }
    EXPECT_EQ(u->fix_sender_comp_id, e.comp_id);
    EXPECT_EQ(c.FindUserBySenderCompId(e.comp_id), u);
    const std::string password = std::string("demo-") + e.name;
    EXPECT_TRUE(u->password_hash.rfind("pbkdf2-sha256$100000$", 0) == 0);
    EXPECT_TRUE(VerifyPassword(u->password_hash, password));
    ASSERT_EQ(u->api_keys.size(), 1u);
    const ApiKey* key = nullptr;
    EXPECT_EQ(c.FindUserByApiKey(e.name, &key), u);
    ASSERT_NE(key, nullptr);
    EXPECT_EQ(key->id, e.name);
    EXPECT_EQ(key->kind, ApiKeyKind::kEd25519);
    EXPECT_EQ(key->public_key,
              crypto::PublicKeyOf(DemoPrivateKey(e.name)).value());
  }
}

TEST(ServerConfig, DemoSaltsDiffer) {
  const ServerConfig& c = Demo();
  for (size_t i = 0; i < c.users.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      // "pbkdf2-sha256$100000$" is 21 bytes, then 32 hex digits of salt.
      EXPECT_NE(c.users[i].password_hash.substr(21, 32),
                c.users[j].password_hash.substr(21, 32));
    }
  }
}

TEST(ServerConfig, DemoSpotSlotsAndReference) {
  const ServerConfig& c = Demo();
  EXPECT_EQ(c.spot.listing_days, 7u);
  ASSERT_EQ(c.spot.first_slot.size(), 2u);
  EXPECT_EQ(c.spot.first_slot[0], InstrumentId{25});  // after the 24 futures
  EXPECT_EQ(c.spot.first_slot[1], InstrumentId{33});
  EXPECT_EQ(c.instruments[24].grade, "B200-STD");
  EXPECT_EQ(c.instruments[32].grade, "B200-PRM");
  EXPECT_EQ(c.engine.instruments[32].reference_price.units, 64'000);
  const exchange::ReferenceConfig& ref = c.engine.reference;
  ASSERT_EQ(ref.grades.size(), 2u);
  EXPECT_EQ(ref.grades[0].name, "B200-STD");
  EXPECT_EQ(ref.grades[1].name, "B200-PRM");
  ASSERT_EQ(ref.providers.size(), 3u);
  const char* firms[] = {"PROV-A", "PROV-B", "PROV-C"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ref.providers[i].firm, firms[i]);
    EXPECT_EQ(ref.providers[i].account.value, i + 4);
  }
}

// --- Parsing and lookups
// -------------------------------------------------------

TEST(ServerConfig, ParsesTheBaseConfig) {
  Result<ServerConfig> r = ParseServerConfig(kBase, "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  EXPECT_EQ(c.network.fix_port, 19878);
  EXPECT_TRUE(c.clock.simulated);
  EXPECT_EQ(c.clock.start,
            exchange::ParseUtcTimestamp("2027-01-04T00:00:00Z").value());
  EXPECT_EQ(c.clock.session_end_utc_seconds, 20 * 3600 + 30 * 60);
  EXPECT_EQ(c.engine.limits.max_orders, 1'000u);
  EXPECT_EQ(c.engine.limits.max_client_order_ids,
            exchange::EngineLimits().max_client_order_ids);
  ASSERT_EQ(c.instruments.size(), 11u);  // 3 futures, 8 spot slots
  EXPECT_EQ(c.instruments[0].symbol, "XGX7");
  EXPECT_EQ(c.instruments[1].symbol, "XGZ7");
  EXPECT_EQ(c.instruments[2].symbol, "XGF8");
  EXPECT_EQ(c.instruments[2].maturity, "2028-01");
  EXPECT_EQ(c.instruments[2].last_trading_day, "2028-01-31");
  EXPECT_EQ(c.engine.instruments[2].reference_price.units, 64'000);
  EXPECT_EQ(c.engine.instruments[2].tick.units, 100);
  EXPECT_EQ(c.engine.instruments[2].max_price.units, 1'000'000);
  EXPECT_EQ(c.engine.instruments[2].gpu_hours_per_lot, 730);
  EXPECT_EQ(c.accounts[0].collateral.micros, 1'500'000);
  EXPECT_EQ(c.accounts[1].collateral.micros, 0);
  EXPECT_EQ(c.accounts[1].stp, exchange::StpMode::kDecrement);
  EXPECT_EQ(c.engine.accounts[1].stp, exchange::StpMode::kDecrement);
  EXPECT_EQ(c.firms[0].affiliation_group, "grp");
  EXPECT_EQ(c.FindUserByName("cm")->clearing_member, "CM-X");
  EXPECT_EQ(c.FindUserByName("ops")->account.value, 0u);
  EXPECT_TRUE(c.FindUserByName("ops")->fix_sender_comp_id.empty());
  EXPECT_TRUE(c.FindUserByName("u2")->password_hash.empty());
  EXPECT_TRUE(VerifyPassword(c.FindUserByName("u1")->password_hash, "passwd"));
}

TEST(ServerConfig, EmptyConfigTakesDefaults) {
  Result<ServerConfig> r = ParseServerConfig("", "empty.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  EXPECT_EQ(c.network.bind_address, "127.0.0.1");
  EXPECT_EQ(c.network.fix_port, 9878);
  EXPECT_EQ(c.network.protobuf_port, 9879);
  EXPECT_EQ(c.network.http_port, 9880);
  EXPECT_FALSE(c.clock.simulated);
  EXPECT_EQ(c.clock.start, kDefaultSimulatedStart);
  EXPECT_EQ(c.clock.start,
            exchange::ParseUtcTimestamp("2026-12-01T00:00:00Z").value());
  EXPECT_EQ(c.clock.session_end_utc_seconds, 21 * 3600);
  EXPECT_EQ(c.engine.limits.max_orders, 1u << 20);
  EXPECT_EQ(c.engine.limits.max_accounts, 1'024u);
  EXPECT_EQ(c.engine.limits.max_instruments, 256u);
  EXPECT_EQ(c.engine.limits.max_client_order_ids, 1u << 22);
  EXPECT_EQ(c.session.max_messages_per_second, 50'000u);
  EXPECT_EQ(c.session.logon_window_seconds, 30u);
  EXPECT_EQ(c.session.default_heartbeat_ms, 5'000u);
  EXPECT_EQ(c.session.max_sessions, 256u);
  EXPECT_EQ(c.snapshot_every, 1'000'000u);
  EXPECT_TRUE(c.instruments.empty());
  EXPECT_TRUE(c.users.empty());
}

TEST(ServerConfig, FuturesDefaults) {
  std::string text = With(R"(months: 3 })", R"(})");
  text.replace(text.find("max_instruments: 16"), 19, "max_instruments: 21");
  Result<ServerConfig> r = ParseServerConfig(text, "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  // 12 months by default, then the 8 spot slots.
  ASSERT_EQ(c.instruments.size(), 20u);
  EXPECT_EQ(c.instruments[11].symbol, "XGV8");
  EXPECT_EQ(c.instruments[12].kind, exchange::InstrumentKind::kSpot);
  const exchange::InstrumentConfig& ic = c.engine.instruments[11];
  EXPECT_EQ(ic.id.value, 12u);
  EXPECT_EQ(ic.tick.units, 100);
  EXPECT_EQ(ic.max_price.units, 100 * exchange::kPriceUnitsPerUsd);
  EXPECT_EQ(ic.min_quantity.lots, 1);
  EXPECT_EQ(ic.max_quantity.lots, 1'000);
  EXPECT_EQ(ic.position_limit.lots, 0);
  EXPECT_EQ(ic.band_bps, 1'000);
  EXPECT_EQ(ic.market_band_bps, 500);
  EXPECT_EQ(ic.gpu_hours_per_lot, 730);
  EXPECT_EQ(ic.initial_state, exchange::InstrumentState::kOpen);
}

TEST(ServerConfig, MapsMaxClientOrderIds) {
  Result<ServerConfig> r =
      ParseServerConfig(With("max_instruments: 16",
                             "max_instruments: 16 max_client_order_ids: 1000"),
                        "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().engine.limits.max_client_order_ids, 1'000u);
}

TEST(ServerConfig, LookupsByIdAndName) {
  const ServerConfig& c = Demo();
  EXPECT_EQ(c.instrument(InstrumentId{1}), &c.instruments[0]);
  EXPECT_EQ(c.instrument(InstrumentId{24}), &c.instruments[23]);
  EXPECT_EQ(c.instrument(InstrumentId{0}), nullptr);
  EXPECT_EQ(c.instrument(InstrumentId{40}), &c.instruments[39]);  // spot
  EXPECT_EQ(c.instrument(InstrumentId{41}), nullptr);
  EXPECT_EQ(c.account(AccountId{6})->name, "PROV-C");
  EXPECT_EQ(c.account(AccountId{0}), nullptr);
  EXPECT_EQ(c.account(AccountId{7}), nullptr);
  EXPECT_EQ(c.FindAccount("FIRM-B")->id.value, 2u);
  EXPECT_EQ(c.FindAccount("FIRM-Z"), nullptr);
  EXPECT_EQ(c.FindInstrument("XB2SZ7"), nullptr);
  EXPECT_EQ(c.FindInstrument(""), nullptr);
  EXPECT_EQ(c.FindUserByName("nobody"), nullptr);
  EXPECT_EQ(c.FindUserBySenderCompId("CFX"), nullptr);
  EXPECT_EQ(c.FindFirm("ATTEST")->name, "ATTEST");
  const ApiKey dummy;
  const ApiKey* key = &dummy;
  EXPECT_EQ(c.FindUserByApiKey("demo-admin", &key), nullptr);
  EXPECT_EQ(key, nullptr);
  EXPECT_NE(c.FindUserByApiKey("admin", nullptr), nullptr);
}

TEST(ServerConfig, LookupsSurviveCopyAndMove) {
  ServerConfig copy = Demo();
  const InstrumentInfo* i = copy.FindInstrument("XB2PZ6");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i, &copy.instruments[12]);
  ServerConfig moved = std::move(copy);
  EXPECT_EQ(moved.FindInstrument("XB2PZ6"), &moved.instruments[12]);
  EXPECT_EQ(moved.FindUserByName("rater"), &moved.users[8]);
  const ApiKey* key = nullptr;
  EXPECT_EQ(moved.FindUserByApiKey("trader-b", &key), &moved.users[1]);
  EXPECT_EQ(key, &moved.users[1].api_keys[0]);
  ServerConfig assigned;
  assigned = moved;
  EXPECT_EQ(assigned.FindGrade("B200-PRM"), &assigned.grades[1]);
  assigned.users[0].name = "trader-z";
  assigned.RebuildIndex();
  EXPECT_EQ(assigned.FindUserByName("trader-z"), &assigned.users[0]);
  EXPECT_EQ(assigned.FindUserByName("trader-a"), nullptr);
}

TEST(ServerConfig, RoleNames) {
  EXPECT_EQ(RoleName(Role::kTrader), "trader");
  EXPECT_EQ(RoleName(Role::kProvider), "provider");
  EXPECT_EQ(RoleName(Role::kClearingMember), "clearing-member");
  EXPECT_EQ(RoleName(Role::kRatingAgency), "rating-agency");
  EXPECT_EQ(RoleName(Role::kAttester), "attester");
  EXPECT_EQ(RoleName(Role::kAdmin), "admin");
  EXPECT_EQ(RoleName(Role::kNone), "none");
}

TEST(ServerConfig, ParsesDecimalsExactly) {
  using internal::ParseFixedDecimal;
  EXPECT_EQ(ParseFixedDecimal("5.80", 4), 58'000);
  EXPECT_EQ(ParseFixedDecimal("5.8", 4), 58'000);
  EXPECT_EQ(ParseFixedDecimal("5", 4), 50'000);
  EXPECT_EQ(ParseFixedDecimal("0.01", 4), 100);
  EXPECT_EQ(ParseFixedDecimal("0.0001", 4), 1);
  EXPECT_EQ(ParseFixedDecimal("10000000.00", 6), 10'000'000'000'000);
  EXPECT_EQ(ParseFixedDecimal("0.1", 0), std::nullopt);
  EXPECT_EQ(ParseFixedDecimal("7", 0), 7);
  for (const char* bad :
       {"", ".", "5.", ".5", "-5", "+5", "5.00001", "1e3", " 5", "5 ", "5,0",
        "5.8.0", "0x10", "99999999999999999999", "922337203685477.5808"}) {
    EXPECT_EQ(ParseFixedDecimal(bad, 4), std::nullopt) << bad;
  }
  EXPECT_EQ(ParseFixedDecimal("922337203685477.5807", 4), INT64_MAX);
}

// The last trading day is the last business day of the month; with no
// holidays, the last Monday to Friday.
TEST(ServerConfig, LastTradingDayIsTheLastWeekdayWithoutHolidays) {
  std::string text = With(R"(first_month: "2027-11" months: 3)",
                          R"(first_month: "2026-12" months: 15)");
  text.replace(text.find("max_instruments: 16"), 19, "max_instruments: 32");
  Result<ServerConfig> r = ParseServerConfig(text, "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  auto last_day = [&r](const char* symbol) {
    const InstrumentInfo* i = r.value().FindInstrument(symbol);
    return i == nullptr ? std::string("(none)") : i->last_trading_day;
  };
  EXPECT_EQ(last_day("XGZ6"), "2026-12-31");  // Thu
  EXPECT_EQ(last_day("XGF7"), "2027-01-29");  // 31 Sun
  EXPECT_EQ(last_day("XGN7"), "2027-07-30");  // 31 Sat
  EXPECT_EQ(last_day("XGG7"), "2027-02-26");  // 28 Sun
  EXPECT_EQ(last_day("XGF8"), "2028-01-31");  // Mon
  EXPECT_EQ(last_day("XGG8"), "2028-02-29");  // leap
}

// --- The exchange calendar ---------------------------------------------------

TEST(ServerConfigCalendar, DemoListsTheUsExchangeHolidaysOf2026And2027) {
  std::vector<std::string> days;
  for (int64_t d : Demo().calendar.holidays()) days.push_back(FormatDay(d));
  EXPECT_EQ(days, (std::vector<std::string>{
                      "2026-01-01", "2026-04-03", "2026-05-25", "2026-06-19",
                      "2026-07-03", "2026-09-07", "2026-11-26", "2026-12-25",
                      "2027-01-01", "2027-03-26", "2027-05-31", "2027-06-18",
                      "2027-07-05", "2027-09-06", "2027-11-25", "2027-12-24"}));
}

TEST(ServerConfigCalendar, DemoMemorialDayMovesTheMayLastTradingDay) {
  // Monday 2027-05-31 is Memorial Day: the Friday before.
  const InstrumentInfo* k7 = Demo().FindInstrument("XB2SK7");
  ASSERT_NE(k7, nullptr);
  EXPECT_EQ(k7->last_trading_day, "2027-05-28");
  // Christmas 2026 is on a Friday, not at the month's end.
  EXPECT_EQ(Demo().FindInstrument("XB2SZ6")->last_trading_day, "2026-12-31");
}

TEST(ServerConfigCalendar, AnEmptyCalendarHasNoHolidays) {
  Result<ServerConfig> r = ParseServerConfig(kBase, "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_TRUE(r.value().calendar.holidays().empty());
  EXPECT_EQ(r.value().FindInstrument("XGZ7")->last_trading_day, "2027-12-31");
  r = ParseServerConfig(std::string(kBase) + "calendar { }", "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_TRUE(r.value().calendar.holidays().empty());
}

TEST(ServerConfigCalendar, HolidaysInAnyOrderAreNoBusinessDays) {
  Result<ServerConfig> r = ParseServerConfig(
      std::string(kBase) +
          R"(calendar { holiday: "2027-12-24" holiday: "2027-11-25" })",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const settlement::BusinessCalendar& cal = r.value().calendar;
  ASSERT_EQ(cal.holidays().size(), 2u);
  EXPECT_EQ(FormatDay(cal.holidays()[0]), "2027-11-25");
  EXPECT_EQ(FormatDay(cal.holidays()[1]), "2027-12-24");
  EXPECT_FALSE(cal.IsBusinessDay(ParseDay("2027-12-24").value()));
  EXPECT_TRUE(cal.IsBusinessDay(ParseDay("2027-12-23").value()));
}

TEST(ServerConfigCalendar, AHolidayAtTheMonthsEndMovesItsLastTradingDay) {
  Result<ServerConfig> r = ParseServerConfig(
      std::string(kBase) + R"(calendar { holiday: "2027-12-31" })",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().FindInstrument("XGZ7")->last_trading_day, "2027-12-30");
  EXPECT_EQ(r.value().FindInstrument("XGX7")->last_trading_day, "2027-11-30");
}

TEST(ServerConfigCalendar, DemoXB2SZ7EndsOnThe30thWhenThe31stIsAHoliday) {
  std::string text(EmbeddedDefaultConfigText());
  const std::string months = "months: 12";
  const size_t at = text.find(months);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, months.size(), "months: 13");  // XB2SZ6 ... XB2SZ7
  Result<ServerConfig> r = ParseServerConfig(text, "demo.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().FindInstrument("XB2SZ7")->last_trading_day, "2027-12-31");
  const std::string christmas = R"(holiday: "2027-12-24")";
  text.insert(text.find(christmas), R"(holiday: "2027-12-31" )");
  r = ParseServerConfig(text, "demo.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().FindInstrument("XB2SZ7")->last_trading_day, "2027-12-30");
}

TEST(ServerConfigErrors, MalformedHolidayIsRejected) {
  for (const char* bad : {"2027-02-29", "2027-13-01", "2027-12-32", "27-12-24",
                          "2027-12-24 ", "2027/12/24", "", "1969-12-31"}) {
    EXPECT_EQ(ErrorOf(std::string(kBase) +
                      "calendar { holiday: \"2027-12-24\" "
                      "holiday: \"" +
                      bad + "\" }"),
              "t.textproto:40: calendar.holiday[1]: \"" + std::string(bad) +
                  "\" is not a date \"YYYY-MM-DD\" (1970-01-01 to "
                  "9999-12-31)");
  }
}

TEST(ServerConfigErrors, DuplicateHolidayIsRejected) {
  EXPECT_EQ(ErrorOf(std::string(kBase) +
                    "calendar {\n  holiday: \"2027-12-24\"\n"
                    "  holiday: \"2027-11-25\"\n  holiday: \"2027-12-24\"\n}"),
            "t.textproto:43: calendar.holiday[2]: duplicate holiday "
            "\"2027-12-24\" (first at line 41)");
}

TEST(ServerConfigErrors, WeekendHolidayIsRejected) {
  // 2027-12-25 is a Saturday: NYSE closes on Friday 2027-12-24 instead.
  EXPECT_EQ(
      ErrorOf(std::string(kBase) + R"(calendar { holiday: "2027-12-25" })"),
      "t.textproto:40: calendar.holiday[0]: \"2027-12-25\" is a Saturday "
      "or Sunday, never a business day: list the weekday the exchange "
      "closes instead");
}

TEST(ServerConfig, LoadMissingFileIsNotFound) {
  Result<ServerConfig> r = LoadServerConfig("/nonexistent/cfx.textproto");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.error().message().rfind("/nonexistent/cfx.textproto: ", 0), 0u);
}

TEST(ServerConfig, LoadNamesTheFileInErrors) {
  testing::TempDir dir;
  const std::string path = dir.Sub("bad.textproto");
  {
    std::ofstream out(path);
    out << With(R"(name: "F2")", R"(name: "F1")");
  }
  Result<ServerConfig> r = LoadServerConfig(path);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      r.error().message(),
      path + ":16: firms[1].name: duplicate firm \"F1\" (first at line 15)");
}

// --- Syntax errors -----------------------------------------------------------

TEST(ServerConfigErrors, SyntaxErrorHasLineAndColumn) {
  EXPECT_EQ(ErrorOf(With(R"(region: "US")", R"(region "US")")),
            "t.textproto:11:10: Expected \":\", found \"\"US\"\".");
}

TEST(ServerConfigErrors, UnterminatedMessage) {
  EXPECT_EQ(ErrorOf(std::string(kBase) + "users {\n"),
            "t.textproto:41:1: Expected identifier, got: ");
}

TEST(ServerConfigErrors, UnknownFieldName) {
  EXPECT_EQ(ErrorOf(With(R"(account: "A1")", R"(acount: "A1")")),
            "t.textproto:25:3: Message type \"cfx.config.v1.User\" has no "
            "field named \"acount\".");
}

TEST(ServerConfigErrors, UnknownEnumName) {
  EXPECT_EQ(ErrorOf(With("ROLE_TRADER", "ROLE_TRADR")),
            "t.textproto:24:9: Unknown enumeration value of \"ROLE_TRADR\" "
            "for field \"role\".");
}

TEST(ServerConfigErrors, ErrorsPointAtTheCulpritWithTabs) {
  EXPECT_EQ(ErrorOf("users {\n\trole:\tROLE_X\n}\n"),
            "t.textproto:2:17: Unknown enumeration value of \"ROLE_X\" for "
            "field \"role\".");
  EXPECT_EQ(ErrorOf("users { role: ROLE_TRADER }\nusers { role: ROLE }\n"),
            "t.textproto:2:15: Unknown enumeration value of \"ROLE\" for "
            "field \"role\".");
}

TEST(ServerConfigErrors, BadValueType) {
  EXPECT_EQ(ErrorOf(With("fix_port: 19878", "fix_port: \"x\"")),
            "t.textproto:1:21: Expected integer, got: \"x\"");
  EXPECT_EQ(ErrorOf(With("fix_port: 19878", "fix_port: -1")),
            "t.textproto:1:21: Expected integer, got: -");
  EXPECT_EQ(ErrorOf(With("fix_port: 19878", "fix_port: 99999999999")),
            "t.textproto:1:21: Integer out of range (99999999999)");
}

TEST(ServerConfigErrors, RepeatedSingularField) {
  EXPECT_EQ(ErrorOf(With(R"(region: "US")", R"(region: "US" region: "EU")")),
            "t.textproto:11:16: Non-repeated field \"region\" is specified "
            "multiple times.");
}

// --- Names and references
// -----------------------------------------------------

TEST(ServerConfigErrors, DuplicateFirm) {
  EXPECT_EQ(ErrorOf(With(R"(name: "F2")", R"(name: "F1")")),
            "t.textproto:16: firms[1].name: duplicate firm \"F1\" (first at "
            "line 15)");
}

TEST(ServerConfigErrors, FirmNameRequiredAndWellFormed) {
  EXPECT_EQ(ErrorOf(With(R"(firms { name: "F2" })", R"(firms { })")),
            "t.textproto:16: firms[1].name: name is required");
  EXPECT_EQ(ErrorOf(With(R"(name: "F2")", R"(name: "F 2")")),
            "t.textproto:16: firms[1].name: \"F 2\" is not a name (1-64 "
            "printable ASCII characters, no blanks)");
}

TEST(ServerConfigErrors, DuplicateClearingMember) {
  EXPECT_EQ(
      ErrorOf(std::string(kBase) +
              R"(clearing_members { name: "CM-X" firm: "F2" })"),
      "t.textproto:40: clearing_members[1].name: duplicate clearing member "
      "\"CM-X\" (first at line 18)");
}

TEST(ServerConfigErrors, TwoClearingMembersForOneFirm) {
  EXPECT_EQ(ErrorOf(std::string(kBase) +
                    R"(clearing_members { name: "CM-Y" firm: "CM" })"),
            "t.textproto:40: clearing_members[1].firm: firm \"CM\" already is "
            "clearing member \"CM-X\"");
}

TEST(ServerConfigErrors, ClearingMemberOfUnknownFirm) {
  EXPECT_EQ(ErrorOf(With(R"(firm: "CM" })", R"(firm: "CMZ" })")),
            "t.textproto:18: clearing_members[0].firm: unknown firm \"CMZ\"");
}

TEST(ServerConfigErrors, DuplicateAccount) {
  EXPECT_EQ(ErrorOf(With(R"(name: "A2")", R"(name: "A1")")),
            "t.textproto:20: accounts[1].name: duplicate account \"A1\" (first "
            "at line 19)");
}

TEST(ServerConfigErrors, AccountOfUnknownFirm) {
  EXPECT_EQ(
      ErrorOf(With(R"(name: "A1" firm: "F1")", R"(name: "A1" firm: "F9")")),
      "t.textproto:19: accounts[0].firm: unknown firm \"F9\"");
}

TEST(ServerConfigErrors, AccountOfUnknownClearingMember) {
  EXPECT_EQ(ErrorOf(With(R"("F1" clearing_member: "CM-X")",
                         R"("F1" clearing_member: "CM-9")")),
            "t.textproto:19: accounts[0].clearing_member: unknown clearing "
            "member \"CM-9\"");
}

TEST(ServerConfigErrors, AccountWithoutClearingMember) {
  EXPECT_EQ(ErrorOf(With(R"("F1" clearing_member: "CM-X")", R"("F1")")),
            "t.textproto:19: accounts[0].clearing_member: clearing_member is "
            "required");
}

TEST(ServerConfigErrors, UnknownStpMode) {
  EXPECT_EQ(ErrorOf(With("STP_MODE_DECREMENT", "9")),
            "t.textproto:20: accounts[1].stp_mode: unknown stp_mode 9");
}

TEST(ServerConfigErrors, DuplicateUser) {
  EXPECT_EQ(ErrorOf(With(R"(name: "u2")", R"(name: "u1")")),
            "t.textproto:31: users[1].name: duplicate user \"u1\" (first at "
            "line 21)");
}

TEST(ServerConfigErrors, UserOfUnknownFirm) {
  EXPECT_EQ(
      ErrorOf(With(R"(name: "ops" firm: "F1")", R"(name: "ops" firm: "X")")),
      "t.textproto:39: users[3].firm: unknown firm \"X\"");
}

TEST(ServerConfigErrors, UserWithUnknownAccount) {
  EXPECT_EQ(ErrorOf(With(R"(account: "A1")", R"(account: "FIRM-Z")")),
            "t.textproto:25: users[0].account: unknown account \"FIRM-Z\"");
}

TEST(ServerConfigErrors, TraderWithoutAccount) {
  EXPECT_EQ(ErrorOf(With(R"(account: "A1")", "# no account")),
            "t.textproto:21: users[0].account: a trader needs a trading "
            "account");
}

TEST(ServerConfigErrors, ProviderWithoutAccount) {
  EXPECT_EQ(ErrorOf(With(R"(account: "A2")", "# no account")),
            "t.textproto:30: users[1].account: a provider needs a trading "
            "account");
}

TEST(ServerConfigErrors, UserTradingAnotherFirmsAccount) {
  EXPECT_EQ(ErrorOf(With(R"(account: "A1")", R"(account: "A2")")),
            "t.textproto:25: users[0].account: account \"A2\" belongs to firm "
            "\"F2\", not \"F1\"");
}

TEST(ServerConfigErrors, NonTraderWithAccount) {
  EXPECT_EQ(
      ErrorOf(With("role: ROLE_ADMIN", R"(role: ROLE_ADMIN account: "A1")")),
      "t.textproto:39: users[3].account: only traders and providers "
      "have a trading account (role admin)");
}

TEST(ServerConfigErrors, UserWithoutRole) {
  EXPECT_EQ(ErrorOf(With(" role: ROLE_ADMIN", "")),
            "t.textproto:39: users[3].role: role is required");
  EXPECT_EQ(ErrorOf(With("role: ROLE_ADMIN", "role: 9")),
            "t.textproto:39: users[3].role: unknown role 9");
}

TEST(ServerConfigErrors, ClearingMemberUserOutsideAClearingFirm) {
  EXPECT_EQ(ErrorOf(With(R"(firm: "CM" role)", R"(firm: "F2" role)")),
            "t.textproto:38: users[2].firm: firm \"F2\" is not the firm of any "
            "clearing member");
}

TEST(ServerConfigErrors, DuplicateSenderCompId) {
  EXPECT_EQ(ErrorOf(With(R"("U2")", R"("U1")")),
            "t.textproto:35: users[1].fix_sender_comp_id: duplicate FIX "
            "SenderCompID \"U1\" (also user \"u1\")");
}

TEST(ServerConfigErrors, SenderCompIdOfTheExchange) {
  EXPECT_EQ(ErrorOf(With(R"("U2")", R"("CFX")")),
            "t.textproto:35: users[1].fix_sender_comp_id: \"CFX\" is the "
            "exchange's own CompID");
}

TEST(ServerConfigErrors, DuplicateApiKeyId) {
  EXPECT_EQ(ErrorOf(With(R"(id: "k2")", R"(id: "k1")")),
            "t.textproto:36: users[1].api_keys[0].id: duplicate API key id "
            "\"k1\" (also user \"u1\")");
}

TEST(ServerConfigErrors, EmptyApiSecret) {
  EXPECT_EQ(ErrorOf(With(R"(secret: "secret-1-random-0123456789abcdef")", "")),
            "t.textproto:28: users[0].api_keys[0].secret: API key \"k1\" of "
            "user \"u1\": secret is required");
}

TEST(ServerConfigErrors, ShortApiSecret) {
  EXPECT_EQ(ErrorOf(With(R"(secret: "secret-1-random-0123456789abcdef")", R"(secret: "1234567")")),
            "t.textproto:28: users[0].api_keys[0].secret: API key \"k1\" of "
            "user \"u1\": secret must be at least 32 bytes (random; prefer an "
            "ed25519 key)");
}

TEST(ServerConfigErrors, Ed25519PublicKeyThatIsNotBase64) {
  const std::string e = ErrorOf(With(R"(secret: "secret-1-random-0123456789abcdef")",
                                     R"(public_key: "not*base64!")"));
  EXPECT_EQ(e.rfind("t.textproto:28: users[0].api_keys[0].public_key: API key "
                    "\"k1\" of user \"u1\": public_key is not base64 (",
                    0),
            0u)
      << e;
}

TEST(ServerConfigErrors, Ed25519PublicKeyOfTheWrongLength) {
  // 16 bytes, well-formed base64.
  EXPECT_EQ(ErrorOf(With(R"(secret: "secret-1-random-0123456789abcdef")",
                         R"(public_key: "AAAAAAAAAAAAAAAAAAAAAA==")")),
            "t.textproto:28: users[0].api_keys[0].public_key: API key \"k1\" "
            "of user \"u1\": public_key is 16 bytes; an Ed25519 public key is "
            "32");
}

TEST(ServerConfig, Ed25519PublicKeyOfThirtyTwoBytesLoads) {
  Result<ServerConfig> c = ParseServerConfig(
      With(R"(secret: "secret-1-random-0123456789abcdef")",
           R"(public_key: "JKFNeQaTnESD/pW2ASGFow9iNgC/ghAxnyyHP6tEufI=")"),
      "t.textproto");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  const ApiKey* key = nullptr;
  ASSERT_NE(c.value().FindUserByApiKey("k1", &key), nullptr);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->kind, ApiKeyKind::kEd25519);
  EXPECT_EQ(key->public_key.size(), 32u);
}

TEST(ServerConfigErrors, ApiKeyWithoutId) {
  EXPECT_EQ(ErrorOf(With(R"(id: "k1" )", "")),
            "t.textproto:28: users[0].api_keys[0].id: id is required");
}

TEST(ServerConfigErrors, MalformedPasswordHash) {
  const std::string expected =
      "t.textproto:27: users[0].password_hash: malformed password hash; "
      "expected \"pbkdf2-sha256$<iterations>$<salt hex>$<32-byte hash hex>\"";
  EXPECT_EQ(ErrorOf(With("pbkdf2-sha256$1$", "pbkdf2-sha1$1$")), expected);
  EXPECT_EQ(ErrorOf(With("$73616c74$", "$73616c7$")), expected);
  EXPECT_EQ(ErrorOf(With("dacbc\"", "dacb\"")), expected);
  EXPECT_EQ(ErrorOf(With("sha256$1$", "sha256$x$")), expected);
}

// --- Grades and futures
// --------------------------------------------------------

TEST(ServerConfigErrors, DuplicateGrade) {
  EXPECT_EQ(
      ErrorOf(std::string(kBase) +
              "grades { name: \"G1\" gpu_model: \"x\" min_rating: "
              "RATING_TIER_GOLD min_output_tokens_per_s_per_gpu: 1 recipe: "
              "\"r\" max_attestation_age_days: 1 region: \"US\" "
              "initial_reference: \"1\" }\n"),
      "t.textproto:40: grades[1].name: duplicate grade \"G1\" (first at line "
      "4)");
}

TEST(ServerConfigErrors, GradeFieldsRequired) {
  EXPECT_EQ(ErrorOf(With("  min_rating: RATING_TIER_GOLD\n", "\n")),
            "t.textproto:4: grades[0].min_rating: min_rating is required");
  EXPECT_EQ(ErrorOf(With("RATING_TIER_GOLD", "7")),
            "t.textproto:7: grades[0].min_rating: unknown rating tier 7");
  EXPECT_EQ(ErrorOf(With("  region: \"US\"\n", "\n")),
            "t.textproto:4: grades[0].region: region is required");
  EXPECT_EQ(ErrorOf(With("max_attestation_age_days: 7",
                         "max_attestation_age_days: 0")),
            "t.textproto:10: grades[0].max_attestation_age_days: must be > 0");
  EXPECT_EQ(ErrorOf(With("  initial_reference: \"6.40\"\n", "\n")),
            "t.textproto:4: grades[0].initial_reference: a USD price is "
            "required");
}

TEST(ServerConfigErrors, BadDecimal) {
  for (const char* bad : {"6.40001", "6,40", "-6.40", "6.4.0", "1e1", ".5"}) {
    EXPECT_EQ(ErrorOf(With(R"("6.40")", std::string("\"") + bad + "\"")),
              std::string("t.textproto:12: grades[0].initial_reference: \"") +
                  bad +
                  "\" is not a USD decimal with at most 4 decimals (e.g. "
                  "\"5.80\")");
  }
  EXPECT_EQ(ErrorOf(With(R"("6.40")", R"("0.00")")),
            "t.textproto:12: grades[0].initial_reference: must be > 0");
  EXPECT_EQ(
      ErrorOf(With(R"("1.5")", R"("1.0000001")")),
      "t.textproto:19: accounts[0].collateral: \"1.0000001\" is not a USD "
      "decimal with at most 6 decimals (e.g. \"10000000.00\")");
  EXPECT_EQ(ErrorOf(With("months: 3", R"(months: 3 tick: "0.001x")")),
            "t.textproto:14: futures[0].tick: \"0.001x\" is not a USD decimal "
            "with at most 4 decimals (e.g. \"5.80\")");
}

TEST(ServerConfigErrors, TickMustDividePrices) {
  EXPECT_EQ(ErrorOf(With("months: 3",
                         R"(months: 3 tick: "0.03" max_price: "99.99")")),
            "t.textproto:14: futures[0].tick: 0.03 does not divide the "
            "initial_reference 6.40 of grade \"G1\"");
  EXPECT_EQ(ErrorOf(With("months: 3", R"(months: 3 max_price: "100.005")")),
            "t.textproto:14: futures[0].max_price: 100.005 is not a multiple "
            "of the tick 0.01");
  EXPECT_EQ(ErrorOf(With("months: 3", R"(months: 3 max_price: "6.39")")),
            "t.textproto:14: futures[0].max_price: 6.39 is below the "
            "initial_reference 6.40 of grade \"G1\"");
}

TEST(ServerConfigErrors, FuturesRootNames) {
  EXPECT_EQ(
      ErrorOf(std::string(kBase) +
              R"(futures { root: "XG" grade: "G1" first_month: "2027-11" })"),
      "t.textproto:40: futures[1].root: duplicate root \"XG\" (first at "
      "line 14)");
  EXPECT_EQ(ErrorOf(With(R"(root: "XG")", R"(root: "xg")")),
            "t.textproto:14: futures[0].root: \"xg\" is not a root (1-8 "
            "upper-case letters and digits)");
  EXPECT_EQ(ErrorOf(With(R"(grade: "G1")", R"(grade: "G2")")),
            "t.textproto:14: futures[0].grade: unknown grade \"G2\"");
}

TEST(ServerConfigErrors, FirstMonthMalformed) {
  for (const char* bad : {"2027-13", "2027-00", "27-11", "2027-1", "2027/11",
                          "1999-12", "2027-11-01"}) {
    EXPECT_EQ(ErrorOf(With(R"("2027-11")", std::string("\"") + bad + "\"")),
              std::string("t.textproto:14: futures[0].first_month: \"") + bad +
                  "\" is not a month \"YYYY-MM\" (years 2000-2199)");
  }
}

TEST(ServerConfigErrors, MonthsOutOfRange) {
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 0")),
            "t.textproto:14: futures[0].months: must be in 1-36, got 0");
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 37")),
            "t.textproto:14: futures[0].months: must be in 1-36, got 37");
}

TEST(ServerConfigErrors, QuantitiesAndBands) {
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 3 min_quantity: 0")),
            "t.textproto:14: futures[0].min_quantity: must be >= 1");
  EXPECT_EQ(
      ErrorOf(With("months: 3", "months: 3 min_quantity: 5 max_quantity: 4")),
      "t.textproto:14: futures[0].max_quantity: need min_quantity 5 <= "
      "max_quantity 4");
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 3 price_band_bps: 10000")),
            "t.textproto:14: futures[0].price_band_bps: must be in 1-9999");
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 3 market_band_bps: 0")),
            "t.textproto:14: futures[0].market_band_bps: must be in 1-9999");
  EXPECT_EQ(ErrorOf(With("months: 3", "months: 3 contract_gpu_hours: 0")),
            "t.textproto:14: futures[0].contract_gpu_hours: must be > 0");
}

// --- Spot slots
// ---------------------------------------------------------------

// A second grade (line 40) on 4-GPU nodes. With kBase's 8 slots of G1 it
// needs max_instruments 20 (ids 1-3 futures, 4-11 G1, 12-19 G2).
constexpr char kSecondGrade[] =
    "grades { name: \"G2\" gpu_model: \"NVIDIA H100\" gpus_per_node: 4 "
    "min_rating: RATING_TIER_SILVER min_output_tokens_per_s_per_gpu: 120 "
    "recipe: \"r2\" max_attestation_age_days: 30 region: \"EU\" "
    "initial_reference: \"2.50\" }\n";

TEST(ServerConfig, SpotDefaults) {
  Result<ServerConfig> r = ParseServerConfig(kBase, "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  EXPECT_EQ(c.spot.listing_days, 7u);
  EXPECT_EQ(c.spot.failure_deadline_seconds, 12 * 3600);
  EXPECT_EQ(c.engine.spot_failure_deadline_ns,
            int64_t{12} * 3600 * 1'000'000'000);
  ASSERT_EQ(c.spot.first_slot.size(), 1u);
  EXPECT_EQ(c.spot.first_slot[0], InstrumentId{4});  // after the 3 futures
  ASSERT_EQ(c.instruments.size(), 11u);
  ASSERT_EQ(c.engine.instruments.size(), 11u);
  for (uint32_t id = 4; id <= 11; ++id) {
    SCOPED_TRACE(id);
    const InstrumentInfo& info = c.instruments[id - 1];
    EXPECT_EQ(info.id.value, id);
    EXPECT_EQ(info.kind, exchange::InstrumentKind::kSpot);
    EXPECT_TRUE(info.spot_slot);
    EXPECT_EQ(info.grade, "G1");
    EXPECT_EQ(info.grade_index, 0u);
    EXPECT_EQ(info.contract_gpu_hours, 192);
    // A listing names the slot's day; the config does not.
    EXPECT_TRUE(info.symbol.empty());
    EXPECT_TRUE(info.delivery_date.empty());
    const exchange::InstrumentConfig& ic = c.engine.instruments[id - 1];
    EXPECT_EQ(ic.id.value, id);
    EXPECT_EQ(ic.kind, exchange::InstrumentKind::kSpot);
    EXPECT_EQ(ic.initial_state, exchange::InstrumentState::kNone);
    EXPECT_EQ(ic.grade, 0u);
    EXPECT_EQ(ic.gpu_hours_per_lot, 8 * 24);      // gpus_per_node x 24 h
    EXPECT_EQ(ic.reference_price.units, 64'000);  // G1's initial_reference
    EXPECT_EQ(ic.tick.units, 100);
    EXPECT_EQ(ic.max_price.units, 100 * exchange::kPriceUnitsPerUsd);
    EXPECT_EQ(ic.min_quantity.lots, 1);
    EXPECT_EQ(ic.max_quantity.lots, 1'000);
    EXPECT_EQ(ic.position_limit.lots, 0);
    EXPECT_EQ(ic.band_bps, 1'000);
    EXPECT_EQ(ic.market_band_bps, 500);
  }
  // The futures are listed from the start.
  EXPECT_FALSE(c.instruments[2].spot_slot);
  EXPECT_EQ(c.engine.instruments[2].initial_state,
            exchange::InstrumentState::kOpen);
  EXPECT_EQ(c.FindInstrument(""), nullptr);
}

TEST(ServerConfig, SpotSlotsOfEachGradeFollowTheFutures) {
  Result<ServerConfig> r = ParseServerConfig(
      std::string(kBase) + kSecondGrade + "spot { listing_days: 2 }\n",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  EXPECT_EQ(c.spot.listing_days, 2u);
  // listing_days + 1 = 3 slots per grade: G1 4-6, G2 7-9.
  ASSERT_EQ(c.spot.first_slot.size(), 2u);
  EXPECT_EQ(c.spot.first_slot[0], InstrumentId{4});
  EXPECT_EQ(c.spot.first_slot[1], InstrumentId{7});
  ASSERT_EQ(c.instruments.size(), 9u);
  ASSERT_EQ(c.engine.instruments.size(), 9u);
  for (uint32_t id = 4; id <= 9; ++id) {
    SCOPED_TRACE(id);
    const bool g2 = id >= 7;
    const InstrumentInfo& info = c.instruments[id - 1];
    EXPECT_EQ(info.id.value, id);
    EXPECT_TRUE(info.spot_slot);
    EXPECT_EQ(info.grade, g2 ? "G2" : "G1");
    EXPECT_EQ(info.grade_index, g2 ? 1u : 0u);
    const exchange::InstrumentConfig& ic = c.engine.instruments[id - 1];
    EXPECT_EQ(ic.kind, exchange::InstrumentKind::kSpot);
    EXPECT_EQ(ic.initial_state, exchange::InstrumentState::kNone);
    EXPECT_EQ(ic.grade, g2 ? 1u : 0u);
    EXPECT_EQ(ic.gpu_hours_per_lot, g2 ? 4 * 24 : 8 * 24);
    EXPECT_EQ(ic.reference_price.units, g2 ? 25'000 : 64'000);
  }
}

TEST(ServerConfig, SpotSettings) {
  Result<ServerConfig> r = ParseServerConfig(
      std::string(kBase) +
          "spot { listing_days: 1 min_quantity: 2 max_quantity: 50 "
          "max_price: \"20.00\" price_band_bps: 2000 market_band_bps: 300 "
          "failure_deadline: \"09:30\" }\n",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const ServerConfig& c = r.value();
  EXPECT_EQ(c.spot.listing_days, 1u);
  EXPECT_EQ(c.spot.failure_deadline_seconds, 9 * 3600 + 30 * 60);
  EXPECT_EQ(c.engine.spot_failure_deadline_ns,
            int64_t{9 * 3600 + 30 * 60} * 1'000'000'000);
  ASSERT_EQ(c.instruments.size(), 5u);  // 3 futures, 2 slots
  for (size_t i = 3; i < 5; ++i) {
    const exchange::InstrumentConfig& ic = c.engine.instruments[i];
    EXPECT_EQ(ic.kind, exchange::InstrumentKind::kSpot);
    EXPECT_EQ(ic.max_price.units, 20 * exchange::kPriceUnitsPerUsd);
    EXPECT_EQ(ic.min_quantity.lots, 2);
    EXPECT_EQ(ic.max_quantity.lots, 50);
    EXPECT_EQ(ic.band_bps, 2'000);
    EXPECT_EQ(ic.market_band_bps, 300);
  }
  // The futures keep their own settings.
  EXPECT_EQ(c.engine.instruments[0].max_quantity.lots, 1'000);
  EXPECT_EQ(c.engine.instruments[0].band_bps, 1'000);
}

TEST(ServerConfigErrors, SpotListingDaysOutOfRange) {
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { listing_days: 0 }\n"),
            "t.textproto:40: spot.listing_days: must be in 1-30");
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { listing_days: 31 }\n"),
            "t.textproto:40: spot.listing_days: must be in 1-30");
}

TEST(ServerConfigErrors, SpotBadFailureDeadline) {
  for (const char* bad :
       {"24:00", "12:60", "9:30", "12:00:00", "1200", "noon"}) {
    EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { failure_deadline: \"" + bad +
                      "\" }\n"),
              std::string("t.textproto:40: spot.failure_deadline: \"") + bad +
                  "\" is not a time of day \"HH:MM\"");
  }
}

TEST(ServerConfigErrors, MaxInstrumentsTooSmallForTheSpotSlots) {
  // G1's slots need ids 4-11.
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 11")),
            "t.textproto:3: limits.max_instruments: 11 is too small: the spot "
            "slots of grade \"G1\" reach instrument id 11");
  // Enough for G1's slots, not for G2's (ids 12-19).
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 12") +
                    kSecondGrade),
            "t.textproto:3: limits.max_instruments: 12 is too small: the spot "
            "slots of grade \"G2\" reach instrument id 12");
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 19") +
                    kSecondGrade),
            "t.textproto:3: limits.max_instruments: 19 is too small: the spot "
            "slots of grade \"G2\" reach instrument id 19");
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 20") +
                    kSecondGrade),
            "(parsed)");
}

TEST(ServerConfigErrors, SpotPricesAndQuantities) {
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { max_price: \"100.005\" }\n"),
            "t.textproto:40: spot.max_price: 100.005 is not a multiple of the "
            "tick 0.01");
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { max_price: \"6.39\" }\n"),
            "t.textproto:12: grades[0].initial_reference: 6.40 is not a spot "
            "price on the $0.01 tick up to 6.39");
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { min_quantity: 0 }\n"),
            "t.textproto:40: spot.min_quantity: must be >= 1");
  EXPECT_EQ(ErrorOf(std::string(kBase) +
                    "spot { min_quantity: 5 max_quantity: 4 }\n"),
            "t.textproto:40: spot.max_quantity: need min_quantity 5 <= "
            "max_quantity 4");
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { price_band_bps: 10000 }\n"),
            "t.textproto:40: spot.price_band_bps: must be in 1-9999");
  EXPECT_EQ(ErrorOf(std::string(kBase) + "spot { market_band_bps: 0 }\n"),
            "t.textproto:40: spot.market_band_bps: must be in 1-9999");
}

// --- Reference data: grades and providers
// ---------------------------------------------

TEST(ServerConfig, ReferenceConfigFromGradesAndProviders) {
  // A provider of F1 on A1 (line 41) and a second provider of F2 on the
  // same account A2 as u2 (line 42).
  Result<ServerConfig> r = ParseServerConfig(
      With("max_instruments: 16", "max_instruments: 20") + kSecondGrade +
          "users { name: \"p1\" firm: \"F1\" role: ROLE_PROVIDER account: "
          "\"A1\" }\n"
          "users { name: \"p2\" firm: \"F2\" role: ROLE_PROVIDER account: "
          "\"A2\" }\n",
      "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const exchange::ReferenceConfig& ref = r.value().engine.reference;
  ASSERT_EQ(ref.grades.size(), 2u);
  const exchange::ReferenceGrade& g1 = ref.grades[0];
  EXPECT_EQ(g1.name, "G1");
  EXPECT_EQ(g1.gpu_model, "NVIDIA B200");
  EXPECT_EQ(g1.gpus_per_node, 8u);
  EXPECT_EQ(g1.min_tier, exchange::Tier::kGold);
  EXPECT_EQ(g1.min_output_milli_tokens_per_s_per_gpu, 285'000u);
  EXPECT_EQ(g1.recipe, "ref-8k1k-i100");
  EXPECT_EQ(g1.max_attestation_age_ns, int64_t{7} * 86'400 * 1'000'000'000);
  const exchange::ReferenceGrade& g2 = ref.grades[1];
  EXPECT_EQ(g2.name, "G2");
  EXPECT_EQ(g2.gpu_model, "NVIDIA H100");
  EXPECT_EQ(g2.gpus_per_node, 4u);
  EXPECT_EQ(g2.min_tier, exchange::Tier::kSilver);
  EXPECT_EQ(g2.min_output_milli_tokens_per_s_per_gpu, 120'000u);
  EXPECT_EQ(g2.recipe, "r2");
  EXPECT_EQ(g2.max_attestation_age_ns, int64_t{30} * 86'400 * 1'000'000'000);
  // One entry per provider firm, by firm name.
  ASSERT_EQ(ref.providers.size(), 2u);
  EXPECT_EQ(ref.providers[0].firm, "F1");
  EXPECT_EQ(ref.providers[0].account, AccountId{1});
  EXPECT_EQ(ref.providers[1].firm, "F2");
  EXPECT_EQ(ref.providers[1].account, AccountId{2});
}

TEST(ServerConfigErrors, ProviderFirmWithTwoAccounts) {
  const std::string a3 =
      std::string(kBase) +
      "accounts { name: \"A3\" firm: \"F2\" clearing_member: \"CM-X\" }\n";
  // A trader of the provider firm may use another account.
  EXPECT_EQ(ErrorOf(a3 + "users { name: \"t3\" firm: \"F2\" role: "
                         "ROLE_TRADER account: \"A3\" }\n"),
            "(parsed)");
  EXPECT_EQ(ErrorOf(a3 + "users { name: \"u3\" firm: \"F2\" role: "
                         "ROLE_PROVIDER account: \"A3\" }\n"),
            "t.textproto:41: users[4].account: provider firm \"F2\" already "
            "lists capacity from another account; a provider firm has one "
            "trading account");
}

// --- Network, clock, limits
// -------------------------------------------------------

TEST(ServerConfigErrors, ZeroPort) {
  EXPECT_EQ(ErrorOf(With("protobuf_port: 19879", "protobuf_port: 0")),
            "t.textproto:1: network.protobuf_port: port must be in 1-65535, "
            "got 0");
  EXPECT_EQ(ErrorOf(With("http_port: 19880", "http_port: 65536")),
            "t.textproto:1: network.http_port: port must be in 1-65535, got "
            "65536");
}

TEST(ServerConfigErrors, DuplicatePort) {
  EXPECT_EQ(ErrorOf(With("http_port: 19880", "http_port: 19878")),
            "t.textproto:1: network.http_port: port 19878 is also the "
            "fix_port");
  // A port that collides with another's default.
  EXPECT_EQ(ErrorOf("network {\n  fix_port: 9880\n}\n"),
            "t.textproto:2: network.fix_port: port 9880 is also the http_port");
}

TEST(ServerConfig, AcceptsIpv6BindAddress) {
  Result<ServerConfig> r = ParseServerConfig(
      With("network { ", R"(network { bind_address: "::1" )"), "t.textproto");
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r.value().network.bind_address, "::1");
}

TEST(ServerConfigErrors, BadBindAddress) {
  EXPECT_EQ(
      ErrorOf(With("network { ", R"(network { bind_address: "localhost" )")),
      "t.textproto:1: network.bind_address: \"localhost\" is not an IPv4 "
      "or IPv6 address");
}

TEST(ServerConfigErrors, ClockKind) {
  EXPECT_EQ(ErrorOf(With(R"("simulated")", R"("sim")")),
            "t.textproto:2: clock.kind: must be \"wall\" or \"simulated\", got "
            "\"sim\"");
}

TEST(ServerConfigErrors, BadStartTimestamp) {
  EXPECT_EQ(ErrorOf(With("2027-01-04T00:00:00Z", "2027-02-30T00:00:00Z")),
            "t.textproto:2: clock.start: '2027-02-30T00:00:00Z' is not a "
            "calendar date");
  EXPECT_EQ(ErrorOf(With("2027-01-04T00:00:00Z", "2027-01-04")),
            "t.textproto:2: clock.start: '2027-01-04' is not a UTC time like "
            "2026-12-01T00:00:00Z");
}

TEST(ServerConfigErrors, BadSessionEnd) {
  for (const char* bad :
       {"24:00", "21:60", "9:00", "21:00:00", "2100", "ab:cd"}) {
    EXPECT_EQ(ErrorOf(With(R"("20:30")", std::string("\"") + bad + "\"")),
              std::string("t.textproto:2: clock.session_end: \"") + bad +
                  "\" is not a UTC time of day \"HH:MM\" (00:00-23:59)");
  }
}

TEST(ServerConfigErrors, LimitsTooSmall) {
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 3")),
            "t.textproto:3: limits.max_instruments: 3 is too small: instrument "
            "ids reach 3 at root \"XG\" (max_instruments must exceed the "
            "highest id)");
  EXPECT_EQ(ErrorOf(With("max_accounts: 8", "max_accounts: 2")),
            "t.textproto:3: limits.max_accounts: 2 is too small: account ids "
            "reach 2 at account \"A2\" (max_accounts must exceed the highest "
            "id)");
}

TEST(ServerConfigErrors, DefaultLimitTooSmallPointsAtTheEntry) {
  // 8 roots x 36 months = 288 instruments > the default 255.
  std::string text =
      "grades { name: \"G\" gpu_model: \"m\" min_rating: "
      "RATING_TIER_GOLD min_output_tokens_per_s_per_gpu: 1 "
      "recipe: \"r\" max_attestation_age_days: 1 region: \"US\" "
      "initial_reference: \"1\" }\n";
  for (int i = 0; i < 8; ++i) {
    text += "futures { root: \"R" + std::to_string(i) +
            "\" grade: \"G\" first_month: \"2027-01\" months: 36 }\n";
  }
  EXPECT_EQ(ErrorOf(text),
            "t.textproto:9: limits.max_instruments: 256 is too small: "
            "instrument ids reach 256 at root \"R7\" (max_instruments must "
            "exceed the highest id)");
}

TEST(ServerConfigErrors, EngineRejectionNamesTheFile) {
  EXPECT_EQ(ErrorOf(With("max_orders: 1000", "max_orders: 2147483648")),
            "t.textproto:3: limits.max_orders: rejected by the engine: "
            "limits.max_orders must be in [1, 2^30]");
  EXPECT_EQ(ErrorOf(With("max_instruments: 16", "max_instruments: 65537")),
            "t.textproto:3: limits.max_instruments: rejected by the engine: "
            "limits.max_instruments must be in [2, 65536]");
  EXPECT_EQ(
      ErrorOf(With("max_instruments: 16",
                   "max_instruments: 16 max_client_order_ids: 2147483648")),
      "t.textproto:3: limits.max_client_order_ids: rejected by the "
      "engine: limits.max_client_order_ids must be in [1, 2^30]");
  EXPECT_EQ(ErrorOf(With("months: 3", R"(months: 3 max_price: "50000.00")")),
            "t.textproto:14: futures[0]: XGX7: rejected by the engine: "
            "instrument 1: max_price / tick must be <= 2^22 levels");
}

}  // namespace
}  // namespace cfx::gateway
