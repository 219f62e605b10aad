#include "exchange/core/margin.h"

#include <cstddef>
#include <cstdint>
#include <limits>

#include "exchange/core/money.h"
#include "exchange/core/types.h"

namespace cfx::exchange {
namespace {

__extension__ typedef __int128 Int128;

// Basis points per whole.
constexpr int64_t kBp = 10'000;

// One (group, month) after netting: its net lots and the per-contract
// margin of its contract, in micro-dollars x kBp (exact).
struct Net {
  uint32_t group;
  int32_t month;
  Int128 lots;
  Int128 margin;
};

Int128 Abs(Int128 v) { return v < 0 ? -v : v; }
Int128 Min(Int128 a, Int128 b) { return a < b ? a : b; }

}  // namespace

int64_t InitialMargin(std::span<const MarginLeg> legs,
                      const MarginParams& params) {
  // Amounts are kept exact in micro-dollars x kBp x kBp: a per-contract
  // margin carries im_bp / kBp, a spread credit credit_bp / kBp of two of
  // them, so one common denominator holds both and the result is rounded
  // up once.
  Net nets[kMaxMarginLegs];
  std::size_t n = 0;
  const std::size_t count =
      legs.size() < kMaxMarginLegs ? legs.size() : kMaxMarginLegs;
  for (std::size_t i = 0; i < count; ++i) {
    const MarginLeg& leg = legs[i];
    if (leg.lots == 0) continue;
    // Insertion into (group, month) order; legs of a (group, month) add.
    std::size_t k = 0;
    while (k < n &&
           (nets[k].group < leg.group ||
            (nets[k].group == leg.group && nets[k].month < leg.month))) {
      ++k;
    }
    if (k < n && nets[k].group == leg.group && nets[k].month == leg.month) {
      nets[k].lots += leg.lots;
      continue;
    }
    for (std::size_t j = n; j > k; --j) nets[j] = nets[j - 1];
    nets[k] = Net{leg.group, leg.month, leg.lots,
                  static_cast<Int128>(leg.gpu_hours) * leg.price *
                      kMicrosPerPriceUnit * params.initial_margin_bp};
    ++n;
  }

  Int128 total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    total += Abs(nets[k].lots) * nets[k].margin * kBp;
  }

  // Spreads, group by group. With the months of a group sorted, the nearest
  // (long, short) pair among the months with lots left is always two
  // neighbours of the list with the empty months skipped: a month between
  // two opposite ones is opposite to one of them and nearer to it. The
  // first such neighbour pair in month order wins ties, which is the pair
  // with the earlier front month.
  for (std::size_t first = 0; first < n;) {
    std::size_t end = first;
    while (end < n && nets[end].group == nets[first].group) ++end;
    while (true) {
      std::size_t best_a = n;
      std::size_t best_b = n;
      int64_t best_gap = 0;
      std::size_t prev = n;
      for (std::size_t k = first; k < end; ++k) {
        if (nets[k].lots == 0) continue;
        if (prev != n && (nets[prev].lots > 0) != (nets[k].lots > 0)) {
          const int64_t gap =
              static_cast<int64_t>(nets[k].month) - nets[prev].month;
          if (best_a == n || gap < best_gap) {
            best_a = prev;
            best_b = k;
            best_gap = gap;
          }
        }
        prev = k;
      }
      if (best_a == n) break;
      Int128& a = nets[best_a].lots;
      Int128& b = nets[best_b].lots;
      const Int128 paired = Min(Abs(a), Abs(b));
      a += a > 0 ? -paired : paired;
      b += b > 0 ? -paired : paired;
      total -= paired * params.spread_credit_bp *
               (nets[best_a].margin + nets[best_b].margin);
    }
    first = end;
  }

  if (total <= 0) return 0;
  constexpr Int128 kDenominator = static_cast<Int128>(kBp) * kBp;
  const Int128 micros = (total + kDenominator - 1) / kDenominator;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  return micros > kMax ? kMax : static_cast<int64_t>(micros);
}

}  // namespace cfx::exchange
