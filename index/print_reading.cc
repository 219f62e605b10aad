#include "index/print_reading.h"

#include "exchange/core/reference/attestation.h"
#include "exchange/text_format.h"

namespace cfx::index {

namespace {

// The published precision of values, percentiles and USD per million
// tokens: $0.001.
constexpr int kDecimals = 3;
constexpr uint32_t kPartitionBits = 32;

}  // namespace

PrintReading ReadingOf(const Print& p) {
  PrintReading r;
  r.level = LevelName(p.level);
  r.disrupted = p.level == Level::kDisrupted;
  r.restated = p.revision > 0;
  if (p.has_value) r.value = exchange::FormatMicros(p.value.micros, kDecimals);
  // The level's input set is empty for 3, 4 and DISRUPTED: no percentiles,
  // whatever the fields hold.
  if (FromTrades(p.level)) {
    r.p25 = exchange::FormatMicros(p.p25.micros, kDecimals);
    r.p75 = exchange::FormatMicros(p.p75.micros, kDecimals);
  }
  if (p.has_upm) {
    r.usd_per_million_tokens =
        exchange::FormatMicros(p.usd_per_million_tokens_micros, kDecimals);
  }
  // An attestation states at least 0.001 tokens/s/GPU, so 0 is no T.
  if (p.attested_milli_tokens != 0) {
    r.attested_tokens_per_s_per_gpu =
        exchange::FormatMilliTokens(p.attested_milli_tokens);
  }
  for (uint32_t k = 1; k <= kPartitionBits; ++k) {
    if ((p.partitions_used >> (k - 1)) & 1u) r.partitions_used.push_back(k);
  }
  return r;
}

}  // namespace cfx::index
