// index/methodology.cc against the plainly written reference
// (reference_methodology.cc) on random days: every print and every
// explanation must be identical.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "index/methodology.h"
#include "tests/index/explanation_dump.h"
#include "tests/index/reference_methodology.h"

namespace cfx::index {
namespace {

constexpr int64_t kDay = 20'788;  // 2026-12-01

// One random computation. The draws favour collisions: few prices (so
// medians and quartiles land exactly on boundaries), few firms (so the cap
// binds), shared ids, trades outside the window, busts around as_of.
struct RandomCase {
  MethodologyConfig config;
  std::vector<IndexTrade> days[3];
  Print prev[3];
  bool has_prev[3] = {false, false, false};
  Print other_today;
  Print other_prev;
  bool has_other = false;
  int64_t as_of_ns = 0;

  RandomCase(uint64_t seed, bool wide_firm_ids, bool huge_lots) {
    std::mt19937_64 rng(seed);
    auto pick = [&rng](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    config.min_trades = static_cast<uint32_t>(pick(1, 12));
    config.min_sellers = static_cast<uint32_t>(pick(1, 3));
    config.min_buyers = static_cast<uint32_t>(pick(1, 3));
    config.min_gpu_hours = pick(0, 4'000);
    config.min_partitions = static_cast<uint32_t>(pick(1, 6));
    config.min_partition_trades = static_cast<uint32_t>(pick(1, 3));
    config.cap_bp = pick(0, 4) == 0 ? 10'000 : pick(500, 6'000);
    const int64_t firms = pick(2, 8);
    const uint32_t firm_base = wide_firm_ids ? 3'000'000'000u : 1u;
    uint64_t next_id = 1;
    for (int a = 0; a < 3; ++a) {
      const int64_t day = kDay - a;
      const int64_t begin = config.FixingNs(day - 1);
      const int64_t n = pick(0, 4) == 0 ? pick(0, 5) : pick(5, 80);
      for (int64_t i = 0; i < n; ++i) {
        IndexTrade t;
        t.trade_id = pick(0, 9) == 0 && next_id > 1 ? next_id - 1 : next_id++;
        // Mostly inside the window, some just outside it.
        t.ts_ns = begin + pick(-kNanosPerDay / 20, kNanosPerDay * 21 / 20);
        t.price.micros = 5'000'000 + 10'000 * pick(0, 6) * pick(1, 3);
        if (pick(0, 40) == 0) t.price.micros = pick(0, 1) ? 1'000 : 99'000'000;
        t.lots = huge_lots ? pick(1'000'000, 5'000'000) : pick(1, 5);
        if (pick(0, 60) == 0) t.lots = 0;
        t.seller = firm_base + static_cast<uint32_t>(pick(0, firms - 1));
        t.buyer = firm_base + static_cast<uint32_t>(pick(0, firms - 1));
        t.seller_group = t.seller;
        t.buyer_group = pick(0, 15) == 0 ? t.seller : t.buyer;
        t.seller_milli_tokens = pick(0, 3) == 0 ? 0 : 200'000 + pick(0, 99'999);
        if (pick(0, 10) == 0) {
          t.busted_at_ns = config.FixingNs(kDay) + pick(-3, 3);
        }
        days[a].push_back(t);
      }
      std::shuffle(days[a].begin(), days[a].end(), rng);
      if (pick(0, 1) == 0) {  // sometimes in match order, as the service has
        std::sort(days[a].begin(), days[a].end(),
                  [](const IndexTrade& x, const IndexTrade& y) {
                    return x.trade_id < y.trade_id;
                  });
      }
      has_prev[a] = pick(0, 3) != 0;
      prev[a].level = static_cast<Level>(pick(1, 6));
      prev[a].has_value = pick(0, 8) != 0;
      prev[a].value.micros = 1'000 * pick(4'000, 7'000);
      prev[a].carry_run = static_cast<uint32_t>(pick(0, 4));
      // An exact T, sometimes with a fraction of a thousandth.
      prev[a].attested_tokens = ReducedRatio(
          WideUint(static_cast<uint64_t>(pick(0, 300'000'000))),
          WideUint(
              static_cast<uint64_t>(pick(0, 3) == 0 ? 0 : pick(1, 1'000))));
    }
    has_other = pick(0, 1) == 0;
    other_today.level = static_cast<Level>(pick(1, 6));
    other_today.has_value = true;
    other_today.value.micros = 1'000 * pick(5'000, 7'000);
    other_prev.has_value = pick(0, 5) != 0;
    other_prev.value.micros = 1'000 * pick(5'000, 7'000);
    as_of_ns = config.FixingNs(kDay) + pick(-2, 2);
  }

  FixingInput Input() const {
    FixingInput in;
    in.grade = 0;
    in.day = kDay;
    in.as_of_ns = as_of_ns;
    for (int a = 0; a < 3; ++a) {
      in.days.emplace_back(days[a]);
      in.prev.push_back(has_prev[a] ? &prev[a] : nullptr);
    }
    in.other_today = has_other ? &other_today : nullptr;
    in.other_prev = has_other ? &other_prev : nullptr;
    return in;
  }
};

// levels_seen[level] counts the prints of each level; fractional counts
// the contributing trades whose capped weight is not a whole GPU-hour (the
// exact arithmetic is compared on those, not only on integers).
void ExpectSameAsReference(uint64_t seed, bool wide_firm_ids, bool huge_lots,
                           int* levels_seen, int* fractional = nullptr) {
  SCOPED_TRACE("seed " + std::to_string(seed) +
               (wide_firm_ids ? ", wide firm ids" : "") +
               (huge_lots ? ", huge lots" : ""));
  const RandomCase c(seed, wide_firm_ids, huge_lots);
  const FixingInput in = c.Input();
  Explanation ex;
  Explanation ref_ex;
  const Print p = ComputeFixing(c.config, in, &ex);
  const Print ref = reference::ReferenceFixing(c.config, in, &ref_ex);
  EXPECT_TRUE(p == ref) << "level " << LevelName(p.level) << " vs "
                        << LevelName(ref.level) << ", value " << p.value.micros
                        << " vs " << ref.value.micros;
  EXPECT_EQ(Dump(ex), Dump(ref_ex));
  // Without an explanation the print is the same.
  EXPECT_TRUE(ComputeFixing(c.config, in, nullptr) == p);
  ++levels_seen[static_cast<int>(p.level)];
  if (fractional != nullptr) {
    for (const ContributingTrade& t : ex.trades) {
      if (t.weight % 1'000'000 != 0) ++*fractional;
    }
  }
}

TEST(MethodologyDifferential, MatchesTheReferenceOnRandomDays) {
  int levels[7] = {};
  int fractional = 0;
  for (uint64_t seed = 1; seed <= 1'500; ++seed) {
    ExpectSameAsReference(seed, false, false, levels, &fractional);
    if (HasFailure()) return;
  }
  EXPECT_GT(fractional, 1'000);
  // The draws reach every level, so every code path was compared.
  for (Level l : {Level::k1a, Level::k1b, Level::k2, Level::k3, Level::k4,
                  Level::kDisrupted}) {
    EXPECT_GT(levels[static_cast<int>(l)], 0) << LevelName(l);
  }
}

TEST(MethodologyDifferential, MatchesTheReferenceWithFirmIdsAboveTheTable) {
  int levels[7] = {};
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    ExpectSameAsReference(seed, true, false, levels);
    if (HasFailure()) return;
  }
}

TEST(MethodologyDifferential, MatchesTheReferenceWhenCapProductsNeed256Bits) {
  int levels[7] = {};
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    ExpectSameAsReference(seed, false, true, levels);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace cfx::index
