// Internal to exchange_core: Apply, the handler of one command over the
// engine's state (EngineState), on top of the order book (order_book.h) and
// the order pool (order_pool.h). Its member functions are defined by
// concern: the pre-trade checks and the margin check inline here (they are
// on the matching path); the command handlers in engine.cc; the margin legs
// and the collateral command in risk.cc; the eligibility of spot sellers in
// eligibility.cc; the failure report of a spot trade in spot_trades.cc; the
// kill switch, the index fixing and the settlement re-run in
// operator_commands.cc.

#pragma once

#include <cstddef>
#include <cstdint>

#include "exchange/core/engine_state.h"
#include "exchange/core/margin.h"
#include "exchange/core/money.h"
#include "exchange/core/order_book.h"

namespace cfx::exchange {
namespace internal {

class Apply : public OrderBook {
 public:
  explicit Apply(EngineState& s) : OrderBook(s) {}

  void Run(const Command& cmd, EventSink& out);

 private:
  // ---- pre-trade checks shared by new order and replace ----
  RejectCode CheckLimitPrice(const Book& b, Price p) const {
    if (p.units <= 0) return RejectCode::kInvalidPrice;
    if (p.units % b.config.tick.units != 0) return RejectCode::kPriceNotOnTick;
    if (p > b.config.max_price) return RejectCode::kPriceOutOfRange;
    return RejectCode::kNone;
  }

  RejectCode CheckBand(const Book& b, Side side, Price p) const {
    if (IsBuy(side) ? p > b.band_high : p < b.band_low) {
      return RejectCode::kPriceOutsideBand;
    }
    return RejectCode::kNone;
  }

  RejectCode CheckNotional(const Book& b, Price p, Quantity q) const {
    return Notional(p, q, b.config.gpu_hours_per_lot).has_value()
               ? RejectCode::kNone
               : RejectCode::kNotionalOverflow;
  }

  // `added` = extra open lots on `side` that the command would create.
  RejectCode CheckPositionLimit(const Book& b, AccountId a, InstrumentId inst,
                                Side side, int64_t added) {
    const int64_t limit = b.config.position_limit.lots;
    if (limit == 0 || added <= 0) return RejectCode::kNone;
    const PositionRow& r = Row(a, inst);
    const int64_t exposure =
        IsBuy(side) ? r.position + r.open_buy : -r.position + r.open_sell;
    if (exposure + added > limit) return RejectCode::kPositionLimitExceeded;
    return RejectCode::kNone;
  }

  // ---- initial margin (DESIGN.md §5, docs/matching.md "Margin") ----
  // The lots of row `r` of book `b` when every open buy fills (*buy) and
  // when every open sell fills (*sell), with `buy_extra` and `sell_extra`
  // more open lots. False when one of them, or its |lots| x gpu_hours x
  // reference price, leaves int64 (InitialMargin's precondition).
  static bool WorstLots(const PositionRow& r, const Book& b, int64_t buy_extra,
                        int64_t sell_extra, int64_t* buy, int64_t* sell);

  // Fills buy[] and sell[] with the margin legs of account `a` in its two
  // worst cases: a leg per margined instrument that is not expired and in
  // which `a` holds a position or open orders, or which is `inst`, at the
  // instrument's reference price (the last DSP, else the configured
  // initial reference). `inst` (0: none) gets `buy_extra` and `sell_extra`
  // more open lots; *at is the index of its leg. Returns the leg count, or
  // -1 when WorstLots() fails for a leg.
  int BuildLegs(AccountId a, uint32_t inst, int64_t buy_extra,
                int64_t sell_extra, MarginLeg* buy, MarginLeg* sell,
                std::size_t* at);

  int64_t WorstMargin(const MarginLeg* buy, const MarginLeg* sell, int n);

  // Pre-trade margin check of an order on `b` that adds `added` open lots
  // (negative: removes) on `side` for account `a`. INSUFFICIENT_MARGIN iff
  // the worst case with them exceeds the collateral and the worst case
  // without them; NOTIONAL_OVERFLOW when a worst-case leg, with or without
  // them, leaves int64. Spot instruments are not margined.
  RejectCode CheckMargin(const Book& b, AccountId a, InstrumentId inst,
                         Side side, int64_t added) {
    if (b.config.margin_group == 0 || added == 0) return RejectCode::kNone;
    MarginLeg buy[kMaxMarginLegs];
    MarginLeg sell[kMaxMarginLegs];
    std::size_t at = 0;
    const int n = BuildLegs(a, inst.value, IsBuy(side) ? added : 0,
                            IsBuy(side) ? 0 : added, buy, sell, &at);
    int64_t buy_without = 0;
    int64_t sell_without = 0;
    if (n < 0 ||
        !WorstLots(Row(a, inst), b, 0, 0, &buy_without, &sell_without)) {
      return RejectCode::kNotionalOverflow;
    }
    const int64_t with = WorstMargin(buy, sell, n);
    if (with <= s_.accounts[a.value].collateral) return RejectCode::kNone;
    buy[at].lots = buy_without;
    sell[at].lots = sell_without;
    return with > WorstMargin(buy, sell, n) ? RejectCode::kInsufficientMargin
                                            : RejectCode::kNone;
  }

