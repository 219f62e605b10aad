// The order view's ClOrdID index (gateway/session/client_order_index.h):
// every mapping found across growth, a replaced mapping, Clear(), and short
// probe runs for ids chosen to share home slots under an unkeyed hash.

#include "gateway/session/client_order_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <utility>

namespace cfx::gateway {
namespace {

constexpr exchange::SipKey kKey{0x0123456789abcdefULL, 0xfedcba9876543210ULL};

TEST(ClientOrderIndex, FindsEveryMappingAcrossDoublingAndNothingElse) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  ClientOrderIndex index(kKey);
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> want;
  for (uint64_t order = 1; order <= 50'000; ++order) {
    const uint32_t account = 1 + static_cast<uint32_t>(rng() % 5);
    // Runs of consecutive ids and random ones, as clients send them.
    const uint64_t id = order % 3 == 0 ? rng() : order;
    index.Put(account, id, order);
    want[{account, id}] = order;
    ASSERT_LE(2 * index.size(), index.capacity());
  }
  EXPECT_EQ(index.size(), want.size());
  for (const auto& [key, order] : want) {
    ASSERT_EQ(index.Find(key.first, key.second), order)
        << key.first << " " << key.second;
    ASSERT_EQ(index.Find(key.first + 100, key.second), 0u);
  }
}

TEST(ClientOrderIndex, APutOfAKnownPairReplacesItsOrder) {
  ClientOrderIndex index(kKey);
  EXPECT_EQ(index.Find(7, 100), 0u);
  index.Put(7, 100, 1);
  index.Put(7, 100, 2);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.Find(7, 100), 2u);
  EXPECT_EQ(index.Find(8, 100), 0u);
  index.Put(7, 101, 0);  // order id 0 is no order
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(index.Find(7, 101), 0u);
}

TEST(ClientOrderIndex, ClearForgetsEveryPairAndItsMemory) {
  ClientOrderIndex index(kKey);
  for (uint64_t id = 1; id <= 5'000; ++id) index.Put(3, id, id);
  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.capacity(), 0u);
  EXPECT_EQ(index.Find(3, 1), 0u);
  index.Put(3, 1, 9);
  EXPECT_EQ(index.Find(3, 1), 9u);
}

// Ids that are multiples of the table size all had one home slot under
// id & mask; under the key their blocks are independent, so each lookup
// walks a handful of slots, not a run as long as the ids.
TEST(ClientOrderIndex, IdsSharingTheLowBitsDoNotShareAProbeRun) {
  ClientOrderIndex index(kKey);
  for (uint64_t k = 1; k <= 20'000; ++k) index.Put(7, k * 65'536, k);
  std::size_t longest = 0;
  for (uint64_t k = 1; k <= 20'000; ++k) {
    ASSERT_EQ(index.Find(7, k * 65'536), k);
    longest = std::max(longest, index.Displacement(7, k * 65'536));
  }
  // 20k keys at random in >= 40k slots: runs of tens at most.
  EXPECT_LT(longest, 200u);
  EXPECT_EQ(index.Displacement(7, 3), index.capacity());
}

}  // namespace
}  // namespace cfx::gateway
