// The sources a logon passed from (gateway/session/known_sources.h): known
// from a passed check, until a failed one or the time to live; a fixed
// table. Explicit clocks, no timing.

#include "gateway/session/known_sources.h"

#include <gtest/gtest.h>

#include <string>

namespace cfx::gateway {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(KnownSources, ASourceIsKnownFromAPassedCheckUntilAFailedOne) {
  LogonBackoff keys(64);
  KnownSources known(64, 100 * kSecond);
  const LogonBackoff::Key firm = keys.KeyOf("fix 10.0.0.1");
  const LogonBackoff::Key other = keys.KeyOf("fix 10.0.0.2");
  EXPECT_FALSE(known.Known(firm, 0));
  known.Passed(firm, 5 * kSecond);
  EXPECT_TRUE(known.Known(firm, 6 * kSecond));
  EXPECT_FALSE(known.Known(other, 6 * kSecond));
  known.Failed(firm);
  EXPECT_FALSE(known.Known(firm, 7 * kSecond));
}

TEST(KnownSources, ASourceIsForgottenAfterItsTimeToLive) {
  LogonBackoff keys(64);
  KnownSources known(64, 100 * kSecond);
  const LogonBackoff::Key firm = keys.KeyOf("fix 10.0.0.1");
  known.Passed(firm, 0);
  EXPECT_TRUE(known.Known(firm, 100 * kSecond - 1));
  EXPECT_FALSE(known.Known(firm, 100 * kSecond));
  // Passing again renews it.
  known.Passed(firm, 100 * kSecond);
  EXPECT_TRUE(known.Known(firm, 150 * kSecond));
}

// Many sources never grow the table: the one that passed longest ago in a
// full neighbourhood is forgotten, the newest is kept.
TEST(KnownSources, ManySourcesStayInTheFixedTable) {
  LogonBackoff keys(64);
  KnownSources known(8, 1'000'000 * kSecond);
  for (int i = 0; i < 1'000; ++i) {
    known.Passed(keys.KeyOf("fix 10.1." + std::to_string(i)), i * kSecond);
  }
  EXPECT_TRUE(known.Known(keys.KeyOf("fix 10.1.999"), 1'000 * kSecond));
  int still_known = 0;
  for (int i = 0; i < 1'000; ++i) {
    still_known += known.Known(keys.KeyOf("fix 10.1." + std::to_string(i)),
                               1'000 * kSecond)
                       ? 1
                       : 0;
  }
  EXPECT_LE(still_known, 8);
}

}  // namespace
}  // namespace cfx::gateway
