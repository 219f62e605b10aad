// Clearing over the protobuf protocol (docs/protocol.md, "Clearing"):
// SettlementQuery, SettlementStatusRequest and CollateralRequest. The desk
// is tested directly against an in-memory settlement service fed synthetic
// engine events; the gateway-level tests run a pb::Gateway on loopback with
// a real engine behind it (settlement_gateway_fixture.h), so collateral
// requests are decided by the engine.
#include "gateway/pb/settlement_desk.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "gateway/config/settlement_config.h"
#include "settlement/settlement_report.h"
#include "tests/gateway/pb/settlement_gateway_fixture.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::settlement_test {
namespace {

namespace w = cfx::wire::v1;
using pb::SettlementDesk;
using pb::internal::ParseAmountMicros;
using server_test::kWait;

constexpr int64_t kDec2 = kDec1 + 1;
constexpr int64_t kUsd = 1'000'000;  // micro-dollars per dollar
constexpr int64_t kOpening = 10'000'000 * kUsd;

const UserConfig& User(const ServerConfig& config, std::string_view name) {
  const UserConfig* u = config.FindUserByName(name);
  EXPECT_NE(u, nullptr) << name;
  static const UserConfig kNobody;
  return u != nullptr ? *u : kNobody;
}

std::set<std::string> Accounts(const std::vector<w::Envelope>& answer) {
  std::set<std::string> out;
  for (const w::Envelope& e : answer) {
    for (const w::AccountSettlement& a : e.settlement_report().accounts()) {
      out.insert(a.account());
    }
  }
  return out;
}

// The demo market with an in-memory settlement service that has settled
// two days of XB2SZ6: on 2026-12-01 FIRM-A (CM-1) buys 2 from FIRM-C
// (CM-2) at $5.85, on 2026-12-02 FIRM-B (CM-1) buys 1 from PROV-A (CM-2)
// at $5.90, both inside the settlement window.
class SettlementDeskTest : public ::testing::Test {
 protected:
  SettlementDeskTest()
      : config_(server_test::DemoConfig()),
        service_(settlement::SettlementService::InMemory(
            BuildSettlementConfig(config_))),
        desk_(config_, service_.get()) {}

  void SettleTwoDays() {
    Trade("XB2SZ6", Settle(kDec1) - 10 * kMinute, 58'500, 2, "FIRM-A",
          "FIRM-C");
    Fix(kDec1);
    Trade("XB2SZ6", Settle(kDec2) - 5 * kMinute, 59'000, 1, "FIRM-B", "PROV-A");
    Fix(kDec2);
    ASSERT_TRUE(service_->status().ok()) << service_->status().ToString();
    ASSERT_EQ(service_->SettledDates(), (std::vector<int64_t>{kDec1, kDec2}));
  }

  int64_t Settle(int64_t day) const {
    return day * kDayNs + config_.index.fixing_utc_seconds * kSecond;
  }

  void Trade(std::string_view symbol, int64_t ts, int64_t price, int64_t lots,
             std::string_view buyer, std::string_view seller) {
    exchange::Event e = Next(exchange::EventType::kTrade, ts);
    e.trade_id = exchange::TradeId{++trade_id_};
    e.instrument = config_.FindInstrument(symbol)->id;
    e.side = exchange::Side::kBuy;
    e.account = config_.FindAccount(buyer)->id;
    e.counter_account = config_.FindAccount(seller)->id;
    e.price = exchange::Price{price};
    e.quantity = exchange::Quantity{lots};
    service_->OnEvent(e);
  }

  void Fix(int64_t day) {
    exchange::Event e = Next(exchange::EventType::kIndexFixing, Settle(day));
    e.count = static_cast<uint32_t>(day);
    service_->OnEvent(e);
  }

  exchange::Event Next(exchange::EventType type, int64_t ts) {
    exchange::Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq_};
    e.ts = exchange::Timestamp{ts};
    return e;
  }

  std::vector<w::Envelope> Report(std::string_view user,
                                  const std::string& date) {
    w::SettlementQuery q;
    q.set_request_id(++request_id_);
    q.set_date(date);
    return desk_.Report(User(config_, user), q);
  }

  // The refusal `answer` must be: one ReferenceAck of the last request.
  static std::optional<w::ReferenceAck> Refusal(
      const std::vector<w::Envelope>& answer) {
    if (answer.size() != 1 || !answer[0].has_reference_ack()) {
      return std::nullopt;
    }
    return answer[0].reference_ack();
  }

