// CFX index values over FIX (docs/fix.md, "Index values"): MarketDataRequest
// with MDEntryType 3 on CFX-<grade> symbols, snapshots and pushes of new
// prints and restatements, and the rejects. A FixGateway with an in-memory
// IndexService runs on its own gateway thread; a real QuickFIX initiator
// (fix_test_client.h), validating against the exchange's dictionary, talks
// to it over loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/command.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/http/index_page.h"
#include "gateway/md/market_data.h"
#include "index/index_service.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/fix/fix_test_start.h"
#include "tests/gateway/http/index_test_events.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::fix_test {
namespace {

using index::Level;
using index::Print;
using testing::IndexFixingNs;
using testing::kIndexDay0;
using ClientPtr = std::unique_ptr<FixTestClient>;
using Millis = std::chrono::milliseconds;
using Pred = FixTestClient::Predicate;

constexpr Millis kWait{5'000};
constexpr const char* kStdIndex = "CFX-B200-STD";
constexpr const char* kPrmIndex = "CFX-B200-PRM";
constexpr const char* kFuture = "XB2SZ6";  // an instrument of the demo config

// The CFX index tags of the dictionary.
constexpr int kLevelTag = 5810;
constexpr int kDisruptedTag = 5811;
constexpr int kRevisionTag = 5812;
constexpr int kComputedAtTag = 5813;
constexpr int kTradeCountTag = 5814;
constexpr int kSellersTag = 5815;
constexpr int kBuyersTag = 5816;
constexpr int kGpuHoursTag = 5817;
constexpr int kP25Tag = 5818;
constexpr int kP75Tag = 5819;
constexpr int kPartitionsTag = 5820;
constexpr int kUpmTag = 5821;
constexpr int kTokensTag = 5822;
constexpr int kTradeIdsTag = 5823;

std::vector<FixGroup> IndexGroups(const std::vector<std::string>& entry_types,
                                  const std::string& symbol) {
  FixGroup types{267, {}};
  for (const std::string& t : entry_types) types.entries.push_back({{269, t}});
  FixGroup symbols{146, {{{55, symbol}}}};
  return {types, symbols};
}

FixFields Snapshot(const std::string& req_id) {
  return {{262, req_id}, {263, "0"}, {264, "0"}};
}

FixFields Subscribe(const std::string& req_id) {
  return {{262, req_id}, {263, "1"}, {264, "0"}, {265, "1"}};
}

Pred SnapshotFor(std::string req_id) {
  return [req_id](const FixMessage& m) {
    return m.type == "W" && m.Get(262) == req_id;
  };
}

Pred RejectFor(std::string req_id) {
  return [req_id](const FixMessage& m) {
    return m.type == "Y" && m.Get(262) == req_id;
  };
}

std::string In(const FixFields& entry, int tag) {
  const std::string* v = FindIn(entry, tag);
  return v == nullptr ? std::string() : *v;
}

bool Has(const FixFields& entry, int tag) {
  return FindIn(entry, tag) != nullptr;
}

// The one NoMDEntries entry of a W; fails the test otherwise.
FixFields OnlyEntry(const FixMessage& w) {
  const FixGroup* g = w.FindGroup(268);
  if (g == nullptr || g->entries.size() != 1) {
    ADD_FAILURE() << "expected one entry in " << w.ToString();
    return {};
  }
  EXPECT_EQ(w.Get(268), "1");
  return g->entries[0];
}

class FixIndexTest : public ::testing::Test {
 protected:
  FixIndexTest()
      : config_(server_test::DemoConfig()),
        instruments_(config_),
        md_(config_),
        ring_(1024),
        clock_(exchange::Timestamp{IndexFixingNs(kIndexDay0)}),
        index_(index::IndexService::InMemory(testing::IndexTestConfig())) {}

  void SetUp() override {
    fix::FixGatewayDeps deps;
    deps.config = &config_;
    deps.instruments = &instruments_;
    deps.ring = &ring_;
    deps.market_data = &md_;
    deps.clock = &clock_;
    deps.dir = dir_.Sub("fix");
    deps.index = index_.get();
    auto gw = fix::FixGateway::Create(io_, deps);
    ASSERT_TRUE(gw.has_value()) << gw.error().ToString();
    gw_ = std::move(gw).value();
    Status st = gw_->GoLive();
    ASSERT_TRUE(st.ok()) << st.ToString();
    st = gw_->Listen("127.0.0.1", 0);
    ASSERT_TRUE(st.ok()) << st.ToString();
    // As the server wires it: every new print reaches the FIX gateway.
    index_->set_on_print([this](const Print& p) { gw_->OnIndexPrint(p); });
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
      // The gateway thread is gone: this thread owns the gateway now.
      gw_->Stop();
      io_.restart();
      io_.poll();
      gw_->Poll();
      io_.poll();
    }
  }

  // Runs `fn` on the gateway thread (which owns the gateway and the index)
  // and waits for it.
  void OnGatewayThread(const std::function<void()>& fn) {
    std::promise<void> done;
    asio::post(io_, [&] {
      fn();
      done.set_value();
    });
    ASSERT_EQ(done.get_future().wait_for(kWait), std::future_status::ready);
  }

  void Feed(testing::IndexEventStream& s) {
    OnGatewayThread([&] {
      for (const exchange::Event& e : s.Take()) index_->OnEvent(e);
    });
  }

  // A copy of the latest print of `grade`, read on the gateway thread.
  std::optional<Print> Latest(uint32_t grade) {
    std::optional<Print> p;
    OnGatewayThread([&] {
      if (const Print* latest = index_->Latest(grade)) p = *latest;
    });
    return p;
  }

  // TRADER_C, logged on. Fails the test and returns nullptr otherwise.
  ClientPtr LogOn() {
    FixClientOptions o;
    o.sender_comp_id = "TRADER_C";
    o.port = gw_->port();
    o.username = "trader-c";
    o.password = "demo-trader-c";
    o.store_dir = dir_.Sub("client");
    auto c = StartFixTestClient(o);
    if (c == nullptr) return nullptr;
    if (!c->WaitLoggedOn(kWait)) {
      ADD_FAILURE() << "TRADER_C did not log on\n" << c->Describe();
      return nullptr;
    }
    return c;
  }

  std::optional<FixMessage> Expect(FixTestClient& c, const Pred& pred,
                                   std::string_view what) {
    FixMessage m;
    if (c.Await(pred, kWait, &m)) return m;
    ADD_FAILURE() << "no " << what << " within " << kWait.count() << " ms\n"
                  << c.Describe();
    return std::nullopt;
  }

  // A snapshot round trip: afterwards everything the gateway sent before
  // it is in the inbox.
  void Barrier(FixTestClient& c) {
    const std::string id = "barrier-" + std::to_string(++barriers_);
    ASSERT_TRUE(c.Send("V", Snapshot(id), IndexGroups({"3"}, kPrmIndex)));
    ASSERT_TRUE(Expect(c, SnapshotFor(id), id));
  }

  // The client validated everything it received against the dictionary:
  // it rejected nothing.
  void ExpectNothingRejected(FixTestClient& c) {
    for (const FixMessage& m : c.Sent()) {
      EXPECT_NE(m.type, "3") << "the client rejected a message\n"
                             << c.Describe();
    }
  }

  cfx::testing::TempDir dir_;
  ServerConfig config_;
  InstrumentTable instruments_;
  MarketDataStore md_;
  exchange::SpscRing<exchange::Command> ring_;
  exchange::SimulatedClock clock_;
  std::unique_ptr<index::IndexService> index_;
  asio::io_context io_;
  std::unique_ptr<fix::FixGateway> gw_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int barriers_ = 0;
};

// Day 0: both grades trade a Level 1a day (B200-STD trade ids 1-12,
// B200-PRM 13-24), then the fixing.
void LevelOneDayForBothGrades(testing::IndexEventStream& s, int64_t day) {
  s.LevelOneDay(testing::kStdSpot, day, 58'000);
  s.LevelOneDay(testing::kPrmSpot, day, 64'000);
  s.Fixing(day);
}

TEST_F(FixIndexTest, SnapshotBeforeTheFirstPrintHasNoEntry) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Snapshot("md-1"), IndexGroups({"3"}, kStdIndex)));
  auto w = Expect(*c, SnapshotFor("md-1"), "MarketDataSnapshotFullRefresh");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  EXPECT_EQ(w->Get(55), kStdIndex);
  EXPECT_EQ(w->Get(268), "0");
  ExpectNothingRejected(*c);
}

