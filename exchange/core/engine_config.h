#pragma once

#include <cstdint>
#include <vector>

#include "exchange/core/margin.h"
#include "exchange/core/reference/registry.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

// Static description of one tradable instrument, as the engine needs it.
// Symbols, grades and calendars live outside the core.
struct InstrumentConfig {
  InstrumentId id;
  InstrumentKind kind = InstrumentKind::kFuture;
  // Minimum price increment, a multiple of the price grid. Default: $0.01.
  Price tick{100};
  // Highest accepted limit price; sizes the price ladder (max_price / tick
  // levels per side). Default: $100.00.
  Price max_price{100 * kPriceUnitsPerUsd};
  // Reference price for the price band and market protection. Default:
  // $5.80, the B200-STD initial reference.
  Price reference_price{58'000};
  // Order quantity bounds, in lots. Default: 1 to 1,000.
  Quantity min_quantity{1};
  Quantity max_quantity{1'000};
  // Maximum |position + open orders| per account on each side, in lots.
  // 0 = no limit. Default: 0.
  Quantity position_limit{0};
  // Limit-order price band around the reference, in basis points: buys
  // above ref + band and sells below ref - band are rejected. Default: 10 %.
  int32_t band_bps = 1'000;
  // Market-order protection band around the reference, in basis points.
  // Default: 5 %.
  int32_t market_band_bps = 500;
  // GPU-hours per lot: 192 for a spot node-day, 730 for a future. Used for
  // the notional overflow check. Default: 730.
  int64_t gpu_hours_per_lot = 730;
  // kNone for a spot slot: it trades only once a kListInstrument command
  // gives it a delivery day (the spot listing calendar), and can be listed
  // again once expired. Any other state lists the instrument from the start.
  InstrumentState initial_state = InstrumentState::kOpen;
  // Index into EngineConfig::reference.grades of the instrument's grade; for
  // spot instruments it decides the eligibility a sell order needs.
  uint32_t grade = 0;
  // Initial margin (DESIGN.md §5): futures of one root share a group, in
  // which opposite positions in different months form spreads. 0 = not
  // margined (spot instruments must be 0). Default: 0.
  uint32_t margin_group = 0;
  // Maturity of a margined future: year x 12 + month - 1 (2026-12 is
  // 24,323). Default: 0.
  int32_t maturity_month = 0;
};

struct AccountConfig {
  AccountId id;
  // Self-trade prevention used when an order does not name one.
  StpMode stp = StpMode::kCancelNewest;
  // Collateral at start, in micro-dollars; kCollateral commands change it
  // and a snapshot carries the current value. Default: 0.
  Amount collateral{};
};

// Capacity, fixed at construction: Apply() never allocates.
struct EngineLimits {
  // Resting orders across all instruments. Default: 1 << 20.
  uint32_t max_orders = 1u << 20;
  // Highest AccountId + 1. Default: 1,024.
  uint32_t max_accounts = 1'024;
  // Highest InstrumentId + 1. Default: 64.
  uint32_t max_instruments = 64;
  // Client order ids the engine remembers per trading day (one per accepted
  // new order that carries one, across all accounts); when full, new orders
  // with a client order id are rejected CLIENT_ORDER_ID_LIMIT until the next
  // EndOfSession of all instruments (docs/matching.md, "Client order ids").
  // Address space: 16 bytes x the power of two >= 2 x this (a hash table
  // at most half full) + 4 bytes x this, touched as ids arrive.
  // Default: 1 << 22 (4,194,304 ids; 144 MiB).
  uint32_t max_client_order_ids = 1u << 22;
  // Spot trades remembered for delivery-failure reports: those of listed
  // spot instruments, from the match until their slot is listed again. A
  // spot order that could take the table past it is rejected SYSTEM_BUSY.
  // Default: 65,536 (48 bytes each).
  uint32_t max_spot_trades = 1u << 16;
};

struct EngineConfig {
  EngineLimits limits;
  std::vector<InstrumentConfig> instruments;
  std::vector<AccountConfig> accounts;
  // Grades and providers for ratings, attestations and spot eligibility.
  // With no grades, spot sells need no eligibility (tests of the matching
  // rules alone).
  ReferenceConfig reference;
  // Until when on its delivery day a spot trade can be reported failed:
  // nanoseconds after 00:00 UTC. Default: 12:00.
  int64_t spot_failure_deadline_ns = int64_t{12} * 3600 * 1'000'000'000;
  // Initial margin and spread credit of the pre-trade margin check, both
  // in [0, 10,000] basis points. Default: 15 % and 60 %.
  MarginParams margin;
};

// Checks ids, ranges and consistency (tick divides max and reference price,
// bands in (0, 10000), bounds ordered, ids unique and within limits; margin
// groups only on futures, at most kMaxMarginLegs margined instruments, no
// two in the same (group, maturity month); collateral >= 0; margin
// parameters in [0, 10000]).
// Returns kInvalidArgument naming the offending instrument or account.
Status ValidateEngineConfig(const EngineConfig& config);

}  // namespace cfx::exchange