  ServerConfig config_;
  std::unique_ptr<settlement::SettlementService> service_;
  SettlementDesk desk_;
  uint64_t seq_ = 0;
  uint64_t trade_id_ = 0;
  uint64_t request_id_ = 0;
};

TEST_F(SettlementDeskTest, ClearingMembersSeeOnlyTheirOwnAccounts) {
  SettleTwoDays();
  const std::vector<w::Envelope> cm1 = Report("clear-1", "2026-12-02");
  ASSERT_EQ(cm1.size(), 1u);
  ASSERT_TRUE(cm1[0].has_settlement_report());
  EXPECT_EQ(Accounts(cm1),
            (std::set<std::string>{"FIRM-A", "FIRM-B", "PROV-C"}));
  const std::vector<w::Envelope> cm2 = Report("clear-2", "2026-12-02");
  ASSERT_EQ(cm2.size(), 1u);
  EXPECT_EQ(Accounts(cm2),
            (std::set<std::string>{"FIRM-C", "PROV-A", "PROV-B"}));
  for (const w::AccountSettlement& a : cm2[0].settlement_report().accounts()) {
    EXPECT_EQ(a.clearing_member(), "CM-2");
  }
  // The settlement prices are the same for both.
  EXPECT_EQ(cm1[0].settlement_report().contracts_size(),
            cm2[0].settlement_report().contracts_size());
  EXPECT_GT(cm1[0].settlement_report().contracts_size(), 0);
}

TEST_F(SettlementDeskTest, ReportCarriesPricesPositionsAndMoneyAsDecimals) {
  SettleTwoDays();
  const std::vector<w::Envelope> answer = Report("clear-1", "2026-12-02");
  ASSERT_EQ(answer.size(), 1u);
  const w::SettlementReport& r = answer[0].settlement_report();
  EXPECT_EQ(r.request_id(), request_id_);
  EXPECT_EQ(r.date(), "2026-12-02");
  EXPECT_FALSE(r.more());
  const w::SettlementPrice* dec = nullptr;
  for (const w::SettlementPrice& c : r.contracts()) {
    if (c.symbol() == "XB2SZ6") dec = &c;
  }
  ASSERT_NE(dec, nullptr);
  // Every future has a settlement price (those that did not trade: Tier 3).
  EXPECT_EQ(static_cast<std::size_t>(r.contracts_size()),
            service_->Report(kDec2)->contracts.size());
  EXPECT_EQ(r.contracts_size(), 24);
  EXPECT_EQ(dec->price(), "5.90");
  EXPECT_EQ(dec->tier(), "1");
  EXPECT_FALSE(dec->final());
  EXPECT_EQ(dec->open_interest(), 3);
  // FIRM-A, long 2 from $5.85: 730 x 2 x $0.05 = $73.00 to the account.
  const settlement::RunReport* run = service_->Report(kDec2);
  ASSERT_NE(run, nullptr);
  const uint32_t firm_a = config_.FindAccount("FIRM-A")->id.value;
  for (const w::AccountSettlement& a : r.accounts()) {
    if (a.account() != "FIRM-A") continue;
    ASSERT_EQ(a.positions_size(), 1);
    EXPECT_EQ(a.positions(0).symbol(), "XB2SZ6");
    EXPECT_EQ(a.positions(0).position(), 2);
    EXPECT_EQ(a.positions(0).variation_margin(), "73.000000");
    EXPECT_EQ(a.variation_margin(), "73.000000");
    EXPECT_EQ(a.spot_cash(), "0.000000");
    EXPECT_EQ(a.initial_margin(),
              settlement::AmountText(run->accounts[firm_a].initial_margin));
    // 730 x 2 x $5.90 x 15 %.
    EXPECT_EQ(a.initial_margin(), "1292.100000");
    EXPECT_EQ(a.collateral(),
              settlement::AmountText(exchange::Amount{kOpening + 73 * kUsd}));
  }
}

// Every name a member's answer holds: accounts, members, counterparties.
std::set<std::string> Names(const std::vector<w::Envelope>& answer) {
  std::set<std::string> out;
  for (const w::Envelope& e : answer) {
    const w::SettlementReport& r = e.settlement_report();
    for (const w::AccountSettlement& a : r.accounts()) {
      out.insert(a.account());
      out.insert(a.clearing_member());
    }
    for (const w::SettlementTrade& t : r.trades()) {
      out.insert(t.account());
      out.insert(t.clearing_member());
    }
    for (const w::CashMovement& m : r.movements()) {
      out.insert(m.account());
      out.insert(m.clearing_member());
      out.insert(m.counterparty());
    }
  }
  return out;
}

TEST_F(SettlementDeskTest, ReportListsTheMembersFillsAndCashMovementsOnly) {
  SettleTwoDays();
  const std::vector<w::Envelope> cm1 = Report("clear-1", "2026-12-02");
  ASSERT_EQ(cm1.size(), 1u);
  const w::SettlementReport& r = cm1[0].settlement_report();
  // FIRM-B's side of trade 2; PROV-A's side is CM-2's.
  ASSERT_EQ(r.trades_size(), 1);
  EXPECT_EQ(r.trades(0).trade_id(), 2u);
  EXPECT_EQ(r.trades(0).match_time_ns(), Settle(kDec2) - 5 * kMinute);
  EXPECT_EQ(r.trades(0).account(), "FIRM-B");
  EXPECT_EQ(r.trades(0).clearing_member(), "CM-1");
  EXPECT_EQ(r.trades(0).symbol(), "XB2SZ6");
  EXPECT_EQ(r.trades(0).side(), w::SIDE_BUY);
  EXPECT_EQ(r.trades(0).quantity(), 1);
  EXPECT_EQ(r.trades(0).price(), "5.90");
  // FIRM-A's VM from the clearing house.
  ASSERT_EQ(r.movements_size(), 1);
  EXPECT_EQ(r.movements(0).kind(), "VARIATION_MARGIN");
  EXPECT_EQ(r.movements(0).account(), "FIRM-A");
  EXPECT_EQ(r.movements(0).amount(), "73.000000");
  EXPECT_EQ(r.movements(0).counterparty(), "CLEARING-HOUSE");
  EXPECT_EQ(r.movements(0).reference(), "XB2SZ6");
  // Day 1 lists the opening collateral of CM-1's accounts, from the bank.
  const std::vector<w::Envelope> day1 = Report("clear-1", "2026-12-01");
  const w::SettlementReport& r1 = day1[0].settlement_report();
  ASSERT_EQ(r1.movements_size(), 3);
  for (const w::CashMovement& m : r1.movements()) {
    EXPECT_EQ(m.kind(), "DEPOSIT");
    EXPECT_EQ(m.amount(), "10000000.000000");
    EXPECT_EQ(m.counterparty(), "BANK");
    EXPECT_EQ(m.reference(), "0");
  }
  // No other firm's account, nor the other member, anywhere in CM-1's
  // answers.
  std::set<std::string> names = Names(cm1);
  names.merge(Names(day1));
  EXPECT_EQ(names, (std::set<std::string>{"FIRM-A", "FIRM-B", "PROV-C", "CM-1",
                                          "CLEARING-HOUSE", "BANK"}));
  EXPECT_EQ(Names(Report("clear-2", "2026-12-02")),
            (std::set<std::string>{"FIRM-C", "PROV-A", "PROV-B", "CM-2",
                                   "CLEARING-HOUSE"}));
}

// XB2SZ6's last trading day, 2026-12-31, with every December fixing at
// $5.808 from trades.
TEST_F(SettlementDeskTest, FinalSettlementShowsPositionZeroAndTheFspAtTheMill) {
  service_->set_fixings(
      [](uint32_t, int64_t day) -> std::optional<settlement::FixingValue> {
        if (day < kDec1 || day > kDec1 + 30) return std::nullopt;
        return settlement::FixingValue{true, 5'808'000, true};
      });
  SettleTwoDays();
  Fix(kDec1 + 30);
  ASSERT_TRUE(service_->status().ok()) << service_->status().ToString();
  const std::vector<w::Envelope> answer = Report("clear-1", "2026-12-31");
  ASSERT_EQ(answer.size(), 1u);
  const w::SettlementReport& r = answer[0].settlement_report();
  for (const w::SettlementPrice& c : r.contracts()) {
    if (c.symbol() == "XB2SZ6") {
      EXPECT_TRUE(c.final());
      EXPECT_FALSE(c.disrupted());
      EXPECT_EQ(c.price(), "5.808");
    } else if (c.symbol() == "XB2SF7") {
      EXPECT_EQ(c.price(), "5.90");  // Tier 3 at the tick
    }
  }
  bool seen = false;
  for (const w::AccountSettlement& a : r.accounts()) {
    if (a.account() != "FIRM-A") continue;
    ASSERT_EQ(a.positions_size(), 1);
    EXPECT_EQ(a.positions(0).position(), 0);
    EXPECT_TRUE(a.positions(0).closed());
    EXPECT_EQ(a.positions(0).final_quantity(), 2);
    // 730 x 2 x (5.808 - 5.90) = -$134.32.
    EXPECT_EQ(a.positions(0).variation_margin(), "-134.320000");
    EXPECT_EQ(a.initial_margin(), "0.000000");
    seen = true;
  }
  EXPECT_TRUE(seen);
  ASSERT_GE(r.movements_size(), 1);
  EXPECT_EQ(r.movements(0).kind(), "FINAL_SETTLEMENT");
  EXPECT_EQ(r.movements(0).amount(), "-134.320000");
}

TEST_F(SettlementDeskTest, EveryAmountHasSixDecimals) {
  SettleTwoDays();
  const auto six = [](const std::string& amount) {
    const std::size_t point = amount.find('.');
    return point != std::string::npos && amount.size() - point - 1 == 6;
  };
  for (const char* date : {"2026-12-01", "2026-12-02"}) {
    for (const w::Envelope& e : Report("admin", date)) {
      const w::SettlementReport& r = e.settlement_report();
      for (const w::AccountSettlement& a : r.accounts()) {
        for (const std::string* s : {&a.variation_margin(), &a.spot_cash(),
                                     &a.initial_margin(), &a.collateral()}) {
          EXPECT_TRUE(six(*s)) << *s;
        }
        for (const w::PositionLine& p : a.positions()) {
          EXPECT_TRUE(six(p.variation_margin())) << p.variation_margin();
        }
      }
      for (const w::CashMovement& m : r.movements()) {
        EXPECT_TRUE(six(m.amount())) << m.amount();
      }
    }
  }
}

TEST_F(SettlementDeskTest, AdminSeesEveryAccount) {
  SettleTwoDays();
  EXPECT_EQ(Accounts(Report("admin", "2026-12-01")),
            (std::set<std::string>{"FIRM-A", "FIRM-B", "FIRM-C", "PROV-A",
                                   "PROV-B", "PROV-C"}));
}

TEST_F(SettlementDeskTest, EmptyDateIsTheLatestSettledDate) {
  SettleTwoDays();
  const std::vector<w::Envelope> answer = Report("clear-2", "");
  ASSERT_EQ(answer.size(), 1u);
  ASSERT_TRUE(answer[0].has_settlement_report());
  EXPECT_EQ(answer[0].settlement_report().date(), "2026-12-02");
}

TEST_F(SettlementDeskTest, OtherRolesAreRefusedNotAuthorized) {
  SettleTwoDays();
  for (const char* user : {"trader-a", "provider-a", "rater", "attester"}) {
    const std::optional<w::ReferenceAck> ack =
        Refusal(Report(user, "2026-12-02"));
    ASSERT_TRUE(ack.has_value()) << user;
    EXPECT_EQ(ack->reason(), w::REJECT_REASON_NOT_AUTHORIZED) << user;
    EXPECT_EQ(ack->request_id(), request_id_);
    EXPECT_FALSE(ack->accepted());
    w::SettlementStatusRequest m;
    m.set_request_id(7);
    const w::Envelope status = desk_.Status(User(config_, user), m);
    ASSERT_TRUE(status.has_reference_ack()) << user;
    EXPECT_EQ(status.reference_ack().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
    EXPECT_EQ(status.reference_ack().request_id(), 7u);
  }
}

TEST_F(SettlementDeskTest, UnsettledAndMalformedDatesAreRefused) {
  SettleTwoDays();
  // A Saturday, a day before the first run and one after the last.
  for (const char* date : {"2026-12-05", "2026-11-30", "2026-12-03"}) {
    const std::optional<w::ReferenceAck> ack = Refusal(Report("clear-1", date));
    ASSERT_TRUE(ack.has_value()) << date;
    EXPECT_EQ(ack->reason(), w::REJECT_REASON_NOT_SETTLED) << date;
    EXPECT_NE(ack->text().find(date), std::string::npos) << ack->text();
  }
  for (const char* date : {"2026-13-01", "2026-02-30", "2026-12-1", "yesterday",
                           "20261201", " 2026-12-01", "2026-12-01T00:00:00Z"}) {
    const std::optional<w::ReferenceAck> ack = Refusal(Report("clear-1", date));
    ASSERT_TRUE(ack.has_value()) << date;
    EXPECT_EQ(ack->reason(), w::REJECT_REASON_INVALID_DATE) << date;
  }
}

TEST_F(SettlementDeskTest, NothingSettledYetIsRefusedNotSettled) {
  const std::optional<w::ReferenceAck> ack = Refusal(Report("clear-1", ""));
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack->reason(), w::REJECT_REASON_NOT_SETTLED);
  w::SettlementStatusRequest m;
  const w::Envelope status = desk_.Status(User(config_, "admin"), m);
  ASSERT_TRUE(status.has_settlement_status());
  EXPECT_TRUE(status.settlement_status().ok());
  EXPECT_EQ(status.settlement_status().settled_dates_size(), 0);
  EXPECT_EQ(status.settlement_status().latest_date(), "");
}

TEST_F(SettlementDeskTest, WithoutSettlementQueriesAreRefusedUnavailable) {
  const SettlementDesk none(config_, nullptr);
  w::SettlementQuery q;
  q.set_request_id(3);
  const std::vector<w::Envelope> answer =
      none.Report(User(config_, "clear-1"), q);
  const std::optional<w::ReferenceAck> ack = Refusal(answer);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack->reason(), w::REJECT_REASON_SETTLEMENT_UNAVAILABLE);
  const w::Envelope status =
      none.Status(User(config_, "admin"), w::SettlementStatusRequest());
  EXPECT_EQ(status.reference_ack().reason(),
            w::REJECT_REASON_SETTLEMENT_UNAVAILABLE);
}

