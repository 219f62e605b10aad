// The logon back-off table (gateway/session/logon_backoff.h): growth, cap,
// reset, running checks, and a bounded table; explicit clocks, no timing.

#include "gateway/session/logon_backoff.h"

#include <gtest/gtest.h>

#include <string>

namespace cfx::gateway {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// Runs one failed check of `key` at `now`; false if Begin refused it.
bool Fail(LogonBackoff& b, const LogonBackoff::Key& key,
          const BackoffPolicy& policy, int64_t now) {
  int64_t wait = 0;
  if (b.Begin(key, policy, now, &wait) != BackoffRefusal::kNone) return false;
  b.End(key, false, policy, now);
  return true;
}

TEST(LogonBackoff, EachFailureDoublesTheWaitUpToTheCap) {
  LogonBackoff b(64);
  const BackoffPolicy policy{};  // 1 s, doubling, 60 s cap
  const LogonBackoff::Key key = b.KeyOf("fix 127.0.0.1");
  int64_t now = 5 * kSecond;
  const int64_t expected[] = {1, 2, 4, 8, 16, 32, 60, 60};
  for (int64_t seconds : expected) {
    SCOPED_TRACE(seconds);
    ASSERT_TRUE(Fail(b, key, policy, now));
    int64_t wait = 0;
    EXPECT_EQ(b.Begin(key, policy, now, &wait), BackoffRefusal::kBackingOff);
    EXPECT_EQ(wait, seconds * kSecond);
    EXPECT_EQ(b.Begin(key, policy, now + seconds * kSecond - 1, &wait), BackoffRefusal::kBackingOff);
    EXPECT_EQ(wait, 1);
    now += seconds * kSecond;
  }
  EXPECT_EQ(b.failures(key), 8u);
}

TEST(LogonBackoff, APassingCheckForgetsTheKey) {
  LogonBackoff b(64);
  const BackoffPolicy policy{};
  const LogonBackoff::Key key = b.KeyOf("pb 127.0.0.1");
  ASSERT_TRUE(Fail(b, key, policy, 0));
  ASSERT_TRUE(Fail(b, key, policy, kSecond));
  int64_t wait = 0;
  ASSERT_EQ(b.Begin(key, policy, 3 * kSecond, &wait), BackoffRefusal::kNone);
  b.End(key, true, policy, 3 * kSecond);
  EXPECT_EQ(b.failures(key), 0u);
  ASSERT_TRUE(Fail(b, key, policy, 3 * kSecond));
  EXPECT_EQ(b.Begin(key, policy, 3 * kSecond, &wait), BackoffRefusal::kBackingOff);
  EXPECT_EQ(wait, kSecond);  // from the start again
}

TEST(LogonBackoff, FreeFailuresComeFirstAndQuietKeysAreForgotten) {
  LogonBackoff b(64);
  const BackoffPolicy policy{.free_failures = 2};
  const LogonBackoff::Key key = b.KeyOf("pb 10.0.0.1");
  ASSERT_TRUE(Fail(b, key, policy, 0));
  ASSERT_TRUE(Fail(b, key, policy, 0));
  ASSERT_TRUE(Fail(b, key, policy, 0));  // the third backs off
  int64_t wait = 0;
  EXPECT_EQ(b.Begin(key, policy, 0, &wait), BackoffRefusal::kBackingOff);
  EXPECT_EQ(wait, kSecond);
  // Quiet for forget_ns: counted from zero again.
  EXPECT_EQ(b.Begin(key, policy, policy.forget_ns, &wait), BackoffRefusal::kNone);
  b.Abandon(key);
  EXPECT_EQ(b.failures(key), 0u);
}

TEST(LogonBackoff, OneKeysFailuresDoNotDelayAnother) {
  LogonBackoff b(64);
  const BackoffPolicy policy{};
  const LogonBackoff::Key attacker = b.KeyOf("fix 127.0.0.1");
  const LogonBackoff::Key firm = b.KeyOf("fix 127.0.0.2");
  for (int i = 0; i < 5; ++i) Fail(b, attacker, policy, i * 100 * kSecond);
  int64_t wait = 0;
  EXPECT_EQ(b.Begin(firm, policy, 400 * kSecond, &wait), BackoffRefusal::kNone);
}

// Running checks of one key are limited, with a refusal of their own that
// is not a failure: the key's failures stay 0 and its text says nothing of
// failed logons.
TEST(LogonBackoff, RunningChecksOfOneKeyAreLimitedWithoutCountingAFailure) {
  LogonBackoff b(64);
  const BackoffPolicy policy{.max_in_flight = 2};
  const LogonBackoff::Key key = b.KeyOf("fix 127.0.0.1");
  int64_t wait = 0;
  EXPECT_EQ(b.Begin(key, policy, 0, &wait), BackoffRefusal::kNone);
  EXPECT_EQ(b.Begin(key, policy, 0, &wait), BackoffRefusal::kNone);
  EXPECT_EQ(b.Begin(key, policy, 0, &wait), BackoffRefusal::kInFlight);
  EXPECT_GT(wait, 0);
  EXPECT_EQ(b.failures(key), 0u);
  EXPECT_EQ(RefusalText(BackoffRefusal::kInFlight, wait), kInFlightText);
  EXPECT_EQ(RefusalText(BackoffRefusal::kInFlight, wait).find("failed"),
            std::string::npos);
  b.Abandon(key);
  EXPECT_EQ(b.Begin(key, policy, 0, &wait), BackoffRefusal::kNone);
}

// A spray of keys never grows the table; a key pushed out only loses its
// back-off (it starts from zero).
TEST(LogonBackoff, ASprayOfKeysStaysInTheFixedTable) {
  LogonBackoff b(8);
  const BackoffPolicy policy{};
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(Fail(b, b.KeyOf("pb 10.0." + std::to_string(i)), policy, 0));
  }
  // The last key is still there.
  EXPECT_EQ(b.failures(b.KeyOf("pb 10.0.9999")), 1u);
}

TEST(LogonBackoff, TheTextSaysTryAgainLaterAndWhen) {
  EXPECT_EQ(RefusalText(BackoffRefusal::kBackingOff, 1), BackoffText(1));
  EXPECT_EQ(BackoffText(1),
            "too many failed logons from this address; try again later (in 1 "
            "s)");
  EXPECT_EQ(BackoffText(2 * kSecond + 1),
            "too many failed logons from this address; try again later (in 3 "
            "s)");
}

}  // namespace
}  // namespace cfx::gateway
