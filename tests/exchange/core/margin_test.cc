// Golden cases of InitialMargin (DESIGN.md §5): hand-computed amounts, the
// arithmetic in the comments. Defaults unless said: 730 GPU-hours a
// contract, 15 % initial margin, 60 % spread credit.

#include "exchange/core/margin.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exchange/core/types.h"
#include "tests/support/reference_book.h"

namespace cfx::exchange {
namespace {

constexpr int32_t kJan27 = 2027 * 12 + 0;
constexpr int32_t kFeb27 = kJan27 + 1;
constexpr int32_t kMar27 = kJan27 + 2;
constexpr int32_t kApr27 = kJan27 + 3;

// Prices in price units (1/10,000 USD per GPU-hour).
constexpr int64_t k580 = 58'000;  // $5.80: 730 x 5.80 x 15 % = $635.10
constexpr int64_t k600 = 60'000;  // $6.00: 730 x 6.00 x 15 % = $657.00
constexpr int64_t k620 = 62'000;  // $6.20: 730 x 6.20 x 15 % = $678.90
constexpr int64_t k640 = 64'000;  // $6.40: 730 x 6.40 x 15 % = $700.80

constexpr int64_t Usd(int64_t dollars, int64_t cents) {
  return dollars * kMicrosPerUsd + cents * 10'000;
}

MarginLeg Leg(uint32_t group, int32_t month, int64_t lots, int64_t price) {
  MarginLeg l;
  l.group = group;
  l.month = month;
  l.lots = lots;
  l.price = price;
  return l;
}

int64_t Im(const std::vector<MarginLeg>& legs, MarginParams p = {}) {
  return InitialMargin(legs, p);
}

TEST(InitialMargin, NoLegsNeedNothing) { EXPECT_EQ(Im({}), 0); }

TEST(InitialMargin, OneLongContract) {
  // 730 GPU-hours x $5.80 = $4,234.00 notional; 15 % = $635.10.
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580)}), Usd(635, 10));
}

TEST(InitialMargin, ShortNeedsTheSameAsLong) {
  // 3 x $635.10 = $1,905.30, whichever the sign.
  EXPECT_EQ(Im({Leg(1, kJan27, -3, k580)}), Usd(1'905, 30));
  EXPECT_EQ(Im({Leg(1, kJan27, 3, k580)}), Usd(1'905, 30));
}

TEST(InitialMargin, AdjacentMonthSpreadCreditsSixtyPercentOfBothLegs) {
  // Long Jan at $5.80 ($635.10) + short Feb at $6.00 ($657.00) = $1,292.10;
  // credit 60 % x $1,292.10 = $775.26; IM = $1,292.10 - $775.26 = $516.84.
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580), Leg(1, kFeb27, -1, k600)}),
            Usd(516, 84));
}

TEST(InitialMargin, NearestMonthsPairFirst) {
  // Long Jan ($635.10), long Mar ($678.90), short Apr ($700.80): gross
  // $2,014.80. Apr pairs with Mar (1 month apart), not Jan (3): credit
  // 60 % x ($678.90 + $700.80) = 60 % x $1,379.70 = $827.82;
  // IM = $2,014.80 - $827.82 = $1,186.98. (Jan/Apr would leave $1,213.26.)
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580), Leg(1, kApr27, -1, k640),
                Leg(1, kMar27, 1, k620)}),
            Usd(1'186, 98));
}

TEST(InitialMargin, EquallyNearPairsTakeTheEarlierFrontMonth) {
  // Long Jan ($635.10), short Feb ($657.00), long Mar ($678.90): gross
  // $1,971.00. Jan/Feb and Feb/Mar are both 1 month apart; Jan/Feb has the
  // earlier front month: credit 60 % x ($635.10 + $657.00) = $775.26;
  // IM = $1,971.00 - $775.26 = $1,195.74. (Feb/Mar would leave $1,169.46.)
  EXPECT_EQ(Im({Leg(1, kMar27, 1, k620), Leg(1, kFeb27, -1, k600),
                Leg(1, kJan27, 1, k580)}),
            Usd(1'195, 74));
}

TEST(InitialMargin, UnequalLongAndShortPairOnlyTheSmallerTotal) {
  // All at $5.80 ($635.10 a contract). Long 3 Jan, short 1 Feb: gross
  // 4 x $635.10 = $2,540.40; one pair credits 60 % x $1,270.20 = $762.12;
  // IM = $2,540.40 - $762.12 = $1,778.28.
  EXPECT_EQ(Im({Leg(1, kJan27, 3, k580), Leg(1, kFeb27, -1, k580)}),
            Usd(1'778, 28));
}

TEST(InitialMargin, PairingMovesOnWhenTheNearestMonthRunsOut) {
  // All at $5.80. Long 2 Jan, short 5 Feb, long 1 Apr: gross 8 x $635.10 =
  // $5,080.80. Jan/Feb pair 2 lots, then Feb/Apr (2 months) 1 lot: 3 pairs
  // = min(3 long, 5 short), each crediting $762.12: $2,286.36;
  // IM = $5,080.80 - $2,286.36 = $2,794.44.
  EXPECT_EQ(Im({Leg(1, kJan27, 2, k580), Leg(1, kFeb27, -5, k580),
                Leg(1, kApr27, 1, k580)}),
            Usd(2'794, 44));
}

TEST(InitialMargin, LegsOfDifferentGroupsNeverPair) {
  // Long Jan in group 1, short Feb in group 2: no spread, 2 x $635.10.
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580), Leg(2, kFeb27, -1, k580)}),
            Usd(1'270, 20));
}

TEST(InitialMargin, LegsOfOneMonthNetBeforePairing) {
  // +2 and -1 of Jan net to long 1: $635.10, no spread with itself.
  EXPECT_EQ(Im({Leg(1, kJan27, 2, k580), Leg(1, kJan27, -1, k580)}),
            Usd(635, 10));
  // +1 and -1 of Jan net to nothing; the short Feb stays alone: $635.10.
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580), Leg(1, kJan27, -1, k580),
                Leg(1, kFeb27, -1, k580)}),
            Usd(635, 10));
}

