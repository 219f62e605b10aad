#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/bench/engine_runner.h"
#include "tests/bench/engine_workloads.h"

namespace cfx::bench {

struct ReportContext {
  uint64_t seed = 0;
  uint32_t latency_every = 0;      // 0 = no latency pass
  uint64_t clock_overhead_ns = 0;  // see MeasureClockOverheadNanos()
};

// Figures across the runs of one workload, and any verification failure.
struct WorkloadSummary {
  std::vector<double> throughputs;  // timed commands per second, per run
  double median_throughput = 0;     // mean of the middle two for even runs
  std::size_t median_run = 0;       // run whose latency is reported
  // Empty when every pass had no rejects, the same state hash and trade
  // count as every other pass and as the generator's engine.
  std::vector<std::string> problems;
};

WorkloadSummary Summarize(const Workload& w,
                          const std::vector<RunResult>& runs);

// One block per workload, for people.
void PrintHuman(std::FILE* out, const Workload& w,
                const std::vector<RunResult>& runs, const WorkloadSummary& s,
                const ReportContext& ctx);

// One JSON object on one line, for scripts.
void PrintJson(std::FILE* out, const Workload& w,
               const std::vector<RunResult>& runs, const WorkloadSummary& s,
               const ReportContext& ctx);

}  // namespace cfx::bench
