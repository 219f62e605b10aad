// cfx-exchanged: the exchange server. Opens its data dir, recovers the
// engine from the newest snapshot plus the journal, and runs the sequencer
// and matching shard until SIGINT or SIGTERM, when it stops cleanly with a
// final snapshot.

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "exchange/clock.h"
#include "exchange/default_market.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"

namespace cfx::exchange {
namespace {

void Log(const std::string& line) {
  std::fprintf(stderr, "cfx-exchanged: %s\n", line.c_str());
  std::fflush(stderr);
}

int Run(int argc, char** argv) {
  CLI::App app{"CFX exchange server"};
  std::string data_dir = "var/cfx";
  std::string clock_kind = "wall";
  std::string start = "2026-12-01T00:00:00Z";
  uint64_t snapshot_every = 1'000'000;
  app.add_option("--data-dir", data_dir, "Journal and snapshot directory")
      ->capture_default_str();
  app.add_option("--clock", clock_kind,
                 "wall, or simulated (moves only when advanced)")
      ->check(CLI::IsMember({"wall", "simulated"}))
      ->capture_default_str();
  app.add_option("--start", start, "Start time of the simulated clock (UTC)")
      ->capture_default_str();
  app.add_option("--snapshot-every", snapshot_every,
                 "Snapshot after every N commands (0 = at shutdown only)")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  std::unique_ptr<Clock> clock;
  if (clock_kind == "simulated") {
    auto t = ParseUtcTimestamp(start);
    if (!t.has_value()) {
      Log("--start: " + t.error().message());
      return 2;
    }
    clock = std::make_unique<SimulatedClock>(t.value());
  } else {
    clock = std::make_unique<WallClock>();
  }

  // SIGINT/SIGTERM are taken by sigwait below; every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const DefaultMarket market = MakeDefaultMarket();
  PipelineOptions options;
  options.data_dir = data_dir;
  options.shard.snapshot_every = snapshot_every;
  Log("opening " + data_dir);
  auto pipeline =
      Pipeline::Open(market.engine, options, *clock, [](Seq done, Seq last) {
        Log("replayed to seq " + std::to_string(done.value) + " of " +
            std::to_string(last.value));
      });
  if (!pipeline.has_value()) {
    Log(pipeline.error().ToString());
    return 1;
  }
  Pipeline& p = *pipeline.value();
  for (const std::string& w : p.recovery().warnings) Log("warning: " + w);
  Log(DescribeRecovery(p.recovery()));

  p.Start();
  // Egress: events leave only once their command is durable. The network
  // gateways publish from here; without them they are counted.
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> published{0};
  std::thread egress([&] {
    BackoffIdle idle;
    while (!stop.load(std::memory_order_acquire)) {
      const std::size_t n = p.PollDurableEvents([&](const Event&) {});
      published.fetch_add(n, std::memory_order_relaxed);
      idle.Idle(static_cast<int>(n));
    }
  });
  Log("running; " + std::to_string(market.engine.instruments.size()) +
      " instruments, " + clock_kind + " clock");

  int sig = 0;
  sigwait(&signals, &sig);
  Log(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
      ", stopping");
  const Status st = p.Stop();
  stop.store(true, std::memory_order_release);
  egress.join();
  if (!st.ok()) {
    Log("stopped with error: " + st.ToString());
    return 1;
  }
  Log("stopped at seq " + std::to_string(p.engine().last_seq().value) +
      ", state hash " + [&] {
        char buf[17];
        std::snprintf(buf, sizeof buf, "%016llx",
                      static_cast<unsigned long long>(p.engine().StateHash()));
        return std::string(buf);
      }());
  return 0;
}

}  // namespace
}  // namespace cfx::exchange

int main(int argc, char** argv) { return cfx::exchange::Run(argc, argv); }
