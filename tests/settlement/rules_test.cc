#include "settlement/rules.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cfx::settlement {
namespace {

__extension__ typedef __int128 Int128;
using exchange::IndexPrice;
using exchange::Price;

// Days since 1970-01-01 of the dates used below (checked against a civil
// calendar):
constexpr int64_t kFri19991231 = 10956;
constexpr int64_t kSat20000101 = 10957;
constexpr int64_t kMon20000103 = 10959;
constexpr int64_t kThu20240229 = 19782;
constexpr int64_t kMon20261130 = 20787;
constexpr int64_t kTue20261201 = 20788;
constexpr int64_t kWed20261202 = 20789;
constexpr int64_t kFri20261204 = 20791;
constexpr int64_t kSat20261205 = 20792;
constexpr int64_t kMon20261207 = 20794;
constexpr int64_t kTue20261208 = 20795;
constexpr int64_t kFri20261225 = 20812;
constexpr int64_t kWed20261230 = 20817;
constexpr int64_t kThu20261231 = 20818;
constexpr int64_t kFri20270101 = 20819;
constexpr int64_t kMon20270104 = 20822;

constexpr int64_t kSettle = 75'600;  // 21:00:00 UTC
constexpr int64_t kTick = 100;       // $0.01
constexpr int64_t kFuturesHours = 730;

// The instant `day` hh:mm:ss + ns, UTC, in nanoseconds since the epoch.
int64_t At(int64_t day, int64_t hh, int64_t mm, int64_t ss, int64_t ns = 0) {
  return day * kNanosPerDay + ((hh * 60 + mm) * 60 + ss) * kNanosPerSecond + ns;
}

// ---- Business days ----

TEST(BusinessCalendarTest, WeekdaysAreBusinessDaysAcrossYears) {
  const BusinessCalendar cal;
  EXPECT_TRUE(cal.IsBusinessDay(0));    // 1970-01-01, Thursday
  EXPECT_TRUE(cal.IsBusinessDay(1));    // Friday
  EXPECT_FALSE(cal.IsBusinessDay(2));   // Saturday
  EXPECT_FALSE(cal.IsBusinessDay(3));   // Sunday
  EXPECT_TRUE(cal.IsBusinessDay(4));    // Monday
  EXPECT_TRUE(cal.IsBusinessDay(-1));   // 1969-12-31, Wednesday
  EXPECT_FALSE(cal.IsBusinessDay(-5));  // 1969-12-27, Saturday
  EXPECT_FALSE(cal.IsBusinessDay(kSat20000101));
  EXPECT_TRUE(cal.IsBusinessDay(kThu20240229));
  EXPECT_TRUE(cal.IsBusinessDay(kFri20261225));  // no holidays by default
  EXPECT_EQ(cal.NextOrSame(kSat20000101), kMon20000103);
  EXPECT_EQ(cal.NextOrSame(kMon20000103), kMon20000103);
  EXPECT_EQ(cal.Previous(kMon20000103), kFri19991231);
  EXPECT_EQ(cal.Previous(kTue20261201), kMon20261130);
  EXPECT_EQ(cal.Previous(-3), -6);  // Mon 1969-12-29 -> Fri 1969-12-26
}

TEST(BusinessCalendarTest, HolidaysAreSkippedInAnyOrderWithDuplicates) {
  const BusinessCalendar cal({kFri20270101, kFri20261225, kFri20270101});
  EXPECT_FALSE(cal.IsBusinessDay(kFri20261225));
  EXPECT_FALSE(cal.IsBusinessDay(kFri20270101));
  // Mon 2027-01-04 <- (Sun, Sat, holiday Fri) <- Thu 2026-12-31.
  EXPECT_EQ(cal.Previous(kMon20270104), kThu20261231);
  EXPECT_EQ(cal.NextOrSame(kFri20270101), kMon20270104);
}

TEST(BusinessCalendarTest, FillBeforeSettlementBelongsToThatDay) {
  const BusinessCalendar cal;
  EXPECT_EQ(cal.DayOfFill(At(kTue20261201, 20, 59, 59, 999'999'999), kSettle),
            kTue20261201);
  EXPECT_EQ(cal.DayOfFill(At(kTue20261201, 0, 0, 0), kSettle), kTue20261201);
  // The previous business day's 21:00:00 exactly opens day t.
  EXPECT_EQ(cal.DayOfFill(At(kMon20261130, 21, 0, 0), kSettle), kTue20261201);
}

TEST(BusinessCalendarTest, FillAtExactlySettlementBelongsToNextDay) {
  const BusinessCalendar cal;
  EXPECT_EQ(cal.DayOfFill(At(kTue20261201, 21, 0, 0), kSettle), kWed20261202);
}

TEST(BusinessCalendarTest, WeekendFillsBelongToMonday) {
  const BusinessCalendar cal;
  // Friday 21:00:00 up to Monday 20:59:59.999999999 -> Monday.
  EXPECT_EQ(cal.DayOfFill(At(kFri20261204, 20, 59, 59, 999'999'999), kSettle),
            kFri20261204);
  EXPECT_EQ(cal.DayOfFill(At(kFri20261204, 21, 0, 0), kSettle), kMon20261207);
  EXPECT_EQ(cal.DayOfFill(At(kSat20261205, 12, 0, 0), kSettle), kMon20261207);
  EXPECT_EQ(cal.DayOfFill(At(kMon20261207, 20, 59, 59, 999'999'999), kSettle),
            kMon20261207);
  EXPECT_EQ(cal.DayOfFill(At(kMon20261207, 21, 0, 0), kSettle), kTue20261208);
}

TEST(BusinessCalendarTest, HolidayMondayFillsBelongToTuesday) {
  const BusinessCalendar cal({kMon20261207});
  EXPECT_EQ(cal.DayOfFill(At(kFri20261204, 21, 0, 0), kSettle), kTue20261208);
  EXPECT_EQ(cal.DayOfFill(At(kMon20261207, 12, 0, 0), kSettle), kTue20261208);
  EXPECT_EQ(cal.DayOfFill(At(kMon20261207, 21, 0, 0), kSettle), kTue20261208);
  EXPECT_EQ(cal.DayOfFill(At(kTue20261208, 20, 59, 59, 999'999'999), kSettle),
            kTue20261208);
}

TEST(BusinessCalendarTest, FillsBeforeTheEpochUseFloorDivision) {
  const BusinessCalendar cal;
  // -1 ns = Wed 1969-12-31 23:59:59.999999999, after 21:00 -> Thu day 0.
  EXPECT_EQ(cal.DayOfFill(-1, kSettle), 0);
  EXPECT_EQ(cal.DayOfFill(At(-1, 20, 59, 59, 999'999'999), kSettle), -1);
  // Sat 1969-12-27 (day -5) -> Mon 1969-12-29 (day -3).
  EXPECT_EQ(cal.DayOfFill(At(-5, 10, 0, 0), kSettle), -3);
  // The extremes of the timestamp range do not crash and land on business
  // days.
  EXPECT_TRUE(cal.IsBusinessDay(
      cal.DayOfFill(std::numeric_limits<int64_t>::min(), kSettle)));
  EXPECT_TRUE(cal.IsBusinessDay(
      cal.DayOfFill(std::numeric_limits<int64_t>::max(), kSettle)));
}

TEST(BusinessCalendarTest, DayOfFillSatisfiesItsDefinitionForRandomInstants) {
  const BusinessCalendar cal({kFri20261225, kFri20270101, kMon20261207});
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    // Around the holidays, and around the epoch.
    for (const int64_t base_day : {kMon20261130, int64_t{-20}}) {
      std::uniform_int_distribution<int64_t> ts(base_day * kNanosPerDay,
                                                (base_day + 40) * kNanosPerDay);
      for (int i = 0; i < 2'000; ++i) {
        const int64_t t_ns = ts(rng);
        const int64_t t = cal.DayOfFill(t_ns, kSettle);
        ASSERT_TRUE(cal.IsBusinessDay(t)) << t_ns;
        ASSERT_LE(cal.Previous(t) * kNanosPerDay + kSettle * kNanosPerSecond,
                  t_ns);
        ASSERT_LT(t_ns, t * kNanosPerDay + kSettle * kNanosPerSecond);
      }
    }
  }
}

