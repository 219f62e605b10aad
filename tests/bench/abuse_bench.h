#pragma once

// `cfx-bench abuse`: workloads that measure what one participant's abuse
// costs the exchange or another participant. Each workload measures the
// attack and a quiet baseline in the same run, so the ratio of the two is
// what it reports (docs/benchmarks.md, "cfx-bench abuse").
//
// A workload is one function in its own file, tests/bench/abuse_<name>.cc,
// declared below and listed in kAbuseWorkloads (abuse_bench.cc): one line
// in each place.

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "exchange/core/status.h"

namespace cfx::bench {

struct AbuseOptions {
  uint32_t runs = 3;  // smoke: 1 unless given
  uint64_t seed = 1;
  // Parent of any temporary data directory. Default: $TMPDIR or /tmp.
  std::string dir;
  bool smoke = false;
  bool quiet = false;
};

// One figure, measured quietly and under attack in the same run. Lower is
// better for every figure (costs, latencies), so attack / quiet is how much
// the attack hurt; `target` is the ratio the exchange promises not to
// exceed (0 = none).
struct AbuseFigure {
  std::string name;  // e.g. "engine_insert_ns", "victim_p99_ns"
  std::string unit;  // "ns", "ms", ...
  double quiet = 0;
  double attack = 0;
  double target = 0;
  double ratio() const { return quiet > 0 ? attack / quiet : 0; }
};

// One run of one workload.
struct AbuseRun {
  std::vector<AbuseFigure> figures;  // same names, same order, every run
  // Lines worth printing under the figures (sizes, rates, rejects seen).
  std::vector<std::string> notes;
  // Empty when the run did what it should (every order answered, state
  // verified, ...). Not about the figures: targets are reported, not
  // enforced, since timings on a shared machine are noisy.
  std::vector<std::string> problems;
};

// One run of a workload; its Status is an error only when the run could not
// be made (no server, no socket), not when it found problems.
using AbuseWorkloadFn = Result<AbuseRun> (*)(const AbuseOptions&, uint32_t run);

struct AbuseWorkload {
  const char* name;
  const char* what;  // one line for --help and the human report
  AbuseWorkloadFn run;
};

// The workloads, one file each.
Result<AbuseRun> RunHashFloodAbuse(const AbuseOptions& options, uint32_t run);

// Every workload, in the order `--workload all` runs them.
std::span<const AbuseWorkload> AbuseWorkloads();

// Runs `workload` ("all" or a name from AbuseWorkloads()) options.runs
// times and prints each workload's medians, as text or one JSON object per
// workload per line. 0 when every run was made and found no problems.
int RunAbuse(const std::string& workload, const AbuseOptions& options,
             bool json);

}  // namespace cfx::bench
