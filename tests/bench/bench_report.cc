#include "tests/bench/bench_report.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "tests/bench/text.h"

namespace cfx::bench {
namespace {

using exchange::EventType;

std::string FormatNanos(uint64_t ns) {
  char buf[32];
  if (ns < 1'000) {
    std::snprintf(buf, sizeof buf, "%llu ns",
                  static_cast<unsigned long long>(ns));
  } else if (ns < 1'000'000) {
    std::snprintf(buf, sizeof buf, "%.2f us", static_cast<double>(ns) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f ms", static_cast<double>(ns) / 1e6);
  }
  return buf;
}

double Percent(uint64_t part, uint64_t whole) {
  return whole == 0
             ? 0.0
             : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

uint64_t Rejects(const PassResult& p) {
  return p.warmup_events.of(EventType::kRejected) +
         p.timed_events.of(EventType::kRejected);
}

uint64_t Trades(const PassResult& p) {
  return p.warmup_events.of(EventType::kTrade) +
         p.timed_events.of(EventType::kTrade);
}

void Check(const Workload& w, const PassResult& p, const PassResult& first,
           const std::string& label, std::vector<std::string>& problems) {
  if (const uint64_t r = Rejects(p); r != 0) {
    problems.push_back(label + ": " + std::to_string(r) + " rejected commands");
  }
  if (p.state_hash != first.state_hash || Trades(p) != Trades(first)) {
    problems.push_back(label +
                       ": state hash or trade count differs from run 1");
  }
  if (w.has_expected) {
    if (p.state_hash != w.expected_state_hash) {
      problems.push_back(label +
                         ": state hash differs from the generator's engine");
    }
    if (Trades(p) != w.expected_trades) {
      problems.push_back(label + ": " + std::to_string(Trades(p)) +
                         " trades, the generator's engine made " +
                         std::to_string(w.expected_trades));
    }
    if (p.resting_orders != w.expected_resting) {
      problems.push_back(label +
                         ": resting orders differ from the generator's engine");
    }
  }
}

const char* Unit(const Workload& w) {
  return w.kind == WorkloadKind::kLiquibookInserts ? "inserts" : "cmds";
}

}  // namespace

WorkloadSummary Summarize(const Workload& w,
                          const std::vector<RunResult>& runs) {
  WorkloadSummary s;
  const auto n = static_cast<double>(w.timed.size());
  for (const RunResult& r : runs) {
    s.throughputs.push_back(r.throughput.seconds > 0 ? n / r.throughput.seconds
                                                     : 0);
  }
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return s.throughputs[a] < s.throughputs[b];
  });
  if (!order.empty()) {
    const std::size_t m = order.size();
    s.median_run = order[(m - 1) / 2];
    s.median_throughput =
        m % 2 == 1
            ? s.throughputs[order[m / 2]]
            : (s.throughputs[order[m / 2 - 1]] + s.throughputs[order[m / 2]]) /
                  2;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string run = "run " + std::to_string(i + 1);
    Check(w, runs[i].throughput, runs[0].throughput, run + " throughput pass",
          s.problems);
    if (runs[i].has_latency) {
      Check(w, runs[i].latency_pass, runs[0].throughput, run + " latency pass",
            s.problems);
    }
  }
  return s;
}

void PrintHuman(std::FILE* out, const Workload& w,
                const std::vector<RunResult>& runs, const WorkloadSummary& s,
                const ReportContext& ctx) {
  const RunResult& mr = runs[s.median_run];
  const PassResult& p = mr.throughput;
  const uint64_t n = w.timed.size();
  const char* unit = Unit(w);

  std::fprintf(out, "%s: %s\n", w.name.c_str(), w.description.c_str());
  std::fprintf(out, "  commands       %s timed", WithCommas(n).c_str());
  if (!w.warmup.empty()) {
    std::fprintf(out, " (after %s untimed warm-up)",
                 WithCommas(w.warmup.size()).c_str());
  }
  std::fprintf(out, "\n");
  if (w.kind != WorkloadKind::kLiquibookInserts) {
    const CommandMix& m = w.mix;
    std::fprintf(
        out,
        "  mix            new %.1f%% (aggressive %.1f%%), cancel %.1f%%, "
        "replace %.1f%% (quantity down %.1f%%, price %.1f%%)\n",
        Percent(m.new_passive + m.new_aggressive, n),
        Percent(m.new_aggressive, n), Percent(m.cancels, n),
        Percent(m.replaces_quantity_down + m.replaces_price, n),
        Percent(m.replaces_quantity_down, n), Percent(m.replaces_price, n));
  }
  std::fprintf(out, "  throughput     %.2f M %s/s (median of %zu run%s:",
               s.median_throughput / 1e6, unit, runs.size(),
               runs.size() == 1 ? "" : "s");
  for (double t : s.throughputs) std::fprintf(out, " %.2f", t / 1e6);
  std::fprintf(out, ")\n");
  std::fprintf(
      out,
      "  seconds        %.3f (median run, timed part); on-CPU %.3f, "
      "i.e. %.2f M %s/s when not preempted\n",
      p.seconds, p.cpu_seconds,
      p.cpu_seconds > 0 ? static_cast<double>(n) / p.cpu_seconds / 1e6 : 0.0,
      unit);
  if (mr.has_latency) {
    const LatencyHistogram& h = mr.latency;
    std::fprintf(out, "  latency        p50 %s  p99 %s  p99.9 %s  max %s\n",
                 FormatNanos(h.Percentile(0.50)).c_str(),
                 FormatNanos(h.Percentile(0.99)).c_str(),
                 FormatNanos(h.Percentile(0.999)).c_str(),
                 FormatNanos(h.max()).c_str());
    std::fprintf(
        out,
        "                 (%s samples, ~1 command in %u timed alone with "
        "steady_clock in a separate pass of the median run; includes "
        "~%llu ns timer overhead)\n",
        WithCommas(h.count()).c_str(), ctx.latency_every,
        static_cast<unsigned long long>(ctx.clock_overhead_ns));
  } else {
    std::fprintf(out, "  latency        not measured (--latency-every 0)\n");
  }
  std::fprintf(out, "  trades         %s (%s events)\n",
               WithCommas(p.timed_events.of(EventType::kTrade)).c_str(),
               WithCommas(p.timed_events.total()).c_str());
  std::fprintf(out, "  resting at end %s orders on %s levels\n",
               WithCommas(p.resting_orders).c_str(),
               WithCommas(p.levels).c_str());
  const uint64_t stp = p.timed_events.of(EventType::kOrderCancelled);
  std::fprintf(out,
               "  rejects        %s; cancelled by the engine (IOC, STP): %s\n",
               WithCommas(Rejects(p)).c_str(), WithCommas(stp).c_str());
  if (s.problems.empty()) {
    std::fprintf(out,
                 "  verified       every pass: 0 rejects, same state hash and "
                 "trades%s\n",
                 w.has_expected ? " as the generator's engine" : "");
  } else {
    for (const std::string& problem : s.problems) {
      std::fprintf(out, "  FAILED         %s\n", problem.c_str());
    }
  }
  std::fprintf(out, "\n");
}

void PrintJson(std::FILE* out, const Workload& w,
               const std::vector<RunResult>& runs, const WorkloadSummary& s,
               const ReportContext& ctx) {
  const RunResult& mr = runs[s.median_run];
  const PassResult& p = mr.throughput;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::fprintf(
      out,
      "{\"workload\":\"%s\",\"commands\":%llu,\"warmup_commands\":%llu,"
      "\"runs\":%zu,\"seed\":%llu,\"throughput_per_s\":%.0f,"
      "\"throughput_runs_per_s\":[",
      w.name.c_str(), u(w.timed.size()), u(w.warmup.size()), runs.size(),
      u(ctx.seed), s.median_throughput);
  for (std::size_t i = 0; i < s.throughputs.size(); ++i) {
    std::fprintf(out, "%s%.0f", i == 0 ? "" : ",", s.throughputs[i]);
  }
  std::fprintf(out,
               "],\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"seconds_runs\":[",
               p.seconds, p.cpu_seconds);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::fprintf(out, "%s%.6f", i == 0 ? "" : ",", runs[i].throughput.seconds);
  }
  std::fprintf(out, "],\"latency_ns\":");
  if (mr.has_latency) {
    const LatencyHistogram& h = mr.latency;
    std::fprintf(
        out,
        "{\"p50\":%llu,\"p99\":%llu,\"p999\":%llu,\"max\":%llu,"
        "\"samples\":%llu,\"sample_every\":%u,\"timer_overhead\":%llu}",
        u(h.Percentile(0.50)), u(h.Percentile(0.99)), u(h.Percentile(0.999)),
        u(h.max()), u(h.count()), ctx.latency_every, u(ctx.clock_overhead_ns));
  } else {
    std::fprintf(out, "null");
  }
  const CommandMix& m = w.mix;
  std::fprintf(out,
               ",\"trades\":%llu,\"events\":%llu,\"rejects\":%llu,"
               "\"resting_orders_end\":%llu,\"levels_end\":%llu,"
               "\"mix\":{\"new_passive\":%llu,\"new_aggressive\":%llu,"
               "\"cancels\":%llu,\"replaces_quantity_down\":%llu,"
               "\"replaces_price\":%llu},\"verified\":%s}\n",
               u(p.timed_events.of(EventType::kTrade)),
               u(p.timed_events.total()), u(Rejects(p)), u(p.resting_orders),
               u(p.levels), u(m.new_passive), u(m.new_aggressive), u(m.cancels),
               u(m.replaces_quantity_down), u(m.replaces_price),
               s.problems.empty() ? "true" : "false");
}

}  // namespace cfx::bench
