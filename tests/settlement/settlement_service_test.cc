#include "settlement/settlement_service.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "settlement/margin_call.h"
#include "settlement/settlement_report.h"
#include "tests/support/temp_dir.h"

namespace cfx::settlement {
namespace {

using exchange::Amount;
using exchange::Event;
using exchange::EventType;
using exchange::Price;
using testing::TempDir;

constexpr int64_t kHour = 3'600 * kNanosPerSecond;
constexpr int64_t kMinute = 60 * kNanosPerSecond;
constexpr int64_t kDec1 = 20'788;  // 2026-12-01, a Tuesday
constexpr int64_t kDec31 = kDec1 + 30;
constexpr uint32_t kDec = 1;                     // XB2SZ6
constexpr uint32_t kJan = 2;                     // XB2SF7
constexpr uint32_t kSpot = 3;                    // a B200-STD spot slot
constexpr int64_t kOpening = 1'000'000'000'000;  // $1,000,000

// Micro-dollars of $d.dd.
constexpr int64_t Usd(int64_t cents) { return cents * 10'000; }
// Price units of $d.dd.
constexpr int64_t Px(int64_t cents) { return cents * 100; }

SettlementConfig TestConfig() {
  SettlementConfig c;
  c.instruments.resize(4);
  c.instruments[kDec] = {true,   false,  "XB2SZ6", 1,  2026 * 12 + 11, 730, 100,
                         58'000, kDec31, 0,        192};
  c.instruments[kJan] = {true,          false, "XB2SF7", 1,
                         2027 * 12 + 0, 730,   100,      58'000,
                         kDec31 + 29,   0,     192};
  c.instruments[kSpot] = {false, true, "B200-STD-SPOT", 0, 0, 0, 100, 58'000, 0,
                          0,     192};
  // Accounts 1 and 2 clear through CM-1, 3 and 4 through CM-2.
  c.ledger.account_member = {0, 1, 1, 2, 2};
  c.account_names = {"", "A1", "A2", "A3", "A4"};
  c.member_names = {"", "CM-1", "CM-2"};
  const exchange::Amount opening{kOpening};
  c.opening_collateral = {exchange::Amount{}, opening, opening, opening,
                          opening};
  return c;
}

// The events a live engine would emit, with increasing seqs.
class Stream {
 public:
  void Trade(uint32_t instrument, int64_t ts, int64_t cents, int64_t lots,
             uint32_t buyer, uint32_t seller) {
    Event e = Next(EventType::kTrade, ts);
    e.instrument = exchange::InstrumentId{instrument};
    e.trade_id = exchange::TradeId{++trade_id_};
    e.side = exchange::Side::kBuy;
    e.account = exchange::AccountId{buyer};
    e.counter_account = exchange::AccountId{seller};
    e.price = exchange::Price{Px(cents)};
    e.quantity = exchange::Quantity{lots};
    events_.push_back(e);
  }
  void Level(uint32_t instrument, int64_t ts, exchange::Side side,
             int64_t cents, int64_t lots) {
    Event e = Next(EventType::kBookLevel, ts);
    e.instrument = exchange::InstrumentId{instrument};
    e.side = side;
    e.price = exchange::Price{Px(cents)};
    e.quantity = exchange::Quantity{lots};
    events_.push_back(e);
  }
  void Listed(uint32_t instrument, int64_t ts, int64_t delivery_day) {
    Event e = Next(EventType::kInstrumentListed, ts);
    e.instrument = exchange::InstrumentId{instrument};
    e.count = static_cast<uint32_t>(delivery_day);
    events_.push_back(e);
  }
  void Bust(uint64_t trade_id, int64_t ts) {
    Event e = Next(EventType::kTradeBusted, ts);
    e.trade_id = exchange::TradeId{trade_id};
    events_.push_back(e);
  }
  void Deposit(uint32_t account, int64_t ts, int64_t micros) {
    Event e = Next(EventType::kCollateralChanged, ts);
    e.command = exchange::CommandType::kCollateral;
    e.account = exchange::AccountId{account};
    e.quantity = exchange::Quantity{micros};
    events_.push_back(e);
  }
  // The settlement instant of `day` (21:00 UTC).
  void Fixing(int64_t day) {
    Event e = Next(EventType::kIndexFixing, day * kNanosPerDay + 21 * kHour);
    e.count = static_cast<uint32_t>(day);
    events_.push_back(e);
  }
  // The admin's re-run of the refused `day`, sequenced at `ts`.
  void Rerun(int64_t day, int64_t ts) {
    Event e = Next(EventType::kSettlementRerun, ts);
    e.count = static_cast<uint32_t>(day);
    events_.push_back(e);
  }
  uint64_t last_seq() const { return seq_; }
  uint64_t last_trade_id() const { return trade_id_; }
  const std::vector<Event>& events() const { return events_; }
  void FeedTo(SettlementService& s) const {
    for (const Event& e : events_) s.OnEvent(e);
  }

 private:
  Event Next(EventType type, int64_t ts) {
    Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq_};
    e.ts = exchange::Timestamp{ts};
    return e;
  }
  uint64_t seq_ = 0;
  uint64_t trade_id_ = 0;
  std::vector<Event> events_;
};

int64_t At(int64_t day, int64_t hour, int64_t minute = 0) {
  return day * kNanosPerDay + hour * kHour + minute * kMinute;
}

const ContractSettlement* Find(const RunReport& r, uint32_t instrument) {
  for (const ContractSettlement& c : r.contracts) {
    if (c.instrument == instrument) return &c;
  }
  return nullptr;
}

// Three days of XB2SZ6: Tier 1, Tier 1, then Tier 2; XB2SF7 never trades
// and follows by Tier 3.
Stream ThreeDays() {
  Stream s;
  // Day 1: A1 buys 2 from A3 at $5.90 at 20:50, inside the window.
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 3);
  s.Fixing(kDec1);
  // Day 2: A2 buys 1 from A4 at $6.00 at 20:55.
  s.Trade(kDec, At(kDec1 + 1, 20, 55), 600, 1, 2, 4);
  s.Fixing(kDec1 + 1);
  // Day 3: one trade at 10:00 at $6.20 (outside the window); the book
  // closes 6.05 bid / 6.15 offered.
  s.Trade(kDec, At(kDec1 + 2, 10), 620, 1, 1, 4);
  s.Level(kDec, At(kDec1 + 2, 11), exchange::Side::kBuy, 605, 3);
  s.Level(kDec, At(kDec1 + 2, 11), exchange::Side::kSell, 615, 4);
  s.Fixing(kDec1 + 2);
  return s;
}

TEST(SettlementService, SettlesThreeDaysOfVariationMargin) {
  auto svc = SettlementService::InMemory(TestConfig());
  ThreeDays().FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  ASSERT_EQ(svc->SettledDates(),
            (std::vector<int64_t>{kDec1, kDec1 + 1, kDec1 + 2}));

  // Day 1: Tier 1 VWAP $5.90. XB2SF7: Tier 3 = $5.80 + (5.90 - 5.80).
  const RunReport* d1 = svc->Report(kDec1);
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(Find(*d1, kDec)->price, Price{Px(590)});
  EXPECT_EQ(Find(*d1, kDec)->tier, DspTier::k1);
  EXPECT_EQ(Find(*d1, kJan)->price, Price{Px(590)});
  EXPECT_EQ(Find(*d1, kJan)->tier, DspTier::k3);
  // Against the trade price on the trade day: 730 x 2 x (5.90 - 5.90) = 0.
  EXPECT_EQ(d1->accounts[1].variation_margin, Amount{0});
  EXPECT_EQ(Find(*d1, kDec)->open_interest, 2);

  // Day 2: $6.00. A1 (long 2): 730 x 2 x 0.10 = $146.00; A3 pays it.
  const RunReport* d2 = svc->Report(kDec1 + 1);
  EXPECT_EQ(Find(*d2, kDec)->price, Price{Px(600)});
  EXPECT_EQ(d2->accounts[1].variation_margin, Amount{Usd(14'600)});
  EXPECT_EQ(d2->accounts[3].variation_margin, Amount{-Usd(14'600)});
  EXPECT_EQ(d2->accounts[2].variation_margin, Amount{0});

  // Day 3: traded at $6.20 outside the window: Tier 2, clipped to the
  // offer, $6.15. A1: long 2 x (6.15 - 6.00) + 1 x (6.15 - 6.20) = 0.25
  // x 730 = $182.50. A2: 1 x 0.15 x 730 = $109.50. A3: -2 x 0.15 x 730 =
  // -$219.00. A4: -1 x 0.15 - 1 x (6.15 - 6.20) = -0.10 x 730 = -$73.00.
  const RunReport* d3 = svc->Report(kDec1 + 2);
  EXPECT_EQ(Find(*d3, kDec)->price, Price{Px(615)});
  EXPECT_EQ(Find(*d3, kDec)->tier, DspTier::k2);
  EXPECT_EQ(d3->accounts[1].variation_margin, Amount{Usd(18'250)});
  EXPECT_EQ(d3->accounts[2].variation_margin, Amount{Usd(10'950)});
  EXPECT_EQ(d3->accounts[3].variation_margin, Amount{-Usd(21'900)});
  EXPECT_EQ(d3->accounts[4].variation_margin, Amount{-Usd(7'300)});

  // Positions and collateral: opening + the VM paid and received.
  EXPECT_EQ(svc->Position(1, kDec), 3);
  EXPECT_EQ(svc->Position(4, kDec), -2);
  EXPECT_EQ(svc->ledger().Balance(1), kOpening + Usd(14'600 + 18'250));
  EXPECT_EQ(svc->ledger().Balance(3), kOpening - Usd(14'600 + 21'900));
  EXPECT_EQ(d3->accounts[1].collateral, Amount{svc->ledger().Balance(1)});
  EXPECT_EQ(svc->ledger().HouseBalance(), 0);
  // IM of A1 at $6.15: 3 x 730 x 6.15 x 15 % = $2,020.275.
  EXPECT_EQ(d3->accounts[1].initial_margin, Amount{2'020'275'000});
}

TEST(SettlementService, WeekendFixingsDoNotSettleAndWeekendFillsGoToMonday) {
  Stream s;
  const int64_t sat = kDec1 + 4;  // 2026-12-05
  s.Trade(kDec, At(sat, 12), 600, 1, 1, 3);
  s.Fixing(sat);
  s.Fixing(sat + 1);
  s.Fixing(sat + 2);  // Monday
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->SettledDates(), (std::vector<int64_t>{sat + 2}));
  const RunReport* mon = svc->Report(sat + 2);
  // Saturday's trade is Monday's, but not in Monday's window: Tier 2.
  EXPECT_EQ(Find(*mon, kDec)->tier, DspTier::k2);
  EXPECT_EQ(mon->fills, 2u);
  EXPECT_EQ(svc->Position(1, kDec), 1);
}

// Christmas 2026 (Friday 12-25) a holiday: no run that day; a future's fill
// on it is Monday's, and a spot node-day delivered on it is paid Monday.
TEST(SettlementService, AHolidayDoesNotSettleAndItsFillsAndCashGoToTheNextDay) {
  const int64_t christmas = kDec1 + 24;
  const int64_t monday = christmas + 3;
  SettlementConfig config = TestConfig();
  config.calendar = BusinessCalendar({christmas});
  Stream s;
  s.Listed(kSpot, At(christmas - 2, 0), christmas);
  s.Trade(kSpot, At(christmas - 1, 10), 600, 1, 1, 3);
  s.Fixing(christmas - 1);
  s.Trade(kDec, At(christmas, 20, 50), 600, 1, 1, 3);  // a holiday's window
  for (int64_t d = christmas; d <= monday; ++d) s.Fixing(d);
  auto svc = SettlementService::InMemory(config);
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->SettledDates(), (std::vector<int64_t>{christmas - 1, monday}));
  const RunReport* mon = svc->Report(monday);
  EXPECT_EQ(mon->fills, 2u);
  // Not in Monday's 20:45-21:00 window: Tier 2.
  EXPECT_EQ(Find(*mon, kDec)->tier, DspTier::k2);
  EXPECT_EQ(mon->spot_trades_paid, 1u);
  EXPECT_EQ(mon->accounts[1].spot_cash, Amount{-Usd(115'200)});  // 6.00 x 192
}

TEST(SettlementService, PaysSpotCashOnTheDeliveryDayUnlessBusted) {
  Stream s;
  const int64_t delivery = kDec1 + 2;  // Thursday 2026-12-03
  s.Listed(kSpot, At(kDec1, 0), delivery);
  // A1 buys 2 node-days from A3 at $6.00: 6.00 x 192 x 2 = $2,304.
  s.Trade(kSpot, At(kDec1, 10), 600, 2, 1, 3);
  // A2 buys 1 from A4; the trade is busted.
  s.Trade(kSpot, At(kDec1, 11), 610, 1, 2, 4);
  s.Bust(s.last_trade_id(), At(delivery, 9));
  s.Fixing(kDec1);
  s.Fixing(kDec1 + 1);
  s.Fixing(delivery);
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->Report(kDec1)->spot_trades_paid, 0u);
  const RunReport* r = svc->Report(delivery);
  EXPECT_EQ(r->spot_trades_paid, 1u);
  EXPECT_EQ(r->accounts[1].spot_cash, Amount{-Usd(230'400)});
  EXPECT_EQ(r->accounts[3].spot_cash, Amount{Usd(230'400)});
  EXPECT_EQ(r->accounts[2].spot_cash, Amount{0});
  EXPECT_EQ(svc->ledger().Balance(1), kOpening - Usd(230'400));
  EXPECT_EQ(svc->ledger().Balance(4), kOpening);
  const std::vector<Movement> cm2 = svc->ledger().Movements(delivery, 2);
  ASSERT_EQ(cm2.size(), 1u);  // CM-2 sees only A3's line
  EXPECT_EQ(cm2[0].account, 3u);
}

// Every business day of December 2026 fixes at `cents`; the first
// `from_trades_days` business days at Level 1-2, the others at Level 3-4.
FixingLookup December(int64_t cents, int from_trades_days) {
  return [cents, from_trades_days](uint32_t,
                                   int64_t day) -> std::optional<FixingValue> {
    if (day < kDec1 || day > kDec31) return std::nullopt;
    const BusinessCalendar calendar;
    int before = 0;  // business days of the month before `day`
    for (int64_t d = kDec1; d < day; ++d) before += calendar.IsBusinessDay(d);
    FixingValue v;
    v.has_value = true;
    v.value.micros = Usd(cents);
    v.from_trades = before < from_trades_days;
    return v;
  };
}

Stream HoldThroughDecember() {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 3);
  for (int64_t d = kDec1; d <= kDec31; ++d) s.Fixing(d);
  s.Fixing(kDec31 + 4);  // Monday 2027-01-04
  return s;
}

TEST(SettlementService, FinalSettlementAgainstTheFspClosesPositions) {
  auto svc = SettlementService::InMemory(TestConfig());
  svc->set_fixings(December(612, 23));  // every day at Level 1-2
  HoldThroughDecember().FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  const RunReport* last = svc->Report(kDec31);
  ASSERT_NE(last, nullptr);
  const ContractSettlement* z6 = Find(*last, kDec);
  ASSERT_NE(z6, nullptr);
  EXPECT_TRUE(z6->final);
  EXPECT_FALSE(z6->disrupted);
  EXPECT_EQ(z6->price, Price{Px(612)});  // the mean of 23 fixings of $6.12
  // From $5.90 (no trade since: Tier 3 kept the prior) to the FSP $6.12:
  // 730 x 2 x 0.22 = $321.20.
  const std::vector<Movement> moves = svc->ledger().Movements(kDec31);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].kind, MovementKind::kFinalSettlement);
  EXPECT_EQ(svc->ledger().Balance(1), kOpening + Usd(32'120));
  EXPECT_EQ(svc->Position(1, kDec), 0);
  // The expired contract is not settled again.
  EXPECT_EQ(Find(*svc->Report(kDec31 + 4), kDec), nullptr);
  EXPECT_NE(Find(*svc->Report(kDec31 + 4), kJan), nullptr);
}

TEST(SettlementService, OnItsLastTradingDayTheExpiringMonthMovesNoTier3Month) {
  // XB2SZ6 trades in the window of its last trading day (2026-12-31) at
  // $6.00 after a DSP of $5.90 and settles FINAL at the FSP; XB2SF7 does
  // not trade. No month settled at Tier 1 or 2 today, so XB2SF7 keeps its
  // prior DSP ($5.90: it followed XB2SZ6's first day, $5.80 -> $5.90, at
  // Tier 3) instead of taking XB2SZ6's +$0.10 to $6.00.
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 3);
  for (int64_t d = kDec1; d < kDec31; ++d) s.Fixing(d);
  s.Trade(kDec, At(kDec31, 20, 50), 600, 1, 2, 4);
  s.Fixing(kDec31);
  auto svc = SettlementService::InMemory(TestConfig());
  svc->set_fixings(December(612, 23));
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  const ContractSettlement* f7_before = Find(*svc->Report(kDec31 - 1), kJan);
  ASSERT_NE(f7_before, nullptr);
  EXPECT_EQ(f7_before->price, Price{Px(590)});
  const RunReport* last = svc->Report(kDec31);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(Find(*last, kDec)->tier, DspTier::kFinal);
  const ContractSettlement* f7 = Find(*last, kJan);
  ASSERT_NE(f7, nullptr);
  EXPECT_EQ(f7->tier, DspTier::k3);
  EXPECT_EQ(f7->price, Price{Px(590)});
}

// The FSP averages the month's business days: 22 in December 2026 when
// Christmas is a holiday, whose fixing does not count.
TEST(SettlementService, TheFspSkipsTheHolidaysFixing) {
  const int64_t christmas = kDec1 + 24;
  SettlementConfig config = TestConfig();
  config.calendar = BusinessCalendar({christmas});
  auto svc = SettlementService::InMemory(config);
  svc->set_fixings(
      [christmas](uint32_t, int64_t day) -> std::optional<FixingValue> {
        if (day < kDec1 || day > kDec31) return std::nullopt;
        // $6.12 every day but $9.00 on the holiday: a mean of 22 days of $6.12.
        return FixingValue{true, Usd(day == christmas ? 900 : 612), true};
      });
  Stream s = HoldThroughDecember();
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->Report(christmas), nullptr);
  const ContractSettlement* z6 = Find(*svc->Report(kDec31), kDec);
  ASSERT_NE(z6, nullptr);
  EXPECT_TRUE(z6->final);
  EXPECT_EQ(z6->price, Price{Px(612)});
}

TEST(SettlementService, FspIsDisruptedBelowThreeQuartersOfLevelOneOrTwo) {
  // 23 business days: 17 qualifying is 73.9 % < 75 %.
  auto svc = SettlementService::InMemory(TestConfig());
  svc->set_fixings(December(612, 17));
  HoldThroughDecember().FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_TRUE(Find(*svc->Report(kDec31), kDec)->disrupted);
  // 18 of 23 is 78 %: not disrupted.
  auto svc2 = SettlementService::InMemory(TestConfig());
  svc2->set_fixings(December(612, 18));
  HoldThroughDecember().FeedTo(*svc2);
  EXPECT_FALSE(Find(*svc2->Report(kDec31), kDec)->disrupted);
}

TEST(SettlementService, ReplayingTheJournalChangesNothing) {
  TempDir dir;
  const Stream s = ThreeDays();
  std::string report;
  {
    auto svc = SettlementService::Open(TestConfig(), dir.path());
    ASSERT_TRUE(svc.has_value()) << svc.error().ToString();
    int runs = 0;
    svc.value()->set_on_run([&runs](const RunResult&) { ++runs; });
    s.FeedTo(*svc.value());
    ASSERT_TRUE(svc.value()->status().ok());
    EXPECT_EQ(runs, 3);
    report = ReportJson(TestConfig(), *svc.value()->Report(kDec1 + 2));
  }
  // A restart feeds the whole journal again: every date is recomputed,
  // equal, and not booked or announced twice.
  auto svc = SettlementService::Open(TestConfig(), dir.path());
  ASSERT_TRUE(svc.has_value()) << svc.error().ToString();
  int runs = 0;
  svc.value()->set_on_run([&runs](const RunResult&) { ++runs; });
  s.FeedTo(*svc.value());
  ASSERT_TRUE(svc.value()->status().ok()) << svc.value()->status().ToString();
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(ReportJson(TestConfig(), *svc.value()->Report(kDec1 + 2)), report);
  EXPECT_EQ(svc.value()->ledger().Balance(1), kOpening + Usd(14'600 + 18'250));
  EXPECT_EQ(svc.value()->ledger().SettledDates().size(), 3u);
}

// Removes the service's stored state from its data dir: what a data dir
// written before the state was stored looks like (or one where a crash
// came between a run's ledger write and its state write). The next Open
// then feeds the whole journal again and recomputes every settled date.
void DropStoredState(const std::string& dir) {
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), "xs").ok());
}

TEST(SettlementService, ARerunThatDiffersIsRefused) {
  TempDir dir;
  {
    auto svc = SettlementService::Open(TestConfig(), dir.path());
    ASSERT_TRUE(svc.has_value());
    ThreeDays().FeedTo(*svc.value());
  }
  DropStoredState(dir.path());
  // Another history for the same dates: day 2 trades at $6.10.
  Stream other;
  other.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 3);
  other.Fixing(kDec1);
  other.Trade(kDec, At(kDec1 + 1, 20, 55), 610, 1, 2, 4);
  other.Fixing(kDec1 + 1);
  auto svc = SettlementService::Open(TestConfig(), dir.path());
  ASSERT_TRUE(svc.has_value());
  other.FeedTo(*svc.value());
  EXPECT_FALSE(svc.value()->status().ok());
  EXPECT_NE(svc.value()->status().ToString().find("already settled"),
            std::string::npos)
      << svc.value()->status().ToString();
  // Nothing changed in the ledger.
  EXPECT_EQ(svc.value()->ledger().Balance(1), kOpening + Usd(14'600 + 18'250));
}

TEST(SettlementService, AFillOfAnUnknownAccountStopsTheRunNamingTheInvariant) {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 9);  // account 9 is unknown
  s.Fixing(kDec1);
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_FALSE(svc->status().ok());
  EXPECT_NE(svc->status().ToString().find("every fill is counted exactly once"),
            std::string::npos)
      << svc->status().ToString();
  EXPECT_TRUE(svc->SettledDates().empty());
  EXPECT_FALSE(svc->ledger().IsSettled(kDec1));
}

TEST(SettlementService, DepositsReachTheLedgerAndTheCollateral) {
  Stream s;
  s.Deposit(2, At(kDec1, 9), Usd(50'000));
  s.Trade(kDec, At(kDec1, 20, 50), 590, 1, 2, 3);
  s.Fixing(kDec1);
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->ledger().Balance(2), kOpening + Usd(50'000));
  EXPECT_EQ(svc->Report(kDec1)->accounts[2].collateral,
            Amount{kOpening + Usd(50'000)});
}

TEST(SettlementService, ReportsKeepToTheMembersAccounts) {
  auto svc = SettlementService::InMemory(TestConfig());
  ThreeDays().FeedTo(*svc);
  const RunReport* r = svc->Report(kDec1 + 2);
  const std::string cm1 = ReportJson(TestConfig(), *r, 1);
  EXPECT_NE(cm1.find("\"price\":\"6.15\",\"tier\":\"2\""), std::string::npos)
      << cm1;
  EXPECT_NE(cm1.find("{\"account\":\"A1\",\"clearing_member\":\"CM-1\","
                     "\"positions\":{\"XB2SZ6\":{\"position\":3,"
                     "\"variation_margin\":\"182.500000\"}}"),
            std::string::npos)
      << cm1;
  EXPECT_EQ(cm1.find("A3"), std::string::npos);
  EXPECT_EQ(cm1.find("CM-2"), std::string::npos);
  const std::string json = ReportJson(TestConfig(), *r, 2);
  EXPECT_NE(json.find("\"account\":\"A3\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"A1\""), std::string::npos) << json;
}

// The line of `account` in `instrument` of a report, or nullptr.
const AccountSettlement::Line* LineOf(const RunReport& r, uint32_t account,
                                      uint32_t instrument) {
  for (const AccountSettlement::Line& l : r.accounts[account].positions) {
    if (l.instrument == instrument) return &l;
  }
  return nullptr;
}

TEST(SettlementService, ReportsListEachFillOfTheDayWithItsSide) {
  auto svc = SettlementService::InMemory(TestConfig());
  ThreeDays().FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  // Day 2: trade 2, A2 (CM-1) buys 1 from A4 (CM-2) at $6.00 at 20:55.
  const RunReport* d2 = svc->Report(kDec1 + 1);
  ASSERT_EQ(d2->trades.size(), 2u);
  for (const TradeLine& t : d2->trades) {
    EXPECT_EQ(t.trade_id, 2u);
    EXPECT_EQ(t.match_time, At(kDec1 + 1, 20, 55));
    EXPECT_EQ(t.instrument, kDec);
    EXPECT_EQ(t.price, Price{Px(600)});
    EXPECT_FALSE(t.busted);
  }
  const TradeLine& buy = d2->trades[0].lots > 0 ? d2->trades[0] : d2->trades[1];
  const TradeLine& sell =
      d2->trades[0].lots > 0 ? d2->trades[1] : d2->trades[0];
  EXPECT_EQ(buy.account, 2u);
  EXPECT_EQ(buy.member, 1u);
  EXPECT_EQ(buy.lots, 1);
  EXPECT_EQ(sell.account, 4u);
  EXPECT_EQ(sell.member, 2u);
  EXPECT_EQ(sell.lots, -1);
  // Each member's JSON lists its own side only.
  const std::string cm1 = ReportJson(TestConfig(), *d2, 1);
  EXPECT_NE(cm1.find("\"trades\":[{\"trade_id\":2,\"match_time\":"
                     "\"2026-12-02T20:55:00.000000000Z\",\"account\":\"A2\","
                     "\"symbol\":\"XB2SZ6\",\"side\":\"BUY\",\"quantity\":1,"
                     "\"price\":\"6.00\",\"busted\":false}]"),
            std::string::npos)
      << cm1;
  EXPECT_EQ(cm1.find("\"A4\""), std::string::npos) << cm1;
}

TEST(SettlementService, ReportsListSpotTradesOnTheDayTheyMatched) {
  Stream s;
  const int64_t delivery = kDec1 + 2;
  s.Listed(kSpot, At(kDec1, 0), delivery);
  s.Trade(kSpot, At(kDec1, 10), 600, 2, 1, 3);
  s.Fixing(kDec1);
  s.Fixing(kDec1 + 1);
  s.Fixing(delivery);
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  const RunReport* matched = svc->Report(kDec1);
  ASSERT_EQ(matched->trades.size(), 2u);
  EXPECT_EQ(matched->trades[0].instrument, kSpot);
  EXPECT_EQ(matched->trades[0].match_time, At(kDec1, 10));
  EXPECT_TRUE(svc->Report(kDec1 + 1)->trades.empty());
  // The cash moves on the delivery day, referencing the trade.
  const RunReport* paid = svc->Report(delivery);
  EXPECT_TRUE(paid->trades.empty());
  ASSERT_EQ(paid->cash.size(), 2u);
  for (const CashLine& c : paid->cash) {
    EXPECT_EQ(c.movement.kind, MovementKind::kSpotCash);
    EXPECT_EQ(c.movement.ref, 1u);
    EXPECT_EQ(c.counterparty, BookKind::kHouse);
  }
}

TEST(SettlementService, CashMovementsReconcileEveryCollateral) {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 3);
  s.Fixing(kDec1);
  s.Deposit(2, At(kDec1 + 1, 9), Usd(50'000));
  s.Trade(kDec, At(kDec1 + 1, 20, 55), 600, 1, 2, 4);
  s.Fixing(kDec1 + 1);
  auto svc = SettlementService::InMemory(TestConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  // The first run lists the opening collateral, from the bank.
  const RunReport* d1 = svc->Report(kDec1);
  ASSERT_EQ(d1->cash.size(), 4u);  // no VM on day 1: traded at the DSP
  for (const CashLine& c : d1->cash) {
    EXPECT_EQ(c.movement.kind, MovementKind::kDeposit);
    EXPECT_EQ(c.movement.amount.micros, kOpening);
    EXPECT_EQ(c.counterparty, BookKind::kBank);
  }
  // Day 2: the deposit, then the VM of A1 and A3 through the house.
  const RunReport* d2 = svc->Report(kDec1 + 1);
  ASSERT_EQ(d2->cash.size(), 3u);
  EXPECT_EQ(d2->cash[0].movement.kind, MovementKind::kDeposit);
  EXPECT_EQ(d2->cash[0].movement.account, 2u);
  EXPECT_EQ(d2->cash[0].movement.ref, 3u);  // the event's seq
  EXPECT_EQ(d2->cash[1].movement.kind, MovementKind::kVariationMargin);
  EXPECT_EQ(d2->cash[1].movement.account, 1u);
  EXPECT_EQ(d2->cash[1].movement.amount.micros, Usd(14'600));
  EXPECT_EQ(d2->cash[1].counterparty, BookKind::kHouse);
  EXPECT_EQ(d2->cash[2].member, 2u);
  // Each account: the previous collateral plus its lines.
  std::vector<int64_t> collateral(5, 0);
  for (const RunReport* r : {d1, d2}) {
    for (const CashLine& c : r->cash) {
      collateral[c.movement.account] += c.movement.amount.micros;
    }
    for (uint32_t a = 1; a <= 4; ++a) {
      EXPECT_EQ(r->accounts[a].collateral, Amount{collateral[a]}) << a;
    }
  }
  const std::string cm2 = ReportJson(TestConfig(), *d2, 2);
  EXPECT_NE(cm2.find("\"cash_movements\":[{\"kind\":\"VARIATION_MARGIN\","
                     "\"account\":\"A3\",\"amount\":\"-146.000000\","
                     "\"counterparty\":\"CLEARING-HOUSE\",\"reference\":"
                     "\"XB2SZ6\"}]"),
            std::string::npos)
      << cm2;
}

TEST(SettlementService, FinalSettlementShowsPositionZeroAndTheClosedQuantity) {
  auto svc = SettlementService::InMemory(TestConfig());
  svc->set_fixings(December(612, 23));
  HoldThroughDecember().FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  const RunReport* last = svc->Report(kDec31);
  const AccountSettlement::Line* a1 = LineOf(*last, 1, kDec);
  const AccountSettlement::Line* a3 = LineOf(*last, 3, kDec);
  ASSERT_TRUE(a1 != nullptr && a3 != nullptr);
  EXPECT_EQ(a1->position, 0);
  EXPECT_TRUE(a1->closed);
  EXPECT_EQ(a1->final_quantity, 2);
  EXPECT_EQ(a1->variation_margin, Amount{Usd(32'120)});
  EXPECT_EQ(a3->position, 0);
  EXPECT_EQ(a3->final_quantity, -2);
  // The day before, the position was open.
  const AccountSettlement::Line* before =
      LineOf(*svc->Report(kDec31 - 1), 1, kDec);
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->position, 2);
  EXPECT_FALSE(before->closed);
  // The FSP at $0.001, the DSPs at the tick.
  const std::string json = ReportJson(TestConfig(), *last, 1);
  EXPECT_NE(json.find("{\"symbol\":\"XB2SZ6\",\"price\":\"6.120\",\"tier\":"
                      "\"FINAL\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"XB2SZ6\":{\"position\":0,\"variation_margin\":"
                      "\"321.200000\",\"closed\":true,\"final_quantity\":2}"),
            std::string::npos)
      << json;
}

// ---- Margin calls ----

// A2 opens with $1,000 and buys 2 XB2SZ6 at $5.90: IM 2 x 730 x 5.90 x 15 %
// = $1,292.10, so the run calls $292.10.
SettlementConfig ShortConfig() {
  SettlementConfig c = TestConfig();
  c.opening_collateral[2] = exchange::Amount{Usd(100'000)};
  return c;
}

TEST(SettlementService, AnAccountBelowItsInitialMarginGetsAMarginCall) {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 2, 3);
  s.Fixing(kDec1);
  auto svc = SettlementService::InMemory(ShortConfig());
  s.FeedTo(*svc);
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  const RunReport* r = svc->Report(kDec1);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->accounts[2].initial_margin, Amount{Usd(129'210)});
  EXPECT_EQ(r->accounts[2].collateral, Amount{Usd(100'000)});
  EXPECT_EQ(r->accounts[2].margin_call, Amount{Usd(29'210)});
  EXPECT_EQ(r->accounts[3].margin_call, Amount{0});  // $1,000,000 covers its IM
  const std::vector<MarginCall> calls = MarginCalls(*r, svc->ledger());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].account, 2u);
  EXPECT_EQ(calls[0].member, 1u);
  EXPECT_EQ(calls[0].amount_due, Amount{Usd(29'210)});
  EXPECT_EQ(calls[0].outstanding, Amount{Usd(29'210)});
  EXPECT_FALSE(calls[0].met);
  // CM-2 sees none of CM-1's calls.
  EXPECT_TRUE(MarginCalls(*r, svc->ledger(), 2).empty());
  EXPECT_NE(
      ReportJson(ShortConfig(), *r).find("\"margin_call\":\"292.100000\""),
      std::string::npos);
}

TEST(SettlementService, ADepositMeetsTheCallAtOnceAndTheNextRunIssuesNone) {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 2, 3);
  s.Fixing(kDec1);
  auto svc = SettlementService::InMemory(ShortConfig());
  s.FeedTo(*svc);
  // $200 is not enough: still $92.10 outstanding.
  Event d = s.events().back();
  auto deposit = [&](int64_t micros, uint64_t seq) {
    Event e;
    e.type = EventType::kCollateralChanged;
    e.seq = exchange::Seq{seq};
    e.ts = exchange::Timestamp{At(kDec1 + 1, 9)};
    e.account = exchange::AccountId{2};
    e.quantity = exchange::Quantity{micros};
    svc->OnEvent(e);
  };
  deposit(Usd(20'000), d.seq.value + 1);
  std::vector<MarginCall> calls =
      MarginCalls(*svc->Report(kDec1), svc->ledger());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_FALSE(calls[0].met);
  EXPECT_EQ(calls[0].collateral_now, Amount{Usd(120'000)});
  EXPECT_EQ(calls[0].outstanding, Amount{Usd(9'210)});
  // Another $100 covers the IM: the call shows MET at the next query.
  deposit(Usd(10'000), d.seq.value + 2);
  calls = MarginCalls(*svc->Report(kDec1), svc->ledger());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_TRUE(calls[0].met);
  EXPECT_EQ(calls[0].outstanding, Amount{0});
  EXPECT_EQ(calls[0].amount_due, Amount{Usd(29'210)});  // what the run called
  // The next run (no trade: Tier 3 keeps $5.90) issues no call.
  Event f = d;
  f.seq = exchange::Seq{d.seq.value + 3};
  f.ts = exchange::Timestamp{At(kDec1 + 1, 21)};
  f.count = static_cast<uint32_t>(kDec1 + 1);
  svc->OnEvent(f);
  ASSERT_NE(svc->Report(kDec1 + 1), nullptr);
  EXPECT_EQ(svc->Report(kDec1 + 1)->accounts[2].margin_call, Amount{0});
  EXPECT_TRUE(MarginCalls(*svc->Report(kDec1 + 1), svc->ledger()).empty());
}

// ---- Start-up from the stored state ----

// Every report of `svc` as JSON, by date.
std::map<int64_t, std::string> AllReports(const SettlementConfig& config,
                                          const SettlementService& svc) {
  std::map<int64_t, std::string> out;
  for (const int64_t d : svc.SettledDates()) {
    out[d] = ReportJson(config, *svc.Report(d));
  }
  return out;
}

// Five business days, the last one cut by the restart after its trades.
Stream FiveDays() {
  Stream s = ThreeDays();
  s.Deposit(2, At(kDec1 + 3, 9), Usd(50'000));
  s.Trade(kDec, At(kDec1 + 3, 20, 50), 610, 1, 3, 1);
  s.Trade(kJan, At(kDec1 + 3, 20, 52), 600, 2, 4, 2);
  s.Fixing(kDec1 + 3);  // Friday
  s.Fixing(kDec1 + 4);  // the weekend: no run
  s.Fixing(kDec1 + 5);
  s.Trade(kDec, At(kDec1 + 6, 20, 55), 620, 3, 2, 3);
  s.Fixing(kDec1 + 6);  // Monday
  return s;
}

TEST(SettlementService, ARestartLoadsItsStateAndAppliesOnlyTheLaterEvents) {
  const Stream s = FiveDays();
  // The uninterrupted run.
  auto whole = SettlementService::InMemory(TestConfig());
  s.FeedTo(*whole);
  ASSERT_TRUE(whole->status().ok()) << whole->status().ToString();
  ASSERT_EQ(whole->SettledDates().size(), 5u);

  // The same stream, stopped after Friday's run, the weekend's fixings and
  // Monday's trade: a restart before Monday's fixing.
  TempDir dir;
  const std::vector<Event>& events = s.events();
  const std::size_t cut = events.size() - 1;
  uint64_t stored_seq = 0;
  for (const Event& e : events) {
    if (e.type == EventType::kIndexFixing && e.count == kDec1 + 3) {
      stored_seq = e.seq.value;  // the state is stored with Friday's run
    }
  }
  ASSERT_GT(stored_seq, 0u);
  {
    auto first = SettlementService::Open(TestConfig(), dir.path());
    ASSERT_TRUE(first.has_value()) << first.error().ToString();
    for (std::size_t i = 0; i < cut; ++i) first.value()->OnEvent(events[i]);
    EXPECT_EQ(first.value()->last_applied_seq(), events[cut - 1].seq.value);
  }
  auto svc = SettlementService::Open(TestConfig(), dir.path());
  ASSERT_TRUE(svc.has_value()) << svc.error().ToString();
  // It starts from the state stored with Friday's run, not from seq 0.
  EXPECT_EQ(svc.value()->last_applied_seq(), stored_seq);
  EXPECT_EQ(svc.value()->SettledDates().size(), 4u);
  int runs = 0;
  svc.value()->set_on_run([&runs](const RunResult&) { ++runs; });
  s.FeedTo(*svc.value());  // the whole journal, as the server feeds it
  ASSERT_TRUE(svc.value()->status().ok()) << svc.value()->status().ToString();
  uint64_t later = 0;
  for (const Event& e : events) later += e.seq.value > stored_seq ? 1 : 0;
  EXPECT_EQ(svc.value()->events_applied(), later);
  EXPECT_EQ(later, 4u);  // two weekend fixings, Monday's trade and fixing
  EXPECT_EQ(runs, 1);    // Monday only
  // Byte-identical reports, positions, collateral and unapplied results.
  EXPECT_EQ(AllReports(TestConfig(), *svc.value()),
            AllReports(TestConfig(), *whole));
  for (uint32_t a = 1; a <= 4; ++a) {
    EXPECT_EQ(svc.value()->ledger().Balance(a), whole->ledger().Balance(a));
    EXPECT_EQ(svc.value()->Position(a, kDec), whole->Position(a, kDec));
    EXPECT_EQ(svc.value()->Position(a, kJan), whole->Position(a, kJan));
  }
  EXPECT_EQ(svc.value()->UnappliedResults().size(),
            whole->UnappliedResults().size());
}

TEST(SettlementService, EveryEventOfACommandApplies) {
  // A match: the order's acceptance, the trade and the book level all carry
  // the command's seq.
  std::vector<Event> events(3);
  events[0].type = EventType::kOrderAccepted;
  events[1].type = EventType::kTrade;
  events[1].instrument = exchange::InstrumentId{kDec};
  events[1].trade_id = exchange::TradeId{1};
  events[1].side = exchange::Side::kBuy;
  events[1].account = exchange::AccountId{1};
  events[1].counter_account = exchange::AccountId{3};
  events[1].price = exchange::Price{Px(590)};
  events[1].quantity = exchange::Quantity{2};
  events[2].type = EventType::kBookLevel;
  events[2].instrument = exchange::InstrumentId{kDec};
  events[2].side = exchange::Side::kSell;
  events[2].price = Price{Px(600)};
  events[2].quantity = exchange::Quantity{1};
  for (Event& e : events) {
    e.seq = exchange::Seq{1};
    e.ts = exchange::Timestamp{At(kDec1, 20, 50)};
  }
  Event fixing;
  fixing.type = EventType::kIndexFixing;
  fixing.seq = exchange::Seq{2};
  fixing.ts = exchange::Timestamp{At(kDec1, 21)};
  fixing.count = static_cast<uint32_t>(kDec1);
  events.push_back(fixing);
  TempDir dir;
  auto svc = SettlementService::Open(TestConfig(), dir.path());
  ASSERT_TRUE(svc.has_value());
  for (const Event& e : events) svc.value()->OnEvent(e);
  EXPECT_EQ(svc.value()->events_applied(), 4u);
  EXPECT_EQ(svc.value()->Position(1, kDec), 2);
  EXPECT_EQ(Find(*svc.value()->Report(kDec1), kDec)->price, Price{Px(590)});
}

// ---- Operator recovery ----

// The config with account 5 (A5, CM-2): the fix of the refused run below.
SettlementConfig FixedConfig() {
  SettlementConfig c = TestConfig();
  c.ledger.account_member.push_back(2);
  c.account_names.push_back("A5");
  c.opening_collateral.push_back(exchange::Amount{kOpening});
  return c;
}

// Day 1 trades with account 5, which TestConfig() lacks: its run is
// refused. Day 2 trades between known accounts; day 3 comes after the
// admin's re-run of day 1.
Stream RefusedThenRerun(int64_t rerun_day) {
  Stream s;
  s.Trade(kDec, At(kDec1, 20, 50), 590, 2, 1, 5);
  s.Fixing(kDec1);
  s.Trade(kDec, At(kDec1 + 1, 20, 55), 600, 1, 2, 4);
  s.Fixing(kDec1 + 1);
  s.Rerun(rerun_day, At(kDec1 + 2, 9));
  s.Trade(kDec, At(kDec1 + 2, 20, 50), 610, 1, 5, 1);
  s.Fixing(kDec1 + 2);
  return s;
}

TEST(SettlementService, ARefusedRunWaitsThenTheAdminsRerunSettlesItAndLater) {
  TempDir dir;
  const Stream s = RefusedThenRerun(kDec1);
  const std::vector<Event>& events = s.events();
  const std::size_t before_rerun = 4;  // trade, fixing, trade, fixing
  {
    auto svc = SettlementService::Open(TestConfig(), dir.path());
    ASSERT_TRUE(svc.has_value());
    for (std::size_t i = 0; i < before_rerun; ++i) {
      svc.value()->OnEvent(events[i]);
    }
    EXPECT_FALSE(svc.value()->status().ok());
    EXPECT_NE(svc.value()->status().message().find(
                  "every fill is counted exactly once (account 5 is unknown)"),
              std::string::npos)
        << svc.value()->status().ToString();
    EXPECT_EQ(svc.value()->refused_date(), kDec1);
    EXPECT_EQ(svc.value()->WaitingDates(),
              (std::vector<int64_t>{kDec1, kDec1 + 1}));
    EXPECT_TRUE(svc.value()->SettledDates().empty());
  }
  // The operator fixes the cause (the config gains account 5) and
  // restarts: the refusal is still there, with the waiting dates.
  auto svc = SettlementService::Open(FixedConfig(), dir.path());
  ASSERT_TRUE(svc.has_value()) << svc.error().ToString();
  EXPECT_EQ(svc.value()->refused_date(), kDec1);
  EXPECT_EQ(svc.value()->WaitingDates(),
            (std::vector<int64_t>{kDec1, kDec1 + 1}));
  int runs = 0;
  svc.value()->set_on_run([&runs](const RunResult&) { ++runs; });
  // A re-run of another date changes nothing.
  Stream wrong = RefusedThenRerun(kDec1 + 1);
  svc.value()->OnEvent(wrong.events()[before_rerun]);
  EXPECT_EQ(svc.value()->refused_date(), kDec1);
  EXPECT_EQ(runs, 0);
  // The whole journal, with the admin's re-run of day 1 and day 3 after it.
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event e = events[i];
    e.seq = exchange::Seq{e.seq.value + (i >= before_rerun ? 1 : 0)};
    svc.value()->OnEvent(e);
  }
  ASSERT_TRUE(svc.value()->status().ok()) << svc.value()->status().ToString();
  EXPECT_EQ(svc.value()->refused_date(), 0);
  EXPECT_TRUE(svc.value()->WaitingDates().empty());
  EXPECT_EQ(svc.value()->SettledDates(),
            (std::vector<int64_t>{kDec1, kDec1 + 1, kDec1 + 2}));
  EXPECT_EQ(runs, 3);
  // Day 1 settled as it would have at its instant: A1 long 2 at $5.90.
  EXPECT_EQ(Find(*svc.value()->Report(kDec1), kDec)->price, Price{Px(590)});
  // Day 2's DSP came from day 2's window, kept while it waited: $6.00.
  EXPECT_EQ(Find(*svc.value()->Report(kDec1 + 1), kDec)->price, Price{Px(600)});
  EXPECT_EQ(svc.value()->Position(1, kDec), 1);
  EXPECT_EQ(svc.value()->Position(5, kDec), -1);
  EXPECT_EQ(svc.value()->ledger().HouseBalance(), 0);

  // The same journal on the fixed config from scratch: day 1 settles at
  // its fixing, the re-run finds nothing to do, and every report matches.
  auto fresh = SettlementService::InMemory(FixedConfig());
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event e = events[i];
    e.seq = exchange::Seq{e.seq.value + (i >= before_rerun ? 1 : 0)};
    fresh->OnEvent(e);
  }
  ASSERT_TRUE(fresh->status().ok()) << fresh->status().ToString();
  EXPECT_EQ(AllReports(FixedConfig(), *svc.value()),
            AllReports(FixedConfig(), *fresh));
}

TEST(SettlementService, ARestartAfterTheRerunReproducesIt) {
  TempDir dir;
  const Stream s = RefusedThenRerun(kDec1);
  {
    auto svc = SettlementService::Open(TestConfig(), dir.path());
    ASSERT_TRUE(svc.has_value());
    for (std::size_t i = 0; i < 4; ++i) svc.value()->OnEvent(s.events()[i]);
  }
  std::map<int64_t, std::string> reports;
  {
    auto svc = SettlementService::Open(FixedConfig(), dir.path());
    ASSERT_TRUE(svc.has_value());
    s.FeedTo(*svc.value());
    ASSERT_TRUE(svc.value()->status().ok());
    reports = AllReports(FixedConfig(), *svc.value());
  }
  auto svc = SettlementService::Open(FixedConfig(), dir.path());
  ASSERT_TRUE(svc.has_value());
  EXPECT_EQ(svc.value()->last_applied_seq(), s.last_seq());
  s.FeedTo(*svc.value());
  EXPECT_EQ(svc.value()->events_applied(), 0u);
  EXPECT_TRUE(svc.value()->status().ok());
  EXPECT_EQ(AllReports(FixedConfig(), *svc.value()), reports);
  ASSERT_EQ(reports.size(), 3u);
}

}  // namespace
}  // namespace cfx::settlement
