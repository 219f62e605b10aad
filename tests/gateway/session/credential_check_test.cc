// The credential checker (gateway/session/credential_check.h): checks run
// on its worker, verdicts come back on the io_context's thread, a full
// queue refuses at once, and so does a spent CPU budget of costly checks.

#include "gateway/session/credential_check.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

// Holds the checker's worker in a check until Release(), so that the checks
// submitted meanwhile wait in its queue.
class Gate {
 public:
  // The blocking check: submitted first, it returns `verdict` once released.
  bool Submit(CredentialChecker& checker, asio::io_context& io, bool verdict,
              std::function<void(bool)> done) {
    const bool taken = checker.TrySubmit(
        io,
        [this, verdict] {
          std::unique_lock<std::mutex> lock(mu_);
          started_ = true;
          cv_.notify_all();
          cv_.wait(lock, [this] { return released_; });
          return verdict;
        },
        std::move(done));
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this, taken] { return started_ || !taken; });
    return taken;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  bool released_ = false;
};

TEST(CredentialChecker, ChecksRunOffTheCallersThreadAndAnswerOnIt) {
  asio::io_context io;
  // Keeps run_one_for() waiting for the posted answer.
  const auto work = asio::make_work_guard(io);
  CredentialChecker checker;
  std::thread::id checked_on;
  std::optional<std::thread::id> answered_on;
  bool verdict = false;
  ASSERT_TRUE(checker.TrySubmit(
      io,
      [&] {
        checked_on = std::this_thread::get_id();
        return true;
      },
      [&](bool ok) {
        verdict = ok;
        answered_on = std::this_thread::get_id();
      }));
  ASSERT_TRUE(testing::RunUntil(io, [&] { return answered_on.has_value(); }));
  EXPECT_TRUE(verdict);
  EXPECT_NE(checked_on, std::this_thread::get_id());
  EXPECT_EQ(*answered_on, std::this_thread::get_id());
}

TEST(CredentialChecker, AFullQueueRefusesAtOnceAndNeverGrows) {
  asio::io_context io;
  const auto work = asio::make_work_guard(io);
  Gate gate;
  int answers = 0;
  {
    CredentialChecker checker({.threads = 1, .max_queued = 2});
    ASSERT_TRUE(gate.Submit(checker, io, false, [&](bool) { ++answers; }));
    EXPECT_TRUE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_TRUE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_FALSE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_EQ(checker.max_queued(), 2u);
    gate.Release();
    ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 3; }));
  }
  EXPECT_EQ(answers, 3);
}

// Costly checks take from a CPU budget (here a burst of 300 ms, refilled at
// 100 ms per second), measured on the worker's CPU clock; one that finds
// it spent is refused at once, while cheap checks still go through. The
// clocks are the test's: each costly check "uses" 100 ms of CPU.
TEST(CredentialChecker, CostlyChecksAreRefusedOnceTheirCpuBudgetIsSpent) {
  asio::io_context io;
  const auto work = asio::make_work_guard(io);
  std::atomic<int64_t> now{0};
  std::atomic<int64_t> cpu{0};
  int answers = 0;
  CredentialChecker checker({.threads = 1,
                             .max_queued = 64,
                             .cpu_ns_per_second = 100'000'000,
                             .cpu_burst_ns = 300'000'000,
                             .clock_ns = [&] { return now.load(); },
                             .cpu_clock_ns = [&] { return cpu.load(); }});
  auto costly = [&] {
    return checker.TrySubmit(
        io,
        [&] {
          cpu += 100'000'000;
          return true;
        },
        [&](bool) { ++answers; }, /*costly=*/true);
  };
  auto cheap = [&] {
    return checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; });
  };
  // 300 ms: three checks of 100 ms (the first estimate), then none.
  EXPECT_TRUE(costly());
  EXPECT_TRUE(costly());
  EXPECT_TRUE(costly());
  EXPECT_FALSE(costly());
  EXPECT_TRUE(cheap());
  ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 4; }));
  // They cost what was expected: still spent.
  EXPECT_FALSE(costly());
  // One second later: 100 ms more, one more check.
  now += 1'000'000'000;
  EXPECT_TRUE(costly());
  EXPECT_FALSE(costly());
  ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 5; }));
  // A long quiet time refills the bucket to its burst, no more.
  now += 3'600'000'000'000;
  EXPECT_TRUE(costly());
  EXPECT_TRUE(costly());
  EXPECT_TRUE(costly());
  EXPECT_FALSE(costly());
  ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 8; }));
}

// A cheap check submitted after costly ones runs before them (here behind
// only the one already running).
TEST(CredentialChecker, ACheapCheckGoesBeforeTheCostlyOnesWaiting) {
  asio::io_context io;
  const auto work = asio::make_work_guard(io);
  Gate gate;
  std::vector<char> order;  // on the worker, in the order the checks ran
  CredentialChecker checker({.threads = 1, .max_queued = 8});
  ASSERT_TRUE(gate.Submit(checker, io, true, [](bool) {}));
  int answers = 0;
  auto submit = [&](char tag, bool costly) {
    return checker.TrySubmit(
        io,
        [&order, tag] {
          order.push_back(tag);
          return true;
        },
        [&answers](bool) { ++answers; }, costly);
  };
  ASSERT_TRUE(submit('a', true));
  ASSERT_TRUE(submit('b', true));
  ASSERT_TRUE(submit('x', false));
  ASSERT_TRUE(submit('c', true));
  ASSERT_TRUE(submit('y', false));
  gate.Release();
  ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 5; }));
  EXPECT_EQ(std::string(order.begin(), order.end()), "xyabc");
}

}  // namespace
}  // namespace cfx::gateway