TEST_F(FixIndexTest, SnapshotCarriesTheLatestPrintWithEveryField) {
  testing::IndexEventStream s;
  LevelOneDayForBothGrades(s, kIndexDay0);
  Feed(s);
  const std::optional<Print> p = Latest(0);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->level, Level::k1a);
  ASSERT_TRUE(p->has_value);

  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Snapshot("md-1"), IndexGroups({"3"}, kStdIndex)));
  auto w = Expect(*c, SnapshotFor("md-1"), "MarketDataSnapshotFullRefresh");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  EXPECT_EQ(w->Get(55), kStdIndex);
  const FixFields e = OnlyEntry(*w);
  EXPECT_EQ(In(e, 269), "3");
  // The mean of the six partitions' medians, 5.8175, rounded half-up.
  EXPECT_EQ(In(e, 270), "5.818");
  EXPECT_EQ(In(e, 270), FormatMicros(p->value.micros, 3));
  EXPECT_EQ(In(e, 272), "20261201");
  EXPECT_EQ(In(e, 273), "21:00:00.000");
  EXPECT_EQ(In(e, kLevelTag), "1a");
  EXPECT_EQ(In(e, kDisruptedTag), "N");
  EXPECT_EQ(In(e, kRevisionTag), "0");
  EXPECT_EQ(In(e, kComputedAtTag), "20261201-21:00:00.000");
  EXPECT_EQ(In(e, kTradeCountTag), "12");
  EXPECT_EQ(In(e, kSellersTag), "3");
  EXPECT_EQ(In(e, kBuyersTag), "3");
  EXPECT_EQ(In(e, kGpuHoursTag), "4608");
  EXPECT_EQ(In(e, kP25Tag), FormatMicros(p->p25.micros, 3));
  EXPECT_EQ(In(e, kP75Tag), FormatMicros(p->p75.micros, 3));
  EXPECT_EQ(In(e, kPartitionsTag), "1 2 3 4 5 6");
  EXPECT_EQ(In(e, kTokensTag), "250.000");
  EXPECT_EQ(Has(e, kUpmTag), p->has_upm);
  if (p->has_upm) {
    EXPECT_EQ(In(e, kUpmTag),
              FormatMicros(p->usd_per_million_tokens_micros, 3));
  }
  EXPECT_EQ(In(e, kTradeIdsTag), "1 2 3 4 5 6 7 8 9 10 11 12");
  // Public data: no account, order, firm or party.
  for (int tag : {1, 11, 37, 448, 453}) {
    EXPECT_FALSE(w->Has(tag)) << tag;
    EXPECT_FALSE(Has(e, tag)) << tag;
  }
  ExpectNothingRejected(*c);
}