TEST(InitialMargin, ZeroLotLegContributesNothing) {
  // The empty Feb leg sits between long Jan and short Mar and changes
  // nothing: Jan/Mar still pair. $635.10 + $678.90 = $1,314.00; credit
  // 60 % = $788.40; IM = $525.60.
  EXPECT_EQ(Im({Leg(1, kJan27, 1, k580), Leg(1, kFeb27, 0, k600),
                Leg(1, kMar27, -1, k620)}),
            Usd(525, 60));
  EXPECT_EQ(Im({Leg(1, kFeb27, 0, k600)}), 0);
}

TEST(InitialMargin, RoundsUpToTheMicroDollarOnce) {
  // im 12.34 %, price $5.8001: 730 x 58,001 units x 100 micros/unit =
  // 4,234,073,000 micros notional; x 1,234 / 10,000 = 522,484,608.2 ->
  // 522,484,609 micros.
  const MarginParams p{1'234, 6'000};
  EXPECT_EQ(Im({Leg(1, kJan27, 1, 58'001)}, p), 522'484'609);
  // With a 33.33 % credit against short Feb at $6.00 (730 x 60,000 x 100
  // x 12.34 % = 540,492,000 micros): gross 1,062,976,608.2; credit
  // 33.33 % = 354,290,103.51306; IM = 708,686,504.68694 -> 708,686,505
  // (rounding each leg first would give 708,686,506).
  EXPECT_EQ(Im({Leg(1, kJan27, 1, 58'001), Leg(1, kFeb27, -1, 60'000)},
               MarginParams{1'234, 3'333}),
            708'686'505);
}

TEST(InitialMargin, UsesEachLegsGpuHours) {
  // A 192 GPU-hour contract at $5.80: 192 x 5.80 x 15 % = $167.04.
  MarginLeg l = Leg(1, kJan27, 1, k580);
  l.gpu_hours = 192;
  EXPECT_EQ(Im({l}), Usd(167, 4));
}

TEST(InitialMargin, FullCreditLeavesNothingAndZeroMarginNeedsNothing) {
  EXPECT_EQ(Im({Leg(1, kJan27, 4, k580), Leg(1, kFeb27, -4, k600)},
               MarginParams{1'500, 10'000}),
            0);
  EXPECT_EQ(Im({Leg(1, kJan27, 4, k580)}, MarginParams{0, 6'000}), 0);
}

TEST(InitialMargin, SaturatesBeyondInt64) {
  // 2^62 GPU-hour-price units x 100 x 15 % = 15 x 2^62 micros > 2^63.
  MarginLeg l = Leg(1, kJan27, 1, int64_t{1} << 62);
  l.gpu_hours = 1;
  EXPECT_EQ(Im({l}), std::numeric_limits<int64_t>::max());
}

// The reference model (tests/support/reference_book.h) computes the same
// amounts another way; random legs keep both honest.
TEST(InitialMargin, AgreesWithTheReferenceModelOnRandomLegs) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int n = 0; n < 20'000; ++n) {
    std::vector<MarginLeg> legs(rng() % 12);
    for (MarginLeg& l : legs) {
      l.group = static_cast<uint32_t>(1 + rng() % 2);
      l.month = kJan27 + static_cast<int32_t>(rng() % 6);
      l.lots = static_cast<int64_t>(rng() % 21) - 10;
      l.price = 50'000 + static_cast<int64_t>(rng() % 100) * 100;
    }
    // Months repeat within a group: the first leg's price is the month's.
    for (std::size_t i = 0; i < legs.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (legs[j].group == legs[i].group && legs[j].month == legs[i].month) {
          legs[i].price = legs[j].price;
        }
      }
    }
    const MarginParams p{static_cast<int64_t>(1 + rng() % 3'000),
                         static_cast<int64_t>(rng() % 10'001)};
    ASSERT_EQ(InitialMargin(legs, p), testing::ReferenceInitialMargin(legs, p))
        << "case " << n;
  }
}

}  // namespace
}  // namespace cfx::exchange