TEST(BusinessCalendarTest, DaysOfMonthDecember2026) {
  // Dec 2026: Tue 1 - Fri 4 (4), 7-11 (5), 14-18 (5), 21-25 (5),
  // 28-31 (4) = 23 business days.
  const std::vector<int64_t> days = BusinessCalendar().DaysOfMonth(2026, 12);
  ASSERT_EQ(days.size(), 23u);
  EXPECT_EQ(days.front(), kTue20261201);
  EXPECT_EQ(days.back(), kThu20261231);
  EXPECT_EQ(days[4], kMon20261207);
  // With Christmas a holiday: 22.
  EXPECT_EQ(BusinessCalendar({kFri20261225}).DaysOfMonth(2026, 12).size(), 22u);
}

TEST(BusinessCalendarTest, DaysOfMonthLeapFebruary) {
  // Feb 2024: Thu 1 - Fri 2 (2), 5-9, 12-16, 19-23 (15), 26-29 (4) = 21.
  const std::vector<int64_t> days = BusinessCalendar().DaysOfMonth(2024, 2);
  ASSERT_EQ(days.size(), 21u);
  EXPECT_EQ(days.back(), kThu20240229);
  EXPECT_EQ(BusinessCalendar().LastOfMonth(2024, 2), kThu20240229);
}

