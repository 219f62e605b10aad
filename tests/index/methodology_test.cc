#include "index/methodology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/index/explanation_dump.h"

namespace cfx::index {
namespace {

constexpr int64_t kDay = 20'788;  // 2026-12-01
constexpr int64_t kHour = 3'600 * kNanosPerSecond;
constexpr int64_t kMinute = 60 * kNanosPerSecond;
// The uncapped weight of one lot: 192 GPU-hours in micro-GPU-hours.
constexpr int64_t kLot = 192'000'000;

constexpr int64_t Cents(int64_t cents) { return cents * 10'000; }

// A trade of day `day` in partition `partition` (1-6), `id` minutes after
// the partition's start. Firms are their own affiliation groups.
IndexTrade Trade(uint64_t id, int64_t price_micros, int64_t lots,
                 uint32_t seller, uint32_t buyer, uint32_t partition = 1,
                 int64_t day = kDay) {
  const MethodologyConfig c;
  IndexTrade t;
  t.trade_id = id;
  t.ts_ns = c.FixingNs(day - 1) + (partition - 1) * 4 * kHour +
            static_cast<int64_t>(id % 200) * kMinute;
  t.price.micros = price_micros;
  t.lots = lots;
  t.seller = seller;
  t.buyer = buyer;
  t.seller_group = seller;
  t.buyer_group = buyer;
  return t;
}

Print PrintAt(Level level, int64_t value_micros, uint32_t carry_run = 0,
              uint64_t attested_milli_tokens = 0) {
  Print p;
  p.level = level;
  p.has_value = true;
  p.value.micros = value_micros;
  p.carry_run = carry_run;
  p.attested_milli_tokens = attested_milli_tokens;
  p.attested_tokens = ReducedRatio(WideUint(attested_milli_tokens),
                                   WideUint(attested_milli_tokens != 0));
  return p;
}

// One computation: day d's trades in days[0], d-1's in days[1], ...
struct Case {
  MethodologyConfig config;
  int64_t day = kDay;
  int64_t as_of_ns = 0;  // 0 = the fixing instant
  std::vector<IndexTrade> days[3];
  const Print* prev[3] = {nullptr, nullptr, nullptr};
  const Print* other_today = nullptr;
  const Print* other_prev = nullptr;

  FixingInput Input() const {
    FixingInput in;
    in.grade = 0;
    in.day = day;
    in.as_of_ns = as_of_ns != 0 ? as_of_ns : config.FixingNs(day);
    for (const auto& d : days) in.days.emplace_back(d);
    in.prev.assign(std::begin(prev), std::end(prev));
    in.other_today = other_today;
    in.other_prev = other_prev;
    return in;
  }
  Print Run(Explanation* ex = nullptr) const {
    return ComputeFixing(config, Input(), ex);
  }
};

std::vector<uint64_t> Ids(const std::vector<ContributingTrade>& trades) {
  std::vector<uint64_t> out;
  for (const auto& t : trades) out.push_back(t.trade.trade_id);
  return out;
}

std::string Reasons(const std::vector<ExcludedTrade>& excluded) {
  std::string out;
  for (const auto& e : excluded) {
    out += std::to_string(e.trade.trade_id) + ":" + std::string(e.reason) + " ";
  }
  return out;
}

// ---- Golden cases ----

// 12 trades over partitions 1-5 (lots doubled from a 17-lot design: 34 lots
// = 6,528 GPU-hours). No firm exceeds 30 %: S1, S4, B12 and B13 have 10 of
// 34 lots, and 0.30 x 34 / 10 = 1.02 >= 1, so every weight is lots x kLot.
Case Level1aDay() {
  Case c;
  auto& d = c.days[0];
  //           id  price       lots  S  B    partition
  d.push_back(Trade(1, Cents(200), 2, 1, 11, 1));
  d.push_back(Trade(2, Cents(210), 4, 2, 12, 1));
  d.push_back(Trade(3, Cents(220), 2, 3, 13, 1));
  d.push_back(Trade(4, Cents(230), 4, 4, 14, 2));
  d.push_back(Trade(5, Cents(200), 2, 1, 12, 2));
  d.push_back(Trade(6, Cents(240), 2, 2, 11, 2));
  d.push_back(Trade(7, Cents(220), 2, 3, 13, 3));
  d.push_back(Trade(8, Cents(240), 2, 4, 14, 3));
  d.push_back(Trade(9, Cents(250), 6, 1, 13, 4));
  d.push_back(Trade(10, Cents(210), 2, 2, 14, 4));
  d.push_back(Trade(11, Cents(225), 2, 3, 11, 5));
  d.push_back(Trade(12, Cents(236), 4, 4, 12, 5));
  // Attested throughput by seller: S1 100, S2 200, S3 300 tokens/s/GPU,
  // S4 none.
  for (IndexTrade& t : d) {
    t.seller_milli_tokens = t.seller == 4 ? 0 : t.seller * 100'000u;
  }
  return c;
}

TEST(Methodology, Level1aIsThePlainMeanOfPartitionMedians) {
  Explanation ex;
  const Print p = Level1aDay().Run(&ex);
  // Medians (lots as weights; m = first i with 2 cum_i >= W_k):
  //   P1: 2.00(2) 2.10(4) 2.20(2), W=8:  cum 2, 6 -> 12 >= 8       -> 2.10
  //   P2: 2.00(2) 2.30(4) 2.40(2), W=8:  cum 2, 6                  -> 2.30
  //   P3: 2.20(2) 2.40(2),         W=4:  2 x 2 = 4 = W exactly     -> 2.30
  //   P4: 2.10(2) 2.50(6),         W=8:  cum 2 (4 < 8), 8 (16 >= 8) -> 2.50
  //   P5: 2.25(2) 2.36(4),         W=6:  cum 2 (4 < 6), 6           -> 2.36
  // I = (2.10 + 2.30 + 2.30 + 2.50 + 2.36) / 5 = 11.56 / 5 = 2.312.
  EXPECT_EQ(p.level, Level::k1a);
  ASSERT_TRUE(p.has_value);
  EXPECT_EQ(p.value.micros, 2'312'000);
  EXPECT_EQ(p.partitions_used, 0b11111u);
  ASSERT_EQ(ex.partitions.size(), 5u);
  const int64_t vwm[] = {2'100'000, 2'300'000, 2'300'000, 2'500'000, 2'360'000};
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(ex.partitions[k].partition, k + 1);
    EXPECT_EQ(ex.partitions[k].vwm.micros, vwm[k]) << "partition " << k + 1;
  }
  EXPECT_EQ(p.trade_count, 12u);
  EXPECT_EQ(p.sellers, 4u);
  EXPECT_EQ(p.buyers, 4u);
  EXPECT_EQ(p.gpu_hours, 34 * 192);
  // All 12 in price order with cumulative lots (W = 34):
  //   2.00 #1 2, #5 4; 2.10 #2 8, #10 10; 2.20 #3 12, #7 14; 2.25 #11 16;
  //   2.30 #4 20; 2.36 #12 24; 2.40 #6 26, #8 28; 2.50 #9 34.
  // p25: first 4 cum >= 34 -> cum 10 (#10) = 2.10;
  // p75: first 4 cum >= 102 -> cum 26 (#6) = 2.40.
  EXPECT_EQ(p.p25.micros, 2'100'000);
  EXPECT_EQ(p.p75.micros, 2'400'000);
  EXPECT_EQ(p.trade_ids,
            (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // T over S1 (10 lots), S2 (8), S3 (6); S4 has none:
  // (10 x 100,000 + 8 x 200,000 + 6 x 300,000) / 24 = 183,333.3 -> 183,333.
  EXPECT_EQ(p.attested_milli_tokens, 183'333u);
  // 2,312,000 x 10^9 / (3,600 x 183,333) = 3,503,036.6 -> 3,503,000.
  EXPECT_TRUE(p.has_upm);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 3'503'000);
  EXPECT_EQ(p.carry_run, 0u);
  EXPECT_TRUE(ex.notes.empty());
  ASSERT_EQ(ex.trades.size(), 12u);
  EXPECT_EQ(ex.trades[0].trade.trade_id, 1u);
  EXPECT_EQ(ex.trades[0].weight, 2 * kLot);
  EXPECT_EQ(ex.trades[0].partition, 1u);
  EXPECT_EQ(ex.trades[0].kept_weight, 0);
}

// Ten trades, 22 lots, 4 sellers and 4 buyers (at most 6 lots each, under
// 0.30 x 22 = 6.6: the cap does not bind). Partitions 1, 2, 3 have 4, 3, 2
// trades and partition 5 has one: only 3 qualify.
Case Level1bDay() {
  Case c;
  auto& d = c.days[0];
  d.push_back(Trade(1, Cents(190), 2, 1, 11, 1));
  d.push_back(Trade(2, Cents(200), 3, 2, 12, 2));
  d.push_back(Trade(3, Cents(205), 2, 3, 13, 3));
  d.push_back(Trade(4, Cents(210), 3, 4, 14, 5));
  d.push_back(Trade(5, Cents(215), 2, 1, 12, 1));
  d.push_back(Trade(6, Cents(220), 2, 2, 13, 2));
  d.push_back(Trade(7, Cents(225), 3, 3, 14, 3));
  d.push_back(Trade(8, Cents(230), 2, 4, 11, 2));
  d.push_back(Trade(9, Cents(240), 2, 1, 13, 1));
  d.push_back(Trade(10, Cents(260), 1, 2, 11, 1));
  return c;
}

TEST(Methodology, Level1bTrimsTheOuterQuartersProRata) {
  Explanation ex;
  const Print p = Level1bDay().Run(&ex);
  // Cumulative lots in price order: 2 5 7 10 12 14 17 19 21 22; W = 22,
  // keep [5.5, 16.5]:
  //   #3 2.05 [5,7] -> 1.5; #4 2.10 3; #5 2.15 2; #6 2.20 2;
  //   #7 2.25 [14,17] -> 2.5; the rest 0. Kept = 11 = W / 2.
  // value = (1.5 x 2.05 + 3 x 2.10 + 2 x 2.15 + 2 x 2.20 + 2.5 x 2.25) / 11
  //       = 23.7 / 11 = 2.15454... -> 2.155.
  EXPECT_EQ(p.level, Level::k1b);
  EXPECT_EQ(p.value.micros, 2'155'000);
  EXPECT_EQ(p.partitions_used, 0u);
  EXPECT_EQ(
      ex.notes,
      (std::vector<std::string>{"1a: 3 partitions with >= 2 trades < 4"}));
  EXPECT_TRUE(ex.partitions.empty());
  // Kept weights x 4: 1.5 lots -> 6 kLot, 3 -> 12, 2 -> 8, 2.5 -> 10.
  const int64_t kept4[] = {0,        0,         6 * kLot, 12 * kLot, 8 * kLot,
                           8 * kLot, 10 * kLot, 0,        0,         0};
  ASSERT_EQ(ex.trades.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(ex.trades[i].trade.trade_id, i + 1);
    EXPECT_EQ(ex.trades[i].kept_weight, kept4[i]) << "trade " << i + 1;
    EXPECT_EQ(ex.trades[i].partition, 0u);
  }
  EXPECT_EQ(ex.trades[3].weight, 3 * kLot);
  EXPECT_EQ(p.trade_count, 10u);
  EXPECT_EQ(p.sellers, 4u);
  EXPECT_EQ(p.buyers, 4u);
  EXPECT_EQ(p.gpu_hours, 22 * 192);
  // p25: first 4 cum >= 22 -> cum 7 (#3) = 2.05;
  // p75: first 4 cum >= 66 -> cum 17 (#7) = 2.25.
  EXPECT_EQ(p.p25.micros, 2'050'000);
  EXPECT_EQ(p.p75.micros, 2'250'000);
  EXPECT_EQ(p.trade_ids.size(), 10u);
  // No attested throughput: no USD per million tokens.
  EXPECT_EQ(p.attested_milli_tokens, 0u);
  EXPECT_FALSE(p.has_upm);
}

TEST(Methodology, UsdPerMillionTokensUsesTheAttestedThroughput) {
  Case c = Level1bDay();
  for (IndexTrade& t : c.days[0]) t.seller_milli_tokens = 250'000;
  const Print p = c.Run();
  // $2.155 per GPU-hour / (250 tokens/s x 3,600 s) x 10^6
  //   = 2,155,000 x 10^9 / (3,600 x 250,000) = 2,394,444.4 -> 2,394,000.
  EXPECT_EQ(p.value.micros, 2'155'000);
  EXPECT_EQ(p.attested_milli_tokens, 250'000u);
  EXPECT_TRUE(p.has_upm);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 2'394'000);
}

TEST(Methodology, PercentileOnAnExactQuarterAveragesTwoPrices) {
  // 12 trades of 2 lots at 2.00, 2.01, ..., 2.11, all in partition 1.
  Case c;
  for (uint64_t id = 1; id <= 12; ++id) {
    c.days[0].push_back(Trade(id, Cents(199 + static_cast<int64_t>(id)), 2,
                              static_cast<uint32_t>(1 + id % 4),
                              static_cast<uint32_t>(11 + (id + 1) % 4)));
  }
  Explanation ex;
  const Print p = c.Run(&ex);
  // W = 24 lots. p25: 4 cum_3 = 4 x 6 = 24 = W exactly -> (2.02 + 2.03) / 2;
  // p75: 4 cum_9 = 72 = 3W exactly -> (2.08 + 2.09) / 2.
  EXPECT_EQ(p.level, Level::k1b);
  EXPECT_EQ(p.p25.micros, 2'025'000);
  EXPECT_EQ(p.p75.micros, 2'085'000);
  // 1b keeps [6, 18] = trades 4..9 whole:
  // 2 x (2.03 + ... + 2.08) / 12 = 24.66 / 12 = 2.055.
  EXPECT_EQ(p.value.micros, 2'055'000);
}

// Day d - 1: six 2-lot trades by six different sellers and buyers; day
// d - 2: five. Each firm holds 1/6 or 1/5 of its day: no cap.
Case Level2Pool() {
  Case c;
  const int64_t u[] = {200, 204, 208, 212, 216, 220};
  for (uint32_t i = 0; i < 6; ++i) {
    c.days[1].push_back(
        Trade(101 + i, Cents(u[i]), 2, 1 + i, 11 + i, 1 + i, kDay - 1));
  }
  const int64_t v[] = {190, 198, 206, 214, 230};
  for (uint32_t i = 0; i < 5; ++i) {
    c.days[2].push_back(
        Trade(201 + i, Cents(v[i]), 2, 1 + i, 11 + i, 1 + i, kDay - 2));
  }
  return c;
}

TEST(Methodology, Level2PoolsThreeDaysWithAgedWeights) {
  Explanation ex;
  const Print p = Level2Pool().Run(&ex);
  // No trade on d: Level 1 fails. Pool: 11 trades, 6 sellers, 6 buyers,
  // 22 lots = 4,224 GPU-hours. Aged weights in lots: d - 1 x 2 = 4,
  // d - 2 x 1 = 2. In price order (weight, cum):
  //   1.90 (2, 2) 1.98 (2, 4) 2.00 (4, 8) 2.04 (4, 12) 2.06 (2, 14)
  //   2.08 (4, 18) 2.12 (4, 22) 2.14 (2, 24) 2.16 (4, 28) 2.20 (4, 32)
  //   2.30 (2, 34).
  // W = 34, keep [8.5, 25.5]: 2.04 3.5, 2.06 2, 2.08 4, 2.12 4, 2.14 2,
  // 2.16 1.5 (= 17).
  // value = (7.14 + 4.12 + 8.32 + 8.48 + 4.28 + 3.24) / 17 = 35.58 / 17
  //       = 2.09294... -> 2.093.
  EXPECT_EQ(p.level, Level::k2);
  EXPECT_EQ(p.value.micros, 2'093'000);
  EXPECT_EQ(p.trade_count, 11u);
  EXPECT_EQ(p.sellers, 6u);
  EXPECT_EQ(p.buyers, 6u);
  EXPECT_EQ(p.gpu_hours, 22 * 192);
  // p25: cum >= 8.5 -> 2.04; p75: cum >= 25.5 -> 2.16.
  EXPECT_EQ(p.p25.micros, 2'040'000);
  EXPECT_EQ(p.p75.micros, 2'160'000);
  EXPECT_EQ(ex.notes,
            (std::vector<std::string>{"1: 0 trades < 10, 0 sellers < 3, 0 "
                                      "buyers < 3, 0 GPU-hours < 3840"}));
  // Sorted by age, then price: 101..106, then 201..205.
  EXPECT_EQ(Ids(ex.trades), (std::vector<uint64_t>{101, 102, 103, 104, 105, 106,
                                                   201, 202, 203, 204, 205}));
  EXPECT_EQ(ex.trades[0].age, 1);
  EXPECT_EQ(ex.trades[0].weight, 2 * 2 * kLot);  // 2 lots x 2
  EXPECT_EQ(ex.trades[6].age, 2);
  EXPECT_EQ(ex.trades[6].weight, 2 * 1 * kLot);  // 2 lots x 1
  // Kept x 4 in kLot: 2.04 14, 2.06 8, 2.08 16, 2.12 16, 2.14 8, 2.16 6.
  EXPECT_EQ(ex.trades[1].kept_weight, 14 * kLot);  // #102 2.04
  EXPECT_EQ(ex.trades[2].kept_weight, 16 * kLot);  // #103 2.08
  EXPECT_EQ(ex.trades[4].kept_weight, 6 * kLot);   // #105 2.16
  EXPECT_EQ(ex.trades[8].kept_weight, 8 * kLot);   // #203 2.06
  EXPECT_EQ(ex.trades[0].kept_weight, 0);          // #101 2.00
}

TEST(Methodology, Level2IsNotTriedWhenLevel1SufficiencyHolds) {
  Case c = Level1bDay();
  c.days[1] = Level2Pool().days[1];
  c.days[2] = Level2Pool().days[2];
  Explanation ex;
  const Print p = c.Run(&ex);
  EXPECT_EQ(p.level, Level::k1b);
  EXPECT_EQ(p.value.micros, 2'155'000);
  EXPECT_EQ(p.trade_count, 10u);
}

TEST(Methodology, Level3ScalesThePreviousPrintByTheReferenceGrade) {
  const Print prev = PrintAt(Level::k1a, 2'345'000, 0, 250'000);
  const Print other_today = PrintAt(Level::k1b, 3'111'000);
  const Print other_prev = PrintAt(Level::k4, 3'000'000, 1);
  Case c;
  c.prev[0] = &prev;
  c.other_today = &other_today;
  c.other_prev = &other_prev;
  Explanation ex;
  const Print p = c.Run(&ex);
  // 2.345 x 3.111 / 3.000 = 2.431765 -> 2.432.
  EXPECT_EQ(p.level, Level::k3);
  EXPECT_EQ(p.value.micros, 2'432'000);
  EXPECT_EQ(p.carry_run, 0u);
  EXPECT_EQ(p.trade_count, 0u);
  EXPECT_EQ(p.gpu_hours, 0);
  EXPECT_EQ(p.p25.micros, 0);
  EXPECT_TRUE(p.trade_ids.empty());
  EXPECT_TRUE(ex.trades.empty());
  // T carried: 2,432,000 x 10^9 / (3,600 x 250,000) = 2,702,222 -> 2,702,000.
  EXPECT_EQ(p.attested_milli_tokens, 250'000u);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 2'702'000);
  ASSERT_EQ(ex.notes.size(), 2u);
  EXPECT_EQ(ex.notes[0].substr(0, 3), "1: ");
  EXPECT_EQ(ex.notes[1].substr(0, 3), "2: ");
}

TEST(Methodology, Level3NeedsTheReferenceGradeAtLevel1Or2Today) {
  const Print prev = PrintAt(Level::k1a, 2'345'000);
  const Print other_today = PrintAt(Level::k4, 3'111'000, 1);
  const Print other_prev = PrintAt(Level::k1a, 3'000'000);
  Case c;
  c.prev[0] = &prev;
  c.other_today = &other_today;
  c.other_prev = &other_prev;
  Explanation ex;
  const Print p = c.Run(&ex);
  EXPECT_EQ(p.level, Level::k4);
  EXPECT_EQ(p.value.micros, 2'345'000);
  ASSERT_EQ(ex.notes.size(), 3u);
  EXPECT_EQ(ex.notes[2], "3: the reference grade has no Level 1-2 print today");
}

TEST(Methodology, Level4CarriesThePreviousValueAndCountsTheRun) {
  const Print at3 = PrintAt(Level::k3, 2'432'000, 0, 250'000);
  Case c;
  c.prev[0] = &at3;
  Print p = c.Run();
  EXPECT_EQ(p.level, Level::k4);
  EXPECT_TRUE(p.has_value);
  EXPECT_EQ(p.value.micros, 2'432'000);
  EXPECT_EQ(p.carry_run, 1u);
  EXPECT_EQ(p.attested_milli_tokens, 250'000u);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 2'702'000);

  const Print second_carry = PrintAt(Level::k4, 2'432'000, 2);
  c.prev[0] = &second_carry;
  p = c.Run();
  EXPECT_EQ(p.level, Level::k4);
  EXPECT_EQ(p.carry_run, 3u);
}

TEST(Methodology, DisruptedAfterThreeCarriesStillCarriesTheValue) {
  const Print third_carry = PrintAt(Level::k4, 2'432'000, 3);
  Case c;
  c.prev[0] = &third_carry;
  Explanation ex;
  Print p = c.Run(&ex);
  EXPECT_EQ(p.level, Level::kDisrupted);
  EXPECT_TRUE(p.has_value);
  EXPECT_EQ(p.value.micros, 2'432'000);
  EXPECT_EQ(p.carry_run, 4u);
  EXPECT_EQ(ex.notes.back(), "4: 3 prints in a row at 4 or DISRUPTED, not < 3");
  // And it stays DISRUPTED.
  c.prev[0] = &p;
  const Print next = c.Run();
  EXPECT_EQ(next.level, Level::kDisrupted);
  EXPECT_EQ(next.value.micros, 2'432'000);
  EXPECT_EQ(next.carry_run, 5u);
}

TEST(Methodology, DisruptedWithoutAnyPriorValueHasNoValue) {
  Case c;
  Explanation ex;
  const Print first = c.Run(&ex);
  EXPECT_EQ(first.level, Level::kDisrupted);
  EXPECT_FALSE(first.has_value);
  EXPECT_EQ(first.value.micros, 0);
  EXPECT_EQ(first.carry_run, 1u);
  EXPECT_FALSE(first.has_upm);
  EXPECT_EQ(ex.notes.back(), "4: no previous print");
  // A valueless DISRUPTED print is followed by another one.
  c.prev[0] = &first;
  const Print second = c.Run(&ex);
  EXPECT_EQ(second.level, Level::kDisrupted);
  EXPECT_FALSE(second.has_value);
  EXPECT_EQ(second.carry_run, 2u);
  EXPECT_EQ(ex.notes.back(), "4: the previous print has no value");
}

// Partitions 1 and 2: 2 lots at 2.00 and 2 at 2.01 (a tie at W/2);
// partitions 3 and 4: 3 lots at 2.00 and 2 at 2.01; partitions 5 and 6 one
// trade each (not used). 22 lots; no firm above 5 of 22 lots (cap 6.6).
Case TieDay() {
  Case c;
  auto& d = c.days[0];
  d.push_back(Trade(1, Cents(200), 2, 1, 11, 1));
  d.push_back(Trade(2, Cents(201), 2, 2, 12, 1));
  d.push_back(Trade(3, Cents(200), 2, 3, 13, 2));
  d.push_back(Trade(4, Cents(201), 2, 4, 14, 2));
  d.push_back(Trade(5, Cents(200), 3, 1, 12, 3));
  d.push_back(Trade(6, Cents(201), 2, 2, 13, 3));
  d.push_back(Trade(7, Cents(200), 3, 3, 14, 4));
  d.push_back(Trade(8, Cents(201), 2, 4, 11, 4));
  d.push_back(Trade(9, Cents(200), 2, 5, 15, 5));
  d.push_back(Trade(10, Cents(200), 2, 5, 15, 6));
  return c;
}

TEST(Methodology, MedianOnExactlyHalfTheWeightAveragesTwoPrices) {
  Explanation ex;
  const Print p = TieDay().Run(&ex);
  // P1, P2: W = 4, cum_1 = 2 and 2 x 2 = W -> (2.00 + 2.01) / 2 = 2.005.
  // P3, P4: W = 5, cum_1 = 3, 6 > 5 -> 2.00.
  ASSERT_EQ(p.level, Level::k1a);
  ASSERT_EQ(ex.partitions.size(), 4u);
  EXPECT_EQ(ex.partitions[0].vwm.micros, 2'005'000);
  EXPECT_EQ(ex.partitions[1].vwm.micros, 2'005'000);
  EXPECT_EQ(ex.partitions[2].vwm.micros, 2'000'000);
  EXPECT_EQ(ex.partitions[3].vwm.micros, 2'000'000);
  EXPECT_EQ(p.partitions_used, 0b1111u);
  // The input set is the 8 trades of partitions 1-4: 2.00 x 10 lots,
  // 2.01 x 8. p25: cum >= 4.5 -> 2.00; p75: cum >= 13.5 -> cum 14 = 2.01.
  EXPECT_EQ(p.trade_count, 8u);
  EXPECT_EQ(p.trade_ids, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.gpu_hours, 18 * 192);
  EXPECT_EQ(p.p25.micros, 2'000'000);
  EXPECT_EQ(p.p75.micros, 2'010'000);
}

// 24 lots (Q = 4,608 GPU-hours) over partitions 1-5. S1 sells 11 lots
// (46 %), above the cap: f(S1) = 0.30 x 24 / 11 = 36/55. Every other firm
// holds at most 6 lots (0.30 x 24 = 7.2): factor 1. In partition 1 all
// three trades are S1's, so the median tie there is exact, and exact only
// without rounding the weights on the way.
Case CappedTieDay() {
  Case c;
  auto& d = c.days[0];
  //           id  price       lots  S  B    partition
  d.push_back(Trade(1, Cents(200), 2, 1, 11, 1));
  d.push_back(Trade(2, Cents(203), 1, 1, 12, 1));
  d.push_back(Trade(3, Cents(210), 1, 1, 13, 1));
  d.push_back(Trade(4, Cents(220), 2, 2, 11, 2));
  d.push_back(Trade(5, Cents(230), 3, 1, 14, 2));
  d.push_back(Trade(6, Cents(210), 2, 3, 12, 3));
  d.push_back(Trade(7, Cents(220), 2, 1, 13, 3));
  d.push_back(Trade(8, Cents(240), 2, 2, 14, 4));
  d.push_back(Trade(9, Cents(250), 1, 3, 11, 4));
  d.push_back(Trade(10, Cents(260), 2, 1, 12, 4));
  d.push_back(Trade(11, Cents(230), 6, 4, 15, 5));  // alone: P5 not used
  return c;
}

TEST(Methodology, MedianTieOfCappedWeightsIsExact) {
  Explanation ex;
  const Print p = CappedTieDay().Run(&ex);
  // P1, exact weights: #1 384 x 36/55 = 13,824/55 GPU-hours, #2 and #3
  // 192 x 36/55 = 6,912/55 each; W_1 = 27,648/55 and cum_1 = 13,824/55 =
  // W_1 / 2 exactly -> (2.00 + 2.03) / 2 = 2.015.
  // (Rounded to 10^-6 GPU-hour first, #1 would weigh 251.345455 and #2, #3
  // 125.672727 each: 2 x 251.345455 = 502.69091 > W_1 = 502.690909, and
  // the median would be 2.00.)
  // P2: #4 2.20 (384), #5 2.30 (576 x 36/55 = 377.02): 768 > 761.02 -> 2.20.
  // P3: #6 2.10 (384), #7 2.20 (251.35): 768 > 635.35 -> 2.10.
  // P4: #8 2.40 (384), #9 2.50 (192), #10 2.60 (251.35), W = 827.35:
  //   768 < W, 1,152 > W -> 2.50.
  // I = (2.015 + 2.20 + 2.10 + 2.50) / 4 = 8.815 / 4 = 2.20375 -> 2.204
  // (with rounded weights: 8.80 / 4 = 2.200, $0.004 low).
  ASSERT_EQ(p.level, Level::k1a);
  EXPECT_EQ(p.partitions_used, 0b1111u);
  ASSERT_EQ(ex.partitions.size(), 4u);
  EXPECT_EQ(ex.partitions[0].vwm.micros, 2'015'000);
  EXPECT_EQ(ex.partitions[1].vwm.micros, 2'200'000);
  EXPECT_EQ(ex.partitions[2].vwm.micros, 2'100'000);
  EXPECT_EQ(ex.partitions[3].vwm.micros, 2'500'000);
  EXPECT_EQ(p.value.micros, 2'204'000);
  // The input set, trades 1-10, W = 13,632/5 = 2,726.4 GPU-hours; 4 x cum
  // / W in price order: #1 0.37, #2 0.55, #3 0.74, #6 1.30 (p25 = 2.10),
  // #4 1.86, #7 2.23, #5 2.79, #8 3.35 (p75 = 2.40).
  EXPECT_EQ(p.p25.micros, 2'100'000);
  EXPECT_EQ(p.p75.micros, 2'400'000);
  // The explain view shows the exact weights rounded for display.
  ASSERT_EQ(ex.trades.size(), 10u);
  EXPECT_EQ(ex.trades[0].trade.trade_id, 1u);
  EXPECT_EQ(ex.trades[0].weight, 251'345'455);  // 251.3454545...
  EXPECT_EQ(ex.trades[1].weight, 125'672'727);  // 125.6727272...
}

TEST(Methodology, UsdPerMillionTokensUsesTheExactT) {
  // Level1bDay's value is 2.155 (uncapped weights: lots). S1 (6 of 22
  // lots) is attested at 240.508 tokens/s/GPU, S2-S4 (16 lots) at 250.000.
  Case c = Level1bDay();
  for (IndexTrade& t : c.days[0]) {
    t.seller_milli_tokens = t.seller == 1 ? 240'508 : 250'000;
  }
  const Print p = c.Run();
  ASSERT_EQ(p.value.micros, 2'155'000);
  // T = (6 x 240,508 + 16 x 250,000) / 22 = 5,443,048 / 22
  //   = 2,721,524 / 11 = 247,411.2727... thousandths, published 247.411.
  EXPECT_EQ(p.attested_tokens, ReducedRatio(WideUint(5'443'048), WideUint(22)));
  EXPECT_EQ(p.attested_tokens.num, WideUint(2'721'524));
  EXPECT_EQ(p.attested_tokens.den, WideUint(11));
  EXPECT_EQ(p.attested_milli_tokens, 247'411u);
  // 2.155 x 10^6 / (3,600 x 247.4112727...) = 2.4194981... -> 2.419.
  // (With T rounded to 247.411 first: 2.4195008... -> 2.420.)
  EXPECT_TRUE(p.has_upm);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 2'419'000);
}

TEST(Methodology, CarriedTIsExact) {
  // The previous print's T is 2,721,524 / 11 thousandths (247.411 as
  // published); Level 4 carries both the value 2.155 and the exact T.
  Print prev = PrintAt(Level::k1b, 2'155'000, 0, 247'411);
  prev.attested_tokens = ReducedRatio(WideUint(2'721'524), WideUint(11));
  Case c;
  c.prev[0] = &prev;
  const Print p = c.Run();
  ASSERT_EQ(p.level, Level::k4);
  EXPECT_EQ(p.attested_tokens, prev.attested_tokens);
  EXPECT_EQ(p.attested_milli_tokens, 247'411u);
  EXPECT_EQ(p.usd_per_million_tokens_micros, 2'419'000);  // not 2.420
}

TEST(Methodology, ValueRoundsHalfUpToATenthOfACent) {
  // (2.005 + 2.005 + 2.000 + 2.000) / 4 = 2.0025 -> 2.003.
  EXPECT_EQ(TieDay().Run().value.micros, 2'003'000);
  EXPECT_EQ(RoundHalfUp(3'262'500, 1, 1'000), 3'263'000);
  EXPECT_EQ(RoundHalfUp(3'262'499, 1, 1'000), 3'262'000);
  EXPECT_EQ(RoundHalfUp(6'525, 2, 1'000), 3'000);  // 3,262.5 -> 3,000
  EXPECT_EQ(RoundHalfUp(5, 2, 1), 3);              // 2.5 -> 3
  EXPECT_EQ(RoundHalfUp(7, 3, 1), 2);              // 2.33 -> 2
  EXPECT_EQ(RoundHalfUp(0, 5, 1'000), 0);
}

TEST(Methodology, ConcentrationCapShrinksTheWeightsOfLargeFirms) {
  // 21 lots (Q = 4,032 GPU-hours). S1 sells 13 lots (62 %), B11 buys 7
  // (33 %); every other firm holds at most 4 lots (19 %).
  Case c;
  auto& d = c.days[0];
  d.push_back(Trade(1, Cents(201), 2, 1, 11));
  d.push_back(Trade(2, Cents(202), 2, 1, 12));
  d.push_back(Trade(3, Cents(203), 2, 1, 13));
  d.push_back(Trade(4, Cents(204), 2, 1, 14));
  d.push_back(Trade(5, Cents(205), 2, 1, 15));
  d.push_back(Trade(6, Cents(206), 3, 1, 11));
  d.push_back(Trade(7, Cents(207), 2, 2, 11));
  d.push_back(Trade(8, Cents(208), 2, 2, 13));
  d.push_back(Trade(9, Cents(209), 2, 3, 14));
  d.push_back(Trade(10, Cents(210), 2, 3, 15));
  Explanation ex;
  c.Run(&ex);
  // f(S1)  = 0.30 x 4,032 / 2,496 = 63/130 = 0.484615...
  // f(B11) = 0.30 x 4,032 / 1,344 = 0.9
  // #1  384 GPU-h x 63/130 x 0.9 = 167.4830769 -> 167,483,077
  // #2  384 x 63/130             = 186.0923077 -> 186,092,308
  // #6  576 x 63/130 x 0.9       = 251.2246153 -> 251,224,615
  // #7  384 x 0.9                = 345.6       -> 345,600,000
  // #8  S2 (4 lots) and B13 (4 lots) are under the cap: 384,000,000.
  const int64_t w[] = {167'483'077, 186'092'308, 186'092'308, 186'092'308,
                       186'092'308, 251'224'615, 345'600'000, 384'000'000,
                       384'000'000, 384'000'000};
  ASSERT_EQ(ex.trades.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(ex.trades[i].trade.trade_id, i + 1);
    EXPECT_EQ(ex.trades[i].weight, w[i]) << "trade " << i + 1;
    EXPECT_EQ(ex.trades[i].gpu_hours, ex.trades[i].trade.lots * 192);
  }
}

TEST(Methodology, ConcentrationCapIsExactForVeryLargeDays) {
  // 11 trades of 5,000,000 lots (q = 960,000,000 GPU-hours each): S1 sells
  // 7 of them to B11; S2 -> B12 and S3 -> B13 two each. The exact product
  // needs more than 128 bits.
  Case c;
  for (uint64_t id = 1; id <= 11; ++id) {
    const uint32_t firm = id <= 7 ? 1 : (id <= 9 ? 2 : 3);
    c.days[0].push_back(Trade(id, Cents(200), 5'000'000, firm, 10 + firm));
  }
  Explanation ex;
  c.Run(&ex);
  // f(S1) = f(B11) = 0.30 x 11 / 7 = 33/70;
  // w = 960,000,000 x 10^6 x (33/70)^2 = 10,454,400,000,000,000 / 49
  //   = 213,355,102,040,816.33 -> 213,355,102,040,816.
  // S2 and B12 hold 2/11 (18 %): 960,000,000,000,000 uncapped.
  ASSERT_EQ(ex.trades.size(), 11u);
  EXPECT_EQ(ex.trades[0].weight, 213'355'102'040'816);
  EXPECT_EQ(ex.trades[6].weight, 213'355'102'040'816);
  EXPECT_EQ(ex.trades[7].weight, 960'000'000'000'000);
}

// Five one-lot trades at the edges of the filter around I_{d-1} = 2.100:
// 2.1 x 1.5 = 3.150 and 2.1 / 1.5 = 1.400 exactly.
Case FilterDay() {
  Case c;
  auto& d = c.days[0];
  d.push_back(Trade(1, 3'150'000, 1, 1, 11));  // exactly x 1.5: kept
  d.push_back(Trade(2, 3'150'001, 1, 2, 12));  // above: dropped
  d.push_back(Trade(3, 1'400'000, 1, 3, 13));  // exactly / 1.5: kept
  d.push_back(Trade(4, 1'399'999, 1, 4, 14));  // below: dropped
  d.push_back(Trade(5, 2'100'000, 1, 5, 15));
  return c;
}

TEST(Methodology, ErroneousPrintFilterKeepsExactlyOneAndAHalfTimes) {
  const Print prev = PrintAt(Level::k1a, 2'100'000);
  Case c = FilterDay();
  c.prev[0] = &prev;
  Explanation ex;
  c.Run(&ex);
  EXPECT_EQ(Reasons(ex.excluded), "4:ERRONEOUS_PRINT 2:ERRONEOUS_PRINT ");
  // Three trades (#1, #3, #5) remain eligible: 3 x 192 GPU-hours.
  EXPECT_EQ(ex.notes[0], "1: 3 trades < 10, 576 GPU-hours < 3840");
}

TEST(Methodology, ErroneousPrintFilterIsOffWithoutAPriorPrint) {
  Case c = FilterDay();
  c.days[0].push_back(Trade(6, 210'000'000, 1, 6, 16));  // 100 x
  Explanation ex;
  c.Run(&ex);
  EXPECT_TRUE(ex.excluded.empty());
  EXPECT_EQ(ex.notes[0], "1: 6 trades < 10, 1152 GPU-hours < 3840");
}

TEST(Methodology, ErroneousPrintFilterUsesAPriorPrintAtAnyLevel) {
  for (const Level level : {Level::k4, Level::kDisrupted, Level::k3}) {
    SCOPED_TRACE(std::string(LevelName(level)));
    const Print prev = PrintAt(level, 2'100'000, 2);
    Case c = FilterDay();
    c.prev[0] = &prev;
    Explanation ex;
    c.Run(&ex);
    EXPECT_EQ(Reasons(ex.excluded), "4:ERRONEOUS_PRINT 2:ERRONEOUS_PRINT ");
  }
}

TEST(Methodology, EachPooledDayIsFilteredAgainstItsOwnPreviousPrint) {
  const Print prev0 = PrintAt(Level::k1a, 2'100'000);  // day d - 1
  const Print prev1 = PrintAt(Level::k1a, 4'000'000);  // day d - 2
  Case c;
  c.prev[0] = &prev0;
  c.prev[1] = &prev1;
  // Day d against 2.100 (keeps [1.40, 3.15]); day d - 1 against 4.000
  // (keeps [2.667, 6.00]).
  c.days[0].push_back(Trade(1, Cents(500), 1, 1, 11));
  c.days[0].push_back(Trade(2, Cents(210), 1, 2, 12));
  c.days[1].push_back(Trade(101, Cents(500), 1, 3, 13, 1, kDay - 1));
  c.days[1].push_back(Trade(102, Cents(200), 1, 4, 14, 1, kDay - 1));
  Explanation ex;
  c.Run(&ex);
  EXPECT_EQ(Reasons(ex.excluded), "1:ERRONEOUS_PRINT 102:ERRONEOUS_PRINT ");
  ASSERT_EQ(ex.excluded.size(), 2u);
  EXPECT_EQ(ex.excluded[1].age, 1);
  // The pool keeps #2 and #101.
  EXPECT_EQ(ex.notes[1],
            "2: 2 trades < 10, 2 sellers < 3, 2 buyers < 3, 384 GPU-hours < "
            "3840");
}

TEST(Methodology, SameFirmAndAffiliatedTradesAreExcludedInRuleOrder) {
  Case c;
  auto& d = c.days[0];
  d.push_back(Trade(1, Cents(201), 1, 1, 1));  // same firm
  IndexTrade affiliated = Trade(2, Cents(202), 1, 7, 8);
  affiliated.seller_group = 7;
  affiliated.buyer_group = 7;
  d.push_back(affiliated);
  IndexTrade busted_same = Trade(3, Cents(203), 1, 2, 2);
  busted_same.busted_at_ns = 1;  // busted long before the fixing
  d.push_back(busted_same);
  d.push_back(Trade(4, Cents(204), 1, 3, 4));
  Explanation ex;
  c.Run(&ex);
  // BUSTED is checked before SAME_FIRM, SAME_FIRM before AFFILIATED.
  EXPECT_EQ(Reasons(ex.excluded), "1:SAME_FIRM 2:AFFILIATED 3:BUSTED ");
  EXPECT_EQ(ex.notes[0].substr(0, 13), "1: 1 trades <");
}

TEST(Methodology, AffiliatedFirmsRemainSeparateParticipants) {
  // Sellers 7 and 8 are affiliates (group 7); with seller 1 they are three
  // distinct sellers, and each has its own cap.
  Case c;
  for (uint64_t id = 1; id <= 12; ++id) {
    const uint32_t seller = id % 3 == 0 ? 1 : (id % 3 == 1 ? 7 : 8);
    IndexTrade t = Trade(id, Cents(200 + static_cast<int64_t>(id)), 2, seller,
                         static_cast<uint32_t>(11 + id % 4));
    t.seller_group = seller == 1 ? 1 : 7;
    c.days[0].push_back(t);
  }
  const Print p = c.Run();
  EXPECT_EQ(p.level, Level::k1b);
  EXPECT_EQ(p.sellers, 3u);
  EXPECT_EQ(p.buyers, 4u);
}

TEST(Methodology, BustBeforeAsOfExcludesAtOrAfterKeeps) {
  const MethodologyConfig config;
  const int64_t as_of = config.FixingNs(kDay);
  Case c;
  IndexTrade before = Trade(1, Cents(201), 1, 1, 11);
  before.busted_at_ns = as_of - 1;
  IndexTrade at = Trade(2, Cents(202), 1, 2, 12);
  at.busted_at_ns = as_of;
  IndexTrade after = Trade(3, Cents(203), 1, 3, 13);
  after.busted_at_ns = as_of + kHour;
  c.days[0] = {before, at, after};
  Explanation ex;
  c.Run(&ex);
  EXPECT_EQ(Reasons(ex.excluded), "1:BUSTED ");
  EXPECT_EQ(ex.notes[0].substr(0, 13), "1: 2 trades <");
  // A restatement computed as of the bust + 1 ns drops the second trade too.
  c.as_of_ns = as_of + 1;
  c.Run(&ex);
  EXPECT_EQ(Reasons(ex.excluded), "1:BUSTED 2:BUSTED ");
}

TEST(Methodology, TradeAtTheFixingInstantBelongsToTheNextDay) {
  const MethodologyConfig config;
  EXPECT_EQ(config.DayOf(config.FixingNs(kDay)), kDay + 1);
  EXPECT_EQ(config.DayOf(config.FixingNs(kDay) - 1), kDay);
  EXPECT_EQ(config.DayOf(config.FixingNs(kDay - 1)), kDay);
  // Before 1970-01-01 21:00 (negative offsets floor correctly).
  EXPECT_EQ(config.DayOf(0), 0);
  EXPECT_EQ(config.DayOf(config.FixingNs(-1)), 0);
  EXPECT_EQ(config.DayOf(config.FixingNs(-1) - 1), -1);

  // Day d's computation ignores (and does not list) a trade at its fixing
  // instant, and counts one at the previous fixing instant.
  IndexTrade first = Trade(1, Cents(200), 1, 1, 11);
  first.ts_ns = config.FixingNs(kDay - 1);
  IndexTrade at_fixing = Trade(2, Cents(200), 1, 2, 12);
  at_fixing.ts_ns = config.FixingNs(kDay);
  at_fixing.busted_at_ns = 1;  // would be listed as BUSTED if it were in
  Case c;
  c.days[0] = {first, at_fixing};
  Explanation ex;
  c.Run(&ex);
  EXPECT_TRUE(ex.excluded.empty());
  EXPECT_EQ(ex.notes[0].substr(0, 13), "1: 1 trades <");
}

TEST(Methodology, SufficiencyThresholdsAreInclusive) {
  // Exactly 10 trades, 3 sellers, 3 buyers and 20 lots = 3,840 GPU-hours.
  Case c;
  for (uint64_t id = 1; id <= 10; ++id) {
    c.days[0].push_back(Trade(id, Cents(200 + static_cast<int64_t>(id)), 2,
                              static_cast<uint32_t>(1 + id % 3),
                              static_cast<uint32_t>(11 + (id + 1) % 3)));
  }
  EXPECT_EQ(c.Run().level, Level::k1b);
  c.days[0].pop_back();
  Explanation ex;
  EXPECT_NE(c.Run(&ex).level, Level::k1b);
  EXPECT_EQ(ex.notes[0], "1: 9 trades < 10, 3456 GPU-hours < 3840");
}

TEST(Methodology, InvalidTradesAreExcludedWithAReason) {
  Case c = Level1bDay();
  c.days[0].push_back(Trade(21, Cents(200), 0, 1, 11));
  c.days[0].push_back(Trade(22, Cents(200), -3, 1, 11));
  c.days[0].push_back(Trade(23, 0, 1, 1, 11));
  c.days[0].push_back(Trade(24, -5, 1, 1, 11));
  c.days[0].push_back(Trade(25, Cents(200), int64_t{1} << 60, 1, 11));
  Explanation ex;
  const Print p = c.Run(&ex);
  EXPECT_EQ(Reasons(ex.excluded),
            "24:INVALID 23:INVALID 21:INVALID 22:INVALID 25:INVALID ");
  // The print is the one without them.
  EXPECT_EQ(p, Level1bDay().Run());
}

// ---- Properties ----

std::vector<uint64_t> Seeds() {
  std::vector<uint64_t> seeds;
  for (uint64_t s = 1; s <= 200; ++s) seeds.push_back(s);
  seeds.push_back(std::random_device{}());  // one fresh seed per run
  return seeds;
}

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Random days, previous prints and reference prints, reaching every level.
struct Scenario {
  Case c;
  Print prev[3];
  Print other_today;
  Print other_prev;
};

void Randomize(std::mt19937_64& rng, Scenario* s) {
  Case& c = s->c;
  const MethodologyConfig config;
  const int64_t as_of = config.FixingNs(kDay);
  for (int64_t a = 0; a < 3; ++a) {
    const int64_t begin = config.FixingNs(kDay - a - 1);
    // A third of the days are thin, so that the fallback levels occur.
    const int64_t n =
        Uniform(rng, 0, 2) == 0 ? Uniform(rng, 0, 3) : Uniform(rng, 0, 32);
    for (int64_t i = 0; i < n; ++i) {
      IndexTrade t;
      t.trade_id = static_cast<uint64_t>(1'000 * a + i + 1);
      t.ts_ns = begin + Uniform(rng, 0, kNanosPerDay - 1);
      if (Uniform(rng, 0, 20) == 0) t.ts_ns = begin;
      if (Uniform(rng, 0, 20) == 0) t.ts_ns = begin + kNanosPerDay;  // out
      // Few distinct prices, so that ties on price are common.
      t.price.micros = Cents(200 + Uniform(rng, 0, 8) * 5);
      if (Uniform(rng, 0, 15) == 0) t.price.micros *= 3;
      t.lots = Uniform(rng, 1, 5);
      t.seller = static_cast<uint32_t>(Uniform(rng, 1, 8));
      t.buyer = static_cast<uint32_t>(Uniform(rng, 1, 8));
      t.seller_group = t.seller >= 7 ? 7 : t.seller;
      t.buyer_group = t.buyer >= 7 ? 7 : t.buyer;
      if (Uniform(rng, 0, 2) != 0) {
        t.seller_milli_tokens =
            static_cast<uint64_t>(Uniform(rng, 100'000, 300'000));
      }
      if (Uniform(rng, 0, 10) == 0) {
        t.busted_at_ns = as_of + Uniform(rng, -2 * kHour, 2 * kHour);
      }
      c.days[a].push_back(t);
    }
    if (Uniform(rng, 0, 9) < 7) {
      const Level level = static_cast<Level>(Uniform(rng, 1, 6));
      s->prev[a] = PrintAt(level, Cents(200 + Uniform(rng, -20, 20)),
                           static_cast<uint32_t>(Uniform(rng, 0, 4)),
                           static_cast<uint64_t>(Uniform(rng, 0, 300'000)));
      if (level == Level::kDisrupted && Uniform(rng, 0, 3) == 0) {
        s->prev[a].has_value = false;
        s->prev[a].value.micros = 0;
      }
      c.prev[a] = &s->prev[a];
    }
  }
  if (Uniform(rng, 0, 1) == 0) {
    s->other_today =
        PrintAt(static_cast<Level>(Uniform(rng, 1, 3)), Cents(300));
    c.other_today = &s->other_today;
  }
  if (Uniform(rng, 0, 3) != 0) {
    s->other_prev = PrintAt(Level::k1a, Cents(290 + Uniform(rng, 0, 20)));
    c.other_prev = &s->other_prev;
  }
}

TEST(MethodologyProperty, TradeOrderDoesNotChangeThePrintOrExplanation) {
  std::set<Level> seen;
  for (const uint64_t seed : Seeds()) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    Scenario s;
    Randomize(rng, &s);
    Explanation ex;
    const Print p = s.c.Run(&ex);
    seen.insert(p.level);
    for (auto& day : s.c.days) std::shuffle(day.begin(), day.end(), rng);
    Explanation shuffled_ex;
    const Print shuffled = s.c.Run(&shuffled_ex);
    ASSERT_EQ(shuffled, p);
    ASSERT_EQ(Dump(shuffled_ex), Dump(ex));
  }
  // The scenarios reach every level, so the comparison covers them all.
  std::string names;
  for (const Level level : seen) names += std::string(LevelName(level)) + " ";
  EXPECT_EQ(seen.size(), 6u) << "levels seen: " << names;
}

TEST(MethodologyProperty, ExcludedTradesChangeNothingInThePrint) {
  for (const uint64_t seed : Seeds()) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    Scenario s;
    Randomize(rng, &s);
    const Print p = s.c.Run();
    const MethodologyConfig config;
    const int64_t as_of = config.FixingNs(kDay);
    std::size_t added = 0;
    for (int64_t a = 0; a < 3; ++a) {
      const int64_t n = Uniform(rng, 1, 5);
      for (int64_t i = 0; i < n; ++i) {
        IndexTrade t;
        t.trade_id = static_cast<uint64_t>(9'000 + 100 * a + i);
        t.ts_ns =
            config.FixingNs(kDay - a - 1) + Uniform(rng, 0, kNanosPerDay - 1);
        t.price.micros = Cents(Uniform(rng, 1, 100'000));
        t.lots = Uniform(rng, 1, 50);
        t.seller = static_cast<uint32_t>(Uniform(rng, 1, 6));
        t.buyer = static_cast<uint32_t>(Uniform(rng, 11, 16));
        t.seller_group = t.seller;
        t.buyer_group = t.buyer;
        t.seller_milli_tokens = 999'000;
        switch (Uniform(rng, 0, 2)) {
          case 0:
            t.busted_at_ns = Uniform(rng, 1, as_of - 1);
            break;
          case 1:
            t.buyer = t.seller;
            t.buyer_group = t.seller_group;
            break;
          default:
            t.seller = 7;
            t.buyer = 8;
            t.seller_group = t.buyer_group = 7;
            break;
        }
        s.c.days[a].push_back(t);
        ++added;
      }
    }
    ASSERT_GT(added, 0u);
    ASSERT_EQ(s.c.Run(), p);
  }
}

// Twice the volume-weighted median of (price, lots) in price order (cap off:
// weights are proportional to lots), computed naively.
int64_t TwiceMedian(std::vector<IndexTrade> trades) {
  std::sort(trades.begin(), trades.end(), [](const auto& a, const auto& b) {
    return std::tie(a.price.micros, a.trade_id) <
           std::tie(b.price.micros, b.trade_id);
  });
  int64_t total = 0;
  for (const auto& t : trades) total += t.lots;
  int64_t cum = 0;
  for (std::size_t i = 0; i < trades.size(); ++i) {
    cum += trades[i].lots;
    if (2 * cum == total) {
      return trades[i].price.micros + trades[i + 1].price.micros;
    }
    if (2 * cum > total) return 2 * trades[i].price.micros;
  }
  return 0;
}

TEST(MethodologyProperty, OneAbsurdPriceMovesLevel1aByAtMostOneNeighbour) {
  Case base;
  base.config.cap_bp = 10'000;  // c = 1: no weight is capped
  for (const uint64_t seed : Seeds()) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    Case c = base;
    // 4-6 partitions of 3-5 trades with 2-6 lots each.
    const int64_t partitions = Uniform(rng, 4, 6);
    std::map<uint32_t, std::vector<IndexTrade>> by_partition;
    uint64_t id = 0;
    for (uint32_t k = 1; k <= partitions; ++k) {
      const int64_t n = Uniform(rng, 3, 5);
      for (int64_t i = 0; i < n; ++i) {
        ++id;
        const IndexTrade t =
            Trade(id, Cents(200 + Uniform(rng, 0, 20)), Uniform(rng, 2, 6),
                  static_cast<uint32_t>(1 + id % 4),
                  static_cast<uint32_t>(11 + id % 3), k);
        by_partition[k].push_back(t);
        c.days[0].push_back(t);
      }
    }
    Explanation ex;
    const Print p = c.Run(&ex);
    ASSERT_EQ(p.level, Level::k1a);
    // The bound, in twice-micros: per partition the distance from its
    // median to the nearest distinct price on either side.
    int64_t bound2 = 0;
    ASSERT_EQ(ex.partitions.size(), by_partition.size());
    for (const auto& [k, trades] : by_partition) {
      const int64_t twice = TwiceMedian(trades);
      EXPECT_EQ(ex.partitions[k - 1].vwm.micros * 2, twice);
      int64_t above = 0;
      int64_t below = 0;
      for (const auto& t : trades) {
        const int64_t p2 = 2 * t.price.micros;
        if (p2 > twice && (above == 0 || p2 - twice < above)) {
          above = p2 - twice;
        }
        if (p2 < twice && (below == 0 || twice - p2 < below)) {
          below = twice - p2;
        }
      }
      bound2 = std::max({bound2, above, below});
    }
    // One more trade of 1 lot (half of it is less than any other weight)
    // in a qualifying partition, at 100 x or 1/100 of the prices.
    const uint32_t k = static_cast<uint32_t>(Uniform(rng, 1, partitions));
    const bool high = Uniform(rng, 0, 1) == 0;
    c.days[0].push_back(Trade(999, high ? Cents(20'000) : Cents(2), 1,
                              static_cast<uint32_t>(Uniform(rng, 1, 4)),
                              static_cast<uint32_t>(Uniform(rng, 11, 13)), k));
    const Print moved = c.Run();
    ASSERT_EQ(moved.level, Level::k1a);
    // Each rounding to $0.001 is at most $0.0005 off.
    EXPECT_LE(2 * std::abs(moved.value.micros - p.value.micros), bound2 + 2'000)
        << "high=" << high << " partition=" << k;
  }
}

}  // namespace
}  // namespace cfx::index
