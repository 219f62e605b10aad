// The credential checker (gateway/session/credential_check.h): checks run
// on its worker, verdicts come back on the io_context's thread, and a full
// queue refuses at once.

#include "gateway/session/credential_check.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "tests/gateway/session/descriptor_limit.h"

namespace cfx::gateway {
namespace {

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
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  bool released = false;
  int answers = 0;
  {
    CredentialChecker checker({.threads = 1, .max_queued = 2});
    ASSERT_TRUE(checker.TrySubmit(
        io,
        [&] {
          std::unique_lock<std::mutex> lock(mu);
          started = true;
          cv.notify_all();
          cv.wait(lock, [&] { return released; });
          return false;
        },
        [&](bool) { ++answers; }));
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return started; });
    }
    EXPECT_TRUE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_TRUE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_FALSE(checker.TrySubmit(
        io, [] { return true; }, [&](bool) { ++answers; }));
    EXPECT_EQ(checker.max_queued(), 2u);
    {
      std::lock_guard<std::mutex> lock(mu);
      released = true;
    }
    cv.notify_all();
    ASSERT_TRUE(testing::RunUntil(io, [&] { return answers == 3; }));
  }
  EXPECT_EQ(answers, 3);
}

}  // namespace
}  // namespace cfx::gateway