TEST_F(SettlementDeskTest, StatusListsTheSettledDatesAndTheLatestPrices) {
  SettleTwoDays();
  for (const char* user : {"clear-1", "admin"}) {
    w::SettlementStatusRequest m;
    m.set_request_id(11);
    const w::Envelope e = desk_.Status(User(config_, user), m);
    ASSERT_TRUE(e.has_settlement_status()) << user;
    const w::SettlementStatus& s = e.settlement_status();
    EXPECT_EQ(s.request_id(), 11u);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.error(), "");
    ASSERT_EQ(s.settled_dates_size(), 2);
    EXPECT_EQ(s.settled_dates(0), "2026-12-01");
    EXPECT_EQ(s.settled_dates(1), "2026-12-02");
    EXPECT_EQ(s.latest_date(), "2026-12-02");
    EXPECT_EQ(s.contracts_size(),
              static_cast<int>(service_->Report(kDec2)->contracts.size()));
  }
}

constexpr uint32_t kManyAccounts = 3'000;

// kManyAccounts accounts of one member (CM-1), each long or short one lot
// of XB2SZ6 bought at $5.80 inside the window of 2026-12-01, settled: the
// report is larger than one frame.
std::unique_ptr<settlement::SettlementService> ManyAccounts(
    const ServerConfig& config) {
  settlement::SettlementConfig sc = BuildSettlementConfig(config);
  sc.ledger.account_member.assign(kManyAccounts + 1, 1);
  sc.ledger.account_member[0] = 0;
  sc.account_names.assign(kManyAccounts + 1, "");
  sc.opening_collateral.assign(kManyAccounts + 1, exchange::Amount{kOpening});
  for (uint32_t a = 1; a <= kManyAccounts; ++a) {
    sc.account_names[a] = "ACCOUNT-" + std::to_string(a);
  }
  auto service = settlement::SettlementService::InMemory(sc);
  const uint32_t dec = config.FindInstrument("XB2SZ6")->id.value;
  const int64_t settle =
      kDec1 * kDayNs + config.index.fixing_utc_seconds * kSecond;
  uint64_t seq = 0;
  for (uint32_t a = 1; a + 1 <= kManyAccounts; a += 2) {
    exchange::Event e;
    e.type = exchange::EventType::kTrade;
    e.seq = exchange::Seq{++seq};
    e.ts =
        exchange::Timestamp{settle - 10 * kMinute + static_cast<int64_t>(seq)};
    e.trade_id = exchange::TradeId{seq};
    e.instrument = exchange::InstrumentId{dec};
    e.side = exchange::Side::kBuy;
    e.account = exchange::AccountId{a};
    e.counter_account = exchange::AccountId{a + 1};
    e.price = exchange::Price{58'000};
    e.quantity = exchange::Quantity{1};
    service->OnEvent(e);
  }
  exchange::Event fix;
  fix.type = exchange::EventType::kIndexFixing;
  fix.seq = exchange::Seq{++seq};
  fix.ts = exchange::Timestamp{settle};
  fix.count = static_cast<uint32_t>(kDec1);
  service->OnEvent(fix);
  return service;
}

// The report of ManyAccounts for `user`, in its parts.
std::vector<w::Envelope> ManyAccountsReport(const char* user,
                                            uint64_t request_id) {
  const ServerConfig config = server_test::DemoConfig();
  auto service = ManyAccounts(config);
  EXPECT_TRUE(service->status().ok()) << service->status().ToString();
  const SettlementDesk desk(config, service.get());
  w::SettlementQuery q;
  q.set_request_id(request_id);
  q.set_date("2026-12-01");
  return desk.Report(*config.FindUserByName(user), q);
}

// The report of ManyAccounts comes in parts.
TEST(SettlementDeskSplit, BigReportIsSplitIntoPartsWithMore) {
  constexpr uint32_t kAccounts = kManyAccounts;
  const std::vector<w::Envelope> parts = ManyAccountsReport("admin", 42);
  ASSERT_GT(parts.size(), 1u);
  std::vector<std::string> accounts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    ASSERT_TRUE(parts[i].has_settlement_report()) << i;
    const w::SettlementReport& p = parts[i].settlement_report();
    EXPECT_EQ(p.request_id(), 42u);
    EXPECT_EQ(p.date(), "2026-12-01");
    EXPECT_EQ(p.more(), i + 1 < parts.size()) << i;
    EXPECT_LE(parts[i].ByteSizeLong(), SettlementDesk::kMaxMessageBytes) << i;
    EXPECT_EQ(p.contracts_size() > 0, i == 0) << i;
    for (const w::AccountSettlement& a : p.accounts()) {
      accounts.push_back(a.account());
      ASSERT_EQ(a.positions_size(), 1) << a.account();
    }
  }
  ASSERT_EQ(accounts.size(), kAccounts);
  for (uint32_t a = 1; a <= kAccounts; ++a) {
    EXPECT_EQ(accounts[a - 1], "ACCOUNT-" + std::to_string(a));
  }
}

