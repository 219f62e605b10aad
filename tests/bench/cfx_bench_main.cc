// cfx-bench: the exchange's benchmark tool.
//
//   cfx-bench engine [--workload standard|deep|liquibook-inserts|all]
//                    [--commands N] [--runs N] [--seed S] [--json] [--smoke]
//   cfx-bench journal [--commands N] [--runs N] [--seed S] [--dir D]
//                     [--json] [--smoke]
//   cfx-bench gateway [--connections N] [--seconds S] [--window N]
//                     [--rate R] [--runs N] [--tls] [--dir D] [--json]
//                     [--smoke]
//   cfx-bench fix [--sessions N] [--orders N] [--window N] [--rate R]
//                 [--target both|gateway|bare] [--runs N] [--tls] [--dir D]
//                 [--json] [--smoke]
//   cfx-bench index [--trades N] [--runs N] [--seed S] [--json] [--smoke]
//   cfx-bench settle [--accounts N] [--contracts N] [--runs N] [--seed S]
//                    [--json] [--smoke]
//   cfx-bench abuse [--workload NAME|all] [--runs N] [--seed S] [--dir D]
//                   [--json] [--smoke]
//
// Exits 0 when every workload ran and verified (no rejects, identical state
// hash across passes and with the generator's engine; for the journal, the
// replayed and restarted state equal to the run's; for the gateway and fix,
// every order acknowledged once and none refused; for the index, a Level 1a
// print of the expected trades, equal across runs and to ComputeFixing()'s;
// for abuse, every run made and free of problems: its targets are reported,
// not enforced), 1 otherwise.

#include <sched.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/bench/abuse_bench.h"
#include "tests/bench/bench_report.h"
#include "tests/bench/engine_runner.h"
#include "tests/bench/engine_workloads.h"
#include "tests/bench/fix_bench.h"
#include "tests/bench/gateway_bench.h"
#include "tests/bench/index_bench.h"
#include "tests/bench/journal_bench.h"
#include "tests/bench/settle_bench.h"

