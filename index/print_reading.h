#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/methodology.h"

namespace cfx::index {

// The one reading of a published print (DESIGN.md §4.5,
// docs/index-methodology.md §9): the text of its decimals, its level's
// spelling and which fields it has. Every interface writes a print from
// this: HTTP JSON and `cfx --json` (null for an absent field), protobuf
// ("" for an absent string) and FIX market data (the tag left out), so
// the same print reads the same everywhere.
//
// Thread: any. Memory: allocates (cold path).
struct PrintReading {
  // LevelName(): "1a", "1b", "2", "3", "4", "DISRUPTED".
  std::string_view level;
  bool disrupted = false;  // level DISRUPTED
  bool restated = false;   // revision > 0
  // USD per GPU-hour, 3 decimals ("5.812"); absent only for a DISRUPTED
  // print with nothing to carry.
  std::optional<std::string> value;
  // The volume-weighted percentiles, at least 3 decimals; present at
  // Levels 1a, 1b and 2 only (the levels with an input set).
  std::optional<std::string> p25;
  std::optional<std::string> p75;
  // 3 decimals; absent when no attested throughput is known.
  std::optional<std::string> usd_per_million_tokens;
  // T, the attested output tokens/s/GPU, 3 decimals ("250.125"); absent
  // when unknown.
  std::optional<std::string> attested_tokens_per_s_per_gpu;
  std::vector<uint32_t> partitions_used;  // Level 1a: 1-6, ascending
};

// The reading of `p`.
PrintReading ReadingOf(const Print& p);

}  // namespace cfx::index