// The same accounts: their fills and opening deposits (one each) follow
// the accounts across the parts, in order.
TEST(SettlementDeskSplit, FillsAndMovementsFollowTheAccountsAcrossParts) {
  constexpr uint32_t kAccounts = kManyAccounts;
  const std::vector<w::Envelope> parts = ManyAccountsReport("clear-1", 43);
  ASSERT_GT(parts.size(), 2u);
  std::vector<uint64_t> trade_ids;
  std::size_t movements = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const w::SettlementReport& p = parts[i].settlement_report();
    EXPECT_LE(parts[i].ByteSizeLong(), SettlementDesk::kMaxMessageBytes) << i;
    EXPECT_EQ(p.more(), i + 1 < parts.size()) << i;
    for (const w::SettlementTrade& t : p.trades()) {
      trade_ids.push_back(t.trade_id());
    }
    movements += static_cast<std::size_t>(p.movements_size());
  }
  ASSERT_EQ(trade_ids.size(), kAccounts);  // both sides of 1,500 trades
  EXPECT_TRUE(std::is_sorted(trade_ids.begin(), trade_ids.end()));
  EXPECT_EQ(movements, kAccounts);  // the opening deposits; VM is 0
}

TEST(ParseAmountMicros, AcceptsPositiveDecimalsWithAtMostSixDecimals) {
  EXPECT_EQ(ParseAmountMicros("250000"), 250'000 * kUsd);
  EXPECT_EQ(ParseAmountMicros("250000.00"), 250'000 * kUsd);
  EXPECT_EQ(ParseAmountMicros("0.000001"), 1);
  EXPECT_EQ(ParseAmountMicros("007.5"), 7'500'000);
  EXPECT_EQ(ParseAmountMicros("9223372036854.775807"), INT64_MAX);
}

TEST(ParseAmountMicros, RefusesAnythingElse) {
  for (const char* bad :
       {"", "0", "0.000000", "-5", "+5", "5.", ".5", "5.0000001", "1e6", " 5",
        "5 ", "5,00", "1.2.3", "abc", "9223372036854.775808",
        "99999999999999999999", "\xd9\xa1"}) {
    EXPECT_EQ(ParseAmountMicros(bad), std::nullopt) << bad;
  }
}

TEST_F(SettlementDeskTest, CollateralRequestBecomesOneEngineCommand) {
  w::CollateralRequest m;
  m.set_request_id(5);
  m.set_account("PROV-C");
  m.set_action(w::COLLATERAL_ACTION_WITHDRAW);
  m.set_amount("1500.25");
  SettlementDesk::Request r = desk_.Collateral(User(config_, "clear-1"), m);
  ASSERT_TRUE(r.submit) << r.ack.text();
  EXPECT_EQ(r.cmd.type, exchange::CommandType::kCollateral);
  EXPECT_EQ(r.cmd.account, config_.FindAccount("PROV-C")->id);
  EXPECT_EQ(r.cmd.quantity.lots, -1'500'250'000);
  EXPECT_EQ(r.cmd.target, 0u);
  EXPECT_NE(r.cmd.client_order_id.value, 0u);
  desk_.Submitted(r, 77);
  EXPECT_EQ(desk_.pending(), 1u);

  // A settlement run's booking of the same account is not the answer.
  exchange::Event booking;
  booking.type = exchange::EventType::kCollateralChanged;
  booking.account = r.cmd.account;
  booking.count = static_cast<uint32_t>(kDec1);
  booking.client_order_id = r.cmd.client_order_id;
  uint64_t session = 0;
  w::CollateralAck ack;
  EXPECT_FALSE(desk_.OnEvent(booking, &session, &ack));
  EXPECT_EQ(desk_.pending(), 1u);

  exchange::Event done;
  done.type = exchange::EventType::kCollateralChanged;
  done.seq = exchange::Seq{900};
  done.account = r.cmd.account;
  done.quantity = r.cmd.quantity;
  done.leaves = exchange::Quantity{kOpening - 1'500'250'000};
  done.client_order_id = r.cmd.client_order_id;
  ASSERT_TRUE(desk_.OnEvent(done, &session, &ack));
  EXPECT_EQ(session, 77u);
  EXPECT_TRUE(ack.accepted());
  EXPECT_EQ(ack.request_id(), 5u);
  EXPECT_EQ(ack.account(), "PROV-C");
  EXPECT_EQ(ack.amount(), "-1500.250000");
  EXPECT_EQ(ack.collateral_after(), "9998499.750000");
  EXPECT_EQ(ack.seq(), 900u);
  EXPECT_EQ(desk_.pending(), 0u);
}

TEST_F(SettlementDeskTest, CollateralRefusalsNeverBuildACommand) {
  const auto request = [&](std::string_view user, const std::string& account,
                           const std::string& amount) {
    w::CollateralRequest m;
    m.set_request_id(9);
    m.set_account(account);
    m.set_action(w::COLLATERAL_ACTION_DEPOSIT);
    m.set_amount(amount);
    return desk_.Collateral(User(config_, user), m);
  };
  // Another member's account reads exactly as one that does not exist.
  const SettlementDesk::Request other = request("clear-1", "FIRM-C", "100");
  const SettlementDesk::Request missing = request("clear-1", "FIRM-Z", "100");
  EXPECT_FALSE(other.submit);
  EXPECT_EQ(other.ack.reason(), w::REJECT_REASON_UNKNOWN_ACCOUNT);
  EXPECT_EQ(missing.ack.reason(), w::REJECT_REASON_UNKNOWN_ACCOUNT);
  EXPECT_EQ(other.ack.text(), "no account \"FIRM-C\"");
  EXPECT_EQ(missing.ack.text(), "no account \"FIRM-Z\"");
  const SettlementDesk::Request own = request("clear-2", "FIRM-C", "100");
  EXPECT_TRUE(own.submit);
  for (const char* user : {"trader-a", "admin", "provider-a"}) {
    const SettlementDesk::Request r = request(user, "FIRM-A", "100");
    EXPECT_FALSE(r.submit) << user;
    EXPECT_EQ(r.ack.reason(), w::REJECT_REASON_NOT_AUTHORIZED) << user;
  }
  for (const char* amount : {"", "0", "-100", "1.0000001", "1e3"}) {
    const SettlementDesk::Request r = request("clear-1", "FIRM-A", amount);
    EXPECT_FALSE(r.submit) << amount;
    EXPECT_EQ(r.ack.reason(), w::REJECT_REASON_INVALID_AMOUNT) << amount;
  }
  EXPECT_EQ(desk_.pending(), 0u);
}

// ---------------------------------------------------------------- gateway

using ClientPtr = std::unique_ptr<client::Client>;

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = server_test::LogOn(port, server_test::DemoLogonOptOut(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

// Receives until `match` holds (heartbeats and other messages skipped).
std::optional<w::Envelope> AwaitMessage(
    client::Client& c, const std::function<bool(const w::Envelope&)>& match) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = c.Receive(kWait);
    if (!r.has_value()) {
      ADD_FAILURE() << r.error().ToString();
      return std::nullopt;
    }
    if (match(r.value())) return r.value();
  }
  ADD_FAILURE() << "no matching message in time";
  return std::nullopt;
}

class SettlementGatewayTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(gw_.ok()); }

  // Sends a CollateralRequest and returns its CollateralAck.
  std::optional<w::CollateralAck> Collateral(client::Client& c,
                                             const std::string& account,
                                             w::CollateralAction action,
                                             const std::string& amount) {
    w::Envelope e;
    w::CollateralRequest* m = e.mutable_collateral_request();
    const uint64_t id = ++next_request_;
    m->set_request_id(id);
    m->set_account(account);
    m->set_action(action);
    m->set_amount(amount);
    EXPECT_TRUE(c.Send(e).ok());
    std::optional<w::Envelope> ack =
        AwaitMessage(c, [id](const w::Envelope& x) {
          return (x.has_collateral_ack() &&
                  x.collateral_ack().request_id() == id) ||
                 x.has_session_reject();
        });
    if (!ack.has_value() || !ack->has_collateral_ack()) {
      ADD_FAILURE() << "no CollateralAck for " << id;
      return std::nullopt;
    }
    return ack->collateral_ack();
  }

  SettlementGateway gw_;
  uint64_t next_request_ = 0;
};

TEST_F(SettlementGatewayTest, DepositReachesTheEngineAndAcksTheNewCollateral) {
  ClientPtr cm = MustLogOn(gw_.port(), "clear-1");
  ASSERT_NE(cm, nullptr);
  const std::optional<w::CollateralAck> ack =
      Collateral(*cm, "FIRM-A", w::COLLATERAL_ACTION_DEPOSIT, "250000.00");
  ASSERT_TRUE(ack.has_value());
  EXPECT_TRUE(ack->accepted()) << ack->text();
  EXPECT_EQ(ack->account(), "FIRM-A");
  EXPECT_EQ(ack->amount(), "250000.000000");
  EXPECT_EQ(ack->collateral_after(), "10250000.000000");
  EXPECT_GT(ack->seq(), 0u);
  EXPECT_EQ(gw_.Collateral("FIRM-A"), kOpening + 250'000 * kUsd);
  // And back out again.
  const std::optional<w::CollateralAck> out =
      Collateral(*cm, "FIRM-A", w::COLLATERAL_ACTION_WITHDRAW, "250000.000001");
  ASSERT_TRUE(out.has_value());
  EXPECT_TRUE(out->accepted()) << out->text();
  EXPECT_EQ(out->amount(), "-250000.000001");
  EXPECT_EQ(out->collateral_after(), "9999999.999999");
  EXPECT_EQ(gw_.Collateral("FIRM-A"), kOpening - 1);
}

TEST_F(SettlementGatewayTest, WithdrawalBeyondTheCollateralIsRefused) {
  ClientPtr cm = MustLogOn(gw_.port(), "clear-2");
  ASSERT_NE(cm, nullptr);
  const uint64_t before = gw_.CommandsApplied();
  const std::optional<w::CollateralAck> ack =
      Collateral(*cm, "PROV-B", w::COLLATERAL_ACTION_WITHDRAW, "10000000.01");
  ASSERT_TRUE(ack.has_value());
  EXPECT_FALSE(ack->accepted());
  EXPECT_EQ(ack->reason(), w::REJECT_REASON_INSUFFICIENT_MARGIN);
  EXPECT_NE(ack->text().find("INSUFFICIENT_MARGIN"), std::string::npos);
  EXPECT_EQ(ack->collateral_after(), "");
  // The engine decided it; nothing moved.
  EXPECT_EQ(gw_.CommandsApplied(), before + 1);
  EXPECT_EQ(gw_.Collateral("PROV-B"), kOpening);
}

TEST_F(SettlementGatewayTest, AnotherMembersAccountIsAnsweredAsAnUnknownOne) {
  ClientPtr cm = MustLogOn(gw_.port(), "clear-1");
  ASSERT_NE(cm, nullptr);
  const std::optional<w::CollateralAck> other =
      Collateral(*cm, "FIRM-C", w::COLLATERAL_ACTION_WITHDRAW, "1.00");
  ASSERT_TRUE(other.has_value());
  const std::optional<w::CollateralAck> missing =
      Collateral(*cm, "FIRM-Q", w::COLLATERAL_ACTION_WITHDRAW, "1.00");
  ASSERT_TRUE(missing.has_value());
  EXPECT_FALSE(other->accepted());
  EXPECT_EQ(other->reason(), w::REJECT_REASON_UNKNOWN_ACCOUNT);
  EXPECT_EQ(other->reason(), missing->reason());
  EXPECT_EQ(other->text(), "no account \"FIRM-C\"");
  EXPECT_EQ(missing->text(), "no account \"FIRM-Q\"");
  EXPECT_EQ(gw_.CommandsApplied(), 0u);
  EXPECT_EQ(gw_.Collateral("FIRM-C"), kOpening);
}

TEST_F(SettlementGatewayTest, TraderAndBadAmountsAreRefusedBeforeTheEngine) {
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const std::optional<w::CollateralAck> t =
      Collateral(*trader, "FIRM-A", w::COLLATERAL_ACTION_DEPOSIT, "100.00");
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->accepted());
  EXPECT_EQ(t->reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  ClientPtr cm = MustLogOn(gw_.port(), "clear-1");
  ASSERT_NE(cm, nullptr);
  for (const char* amount : {"0", "-5", "12.3456789", "", "1e9"}) {
    const std::optional<w::CollateralAck> a =
        Collateral(*cm, "FIRM-A", w::COLLATERAL_ACTION_DEPOSIT, amount);
    ASSERT_TRUE(a.has_value()) << amount;
    EXPECT_EQ(a->reason(), w::REJECT_REASON_INVALID_AMOUNT) << amount;
  }
  EXPECT_EQ(gw_.CommandsApplied(), 0u);
  EXPECT_EQ(gw_.Collateral("FIRM-A"), kOpening);
}

TEST_F(SettlementGatewayTest, UnknownActionIsASessionReject) {
  ClientPtr cm = MustLogOn(gw_.port(), "clear-1");
  ASSERT_NE(cm, nullptr);
  w::Envelope e;
  e.mutable_collateral_request()->set_request_id(1);
  e.mutable_collateral_request()->set_account("FIRM-A");
  e.mutable_collateral_request()->set_amount("1");
  e.mutable_collateral_request()->set_action(
      static_cast<w::CollateralAction>(9));
  ASSERT_TRUE(cm->Send(e).ok());
  const std::optional<w::Envelope> r = AwaitMessage(
      *cm, [](const w::Envelope& x) { return x.has_session_reject(); });
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->session_reject().reason(),
            w::SESSION_REJECT_REASON_INVALID_ENUM);
  EXPECT_EQ(r->session_reject().field(), "action");
  EXPECT_EQ(gw_.CommandsApplied(), 0u);
}

TEST_F(SettlementGatewayTest, ReportAndStatusOverTheWire) {
  ASSERT_TRUE(gw_.Trade("XB2SZ6", gw_.SettleNs(kDec1) - 10 * kMinute, 58'500, 2,
                        "FIRM-A", "FIRM-C"));
  ASSERT_TRUE(gw_.Fix(kDec1));
  ClientPtr cm = MustLogOn(gw_.port(), "clear-2");
  ASSERT_NE(cm, nullptr);
  w::Envelope q;
  q.mutable_settlement_query()->set_request_id(21);
  q.mutable_settlement_query()->set_date("2026-12-01");
  ASSERT_TRUE(cm->Send(q).ok());
  const std::optional<w::Envelope> r =
      AwaitMessage(*cm, [](const w::Envelope& x) {
        return x.has_settlement_report() || x.has_reference_ack();
      });
  ASSERT_TRUE(r.has_value());
  ASSERT_TRUE(r->has_settlement_report()) << r->DebugString();
  std::set<std::string> accounts;
  for (const w::AccountSettlement& a : r->settlement_report().accounts()) {
    accounts.insert(a.account());
    if (a.account() == "FIRM-C") {
      ASSERT_EQ(a.positions_size(), 1);
      EXPECT_EQ(a.positions(0).position(), -2);
    }
  }
  EXPECT_EQ(accounts, (std::set<std::string>{"FIRM-C", "PROV-A", "PROV-B"}));

  w::Envelope s;
  s.mutable_settlement_status_request()->set_request_id(22);
  ASSERT_TRUE(cm->Send(s).ok());
  const std::optional<w::Envelope> st = AwaitMessage(
      *cm, [](const w::Envelope& x) { return x.has_settlement_status(); });
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->settlement_status().request_id(), 22u);
  ASSERT_EQ(st->settlement_status().settled_dates_size(), 1);
  EXPECT_EQ(st->settlement_status().settled_dates(0), "2026-12-01");

  // A trader is refused, over the wire too.
  ClientPtr trader = MustLogOn(gw_.port(), "trader-c");
  ASSERT_NE(trader, nullptr);
  ASSERT_TRUE(trader->Send(q).ok());
  const std::optional<w::Envelope> refused = AwaitMessage(
      *trader, [](const w::Envelope& x) { return x.has_reference_ack(); });
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reference_ack().reason(), w::REJECT_REASON_NOT_AUTHORIZED);
  EXPECT_EQ(refused->reference_ack().request_id(), 21u);
}

}  // namespace
}  // namespace cfx::gateway::settlement_test

