// The child of the crash test: recovers DIR, then submits the seeded command
// stream from where the journal ends up to command COUNT, writing every new
// durable seq (8 bytes, native order) to FD. Runs until killed.
//
// Usage: crash_worker DIR SEED COUNT FD

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "exchange/clock.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"
#include "tests/exchange/crash_worker.h"
#include "tests/support/random_commands.h"

namespace cfx::exchange {
namespace {

bool WriteAll(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

int Run(int argc, char** argv) {
  if (argc != 5) return 2;
  const std::string dir = argv[1];
  const uint64_t seed = std::strtoull(argv[2], nullptr, 10);
  const std::size_t count = std::strtoull(argv[3], nullptr, 10);
  const int fd = std::atoi(argv[4]);
  const auto commands = testing::RandomCommands(seed, count);

  SimulatedClock clock(Timestamp{testing::kCrashStartNs});
  auto opened = Pipeline::Open(testing::SmallMarketConfig(),
                               testing::CrashOptions(dir), clock);
  if (!opened.has_value()) return 3;
  Pipeline& p = *opened.value();
  const uint64_t first = p.recovery().last_seq.value;
  SpscRing<Command>* ring = p.AddProducer(1024);
  p.Start();
  std::size_t next = first;
  uint64_t reported = first;
  BackoffIdle idle;
  while (true) {
    int work = 0;
    while (next < commands.size()) {
      Command c = commands[next];
      c.seq = Seq{};
      c.ts = Timestamp{};
      if (!ring->TryPush(c)) break;
      ++next;
      ++work;
    }
    clock.Advance(20'000);
    work += static_cast<int>(p.PollDurableEvents([](const Event&) {}));
    const uint64_t durable = p.durable_seq().value;
    if (durable != reported) {
      if (!WriteAll(fd, &durable, sizeof durable)) return 4;
      reported = durable;
      ++work;
    }
    idle.Idle(work);
  }
}

}  // namespace
}  // namespace cfx::exchange

int main(int argc, char** argv) { return cfx::exchange::Run(argc, argv); }
