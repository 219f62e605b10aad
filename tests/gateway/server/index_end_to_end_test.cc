// The CFX index end to end on the simulated clock (DESIGN.md §4,
// docs/index-methodology.md): three rated and attested providers sell
// B200-STD node-days to three traders over protobuf and FIX for three days,
// with offers resting and cancelled beside the trades and one trade busted;
// each day's 21:00 fixing must equal what this test computes on its own
// from the trades it made, survive a restart, and be reproduced from the
// journal alone by `cfx index recompute`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "index/index_service.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/server/graded_market.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::server_test {
namespace {

using fix_test::FixMessage;
using fix_test::FixTestClient;

constexpr int64_t kHour = 3'600 * kSecond;
constexpr int64_t kFirstDay = 20'788;  // 2026-12-01
constexpr int kDays = 3;
constexpr int64_t kLots = 2;
constexpr Millis kFixWait{5'000};

// A trade as this test made it.
struct MadeTrade {
  int64_t day = 0;
  int partition = 0;  // 1-6
  int64_t price = 0;  // exchange units (1/10,000 USD)
  int64_t lots = 0;
  std::string seller;
  std::string buyer;
  uint64_t trade_id = 0;
  bool busted = false;
};

// The Level 1a value of one day, computed here from DESIGN.md §4 without
// the index library: capped weights, each partition's volume-weighted
// median (the tie rule averages), the plain mean of the partitions with two
// or more trades, rounded half-up to $0.001. In micro-dollars.
int64_t OwnLevelOneA(const std::vector<MadeTrade>& trades) {
  double q_total = 0;
  std::map<std::string, double> q_firm;
  for (const MadeTrade& t : trades) {
    const double q = 192.0 * static_cast<double>(t.lots);
    q_total += q;
    q_firm[t.seller] += q;
    q_firm[t.buyer] += q;
  }
  std::map<int, std::vector<std::pair<int64_t, double>>> parts;
  for (const MadeTrade& t : trades) {
    const double q = 192.0 * static_cast<double>(t.lots);
    const double cap = 0.30 * q_total;
    const double w = q * std::min(1.0, cap / q_firm[t.seller]) *
                     std::min(1.0, cap / q_firm[t.buyer]);
    parts[t.partition].push_back({t.price * 100, w});
  }
  double sum = 0;
  int used = 0;
  for (auto& [k, v] : parts) {
    if (v.size() < 2) continue;
    std::sort(v.begin(), v.end());
    double total = 0;
    for (const auto& x : v) total += x.second;
    double cum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      cum += v[i].second;
      if (std::abs(2 * cum - total) < 1e-6 && i + 1 < v.size()) {
        sum += (static_cast<double>(v[i].first) +
                static_cast<double>(v[i + 1].first)) /
               2;
        break;
      }
      if (2 * cum > total) {
        sum += static_cast<double>(v[i].first);
        break;
      }
    }
    ++used;
  }
  EXPECT_GE(used, 4) << "the schedule must give Level 1a";
  const double mean = sum / used;
  return static_cast<int64_t>(std::floor(mean / 1'000 + 0.5)) * 1'000;
}

class IndexEndToEndTest : public GradedMarketTest {
 protected:
  std::unique_ptr<FixTestClient> Fix(const std::string& comp_id,
                                     const std::string& user) {
    fix_test::FixClientOptions o;
    o.sender_comp_id = comp_id;
    o.port = server_.fix_port();
    o.username = user;
    o.password = "demo-" + user;
    o.store_dir = fix_dir_.Sub(comp_id + std::to_string(++fix_serial_));
    std::error_code ec;
    std::filesystem::create_directories(o.store_dir, ec);
    auto c = std::make_unique<FixTestClient>(o);
    std::string error;
    EXPECT_TRUE(c->Start(&error)) << error;
    EXPECT_TRUE(c->WaitLoggedOn(kFixWait)) << comp_id;
    return c;
  }

  // The exchange ends every FIX session at the end of its trading day (the
  // daily window, on the exchange clock): the FIX users log on again for
  // the new day, as FIX clients of a venue do.
  void NewFixDay() {
    fix_prov_c_->Logout(kFixWait);
    fix_trader_c_->Logout(kFixWait);
    // One QuickFIX session per SessionID in a process: the old ones go first.
    fix_prov_c_.reset();
    fix_trader_c_.reset();
    fix_prov_c_ = Fix("PROVIDER_C", "provider-c");
    fix_trader_c_ = Fix("TRADER_C", "trader-c");
  }

  // A FIX NewOrderSingle; returns its first ExecutionReport with ExecType
  // `exec_type` (empty: any).
  FixMessage FixOrder(FixTestClient& c, const std::string& side,
                      const std::string& symbol, int64_t price, int64_t lots,
                      const std::string& tif,
                      const std::string& exec_type = "") {
    const std::string id = "F" + std::to_string(++next_order_);
    char px[32];
    std::snprintf(px, sizeof px, "%lld.%02lld",
                  static_cast<long long>(price / 10'000),
                  static_cast<long long>(price % 10'000 / 100));
    EXPECT_TRUE(c.Send("D", {{11, id},
                             {55, symbol},
                             {54, side},
                             {38, std::to_string(lots)},
                             {40, "2"},
                             {44, px},
                             {59, tif},
                             {60, fix_test::FixUtcNow()}}));
    FixMessage m;
    EXPECT_TRUE(c.Await(
        [id, exec_type](const FixMessage& x) {
          return x.type == "8" && x.Get(11) == id &&
                 (exec_type.empty() || x.Get(150) == exec_type);
        },
        kFixWait, &m))
        << c.Describe();
    return m;
  }

  // Seller `s` (0-2) rests a sell of kLots at `price`, buyer `b` (0-2)
  // takes it with an IOC buy; returns the trade id.
  uint64_t Trade(int s, int b, const std::string& symbol, int64_t price) {
    if (s == 2) {
      FixMessage ack = FixOrder(*fix_prov_c_, "2", symbol, price, kLots, "1");
      EXPECT_EQ(ack.Get(150), "0") << ack.ToString();
    } else {
      client::Client& c = s == 0 ? *prov_a_ : *prov_b_;
      auto r = SendOrder(
          c, NewOrder(++next_order_, w::SIDE_SELL, price, kLots, symbol),
          &others_);
      EXPECT_TRUE(r.has_value() && r.value().exec_type() == w::EXEC_TYPE_NEW)
          << (r.has_value() ? r.value().text() : r.error().ToString());
    }
    if (b == 2) {
      const FixMessage fill =
          FixOrder(*fix_trader_c_, "1", symbol, price, kLots, "3", "F");
      return std::strtoull(fill.Get(880).c_str(), nullptr, 10);
    }
    client::Client& c = b == 0 ? *trader_ : *trader_b_;
    const uint64_t cl = ++next_order_;
    w::Envelope order = NewOrder(cl, w::SIDE_BUY, price, kLots, symbol);
    order.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_IOC);
    EXPECT_TRUE(c.Send(order).ok());
    auto fill = AwaitReport(c, [cl](const w::ExecutionReport& x) {
      return x.client_order_id() == cl && x.exec_type() == w::EXEC_TYPE_TRADE;
    });
    EXPECT_TRUE(fill.has_value()) << fill.error().ToString();
    return fill.has_value() ? fill.value().trade_id() : 0;
  }

  // Waits until everything sequenced before now has reached the gateways:
  // an IOC that finds nothing to trade is stamped after the clock moved, so
  // its report comes after the fixing's event.
  void SequencedBarrier(const std::string& symbol) {
    const uint64_t cl = ++next_order_;
    w::Envelope order = NewOrder(cl, w::SIDE_BUY, 53'000, 1, symbol);
    order.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_IOC);
    ASSERT_TRUE(trader_b_->Send(order).ok());
    auto r = AwaitReport(*trader_b_, [cl](const w::ExecutionReport& x) {
      return x.client_order_id() == cl && x.exec_type() != w::EXEC_TYPE_NEW;
    });
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
  }

  // The three providers rated and attested, the FIX clients logged on.
  void SetUpMarket() {
    trader_b_ = MustLogOn(server_.port(), "trader-b");
    fix_prov_c_ = Fix("PROVIDER_C", "provider-c");
    fix_trader_c_ = Fix("TRADER_C", "trader-c");
    client::Client* providers[] = {prov_a_.get(), prov_b_.get(),
                                   prov_c_.get()};
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(
          Rate(kFirms[i], w::RATING_TIER_GOLD, "r" + std::to_string(i))
              .accepted());
      Attest(*providers[i], kFirms[i], 10, 290 + 5 * i);
    }
  }

  // How the engine answers trader-a's IOC buy of one lot at `price`: NEW
  // is never the answer of an IOC, so this is REJECTED or what ended it.
  w::ExecType ProbeBuy(const std::string& symbol, int64_t price,
                       std::string* text) {
    const uint64_t cl = ++next_order_;
    w::Envelope order = NewOrder(cl, w::SIDE_BUY, price, 1, symbol);
    order.mutable_new_order()->set_time_in_force(w::TIME_IN_FORCE_IOC);
    EXPECT_TRUE(trader_->Send(order).ok());
    auto r = AwaitReport(
        *trader_,
        [cl](const w::ExecutionReport& x) {
          return x.client_order_id() == cl && x.exec_type() != w::EXEC_TYPE_NEW;
        },
        &others_);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    if (!r.has_value()) return w::EXEC_TYPE_UNSPECIFIED;
    *text = r.value().text();
    return r.value().exec_type();
  }

  static constexpr const char* kFirms[] = {"PROV-A", "PROV-B", "PROV-C"};
  cfx::testing::TempDir fix_dir_;
  int fix_serial_ = 0;
  std::unique_ptr<FixTestClient> fix_prov_c_, fix_trader_c_;
  ClientPtr trader_b_;
};

TEST_F(IndexEndToEndTest, DailyFixingsEqualTheTradesComputedIndependently) {
  SetUpMarket();
  const auto& firms = kFirms;
  const char* buyers[] = {"FIRM-A", "FIRM-B", "FIRM-C"};

  std::vector<MadeTrade> made;
  for (int di = 0; di < kDays; ++di) {
    const int64_t day = kFirstDay + di;
    const int64_t start = (day - 1) * kDay + 21 * kHour;
    const std::string symbol = SpotSymbol("B200-STD", day + 2);
    const std::string far = SpotSymbol("B200-STD", day + 5);
    for (int k = 0; k < 6; ++k) {
      SetTime(start + k * 4 * kHour + 3 * kHour + kHour / 2);
      if (k == 0 && di > 0) NewFixDay();
      if (k == 1) {
        // Offers and bids that never trade, some cancelled: no input.
        auto offer = SendOrder(
            *prov_b_, NewOrder(++next_order_, w::SIDE_SELL, 63'000, 1, far),
            &others_);
        ASSERT_TRUE(offer.has_value());
        ASSERT_EQ(offer.value().exec_type(), w::EXEC_TYPE_NEW)
            << offer.value().text();
        auto bid = SendOrder(
            *trader_, NewOrder(++next_order_, w::SIDE_BUY, 53'000, 3, symbol),
            &others_);
        ASSERT_TRUE(bid.has_value());
        ASSERT_TRUE(
            prov_b_->Send(Cancel(++next_order_, offer.value().order_id()))
                .ok());
      }
      for (int i = 0; i < 2; ++i) {
        const int j = 2 * k + i;
        const int s = j % 3;
        const int b = (j + j / 3) % 3;
        const int64_t price =
            58'000 + (((j * 7 + di * 3) % 11) - 5) * 100;  // $5.75-$5.85
        MadeTrade t;
        t.day = day;
        t.partition = k + 1;
        t.price = price;
        t.lots = kLots;
        t.seller = firms[s];
        t.buyer = buyers[b];
        t.trade_id = Trade(s, b, symbol, price);
        ASSERT_NE(t.trade_id, 0u) << "day " << di << " trade " << j;
        made.push_back(t);
      }
      if (di == 1 && k == 3) {
        // trader-a reports a delivery failure of its latest trade: busted
        // before the fixing, it is out of the index.
        auto it = std::find_if(made.rbegin(), made.rend(), [](const auto& m) {
          return m.buyer == "FIRM-A";
        });
        ASSERT_NE(it, made.rend());
        w::Envelope report;
        report.mutable_spot_failure_report()->set_trade_id(it->trade_id);
        ASSERT_TRUE(Ask(*trader_, report).accepted());
        it->busted = true;
      }
    }
  }
  SetTime((kFirstDay + kDays - 1) * kDay + 21 * kHour + kSecond);
  SequencedBarrier(SpotSymbol("B200-STD", kFirstDay + kDays + 1));
  fix_prov_c_->Logout(kFixWait);
  fix_trader_c_->Logout(kFixWait);
  ASSERT_TRUE(server_.Stop().ok());

  const index::IndexService& svc = server_.server().index();
  std::vector<index::Print> published;
  for (int di = 0; di < kDays; ++di) {
    const int64_t day = kFirstDay + di;
    SCOPED_TRACE("day " + FormatDay(day));
    std::vector<MadeTrade> mine;
    for (const MadeTrade& t : made) {
      if (t.day == day && !t.busted) mine.push_back(t);
    }
    const index::Print* p = svc.Find(0, day);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->level, index::Level::k1a);
    EXPECT_TRUE(p->has_value);
    EXPECT_EQ(p->value.micros, OwnLevelOneA(mine));
    EXPECT_EQ(p->revision, 0u);
    EXPECT_EQ(p->sellers, 3u);
    EXPECT_EQ(p->buyers, 3u);
    std::vector<uint64_t> ids;
    for (const MadeTrade& t : mine) {
      // Partitions with a single trade (the busted one's) do not count.
      const auto n = std::count_if(
          mine.begin(), mine.end(),
          [&](const auto& x) { return x.partition == t.partition; });
      if (n >= 2) ids.push_back(t.trade_id);
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(p->trade_ids, ids);
    EXPECT_EQ(p->trade_count, ids.size());
    EXPECT_EQ(p->gpu_hours, static_cast<int64_t>(ids.size()) * kLots * 192);
    // USD per million tokens from the sellers' attested 290-300 tokens/s.
    EXPECT_TRUE(p->has_upm);
    EXPECT_GE(p->attested_milli_tokens, 290'000u);
    EXPECT_LE(p->attested_milli_tokens, 300'000u);
    // B200-PRM had no trades and never a value.
    const index::Print* prm = svc.Find(1, day);
    ASSERT_NE(prm, nullptr);
    EXPECT_EQ(prm->level, index::Level::kDisrupted);
    EXPECT_FALSE(prm->has_value);
    published.push_back(*p);
  }

  // A restart serves the same prints from the index store.
  ASSERT_TRUE(server_.Start().ok());
  ASSERT_TRUE(server_.Stop().ok());
  for (int di = 0; di < kDays; ++di) {
    const index::Print* p = server_.server().index().Find(0, kFirstDay + di);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(*p, published[static_cast<std::size_t>(di)]);
  }

  // The journal alone reproduces every published fixing.
  for (int di = 0; di < kDays; ++di) {
    const std::string cmd = std::string(CFX_TOOL) +
                            " index recompute B200-STD " +
                            FormatDay(kFirstDay + di) + " --data-dir " +
                            server_.data_dir() + "/data 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, f) != nullptr) out += buf;
    const int status = pclose(f);
    ASSERT_TRUE(WIFEXITED(status)) << out;
    EXPECT_EQ(WEXITSTATUS(status), 0) << out;
    EXPECT_NE(out.find(": equal"), std::string::npos) << out;
  }
}

// DESIGN.md §2: the reference price of a spot node-day's bands is the last
// fixing of its grade. Before the first fixing the configured $5.80 holds
// (buys above $6.38 are refused); after a day of trades at $6.30 fixes the
// index at $6.300, every B200-STD slot, listed before or after the fixing,
// takes $6.30 (buys up to $6.93 pass), and so it stays after a restart.
TEST_F(IndexEndToEndTest, SpotBandsFollowTheGradesLatestFixing) {
  SetUpMarket();
  const int64_t day = kFirstDay;
  const std::string symbol = SpotSymbol("B200-STD", day + 2);
  std::string text;
  SetTime(kStart + 10 * 60 * kSecond);
  EXPECT_EQ(ProbeBuy(symbol, 64'500, &text), w::EXEC_TYPE_REJECTED);
  EXPECT_NE(text.find("BAND"), std::string::npos) << text;
  for (int k = 0; k < 6; ++k) {
    SetTime((day - 1) * kDay + 21 * kHour + k * 4 * kHour + 3 * kHour +
            kHour / 2);
    for (int i = 0; i < 2; ++i) {
      const int j = 2 * k + i;
      ASSERT_NE(Trade(j % 3, (j + j / 3) % 3, symbol, 63'000), 0u) << j;
    }
  }
  SetTime(day * kDay + 21 * kHour + kSecond);
  SequencedBarrier(symbol);
  // Asked over the protobuf port: the server's index() may be read only
  // once it is stopped, and the services apply events on their own thread.
  auto prints = QueryIndex(*trader_b_, "B200-STD", 1);
  ASSERT_TRUE(prints.has_value()) << prints.error().ToString();
  ASSERT_GT(prints.value().prints_size(), 0);
  const w::IndexPrint& p =
      prints.value().prints(prints.value().prints_size() - 1);
  ASSERT_EQ(p.date(), FormatDay(day));
  ASSERT_EQ(p.level(), w::INDEX_LEVEL_1A);
  ASSERT_EQ(p.value_micros(), 6'300'000);
  // $6.45 is inside $6.30 +/- 10 %: the IOC finds no seller and expires.
  EXPECT_NE(ProbeBuy(symbol, 64'500, &text), w::EXEC_TYPE_REJECTED) << text;
  EXPECT_EQ(ProbeBuy(symbol, 69'400, &text), w::EXEC_TYPE_REJECTED);
  // A slot listed at the next midnight starts from the fixing too.
  SetTime((day + 1) * kDay + kHour);
  const std::string later = SpotSymbol("B200-STD", day + 1 + 7);
  AwaitListed(later);
  EXPECT_NE(ProbeBuy(later, 64'500, &text), w::EXEC_TYPE_REJECTED) << text;

  fix_prov_c_->Logout(kFixWait);
  fix_trader_c_->Logout(kFixWait);
  ASSERT_TRUE(server_.Stop().ok());
  ASSERT_TRUE(server_.Start().ok());
  LogOnAll();
  EXPECT_NE(ProbeBuy(later, 64'500, &text), w::EXEC_TYPE_REJECTED) << text;
  EXPECT_NE(ProbeBuy(SpotSymbol("B200-STD", day + 3), 64'500, &text),
            w::EXEC_TYPE_REJECTED)
      << text;
  ASSERT_TRUE(server_.Stop().ok());
}

}  // namespace
}  // namespace cfx::gateway::server_test
