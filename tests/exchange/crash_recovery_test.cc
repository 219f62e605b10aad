// Crash test: a child process runs a seeded workload through the pipeline
// and reports every durable seq to the parent through a pipe; the parent
// kill -9s it at a random moment, recovers the same data dir, and checks
// that every reported command is in the journal, in order and intact, and
// that the recovered state hash equals a reference replay of that prefix.
// The next iteration restarts on the same data dir, so recovery is tested
// on top of earlier recoveries and snapshots. The child is a separate
// program (crash_worker_main.cc), forked and exec'd.
//
// CFX_CRASH_ITERATIONS sets the number of kills (default 20);
// CFX_TEST_SEED fixes the seed (default: fresh, printed).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "exchange/clock.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"
#include "tests/exchange/crash_worker.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/random_commands.h"
#include "tests/support/temp_dir.h"

namespace cfx::exchange {
namespace {

using testing::RandomCommands;
using testing::SmallMarketConfig;

constexpr std::size_t kPerIteration = 4'000;

// Reads 8-byte durable seqs from `fd` into *max_seen until one reaches
// `stop_at` (0: until EOF). Returns false if nothing arrives for 30 s.
bool ReadReports(int fd, uint64_t* max_seen, uint64_t stop_at) {
  uint64_t v = 0;
  std::size_t got = 0;
  char* buf = reinterpret_cast<char*>(&v);
  while (true) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 30'000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t r = read(fd, buf + got, sizeof v - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return true;  // EOF: the child is gone
    got += static_cast<std::size_t>(r);
    if (got < sizeof v) continue;
    got = 0;
    if (v > *max_seen) *max_seen = v;
    if (stop_at != 0 && *max_seen >= stop_at) return true;
  }
}

uint64_t Seed() {
  if (const char* s = std::getenv("CFX_TEST_SEED"))
    return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

int Iterations() {
  if (const char* s = std::getenv("CFX_CRASH_ITERATIONS")) return std::atoi(s);
  return 20;
}

bool SameCommand(const Command& a, const Command& b) {
  return a.type == b.type && a.side == b.side && a.order_type == b.order_type &&
         a.tif == b.tif && a.stp == b.stp && a.flags == b.flags &&
         a.state == b.state && a.account == b.account &&
         a.instrument == b.instrument &&
         a.client_order_id == b.client_order_id && a.target == b.target &&
         a.price == b.price && a.quantity == b.quantity;
}

void DiscardEvents(void*, const Event*, std::size_t) {}

TEST(CrashRecovery, KillNineLosesNothingAcknowledged) {
  const uint64_t seed = Seed();
  const int iterations = Iterations();
  SCOPED_TRACE("CFX_TEST_SEED=" + std::to_string(seed) +
               " CFX_CRASH_ITERATIONS=" + std::to_string(iterations));
  std::mt19937_64 rng(seed);
  const auto commands = RandomCommands(
      seed, kPerIteration * static_cast<std::size_t>(iterations + 1));
  cfx::testing::TempDir tmp;
  const std::string dir = tmp.Sub("data");
  uint64_t acknowledged = 0;

  for (int it = 0; it < iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    // Arguments are built before fork: between fork and exec the child only
    // makes async-signal-safe calls.
    const std::string seed_arg = std::to_string(seed);
    // The child submits up to `limit`, then waits to be killed.
    const uint64_t limit = acknowledged + kPerIteration;
    const std::string count_arg = std::to_string(limit);
    const std::string fd_arg = std::to_string(fds[1]);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // A fresh process image: no RocksDB threads or locks inherited.
      close(fds[0]);
      execl(CFX_CRASH_WORKER, CFX_CRASH_WORKER, dir.c_str(), seed_arg.c_str(),
            count_arg.c_str(), fd_arg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    // Kill once the child has made a random amount of progress, sometimes
    // at once, sometimes after a short random delay.
    const uint64_t target = acknowledged + 1 + rng() % (kPerIteration - 1);
    uint64_t max_seen = acknowledged;
    const bool reached = ReadReports(fds[0], &max_seen, target);
    if (rng() % 2 == 0) usleep(static_cast<useconds_t>(rng() % 3'000));
    kill(child, SIGKILL);
    ASSERT_TRUE(reached) << "the child made no progress for 30 s";
    int wstatus = 0;
    ASSERT_EQ(waitpid(child, &wstatus, 0), child);
    ASSERT_TRUE(WIFSIGNALED(wstatus))
        << "child exited early, status " << wstatus;
    ASSERT_TRUE(ReadReports(fds[0], &max_seen, 0));  // written before it died
    close(fds[0]);
    ASSERT_GE(max_seen, target);

    // Restart on the same data dir.
    SimulatedClock clock(Timestamp{testing::kCrashStartNs});
    auto p =
        Pipeline::Open(SmallMarketConfig(), testing::CrashOptions(dir), clock);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    const RecoveryReport& rec = p.value()->recovery();
    ASSERT_GE(rec.last_seq.value, max_seen)
        << "an acknowledged command was lost";

    // Every journaled command is the submitted one, in order; the reference
    // replays the submitted stream with the journaled times.
    auto ref = Engine::Create(SmallMarketConfig());
    ASSERT_TRUE(ref.has_value());
    // Seeded as recovery seeds the exchange's engine (the key is hashed).
    ASSERT_TRUE(
        ref.value()->SetTableKey(p.value()->journal().table_seed()).ok());
    Event buffer[256];
    EventSink sink(buffer, 256, &DiscardEvents, nullptr);
    uint64_t n = 0;
    const Status st = p.value()->journal().Replay(Seq{}, [&](const Command& j) {
      if (!SameCommand(j, commands[n])) {
        return InternalError("seq " + std::to_string(j.seq.value) +
                             " is not the submitted command");
      }
      Command c = commands[n];
      c.seq = j.seq;
      c.ts = j.ts;
      ref.value()->Apply(c, sink);
      ++n;
      return Status::Ok();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(n, rec.last_seq.value);
    ASSERT_EQ(ref.value()->StateHash(), rec.state_hash);
    acknowledged = rec.last_seq.value;
  }
  RecordProperty("commands", std::to_string(acknowledged));
}

}  // namespace
}  // namespace cfx::exchange