TEST_F(FixIndexTest, SubscriptionPushesEachNewPrintOfItsGradeOnly) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Subscribe("md-1"), IndexGroups({"3"}, kStdIndex)));
  auto first = Expect(*c, SnapshotFor("md-1"), "the subscription's snapshot");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->Get(268), "0");

  testing::IndexEventStream s;
  LevelOneDayForBothGrades(s, kIndexDay0);
  Feed(s);
  auto pushed = Expect(*c, SnapshotFor("md-1"), "the day 0 print");
  ASSERT_TRUE(pushed);
  SCOPED_TRACE(pushed->ToString());
  EXPECT_EQ(pushed->Get(55), kStdIndex);
  FixFields e = OnlyEntry(*pushed);
  EXPECT_EQ(In(e, kLevelTag), "1a");
  EXPECT_EQ(In(e, 272), "20261201");

  // Day 1 without trades: B200-STD falls back to Level 2, pushed as well.
  s.Fixing(kIndexDay0 + 1);
  Feed(s);
  pushed = Expect(*c, SnapshotFor("md-1"), "the day 1 print");
  ASSERT_TRUE(pushed);
  e = OnlyEntry(*pushed);
  EXPECT_EQ(In(e, 272), "20261202");
  EXPECT_EQ(In(e, kLevelTag), "2");
  const std::optional<Print> p = Latest(0);
  ASSERT_TRUE(p);
  EXPECT_EQ(In(e, 270), FormatMicros(p->value.micros, 3));

  // The B200-PRM prints were not sent on md-1; nothing else came.
  Barrier(*c);
  EXPECT_EQ(c->Count([](const FixMessage& m) {
    return m.type == "W" && m.Get(262) == "md-1";
  }),
            3u);
  EXPECT_EQ(c->Count([](const FixMessage& m) {
    return m.type == "W" && m.Get(262) == "md-1" && m.Get(55) != kStdIndex;
  }),
            0u);

  // Unsubscribed: the next fixing is not pushed.
  ASSERT_TRUE(c->Send("V", {{262, "md-1"}, {263, "2"}, {264, "0"}},
                      IndexGroups({"3"}, kStdIndex)));
  Barrier(*c);
  s.Fixing(kIndexDay0 + 2);
  Feed(s);
  Barrier(*c);
  EXPECT_EQ(c->Count([](const FixMessage& m) {
    return m.type == "W" && m.Get(262) == "md-1";
  }),
            3u);
  ExpectNothingRejected(*c);
}