  // The account's margin requirement: its worst case as it stands, or -1
  // when a leg leaves int64.
  int64_t MarginRequirement(AccountId a);

  // The account's kill switch is on (kKillSwitch): new orders and replaces
  // are refused with ACCOUNT_KILLED.
  bool Killed(AccountId a) const { return s_.accounts[a.value].killed; }

  bool WouldCross(const Book& b, Side side, Price p) const {
    return Crosses(b, side, p);
  }

  // ---- commands ----
  RejectCode CheckOrderFields(const Command& c) const;
  void NewOrder();
  void Cancel();
  void Replace();
  void MassCancel();
  void SetState();
  void SetReferencePrice();
  void ListInstrument();
  void ReferenceData();
  void ReportFailure();
  void IndexFixing();
  void Collateral();
  void SettlementRerun();
  void KillSwitch();

  // ---- pre-open and the opening auction (auction.cc) ----
  // The opening price of a crossed book: the level index, the lots that
  // trade there and what is left on each side (docs/matching.md, "Pre-open
  // and the opening auction").
  struct Uncross {
    uint32_t level = 0;
    int64_t lots = 0;
    int64_t buy_surplus = 0;
    int64_t sell_surplus = 0;
  };
  Uncross FindUncross(const Book& b) const;
  // Trades the crossed part of `b` at level `level`; returns the lots.
  int64_t UncrossAt(Book& b, InstrumentId inst, uint32_t level);
  // Opens `b` (state kOpen already set): uncrosses, then InstrumentOpened.
  void OpenBook(Book& b, InstrumentId inst);
  // Opens the books whose scheduled open is due at the command's time.
  void OpenDue();
  // IndicativeOpen for every PRE_OPEN book marked indicative_due.
  void PublishIndicative();

  // ---- eligibility (reference data) ----
  void AdvanceReference();

  // Lots `a` has committed in spot instrument `id`: resting sells plus lots
  // already sold (a negative position).
  int64_t Committed(AccountId a, uint32_t id);
  // The account's committed lots over every grade's instrument of one
  // delivery day, and the most nodes any grade lets it sell.
  int64_t CommittedOnDay(AccountId a, int64_t day);
  int64_t MaxNodes(AccountId a);
  // A spot sell adding `extra` lots in `b` (DESIGN.md §3): the account must
  // be eligible for the grade, and its attested nodes must cover what it
  // has committed for the delivery day, in the grade and over all grades.
  // On a reject *detail is the Eligibility naming the missing requirement.
  RejectCode CheckGradeEligibility(const Book& b, AccountId a, Side side,
                                   int64_t extra, uint32_t* detail) {
    if (!s_.eligibility_required || b.config.kind != InstrumentKind::kSpot ||
        side != Side::kSell || extra <= 0) {
      return RejectCode::kNone;
    }
    return CheckSpotSellEligibility(b, a, extra, detail);
  }
  RejectCode CheckSpotSellEligibility(const Book& b, AccountId a, int64_t extra,
                                      uint32_t* detail);

  void RejectNotEligible(uint32_t detail);
  // Stores the changed rows, tells about each, and cancels the resting spot
  // sells the account may no longer keep (GRADE_ELIGIBILITY_LOST): all of
  // them in a grade it lost, else the newest first until what it has
  // committed per instrument and per delivery day fits its nodes.
  void ApplyEligibilityChanges();
  // The account's newest resting sell among the spot instruments that
  // `match(book id)` accepts; 0 when none.
  template <typename Accepts>
  uint32_t NewestSell(AccountId a, Accepts match);
  void CancelLost(uint32_t k);
  void EnforceEligibility(AccountId a);
  void EndOfSession();

  // Rests a taker's remainder, or cancels it per its time in force.
  void Finish(Book& b, Taker& t, InstrumentId inst, OrderType type,
              TimeInForce tif);
};

}  // namespace internal
}  // namespace cfx::exchange