TEST(BusinessCalendarTest, LastOfMonthDecember2026) {
  EXPECT_EQ(BusinessCalendar().LastOfMonth(2026, 12), kThu20261231);
  EXPECT_EQ(BusinessCalendar({kThu20261231}).LastOfMonth(2026, 12),
            kWed20261230);
}

TEST(BusinessCalendarTest, MonthWithoutBusinessDayEndsBeforeIt) {
  // Every weekday of Dec 2026 a holiday: no business day in the month, and
  // the last business day "of" it is Mon 2026-11-30.
  const BusinessCalendar cal(BusinessCalendar().DaysOfMonth(2026, 12));
  EXPECT_TRUE(cal.DaysOfMonth(2026, 12).empty());
  EXPECT_EQ(cal.LastOfMonth(2026, 12), kMon20261130);
}

TEST(BusinessCalendarTest, MonthOutsideOneToTwelveIsNormalised) {
  const BusinessCalendar cal;
  EXPECT_EQ(cal.DaysOfMonth(2026, 13), cal.DaysOfMonth(2027, 1));
  EXPECT_EQ(cal.DaysOfMonth(2027, 0), cal.DaysOfMonth(2026, 12));
  EXPECT_EQ(cal.LastOfMonth(2027, 0), kThu20261231);
  EXPECT_EQ(cal.DaysOfMonth(2026, -11).front(),
            cal.DaysOfMonth(2025, 1).front());
}

// ---- DSP ----

