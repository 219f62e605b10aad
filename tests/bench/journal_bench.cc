#include "tests/bench/journal_bench.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "exchange/clock.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"
#include "exchange/recovery.h"
#include "tests/bench/engine_workloads.h"
#include "tests/bench/scratch_dir.h"

namespace cfx::bench {
namespace {

using exchange::Command;
using exchange::Event;
using exchange::Pipeline;
using exchange::PipelineOptions;
using exchange::SpscRing;
using Clock = std::chrono::steady_clock;

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

void Progress(const JournalBenchOptions& o, const std::string& line) {
  if (!o.quiet) std::fprintf(stderr, "cfx-bench journal: %s\n", line.c_str());
}

void DiscardEvents(void*, const Event*, std::size_t) {}

struct DurableRun {
  double seconds = 0;
  uint64_t journal_writes = 0;
  uint64_t live_file_bytes = 0;
  uint64_t state_hash = 0;
  LatencyHistogram latency;
};

// Pushes cmds[0, n) through a fresh pipeline in options.data_dir. With
// `rate` > 0 the producer offers commands on a fixed schedule (open loop)
// and a command's latency runs from its scheduled time, so queueing behind
// a slow write is counted; `every` > 0 samples one command in `every`.
Status RunDurable(const exchange::EngineConfig& config,
                  const PipelineOptions& options,
                  const std::vector<Command>& cmds, uint64_t n, uint64_t rate,
                  uint32_t every, DurableRun* out) {
  exchange::SimulatedClock clock(
      exchange::Timestamp{1'800'000'000'000'000'000});
  auto opened = Pipeline::Open(config, options, clock);
  if (!opened.has_value()) return opened.error();
  Pipeline& p = *opened.value();
  SpscRing<Command>* ring = p.AddProducer(1 << 16);
  std::vector<int64_t> submitted(every == 0 ? 0 : n / every + 1, 0);
  p.Start();
  const int64_t start = NowNanos();
  int64_t end = 0;
  std::thread egress([&] {
    exchange::BackoffIdle idle;
    uint64_t seen = 0;
    while (true) {
      const uint64_t durable = p.durable_seq().value;
      if (durable > seen) {
        const int64_t now = NowNanos();
        if (every != 0) {
          // Seq s is the command at position s - 1.
          for (uint64_t pos = (seen + every - 1) / every * every; pos < durable;
               pos += every) {
            out->latency.Record(
                static_cast<uint64_t>(now - submitted[pos / every]));
          }
        }
        seen = durable;
        if (seen == n) end = now;
      }
      const std::size_t k = p.PollDurableEvents([](const Event&) {});
      if (seen == n && k == 0) break;
      idle.Idle(static_cast<int>(k));
    }
  });
  exchange::BackoffIdle idle;
  const double per_ns = static_cast<double>(rate) / 1e9;
  for (uint64_t i = 0; i < n;) {
    // Paced: every command whose scheduled time has passed is pushed, then
    // the producer sleeps briefly, as a gateway thread would between reads.
    uint64_t due = n;
    if (rate != 0) {
      due = std::min<uint64_t>(
          n, static_cast<uint64_t>(static_cast<double>(NowNanos() - start) *
                                   per_ns) +
                 1);
      if (i >= due) {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        continue;
      }
    }
    if (every != 0 && i % every == 0) {
      submitted[i / every] =
          rate != 0
              ? start + static_cast<int64_t>(static_cast<double>(i) / per_ns)
              : NowNanos();
    }
    if (ring->TryPush(cmds[i])) {
      ++i;
      if (i % 1'000'000 == 0) clock.Advance(1'000'000'000);
    } else {
      idle.Idle(0);
    }
  }
  egress.join();
  out->seconds = static_cast<double>(end - start) / 1e9;
  out->journal_writes = p.journal_writes();
  CFX_RETURN_IF_ERROR(p.Stop());
  out->state_hash = p.engine().StateHash();
  auto stats = p.journal().Stats();
  if (stats.has_value()) out->live_file_bytes = stats.value().live_file_bytes;
  return Status::Ok();
}

}  // namespace

Result<JournalBenchResult> RunJournalBench(const JournalBenchOptions& o) {
  JournalBenchResult r;
  WorkloadOptions wo;
  wo.commands = o.commands != 0 ? o.commands : (o.smoke ? 20'000 : 10'000'000);
  wo.seed = o.seed;
  wo.smoke = o.smoke;
  Progress(o, "generating " + std::to_string(wo.commands) + " commands");
  auto made = MakeWorkload(WorkloadKind::kStandard, wo);
  if (!made.has_value()) return made.error();
  const Workload& w = made.value();
  std::vector<Command> cmds;
  cmds.reserve(w.warmup.size() + w.timed.size());
  cmds.insert(cmds.end(), w.warmup.begin(), w.warmup.end());
  cmds.insert(cmds.end(), w.timed.begin(), w.timed.end());
  r.commands = cmds.size();

  auto scratch = ScratchDir::Create(o.dir, "cfx-bench-journal");
  if (!scratch.has_value()) return scratch.error();
  const std::string& dir = scratch.value()->path();

  exchange::SimulatedClock clock(
      exchange::Timestamp{1'800'000'000'000'000'000});
  PipelineOptions po;
  po.data_dir = dir + "/data";
  po.shard.snapshot_every = o.snapshot_every;
  po.timers = false;
  po.snapshot_on_stop = false;  // phase 3 restarts as after a crash

  // Phase 0: the device's own synced-write latency, the floor under any
  // command-to-durable figure: 10 KB appends + fdatasync to a plain file.
  {
    const std::string path = dir + "/fsync-probe";
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return InternalError("cannot create " + path);
    std::string block(10'000, 'x');
    const int n = o.smoke ? 200 : 2'000;
    for (int i = 0; i < n; ++i) {
      const int64_t t0 = NowNanos();
      if (write(fd, block.data(), block.size()) !=
              static_cast<ssize_t>(block.size()) ||
          fdatasync(fd) != 0) {
        close(fd);
        return InternalError("write/fdatasync failed on " + path);
      }
      r.fsync_latency.Record(static_cast<uint64_t>(NowNanos() - t0));
    }
    close(fd);
  }

  // Phase 1: latency at a fixed offered rate, in a journal of its own. It
  // runs first, on a quiet disk: after the throughput phase the kernel
  // spends tens of seconds writing back its hundreds of MB of table files,
  // and every fsync would queue behind that.
  {
    const uint64_t n = std::min<uint64_t>(
        cmds.size(), static_cast<uint64_t>(o.offered_rate) * (o.smoke ? 1 : 5));
    Progress(o, "latency phase: " + std::to_string(n) + " commands at " +
                    std::to_string(o.offered_rate) + "/s offered");
    PipelineOptions lo = po;
    lo.data_dir = dir + "/latency";
    DurableRun run;
    CFX_RETURN_IF_ERROR(RunDurable(w.config, lo, cmds, n, o.offered_rate,
                                   o.latency_every == 0 ? 1 : o.latency_every,
                                   &run));
    r.durable_latency = run.latency;
    r.latency_commands = n;
    r.latency_writes = run.journal_writes;
    r.latency_achieved_per_s = static_cast<double>(n) / run.seconds;
  }

  // Phase 2: durable throughput, with the producer unpaced.
  uint64_t run_hash = 0;
  {
    Progress(o, "durable phase: " + std::to_string(cmds.size()) +
                    " commands, unpaced");
    DurableRun run;
    CFX_RETURN_IF_ERROR(
        RunDurable(w.config, po, cmds, cmds.size(), 0, 0, &run));
    r.durable_seconds = run.seconds;
    r.durable_per_s = static_cast<double>(cmds.size()) / run.seconds;
    r.journal_writes = run.journal_writes;
    r.live_file_bytes = run.live_file_bytes;
    run_hash = run.state_hash;
  }

  // Phase 3: full replay from seq 1.
  {
    Progress(o, "replay phase");
    exchange::JournalOptions jo;
    jo.create_if_missing = false;
    jo.read_only = true;
    auto journal = exchange::Journal::Open(po.data_dir, jo);
    if (!journal.has_value()) return journal.error();
    auto engine = exchange::Engine::Create(w.config);
    if (!engine.has_value()) return engine.error();
    // The journal's table seed, as recovery sets it: it is in the hash.
    const Status seeded =
        exchange::SeedEngine(*journal.value(), *engine.value());
    if (!seeded.ok()) return seeded;
    exchange::Event buffer[256];
    exchange::EventSink sink(buffer, 256, &DiscardEvents, nullptr);
    const auto t0 = Clock::now();
    const Status st =
        journal.value()->Replay(exchange::Seq{}, [&](const Command& c) {
          engine.value()->Apply(c, sink);
          return Status::Ok();
        });
    if (!st.ok()) return st;
    r.replay_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.replay_per_s = static_cast<double>(r.commands) / r.replay_seconds;
    r.hashes_match = engine.value()->StateHash() == run_hash;
  }

  // Phase 4: restart as after a crash, until one new order is acknowledged.
  {
    Progress(o, "restart phase");
    const auto t0 = Clock::now();
    auto opened = Pipeline::Open(w.config, po, clock);
    if (!opened.has_value()) return opened.error();
    Pipeline& p = *opened.value();
    SpscRing<Command>* ring = p.AddProducer(16);
    p.Start();
    // The first new order of the stream, sent again: a real order whose
    // result (accepted or rejected) is the acknowledgement.
    Command probe;
    for (const Command& c : cmds) {
      if (c.type == exchange::CommandType::kNewOrder) {
        probe = c;
        break;
      }
    }
    probe.seq = exchange::Seq{};
    ring->TryPush(probe);
    bool acked = false;
    exchange::BackoffIdle idle;
    while (!acked) {
      idle.Idle(static_cast<int>(p.PollDurableEvents([&](const Event& e) {
        if (exchange::IsResult(e.type)) acked = true;
      })));
    }
    r.restart_seconds =
        std::chrono::duration<double>(Clock::now() - t0).count();
    r.restart_snapshot_seq = p.recovery().snapshot_seq.value;
    r.restart_replayed = p.recovery().replayed;
    r.hashes_match = r.hashes_match && p.recovery().state_hash == run_hash;
    const Status st = p.Stop();
    if (!st.ok()) return st;
  }
  return r;
}

}  // namespace cfx::bench
