#include "exchange/core/engine.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/large_array.h"
#include "exchange/core/order_index.h"
#include "exchange/core/order_pool.h"
#include "exchange/core/price_ladder.h"
#include "exchange/core/reference/registry.h"

namespace cfx::exchange {
namespace internal {

void Apply::Run(const Command& cmd, EventSink& out) {
  s_.out = &out;
  s_.cmd = &cmd;
  if (cmd.seq <= s_.last_seq) {
    Reject(RejectCode::kSequenceOutOfOrder);
    return;
  }
  s_.last_seq = cmd.seq;
  if (++s_.epoch == 0) {
    for (Book& b : s_.books) {
      if (!b.listed) continue;
      for (uint32_t i = 0; i <= b.bids->size(); ++i)
        b.bids->at(i).touched_epoch = 0;
      for (uint32_t i = 0; i <= b.asks->size(); ++i)
        b.asks->at(i).touched_epoch = 0;
    }
    s_.epoch = 1;
  }
  const uint32_t expired = ExpireDue();
  if (s_.next_reference_change != 0 &&
      cmd.ts.nanos >= s_.next_reference_change) {
    AdvanceReference();
  }
  if (s_.next_open != 0 && cmd.ts.nanos >= s_.next_open) OpenDue();
  switch (cmd.type) {
    case CommandType::kNewOrder:
      NewOrder();
      break;
    case CommandType::kCancel:
      Cancel();
      break;
    case CommandType::kReplace:
      Replace();
      break;
    case CommandType::kMassCancel:
      MassCancel();
      break;
    case CommandType::kSetInstrumentState:
      SetState();
      break;
    case CommandType::kSetReferencePrice:
      SetReferencePrice();
      break;
    case CommandType::kEndOfSession:
      EndOfSession();
      break;
    case CommandType::kListInstrument:
      ListInstrument();
      break;
    case CommandType::kReferenceData:
      ReferenceData();
      break;
    case CommandType::kReportFailure:
      ReportFailure();
      break;
    case CommandType::kIndexFixing:
      IndexFixing();
      break;
    case CommandType::kCollateral:
      Collateral();
      break;
    case CommandType::kSettlementRerun:
      SettlementRerun();
      break;
    case CommandType::kKillSwitch:
      KillSwitch();
      break;
    case CommandType::kTimer: {
      Event& e = Base(EventType::kTimerDone);
      e.count = expired;
      break;
    }
    case CommandType::kNone:
    default:
      Reject(RejectCode::kUnknownCommand);
      break;
  }
  EmitBookLevels();
  if (s_.pre_open_books != 0) PublishIndicative();
}

// The new order's enumerated fields: side, order type, time in force, STP
// mode and flags.
inline RejectCode Apply::CheckOrderFields(const Command& c) const {
  if (c.side != Side::kBuy && c.side != Side::kSell) {
    return RejectCode::kInvalidSide;
  }
  if (c.order_type != OrderType::kLimit && c.order_type != OrderType::kMarket) {
    return RejectCode::kInvalidOrderType;
  }
  if (c.tif == TimeInForce::kNone ||
      static_cast<uint8_t>(c.tif) > static_cast<uint8_t>(TimeInForce::kGtd)) {
    return RejectCode::kInvalidTimeInForce;
  }
  if (static_cast<uint8_t>(c.stp) > static_cast<uint8_t>(StpMode::kDecrement)) {
    return RejectCode::kInvalidStpMode;
  }
  if ((c.flags & ~kKnownFlags) != 0) return RejectCode::kInvalidFlags;
  return RejectCode::kNone;
}

void Apply::NewOrder() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  if (RejectCode r = CheckOrderFields(c); r != RejectCode::kNone) {
    return Reject(r);
  }
  // A resent order is answered DUPLICATE whatever has changed since the
  // original (state, band, position), so this comes before those checks.
  const bool has_client_order_id = c.client_order_id.value != 0;
  internal::ClientOrderIdSet::Probe client_order_id_slot;
  if (has_client_order_id) {
    client_order_id_slot =
        s_.client_order_ids.Find(c.account.value, c.client_order_id.value);
    if (client_order_id_slot.found) {
      return Reject(RejectCode::kDuplicateClientOrderId);
    }
  }
  if (Killed(c.account)) return Reject(RejectCode::kAccountKilled);
  if (b.state == InstrumentState::kExpired) {
    return Reject(RejectCode::kInstrumentExpired);
  }
  if (b.state != InstrumentState::kOpen) {
    if (b.state != InstrumentState::kPreOpen) {
      return Reject(RejectCode::kInstrumentNotOpen);
    }
    // The call period takes only orders that can wait for the auction.
    if (c.order_type != OrderType::kLimit || c.tif == TimeInForce::kIoc ||
        c.tif == TimeInForce::kFok || (c.flags & kFlagPostOnly) != 0) {
      return Reject(RejectCode::kNotAllowedInPreOpen);
    }
  }
  if (c.quantity < b.config.min_quantity) {
    return Reject(RejectCode::kQuantityBelowMinimum);
  }
  if (c.quantity > b.config.max_quantity) {
    return Reject(RejectCode::kQuantityAboveMaximum);
  }
  const bool market = c.order_type == OrderType::kMarket;
  if (market) {
    if (c.tif != TimeInForce::kIoc && c.tif != TimeInForce::kFok) {
      return Reject(RejectCode::kMarketOrderNeedsIocOrFok);
    }
  } else if (RejectCode r = CheckLimitPrice(b, c.price);
             r != RejectCode::kNone) {
    return Reject(r);
  }
  const bool can_rest =
      !market && c.tif != TimeInForce::kIoc && c.tif != TimeInForce::kFok;
  const bool post_only = (c.flags & kFlagPostOnly) != 0;
  if (post_only && !can_rest) return Reject(RejectCode::kPostOnlyNotAllowed);
  if (c.tif == TimeInForce::kGtd) {
    if (c.expire_time().nanos == 0)
      return Reject(RejectCode::kMissingExpireTime);
    if (c.expire_time() <= c.ts) return Reject(RejectCode::kExpireTimeInPast);
  }
  const Price limit =
      market ? (IsBuy(c.side) ? b.buy_protect : b.sell_protect) : c.price;
  if (!market) {
    if (RejectCode r = CheckBand(b, c.side, c.price); r != RejectCode::kNone) {
      return Reject(r);
    }
  }
  if (RejectCode r = CheckNotional(b, limit, c.quantity);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckPositionLimit(b, c.account, c.instrument, c.side,
                                        c.quantity.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r =
          CheckMargin(b, c.account, c.instrument, c.side, c.quantity.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  uint32_t detail = 0;
  if (CheckGradeEligibility(b, c.account, c.side, c.quantity.lots, &detail) !=
      RejectCode::kNone) {
    return RejectNotEligible(detail);
  }
  if (!SpotTradeRoom(b, c.quantity.lots)) {
    return Reject(RejectCode::kSystemBusy);
  }
  if (post_only && WouldCross(b, c.side, c.price)) {
    return Reject(RejectCode::kPostOnlyWouldCross);
  }
  if (can_rest && s_.free_head == 0) return Reject(RejectCode::kOrderBookFull);
  if (has_client_order_id) {
    // No room also when the pair's bounded probe run is taken (see
    // ClientOrderIdSet): as rare as chance under the table key.
    if (s_.client_order_ids.full() || !client_order_id_slot.room) {
      return Reject(RejectCode::kClientOrderIdLimit);
    }
    s_.client_order_ids.Insert(client_order_id_slot, c.account.value,
                               c.client_order_id.value);
  }

  Taker t;
  t.id = OrderId{s_.next_order_id++};
  t.client_order_id = c.client_order_id;
  t.account = c.account;
  t.side = c.side;
  t.limit = limit;
  t.event_price = market ? Price{0} : c.price;
  t.leaves = c.quantity;
  t.stp = c.stp == StpMode::kAccountDefault ? s_.accounts[c.account.value].stp
                                            : c.stp;
  Event& accepted = TakerEvent(EventType::kOrderAccepted, t, c.instrument);
  accepted.quantity = c.quantity;
  accepted.order_type = c.order_type;
  accepted.tif = c.tif;

  if (c.tif == TimeInForce::kFok && !FokFillable(b, t)) {
    CancelTaker(t, c.instrument, CancelReason::kFokNotFilled, t.leaves.lots);
    return;
  }
  if (b.state == InstrumentState::kOpen) Match(b, t, c.instrument);
  Finish(b, t, c.instrument, c.order_type, c.tif);
}

void Apply::Finish(Book& b, Taker& t, InstrumentId inst, OrderType type,
                   TimeInForce tif) {
  const Command& c = *s_.cmd;
  if (t.cancelled || t.leaves.lots == 0) {
    if (t.slot != 0) FreeSlot(s_, t.slot);
    return;
  }
  if (type == OrderType::kMarket) {
    const bool blocked = IsBuy(t.side) ? b.best_ask != 0 : b.best_bid != 0;
    CancelTaker(
        t, inst,
        blocked ? CancelReason::kMarketProtection : CancelReason::kIocRemainder,
        t.leaves.lots);
    return;
  }
  if (tif == TimeInForce::kIoc || tif == TimeInForce::kFok) {
    CancelTaker(t, inst, CancelReason::kIocRemainder, t.leaves.lots);
    return;
  }
  uint32_t k = t.slot;
  if (k == 0) {
    k = AllocSlot(s_);
    Order& o = s_.orders[k];
    o.id = t.id;
    o.client_order_id = t.client_order_id;
    o.price = t.limit;
    o.quantity = c.quantity;
    o.leaves = t.leaves;
    o.filled = t.filled;
    o.expire_time = tif == TimeInForce::kGtd ? c.expire_time() : Timestamp{};
    o.account = t.account;
    o.instrument = inst;
    o.side = t.side;
    o.tif = tif;
    o.stp = t.stp;
    o.flags = c.flags;
    RegisterOrder(s_, k);
  } else {
    Order& o = s_.orders[k];
    o.leaves = t.leaves;
    o.filled = t.filled;
  }
  Rest(b, k);
}

void Apply::Cancel() {
  const Command& c = *s_.cmd;
  const uint32_t k = s_.index.Find(c.order_id().value);
  if (k == 0 || s_.orders[k].account != c.account) {
    return Reject(RejectCode::kUnknownOrder);
  }
  Book& b = s_.books[s_.orders[k].instrument.value];
  CancelResting(b, k, EventType::kCancelAccepted, CancelReason::kUserRequest);
}

void Apply::Replace() {
  const Command& c = *s_.cmd;
  const uint32_t k = s_.index.Find(c.order_id().value);
  if (k == 0 || s_.orders[k].account != c.account) {
    return Reject(RejectCode::kUnknownOrder);
  }
  Order& o = s_.orders[k];
  // Unreachable while kills cancel every resting order; kept so that the
  // rule does not depend on that.
  if (Killed(o.account)) return Reject(RejectCode::kAccountKilled);
  Book& b = s_.books[o.instrument.value];
  if (b.state != InstrumentState::kOpen &&
      b.state != InstrumentState::kPreOpen) {
    return Reject(RejectCode::kInstrumentNotOpen);
  }
  if (c.quantity < b.config.min_quantity) {
    return Reject(RejectCode::kQuantityBelowMinimum);
  }
  if (c.quantity > b.config.max_quantity) {
    return Reject(RejectCode::kQuantityAboveMaximum);
  }
  if (c.quantity <= o.filled) {
    return Reject(RejectCode::kReplaceQuantityNotAboveFilled);
  }
  if (RejectCode r = CheckLimitPrice(b, c.price); r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckBand(b, o.side, c.price); r != RejectCode::kNone) {
    return Reject(r);
  }
  if (c.price == o.price && c.quantity == o.quantity) {
    return Reject(RejectCode::kReplaceNoChange);
  }
  const int64_t new_leaves = c.quantity.lots - o.filled.lots;
  if (RejectCode r = CheckPositionLimit(b, o.account, o.instrument, o.side,
                                        new_leaves - o.leaves.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  if (RejectCode r = CheckMargin(b, o.account, o.instrument, o.side,
                                 new_leaves - o.leaves.lots);
      r != RejectCode::kNone) {
    return Reject(r);
  }
  uint32_t detail = 0;
  if (CheckGradeEligibility(b, o.account, o.side, new_leaves - o.leaves.lots,
                            &detail) != RejectCode::kNone) {
    return RejectNotEligible(detail);
  }
  if (!SpotTradeRoom(b, new_leaves)) return Reject(RejectCode::kSystemBusy);
  const bool price_changed = c.price != o.price;
  if ((o.flags & kFlagPostOnly) != 0 && price_changed &&
      WouldCross(b, o.side, c.price)) {
    return Reject(RejectCode::kPostOnlyWouldCross);
  }

  if (!price_changed && new_leaves <= o.leaves.lots) {
    // Quantity down at the same price: keeps its place in the queue.
    Reduce(b, k, o.leaves.lots - new_leaves);
    o.quantity = c.quantity;
    o.client_order_id = c.client_order_id;
    OrderEvent(EventType::kOrderReplaced, o);
    return;
  }
  // Loses priority: leave the level, match if it now crosses, rest again.
  Unrest(b, k);
  o.price = c.price;
  o.quantity = c.quantity;
  o.leaves = Quantity{new_leaves};
  o.client_order_id = c.client_order_id;
  OrderEvent(EventType::kOrderReplaced, o);
  Taker t;
  t.slot = k;
  t.id = o.id;
  t.client_order_id = o.client_order_id;
  t.account = o.account;
  t.side = o.side;
  t.limit = o.price;
  t.event_price = o.price;
  t.leaves = o.leaves;
  t.filled = o.filled;
  t.stp = o.stp;
  const InstrumentId inst = o.instrument;
  if (b.state == InstrumentState::kOpen) Match(b, t, inst);
  Finish(b, t, inst, OrderType::kLimit, o.tif);
}

void Apply::MassCancel() {
  const Command& c = *s_.cmd;
  if (c.instrument.value != 0 && FindBook(c.instrument) == nullptr) {
    return Reject(RejectCode::kUnknownInstrument);
  }
  if (!AccountKnown(c.account)) return Reject(RejectCode::kUnknownAccount);
  uint32_t n = 0;
  uint32_t k = s_.accounts[c.account.value].head;
  while (k != 0) {
    const uint32_t next = s_.orders[k].account_next;
    const InstrumentId inst = s_.orders[k].instrument;
    if (c.instrument.value == 0 || inst == c.instrument) {
      CancelResting(s_.books[inst.value], k, EventType::kOrderCancelled,
                    CancelReason::kMassCancel);
      ++n;
    }
    k = next;
  }
  Event& e = Base(EventType::kMassCancelDone);
  e.account = c.account;
  e.instrument = c.instrument;
  e.client_order_id = c.client_order_id;
  e.count = n;
}

void Apply::SetState() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  if (c.state == InstrumentState::kNone ||
      static_cast<uint8_t>(c.state) >
          static_cast<uint8_t>(InstrumentState::kExpired)) {
    return Reject(RejectCode::kInvalidInstrumentState);
  }
  const uint64_t length = c.pre_open_nanos();
  if (length != 0 && (c.state != InstrumentState::kPreOpen ||
                      length > kMaxPreOpenNanos)) {
    return Reject(RejectCode::kInvalidPreOpenLength);
  }
  if (b.state == InstrumentState::kExpired || c.state == b.state) {
    return Reject(RejectCode::kInvalidStateTransition);
  }
  const InstrumentState before = b.state;
  b.state = c.state;
  b.open_at = length != 0 ? c.ts.nanos + static_cast<int64_t>(length) : 0;
  Event& e = Base(EventType::kInstrumentStateChanged);
  e.instrument = c.instrument;
  e.state = c.state;
  e.client_order_id = c.client_order_id;
  e.set_open_time(Timestamp{b.open_at});
  if (c.state == InstrumentState::kPreOpen) b.indicative_due = true;
  if (c.state == InstrumentState::kOpen &&
      (before == InstrumentState::kPreOpen || Crossed(b))) {
    OpenBook(b, c.instrument);
  } else if (c.state == InstrumentState::kClosed ||
             c.state == InstrumentState::kExpired) {
    const bool all = c.state == InstrumentState::kExpired;
    ExpireOrders(b,
                 all ? CancelReason::kInstrumentExpired : CancelReason::kExpired,
                 all);
  }
  RefreshPreOpen(s_);
}

void Apply::EndOfSession() {
  const Command& c = *s_.cmd;
  if (c.instrument.value != 0 && FindBook(c.instrument) == nullptr) {
    return Reject(RejectCode::kUnknownInstrument);
  }
  uint32_t n = 0;
  for (uint32_t id = 1; id < s_.books.size(); ++id) {
    Book& b = s_.books[id];
    if (!b.listed || (c.instrument.value != 0 && id != c.instrument.value)) {
      continue;
    }
    n += ExpireOrders(b, CancelReason::kExpired, /*all=*/false);
  }
  // The trading day ends: client order ids may be used again.
  if (c.instrument.value == 0) s_.client_order_ids.Clear();
  Event& e = Base(EventType::kSessionEnded);
  e.instrument = c.instrument;
  e.count = n;
}

void Apply::SetReferencePrice() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  if (c.price.units <= 0 || c.price > bp->config.max_price) {
    return Reject(RejectCode::kInvalidReferencePrice);
  }
  SetReference(*bp, c.price);
  if (bp->state == InstrumentState::kPreOpen) bp->indicative_due = true;
  Event& e = Base(EventType::kReferencePriceSet);
  e.instrument = c.instrument;
  e.price = c.price;
}

void Apply::ListInstrument() {
  const Command& c = *s_.cmd;
  Book* bp = FindBook(c.instrument);
  if (bp == nullptr) return Reject(RejectCode::kUnknownInstrument);
  Book& b = *bp;
  // Only a spot slot is listed by command, and only when it holds no live
  // instrument: never listed, or expired (every order already gone).
  if (b.config.kind != InstrumentKind::kSpot ||
      b.config.initial_state != InstrumentState::kNone ||
      (b.state != InstrumentState::kNone &&
       b.state != InstrumentState::kExpired)) {
    return Reject(RejectCode::kInvalidListing);
  }
  // 9999-12-31 is day 2,932,896.
  const int64_t day = c.delivery_day();
  if (day <= 0 || day > 2'932'896) return Reject(RejectCode::kInvalidListing);
  // Price 0: the slot's reference, the configured initial reference until
  // the grade's index fixes, then the latest fixing (DESIGN.md §2), which
  // is on $0.001, not necessarily on the tick. A price given is on the tick.
  const Price ref = c.price.units == 0 ? b.reference : c.price;
  if (ref.units <= 0 || ref > b.config.max_price ||
      (c.price.units != 0 && ref.units % b.config.tick.units != 0)) {
    return Reject(RejectCode::kInvalidReferencePrice);
  }
  // A new instrument in the slot: nothing of the previous one remains. Its
  // trades leave the table: their delivery day, and with it the failure
  // deadline, has passed (the calendar lists a slot again only for a later
  // day than the one it held).
  for (uint32_t a = 0; a < s_.accounts.size(); ++a) {
    Row(AccountId{a}, c.instrument) = PositionRow{};
  }
  std::erase_if(s_.spot_trades, [&](const internal::SpotTrade& t) {
    return t.instrument == c.instrument.value;
  });
  b.delivery_day = day;
  b.state = InstrumentState::kOpen;
  SetReference(b, ref);
  Event& e = Base(EventType::kInstrumentListed);
  e.instrument = c.instrument;
  e.state = b.state;
  e.price = ref;
  e.set_delivery_day(day);
}

}  // namespace internal

namespace {

using internal::Apply;
using internal::Book;
using internal::EngineState;
using internal::Order;
using internal::PriceLadder;
using internal::SetReference;

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Create(const EngineConfig& config) {
  CFX_RETURN_IF_ERROR(ValidateEngineConfig(config));
  auto s = std::make_unique<EngineState>(config);
  const EngineLimits& l = config.limits;
  s->books.resize(l.max_instruments);
  uint64_t total_levels = 0;
  for (const InstrumentConfig& ic : config.instruments) {
    Book& b = s->books[ic.id.value];
    b.config = ic;
    b.listed = true;
    b.state = ic.initial_state;
    const auto levels =
        static_cast<uint32_t>(ic.max_price.units / ic.tick.units);
    b.bids = std::make_unique<PriceLadder>(levels);
    b.asks = std::make_unique<PriceLadder>(levels);
    total_levels += 2ull * (levels + 1);
    SetReference(b, ic.reference_price);
  }
  s->accounts.resize(l.max_accounts);
  for (const AccountConfig& a : config.accounts) {
    s->accounts[a.id.value].configured = true;
    s->accounts[a.id.value].stp = a.stp;
    s->accounts[a.id.value].collateral = a.collateral.micros;
  }
  s->positions.resize(static_cast<std::size_t>(l.max_accounts) *
                      l.max_instruments);
  if (!s->client_order_ids.ok()) {
    return Status(StatusCode::kResourceExhausted,
                  "engine: cannot allocate the client order id table for " +
                      std::to_string(l.max_client_order_ids) + " ids");
  }
  s->orders = internal::AllocateLarge<Order>(l.max_orders + 1);
  // Free list in ascending slot order.
  for (uint32_t k = l.max_orders; k >= 1; --k) {
    s->orders[k].next = s->free_head;
    s->free_head = k;
  }
  s->heap.reset(new uint32_t[l.max_orders + 1]());
  s->spot_trades.reserve(l.max_spot_trades);
  s->spot_failure_deadline_ns = config.spot_failure_deadline_ns;
  s->registry = std::make_unique<Registry>(config.reference);
  s->empty_registry_hash = s->registry->Hash();
  s->next_reference_change = s->registry->next_change().nanos;
  s->eligibility.assign(static_cast<std::size_t>(l.max_accounts) * kMaxGrades,
                        EligibilityRow{});
  s->eligibility_required = !config.reference.grades.empty();
  s->grades = static_cast<uint32_t>(config.reference.grades.size());
  for (const InstrumentConfig& ic : config.instruments) {
    if (ic.kind == InstrumentKind::kSpot) s->spot_books.push_back(ic.id.value);
  }
  std::sort(s->spot_books.begin(), s->spot_books.end());
  for (const InstrumentConfig& ic : config.instruments) {
    if (ic.margin_group != 0) s->margined_books.push_back(ic.id.value);
  }
  std::sort(s->margined_books.begin(), s->margined_books.end());
  s->margin = config.margin;
  s->touched.reset(new internal::Touched[total_levels + 1]);
  internal::RefreshPreOpen(*s);
  return std::unique_ptr<Engine>(new Engine(std::move(s)));
}

Engine::Engine(std::unique_ptr<internal::EngineState> state)
    : s_(std::move(state)) {}

Engine::~Engine() = default;

void Engine::Apply(const Command& cmd, EventSink& out) noexcept {
  class Apply a(*s_);
  a.Run(cmd, out);
}

void Engine::Apply(const Command& cmd, std::string_view payload,
                   EventSink& out) noexcept {
  s_->payload = payload;
  class Apply a(*s_);
  a.Run(cmd, out);
  s_->payload = {};
}

namespace {

bool TargetsOrder(const Command& c) {
  return c.type == CommandType::kCancel || c.type == CommandType::kReplace;
}

// How many commands ahead a new order's client order id slot is
// prefetched: further than the stages below, because the table is far
// larger than the caches (128 MiB at the default size), so a lookup misses
// the caches and mostly the TLB too. 3 to 10 measured alike with `cfx-bench
// engine --workload standard` (53 % new orders); without the prefetch the
// run took twice as long.
constexpr std::size_t kClientOrderIdAhead = 8;

// The client order id slot of a new order. Forced inline: GCC 12's IPA
// finds a void function whose only effect is __builtin_prefetch "pure" and
// deletes the calls. It does the same to PrefetchOrder() and
// PrefetchNeighbours() below, which are compiled out today; forcing them
// inline made `cfx-bench engine` deep 1.5x faster and standard 35 % slower,
// a trade-off left to its own change.
[[gnu::always_inline]] inline void PrefetchClientOrderId(const EngineState& s,
                                                         const Command& c) {
  if (c.type == CommandType::kNewOrder && c.client_order_id.value != 0) {
    s.client_order_ids.Prefetch(c.account.value, c.client_order_id.value);
  }
}

// Stage 1 of the prefetch pipeline: the index entry of the target order.
void PrefetchIndex(const EngineState& s, const Command& c) {
  if (TargetsOrder(c)) s.index.Prefetch(c.target);
}

// Stage 2: the target order itself (its index entry is in cache by now).
void PrefetchOrder(const EngineState& s, const Command& c) {
  if (!TargetsOrder(c)) return;
  const uint32_t k = s.index.Find(c.target);
  if (k == 0) return;
  const char* p = reinterpret_cast<const char*>(&s.orders[k]);
  __builtin_prefetch(p);
  __builtin_prefetch(p + sizeof(Order) - 1);
}

// Stage 3: what applying the command will unlink or append to: the target
// order's queue and account-list neighbours, or for a new order the tail
// of its price level and of its account's list.
void PrefetchNeighbours(const EngineState& s, const Command& c) {
  if (TargetsOrder(c)) {
    const uint32_t k = s.index.Find(c.target);
    if (k == 0) return;
    const Order& o = s.orders[k];
    __builtin_prefetch(&s.orders[o.prev]);
    __builtin_prefetch(&s.orders[o.next]);
    __builtin_prefetch(&s.orders[o.account_prev]);
    __builtin_prefetch(&s.orders[o.account_next]);
    return;
  }
  if (c.type != CommandType::kNewOrder) return;
  if (c.account.value != 0 && c.account.value < s.accounts.size()) {
    __builtin_prefetch(&s.orders[s.accounts[c.account.value].tail]);
  }
  if (c.instrument.value == 0 || c.instrument.value >= s.books.size()) return;
  const Book& b = s.books[c.instrument.value];
  if (!b.listed || (c.side != Side::kBuy && c.side != Side::kSell) ||
      c.price.units <= 0 || c.price > b.config.max_price) {
    return;
  }
  const auto i = static_cast<uint32_t>(c.price.units / b.config.tick.units);
  __builtin_prefetch(&s.orders[b.ladder(c.side).at(i).tail]);
}

}  // namespace

void Engine::ApplyBatch(const Command* cmds, std::size_t n,
                        EventSink& out) noexcept {
  class Apply a(*s_);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kClientOrderIdAhead < n) {
      PrefetchClientOrderId(*s_, cmds[i + kClientOrderIdAhead]);
    }
    if (i + 3 < n) PrefetchIndex(*s_, cmds[i + 3]);
    if (i + 2 < n) PrefetchOrder(*s_, cmds[i + 2]);
    if (i + 1 < n) PrefetchNeighbours(*s_, cmds[i + 1]);
    a.Run(cmds[i], out);
  }
}

}  // namespace cfx::exchange
