#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/event.h"
#include "exchange/core/margin.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/types.h"

namespace cfx::exchange::testing {

// A resting order as the reference keeps it.
struct RefOrder {
  OrderId id;
  ClientOrderId client_order_id;
  AccountId account;
  InstrumentId instrument;
  Side side = Side::kNone;
  // Limit price; 0 for a market order (which never rests).
  Price price;
  // Total order quantity as entered or last replaced, filled included.
  Quantity quantity;
  Quantity leaves;
  Quantity filled;
  TimeInForce tif = TimeInForce::kNone;
  uint8_t flags = 0;
  // 0 unless tif is GTD.
  Timestamp expire_time;
  // Self-trade prevention mode resolved at entry: never kAccountDefault.
  StpMode stp = StpMode::kCancelNewest;
  // Lots removed by self-trade decrement since `quantity` was last set, so
  // that quantity == leaves + filled + stp_decremented always holds.
  Quantity stp_decremented;
  // Seq of the command that gave the order its current time priority (its
  // entry, or the replace that lost priority). Strictly increasing along
  // each price level.
  uint64_t priority = 0;
};

// A deliberately naive implementation of docs/matching.md, used as the oracle
// of the engine's differential test: std::map price levels of std::deque
// FIFOs, linear scans for every lookup, no pools and no limits but the ones
// the spec names. Clarity over speed.
//
// Thread: single-threaded test code. Memory: allocates freely.
class ReferenceEngine {
 public:
  // REQUIRES: `config` passes ValidateEngineConfig().
  explicit ReferenceEngine(const EngineConfig& config);

  // Applies one command and appends its events to `out`, exactly as
  // docs/matching.md specifies (same events, order and fields as Engine).
  void Apply(const Command& cmd, std::vector<Event>& out);

  // The state hash of docs/matching.md, "State hash".
  uint64_t StateHash() const;

  // Read-only views for invariant checks and test generators.
  Seq last_seq() const { return last_seq_; }
  Timestamp last_ts() const { return last_ts_; }
  // The earliest scheduled open of a PRE_OPEN instrument; 0 = none.
  Timestamp next_open() const;
  uint64_t next_order_id() const { return next_order_id_; }
  uint64_t next_trade_id() const { return next_trade_id_; }
  // Configured ids, ascending.
  std::vector<InstrumentId> instrument_ids() const;
  std::vector<AccountId> account_ids() const;
  bool has_instrument(InstrumentId id) const;
  bool has_account(AccountId id) const;
  // REQUIRES: has_instrument(id).
  const InstrumentConfig& instrument_config(InstrumentId id) const;
  InstrumentState state(InstrumentId id) const;
  Price reference_price(InstrumentId id) const;
  // Resting orders of one side in priority order: best price first, FIFO
  // within a price.
  std::vector<RefOrder> RestingOrders(InstrumentId id, Side side) const;
  // Every resting order, by order id.
  std::vector<RefOrder> AllRestingOrders() const;
  // The resting order with `id`, or nullptr.
  const RefOrder* FindOrder(OrderId id) const;
  std::size_t resting_orders() const;
  // As Engine: Price{0} when the side is empty or the instrument unknown.
  Price best_price(InstrumentId id, Side side) const;
  Quantity level_quantity(InstrumentId id, Side side, Price price) const;
  int64_t position(AccountId account, InstrumentId instrument) const;
  // True if `account` used `id` on a new order accepted in the current
  // trading day.
  bool client_order_id_used(AccountId account, ClientOrderId id) const;
  // Collateral in micro-dollars and the last settlement date booked (0 =
  // none); 0 for an unknown account.
  int64_t collateral(AccountId account) const;
  int64_t settled_date(AccountId account) const;
  bool killed(AccountId account) const { return killed_.count(account.value) != 0; }
  // The account's margin requirement: the larger initial margin of "every
  // open buy fills" and "every open sell fills"; -1 when a leg's
  // |lots| x GPU-hours x price leaves int64.
  int64_t MarginRequirement(AccountId account) const;

 private:
  // Price levels of one side, keyed by price units, ascending. Bids are
  // walked from the back (best = highest), asks from the front.
  using Levels = std::map<int64_t, std::deque<RefOrder>>;

  struct Instrument {
    InstrumentConfig config;
    InstrumentState state = InstrumentState::kNone;
    Price reference;
    Levels bids;
    Levels asks;
    int64_t open_at = 0;  // PRE_OPEN with a scheduled open: its time
    bool indicative_due = false;
  };

  // The opening auction, naively: every tick of the crossed range tried.
  struct AuctionPrice {
    int64_t price = 0;
    int64_t lots = 0;
    int64_t buy_left = 0;
    int64_t sell_left = 0;
  };
  bool Crossed(const Instrument& inst) const;
  AuctionPrice FindAuctionPrice(const Instrument& inst) const;
  void OpenByAuction(InstrumentId id);
  void OpenDue(Timestamp ts);
  void EmitIndicative();

  // Key of one L2 level touched during a command, with its aggregate before
  // the command.
  struct TouchedLevel {
    InstrumentId instrument;
    Side side = Side::kNone;
    Price price;
    int64_t lots_before = 0;
    int64_t count_before = 0;
  };