namespace cfx::gateway::settlement_test {
namespace {

// A fill of an account the settlement config does not know: the run of
// Dec 1 is refused ("every fill is counted exactly once").
class RefusedRunDeskTest : public ::testing::Test {
 protected:
  RefusedRunDeskTest()
      : config_(server_test::DemoConfig()),
        service_(settlement::SettlementService::InMemory(
            BuildSettlementConfig(config_))),
        desk_(config_, service_.get()) {
    exchange::Event t;
    t.type = exchange::EventType::kTrade;
    t.seq = exchange::Seq{1};
    t.ts =
        exchange::Timestamp{settlement_test::kDec1 * settlement_test::kDayNs +
                            20 * settlement_test::kHour};
    t.trade_id = exchange::TradeId{1};
    t.instrument = config_.FindInstrument("XB2SZ6")->id;
    t.side = exchange::Side::kBuy;
    t.account = config_.FindAccount("FIRM-A")->id;
    t.counter_account = exchange::AccountId{999};
    t.price = exchange::Price{58'000};
    t.quantity = exchange::Quantity{1};
    service_->OnEvent(t);
    exchange::Event f;
    f.type = exchange::EventType::kIndexFixing;
    f.seq = exchange::Seq{2};
    f.ts =
        exchange::Timestamp{settlement_test::kDec1 * settlement_test::kDayNs +
                            21 * settlement_test::kHour};
    f.count = static_cast<uint32_t>(settlement_test::kDec1);
    service_->OnEvent(f);
  }

  SettlementDesk::Rerun Rerun(std::string_view user, const std::string& date) {
    w::SettlementRerunRequest m;
    m.set_request_id(5);
    m.set_date(date);
    return desk_.RerunRequest(User(config_, user), m);
  }

  ServerConfig config_;
  std::unique_ptr<settlement::SettlementService> service_;
  SettlementDesk desk_;
};

TEST_F(RefusedRunDeskTest, StatusShowsTheRefusedDateAndWhy) {
  ASSERT_FALSE(service_->status().ok());
  w::SettlementStatusRequest m;
  const w::Envelope e = desk_.Status(User(config_, "admin"), m);
  ASSERT_TRUE(e.has_settlement_status());
  const w::SettlementStatus& s = e.settlement_status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error().find("every fill is counted exactly once"),
            std::string::npos)
      << s.error();
  EXPECT_EQ(s.refused_date(), "2026-12-01");
  ASSERT_EQ(s.waiting_dates_size(), 1);
  EXPECT_EQ(s.waiting_dates(0), "2026-12-01");
}

TEST_F(RefusedRunDeskTest, OnlyTheAdminMayRerunAndOnlyTheRefusedDate) {
  for (const char* user : {"clear-1", "trader-a", "rater"}) {
    const SettlementDesk::Rerun r = Rerun(user, "2026-12-01");
    EXPECT_FALSE(r.submit) << user;
    EXPECT_EQ(r.ack.reason(), w::REJECT_REASON_NOT_AUTHORIZED) << user;
  }
  SettlementDesk::Rerun r = Rerun("admin", "2026-12-02");
  EXPECT_FALSE(r.submit);
  EXPECT_EQ(r.ack.reason(), w::REJECT_REASON_NOTHING_TO_RERUN);
  EXPECT_NE(r.ack.text().find("the refused run is 2026-12-01"),
            std::string::npos)
      << r.ack.text();
  r = Rerun("admin", "2026-12-32");
  EXPECT_FALSE(r.submit);
  EXPECT_EQ(r.ack.reason(), w::REJECT_REASON_INVALID_DATE);
  // The refused date: one SETTLEMENT_RERUN command, acked once durable.
  r = Rerun("admin", "2026-12-01");
  ASSERT_TRUE(r.submit);
  EXPECT_EQ(r.cmd.type, exchange::CommandType::kSettlementRerun);
  EXPECT_EQ(r.cmd.target, static_cast<uint64_t>(settlement_test::kDec1));
  desk_.Submitted(r, 42);
  exchange::Event done;
  done.type = exchange::EventType::kSettlementRerun;
  done.seq = exchange::Seq{3};
  done.count = static_cast<uint32_t>(settlement_test::kDec1);
  done.client_order_id = r.cmd.client_order_id;
  uint64_t session = 0;
  w::SettlementRerunAck ack;
  ASSERT_TRUE(desk_.OnRerunEvent(done, &session, &ack));
  EXPECT_EQ(session, 42u);
  EXPECT_TRUE(ack.accepted());
  EXPECT_EQ(ack.seq(), 3u);
  EXPECT_EQ(ack.date(), "2026-12-01");
  EXPECT_EQ(desk_.pending(), 0u);
}

TEST_F(RefusedRunDeskTest, MarginCallsAreForMembersAndTheAdmin) {
  w::MarginCallQuery q;
  q.set_request_id(9);
  const std::vector<w::Envelope> answer =
      desk_.Calls(User(config_, "trader-a"), q);
  ASSERT_EQ(answer.size(), 1u);
  ASSERT_TRUE(answer[0].has_reference_ack());
  EXPECT_EQ(answer[0].reference_ack().reason(),
            w::REJECT_REASON_NOT_AUTHORIZED);
  // Nothing settled yet (the only run was refused).
  const std::vector<w::Envelope> none =
      desk_.Calls(User(config_, "clear-1"), q);
  ASSERT_EQ(none.size(), 1u);
  ASSERT_TRUE(none[0].has_reference_ack());
  EXPECT_EQ(none[0].reference_ack().reason(), w::REJECT_REASON_NOT_SETTLED);
}

}  // namespace
}  // namespace cfx::gateway::settlement_test
