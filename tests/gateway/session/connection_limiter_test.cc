#include "gateway/session/connection_limiter.h"

#include <gtest/gtest.h>

namespace cfx::gateway {
namespace {

using Verdict = ConnectionLimiter::Verdict;

asio::ip::address Ip(const char* text) { return asio::ip::make_address(text); }

TEST(ConnectionLimiter, SourceOverItsCapIsRefused) {
  ConnectionLimiter limiter({/*max_pre_logon=*/100,
                             /*max_pre_logon_per_source=*/2});
  uint64_t evicted = 0;
  EXPECT_EQ(limiter.Admit(1, Ip("10.0.0.1"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.Admit(2, Ip("10.0.0.1"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.Admit(3, Ip("10.0.0.1"), &evicted), Verdict::kSourceFull);
  // Another source is not affected.
  EXPECT_EQ(limiter.Admit(4, Ip("10.0.0.2"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.pre_logon(), 3u);
}

TEST(ConnectionLimiter, LoggedOnConnectionFreesItsSourceSlot) {
  ConnectionLimiter limiter({100, 1});
  uint64_t evicted = 0;
  ASSERT_EQ(limiter.Admit(1, Ip("10.0.0.1"), &evicted), Verdict::kAdmitted);
  ASSERT_EQ(limiter.Admit(2, Ip("10.0.0.1"), &evicted), Verdict::kSourceFull);
  limiter.Forget(1);
  EXPECT_EQ(limiter.Admit(3, Ip("10.0.0.1"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.sources(), 1u);
  limiter.Forget(3);
  EXPECT_EQ(limiter.sources(), 0u);
  EXPECT_EQ(limiter.pre_logon(), 0u);
}

TEST(ConnectionLimiter, FullBudgetEvictsTheOldest) {
  ConnectionLimiter limiter({3, 10});
  uint64_t evicted = 0;
  for (uint64_t id = 1; id <= 3; ++id) {
    ASSERT_EQ(limiter.Admit(id, Ip("10.0.0.1"), &evicted), Verdict::kAdmitted);
  }
  EXPECT_EQ(limiter.Admit(4, Ip("10.0.0.2"), &evicted),
            Verdict::kAdmittedEvicted);
  EXPECT_EQ(evicted, 1u);
  limiter.Forget(2);  // logged on
  EXPECT_EQ(limiter.Admit(5, Ip("10.0.0.3"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.Admit(6, Ip("10.0.0.3"), &evicted),
            Verdict::kAdmittedEvicted);
  EXPECT_EQ(evicted, 3u);
  EXPECT_EQ(limiter.pre_logon(), 3u);
}

TEST(ConnectionLimiter, AdmittingAnIdAgainKeepsOneEntry) {
  ConnectionLimiter limiter({10, 1});
  uint64_t evicted = 0;
  ASSERT_EQ(limiter.Admit(7, Ip("::1"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.Admit(7, Ip("::1"), &evicted), Verdict::kAdmitted);
  EXPECT_EQ(limiter.pre_logon(), 1u);
  limiter.Forget(7);
  limiter.Forget(7);  // unknown now: ignored
  EXPECT_EQ(limiter.pre_logon(), 0u);
}

}  // namespace
}  // namespace cfx::gateway
