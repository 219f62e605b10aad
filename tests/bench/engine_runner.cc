#include "tests/bench/engine_runner.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine.h"
#include "tests/bench/rng.h"

// Optional: lets `valgrind --tool=callgrind --collect-atstart=no` count the
// timed loop of the throughput pass only (Debian's valgrind package ships
// the header). A handful of instructions per pass when not under valgrind.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CFX_BENCH_HAVE_CALLGRIND 1
#endif

namespace cfx::bench {
namespace {

using exchange::Command;
using exchange::Engine;
using exchange::Event;
using exchange::EventSink;
using exchange::Side;
using Clock = std::chrono::steady_clock;

// 32 KiB of events: small enough to stay in cache, and far more than any
// single command of these workloads emits (a sweep is a few dozen events),
// so in the latency pass a sampled command never pays for a flush.
constexpr std::size_t kSinkCapacity = 256;

// The sink's flush target: counts events by type. No allocation.
struct EventCounter {
  EventCounts counts;

  static void Flush(void* context, const Event* events, std::size_t n) {
    auto& by_type = static_cast<EventCounter*>(context)->counts.by_type;
    for (std::size_t i = 0; i < n; ++i) {
      ++by_type[static_cast<uint8_t>(events[i].type) & 31u];
    }
  }
};

void ToggleCallgrindCollect() {
#ifdef CFX_BENCH_HAVE_CALLGRIND
  CALLGRIND_TOGGLE_COLLECT;
#endif
}

// CPU time of the calling thread, in seconds (not a hot-path call).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

uint64_t CountLevels(const Engine& engine,
                     const exchange::EngineConfig& config) {
  uint64_t levels = 0;
  for (const exchange::InstrumentConfig& ic : config.instruments) {
    for (Side side : {Side::kBuy, Side::kSell}) {
      for (int64_t p = ic.tick.units; p <= ic.max_price.units;
           p += ic.tick.units) {
        if (engine.level_quantity(ic.id, side, exchange::Price{p}).lots != 0) {
          ++levels;
        }
      }
    }
  }
  return levels;
}

template <bool kSampleLatency>
Status RunPass(const Workload& w, const RunOptions& options, PassResult& r,
               LatencyHistogram* histogram) {
  auto created = Engine::Create(w.config);
  if (!created.has_value()) return created.error();
  const std::unique_ptr<Engine> engine = std::move(created).value();
  Engine& e = *engine;

  std::vector<Event> buffer(kSinkCapacity);
  EventCounter counter;
  EventSink sink(buffer.data(), buffer.size(), &EventCounter::Flush, &counter);

  uint64_t seq = 0;
  for (const Command& c : w.warmup) {
    Command x = c;
    Stamp(x, ++seq);
    e.Apply(x, sink);
  }
  sink.Flush();
  r.warmup_events = counter.counts;
  counter.counts = EventCounts{};

  const Command* const cmds = w.timed.data();
  const std::size_t n = w.timed.size();
  const double cpu_start = ThreadCpuSeconds();
  const Clock::time_point start = Clock::now();
  if constexpr (!kSampleLatency) {
    ToggleCallgrindCollect();
    // As the shard runner does: stamped chunks through ApplyBatch().
    constexpr std::size_t kChunk = 64;
    Command chunk[kChunk];
    for (std::size_t i = 0; i < n; i += kChunk) {
      const std::size_t m = std::min(kChunk, n - i);
      for (std::size_t j = 0; j < m; ++j) {
        chunk[j] = cmds[i + j];
        Stamp(chunk[j], seq + 1 + i + j);
      }
      e.ApplyBatch(chunk, m, sink);
    }
    sink.Flush();
    ToggleCallgrindCollect();
  } else {
    Rng rng(options.seed);
    const uint64_t span = 2 * uint64_t{options.latency_every} - 1;
    std::size_t next = rng.Uniform(span);
    for (std::size_t i = 0; i < n; ++i) {
      Command x = cmds[i];
      Stamp(x, seq + 1 + i);
      if (i != next) {
        e.Apply(x, sink);
        continue;
      }
      sink.Flush();
      const Clock::time_point t0 = Clock::now();
      e.Apply(x, sink);
      const Clock::time_point t1 = Clock::now();
      histogram->Record(Nanos(t1 - t0));
      next = i + 1 + rng.Uniform(span);
    }
  }
  sink.Flush();
  const Clock::time_point end = Clock::now();
  const double cpu_end = ThreadCpuSeconds();

  r.seconds = std::chrono::duration<double>(end - start).count();
  r.cpu_seconds = cpu_end - cpu_start;
  r.timed_events = counter.counts;
  r.state_hash = e.StateHash();
  r.resting_orders = e.resting_orders();
  r.levels = CountLevels(e, w.config);
  return Status::Ok();
}

}  // namespace

uint64_t EventCounts::total() const {
  uint64_t sum = 0;
  for (uint64_t c : by_type) sum += c;
  return sum;
}

Result<RunResult> RunWorkload(const Workload& w, const RunOptions& options) {
  RunResult r;
  Status s = RunPass<false>(w, options, r.throughput, nullptr);
  if (!s.ok()) return s;
  if (options.latency_every != 0) {
    r.has_latency = true;
    s = RunPass<true>(w, options, r.latency_pass, &r.latency);
    if (!s.ok()) return s;
  }
  return r;
}

uint64_t MeasureClockOverheadNanos() {
  LatencyHistogram h;
  for (int i = 0; i < 100'000; ++i) {
    const Clock::time_point t0 = Clock::now();
    const Clock::time_point t1 = Clock::now();
    h.Record(Nanos(t1 - t0));
  }
  return h.Percentile(0.5);
}

}  // namespace cfx::bench