namespace cfx::bench {
namespace {

struct EngineArgs {
  std::string workload = "all";
  uint64_t commands = 0;
  uint32_t runs = 1;
  uint64_t seed = 1;
  uint32_t latency_every = 16;
  int cpu = -1;
  bool json = false;
  bool smoke = false;
  bool quiet = false;
};

void Progress(const EngineArgs& args, const char* format,
              const std::string& name, double value) {
  if (args.quiet) return;
  std::fprintf(stderr, format, name.c_str(), value);
  std::fflush(stderr);
}

bool PinToCpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

int RunEngine(const EngineArgs& args) {
  if (args.cpu >= 0 && !PinToCpu(args.cpu)) {
    std::fprintf(stderr, "cfx-bench: cannot pin to cpu %d\n", args.cpu);
    return 1;
  }
  std::vector<WorkloadKind> kinds;
  for (WorkloadKind k : kAllWorkloads) {
    if (args.workload == "all" || args.workload == WorkloadName(k))
      kinds.push_back(k);
  }

  ReportContext ctx;
  ctx.seed = args.seed;
  ctx.latency_every = args.latency_every;
  ctx.clock_overhead_ns = MeasureClockOverheadNanos();
  if (!args.json) {
    std::printf("cfx-bench engine: seed %llu, %u run%s per workload%s\n\n",
                static_cast<unsigned long long>(args.seed), args.runs,
                args.runs == 1 ? "" : "s", args.smoke ? ", smoke sizes" : "");
  }

  WorkloadOptions wopt;
  wopt.commands = args.commands;
  wopt.seed = args.seed;
  wopt.smoke = args.smoke;
  RunOptions ropt;
  ropt.latency_every = args.latency_every;
  ropt.seed = args.seed;

  bool ok = true;
  for (WorkloadKind kind : kinds) {
    const std::string name(WorkloadName(kind));
    const auto t0 = std::chrono::steady_clock::now();
    Result<Workload> made = MakeWorkload(kind, wopt);
    if (!made.has_value()) {
      std::fprintf(stderr, "cfx-bench: %s: %s\n", name.c_str(),
                   made.error().ToString().c_str());
      ok = false;
      continue;
    }
    const Workload& w = made.value();
    Progress(
        args, "cfx-bench: %s: generated in %.2f s\n", name,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
    std::vector<RunResult> runs;
    runs.reserve(args.runs);
    for (uint32_t i = 0; i < args.runs; ++i) {
      Result<RunResult> r = RunWorkload(w, ropt);
      if (!r.has_value()) {
        std::fprintf(stderr, "cfx-bench: %s: %s\n", name.c_str(),
                     r.error().ToString().c_str());
        return 1;
      }
      runs.push_back(std::move(r).value());
      Progress(args, "cfx-bench: %s: run done, %.2f M/s\n", name,
               static_cast<double>(w.timed.size()) /
                   runs.back().throughput.seconds / 1e6);
    }
    const WorkloadSummary s = Summarize(w, runs);
    if (args.json) {
      PrintJson(stdout, w, runs, s, ctx);
    } else {
      PrintHuman(stdout, w, runs, s, ctx);
    }
    std::fflush(stdout);
    if (!s.problems.empty()) ok = false;
  }
  return ok ? 0 : 1;
}

struct JournalArgs {
  JournalBenchOptions options;
  uint32_t runs = 1;
  bool json = false;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int RunJournal(const JournalArgs& args) {
  std::vector<JournalBenchResult> runs;
  for (uint32_t i = 0; i < args.runs; ++i) {
    auto r = RunJournalBench(args.options);
    if (!r.has_value()) {
      std::fprintf(stderr, "cfx-bench journal: %s\n",
                   r.error().ToString().c_str());
      return 1;
    }
    runs.push_back(std::move(r).value());
  }
  std::vector<double> durable, replay, restart;
  for (const auto& r : runs) {
    durable.push_back(r.durable_per_s);
    replay.push_back(r.replay_per_s);
    restart.push_back(r.restart_seconds);
  }
  // The run with the median durable throughput supplies the latency figures.
  std::size_t mid = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].durable_per_s == Median(durable)) mid = i;
  }
  const JournalBenchResult& m = runs[mid];
  bool ok = true;
  for (const auto& r : runs) ok = ok && r.hashes_match;
  const LatencyHistogram& h = m.durable_latency;
  auto list = [](const std::vector<double>& v, double scale, const char* fmt) {
    std::string out;
    char buf[32];
    for (double x : v) {
      std::snprintf(buf, sizeof buf, fmt, x * scale);
      out += (out.empty() ? "" : " ") + std::string(buf);
    }
    return out;
  };
  if (args.json) {
    std::printf(
        "{\"workload\":\"journal\",\"commands\":%llu,\"runs\":%u,\"seed\":%llu,"
        "\"throughput_per_s\":%.0f,\"latency_ns\":{\"p50\":%llu,\"p99\":%llu,"
        "\"p999\":%llu,\"max\":%llu},\"latency_kind\":\"submit_to_durable\","
        "\"offered_per_s\":%llu,"
        "\"journal_writes\":%llu,\"commands_per_write\":%.1f,"
        "\"replay_per_s\":%.0f,\"restart_seconds\":%.3f,"
        "\"restart_snapshot_seq\":%llu,\"restart_replayed\":%llu,"
        "\"journal_bytes\":%llu,\"fsync_ns\":{\"p50\":%llu,\"p99\":%llu,"
        "\"max\":%llu},"
        "\"verified\":%s}\n",
        static_cast<unsigned long long>(m.commands), args.runs,
        static_cast<unsigned long long>(args.options.seed), Median(durable),
        static_cast<unsigned long long>(h.Percentile(0.50)),
        static_cast<unsigned long long>(h.Percentile(0.99)),
        static_cast<unsigned long long>(h.Percentile(0.999)),
        static_cast<unsigned long long>(h.max()),
        static_cast<unsigned long long>(args.options.offered_rate),
        static_cast<unsigned long long>(m.journal_writes),
        static_cast<double>(m.commands) / static_cast<double>(m.journal_writes),
        Median(replay), Median(restart),
        static_cast<unsigned long long>(m.restart_snapshot_seq),
        static_cast<unsigned long long>(m.restart_replayed),
        static_cast<unsigned long long>(m.live_file_bytes),
        static_cast<unsigned long long>(m.fsync_latency.Percentile(0.50)),
        static_cast<unsigned long long>(m.fsync_latency.Percentile(0.99)),
        static_cast<unsigned long long>(m.fsync_latency.max()),
        ok ? "true" : "false");
  } else {
    std::printf(
        "journal: standard workload through sequencer + synced RocksDB journal "
        "+ engine\n");
    std::printf("  commands       %llu per run, %u run%s\n",
                static_cast<unsigned long long>(m.commands), args.runs,
                args.runs == 1 ? "" : "s");
    std::printf("  durable        %.0f k cmds/s (median; runs: %s k/s)\n",
                Median(durable) / 1e3, list(durable, 1e-3, "%.0f").c_str());
    std::printf(
        "  group commit   %llu synced writes, %.1f commands per write\n",
        static_cast<unsigned long long>(m.journal_writes),
        static_cast<double>(m.commands) /
            static_cast<double>(m.journal_writes));
    std::printf(
        "  to durable     p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  max %.3f "
        "ms\n"
        "                 at %llu cmds/s offered (achieved %.0f/s, %.1f "
        "commands per write):\n"
        "                 scheduled push into the gateway ring until "
        "durable_seq covers\n"
        "                 it; 1 command in %u over %llu commands\n",
        static_cast<double>(h.Percentile(0.50)) / 1e6,
        static_cast<double>(h.Percentile(0.99)) / 1e6,
        static_cast<double>(h.Percentile(0.999)) / 1e6,
        static_cast<double>(h.max()) / 1e6,
        static_cast<unsigned long long>(args.options.offered_rate),
        m.latency_achieved_per_s,
        static_cast<double>(m.latency_commands) /
            static_cast<double>(std::max<uint64_t>(1, m.latency_writes)),
        args.options.latency_every,
        static_cast<unsigned long long>(m.latency_commands));
    const LatencyHistogram& f = m.fsync_latency;
    std::printf(
        "  device fsync   p50 %.3f ms  p99 %.3f ms  max %.3f ms (10 KB write + "
        "fdatasync,\n"
        "                 same directory, same run: the floor under the "
        "figures above)\n",
        static_cast<double>(f.Percentile(0.50)) / 1e6,
        static_cast<double>(f.Percentile(0.99)) / 1e6,
        static_cast<double>(f.max()) / 1e6);
    std::printf(
        "  replay         %.2f M cmds/s from seq 1 (median; runs: %s M/s)\n",
        Median(replay) / 1e6, list(replay, 1e-6, "%.2f").c_str());
    std::printf(
        "  restart        %.3f s to the first acknowledged order (median; "
        "runs: %s s)\n"
        "                 after a crash: snapshot at seq %llu + %llu commands "
        "replayed\n",
        Median(restart), list(restart, 1, "%.3f").c_str(),
        static_cast<unsigned long long>(m.restart_snapshot_seq),
        static_cast<unsigned long long>(m.restart_replayed));
    std::printf("  journal        %.1f MB in table files\n",
                static_cast<double>(m.live_file_bytes) / 1e6);
    std::printf("  verified       %s\n",
                ok ? "replayed and restarted state equal the run's"
                   : "STATE HASH MISMATCH");
  }
  return ok ? 0 : 1;
}

struct IndexArgs {
  IndexBenchOptions options;
  bool json = false;
};

int RunIndex(const IndexArgs& args) {
  Result<IndexBenchResult> r = RunIndexBench(args.options);
  if (!r.has_value()) {
    std::fprintf(stderr, "cfx-bench index: %s\n", r.error().ToString().c_str());
    return 1;
  }
  (args.json ? PrintIndexJson : PrintIndexHuman)(stdout, args.options,
                                                 r.value());
  return r.value().problems.empty() ? 0 : 1;
}

struct SettleArgs {
  SettleBenchOptions options;
  bool json = false;
};

int RunSettle(const SettleArgs& args) {
  Result<SettleBenchResult> r = RunSettleBench(args.options);
  if (!r.has_value()) {
    std::fprintf(stderr, "cfx-bench settle: %s\n",
                 r.error().ToString().c_str());
    return 1;
  }
  (args.json ? PrintSettleJson : PrintSettleHuman)(stdout, args.options,
                                                   r.value());
  return r.value().problems.empty() ? 0 : 1;
}

// The command line of a benchmark that runs `runs` times and reports
// medians (`gateway`, `fix`).
template <typename Options>
struct RepeatedArgs {
  Options options;
  uint32_t runs = 3;  // smoke: 1 unless given
  bool runs_given = false;
  bool json = false;
};

// Calls run(options, i) for each of the args.runs runs, with a progress
// line "cfx-bench <command>: run <i>: <progress(result)>" after each unless
// quiet, then prints the runs (print_json or print_human) on stdout. 1 when
// a run failed or passed(result) is false for one, else 0.
template <typename R, typename Options, typename Run, typename Line,
          typename Passed>
int RunRepeated(const char* command, const RepeatedArgs<Options>& args, Run run,
                Line progress,
                void (*print_human)(std::FILE*, const Options&,
                                    const std::vector<R>&),
                void (*print_json)(std::FILE*, const Options&,
                                   const std::vector<R>&),
                Passed passed) {
  const Options& o = args.options;
  std::vector<R> runs;
  for (uint32_t i = 0; i < args.runs; ++i) {
    Result<R> r = run(o, i);
    if (!r.has_value()) {
      std::fprintf(stderr, "cfx-bench %s: %s\n", command,
                   r.error().ToString().c_str());
      return 1;
    }
    runs.push_back(std::move(r).value());
    if (!o.quiet) {
      std::fprintf(stderr, "cfx-bench %s: run %u: %s\n", command, i + 1,
                   progress(runs.back()).c_str());
    }
  }
  (args.json ? print_json : print_human)(stdout, o, runs);
  for (const R& r : runs) {
    if (!passed(r)) return 1;
  }
  return 0;
}

using GatewayArgs = RepeatedArgs<GatewayBenchOptions>;

// `cfx-bench gateway --tls`: each run over plaintext and over TLS, one
// after the other on fresh servers, the first of the pair alternating so
// that neither is always measured on the warmer machine.
int RunGatewayTls(const GatewayArgs& args) {
  GatewayBenchOptions plain_options = args.options;
  plain_options.tls = false;
  GatewayBenchOptions tls_options = args.options;
  tls_options.tls = true;
  std::vector<GatewayBenchResult> plain, tls;
  bool ok = true;
  for (uint32_t i = 0; i < args.runs; ++i) {
    for (int half = 0; half < 2; ++half) {
      const bool over_tls = (half == 0) == (i % 2 == 1);
      Result<GatewayBenchResult> r =
          RunGatewayBench(over_tls ? tls_options : plain_options);
      if (!r.has_value()) {
        std::fprintf(stderr, "cfx-bench gateway --tls: %s\n",
                     r.error().ToString().c_str());
        return 1;
      }
      ok = ok && r.value().problems.empty();
      if (!args.options.quiet) {
        std::fprintf(stderr, "cfx-bench gateway: run %u %s: %.1f k orders/s\n",
                     i + 1, over_tls ? "TLS" : "plaintext",
                     r.value().throughput.orders_per_s / 1e3);
      }
      (over_tls ? tls : plain).push_back(std::move(r).value());
    }
  }
  (args.json ? PrintGatewayTlsJson : PrintGatewayTlsHuman)(
      stdout, args.options, plain, tls);
  return ok ? 0 : 1;
}

int RunGateway(GatewayArgs args) {
  GatewayBenchOptions& o = args.options;
  if (o.smoke) {
    if (!args.runs_given) args.runs = 1;
    o.seconds = std::min(o.seconds, 0.3);
    o.warmup_seconds = std::min(o.warmup_seconds, 0.1);
    o.offered_rate = std::min<uint64_t>(o.offered_rate, 5'000);
  }
  if (o.tls) return RunGatewayTls(args);
  return RunRepeated(
      "gateway", args,
      [](const GatewayBenchOptions& options, uint32_t) {
        return RunGatewayBench(options);
      },
      [](const GatewayBenchResult& r) {
        char line[128];
        std::snprintf(line, sizeof line, "%.1f k orders/s, p99 %.3f ms",
                      r.throughput.orders_per_s / 1e3,
                      static_cast<double>(r.latency.Percentile(0.99)) / 1e6);
        return std::string(line);
      },
      PrintGatewayHuman, PrintGatewayJson,
      [](const GatewayBenchResult& r) { return r.problems.empty(); });
}

using FixArgs = RepeatedArgs<FixBenchOptions>;

int RunFix(FixArgs args) {
  FixBenchOptions& o = args.options;
  if (o.smoke) {
    if (!args.runs_given) args.runs = 1;
    o.orders = std::min<uint64_t>(o.orders, 2'000);
    o.warmup_orders = std::min<uint64_t>(o.warmup_orders, 200);
    o.seconds = std::min(o.seconds, 0.3);
    o.warmup_seconds = std::min(o.warmup_seconds, 0.1);
    o.offered_rate = std::min<uint64_t>(o.offered_rate, 2'000);
  }
  return RunRepeated(
      "fix", args, RunFixBench,
      [](const FixBenchResult& r) {
        char line[128];
        std::snprintf(
            line, sizeof line,
            "gateway %.1f k orders/s, bare %.1f k orders/s, ratio %.2f",
            r.gateway.throughput.orders_per_s / 1e3,
            r.bare.throughput.orders_per_s / 1e3, r.ratio());
        return std::string(line);
      },
      PrintFixHuman, PrintFixJson,
      [](const FixBenchResult& r) {
        return r.gateway.problems.empty() && r.bare.problems.empty() &&
               r.gateway_tls.problems.empty();
      });
}

}  // namespace
}  // namespace cfx::bench

int main(int argc, char** argv) {
  using cfx::bench::EngineArgs;
  CLI::App app{"cfx-bench: benchmarks for the CFX exchange"};
  app.require_subcommand(1);

  EngineArgs args;
  CLI::App* engine = app.add_subcommand(
      "engine",
      "Replay pre-generated command streams through the matching engine and "
      "report throughput and sampled per-command latency");
  engine->add_option("--workload", args.workload, "Workload to run")
      ->check(CLI::IsMember({"standard", "deep", "liquibook-inserts", "all"}))
      ->capture_default_str();
  engine
      ->add_option("--commands", args.commands,
                   "Timed commands per workload (default: standard 10M, "
                   "deep 2M, liquibook-inserts 5M)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  engine
      ->add_option("--runs", args.runs,
                   "Runs per workload; the median throughput is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  engine->add_option("--seed", args.seed, "Seed of the generated streams")
      ->capture_default_str();
  engine
      ->add_option("--latency-every", args.latency_every,
                   "Time one command in N on average in the latency pass "
                   "(0 = no latency pass)")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  engine->add_option("--cpu", args.cpu, "Pin the process to this CPU")
      ->check(CLI::NonNegativeNumber);
  engine->add_flag("--json", args.json,
                   "One JSON object per workload per line");
  engine->add_flag(
      "--smoke", args.smoke,
      "Tiny sizes (20k commands each): a quick check that the tool works");
  engine->add_flag("-q,--quiet", args.quiet, "No progress lines on stderr");

  cfx::bench::JournalArgs jargs;
  CLI::App* journal = app.add_subcommand(
      "journal",
      "Durable throughput and submit-to-durable latency of sequencer + "
      "journal + engine, then replay speed and restart time");
  journal
      ->add_option("--commands", jargs.options.commands,
                   "Commands per run (default 10M; smoke 20k)")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{1} << 30));
  journal->add_option("--runs", jargs.runs, "Runs; medians are reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  journal->add_option("--seed", jargs.options.seed, "Seed of the workload")
      ->capture_default_str();
  journal->add_option(
      "--dir", jargs.options.dir,
      "Parent of the temporary journal directory (default $TMPDIR or /tmp)");
  journal
      ->add_option("--rate", jargs.options.offered_rate,
                   "Offered commands/s in the latency phase")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{100'000'000}))
      ->capture_default_str();
  journal
      ->add_option("--snapshot-every", jargs.options.snapshot_every,
                   "Shard snapshot interval in commands")
      ->capture_default_str();
  journal->add_flag("--json", jargs.json, "One JSON object per run set");
  journal->add_flag("--smoke", jargs.options.smoke,
                    "20k commands: a quick check");
  journal->add_flag("-q,--quiet", jargs.options.quiet,
                    "No progress lines on stderr");

  cfx::bench::GatewayArgs gargs;
  CLI::App* gateway = app.add_subcommand(
      "gateway",
      "Orders/s and order-to-ack latency through the protobuf gateway of an "
      "in-process exchange (loopback, durable journal), and where its CPU "
      "goes");
  gateway
      ->add_option("--connections", gargs.options.connections,
                   "Connections, each a user with its own account")
      ->check(CLI::Range(1, 200))
      ->capture_default_str();
  gateway
      ->add_option("--seconds", gargs.options.seconds,
                   "Measured seconds per phase (smoke: 0.3)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  gateway
      ->add_option("--warmup", gargs.options.warmup_seconds,
                   "Unmeasured seconds before each phase (smoke: 0.1)")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  gateway
      ->add_option("--window", gargs.options.window,
                   "Throughput phase: un-acknowledged orders per connection")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  gateway
      ->add_option("--rate", gargs.options.offered_rate,
                   "Latency phase: orders/s offered across all connections "
                   "(smoke: at most 5,000)")
      ->check(CLI::Range(uint64_t{100}, uint64_t{10'000'000}))
      ->capture_default_str();
  gateway
      ->add_option("--runs", gargs.runs,
                   "Runs; medians are reported (smoke: 1)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  gateway->add_option(
      "--dir", gargs.options.dir,
      "Parent of the temporary data directory (default $TMPDIR or /tmp)");
  gateway->add_flag("--json", gargs.json, "One JSON object per run set");
  gateway->add_flag(
      "--tls", gargs.options.tls,
      "Each run twice, over plaintext and over TLS (alternating which goes "
      "first), with a TLS handshake phase: the ratio and the handshake's "
      "cost");
  gateway->add_flag("--smoke", gargs.options.smoke,
                    "0.1 s warm-up + 0.3 s per phase: a quick check");
  gateway->add_flag("-q,--quiet", gargs.options.quiet,
                    "No progress lines on stderr");

  cfx::bench::FixArgs fargs;
  CLI::App* fix = app.add_subcommand(
      "fix",
      "Orders/s and order-to-ack latency through the FIX gateway of an "
      "in-process exchange, and in the same run the same load against a bare "
      "QuickFIX acceptor that only answers each order (target: >= 0.7 of its "
      "throughput)");
  fix->add_option("--sessions", fargs.options.sessions,
                  "FIX sessions, each a demo trader or provider")
      ->check(CLI::Range(1, 6))
      ->capture_default_str();
  fix->add_option("--orders", fargs.options.orders,
                  "Throughput phase: orders across the sessions (smoke: 2,000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}))
      ->capture_default_str();
  fix->add_option("--warmup-orders", fargs.options.warmup_orders,
                  "Unmeasured orders before the throughput phase (smoke: 200)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{100'000'000}))
      ->capture_default_str();
  fix->add_option("--window", fargs.options.window,
                  "Throughput phase: un-acknowledged orders per session")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  fix->add_option("--rate", fargs.options.offered_rate,
                  "Latency phase: orders/s offered across the sessions (smoke: "
                  "at most 2,000)")
      ->check(CLI::Range(uint64_t{10}, uint64_t{10'000'000}))
      ->capture_default_str();
  fix->add_option("--seconds", fargs.options.seconds,
                  "Latency phase: measured seconds (smoke: 0.3)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  fix->add_option("--warmup", fargs.options.warmup_seconds,
                  "Latency phase: unmeasured seconds first (smoke: 0.1)")
      ->check(CLI::Range(0.0, 600.0))
      ->capture_default_str();
  fix->add_option("--target", fargs.options.target,
                  "Run both targets, or one alone (for profiling; no ratio)")
      ->check(CLI::IsMember({"both", "gateway", "bare"}))
      ->capture_default_str();
  fix->add_option("--runs", fargs.runs,
                  "Runs, each against both targets; medians are reported "
                  "(smoke: 1)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  fix->add_option(
      "--dir", fargs.options.dir,
      "Parent of the temporary directory (default $TMPDIR or /tmp)");
  fix->add_flag("--json", fargs.json, "One JSON object per run set");
  fix->add_flag("--tls", fargs.options.tls,
                "The gateway target a second time over its TLS listener "
                "(gw-tls): the TLS/plaintext ratio and the handshake time");
  fix->add_flag(
      "--smoke", fargs.options.smoke,
      "2,000 orders + 0.4 s at 2,000/s per target, 1 run: a quick check");
  fix->add_flag("-q,--quiet", fargs.options.quiet,
                "No progress lines on stderr");

  cfx::bench::IndexArgs iargs;
  CLI::App* index_cmd = app.add_subcommand(
      "index",
      "Time the CFX index fixing of one day's spot trades in an in-memory "
      "index service (target: <= 0.5 s for 1M trades) and the cost of taking "
      "in each trade");
  index_cmd
      ->add_option("--trades", iargs.options.trades,
                   "Spot trades of the fixed day (default 1M; smoke 20k)")
      ->check(CLI::Range(uint64_t{1000}, uint64_t{20'000'000}));
  index_cmd
      ->add_option("--runs", iargs.options.runs, "Runs; medians are reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  index_cmd->add_option("--seed", iargs.options.seed, "Seed of the workload")
      ->capture_default_str();
  index_cmd->add_flag("--json", iargs.json, "One JSON object per run set");
  index_cmd->add_flag("--smoke", iargs.options.smoke,
                      "20k trades: a quick check");
  index_cmd->add_flag("-q,--quiet", iargs.options.quiet,
                      "No progress lines on stderr");

  cfx::bench::SettleArgs sargs;
  CLI::App* settle_cmd = app.add_subcommand(
      "settle",
      "Time one business day's settlement of every account's futures "
      "positions in an in-memory settlement service (target: <= 2 s for 100k "
      "accounts x 12 contracts)");
  settle_cmd
      ->add_option("--accounts", sargs.options.accounts,
                   "Trading accounts (default 100k; smoke 2k)")
      ->check(CLI::Range(2u, 2'000'000u));
  settle_cmd
      ->add_option("--contracts", sargs.options.contracts,
                   "Consecutive monthly contracts of one root")
      ->check(CLI::Range(1u, 24u))
      ->capture_default_str();
  settle_cmd
      ->add_option("--runs", sargs.options.runs, "Runs; medians are reported")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  settle_cmd->add_option("--seed", sargs.options.seed, "Seed of the workload")
      ->capture_default_str();
  settle_cmd->add_flag("--json", sargs.json, "One JSON object per run set");
  settle_cmd->add_flag("--smoke", sargs.options.smoke,
                       "2k accounts: a quick check");
  settle_cmd->add_flag("-q,--quiet", sargs.options.quiet,
                       "No progress lines on stderr");

  cfx::bench::AbuseOptions aopt;
  std::string abuse_workload = "all";
  bool abuse_json = false;
  CLI::App* abuse_cmd = app.add_subcommand(
      "abuse",
      "What one participant's abuse costs the exchange or another "
      "participant: each workload measures the attack and a quiet baseline "
      "in the same run and reports both and their ratio");
  std::vector<std::string> abuse_names{"all"};
  std::string abuse_help = "Workload to run:";
  for (const cfx::bench::AbuseWorkload& w : cfx::bench::AbuseWorkloads()) {
    abuse_names.emplace_back(w.name);
    abuse_help += std::string(" ") + w.name + " (" + w.what + ");";
  }
  abuse_cmd->add_option("--workload", abuse_workload, abuse_help + " or all")
      ->check(CLI::IsMember(abuse_names))
      ->capture_default_str();
  abuse_cmd
      ->add_option("--runs", aopt.runs,
                   "Runs per workload; medians are reported (smoke: 1)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  abuse_cmd->add_option("--seed", aopt.seed, "Seed of the workloads")
      ->capture_default_str();
  abuse_cmd->add_option(
      "--dir", aopt.dir,
      "Parent of any temporary data directory (default $TMPDIR or /tmp)");
  abuse_cmd->add_flag("--json", abuse_json,
                      "One JSON object per workload per line");
  abuse_cmd->add_flag("--smoke", aopt.smoke,
                      "Small sizes, 1 run: a quick check");
  abuse_cmd->add_flag("-q,--quiet", aopt.quiet, "No progress lines on stderr");

  CLI11_PARSE(app, argc, argv);
  if (abuse_cmd->parsed()) {
    if (aopt.smoke && abuse_cmd->count("--runs") == 0) aopt.runs = 1;
    return cfx::bench::RunAbuse(abuse_workload, aopt, abuse_json);
  }
  if (settle_cmd->parsed()) return cfx::bench::RunSettle(sargs);
  if (engine->parsed()) return cfx::bench::RunEngine(args);
  if (journal->parsed()) return cfx::bench::RunJournal(jargs);
  if (index_cmd->parsed()) return cfx::bench::RunIndex(iargs);
  if (gateway->parsed()) {
    gargs.runs_given = gateway->count("--runs") > 0;
    return cfx::bench::RunGateway(gargs);
  }
  if (fix->parsed()) {
    fargs.runs_given = fix->count("--runs") > 0;
    return cfx::bench::RunFix(fargs);
  }
  return 0;
}
