#include "exchange/core/client_order_id_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "exchange/core/keyed_hash.h"
#include "tests/support/colliding_client_order_ids.h"

namespace cfx::exchange::internal {
namespace {

using testing::CollidingClientOrderIds;
using testing::UnkeyedClientOrderHash;

constexpr uint32_t kAccount = 7;

TEST(ClientOrderIdSetTest, CollidingIdsShareOneSlotUnderTheUnkeyedHash) {
  const std::vector<uint64_t> ids = CollidingClientOrderIds(kAccount, 10'000);
  const uint64_t mask = (uint64_t{1} << 23) - 1;  // the default table
  for (uint64_t id : ids) {
    ASSERT_NE(id, 0u);
    EXPECT_EQ(UnkeyedClientOrderHash(kAccount, id) & mask,
              UnkeyedClientOrderHash(kAccount, ids[0]) & mask)
        << "id " << id;
  }
  std::vector<uint64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
}

TEST(ClientOrderIdSetTest, CollidingIdsSpreadUnderTheKey) {
  for (const uint64_t seed : {1ull, 2ull, 3ull}) {
    ClientOrderIdSet set(1u << 16);
    ASSERT_TRUE(set.ok());
    set.SetKey(SipKey{seed * 0x9E3779B97F4A7C15ull, ~seed});
    const std::vector<uint64_t> ids = CollidingClientOrderIds(kAccount, 10'000);
    uint32_t longest = 0;
    for (uint64_t id : ids) {
      ASSERT_TRUE(set.TryInsert(kAccount, id))
          << "seed " << seed << " id " << id;
    }
    for (uint64_t id : ids) {
      const uint32_t d = set.Displacement(kAccount, id);
      ASSERT_LT(d, ClientOrderIdSet::kMaxProbe) << "seed " << seed;
      longest = std::max(longest, d);
    }
    // Random placement of 10k ids in 128k slots: runs of a few slots.
    EXPECT_LT(longest, 8u) << "seed " << seed;
    EXPECT_EQ(set.size(), ids.size());
  }
}

// Ids of kAccount whose home slot, in a table of `slots` slots under `key`,
// is `slot`: found by trying ids 1, 2, ... (the test knows the key).
std::vector<uint64_t> IdsWithHomeSlot(const SipKey& key, uint64_t slots,
                                      uint64_t slot, std::size_t n) {
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; ids.size() < n; ++id) {
    if ((SipHash13(key, id, kAccount) & (slots - 1)) == slot) ids.push_back(id);
  }
  return ids;
}

TEST(ClientOrderIdSetTest, FullProbeRunHasNoRoomAndEndsTheLookup) {
  const SipKey key{0x1234, 0x5678};
  ClientOrderIdSet set(512);  // 1,024 slots
  ASSERT_TRUE(set.ok());
  set.SetKey(key);
  const std::vector<uint64_t> ids =
      IdsWithHomeSlot(key, 1024, 100, ClientOrderIdSet::kMaxProbe + 2);
  for (uint32_t k = 0; k < ClientOrderIdSet::kMaxProbe; ++k) {
    ASSERT_TRUE(set.TryInsert(kAccount, ids[k])) << k;
  }
  // Slots 100 .. 355 hold the run; one more id of home slot 100 finds none.
  const ClientOrderIdSet::Probe p =
      set.Find(kAccount, ids[ClientOrderIdSet::kMaxProbe]);
  EXPECT_FALSE(p.found);
  EXPECT_FALSE(p.room);
  EXPECT_FALSE(set.TryInsert(kAccount, ids[ClientOrderIdSet::kMaxProbe]));
  EXPECT_EQ(set.size(), ClientOrderIdSet::kMaxProbe);
  // Every pair of the run is still found, the last one kMaxProbe - 1 slots on.
  for (uint32_t k = 0; k < ClientOrderIdSet::kMaxProbe; ++k) {
    EXPECT_TRUE(set.Find(kAccount, ids[k]).found) << k;
  }
  EXPECT_EQ(set.Displacement(kAccount, ids[ClientOrderIdSet::kMaxProbe - 1]),
            ClientOrderIdSet::kMaxProbe - 1);
  // A new day frees the run.
  set.Clear();
  EXPECT_TRUE(set.TryInsert(kAccount, ids[ClientOrderIdSet::kMaxProbe]));
}

TEST(ClientOrderIdSetTest, KeyDecidesPlacementNotMembership) {
  ClientOrderIdSet a(1024), b(1024);
  a.SetKey(SipKey{1, 2});
  b.SetKey(SipKey{3, 4});
  for (uint64_t id = 1; id <= 500; ++id) {
    ASSERT_TRUE(a.TryInsert(kAccount, id * 1'000'003));
    ASSERT_TRUE(b.TryInsert(kAccount, id * 1'000'003));
  }
  std::vector<uint64_t> in_a, in_b;
  a.ForEach([&](uint32_t, uint64_t id) { in_a.push_back(id); });
  b.ForEach([&](uint32_t, uint64_t id) { in_b.push_back(id); });
  EXPECT_EQ(in_a, in_b);  // insertion order: snapshots and StateHash agree
  EXPECT_FALSE(a.TryInsert(kAccount, 1'000'003));
  EXPECT_TRUE(a.Find(kAccount, 1'000'003).found);
  EXPECT_FALSE(a.Find(kAccount + 1, 1'000'003).found);
}

}  // namespace
}  // namespace cfx::exchange::internal