DspInput Window(int64_t prior, Int128 notional, int64_t lots) {
  DspInput in;
  in.tick = Price{kTick};
  in.prior = Price{prior};
  in.window_notional = notional;
  in.window_lots = lots;
  in.last_trade = Price{58'000};  // ignored: the window decides
  return in;
}

DspInput LastTrade(int64_t prior, int64_t last, int64_t bid, int64_t ask) {
  DspInput in;
  in.tick = Price{kTick};
  in.prior = Price{prior};
  in.last_trade = Price{last};
  in.best_bid = Price{bid};
  in.best_ask = Price{ask};
  return in;
}

int64_t PriceOf(const std::optional<Dsp>& dsp) {
  return dsp.has_value() ? dsp->price.units : -1;
}

TEST(TradedDspTest, Tier1IsTheWindowVwapOnTheTick) {
  // 2 x 58,000 + 1 x 58,100 = 174,100 / 3 = 58,033.3 -> 58,000.
  std::optional<Dsp> dsp = TradedDsp(Window(60'000, 174'100, 3));
  ASSERT_TRUE(dsp.has_value());
  EXPECT_EQ(dsp->tier, DspTier::k1);
  EXPECT_EQ(dsp->price.units, 58'000);
  // 1 x 58,000 + 2 x 58,100 = 174,200 / 3 = 58,066.7 -> 58,100.
  EXPECT_EQ(PriceOf(TradedDsp(Window(50'000, 174'200, 3))), 58'100);
  // 2 x 58,100 = 116,200 / 2 = 58,100 exactly.
  EXPECT_EQ(PriceOf(TradedDsp(Window(50'000, 116'200, 2))), 58'100);
}

TEST(TradedDspTest, Tier1HalfTickGoesTowardThePrior) {
  // 1 x 58,000 + 1 x 58,100 = 116,100 / 2 = 58,050: half way.
  EXPECT_EQ(PriceOf(TradedDsp(Window(57'000, 116'100, 2))), 58'000);
  EXPECT_EQ(PriceOf(TradedDsp(Window(58'000, 116'100, 2))), 58'000);
  EXPECT_EQ(PriceOf(TradedDsp(Window(58'100, 116'100, 2))), 58'100);
  EXPECT_EQ(PriceOf(TradedDsp(Window(59'000, 116'100, 2))), 58'100);
  // A prior exactly on the midpoint (off the tick): the lower.
  EXPECT_EQ(PriceOf(TradedDsp(Window(58'050, 116'100, 2))), 58'000);
}

TEST(TradedDspTest, Tier1HugeNotionalIsExact) {
  // 10^15 lots with a VWAP of exactly 58,050: notional 5.805e19 units, beyond
  // int64, and still exactly half a tick, so the prior decides.
  constexpr int64_t kLots = 1'000'000'000'000'000;
  const Int128 notional = Int128{kLots} * 58'050;
  EXPECT_EQ(PriceOf(TradedDsp(Window(70'000, notional, kLots))), 58'100);
  EXPECT_EQ(PriceOf(TradedDsp(Window(50'000, notional, kLots))), 58'000);
  // One unit of notional above the half (58,050 + 10^-15): up, whatever the
  // prior.
  EXPECT_EQ(PriceOf(TradedDsp(Window(50'000, notional + 1, kLots))), 58'100);
  // One unit below: down.
  EXPECT_EQ(PriceOf(TradedDsp(Window(70'000, notional - 1, kLots))), 58'000);
}

TEST(TradedDspTest, Tier2ClipsTheLastTradeIntoTheClosingQuotes) {
  std::optional<Dsp> dsp = TradedDsp(LastTrade(58'000, 58'300, 58'000, 58'200));
  ASSERT_TRUE(dsp.has_value());
  EXPECT_EQ(dsp->tier, DspTier::k2);
  EXPECT_EQ(dsp->price.units, 58'200);  // above the offer
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 57'900, 58'000, 58'200))),
            58'000);  // below the bid
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 58'100, 58'000, 58'200))),
            58'100);  // inside
}

TEST(TradedDspTest, Tier2MissingSideDoesNotClip) {
  // No bid: nothing below clips, the offer still does.
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 57'000, 0, 58'200))), 57'000);
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 59'000, 0, 58'200))), 58'200);
  // No offer: nothing above clips, the bid still does.
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 59'000, 58'000, 0))), 59'000);
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 57'000, 58'000, 0))), 58'000);
  // Empty book: the last trade.
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 57'000, 0, 0))), 57'000);
}

TEST(TradedDspTest, Tier2CrossedBookClipsByBidThenOffer) {
  // 57,000 -> bid 58,200 -> offer 58,000.
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(58'000, 57'000, 58'200, 58'000))),
            58'000);
}

TEST(TradedDspTest, Tier2OffTickLastTradeRoundsHalfTowardPrior) {
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(57'000, 58'050, 0, 0))), 58'000);
  EXPECT_EQ(PriceOf(TradedDsp(LastTrade(59'000, 58'050, 0, 0))), 58'100);
}

TEST(TradedDspTest, NoTradeTodayIsNotTraded) {
  EXPECT_FALSE(TradedDsp(LastTrade(58'000, 0, 58'000, 58'200)).has_value());
  // A window without lots or with a non-positive notional is ignored.
  EXPECT_FALSE(
      TradedDsp(DspInput{Price{kTick}, Price{58'000}, 0, 0, {}, {}, {}})
          .has_value());
  EXPECT_FALSE(
      TradedDsp(DspInput{Price{kTick}, Price{58'000}, -100, 1, {}, {}, {}})
          .has_value());
  // A zero tick is treated as one unit, not a division by zero.
  DspInput no_tick = Window(58'000, 116'101, 2);
  no_tick.tick = Price{0};
  // 116,101 / 2 = 58,050.5, half way between units: toward the prior.
  EXPECT_EQ(PriceOf(TradedDsp(no_tick)), 58'050);
}

// ---- Tier 3 across a root ----

DspInput Untraded(int64_t prior) { return LastTrade(prior, 0, 0, 0); }

TEST(SettleRootTest, UntradedMonthsFollowTheNearestTradedMonth) {
  const std::vector<DspInput> months = {
      Window(58'000, 117'000, 2),       // Tier 1: 58,500, change +500
      Untraded(59'000),                 // nearest: month 0 -> 59,500
      Untraded(60'000),                 // nearest: month 3 -> 59,800
      LastTrade(61'000, 60'800, 0, 0),  // Tier 2: 60,800, change -200
  };
  const std::vector<Dsp> dsp = SettleRoot(months);
  ASSERT_EQ(dsp.size(), 4u);
  EXPECT_EQ(dsp[0].price.units, 58'500);
  EXPECT_EQ(dsp[0].tier, DspTier::k1);
  EXPECT_EQ(dsp[1].price.units, 59'500);
  EXPECT_EQ(dsp[1].tier, DspTier::k3);
  EXPECT_EQ(dsp[2].price.units, 59'800);
  EXPECT_EQ(dsp[2].tier, DspTier::k3);
  EXPECT_EQ(dsp[3].price.units, 60'800);
  EXPECT_EQ(dsp[3].tier, DspTier::k2);
}

TEST(SettleRootTest, EquallyNearTradedMonthsPickTheEarlier) {
  const std::vector<DspInput> months = {
      LastTrade(58'000, 58'500, 0, 0),  // +500
      Untraded(59'000),                 // distance 1 both ways -> +500
      LastTrade(60'000, 59'800, 0, 0),  // -200
  };
  const std::vector<Dsp> dsp = SettleRoot(months);
  ASSERT_EQ(dsp.size(), 3u);
  EXPECT_EQ(dsp[1].price.units, 59'500);
  EXPECT_EQ(dsp[1].tier, DspTier::k3);
}

TEST(SettleRootTest, FarMonthsUseTheNearestEvenFarAway) {
  const std::vector<DspInput> months = {
      Untraded(57'000), Untraded(58'000), Untraded(59'000),
      LastTrade(60'000, 60'300, 0, 0),  // +300
  };
  const std::vector<Dsp> dsp = SettleRoot(months);
  EXPECT_EQ(dsp[0].price.units, 57'300);
  EXPECT_EQ(dsp[1].price.units, 58'300);
  EXPECT_EQ(dsp[2].price.units, 59'300);
}

TEST(SettleRootTest, AnExpiringMonthIsNeverTheNeighbourOfATier3Month) {
  // Month 0 trades on its last trading day (+500) and settles FINAL at the
  // FSP; month 1 did not trade and month 2 traded (-200): month 1 takes
  // month 2's change, not the expiring month's, though both are as near.
  DspInput expiring = LastTrade(58'000, 58'500, 0, 0);
  expiring.expiring = true;
  const std::vector<DspInput> months = {expiring, Untraded(59'000),
                                        LastTrade(60'000, 59'800, 0, 0)};
  const std::vector<Dsp> dsp = SettleRoot(months);
  ASSERT_EQ(dsp.size(), 3u);
  EXPECT_EQ(dsp[0].price.units, 58'500);  // its traded DSP, replaced by the FSP
  EXPECT_EQ(dsp[1].price.units, 58'800);
  EXPECT_EQ(dsp[1].tier, DspTier::k3);
}

TEST(SettleRootTest, OnlyTheExpiringMonthTradedKeepsThePriors) {
  DspInput expiring = LastTrade(58'000, 58'100, 0, 0);
  expiring.expiring = true;
  const std::vector<DspInput> months = {expiring, Untraded(59'000),
                                        Untraded(59'500)};
  const std::vector<Dsp> dsp = SettleRoot(months);
  ASSERT_EQ(dsp.size(), 3u);
  EXPECT_EQ(dsp[1].price.units, 59'000);
  EXPECT_EQ(dsp[2].price.units, 59'500);
  EXPECT_EQ(dsp[2].tier, DspTier::k3);
}

TEST(SettleRootTest, NothingTradedKeepsEveryPrior) {
  const std::vector<DspInput> months = {Untraded(58'000), Untraded(59'000)};
  const std::vector<Dsp> dsp = SettleRoot(months);
  ASSERT_EQ(dsp.size(), 2u);
  EXPECT_EQ(dsp[0].price.units, 58'000);
  EXPECT_EQ(dsp[0].tier, DspTier::k3);
  EXPECT_EQ(dsp[1].price.units, 59'000);
  EXPECT_EQ(dsp[1].tier, DspTier::k3);
  EXPECT_TRUE(SettleRoot({}).empty());
}

TEST(SettleRootTest, Tier3StaysAtLeastOneTick) {
  const std::vector<DspInput> months = {
      LastTrade(58'000, 50'000, 0, 0),  // -8,000
      Untraded(5'000),                  // 5,000 - 8,000 < 0 -> one tick
      Untraded(8'100),                  // 8,100 - 8,000 = 100, one tick
  };
  const std::vector<Dsp> dsp = SettleRoot(months);
  EXPECT_EQ(dsp[1].price.units, kTick);
  EXPECT_EQ(dsp[1].tier, DspTier::k3);
  EXPECT_EQ(dsp[2].price.units, 100);
}

// ---- Variation margin ----

TEST(VariationMarginTest, ThreeDayPathGolden) {
  // Day 1: A buys 10 lots from B at 58,000; DSP 58,300.
  //   A: 730 x [0 + 10 x (58,300 - 58,000)] = 730 x 3,000 = 2,190,000
  //      price units x GPU-hours x 100 = 219,000,000 micros ($219).
  // Day 2: no fills; DSP 57,800.
  //   A: 730 x 10 x (57,800 - 58,300) = -3,650,000 -> -365,000,000.
  // Day 3: A buys 5 more from B at 58,500; DSP 58,900.
  //   A: 730 x [10 x 1,100 + 5 x (58,900 - 58,500)] = 730 x 13,000
  //      = 9,490,000 -> 949,000,000.
  // B is the mirror image each day.
  const std::vector<Fill> a1 = {{10, 58'000}}, b1 = {{-10, 58'000}};
  const std::vector<Fill> a3 = {{5, 58'500}}, b3 = {{-5, 58'500}};
  const int64_t a_day1 =
      VariationMargin(kFuturesHours, 0, Price{0}, Price{58'300}, a1).micros;
  const int64_t b_day1 =
      VariationMargin(kFuturesHours, 0, Price{0}, Price{58'300}, b1).micros;
  const int64_t a_day2 =
      VariationMargin(kFuturesHours, 10, Price{58'300}, Price{57'800}, {})
          .micros;
  const int64_t b_day2 =
      VariationMargin(kFuturesHours, -10, Price{58'300}, Price{57'800}, {})
          .micros;
  const int64_t a_day3 =
      VariationMargin(kFuturesHours, 10, Price{57'800}, Price{58'900}, a3)
          .micros;
  const int64_t b_day3 =
      VariationMargin(kFuturesHours, -10, Price{57'800}, Price{58'900}, b3)
          .micros;
  EXPECT_EQ(a_day1, 219'000'000);
  EXPECT_EQ(a_day2, -365'000'000);
  EXPECT_EQ(a_day3, 949'000'000);
  EXPECT_EQ(a_day1 + b_day1, 0);
  EXPECT_EQ(a_day2 + b_day2, 0);
  EXPECT_EQ(a_day3 + b_day3, 0);
  // Over the path: A is long 15 at a cost of 10 x 58,000 + 5 x 58,500 =
  // 872,500 and marked at 15 x 58,900 = 883,500: 11,000 x 730 x 100.
  EXPECT_EQ(a_day1 + a_day2 + a_day3, 803'000'000);
}

TEST(VariationMarginTest, FillsOnTheDayAreMarkedFromTheirPrice) {
  // Flat before, buys 3 at 58,000 and sells 3 at 58,200 on the day: the
  // round trip earns 3 x 200 x 730 x 100 = 43,800,000 whatever the DSP.
  const std::vector<Fill> fills = {{3, 58'000}, {-3, 58'200}};
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{0}, Price{57'000}, fills).micros,
      43'800'000);
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{0}, Price{61'000}, fills).micros,
      43'800'000);
  // The previous settle is ignored when there was no position.
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{99'999}, Price{61'000}, fills)
          .micros,
      43'800'000);
}

TEST(VariationMarginTest, LargeButValidAmountsAreExact) {
  // 12,000,000,000 lots long, DSP up 10,000 units ($1):
  // 730 x 1.2e10 x 10,000 x 100 = 8,760,000,000,000,000,000 micros
  // (< INT64_MAX = 9,223,372,036,854,775,807).
  EXPECT_EQ(VariationMargin(kFuturesHours, 12'000'000'000, Price{50'000},
                            Price{60'000}, {})
                .micros,
            8'760'000'000'000'000'000);
  // Each fill alone is worth 2e10 x ~1e4 x 73,000 ~ 1.46e19 > INT64_MAX,
  // yet the sum is exact: 2e10 x (60,000 - 50,000) - 2e10 x (60,000 -
  // 50,100) = 2e12; x 73,000 = 146,000,000,000,000,000.
  const std::vector<Fill> fills = {{20'000'000'000, 50'000},
                                   {-20'000'000'000, 50'100}};
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{0}, Price{60'000}, fills).micros,
      146'000'000'000'000'000);
  // Beyond the REQUIRES range the result saturates, it never wraps.
  const std::vector<Fill> buy = {fills[0]};
  const std::vector<Fill> sell = {{-20'000'000'000, 50'000}};
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{0}, Price{60'000}, buy).micros,
      std::numeric_limits<int64_t>::max());
  EXPECT_EQ(
      VariationMargin(kFuturesHours, 0, Price{0}, Price{60'000}, sell).micros,
      std::numeric_limits<int64_t>::min());
}

// Random fills between random pairs of accounts (buyer +q, seller -q) over a
// random price path: every day's VM sums to zero over the accounts, and each
// account's VM over the path equals its mark-to-market profit.
TEST(VariationMarginTest, RandomFillsNetToZeroEveryDay) {
  constexpr int kAccounts = 6;
  constexpr int kDays = 12;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> account(0, kAccounts - 1);
    std::uniform_int_distribution<int64_t> ticks(300, 900);  // $3-$9
    std::uniform_int_distribution<int64_t> lots(1, 1'000);
    std::uniform_int_distribution<int> fills_per_day(0, 20);
    std::vector<int64_t> position(kAccounts, 0), total_vm(kAccounts, 0);
    // Σ lots x price over each account's fills (the cost of its position).
    std::vector<Int128> cost(kAccounts, 0);
    int64_t previous_settle = 0;
    for (int day = 0; day < kDays; ++day) {
      std::vector<std::vector<Fill>> fills(kAccounts);
      const int n = fills_per_day(rng);
      for (int i = 0; i < n; ++i) {
        const int buyer = account(rng);
        int seller = account(rng);
        if (seller == buyer) seller = (buyer + 1) % kAccounts;
        const int64_t q = lots(rng);
        const int64_t p = ticks(rng) * kTick;
        fills[static_cast<std::size_t>(buyer)].push_back({q, p});
        fills[static_cast<std::size_t>(seller)].push_back({-q, p});
      }
      const int64_t settle = ticks(rng) * kTick;
      int64_t day_sum = 0;
      for (std::size_t a = 0; a < kAccounts; ++a) {
        const int64_t vm =
            VariationMargin(kFuturesHours, position[a], Price{previous_settle},
                            Price{settle}, fills[a])
                .micros;
        day_sum += vm;
        total_vm[a] += vm;
        for (const Fill& f : fills[a]) {
          position[a] += f.lots;
          cost[a] += static_cast<Int128>(f.lots) * f.price.units;
        }
      }
      ASSERT_EQ(day_sum, 0) << "day " << day;
      previous_settle = settle;
    }
    int64_t net = 0;
    for (std::size_t a = 0; a < kAccounts; ++a) {
      net += position[a];
      const Int128 pnl =
          (static_cast<Int128>(position[a]) * previous_settle - cost[a]) *
          kFuturesHours * kMicrosPerPriceUnit;
      EXPECT_EQ(static_cast<int64_t>(pnl), total_vm[a]) << "account " << a;
    }
    EXPECT_EQ(net, 0);
  }
}

// ---- Final settlement price ----

MonthFixing Print(int64_t day, int64_t micros, bool from_trades = true) {
  return MonthFixing{day, true, micros, from_trades};
}
MonthFixing NoPrint(int64_t day) { return MonthFixing{day, false, 0, false}; }

TEST(FinalSettlementPriceTest, MeanRoundsHalfUpToTheThousandth) {
  // (3,262,000 + 3,263,000) / 2 = 3,262,500 = $3.2625 -> $3.263 = 32,630.
  std::vector<MonthFixing> f = {Print(1, 3'262'000), Print(2, 3'263'000)};
  Fsp fsp = FinalSettlementPrice(f, IndexPrice{0});
  ASSERT_TRUE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 32'630);
  EXPECT_EQ(fsp.days, 2u);
  EXPECT_EQ(fsp.qualifying, 2u);
  EXPECT_FALSE(fsp.disrupted);
  // (3,262,000 + 3,262,999) / 2 = 3,262,499.5 -> $3.262 = 32,620.
  f = {Print(1, 3'262'000), Print(2, 3'262'999)};
  EXPECT_EQ(FinalSettlementPrice(f, IndexPrice{0}).price.units, 32'620);
  // (1,000,000 x 2 + 1,000,001) / 3 = 1,000,000.33 -> $1.000 = 10,000: the
  // mean is exact, not rounded per day.
  f = {Print(1, 1'000'000), Print(2, 1'000'000), Print(3, 1'000'001)};
  EXPECT_EQ(FinalSettlementPrice(f, IndexPrice{0}).price.units, 10'000);
  // 1,000,499 + 1,000,500 + 1,000,501 = 3,001,500 / 3 = 1,000,500 -> $1.001.
  f = {Print(1, 1'000'499), Print(2, 1'000'500), Print(3, 1'000'501)};
  EXPECT_EQ(FinalSettlementPrice(f, IndexPrice{0}).price.units, 10'010);
}

// `qualifying` of `days` days from trades, the rest Level 3/4 values.
Fsp WithQualifying(int days, int qualifying) {
  std::vector<MonthFixing> f;
  for (int d = 0; d < days; ++d) {
    f.push_back(Print(d, 5'800'000, d < qualifying));
  }
  return FinalSettlementPrice(f, IndexPrice{0});
}

TEST(FinalSettlementPriceTest, DisruptedStrictlyBelowSeventyFivePercent) {
  // 3 of 4 = 75 % exactly: not disrupted (4 x 3 = 12, not < 3 x 4 = 12).
  Fsp fsp = WithQualifying(4, 3);
  EXPECT_TRUE(fsp.ok);
  EXPECT_FALSE(fsp.disrupted);
  EXPECT_EQ(fsp.qualifying, 3u);
  EXPECT_EQ(fsp.price.units, 58'000);  // still computed
  // 2 of 4: disrupted, still priced.
  fsp = WithQualifying(4, 2);
  EXPECT_TRUE(fsp.disrupted);
  EXPECT_TRUE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 58'000);
  // 23 days: 18 qualify (4 x 18 = 72 >= 69) not; 17 (68 < 69) disrupted.
  EXPECT_FALSE(WithQualifying(23, 18).disrupted);
  EXPECT_TRUE(WithQualifying(23, 17).disrupted);
}

TEST(FinalSettlementPriceTest, DayWithoutPrintCarriesAndDoesNotQualify) {
  // 5,800,000, (carried 5,800,000), 6,000,000: 17,600,000 / 3 =
  // 5,866,666.7 -> $5.867 = 58,670. 2 of 3 qualify: 8 < 9, disrupted.
  const std::vector<MonthFixing> f = {Print(1, 5'800'000), NoPrint(2),
                                      Print(3, 6'000'000)};
  const Fsp fsp = FinalSettlementPrice(f, IndexPrice{5'000'000});
  ASSERT_TRUE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 58'670);
  EXPECT_EQ(fsp.days, 3u);
  EXPECT_EQ(fsp.qualifying, 2u);
  EXPECT_TRUE(fsp.disrupted);
}

TEST(FinalSettlementPriceTest, CarriedInCoversTheFirstDays) {
  // (5,700,000 carried in) x 2 + 5,900,000 = 17,300,000 / 3 = 5,766,666.7
  // -> $5.767 = 57,670.
  const std::vector<MonthFixing> f = {NoPrint(1), NoPrint(2),
                                      Print(3, 5'900'000)};
  const Fsp fsp = FinalSettlementPrice(f, IndexPrice{5'700'000});
  ASSERT_TRUE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 57'670);
  EXPECT_EQ(fsp.qualifying, 1u);
  EXPECT_TRUE(fsp.disrupted);
}

TEST(FinalSettlementPriceTest, NoValueToCarryIsNotOk) {
  const std::vector<MonthFixing> f = {NoPrint(1), Print(2, 5'900'000)};
  const Fsp fsp = FinalSettlementPrice(f, IndexPrice{0});
  EXPECT_FALSE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 0);
  EXPECT_EQ(fsp.days, 2u);
  EXPECT_EQ(fsp.qualifying, 1u);
  EXPECT_FALSE(FinalSettlementPrice({}, IndexPrice{5'000'000}).ok);
}

TEST(FinalSettlementPriceTest, InvalidInputIsNotOk) {
  // Days out of order.
  std::vector<MonthFixing> f = {Print(2, 5'900'000), Print(1, 5'900'000)};
  EXPECT_FALSE(FinalSettlementPrice(f, IndexPrice{0}).ok);
  // A published value of zero.
  f = {Print(1, 5'900'000), Print(2, 0)};
  const Fsp fsp = FinalSettlementPrice(f, IndexPrice{0});
  EXPECT_FALSE(fsp.ok);
  EXPECT_EQ(fsp.price.units, 0);
}

// ---- Spot cash ----

TEST(SpotTest, NotionalIsPriceTimesHoursTimesLots) {
  // $5.80 x 192 GPU-hours x 3 lots = $3,340.80 = 58,000 x 100 x 576.
  EXPECT_EQ(SpotNotional(Price{58'000}, 192, 3).micros, 3'340'800'000);
  EXPECT_EQ(SpotNotional(Price{58'000}, 192, 0).micros, 0);
  EXPECT_EQ(
      SpotNotional(Price{std::numeric_limits<int64_t>::max()}, 192, 3).micros,
      std::numeric_limits<int64_t>::max());
}

TEST(SpotTest, CashDayIsTheDeliveryDayOrTheNextBusinessDay) {
  const BusinessCalendar cal({kMon20261207});
  EXPECT_EQ(SpotCashDay(cal, kFri20261204), kFri20261204);
  EXPECT_EQ(SpotCashDay(cal, kSat20261205), kTue20261208);
  EXPECT_EQ(SpotCashDay(cal, kMon20261207), kTue20261208);
}

}  // namespace
}  // namespace cfx::settlement
