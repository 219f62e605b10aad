#include "index/wide_uint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace cfx::index {
namespace {

using U128 = WideUint::U128;

WideUint Pow2(uint32_t bits) {
  WideUint v(1);
  v.ShiftLeft(bits);
  return v;
}

TEST(WideUint, AddMulCarriesAcrossLimbs) {
  WideUint acc(~uint64_t{0});  // 2^64 - 1
  acc.AddMul(WideUint(~uint64_t{0}), ~uint64_t{0});
  // (2^64 - 1) + (2^64 - 1)^2 = 2^128 - 2^64.
  WideUint want = Pow2(128);
  want.Sub(Pow2(64));
  EXPECT_EQ(acc, want);
  EXPECT_EQ(acc.limbs().size(), 2u);
  acc.Add(Pow2(64));
  EXPECT_EQ(acc, Pow2(128));
  EXPECT_EQ(acc.BitWidth(), 129u);
}

TEST(WideUint, AddMulPropagatesAWideCarryIntoALongerValue) {
  WideUint acc = Pow2(128);
  acc.Sub(WideUint(1));  // 2^128 - 1
  acc.AddMul(WideUint(~uint64_t{0}), ~uint64_t{0});
  // 2^128 - 1 + (2^64 - 1)^2 = 2^129 - 2^65.
  WideUint want = Pow2(129);
  want.Sub(Pow2(65));
  EXPECT_EQ(acc, want);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i) {
    WideUint x = WideUint::FromLimbs({rng(), rng(), rng() >> (i % 64)});
    const WideUint a = WideUint::FromLimbs({rng(), rng() >> (i % 60)});
    const uint64_t m = rng() >> (i % 63);
    WideUint sum = x;
    sum.Add(a * WideUint(m));
    x.AddMul(a, m);
    EXPECT_EQ(x, sum) << "case " << i;
  }
}

TEST(WideUint, SubBorrowsAndDropsLeadingZeros) {
  WideUint v = Pow2(192);
  v.Sub(WideUint(1));
  EXPECT_EQ(v.limbs().size(), 3u);
  for (uint64_t limb : v.limbs()) EXPECT_EQ(limb, ~uint64_t{0});
  v.Sub(v);
  EXPECT_TRUE(v.is_zero());
}

TEST(WideUint, DivModMatchesMultiplication) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    WideUint a = WideUint::FromLimbs({rng(), rng(), rng(), rng() >> (i % 64)});
    WideUint b =
        WideUint::FromLimbs({rng(), i % 3 == 0 ? 0 : rng() >> (i % 50)});
    if (b.is_zero()) b = WideUint(3);
    WideUint q;
    WideUint r;
    WideUint::DivMod(a, b, &q, &r);
    EXPECT_LT(Compare(r, b), 0);
    WideUint back = q * b;
    back.Add(r);
    EXPECT_EQ(back, a) << "case " << i;
  }
}

TEST(WideUint, GcdOfWideProducts) {
  // gcd(p x 2^100 x 3, p x 2^70 x 5) = p x 2^70 for a wide p.
  const WideUint p = WideUint::FromLimbs({0x1234'5678'9abc'def1u, 0x7u});
  WideUint a = p * Pow2(100) * WideUint(3);
  WideUint b = p * Pow2(70) * WideUint(5);
  EXPECT_EQ(Gcd(a, b), p * Pow2(70));
  EXPECT_EQ(Gcd(WideUint(), b), b);
}

TEST(WideUint, RoundHalfUpOnWideValues) {
  // (10^3 x 2^200 + 2^199) / 2^200 = 1,000.5 -> 1,001.
  WideUint num = Pow2(200) * WideUint(1'000);
  num.Add(Pow2(199));
  int64_t out = 0;
  ASSERT_TRUE(RoundHalfUp(num, Pow2(200), 1, &out));
  EXPECT_EQ(out, 1'001);
  // 3,262.4999... -> 3,262 at unit 1; 3,262,500 / 1,000 at unit 1,000.
  ASSERT_TRUE(RoundHalfUp(WideUint(3'262'500), WideUint(1), 1'000, &out));
  EXPECT_EQ(out, 3'263'000);
  ASSERT_TRUE(RoundHalfUp(WideUint(6'524'999), WideUint(2), 1, &out));
  EXPECT_EQ(out, 3'262'500);
  // Beyond int64_t, or with no denominator: false.
  EXPECT_FALSE(RoundHalfUp(Pow2(70), WideUint(1), 1, &out));
  EXPECT_FALSE(RoundHalfUp(WideUint(5), WideUint(), 1, &out));
}

}  // namespace
}  // namespace cfx::index