TEST_F(FixIndexTest, OnIndexPrintPushesRestatementsAndDisruptedPrints) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Subscribe("md-1"), IndexGroups({"3"}, kStdIndex)));
  ASSERT_TRUE(Expect(*c, SnapshotFor("md-1"), "the subscription's snapshot"));

  // A restatement: revision 1, computed at the bust's time.
  Print restated;
  restated.grade = 0;
  restated.day = kIndexDay0;
  restated.revision = 1;
  restated.computed_at_ns = IndexFixingNs(kIndexDay0) + testing::kHourNs;
  restated.level = Level::k1b;
  restated.has_value = true;
  restated.value.micros = 5'812'000;
  restated.trade_count = 11;
  restated.sellers = 3;
  restated.buyers = 3;
  restated.gpu_hours = 4'224;
  restated.p25.micros = 5'805'000;
  restated.p75.micros = 5'820'050;
  restated.attested_milli_tokens = 250'500;
  restated.trade_ids = {1, 2, 4};
  OnGatewayThread([&] { gw_->OnIndexPrint(restated); });
  auto w = Expect(*c, SnapshotFor("md-1"), "the restatement");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  FixFields e = OnlyEntry(*w);
  EXPECT_EQ(In(e, 270), "5.812");
  EXPECT_EQ(In(e, 272), "20261201");
  EXPECT_EQ(In(e, 273), "21:00:00.000");  // the fixing, not the restatement
  EXPECT_EQ(In(e, kRevisionTag), "1");
  EXPECT_EQ(In(e, kComputedAtTag), "20261201-22:00:00.000");
  EXPECT_EQ(In(e, kLevelTag), "1b");
  EXPECT_EQ(In(e, kDisruptedTag), "N");
  EXPECT_EQ(In(e, kTradeCountTag), "11");
  EXPECT_EQ(In(e, kGpuHoursTag), "4224");
  EXPECT_EQ(In(e, kP25Tag), "5.805");
  EXPECT_EQ(In(e, kP75Tag), "5.82005");
  EXPECT_FALSE(Has(e, kPartitionsTag));  // 1a only
  EXPECT_FALSE(Has(e, kUpmTag));         // no throughput known
  EXPECT_EQ(In(e, kTokensTag), "250.500");
  EXPECT_EQ(In(e, kTradeIdsTag), "1 2 4");

  // DISRUPTED with nothing to carry: no MDEntryPx, the flag set.
  Print disrupted;
  disrupted.grade = 0;
  disrupted.day = kIndexDay0 + 4;
  disrupted.computed_at_ns = IndexFixingNs(kIndexDay0 + 4);
  disrupted.level = Level::kDisrupted;
  disrupted.has_value = false;
  disrupted.carry_run = 4;
  OnGatewayThread([&] { gw_->OnIndexPrint(disrupted); });
  w = Expect(*c, SnapshotFor("md-1"), "the DISRUPTED print");
  ASSERT_TRUE(w);
  e = OnlyEntry(*w);
  EXPECT_EQ(In(e, 269), "3");
  EXPECT_FALSE(Has(e, 270));
  EXPECT_EQ(In(e, 272), "20261205");
  EXPECT_EQ(In(e, kLevelTag), "DISRUPTED");
  EXPECT_EQ(In(e, kDisruptedTag), "Y");
  EXPECT_EQ(In(e, kTradeCountTag), "0");
  for (int tag : {kP25Tag, kP75Tag, kPartitionsTag, kUpmTag, kTradeIdsTag}) {
    EXPECT_FALSE(Has(e, tag)) << tag;
  }

  // A carried DISRUPTED value keeps its MDEntryPx and the flag.
  disrupted.day = kIndexDay0 + 5;
  disrupted.has_value = true;
  disrupted.value.micros = 5'800'000;
  OnGatewayThread([&] { gw_->OnIndexPrint(disrupted); });
  w = Expect(*c, SnapshotFor("md-1"), "the carried DISRUPTED print");
  ASSERT_TRUE(w);
  e = OnlyEntry(*w);
  EXPECT_EQ(In(e, 270), "5.800");
  EXPECT_EQ(In(e, kDisruptedTag), "Y");

  // Another grade's print goes to nobody here.
  Print other = restated;
  other.grade = 1;
  OnGatewayThread([&] { gw_->OnIndexPrint(other); });
  Barrier(*c);
  EXPECT_EQ(c->Count([](const FixMessage& m) {
    return m.type == "W" && m.Get(55) == kPrmIndex && m.Get(262) == "md-1";
  }),
            0u);
  ExpectNothingRejected(*c);
}

