#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exchange/core/status.h"
#include "index/methodology.h"

namespace cfx::bench {

struct IndexBenchOptions {
  // Spot trades of the fixed day, the excluded ones included. 0 =
  // 1,000,000 (smoke: 20,000).
  uint64_t trades = 0;
  uint32_t runs = 3;
  uint64_t seed = 1;
  bool smoke = false;
  bool quiet = false;
};

// The figures of one run: a fresh in-memory IndexService is given the
// previous day's trades and fixing (untimed), then
// 1. ingest: every event of the day (its trades and busts) through
//    OnEvent(), timed as a whole;
// 2. fixing: the day's kIndexFixing event through OnEvent(), which computes
//    the print, stores it and hands it to the print callback;
// 3. compute: ComputeFixing() alone on the same trades and previous print.
struct IndexBenchRun {
  double ingest_seconds = 0;
  double ingest_cpu_seconds = 0;  // this thread's CPU time in the phase
  double fixing_seconds = 0;
  double fixing_cpu_seconds = 0;
  double compute_seconds = 0;
  index::Print print;     // the service's print of the day
  index::Print computed;  // ComputeFixing()'s, revision and time set
  index::Print previous;  // the service's print of the day before
  index::Print previous_computed;
};

// One invocation of `cfx-bench index`: the workload (generated once from
// the seed), each run and the verification.
//
// The workload: `trades` spot trades of one grade with match times uniform
// over one index day (so all six 4-hour partitions qualify), between 50
// seller firms and 200 buyer firms drawn with weights 1/rank^1.5 (the
// largest of each side holds about 40 % of the GPU-hours, over the 30 %
// concentration cap), at $5.80 +/- a few cents on the $0.01 tick, 1-8
// lots. Among them, max(3, trades / 10,000) each of: prices outside the
// erroneous-print band around the previous day's print ($2.50, $12.00),
// trades within one firm, trades between affiliated firms, and trades busted
// before the fixing. The previous day has 5,000 ordinary trades, so the
// erroneous-print filter is on.
struct IndexBenchResult {
  uint64_t trades = 0;  // of the day, excluded ones included
  uint64_t busts = 0;   // kTradeBusted events among the day's events
  uint64_t previous_trades = 0;
  int64_t day = 0;  // days since 1970-01-01
  // Excluded by the methodology, by reason.
  uint64_t erroneous = 0;
  uint64_t same_firm = 0;
  uint64_t affiliated = 0;
  uint64_t expected_trade_count = 0;  // trades minus the excluded
  // The largest seller's and buyer's share of the day's eligible GPU-hours.
  double top_seller_share = 0;
  double top_buyer_share = 0;
  std::vector<IndexBenchRun> runs;
  // Machine: CPUs online, /proc/cpuinfo model name, /proc/loadavg before
  // the first run, and the median cost of one steady_clock read.
  uint32_t cpus = 0;
  std::string cpu_model;
  std::string load_average;
  uint64_t clock_overhead_ns = 0;
  // Empty when every run's print is Level 1a over all six partitions with
  // expected_trade_count trades, equal to run 1's and to ComputeFixing()'s,
  // and the previous day's print is equal to ComputeFixing()'s.
  std::vector<std::string> problems;
};

// Generates the workload and runs it `options.runs` times. An error only
// for a bad option; a failed verification is in `problems`.
Result<IndexBenchResult> RunIndexBench(const IndexBenchOptions& options);

// The fixing time target of issue #7 for 1M eligible trades.
inline constexpr double kIndexFixingTargetSeconds = 0.5;

// Output of `cfx-bench index`: a short table, or one JSON object on one
// line.
void PrintIndexHuman(std::FILE* out, const IndexBenchOptions& options,
                     const IndexBenchResult& result);
void PrintIndexJson(std::FILE* out, const IndexBenchOptions& options,
                    const IndexBenchResult& result);

}  // namespace cfx::bench
