#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exchange/core/status.h"

namespace cfx::bench {

struct SettleBenchOptions {
  uint32_t accounts = 100'000;  // smoke: 2,000
  uint32_t contracts = 12;      // consecutive months of one root
  uint32_t runs = 3;
  uint64_t seed = 1;
  bool smoke = false;
  bool quiet = false;
};

// One run on a fresh in-memory SettlementService (in-memory ledger):
// 1. day 1, untimed: every account trades every contract once (accounts
//    paired at random per contract, 1-5 lots each, prices around $5.80),
//    so each holds a position in each contract; then the day's settlement;
// 2. day 2: a tenth of the accounts trade each contract again, the books
//    close with a bid and an offer, and the day's kIndexFixing event runs
//    the settlement: DSPs, variation margin of every position and fill,
//    IM per account, the ledger run with its invariants. Timed.
struct SettleBenchRun {
  double day1_seconds = 0;    // day 1's settlement (positions opened)
  double settle_seconds = 0;  // day 2's settlement: the figure
  double settle_cpu_seconds = 0;
  uint64_t positions = 0;  // non-zero (account, contract) after day 2
  uint64_t movements = 0;  // booked by day 2's run
  uint64_t fills = 0;      // counted by day 2's run
  std::string digest;      // day 2's report, hashed: equal across runs
};

struct SettleBenchResult {
  uint32_t accounts = 0;
  uint32_t contracts = 0;
  std::vector<SettleBenchRun> runs;
  uint32_t cpus = 0;
  std::string cpu_model;
  std::string load_average;
  // Empty when every run settled both days, every run's report is equal,
  // and the ledger's invariants held.
  std::vector<std::string> problems;
};

Result<SettleBenchResult> RunSettleBench(const SettleBenchOptions& options);

// The settlement time target for 100k accounts x 12 contracts.
inline constexpr double kSettleTargetSeconds = 2.0;

void PrintSettleHuman(std::FILE* out, const SettleBenchOptions& options,
                      const SettleBenchResult& result);
void PrintSettleJson(std::FILE* out, const SettleBenchOptions& options,
                     const SettleBenchResult& result);

}  // namespace cfx::bench
