// Positions over FIX (docs/fix.md, "RequestForPositions (AN)"): AN answered
// with AO and one AP per account and contract of a settled date, each
// clearing member seeing only its own accounts; and margin calls
// (docs/fix.md, "Margin calls"): CollateralInquiry (BB) answered with
// CollateralInquiryAck (BG) and one CollateralReport (BA) per call. A
// FixGateway with an in-memory SettlementService (built from the demo config)
// runs on its own gateway thread; a real QuickFIX initiator validating against
// the exchange's dictionary talks to it over loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/settlement_config.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/md/market_data.h"
#include "settlement/settlement_service.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/fix/fix_test_start.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::fix_test {
namespace {

using ClientPtr = std::unique_ptr<FixTestClient>;
using Millis = std::chrono::milliseconds;
using Pred = FixTestClient::Predicate;

constexpr Millis kWait{5'000};
constexpr int64_t kDec1 = 20'788;  // 2026-12-01
constexpr int64_t kHour = int64_t{3'600} * 1'000'000'000;
constexpr int64_t kMinute = int64_t{60} * 1'000'000'000;
constexpr uint32_t kZ6 = 1;  // XB2SZ6 in the demo config
// Demo accounts: 1 FIRM-A, 2 FIRM-B (CM-1); 3 FIRM-C, 4 PROV-A (CM-2).
constexpr uint32_t kFirmA = 1;
constexpr uint32_t kFirmB = 2;
constexpr uint32_t kFirmC = 3;
constexpr uint32_t kProvA = 4;

exchange::Event Trade(uint64_t seq, int64_t ts, int64_t price_units,
                      int64_t lots, uint32_t buyer, uint32_t seller) {
  exchange::Event e;
  e.type = exchange::EventType::kTrade;
  e.seq = exchange::Seq{seq};
  e.ts = exchange::Timestamp{ts};
  e.instrument = exchange::InstrumentId{kZ6};
  e.trade_id = exchange::TradeId{seq};
  e.side = exchange::Side::kBuy;
  e.account = exchange::AccountId{buyer};
  e.counter_account = exchange::AccountId{seller};
  e.price = exchange::Price{price_units};
  e.quantity = exchange::Quantity{lots};
  return e;
}

exchange::Event Fixing(uint64_t seq, int64_t day) {
  exchange::Event e;
  e.type = exchange::EventType::kIndexFixing;
  e.seq = exchange::Seq{seq};
  e.ts = exchange::Timestamp{day * 24 * kHour + 21 * kHour};
  e.count = static_cast<uint32_t>(day);
  return e;
}

Pred Type(std::string type, std::string req_id) {
  return [type, req_id](const FixMessage& m) {
    return m.type == type && m.Get(710) == req_id;
  };
}

// The demo config with FIRM-B opening at $500: its long XB2SZ6 at $6.00 on
// Dec 2 needs $657.00 of initial margin, a margin call of $157.00.
ServerConfig FirmBShort() {
  ServerConfig c = server_test::DemoConfig();
  for (AccountInfo& a : c.accounts) {
    if (a.name == "FIRM-B") a.collateral.micros = 500'000'000;
  }
  return c;
}

class FixPositionsTest : public ::testing::Test {
 protected:
  FixPositionsTest()
      : config_(FirmBShort()),
        instruments_(config_),
        md_(config_),
        ring_(1024),
        clock_(exchange::Timestamp{(kDec1 + 2) * 24 * kHour}),
        settlement_(settlement::SettlementService::InMemory(
            BuildSettlementConfig(config_))) {}

  // Dec 1: FIRM-A buys 2 XB2SZ6 from FIRM-C at $5.90 in the window.
  // Dec 2: FIRM-B buys 1 from PROV-A at $6.00: FIRM-A gets 730 x 2 x
  // 0.10 = $146, FIRM-C pays it.
  virtual std::vector<exchange::Event> Events() const {
    return {
        Trade(1, kDec1 * 24 * kHour + 20 * kHour + 50 * kMinute, 59'000, 2,
              kFirmA, kFirmC),
        Fixing(2, kDec1),
        Trade(3, (kDec1 + 1) * 24 * kHour + 20 * kHour + 55 * kMinute, 60'000,
              1, kFirmB, kProvA),
        Fixing(4, kDec1 + 1),
    };
  }

  void SetUp() override {
    for (const exchange::Event& e : Events()) settlement_->OnEvent(e);
    ASSERT_TRUE(settlement_->status().ok()) << settlement_->status().ToString();

    fix::FixGatewayDeps deps;
    deps.config = &config_;
    deps.instruments = &instruments_;
    deps.ring = &ring_;
    deps.market_data = &md_;
    deps.clock = &clock_;
    deps.dir = dir_.Sub("fix");
    deps.settlement = settlement_.get();
    auto gw = fix::FixGateway::Create(io_, deps);
    ASSERT_TRUE(gw.has_value()) << gw.error().ToString();
    gw_ = std::move(gw).value();
    Status st = gw_->GoLive();
    ASSERT_TRUE(st.ok()) << st.ToString();
    st = gw_->Listen("127.0.0.1", 0);
    ASSERT_TRUE(st.ok()) << st.ToString();
    thread_ = std::thread([this] {
      while (!stop_.load(std::memory_order_acquire)) {
        io_.run_one_for(Millis(1));
        gw_->Poll();
        if (io_.stopped()) io_.restart();
      }
    });
  }

  void TearDown() override {
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
    if (gw_ != nullptr) {
      gw_->Stop();
      io_.restart();
      io_.poll();
      gw_->Poll();
      io_.poll();
    }
  }

  ClientPtr LogOn(const std::string& comp_id, const std::string& user) {
    FixClientOptions o;
    o.sender_comp_id = comp_id;
    o.port = gw_->port();
    o.username = user;
    o.password = "demo-" + user;
    o.store_dir = dir_.Sub("client-" + user);
    auto c = StartFixTestClient(o);
    if (c == nullptr) return nullptr;
    if (!c->WaitLoggedOn(kWait)) {
      ADD_FAILURE() << comp_id << " did not log on\n" << c->Describe();
      return nullptr;
    }
    return c;
  }

  // Sends AN and returns the AO and the APs that follow it.
  struct Answer {
    FixMessage ack;
    std::vector<FixMessage> reports;
  };
  std::optional<Answer> Ask(FixTestClient& c, const std::string& req_id,
                            FixFields fields) {
    FixFields all = {{710, req_id}, {724, "0"}};
    all.insert(all.end(), fields.begin(), fields.end());
    if (!c.Send("AN", all)) return std::nullopt;
    Answer a;
    if (!c.Await(Type("AO", req_id), kWait, &a.ack)) {
      ADD_FAILURE() << "no AO for " << req_id << "\n" << c.Describe();
      return std::nullopt;
    }
    const std::string total = a.ack.Get(727);
    const std::size_t n = total.empty() ? 0 : std::stoul(total);
    // The reports are numbered AP-<PosReqID>-1 .. -n.
    for (std::size_t k = 1; k <= n; ++k) {
      const std::string id = "AP-" + req_id + "-" + std::to_string(k);
      if (!c.Await(
              [id](const FixMessage& m) {
                return m.type == "AP" && m.Get(721) == id;
              },
              kWait)) {
        ADD_FAILURE() << "no " << id << "\n" << c.Describe();
      }
    }
    for (const FixMessage& m : c.Received()) {
      if (Type("AP", req_id)(m)) a.reports.push_back(m);
    }
    // The client validated everything against the dictionary.
    for (const FixMessage& m : c.Sent()) {
      EXPECT_NE(m.type, "3") << "the client rejected a message\n"
                             << c.Describe();
    }
    return a;
  }

  static std::set<std::string> Accounts(const Answer& a) {
    std::set<std::string> out;
    for (const FixMessage& m : a.reports) out.insert(m.Get(1));
    return out;
  }

  cfx::testing::TempDir dir_;
  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  exchange::SpscRing<exchange::Command> ring_;
  exchange::SimulatedClock clock_;
  std::unique_ptr<settlement::SettlementService> settlement_;
  asio::io_context io_;
  std::unique_ptr<fix::FixGateway> gw_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(FixPositionsTest, ClearingMemberGetsAPositionReportPerOwnAccount) {
  ClientPtr c = LogOn("CLEAR_1", "clear-1");
  ASSERT_NE(c, nullptr);
  auto a = Ask(*c, "p1", {{715, "20261202"}});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->ack.Get(728), "0");
  EXPECT_EQ(a->ack.Get(729), "0");
  EXPECT_EQ(a->ack.Get(727), "2");
  ASSERT_EQ(a->reports.size(), 2u);
  EXPECT_EQ(Accounts(*a), (std::set<std::string>{"FIRM-A", "FIRM-B"}));
  for (const FixMessage& r : a->reports) {
    EXPECT_EQ(r.Get(55), "XB2SZ6");
    EXPECT_EQ(r.Get(715), "20261202");
    EXPECT_EQ(r.Get(730), "6.00");
    EXPECT_EQ(r.Get(731), "2");
    EXPECT_EQ(r.Get(734), "5.90");
    EXPECT_EQ(r.Get(5830), "1");
    const FixGroup* pos = r.FindGroup(702);
    const FixGroup* amt = r.FindGroup(753);
    ASSERT_TRUE(pos != nullptr && pos->entries.size() == 1) << r.ToString();
    ASSERT_TRUE(amt != nullptr && amt->entries.size() == 1) << r.ToString();
    EXPECT_EQ(*FindIn(amt->entries[0], 707), "IMTM");
    if (r.Get(1) == "FIRM-A") {
      EXPECT_EQ(*FindIn(pos->entries[0], 704), "2");
      EXPECT_EQ(*FindIn(amt->entries[0], 708), "146.000000");
      // Collateral after the run, in the one money format.
      EXPECT_EQ(r.Get(5833), "10000146.000000");
    } else {
      EXPECT_EQ(*FindIn(pos->entries[0], 704), "1");
      EXPECT_EQ(*FindIn(amt->entries[0], 708), "0.000000");
    }
  }
}

TEST_F(FixPositionsTest, TheOtherClearingMemberSeesOnlyItsAccounts) {
  ClientPtr c = LogOn("CLEAR_2", "clear-2");
  ASSERT_NE(c, nullptr);
  auto a = Ask(*c, "p2", {});  // the latest settled date
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(Accounts(*a), (std::set<std::string>{"FIRM-C", "PROV-A"}));
  for (const FixMessage& r : a->reports) {
    if (r.Get(1) != "FIRM-C") continue;
    EXPECT_EQ(*FindIn(r.FindGroup(702)->entries[0], 705), "2");
    EXPECT_EQ(*FindIn(r.FindGroup(753)->entries[0], 708), "-146.000000");
  }
}

TEST_F(FixPositionsTest, AnotherMembersAccountLooksLikeOneWithoutPositions) {
  ClientPtr c = LogOn("CLEAR_1", "clear-1");
  ASSERT_NE(c, nullptr);
  auto other = Ask(*c, "p3", {{1, "FIRM-C"}});
  auto missing = Ask(*c, "p4", {{1, "NO-SUCH-ACCOUNT"}});
  ASSERT_TRUE(other.has_value() && missing.has_value());
  EXPECT_EQ(other->ack.Get(728), "2");
  EXPECT_TRUE(other->reports.empty());
  EXPECT_EQ(other->ack.Get(728), missing->ack.Get(728));
  EXPECT_EQ(other->ack.Get(58), missing->ack.Get(58));
}

TEST_F(FixPositionsTest, ATraderSeesItsOwnAccountOnly) {
  ClientPtr c = LogOn("TRADER_A", "trader-a");
  ASSERT_NE(c, nullptr);
  auto a = Ask(*c, "p5", {});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(Accounts(*a), (std::set<std::string>{"FIRM-A"}));
}

TEST_F(FixPositionsTest, BadRequestsAreRefusedWithAReason) {
  ClientPtr c = LogOn("CLEAR_1", "clear-1");
  ASSERT_NE(c, nullptr);
  auto unsettled = Ask(*c, "p6", {{715, "20261205"}});
  ASSERT_TRUE(unsettled.has_value());
  EXPECT_EQ(unsettled->ack.Get(728), "2");
  EXPECT_NE(unsettled->ack.Get(58).find("not settled"), std::string::npos);
  ASSERT_TRUE(c->Send("AN", {{710, "p7"}, {724, "0"}, {715, "2026-12-02"}}));
  FixMessage bad_date;
  ASSERT_TRUE(c->Await(Type("AO", "p7"), kWait, &bad_date)) << c->Describe();
  EXPECT_EQ(bad_date.Get(728), "1");
  EXPECT_EQ(bad_date.Get(729), "2");
}

// The two days above, then XB2SZ6's last trading day, 2026-12-31, with
// every December fixing at $5.808 from trades: final settlement at the FSP.
class FixFinalPositionsTest : public FixPositionsTest {
 protected:
  FixFinalPositionsTest() {
    settlement_->set_fixings(
        [](uint32_t, int64_t day) -> std::optional<settlement::FixingValue> {
          if (day < kDec1 || day > kDec1 + 30) return std::nullopt;
          return settlement::FixingValue{true, 5'808'000, true};
        });
  }
  std::vector<exchange::Event> Events() const override {
    std::vector<exchange::Event> events = FixPositionsTest::Events();
    events.push_back(Fixing(5, kDec1 + 30));
    return events;
  }
};

TEST_F(FixFinalPositionsTest, AClosedContractReportsZeroAndItsDeliveryQty) {
  ClientPtr c = LogOn("CLEAR_1", "clear-1");
  ASSERT_NE(c, nullptr);
  auto a = Ask(*c, "f1", {{715, "20261231"}, {1, "FIRM-A"}});
  ASSERT_TRUE(a.has_value());
  const FixMessage* z6 = nullptr;
  for (const FixMessage& r : a->reports) {
    if (r.Get(55) == "XB2SZ6") z6 = &r;
  }
  ASSERT_NE(z6, nullptr) << a->ack.ToString();
  // The FSP at $0.001 (never 5.8080), the prior DSP at the tick.
  EXPECT_EQ(z6->Get(730), "5.808");
  EXPECT_EQ(z6->Get(731), "1");
  EXPECT_EQ(z6->Get(734), "6.00");
  EXPECT_EQ(z6->Get(5830), "FINAL");
  EXPECT_EQ(z6->Get(5831), "N");
  const FixGroup* pos = z6->FindGroup(702);
  ASSERT_TRUE(pos != nullptr && pos->entries.size() == 2) << z6->ToString();
  EXPECT_EQ(*FindIn(pos->entries[0], 703), "FIN");
  EXPECT_EQ(*FindIn(pos->entries[0], 704), "0");
  EXPECT_EQ(*FindIn(pos->entries[0], 705), "0");
  EXPECT_EQ(*FindIn(pos->entries[1], 703), "DLV");
  EXPECT_EQ(*FindIn(pos->entries[1], 704), "2");
  EXPECT_EQ(*FindIn(pos->entries[1], 705), "0");
  // 730 x 2 x (5.808 - 6.00) = -$280.32.
  const FixGroup* amt = z6->FindGroup(753);
  ASSERT_TRUE(amt != nullptr && amt->entries.size() == 1);
  EXPECT_EQ(*FindIn(amt->entries[0], 707), "FMTM");
  EXPECT_EQ(*FindIn(amt->entries[0], 708), "-280.320000");
}

// Sends BB and returns the BG and the BAs that follow it.
std::optional<std::pair<FixMessage, std::vector<FixMessage>>> Inquire(
    FixTestClient& c, const std::string& id, FixFields fields) {
  FixFields all = {{909, id}};
  all.insert(all.end(), fields.begin(), fields.end());
  if (!c.Send("BB", all)) return std::nullopt;
  const auto of = [id](const std::string& type) {
    return [type, id](const FixMessage& m) {
      return m.type == type && m.Get(909) == id;
    };
  };
  FixMessage ack;
  if (!c.Await(of("BG"), kWait, &ack)) {
    ADD_FAILURE() << "no BG for " << id << "\n" << c.Describe();
    return std::nullopt;
  }
  const std::string total = ack.Get(911);
  const std::size_t n = total.empty() ? 0 : std::stoul(total);
  for (std::size_t k = 1; k <= n; ++k) {
    const std::string rpt = "BA-" + id + "-" + std::to_string(k);
    if (!c.Await(
            [rpt](const FixMessage& m) {
              return m.type == "BA" && m.Get(908) == rpt;
            },
            kWait)) {
      ADD_FAILURE() << "no " << rpt << "\n" << c.Describe();
    }
  }
  std::vector<FixMessage> reports;
  for (const FixMessage& m : c.Received()) {
    if (of("BA")(m)) reports.push_back(m);
  }
  for (const FixMessage& m : c.Sent()) {
    EXPECT_NE(m.type, "3") << "the client rejected a message\n" << c.Describe();
  }
  return std::make_pair(ack, reports);
}

TEST_F(FixPositionsTest, CollateralInquiryReportsTheMembersMarginCalls) {
  ClientPtr c = LogOn("CLEAR_1", "clear-1");
  ASSERT_NE(c, nullptr);
  auto a = Inquire(*c, "c1", {{715, "20261202"}});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->first.Get(945), "0");
  EXPECT_EQ(a->first.Get(946), "0");
  EXPECT_EQ(a->first.Get(911), "1");
  ASSERT_EQ(a->second.size(), 1u);
  const FixMessage& r = a->second[0];
  EXPECT_EQ(r.Get(1), "FIRM-B");
  EXPECT_EQ(r.Get(715), "20261202");
  EXPECT_EQ(r.Get(15), "USD");
  EXPECT_EQ(r.Get(899), "-157.000000");  // collateral - IM: the deficit
  EXPECT_EQ(r.Get(900), "500.000000");
  EXPECT_EQ(r.Get(901), "157.000000");  // still outstanding
  EXPECT_EQ(r.Get(5832), "657.000000");
  EXPECT_EQ(r.Get(5834), "157.000000");
  EXPECT_EQ(r.Get(5835), "500.000000");
  EXPECT_EQ(r.Get(5836), "OPEN");
  // Dec 1 issued none.
  auto none = Inquire(*c, "c2", {{715, "20261201"}});
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->first.Get(911), "0");
  EXPECT_TRUE(none->second.empty());
}

TEST_F(FixPositionsTest, AnotherMembersMarginCallLooksLikeAMissingAccount) {
  ClientPtr c = LogOn("CLEAR_2", "clear-2");
  ASSERT_NE(c, nullptr);
  auto other = Inquire(*c, "c3", {{1, "FIRM-B"}});
  auto missing = Inquire(*c, "c4", {{1, "NO-SUCH-ACCOUNT"}});
  ASSERT_TRUE(other.has_value() && missing.has_value());
  EXPECT_TRUE(other->second.empty());
  for (int tag : {945, 946, 911, 715, 58}) {
    EXPECT_EQ(other->first.Get(tag), missing->first.Get(tag)) << tag;
  }
}

TEST_F(FixPositionsTest, CollateralInquiryIsForMembersAndTheAdmin) {
  ClientPtr c = LogOn("TRADER_B", "trader-b");
  ASSERT_NE(c, nullptr);
  auto a = Inquire(*c, "c5", {});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->first.Get(945), "4");
  EXPECT_EQ(a->first.Get(946), "9");
  EXPECT_TRUE(a->second.empty());
  ClientPtr admin = LogOn("ADMIN", "admin");
  ASSERT_NE(admin, nullptr);
  auto all = Inquire(*admin, "c6", {{263, "1"}});
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->first.Get(945), "4");  // snapshots only
  auto latest = Inquire(*admin, "c7", {});
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->first.Get(715), "20261202");
  EXPECT_EQ(latest->second.size(), 1u);
}

}  // namespace
}  // namespace cfx::gateway::fix_test