// A field the print does not have is left out, as HTTP writes null: no
// MDEntryPx without a value, no percentiles below Level 2, no USD per
// million tokens and no attested throughput when none is known (not
// "0.000"); the level is spelled as everywhere else.
TEST_F(FixIndexTest, AbsentFieldsAreLeftOutNotZero) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Subscribe("md-1"), IndexGroups({"3"}, kStdIndex)));
  ASSERT_TRUE(Expect(*c, SnapshotFor("md-1"), "the subscription's snapshot"));

  Print disrupted;
  disrupted.grade = 0;
  disrupted.day = kIndexDay0 + 4;
  disrupted.computed_at_ns = IndexFixingNs(kIndexDay0 + 4);
  disrupted.level = Level::kDisrupted;
  disrupted.has_value = false;
  disrupted.attested_milli_tokens = 0;
  OnGatewayThread([&] { gw_->OnIndexPrint(disrupted); });
  auto w = Expect(*c, SnapshotFor("md-1"), "the DISRUPTED print");
  ASSERT_TRUE(w);
  SCOPED_TRACE(w->ToString());
  const FixFields e = OnlyEntry(*w);
  EXPECT_EQ(In(e, kLevelTag), index::LevelName(Level::kDisrupted));
  for (int tag : {270, kP25Tag, kP75Tag, kUpmTag, kTokensTag}) {
    EXPECT_FALSE(Has(e, tag)) << tag;
  }

  // Level 4 carries a value and T, but has no percentiles.
  Print carried = disrupted;
  carried.day = kIndexDay0 + 5;
  carried.level = Level::k4;
  carried.has_value = true;
  carried.value.micros = 5'800'000;
  carried.p25.micros = 1;
  carried.has_upm = true;
  carried.usd_per_million_tokens_micros = 5'371'000;
  carried.attested_milli_tokens = 300'000;
  OnGatewayThread([&] { gw_->OnIndexPrint(carried); });
  w = Expect(*c, SnapshotFor("md-1"), "the Level 4 print");
  ASSERT_TRUE(w);
  const FixFields f = OnlyEntry(*w);
  EXPECT_EQ(In(f, kLevelTag), "4");
  EXPECT_EQ(In(f, 270), "5.800");
  EXPECT_FALSE(Has(f, kP25Tag));
  EXPECT_EQ(In(f, kUpmTag), "5.371");
  EXPECT_EQ(In(f, kTokensTag), "300.000");
  ExpectNothingRejected(*c);
}

