#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace cfx::exchange {

// Initial margin (DESIGN.md §5, docs/settlement.md), shared by the engine's
// pre-trade check and the settlement reports. Allocation free.

// One contract an account holds (or would hold).
struct MarginLeg {
  uint32_t group = 0;       // futures root; legs of one root can form spreads
  int32_t month = 0;        // maturity as year x 12 + month - 1
  int64_t lots = 0;         // signed position: long > 0
  int64_t price = 0;        // the contract's last DSP (else initial reference),
                            // price units (1/10,000 USD per GPU-hour)
  int64_t gpu_hours = 730;  // per contract
};

struct MarginParams {
  // Initial margin per contract, in basis points of its notional at the
  // reference price. Default: 15 %.
  int64_t initial_margin_bp = 1'500;
  // Credit per spread pair, in basis points of both legs' per-contract
  // margins. Default: 60 %.
  int64_t spread_credit_bp = 6'000;
};

// The most legs InitialMargin accepts (one per futures instrument).
inline constexpr std::size_t kMaxMarginLegs = 64;

// IM = Σ |lots| x gpu_hours x price x im_bp - the spread credits, exact,
// rounded up to the micro-dollar. The per-contract margin of a leg is
// gpu_hours x price x 100 (micro-dollars per price unit) x im_bp / 10,000.
// Legs may come in any order and may repeat a (group, month): their lots
// add first, at the per-contract margin of the first of them, and a
// zero-lot leg contributes nothing. Spreads: per group, long and short
// months pair up, nearest months first (equally near: the pair with the
// earlier front month first), min(long lots, short lots) of each pair,
// until no long or no short month is left: min(total long, total short)
// pairs in all; each pair credits spread_credit_bp of both legs'
// per-contract margins. A result beyond int64 saturates at INT64_MAX.
// No allocation.
// REQUIRES: legs.size() <= kMaxMarginLegs (legs beyond are ignored);
// gpu_hours > 0, price > 0 and |lots| x gpu_hours x price fits in 63 bits
// for every leg; both parameters in [0, 10,000].
int64_t InitialMargin(std::span<const MarginLeg> legs,
                      const MarginParams& params);

}  // namespace cfx::exchange