  // Command handlers; each emits the result and its consequences.
  void NewOrder(const Command& cmd);
  void CancelOrder(const Command& cmd);
  void ReplaceOrder(const Command& cmd);
  void MassCancel(const Command& cmd);
  void SetInstrumentState(const Command& cmd);
  void SetReferencePrice(const Command& cmd);
  void EndOfSession(const Command& cmd);
  void Collateral(const Command& cmd);
  void KillSwitch(const Command& cmd);

  // The pre-trade margin check of docs/matching.md for an order that adds
  // `added` open lots on `side` of `instrument` (negative: removes them).
  RejectCode CheckMargin(AccountId account, InstrumentId instrument, Side side,
                         int64_t added) const;
  // Worst-case initial margin of `account` with `added` more open lots on
  // `side` of `instrument`; false when a leg leaves int64.
  bool WorstMargin(AccountId account, InstrumentId instrument, Side side,
                   int64_t added, int64_t* margin) const;

  // Expires due GTD orders; returns how many.
  uint32_t ExpireGtdOrders(Timestamp ts);
  // Matches `in` against the opposite side while the best opposite price is
  // at or better than `limit`. Leaves `in` with its remainder (0 if filled
  // or cancelled by self-trade prevention).
  void Match(RefOrder& in, Price limit);
  // FOK pre-check: other accounts' leaves reachable by `in` up to `limit`.
  bool FokCanFill(const RefOrder& in, Price limit) const;
  // Adds `o` at the back of its price level.
  void Rest(const RefOrder& o);
  // Removes the resting order `id` from its level and returns it.
  RefOrder Remove(OrderId id);

  Instrument* FindInstrument(InstrumentId id);
  const Instrument* FindInstrument(InstrumentId id) const;
  Levels& SideLevels(Instrument& inst, Side side);
  const Levels& SideLevels(const Instrument& inst, Side side) const;
  // Best level of `side`, or nullptr when empty.
  std::pair<const int64_t, std::deque<RefOrder>>* BestLevel(Instrument& inst,
                                                            Side side);
  // Prices of `side` from the best one outwards.
  std::vector<int64_t> PricesInPriority(const Instrument& inst,
                                        Side side) const;
  RefOrder* FindMutable(OrderId id);
  // Resting leaves of `account` on `side` of `instrument`.
  int64_t OpenLots(AccountId account, InstrumentId instrument, Side side) const;
  // Band half-widths, rounded down to a whole tick.
  int64_t LimitBand(const Instrument& inst) const;
  int64_t MarketBand(const Instrument& inst) const;
  Price ProtectionPrice(const Instrument& inst, Side side) const;

  // Records the aggregate of a level before its first change in a command.
  void Touch(InstrumentId instrument, Side side, Price price);
  std::pair<int64_t, int64_t> LevelAggregate(InstrumentId instrument, Side side,
                                             Price price) const;
  void EmitBookLevels();

  // Event builders; every event gets the current command's seq and ts.
  Event Base(EventType type) const;
  void Emit(const Event& e) { out_->push_back(e); }
  void EmitReject(const Command& cmd, RejectCode code);
  // An order event (accepted, cancelled, restated, replaced) from `o`.
  Event OrderEvent(EventType type, const RefOrder& o) const;
  // OrderCancelled / CancelAccepted of `o`: `lots` cancelled, leaves 0.
  void EmitCancelled(EventType type, const RefOrder& o, CancelReason reason,
                     int64_t lots);

  EngineLimits limits_;
  std::map<uint32_t, Instrument> instruments_;
  std::map<uint32_t, StpMode> accounts_;
  // (account, instrument) -> net position; zero entries may be present.
  std::map<std::pair<uint32_t, uint32_t>, int64_t> positions_;
  // (account, client order id) of the new orders accepted since the last
  // EndOfSession of all instruments; never holds id 0.
  std::set<std::pair<uint32_t, uint64_t>> client_order_ids_;
  // Account -> collateral (micro-dollars) and last settlement date booked.
  std::map<uint32_t, int64_t> collateral_;
  std::map<uint32_t, int64_t> settled_date_;
  // Accounts whose kill switch is on.
  std::set<uint32_t> killed_;
  MarginParams margin_;

  Seq last_seq_;
  Timestamp last_ts_;
  uint64_t next_order_id_ = 1;
  uint64_t next_trade_id_ = 1;

  // Per-command scratch.
  const Command* cmd_ = nullptr;
  std::vector<Event>* out_ = nullptr;
  std::vector<TouchedLevel> touched_;
};

// Initial margin of `legs`, computed from the rule in DESIGN.md §5 without
// sharing code with InitialMargin(): net lots per (group, month), then the
// nearest (long, short) month pair of a group first, as long as one is
// left. Same result, including rounding up and saturation.
int64_t ReferenceInitialMargin(const std::vector<MarginLeg>& legs,
                               const MarginParams& params);

// Readable one-line text of an event or a command, listing the non-default
// fields with enum names, for failure messages.
std::string DescribeEvent(const Event& e);
std::string DescribeCommand(const Command& c);
// Names of the fields in which `a` and `b` differ (empty when equal).
std::vector<std::string> DiffEvents(const Event& a, const Event& b);

}  // namespace cfx::exchange::testing