TEST_F(FixIndexTest, InvalidIndexRequestsGetMarketDataRequestReject) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  struct Case {
    const char* what;
    FixFields fields;
    std::vector<FixGroup> groups;
    const char* reason;  // MDReqRejReason(281)
    const char* text;    // in Text(58)
  };
  const Case cases[] = {
      {"index value mixed with bids and offers", Snapshot("r-1"),
       IndexGroups({"0", "1", "3"}, kStdIndex), "8", "cannot be combined"},
      {"index value mixed with trades", Subscribe("r-2"),
       IndexGroups({"3", "2"}, kStdIndex), "8", "cannot be combined"},
      {"index value of an instrument", Snapshot("r-3"),
       IndexGroups({"3"}, kFuture), "8", "XB2SZ6 is an instrument"},
      {"unknown grade", Snapshot("r-4"), IndexGroups({"3"}, "CFX-B999-XXX"),
       "0", "unknown index Symbol(55) CFX-B999-XXX"},
      {"grade without the CFX- prefix", Snapshot("r-5"),
       IndexGroups({"3"}, "B200-STD"), "0", "unknown index Symbol(55)"},
      {"book of an index", Snapshot("r-6"), IndexGroups({"0", "1"}, kStdIndex),
       "8", "CFX-B200-STD is an index"},
      {"market depth of an index",
       {{262, "r-7"}, {263, "0"}, {264, "5"}},
       IndexGroups({"3"}, kStdIndex),
       "5",
       "MarketDepth(264)"},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    const std::string req_id = *FindIn(k.fields, 262);
    ASSERT_TRUE(c->Send("V", k.fields, k.groups));
    auto y = Expect(*c, RejectFor(req_id), "MarketDataRequestReject");
    ASSERT_TRUE(y);
    EXPECT_EQ(y->Get(281), k.reason) << y->ToString();
    EXPECT_NE(y->Get(58).find(k.text), std::string::npos) << y->ToString();
  }
  // A refused subscription is not live: nothing is pushed for it.
  testing::IndexEventStream s;
  LevelOneDayForBothGrades(s, kIndexDay0);
  Feed(s);
  Barrier(*c);
  EXPECT_EQ(c->Count([](const FixMessage& m) { return m.type == "W"; }),
            1u);  // the barrier's snapshot only
  ExpectNothingRejected(*c);
}

TEST_F(FixIndexTest, DuplicateMdReqIdOfALiveIndexSubscriptionIsRejected) {
  ClientPtr c = LogOn();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->Send("V", Subscribe("md-1"), IndexGroups({"3"}, kStdIndex)));
  ASSERT_TRUE(Expect(*c, SnapshotFor("md-1"), "the subscription's snapshot"));
  ASSERT_TRUE(c->Send("V", Subscribe("md-1"), IndexGroups({"3"}, kPrmIndex)));
  auto y = Expect(*c, RejectFor("md-1"), "MarketDataRequestReject");
  ASSERT_TRUE(y);
  EXPECT_EQ(y->Get(281), "1") << y->ToString();
  // The first subscription still gets its grade's prints, once each.
  testing::IndexEventStream s;
  LevelOneDayForBothGrades(s, kIndexDay0);
  Feed(s);
  auto w = Expect(*c, SnapshotFor("md-1"), "the day 0 print");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->Get(55), kStdIndex);
  Barrier(*c);
  EXPECT_EQ(c->Count([](const FixMessage& m) {
    return m.type == "W" && m.Get(262) == "md-1";
  }),
            2u);
}

}  // namespace
}  // namespace cfx::gateway::fix_test
