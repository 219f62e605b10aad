// `cfx-bench abuse --workload hash-flood`: client order ids chosen to
// collide in the engine's client order id table (computed by inverting the
// table's old, unkeyed hash) against random ids, in the same run.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "tests/bench/abuse_bench.h"
#include "tests/bench/rng.h"
#include "tests/support/colliding_client_order_ids.h"

namespace cfx::bench {

namespace {

using exchange::internal::ClientOrderIdSet;

// The account of the attacking firm in the engine-level figure.
constexpr uint32_t kAttacker = 7;
// Timed passes over the ids per run; the median pass is reported.
constexpr int kPasses = 5;

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Nanoseconds per Find() + Insert() of `ids` into `set`, the median of
// kPasses passes. An untimed pass first touches the slots the ids use, so
// neither set of ids pays page faults the other does not; each pass starts
// from an empty day (Clear()).
double InsertNanos(ClientOrderIdSet& set, const std::vector<uint64_t>& ids,
                   std::string* problem) {
  std::vector<double> passes;
  for (int pass = -1; pass < kPasses; ++pass) {
    set.Clear();
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t id : ids) {
      const ClientOrderIdSet::Probe p = set.Find(kAttacker, id);
      if (p.found) {
        *problem = "client order id " + std::to_string(id) + " found twice";
        return 0;
      }
      set.Insert(p, kAttacker, id);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (pass >= 0) {
      passes.push_back(
          std::chrono::duration<double, std::nano>(t1 - t0).count() /
          static_cast<double>(ids.size()));
    }
  }
  return MedianOf(passes);
}

}  // namespace

Result<AbuseRun> RunHashFloodAbuse(const AbuseOptions& o, uint32_t run) {
  const uint32_t n = o.smoke ? 2'000 : 10'000;
  // The engine's default table (EngineLimits::max_client_order_ids).
  const uint32_t max_entries = 1u << 22;
  ClientOrderIdSet set(max_entries);
  if (!set.ok()) return InternalError("cannot allocate the id table");

  const std::vector<uint64_t> colliding =
      exchange::testing::CollidingClientOrderIds(kAttacker, n);
  Rng rng(o.seed + run);
  std::vector<uint64_t> random;
  random.reserve(n);
  while (random.size() < n) {
    const uint64_t id = rng.Next();
    if (id != 0) random.push_back(id);
  }

  AbuseRun r;
  std::string problem;
  AbuseFigure engine{"engine_insert", "ns", 0, 0, 1.2};
  engine.quiet = InsertNanos(set, random, &problem);
  engine.attack = InsertNanos(set, colliding, &problem);
  if (!problem.empty()) r.problems.push_back(problem);
  r.figures.push_back(engine);
  r.notes.push_back("engine_insert: " + std::to_string(n) +
                    " ids of one account, Find + Insert into a table for " +
                    std::to_string(max_entries) +
                    " ids; quiet = random ids, attack = ids colliding under "
                    "the unkeyed hash");
  return r;
}

}  // namespace cfx::bench
