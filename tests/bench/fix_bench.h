#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exchange/core/status.h"
#include "tests/bench/cpu_sample.h"
#include "tests/bench/latency_histogram.h"

namespace cfx::bench {

struct FixBenchOptions {
  // FIX sessions, each a demo trader or provider (TRADER_A, TRADER_B,
  // TRADER_C, PROVIDER_A, ...) with its own account. Default: 4; at most 6.
  uint32_t sessions = 4;
  // Throughput phase: orders across all sessions. Default: 100,000 (smoke:
  // 2,000).
  uint64_t orders = 100'000;
  // Unmeasured orders before the throughput phase, sent the same way.
  // Default: 10,000 (smoke: 200).
  uint64_t warmup_orders = 10'000;
  // Throughput phase: un-acknowledged orders each session keeps in flight.
  // Default: 256.
  uint32_t window = 256;
  // Latency phase: orders/s offered across all sessions. Default: 2,000
  // (smoke: at most 2,000).
  uint64_t offered_rate = 2'000;
  // Latency phase: measured seconds, after `warmup_seconds` unmeasured ones.
  // Default: 5 and 1 (smoke: 0.3 and 0.1).
  double seconds = 5;
  double warmup_seconds = 1;
  // Which targets to run: "both", "gateway" or "bare" (one alone: for
  // profiling; no ratio). Default: both.
  std::string target = "both";
  // The gateway target runs a second time over its TLS listener (test
  // certificates made for the run): FixBenchResult::gateway_tls.
  bool tls = false;
  // Parent of the temporary directory. Default: $TMPDIR or /tmp.
  std::string dir;
  bool smoke = false;
  bool quiet = false;
};

// One phase against one target.
struct FixPhase {
  uint64_t orders = 0;  // acknowledged and measured
  double seconds = 0;
  double orders_per_s = 0;
  PhaseCpu cpu;
};

// The two phases against one target, (a) the exchange's FIX gateway or (b)
// the bare QuickFIX acceptor:
// 1. throughput: `warmup_orders` unmeasured, then `orders` spread over the
//    sessions, each keeping at most `window` un-acknowledged; orders/s from
//    the first send to the last acknowledgement;
// 2. latency: `offered_rate` orders/s on an absolute schedule (open loop),
//    round-robin over the sessions; each order's latency runs from its
//    scheduled send time to the first ExecutionReport for its ClOrdID, so
//    queueing behind a slow moment counts.
struct FixTargetResult {
  bool ran = false;
  std::string sessions;  // SenderCompIDs, comma-separated
  uint32_t logons = 0;
  // Logon sent to Logon received, the slowest session (the exchange checks
  // a PBKDF2 password hash).
  double logon_ms_max = 0;
  // Over TLS: connect to handshake done, each session.
  LatencyHistogram handshake;
  FixPhase throughput;
  FixPhase latency_phase;
  LatencyHistogram latency;            // scheduled send -> first report
  LatencyHistogram latency_from_send;  // actual send -> first report
  uint64_t orders_sent = 0;
  uint64_t acks = 0;              // first ExecutionReport per ClOrdID
  uint64_t rejects = 0;           // ... of which ExecType=8
  uint64_t session_rejects = 0;   // Reject(3)
  uint64_t business_rejects = 0;  // BusinessMessageReject(j)
  uint64_t extra_reports = 0;     // a second report for one ClOrdID
  uint64_t test_requests = 0;     // TestRequest(1) answered
  std::string first_reject;       // Text(58) of the first refusal
  // Journal group commits during the throughput phase (gateway only).
  uint64_t journal_writes = 0;
  uint64_t journal_commands = 0;
  // Empty when every order got exactly one ExecutionReport ExecType=0 and
  // every session logged on and out cleanly.
  std::vector<std::string> problems;
};

// One run of `cfx-bench fix`: the same load against both targets, one after
// the other (the bare acceptor first on odd runs, the gateway first on even
// runs, so a drift in the machine's load favours neither).
struct FixBenchResult {
  FixTargetResult gateway;  // an in-process ExchangeServer, simulated clock
  FixTargetResult bare;     // tests/bench/fix_bare_acceptor.h
  FixTargetResult gateway_tls;  // --tls: the gateway over its TLS listener
  bool bare_first = true;
  bool dictionary = false;   // the bare acceptor validated with CFX-FIX44
  std::string load_average;  // /proc/loadavg at the start of the run
  double ratio() const;      // gateway / bare throughput; 0 if not run
  // gateway_tls / gateway throughput; 0 if either did not run.
  double tls_ratio() const;
};

// `run` counts from 0 and only picks the order of the targets.
Result<FixBenchResult> RunFixBench(const FixBenchOptions& options,
                                   uint32_t run);

// Output of `cfx-bench fix` over `runs`.
void PrintFixHuman(std::FILE* out, const FixBenchOptions& options,
                   const std::vector<FixBenchResult>& runs);
void PrintFixJson(std::FILE* out, const FixBenchOptions& options,
                  const std::vector<FixBenchResult>& runs);

}  // namespace cfx::bench
