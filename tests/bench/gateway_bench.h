#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exchange/core/status.h"
#include "tests/bench/cpu_sample.h"
#include "tests/bench/latency_histogram.h"

namespace cfx::bench {

struct GatewayBenchOptions {
  // TCP connections, each logged on as its own user with its own account.
  // Default: 4.
  uint32_t connections = 4;
  // Measured seconds of each phase. Default: 5 (smoke: 0.3).
  double seconds = 5;
  // Unmeasured seconds before each phase's measurement. Default: 1 (smoke:
  // 0.1).
  double warmup_seconds = 1;
  // Throughput phase: un-acknowledged orders each connection keeps in
  // flight. Default: 512.
  uint32_t window = 512;
  // Latency phase: orders/s offered across all connections. Default: 20,000.
  uint64_t offered_rate = 20'000;
  // Parent of the temporary data directory. Default: $TMPDIR or /tmp.
  std::string dir;
  // The connections speak TLS (the TLS protobuf listener, test
  // certificates made for the run), and a handshake phase measures what a
  // TLS handshake costs before the two phases.
  bool tls = false;
  bool smoke = false;
  bool quiet = false;
};

// TLS handshakes of the handshake phase (smoke: 20).
inline constexpr uint32_t kHandshakes = 200;

// Figures of one phase.
struct GatewayPhase {
  double seconds = 0;   // measured interval
  uint64_t orders = 0;  // acknowledged (NEW or REJECTED) in it
  double orders_per_s = 0;
  // Throughput phase: the slowest and fastest whole second.
  double min_second_per_s = 0;
  double max_second_per_s = 0;
  uint64_t journal_writes = 0;    // synced WriteBatches in the interval
  uint64_t journal_commands = 0;  // commands submitted in the interval
  PhaseCpu cpu;
};

// One run of `cfx-bench gateway`: a fresh in-process ExchangeServer (wall
// clock, synced RocksDB journal, the normal gateway with metrics and HTTP)
// on ephemeral loopback ports, `connections` bench users, then
// 1. latency: the offered rate spread over the connections on an absolute
//    schedule (open loop); each order's latency runs from its scheduled
//    send time to the receipt of its acknowledgement (ExecutionReport NEW
//    or REJECTED), so queueing behind a slow moment is counted;
// 2. throughput: each connection keeps `window` orders in flight; acks
//    received in the measured interval, per second.
// Latency runs first, on a quiet disk, as in `cfx-bench journal`.
struct GatewayBenchResult {
  GatewayPhase latency_phase;
  LatencyHistogram latency;            // scheduled send -> ack
  LatencyHistogram latency_from_send;  // actual send -> ack
  // 4 KB append + fdatasync next to the journal, every 50 ms of phase 1.
  LatencyHistogram fsync;
  GatewayPhase throughput;
  uint64_t orders_sent = 0;
  uint64_t rejects = 0;          // ExecutionReport REJECTED
  uint64_t session_rejects = 0;  // SessionReject (throttle, busy, ...)
  uint64_t trades = 0;           // TRADE reports received
  uint64_t stp_cancels = 0;      // CANCELED reports received
  int64_t resting_at_end = 0;    // bench orders still on the book
  std::string load_average;      // /proc/loadavg at the start of the run
  // --tls: connect to handshake done, wall time, every TLS handshake of the
  // run (the logged-on connections' and the handshake phase's), and the
  // CPU per handshake of the handshake phase: the gateway thread's, and the
  // whole process's (the client's side included).
  bool tls = false;
  LatencyHistogram handshake;
  double handshake_gateway_cpu_us = 0;
  double handshake_process_cpu_us = 0;
  // Empty when every order was acknowledged and none was refused.
  std::vector<std::string> problems;
};

Result<GatewayBenchResult> RunGatewayBench(const GatewayBenchOptions& options);

// Output of `cfx-bench gateway` over `runs`.
void PrintGatewayHuman(std::FILE* out, const GatewayBenchOptions& options,
                       const std::vector<GatewayBenchResult>& runs);
void PrintGatewayJson(std::FILE* out, const GatewayBenchOptions& options,
                      const std::vector<GatewayBenchResult>& runs);
// Output of `cfx-bench gateway --tls`: run i of `plain` (plaintext) and run
// i of `tls` ran one after the other, in alternating order; the figures of
// each, the ratio of their throughputs and the TLS handshake's cost.
void PrintGatewayTlsHuman(std::FILE* out, const GatewayBenchOptions& options,
                          const std::vector<GatewayBenchResult>& plain,
                          const std::vector<GatewayBenchResult>& tls);
void PrintGatewayTlsJson(std::FILE* out, const GatewayBenchOptions& options,
                         const std::vector<GatewayBenchResult>& plain,
                         const std::vector<GatewayBenchResult>& tls);

}  // namespace cfx::bench
