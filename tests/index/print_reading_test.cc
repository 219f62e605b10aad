#include "index/print_reading.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace cfx::index {
namespace {

Print LevelOneA() {
  Print p;
  p.level = Level::k1a;
  p.has_value = true;
  p.value.micros = 5'812'000;
  p.trade_count = 12;
  p.p25.micros = 5'805'000;
  p.p75.micros = 5'820'050;
  p.partitions_used = 0b111011;
  p.has_upm = true;
  p.usd_per_million_tokens_micros = 6'458'000;
  p.attested_milli_tokens = 250'125;
  return p;
}

TEST(PrintReading, LevelOneAReadsEveryFieldAtThePublishedDecimals) {
  const PrintReading r = ReadingOf(LevelOneA());
  EXPECT_EQ(r.level, "1a");
  EXPECT_FALSE(r.disrupted);
  EXPECT_FALSE(r.restated);
  EXPECT_EQ(r.value, std::optional<std::string>("5.812"));
  EXPECT_EQ(r.p25, std::optional<std::string>("5.805"));
  // A percentile between two prices off the $0.001 grid keeps its digits.
  EXPECT_EQ(r.p75, std::optional<std::string>("5.82005"));
  EXPECT_EQ(r.usd_per_million_tokens, std::optional<std::string>("6.458"));
  EXPECT_EQ(r.attested_tokens_per_s_per_gpu,
            std::optional<std::string>("250.125"));
  EXPECT_EQ(r.partitions_used, (std::vector<uint32_t>{1, 2, 4, 5, 6}));
}

TEST(PrintReading, EveryLevelHasOneSpelling) {
  const std::pair<Level, const char*> cases[] = {
      {Level::k1a, "1a"}, {Level::k1b, "1b"}, {Level::k2, "2"},
      {Level::k3, "3"},   {Level::k4, "4"},   {Level::kDisrupted, "DISRUPTED"}};
  for (const auto& [level, name] : cases) {
    Print p = LevelOneA();
    p.level = level;
    const PrintReading r = ReadingOf(p);
    EXPECT_EQ(r.level, name);
    EXPECT_EQ(r.level, LevelName(level));
    EXPECT_EQ(r.disrupted, level == Level::kDisrupted);
    // Percentiles belong to the levels with an input set, whatever the
    // fields hold.
    EXPECT_EQ(r.p25.has_value(), FromTrades(level)) << name;
    EXPECT_EQ(r.p75.has_value(), FromTrades(level)) << name;
  }
}

TEST(PrintReading, DisruptedWithNothingToCarryHasNoValueNoPriceNoRate) {
  Print p;
  p.level = Level::kDisrupted;
  p.revision = 1;
  const PrintReading r = ReadingOf(p);
  EXPECT_EQ(r.level, "DISRUPTED");
  EXPECT_TRUE(r.disrupted);
  EXPECT_TRUE(r.restated);
  EXPECT_FALSE(r.value.has_value());
  EXPECT_FALSE(r.p25.has_value());
  EXPECT_FALSE(r.p75.has_value());
  EXPECT_FALSE(r.usd_per_million_tokens.has_value());
  // An unknown T is absent, not "0.000".
  EXPECT_FALSE(r.attested_tokens_per_s_per_gpu.has_value());
  EXPECT_TRUE(r.partitions_used.empty());
}

}  // namespace
}  // namespace cfx::index
