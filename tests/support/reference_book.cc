#include "tests/support/reference_book.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>

#include "exchange/core/reject_code.h"
#include "exchange/core/state_hash.h"

namespace cfx::exchange::testing {

namespace {

__extension__ typedef __int128 Int128;

bool IsBuy(Side s) { return s == Side::kBuy; }

// True when an order on `side` with limit `limit` may trade at `price`.
bool PriceAcceptable(Side side, int64_t price, Price limit) {
  return IsBuy(side) ? price <= limit.units : price >= limit.units;
}

bool CanRest(OrderType type, TimeInForce tif) {
  return type == OrderType::kLimit &&
         (tif == TimeInForce::kDay || tif == TimeInForce::kGtc ||
          tif == TimeInForce::kGtd);
}

}  // namespace

ReferenceEngine::ReferenceEngine(const EngineConfig& config)
    : limits_(config.limits) {
  for (const InstrumentConfig& ic : config.instruments) {
    Instrument inst;
    inst.config = ic;
    inst.state = ic.initial_state;
    inst.reference = ic.reference_price;
    instruments_[ic.id.value] = inst;
  }
  for (const AccountConfig& ac : config.accounts) {
    accounts_[ac.id.value] = ac.stp;
    collateral_[ac.id.value] = ac.collateral.micros;
    settled_date_[ac.id.value] = 0;
  }
  margin_ = config.margin;
}

// ---------------------------------------------------------------------------
// Apply

void ReferenceEngine::Apply(const Command& cmd, std::vector<Event>& out) {
  cmd_ = &cmd;
  out_ = &out;
  touched_.clear();

  if (cmd.seq <= last_seq_) {
    // Changes nothing at all: not even time moves.
    EmitReject(cmd, RejectCode::kSequenceOutOfOrder);
    cmd_ = nullptr;
    out_ = nullptr;
    return;
  }
  last_seq_ = cmd.seq;
  last_ts_ = cmd.ts;

  const uint32_t expired = ExpireGtdOrders(cmd.ts);
  OpenDue(cmd.ts);

  switch (cmd.type) {
    case CommandType::kNewOrder:
      NewOrder(cmd);
      break;
    case CommandType::kCancel:
      CancelOrder(cmd);
      break;
    case CommandType::kReplace:
      ReplaceOrder(cmd);
      break;
    case CommandType::kMassCancel:
      MassCancel(cmd);
      break;
    case CommandType::kSetInstrumentState:
      SetInstrumentState(cmd);
      break;
    case CommandType::kSetReferencePrice:
      SetReferencePrice(cmd);
      break;
    case CommandType::kTimer: {
      Event e = Base(EventType::kTimerDone);
      e.count = expired;
      Emit(e);
      break;
    }
    case CommandType::kEndOfSession:
      EndOfSession(cmd);
      break;
    case CommandType::kIndexFixing:
      if (cmd.target == 0 || cmd.target > 2'932'896) {
        EmitReject(cmd, RejectCode::kInvalidFixingDay);
      } else {
        Event e = Base(EventType::kIndexFixing);
        e.count = static_cast<uint32_t>(cmd.target);
        Emit(e);
      }
      break;
    case CommandType::kCollateral:
      Collateral(cmd);
      break;
    case CommandType::kSettlementRerun:
      if (cmd.target == 0 || cmd.target > 2'932'896) {
        EmitReject(cmd, RejectCode::kInvalidSettlementDate);
      } else {
        Event e = Base(EventType::kSettlementRerun);
        e.count = static_cast<uint32_t>(cmd.target);
        e.client_order_id = cmd.client_order_id;
        Emit(e);
      }
      break;
    case CommandType::kKillSwitch:
      KillSwitch(cmd);
      break;
    default:
      EmitReject(cmd, RejectCode::kUnknownCommand);
      break;
  }

  EmitBookLevels();
  EmitIndicative();
  cmd_ = nullptr;
  out_ = nullptr;
}

uint32_t ReferenceEngine::ExpireGtdOrders(Timestamp ts) {
  std::vector<std::pair<int64_t, uint64_t>> due;  // (expire time, order id)
  for (const auto& [id, inst] : instruments_) {
    for (const Levels* levels : {&inst.bids, &inst.asks}) {
      for (const auto& [price, fifo] : *levels) {
        for (const RefOrder& o : fifo) {
          if (o.tif == TimeInForce::kGtd && o.expire_time <= ts) {
            due.emplace_back(o.expire_time.nanos, o.id.value);
          }
        }
      }
    }
  }
  std::sort(due.begin(), due.end());
  for (const auto& [expire, id] : due) {
    const RefOrder o = Remove(OrderId{id});
    EmitCancelled(EventType::kOrderCancelled, o, CancelReason::kExpired,
                  o.leaves.lots);
  }
  return static_cast<uint32_t>(due.size());
}

// ---------------------------------------------------------------------------
// New order

void ReferenceEngine::NewOrder(const Command& cmd) {
  Instrument* inst = FindInstrument(cmd.instrument);
  if (inst == nullptr) return EmitReject(cmd, RejectCode::kUnknownInstrument);
  if (!has_account(cmd.account)) {
    return EmitReject(cmd, RejectCode::kUnknownAccount);
  }
  if (cmd.side != Side::kBuy && cmd.side != Side::kSell) {
    return EmitReject(cmd, RejectCode::kInvalidSide);
  }
  if (cmd.order_type != OrderType::kLimit &&
      cmd.order_type != OrderType::kMarket) {
    return EmitReject(cmd, RejectCode::kInvalidOrderType);
  }
  const auto tif = static_cast<uint8_t>(cmd.tif);
  if (tif < static_cast<uint8_t>(TimeInForce::kDay) ||
      tif > static_cast<uint8_t>(TimeInForce::kGtd)) {
    return EmitReject(cmd, RejectCode::kInvalidTimeInForce);
  }
  if (static_cast<uint8_t>(cmd.stp) >
      static_cast<uint8_t>(StpMode::kDecrement)) {
    return EmitReject(cmd, RejectCode::kInvalidStpMode);
  }
  if ((cmd.flags & ~kKnownFlags) != 0) {
    return EmitReject(cmd, RejectCode::kInvalidFlags);
  }
  const std::pair<uint32_t, uint64_t> client_key(cmd.account.value,
                                                 cmd.client_order_id.value);
  if (cmd.client_order_id.value != 0 &&
      client_order_ids_.count(client_key) != 0) {
    return EmitReject(cmd, RejectCode::kDuplicateClientOrderId);
  }
  if (killed_.count(cmd.account.value) != 0) {
    return EmitReject(cmd, RejectCode::kAccountKilled);
  }
  if (inst->state == InstrumentState::kExpired) {
    return EmitReject(cmd, RejectCode::kInstrumentExpired);
  }
  const bool pre_open = inst->state == InstrumentState::kPreOpen;
  if (inst->state != InstrumentState::kOpen && !pre_open) {
    return EmitReject(cmd, RejectCode::kInstrumentNotOpen);
  }
  if (pre_open && (cmd.order_type != OrderType::kLimit ||
                   cmd.tif == TimeInForce::kIoc ||
                   cmd.tif == TimeInForce::kFok ||
                   (cmd.flags & kFlagPostOnly) != 0)) {
    return EmitReject(cmd, RejectCode::kNotAllowedInPreOpen);
  }
  const InstrumentConfig& ic = inst->config;
  if (cmd.quantity < ic.min_quantity) {
    return EmitReject(cmd, RejectCode::kQuantityBelowMinimum);
  }
  if (cmd.quantity > ic.max_quantity) {
    return EmitReject(cmd, RejectCode::kQuantityAboveMaximum);
  }
  const bool market = cmd.order_type == OrderType::kMarket;
  if (market) {
    if (cmd.tif != TimeInForce::kIoc && cmd.tif != TimeInForce::kFok) {
      return EmitReject(cmd, RejectCode::kMarketOrderNeedsIocOrFok);
    }
  } else {
    if (cmd.price.units <= 0) return EmitReject(cmd, RejectCode::kInvalidPrice);
    if (cmd.price.units % ic.tick.units != 0) {
      return EmitReject(cmd, RejectCode::kPriceNotOnTick);
    }
    if (cmd.price > ic.max_price) {
      return EmitReject(cmd, RejectCode::kPriceOutOfRange);
    }
  }
  const bool post_only = (cmd.flags & kFlagPostOnly) != 0;
  if (post_only && !CanRest(cmd.order_type, cmd.tif)) {
    return EmitReject(cmd, RejectCode::kPostOnlyNotAllowed);
  }
  if (cmd.tif == TimeInForce::kGtd) {
    if (cmd.expire_time().nanos == 0) {
      return EmitReject(cmd, RejectCode::kMissingExpireTime);
    }
    if (cmd.expire_time() <= cmd.ts) {
      return EmitReject(cmd, RejectCode::kExpireTimeInPast);
    }
  }
  if (!market) {
    const int64_t band = LimitBand(*inst);
    if (IsBuy(cmd.side) ? cmd.price.units > inst->reference.units + band
                        : cmd.price.units < inst->reference.units - band) {
      return EmitReject(cmd, RejectCode::kPriceOutsideBand);
    }
  }
  const Price limit = market ? ProtectionPrice(*inst, cmd.side) : cmd.price;
  {
    // Notional in micro-dollars: price per GPU-hour x lots x GPU-hours/lot.
    int64_t notional = 0;
    if (__builtin_mul_overflow(limit.units, kMicrosPerUsd / kPriceUnitsPerUsd,
                               &notional) ||
        __builtin_mul_overflow(notional, cmd.quantity.lots, &notional) ||
        __builtin_mul_overflow(notional, ic.gpu_hours_per_lot, &notional)) {
      return EmitReject(cmd, RejectCode::kNotionalOverflow);
    }
  }
  if (ic.position_limit.lots != 0) {
    const int64_t pos = position(cmd.account, cmd.instrument);
    const int64_t open = OpenLots(cmd.account, cmd.instrument, cmd.side);
    const int64_t exposure = IsBuy(cmd.side) ? pos + open + cmd.quantity.lots
                                             : -pos + open + cmd.quantity.lots;
    if (exposure > ic.position_limit.lots) {
      return EmitReject(cmd, RejectCode::kPositionLimitExceeded);
    }
  }
  if (const RejectCode r =
          CheckMargin(cmd.account, cmd.instrument, cmd.side, cmd.quantity.lots);
      r != RejectCode::kNone) {
    return EmitReject(cmd, r);
  }
  if (post_only) {
    const Price best = best_price(cmd.instrument, Opposite(cmd.side));
    if (best.units != 0 &&
        (IsBuy(cmd.side) ? cmd.price >= best : cmd.price <= best)) {
      return EmitReject(cmd, RejectCode::kPostOnlyWouldCross);
    }
  }
  if (CanRest(cmd.order_type, cmd.tif) &&
      resting_orders() >= limits_.max_orders) {
    return EmitReject(cmd, RejectCode::kOrderBookFull);
  }
  if (cmd.client_order_id.value != 0) {
    if (client_order_ids_.size() >= limits_.max_client_order_ids) {
      return EmitReject(cmd, RejectCode::kClientOrderIdLimit);
    }
    client_order_ids_.insert(client_key);
  }

  RefOrder o;
  o.id = OrderId{next_order_id_++};
  o.client_order_id = cmd.client_order_id;
  o.account = cmd.account;
  o.instrument = cmd.instrument;
  o.side = cmd.side;
  o.price = market ? Price{0} : cmd.price;
  o.quantity = cmd.quantity;
  o.leaves = cmd.quantity;
  o.tif = cmd.tif;
  o.flags = cmd.flags;
  o.expire_time =
      cmd.tif == TimeInForce::kGtd ? cmd.expire_time() : Timestamp{0};
  o.stp = cmd.stp == StpMode::kAccountDefault ? accounts_.at(cmd.account.value)
                                              : cmd.stp;
  o.priority = cmd.seq.value;

  Event accepted = OrderEvent(EventType::kOrderAccepted, o);
  accepted.quantity = o.quantity;
  accepted.order_type = cmd.order_type;
  accepted.tif = cmd.tif;
  Emit(accepted);

  if (cmd.tif == TimeInForce::kFok && !FokCanFill(o, limit)) {
    EmitCancelled(EventType::kOrderCancelled, o, CancelReason::kFokNotFilled,
                  o.leaves.lots);
    return;
  }

  if (pre_open) return Rest(o);  // the call period: nothing matches
  Match(o, limit);
  if (o.leaves.lots == 0) return;

  if (market) {
    // Stopped with leaves: either the opposite side ran out, or what is left
    // of it lies beyond the protection price.
    const Price best = best_price(cmd.instrument, Opposite(cmd.side));
    const bool beyond =
        best.units != 0 && !PriceAcceptable(cmd.side, best.units, limit);
    EmitCancelled(
        EventType::kOrderCancelled, o,
        beyond ? CancelReason::kMarketProtection : CancelReason::kIocRemainder,
        o.leaves.lots);
  } else if (cmd.tif == TimeInForce::kIoc || cmd.tif == TimeInForce::kFok) {
    EmitCancelled(EventType::kOrderCancelled, o, CancelReason::kIocRemainder,
                  o.leaves.lots);
  } else {
    Rest(o);
  }
}

bool ReferenceEngine::FokCanFill(const RefOrder& in, Price limit) const {
  int64_t sum = 0;
  for (const RefOrder& r : RestingOrders(in.instrument, Opposite(in.side))) {
    if (!PriceAcceptable(in.side, r.price.units, limit)) break;
    if (r.account == in.account) {
      if (in.stp == StpMode::kCancelOldest) continue;
      break;
    }
    sum += r.leaves.lots;
    if (sum >= in.leaves.lots) return true;
  }
  return sum >= in.leaves.lots;
}

void ReferenceEngine::Match(RefOrder& in, Price limit) {
  Instrument& inst = *FindInstrument(in.instrument);
  const Side opposite = Opposite(in.side);
  while (in.leaves.lots > 0) {
    auto* level = BestLevel(inst, opposite);
    if (level == nullptr || !PriceAcceptable(in.side, level->first, limit)) {
      break;
    }
    const Price level_price{level->first};
    RefOrder& rest = level->second.front();

    if (rest.account != in.account) {
      const int64_t q = std::min(in.leaves.lots, rest.leaves.lots);
      Touch(in.instrument, opposite, level_price);
      rest.leaves.lots -= q;
      rest.filled.lots += q;
      in.leaves.lots -= q;
      in.filled.lots += q;
      const AccountId buyer = IsBuy(in.side) ? in.account : rest.account;
      const AccountId seller = IsBuy(in.side) ? rest.account : in.account;
      positions_[{buyer.value, in.instrument.value}] += q;
      positions_[{seller.value, in.instrument.value}] -= q;

      Event t = Base(EventType::kTrade);
      t.trade_id = TradeId{next_trade_id_++};
      t.instrument = in.instrument;
      t.side = in.side;
      t.price = level_price;
      t.quantity = Quantity{q};
      t.account = in.account;
      t.order_id = in.id;
      t.client_order_id = in.client_order_id;
      t.leaves = in.leaves;
      t.filled = in.filled;
      t.counter_account = rest.account;
      t.counter_order_id = rest.id;
      t.counter_client_order_id = rest.client_order_id;
      t.counter_leaves = rest.leaves;
      t.counter_filled = rest.filled;
      Emit(t);

      if (rest.leaves.lots == 0) Remove(rest.id);
      continue;
    }

    // Self-trade prevention, by the incoming order's (resolved) mode.
    switch (in.stp) {
      case StpMode::kCancelOldest: {
        const RefOrder r = Remove(rest.id);
        EmitCancelled(EventType::kOrderCancelled, r,
                      CancelReason::kSelfTradePrevention, r.leaves.lots);
        break;
      }
      case StpMode::kCancelBoth: {
        const RefOrder r = Remove(rest.id);
        EmitCancelled(EventType::kOrderCancelled, r,
                      CancelReason::kSelfTradePrevention, r.leaves.lots);
        EmitCancelled(EventType::kOrderCancelled, in,
                      CancelReason::kSelfTradePrevention, in.leaves.lots);
        in.leaves.lots = 0;
        return;
      }
      case StpMode::kDecrement: {
        const int64_t d = std::min(in.leaves.lots, rest.leaves.lots);
        Touch(in.instrument, opposite, level_price);
        rest.leaves.lots -= d;
        rest.stp_decremented.lots += d;
        in.leaves.lots -= d;
        in.stp_decremented.lots += d;
        if (rest.leaves.lots == 0) {
          const RefOrder r = Remove(rest.id);
          EmitCancelled(EventType::kOrderCancelled, r,
                        CancelReason::kSelfTradePrevention, d);
        } else {
          Event e = OrderEvent(EventType::kOrderRestated, rest);
          e.reason = static_cast<uint16_t>(CancelReason::kSelfTradePrevention);
          e.quantity = Quantity{d};
          Emit(e);
        }
        if (in.leaves.lots == 0) {
          EmitCancelled(EventType::kOrderCancelled, in,
                        CancelReason::kSelfTradePrevention, d);
        } else {
          Event e = OrderEvent(EventType::kOrderRestated, in);
          e.reason = static_cast<uint16_t>(CancelReason::kSelfTradePrevention);
          e.quantity = Quantity{d};
          Emit(e);
        }
        break;
      }
      case StpMode::kCancelNewest:
      default:
        EmitCancelled(EventType::kOrderCancelled, in,
                      CancelReason::kSelfTradePrevention, in.leaves.lots);
        in.leaves.lots = 0;
        return;
    }
  }
}

// ---------------------------------------------------------------------------
// Cancel, replace, mass cancel

void ReferenceEngine::CancelOrder(const Command& cmd) {
  const RefOrder* o = FindOrder(cmd.order_id());
  if (o == nullptr || o->account != cmd.account) {
    return EmitReject(cmd, RejectCode::kUnknownOrder);
  }
  const RefOrder r = Remove(cmd.order_id());
  EmitCancelled(EventType::kCancelAccepted, r, CancelReason::kUserRequest,
                r.leaves.lots);
}

void ReferenceEngine::ReplaceOrder(const Command& cmd) {
  const RefOrder* found = FindOrder(cmd.order_id());
  if (found == nullptr || found->account != cmd.account) {
    return EmitReject(cmd, RejectCode::kUnknownOrder);
  }
  const RefOrder old = *found;
  if (killed_.count(old.account.value) != 0) {
    return EmitReject(cmd, RejectCode::kAccountKilled);
  }
  Instrument& inst = *FindInstrument(old.instrument);
  const InstrumentConfig& ic = inst.config;
  if (inst.state != InstrumentState::kOpen &&
      inst.state != InstrumentState::kPreOpen) {
    return EmitReject(cmd, RejectCode::kInstrumentNotOpen);
  }
  if (cmd.quantity < ic.min_quantity) {
    return EmitReject(cmd, RejectCode::kQuantityBelowMinimum);
  }
  if (cmd.quantity > ic.max_quantity) {
    return EmitReject(cmd, RejectCode::kQuantityAboveMaximum);
  }
  if (cmd.quantity <= old.filled) {
    return EmitReject(cmd, RejectCode::kReplaceQuantityNotAboveFilled);
  }
  if (cmd.price.units <= 0) return EmitReject(cmd, RejectCode::kInvalidPrice);
  if (cmd.price.units % ic.tick.units != 0) {
    return EmitReject(cmd, RejectCode::kPriceNotOnTick);
  }
  if (cmd.price > ic.max_price) {
    return EmitReject(cmd, RejectCode::kPriceOutOfRange);
  }
  const int64_t band = LimitBand(inst);
  if (IsBuy(old.side) ? cmd.price.units > inst.reference.units + band
                      : cmd.price.units < inst.reference.units - band) {
    return EmitReject(cmd, RejectCode::kPriceOutsideBand);
  }
  if (cmd.price == old.price && cmd.quantity == old.quantity) {
    return EmitReject(cmd, RejectCode::kReplaceNoChange);
  }
  const int64_t new_leaves = cmd.quantity.lots - old.filled.lots;
  if (ic.position_limit.lots != 0) {
    const int64_t pos = position(old.account, old.instrument);
    const int64_t open = OpenLots(old.account, old.instrument, old.side) -
                         old.leaves.lots + new_leaves;
    const int64_t exposure = IsBuy(old.side) ? pos + open : -pos + open;
    if (exposure > ic.position_limit.lots) {
      return EmitReject(cmd, RejectCode::kPositionLimitExceeded);
    }
  }
  if (const RejectCode r = CheckMargin(old.account, old.instrument, old.side,
                                       new_leaves - old.leaves.lots);
      r != RejectCode::kNone) {
    return EmitReject(cmd, r);
  }
  // Only a new price can make it cross (a pre-open's book may cross
  // already).
  if ((old.flags & kFlagPostOnly) != 0 && cmd.price != old.price) {
    const Price best = best_price(old.instrument, Opposite(old.side));
    if (best.units != 0 &&
        (IsBuy(old.side) ? cmd.price >= best : cmd.price <= best)) {
      return EmitReject(cmd, RejectCode::kPostOnlyWouldCross);
    }
  }

  if (cmd.price == old.price && new_leaves <= old.leaves.lots) {
    // In place: keeps its time priority.
    Touch(old.instrument, old.side, old.price);
    RefOrder& o = *FindMutable(old.id);
    o.client_order_id = cmd.client_order_id;
    o.quantity = cmd.quantity;
    o.leaves = Quantity{new_leaves};
    o.stp_decremented = Quantity{0};
    Event e = OrderEvent(EventType::kOrderReplaced, o);
    e.quantity = o.quantity;
    Emit(e);
    return;
  }

  // Loses priority: leaves its level, may match, rests at the back.
  RefOrder o = Remove(old.id);
  o.client_order_id = cmd.client_order_id;
  o.quantity = cmd.quantity;
  o.leaves = Quantity{new_leaves};
  o.stp_decremented = Quantity{0};
  o.price = cmd.price;
  o.priority = cmd.seq.value;
  Event e = OrderEvent(EventType::kOrderReplaced, o);
  e.quantity = o.quantity;
  Emit(e);

  if (inst.state == InstrumentState::kOpen) Match(o, o.price);
  if (o.leaves.lots > 0) Rest(o);
}

void ReferenceEngine::MassCancel(const Command& cmd) {
  if (cmd.instrument.value != 0 && !has_instrument(cmd.instrument)) {
    return EmitReject(cmd, RejectCode::kUnknownInstrument);
  }
  if (!has_account(cmd.account)) {
    return EmitReject(cmd, RejectCode::kUnknownAccount);
  }
  uint32_t count = 0;
  for (const RefOrder& o : AllRestingOrders()) {  // by order id
    if (o.account != cmd.account) continue;
    if (cmd.instrument.value != 0 && o.instrument != cmd.instrument) continue;
    const RefOrder r = Remove(o.id);
    EmitCancelled(EventType::kOrderCancelled, r, CancelReason::kMassCancel,
                  r.leaves.lots);
    ++count;
  }
  Event done = Base(EventType::kMassCancelDone);
  done.account = cmd.account;
  done.instrument = cmd.instrument;
  done.client_order_id = cmd.client_order_id;
  done.count = count;
  Emit(done);
}

// Kill switch: a kill cancels the account's resting orders by order id and
// refuses its new orders and replaces until a reinstate; both are accepted
// in any state.
void ReferenceEngine::KillSwitch(const Command& cmd) {
  if (!has_account(cmd.account)) {
    return EmitReject(cmd, RejectCode::kUnknownAccount);
  }
  if ((cmd.flags & ~1u) != 0) return EmitReject(cmd, RejectCode::kInvalidFlags);
  const bool kill = cmd.flags == 1;
  uint32_t count = 0;
  if (kill) {
    for (const RefOrder& o : AllRestingOrders()) {
      if (o.account != cmd.account) continue;
      const RefOrder r = Remove(o.id);
      EmitCancelled(EventType::kOrderCancelled, r, CancelReason::kKillSwitch,
                    r.leaves.lots);
      ++count;
    }
    killed_.insert(cmd.account.value);
  } else {
    killed_.erase(cmd.account.value);
  }
  Event done = Base(EventType::kKillSwitchSet);
  done.account = cmd.account;
  done.reason = kill ? 1 : 0;
  done.count = count;
  done.client_order_id = cmd.client_order_id;
  Emit(done);
}

// ---------------------------------------------------------------------------
// Admin

void ReferenceEngine::SetInstrumentState(const Command& cmd) {
  Instrument* inst = FindInstrument(cmd.instrument);
  if (inst == nullptr) return EmitReject(cmd, RejectCode::kUnknownInstrument);
  const auto s = static_cast<uint8_t>(cmd.state);
  if (s < static_cast<uint8_t>(InstrumentState::kPreOpen) ||
      s > static_cast<uint8_t>(InstrumentState::kExpired)) {
    return EmitReject(cmd, RejectCode::kInvalidInstrumentState);
  }
  if (cmd.target != 0 && (cmd.state != InstrumentState::kPreOpen ||
                          cmd.target > 86'400'000'000'000ull)) {
    return EmitReject(cmd, RejectCode::kInvalidPreOpenLength);
  }
  if (inst->state == InstrumentState::kExpired || inst->state == cmd.state) {
    return EmitReject(cmd, RejectCode::kInvalidStateTransition);
  }
  const InstrumentState before = inst->state;
  inst->state = cmd.state;
  inst->open_at =
      cmd.target == 0 ? 0 : cmd.ts.nanos + static_cast<int64_t>(cmd.target);
  Event e = Base(EventType::kInstrumentStateChanged);
  e.instrument = cmd.instrument;
  e.state = cmd.state;
  e.client_order_id = cmd.client_order_id;
  e.quantity = Quantity{inst->open_at};
  Emit(e);
  if (cmd.state == InstrumentState::kPreOpen) inst->indicative_due = true;
  if (cmd.state == InstrumentState::kOpen &&
      (before == InstrumentState::kPreOpen || Crossed(*inst))) {
    return OpenByAuction(cmd.instrument);
  }
  if (cmd.state != InstrumentState::kClosed &&
      cmd.state != InstrumentState::kExpired) {
    return;
  }
  // Bids from the best price down, then asks from the best price up, FIFO
  // within a price.
  std::vector<RefOrder> victims;
  for (Side side : {Side::kBuy, Side::kSell}) {
    for (const RefOrder& o : RestingOrders(cmd.instrument, side)) {
      if (cmd.state == InstrumentState::kExpired ||
          o.tif == TimeInForce::kDay) {
        victims.push_back(o);
      }
    }
  }
  for (const RefOrder& v : victims) {
    const RefOrder r = Remove(v.id);
    EmitCancelled(EventType::kOrderCancelled, r,
                  cmd.state == InstrumentState::kExpired
                      ? CancelReason::kInstrumentExpired
                      : CancelReason::kExpired,
                  r.leaves.lots);
  }
}

void ReferenceEngine::EndOfSession(const Command& cmd) {
  if (cmd.instrument.value != 0 && FindInstrument(cmd.instrument) == nullptr) {
    return EmitReject(cmd, RejectCode::kUnknownInstrument);
  }
  uint32_t count = 0;
  std::vector<uint32_t> ids;
  for (const auto& [id, inst] : instruments_) ids.push_back(id);
  for (uint32_t id : ids) {
    if (cmd.instrument.value != 0 && id != cmd.instrument.value) continue;
    for (Side side : {Side::kBuy, Side::kSell}) {
      for (const RefOrder& o : RestingOrders(InstrumentId{id}, side)) {
        if (o.tif != TimeInForce::kDay) continue;
        const RefOrder r = Remove(o.id);
        EmitCancelled(EventType::kOrderCancelled, r, CancelReason::kExpired,
                      r.leaves.lots);
        ++count;
      }
    }
  }
  if (cmd.instrument.value == 0) client_order_ids_.clear();
  Event e = Base(EventType::kSessionEnded);
  e.instrument = cmd.instrument;
  e.count = count;
  Emit(e);
}

void ReferenceEngine::SetReferencePrice(const Command& cmd) {
  Instrument* inst = FindInstrument(cmd.instrument);
  if (inst == nullptr) return EmitReject(cmd, RejectCode::kUnknownInstrument);
  if (cmd.price.units <= 0 || cmd.price > inst->config.max_price) {
    return EmitReject(cmd, RejectCode::kInvalidReferencePrice);
  }
  inst->reference = cmd.price;
  if (inst->state == InstrumentState::kPreOpen) inst->indicative_due = true;
  Event e = Base(EventType::kReferencePriceSet);
  e.instrument = cmd.instrument;
  e.price = cmd.price;
  Emit(e);
}

// ---------------------------------------------------------------------------
// Pre-open and the opening auction

bool ReferenceEngine::Crossed(const Instrument& inst) const {
  return !inst.bids.empty() && !inst.asks.empty() &&
         inst.bids.rbegin()->first >= inst.asks.begin()->first;
}

ReferenceEngine::AuctionPrice ReferenceEngine::FindAuctionPrice(
    const Instrument& inst) const {
  const int64_t tick = inst.config.tick.units;
  const int64_t ref = inst.reference.units;
  AuctionPrice best;
  bool found = false;
  std::tuple<int64_t, int64_t, int64_t, int64_t> best_key;
  for (int64_t p = inst.asks.begin()->first; p <= inst.bids.rbegin()->first;
       p += tick) {
    int64_t buy = 0;
    int64_t sell = 0;
    for (const auto& [price, fifo] : inst.bids) {
      for (const RefOrder& o : fifo) buy += price >= p ? o.leaves.lots : 0;
    }
    for (const auto& [price, fifo] : inst.asks) {
      for (const RefOrder& o : fifo) sell += price <= p ? o.leaves.lots : 0;
    }
    const int64_t lots = std::min(buy, sell);
    // Most lots, then the least imbalance, then nearest the reference,
    // then the lower price.
    const auto key = std::make_tuple(-lots, std::abs(buy - sell),
                                     std::abs(p - ref), p);
    if (!found || key < best_key) {
      found = true;
      best_key = key;
      best = AuctionPrice{p, lots, buy - lots, sell - lots};
    }
  }
  return best;
}

void ReferenceEngine::OpenByAuction(InstrumentId id) {
  Instrument& inst = *FindInstrument(id);
  inst.open_at = 0;
  int64_t first = 0;
  int64_t traded = 0;
  while (Crossed(inst)) {
    const int64_t p = FindAuctionPrice(inst).price;
    int64_t lots_at_p = 0;
    while (!inst.bids.empty() && !inst.asks.empty() &&
           inst.bids.rbegin()->first >= p && inst.asks.begin()->first <= p) {
      RefOrder& bid = inst.bids.rbegin()->second.front();
      RefOrder& ask = inst.asks.begin()->second.front();
      RefOrder& newer = bid.id > ask.id ? bid : ask;
      RefOrder& older = bid.id > ask.id ? ask : bid;
      if (newer.account == older.account) {
        const RefOrder r = Remove(newer.id);
        EmitCancelled(EventType::kOrderCancelled, r,
                      CancelReason::kSelfTradePrevention, r.leaves.lots);
        continue;
      }
      const int64_t q = std::min(newer.leaves.lots, older.leaves.lots);
      Touch(id, Side::kBuy, bid.price);
      Touch(id, Side::kSell, ask.price);
      newer.leaves.lots -= q;
      newer.filled.lots += q;
      older.leaves.lots -= q;
      older.filled.lots += q;
      positions_[{bid.account.value, id.value}] += q;
      positions_[{ask.account.value, id.value}] -= q;
      Event t = Base(EventType::kTrade);
      t.trade_id = TradeId{next_trade_id_++};
      t.instrument = id;
      t.side = newer.side;
      t.price = Price{p};
      t.quantity = Quantity{q};
      t.account = newer.account;
      t.order_id = newer.id;
      t.client_order_id = newer.client_order_id;
      t.leaves = newer.leaves;
      t.filled = newer.filled;
      t.counter_account = older.account;
      t.counter_order_id = older.id;
      t.counter_client_order_id = older.client_order_id;
      t.counter_leaves = older.leaves;
      t.counter_filled = older.filled;
      Emit(t);
      const OrderId older_id = older.id;
      const OrderId newer_id = newer.id;
      const bool older_done = older.leaves.lots == 0;
      const bool newer_done = newer.leaves.lots == 0;
      if (older_done) Remove(older_id);
      if (newer_done) Remove(newer_id);
      lots_at_p += q;
    }
    if (traded == 0 && lots_at_p != 0) first = p;
    traded += lots_at_p;
  }
  Event e = Base(EventType::kInstrumentOpened);
  e.instrument = id;
  e.state = InstrumentState::kOpen;
  e.price = Price{first};
  e.quantity = Quantity{traded};
  Emit(e);
}

Timestamp ReferenceEngine::next_open() const {
  int64_t t = 0;
  for (const auto& [id, inst] : instruments_) {
    if (inst.state == InstrumentState::kPreOpen && inst.open_at != 0 &&
        (t == 0 || inst.open_at < t)) {
      t = inst.open_at;
    }
  }
  return Timestamp{t};
}

void ReferenceEngine::OpenDue(Timestamp ts) {
  for (;;) {
    uint32_t due = 0;
    int64_t at = 0;
    for (const auto& [id, inst] : instruments_) {
      if (inst.state != InstrumentState::kPreOpen || inst.open_at == 0 ||
          inst.open_at > ts.nanos) {
        continue;
      }
      if (due == 0 || inst.open_at < at) {
        due = id;
        at = inst.open_at;
      }
    }
    if (due == 0) return;
    instruments_[due].state = InstrumentState::kOpen;
    OpenByAuction(InstrumentId{due});
  }
}

void ReferenceEngine::EmitIndicative() {
  for (auto& [id, inst] : instruments_) {
    if (!inst.indicative_due) continue;
    inst.indicative_due = false;
    if (inst.state != InstrumentState::kPreOpen) continue;
    Event e = Base(EventType::kIndicativeOpen);
    e.instrument = InstrumentId{id};
    if (Crossed(inst)) {
      const AuctionPrice a = FindAuctionPrice(inst);
      e.price = Price{a.price};
      e.quantity = Quantity{a.lots};
      if (a.buy_left != 0) {
        e.side = Side::kBuy;
        e.leaves = Quantity{a.buy_left};
      } else if (a.sell_left != 0) {
        e.side = Side::kSell;
        e.leaves = Quantity{a.sell_left};
      }
    }
    Emit(e);
  }
}

// ---------------------------------------------------------------------------
// Collateral and margin

void ReferenceEngine::Collateral(const Command& cmd) {
  if (!has_account(cmd.account)) {
    return EmitReject(cmd, RejectCode::kUnknownAccount);
  }
  const int64_t amount = cmd.quantity.lots;
  if (amount == 0) return EmitReject(cmd, RejectCode::kInvalidAmount);
  if (cmd.target > 2'932'896) {  // after 9999-12-31
    return EmitReject(cmd, RejectCode::kInvalidSettlementDate);
  }
  const bool settlement = cmd.target != 0;
  const auto date = static_cast<int64_t>(cmd.target);
  if (settlement && date <= settled_date_.at(cmd.account.value)) {
    return EmitReject(cmd, RejectCode::kAlreadySettled);
  }
  const Int128 after =
      static_cast<Int128>(collateral_.at(cmd.account.value)) + amount;
  if (after > INT64_MAX || after < INT64_MIN) {
    return EmitReject(cmd, RejectCode::kInvalidAmount);
  }
  if (!settlement && amount < 0) {
    const int64_t required = MarginRequirement(cmd.account);
    if (after < 0 || required < 0 || after < required) {
      return EmitReject(cmd, RejectCode::kInsufficientMargin);
    }
  }
  collateral_[cmd.account.value] = static_cast<int64_t>(after);
  if (settlement) settled_date_[cmd.account.value] = date;
  Event e = Base(EventType::kCollateralChanged);
  e.account = cmd.account;
  e.quantity = Quantity{amount};
  e.leaves = Quantity{static_cast<int64_t>(after)};
  e.count = static_cast<uint32_t>(date);
  e.client_order_id = cmd.client_order_id;
  Emit(e);
}

bool ReferenceEngine::WorstMargin(AccountId account, InstrumentId instrument,
                                  Side side, int64_t added,
                                  int64_t* margin) const {
  std::vector<MarginLeg> buy_fills;
  std::vector<MarginLeg> sell_fills;
  for (const auto& [id, inst] : instruments_) {
    const InstrumentConfig& ic = inst.config;
    if (ic.margin_group == 0 || inst.state == InstrumentState::kExpired) {
      continue;
    }
    const InstrumentId iid{id};
    const Int128 pos = position(account, iid);
    Int128 open_buy = OpenLots(account, iid, Side::kBuy);
    Int128 open_sell = OpenLots(account, iid, Side::kSell);
    if (iid == instrument) {
      (side == Side::kBuy ? open_buy : open_sell) += added;
    } else if (pos == 0 && open_buy == 0 && open_sell == 0) {
      continue;
    }
    MarginLeg leg;
    leg.group = ic.margin_group;
    leg.month = ic.maturity_month;
    leg.price = inst.reference.units;
    leg.gpu_hours = ic.gpu_hours_per_lot;
    for (const Int128 lots : {pos + open_buy, pos - open_sell}) {
      // InitialMargin needs |lots| x GPU-hours x price within int64.
      const Int128 mag = lots < 0 ? -lots : lots;
      if (mag > INT64_MAX || mag * leg.gpu_hours > INT64_MAX ||
          mag * leg.gpu_hours * leg.price > INT64_MAX) {
        return false;
      }
    }
    leg.lots = static_cast<int64_t>(pos + open_buy);
    buy_fills.push_back(leg);
    leg.lots = static_cast<int64_t>(pos - open_sell);
    sell_fills.push_back(leg);
  }
  *margin = std::max(ReferenceInitialMargin(buy_fills, margin_),
                     ReferenceInitialMargin(sell_fills, margin_));
  return true;
}

RejectCode ReferenceEngine::CheckMargin(AccountId account,
                                        InstrumentId instrument, Side side,
                                        int64_t added) const {
  // Spot is not margined; an order that adds no lots (a replace of the
  // price alone) is not checked.
  if (instrument_config(instrument).margin_group == 0 || added == 0) {
    return RejectCode::kNone;
  }
  int64_t with = 0;
  int64_t without = 0;
  if (!WorstMargin(account, instrument, side, added, &with) ||
      !WorstMargin(account, instrument, side, 0, &without)) {
    return RejectCode::kNotionalOverflow;
  }
  if (with > collateral(account) && with > without) {
    return RejectCode::kInsufficientMargin;
  }
  return RejectCode::kNone;
}

int64_t ReferenceEngine::MarginRequirement(AccountId account) const {
  int64_t m = 0;
  return WorstMargin(account, InstrumentId{}, Side::kBuy, 0, &m) ? m : -1;
}

int64_t ReferenceEngine::collateral(AccountId account) const {
  auto it = collateral_.find(account.value);
  return it == collateral_.end() ? 0 : it->second;
}

int64_t ReferenceEngine::settled_date(AccountId account) const {
  auto it = settled_date_.find(account.value);
  return it == settled_date_.end() ? 0 : it->second;
}

int64_t ReferenceInitialMargin(const std::vector<MarginLeg>& legs,
                               const MarginParams& params) {
  // Net lots per (group, month), and the per-contract margin of each
  // month's contract in micro-dollars x 10,000:
  // GPU-hours x price units x 100 micro-dollars per unit x im_bp.
  struct Month {
    Int128 lots = 0;
    Int128 margin = 0;
  };
  std::map<std::pair<uint32_t, int32_t>, Month> months;
  for (const MarginLeg& leg : legs) {
    if (leg.lots == 0) continue;
    auto [it, fresh] = months.try_emplace({leg.group, leg.month});
    if (fresh) {
      it->second.margin = static_cast<Int128>(leg.gpu_hours) * leg.price *
                          (kMicrosPerUsd / kPriceUnitsPerUsd) *
                          params.initial_margin_bp;
    }
    it->second.lots += leg.lots;
  }
  // Everything below in micro-dollars x 10,000 x 10,000.
  Int128 total = 0;
  for (const auto& [key, m] : months) {
    total += (m.lots < 0 ? -m.lots : m.lots) * m.margin * 10'000;
  }
  while (true) {
    // The (long, short) pair of one group with the smallest month gap; ties
    // to the earlier front month, then the earlier other month.
    using Key = std::pair<uint32_t, int32_t>;
    std::tuple<int64_t, int32_t, int32_t> best;
    Key best_long;
    Key best_short;
    bool found = false;
    for (const auto& [l, ml] : months) {
      if (ml.lots <= 0) continue;
      for (const auto& [sh, ms] : months) {
        if (ms.lots >= 0 || sh.first != l.first) continue;
        const std::tuple<int64_t, int32_t, int32_t> rank(
            std::abs(static_cast<int64_t>(l.second) - sh.second),
            std::min(l.second, sh.second), std::max(l.second, sh.second));
        if (!found || rank < best) {
          best = rank;
          best_long = l;
          best_short = sh;
          found = true;
        }
      }
    }
    if (!found) break;
    Month& lm = months[best_long];
    Month& sm = months[best_short];
    const Int128 paired = std::min(lm.lots, -sm.lots);
    lm.lots -= paired;
    sm.lots += paired;
    total -= paired * params.spread_credit_bp * (lm.margin + sm.margin);
  }
  if (total <= 0) return 0;
  const Int128 denominator = Int128{10'000} * 10'000;
  const Int128 micros = (total + denominator - 1) / denominator;
  return micros > INT64_MAX ? INT64_MAX : static_cast<int64_t>(micros);
}

// ---------------------------------------------------------------------------
// Book helpers

void ReferenceEngine::Rest(const RefOrder& o) {
  Instrument& inst = *FindInstrument(o.instrument);
  Touch(o.instrument, o.side, o.price);
  SideLevels(inst, o.side)[o.price.units].push_back(o);
}

RefOrder ReferenceEngine::Remove(OrderId id) {
  for (auto& [inst_id, inst] : instruments_) {
    for (Side side : {Side::kBuy, Side::kSell}) {
      Levels& levels = SideLevels(inst, side);
      for (auto it = levels.begin(); it != levels.end(); ++it) {
        std::deque<RefOrder>& fifo = it->second;
        for (auto o = fifo.begin(); o != fifo.end(); ++o) {
          if (o->id != id) continue;
          Touch(InstrumentId{inst_id}, side, Price{it->first});
          const RefOrder copy = *o;
          fifo.erase(o);
          if (fifo.empty()) levels.erase(it);
          return copy;
        }
      }
    }
  }
  std::fprintf(stderr, "ReferenceEngine::Remove: no order %llu\n",
               static_cast<unsigned long long>(id.value));
  std::abort();
}

ReferenceEngine::Instrument* ReferenceEngine::FindInstrument(InstrumentId id) {
  auto it = instruments_.find(id.value);
  return it == instruments_.end() ? nullptr : &it->second;
}

const ReferenceEngine::Instrument* ReferenceEngine::FindInstrument(
    InstrumentId id) const {
  auto it = instruments_.find(id.value);
  return it == instruments_.end() ? nullptr : &it->second;
}

ReferenceEngine::Levels& ReferenceEngine::SideLevels(Instrument& inst,
                                                     Side side) {
  return IsBuy(side) ? inst.bids : inst.asks;
}

const ReferenceEngine::Levels& ReferenceEngine::SideLevels(
    const Instrument& inst, Side side) const {
  return IsBuy(side) ? inst.bids : inst.asks;
}

std::pair<const int64_t, std::deque<RefOrder>>* ReferenceEngine::BestLevel(
    Instrument& inst, Side side) {
  Levels& levels = SideLevels(inst, side);
  if (levels.empty()) return nullptr;
  return IsBuy(side) ? &*std::prev(levels.end()) : &*levels.begin();
}

std::vector<int64_t> ReferenceEngine::PricesInPriority(const Instrument& inst,
                                                       Side side) const {
  std::vector<int64_t> prices;
  for (const auto& [price, fifo] : SideLevels(inst, side)) {
    prices.push_back(price);
  }
  if (IsBuy(side)) std::reverse(prices.begin(), prices.end());
  return prices;
}

RefOrder* ReferenceEngine::FindMutable(OrderId id) {
  for (auto& [inst_id, inst] : instruments_) {
    for (Levels* levels : {&inst.bids, &inst.asks}) {
      for (auto& [price, fifo] : *levels) {
        for (RefOrder& o : fifo) {
          if (o.id == id) return &o;
        }
      }
    }
  }
  return nullptr;
}

int64_t ReferenceEngine::OpenLots(AccountId account, InstrumentId instrument,
                                  Side side) const {
  int64_t lots = 0;
  const Instrument* inst = FindInstrument(instrument);
  for (const auto& [price, fifo] : SideLevels(*inst, side)) {
    for (const RefOrder& o : fifo) {
      if (o.account == account) lots += o.leaves.lots;
    }
  }
  return lots;
}

int64_t ReferenceEngine::LimitBand(const Instrument& inst) const {
  const int64_t raw = inst.reference.units * inst.config.band_bps / 10'000;
  return raw / inst.config.tick.units * inst.config.tick.units;
}

int64_t ReferenceEngine::MarketBand(const Instrument& inst) const {
  const int64_t raw =
      inst.reference.units * inst.config.market_band_bps / 10'000;
  return raw / inst.config.tick.units * inst.config.tick.units;
}

Price ReferenceEngine::ProtectionPrice(const Instrument& inst,
                                       Side side) const {
  const int64_t m = MarketBand(inst);
  if (IsBuy(side)) {
    return Price{
        std::min(inst.reference.units + m, inst.config.max_price.units)};
  }
  return Price{std::max(inst.reference.units - m, inst.config.tick.units)};
}

// ---------------------------------------------------------------------------
// L2

std::pair<int64_t, int64_t> ReferenceEngine::LevelAggregate(
    InstrumentId instrument, Side side, Price price) const {
  const Instrument* inst = FindInstrument(instrument);
  const Levels& levels = SideLevels(*inst, side);
  auto it = levels.find(price.units);
  if (it == levels.end()) return {0, 0};
  int64_t lots = 0;
  for (const RefOrder& o : it->second) lots += o.leaves.lots;
  return {lots, static_cast<int64_t>(it->second.size())};
}

void ReferenceEngine::Touch(InstrumentId instrument, Side side, Price price) {
  for (const TouchedLevel& t : touched_) {
    if (t.instrument == instrument && t.side == side && t.price == price) {
      return;
    }
  }
  const auto [lots, count] = LevelAggregate(instrument, side, price);
  touched_.push_back(TouchedLevel{instrument, side, price, lots, count});
}

void ReferenceEngine::EmitBookLevels() {
  for (const TouchedLevel& t : touched_) {
    const auto [lots, count] = LevelAggregate(t.instrument, t.side, t.price);
    if (lots == t.lots_before && count == t.count_before) continue;
    Instrument& inst = *FindInstrument(t.instrument);
    if (inst.state == InstrumentState::kPreOpen) inst.indicative_due = true;
    Event e = Base(EventType::kBookLevel);
    e.instrument = t.instrument;
    e.side = t.side;
    e.price = t.price;
    e.quantity = Quantity{lots};
    e.count = static_cast<uint32_t>(count);
    Emit(e);
  }
}

// ---------------------------------------------------------------------------
// Events

Event ReferenceEngine::Base(EventType type) const {
  Event e;
  e.seq = cmd_->seq;
  e.ts = cmd_->ts;
  e.type = type;
  return e;
}

void ReferenceEngine::EmitReject(const Command& cmd, RejectCode code) {
  Event e = Base(EventType::kRejected);
  e.command = cmd.type;
  e.reason = static_cast<uint16_t>(code);
  e.account = cmd.account;
  e.instrument = cmd.instrument;
  if (cmd.type == CommandType::kCancel || cmd.type == CommandType::kReplace) {
    e.order_id = cmd.order_id();
  }
  e.client_order_id = cmd.client_order_id;
  e.side = cmd.side;
  e.price = cmd.price;
  e.quantity = cmd.quantity;
  Emit(e);
}

Event ReferenceEngine::OrderEvent(EventType type, const RefOrder& o) const {
  Event e = Base(type);
  e.account = o.account;
  e.instrument = o.instrument;
  e.order_id = o.id;
  e.client_order_id = o.client_order_id;
  e.side = o.side;
  e.price = o.price;
  e.leaves = o.leaves;
  e.filled = o.filled;
  return e;
}

void ReferenceEngine::EmitCancelled(EventType type, const RefOrder& o,
                                    CancelReason reason, int64_t lots) {
  Event e = OrderEvent(type, o);
  e.reason = static_cast<uint16_t>(reason);
  e.quantity = Quantity{lots};
  e.leaves = Quantity{0};
  Emit(e);
}

// ---------------------------------------------------------------------------
// State hash and views

uint64_t ReferenceEngine::StateHash() const {
  StateHasher h;
  h.Add(next_order_id_);
  h.Add(next_trade_id_);
  for (const auto& [id, inst] : instruments_) {
    h.Add(static_cast<uint64_t>(id));
    h.Add(static_cast<uint64_t>(inst.state));
    h.Add(inst.reference.units);
    if (inst.open_at != 0) h.Add(inst.open_at);
    for (Side side : {Side::kBuy, Side::kSell}) {
      for (const RefOrder& o : RestingOrders(InstrumentId{id}, side)) {
        h.Add(o.id.value);
        h.Add(o.client_order_id.value);
        h.Add(static_cast<uint64_t>(o.account.value));
        h.Add(static_cast<uint64_t>(o.side));
        h.Add(o.price.units);
        h.Add(o.quantity.lots);
        h.Add(o.leaves.lots);
        h.Add(o.filled.lots);
        h.Add(static_cast<uint64_t>(o.tif));
        h.Add(static_cast<uint64_t>(o.flags));
        h.Add(o.tif == TimeInForce::kGtd ? o.expire_time.nanos : int64_t{0});
      }
    }
  }
  for (const auto& [account, stp] : accounts_) {
    for (const auto& [instrument, inst] : instruments_) {
      const int64_t pos =
          position(AccountId{account}, InstrumentId{instrument});
      if (pos == 0) continue;
      h.Add(static_cast<uint64_t>(account));
      h.Add(static_cast<uint64_t>(instrument));
      h.Add(pos);
    }
  }
  for (const auto& [account, stp] : accounts_) {
    const int64_t money = collateral(AccountId{account});
    const int64_t date = settled_date(AccountId{account});
    if (money == 0 && date == 0) continue;
    h.Add(static_cast<uint64_t>(account));
    h.Add(money);
    h.Add(date);
  }
  for (const uint32_t account : killed_) {
    h.Add(uint64_t{0x4b494c4c});  // "KILL"
    h.Add(static_cast<uint64_t>(account));
  }
  if (!client_order_ids_.empty()) {
    uint64_t sum = 0;
    for (const auto& [account, id] : client_order_ids_) {
      sum += ClientOrderIdHashTerm(account, id);
    }
    h.Add(static_cast<uint64_t>(client_order_ids_.size()));
    h.Add(sum);
  }
  return h.value();
}

std::vector<InstrumentId> ReferenceEngine::instrument_ids() const {
  std::vector<InstrumentId> ids;
  for (const auto& [id, inst] : instruments_) ids.push_back(InstrumentId{id});
  return ids;
}

std::vector<AccountId> ReferenceEngine::account_ids() const {
  std::vector<AccountId> ids;
  for (const auto& [id, stp] : accounts_) ids.push_back(AccountId{id});
  return ids;
}

bool ReferenceEngine::has_instrument(InstrumentId id) const {
  return FindInstrument(id) != nullptr;
}

bool ReferenceEngine::has_account(AccountId id) const {
  return accounts_.count(id.value) != 0;
}

const InstrumentConfig& ReferenceEngine::instrument_config(
    InstrumentId id) const {
  return FindInstrument(id)->config;
}

InstrumentState ReferenceEngine::state(InstrumentId id) const {
  const Instrument* inst = FindInstrument(id);
  return inst == nullptr ? InstrumentState::kNone : inst->state;
}

Price ReferenceEngine::reference_price(InstrumentId id) const {
  const Instrument* inst = FindInstrument(id);
  return inst == nullptr ? Price{0} : inst->reference;
}

std::vector<RefOrder> ReferenceEngine::RestingOrders(InstrumentId id,
                                                     Side side) const {
  std::vector<RefOrder> orders;
  const Instrument* inst = FindInstrument(id);
  if (inst == nullptr) return orders;
  const Levels& levels = SideLevels(*inst, side);
  for (int64_t price : PricesInPriority(*inst, side)) {
    const std::deque<RefOrder>& fifo = levels.at(price);
    orders.insert(orders.end(), fifo.begin(), fifo.end());
  }
  return orders;
}

std::vector<RefOrder> ReferenceEngine::AllRestingOrders() const {
  std::vector<RefOrder> orders;
  for (const auto& [id, inst] : instruments_) {
    for (Side side : {Side::kBuy, Side::kSell}) {
      std::vector<RefOrder> one = RestingOrders(InstrumentId{id}, side);
      orders.insert(orders.end(), one.begin(), one.end());
    }
  }
  std::sort(orders.begin(), orders.end(),
            [](const RefOrder& a, const RefOrder& b) { return a.id < b.id; });
  return orders;
}

const RefOrder* ReferenceEngine::FindOrder(OrderId id) const {
  for (const auto& [inst_id, inst] : instruments_) {
    for (const Levels* levels : {&inst.bids, &inst.asks}) {
      for (const auto& [price, fifo] : *levels) {
        for (const RefOrder& o : fifo) {
          if (o.id == id) return &o;
        }
      }
    }
  }
  return nullptr;
}

std::size_t ReferenceEngine::resting_orders() const {
  std::size_t n = 0;
  for (const auto& [id, inst] : instruments_) {
    for (const Levels* levels : {&inst.bids, &inst.asks}) {
      for (const auto& [price, fifo] : *levels) n += fifo.size();
    }
  }
  return n;
}

Price ReferenceEngine::best_price(InstrumentId id, Side side) const {
  const Instrument* inst = FindInstrument(id);
  if (inst == nullptr) return Price{0};
  const Levels& levels = SideLevels(*inst, side);
  if (levels.empty()) return Price{0};
  return Price{IsBuy(side) ? std::prev(levels.end())->first
                           : levels.begin()->first};
}

Quantity ReferenceEngine::level_quantity(InstrumentId id, Side side,
                                         Price price) const {
  if (!has_instrument(id)) return Quantity{0};
  return Quantity{LevelAggregate(id, side, price).first};
}

bool ReferenceEngine::client_order_id_used(AccountId account,
                                           ClientOrderId id) const {
  return client_order_ids_.count({account.value, id.value}) != 0;
}

int64_t ReferenceEngine::position(AccountId account,
                                  InstrumentId instrument) const {
  auto it = positions_.find({account.value, instrument.value});
  return it == positions_.end() ? 0 : it->second;
}

// ---------------------------------------------------------------------------
// Text

namespace {

const char* EventTypeName(EventType t) {
  switch (t) {
    case EventType::kNone:
      return "None";
    case EventType::kRejected:
      return "Rejected";
    case EventType::kOrderAccepted:
      return "OrderAccepted";
    case EventType::kCancelAccepted:
      return "CancelAccepted";
    case EventType::kOrderReplaced:
      return "OrderReplaced";
    case EventType::kMassCancelDone:
      return "MassCancelDone";
    case EventType::kInstrumentStateChanged:
      return "InstrumentStateChanged";
    case EventType::kReferencePriceSet:
      return "ReferencePriceSet";
    case EventType::kTimerDone:
      return "TimerDone";
    case EventType::kSessionEnded:
      return "SessionEnded";
    case EventType::kInstrumentListed:
      return "InstrumentListed";
    case EventType::kReferenceAccepted:
      return "ReferenceAccepted";
    case EventType::kTradeBusted:
      return "TradeBusted";
    case EventType::kIndexFixing:
      return "IndexFixing";
    case EventType::kCollateralChanged:
      return "CollateralChanged";
    case EventType::kSettlementRerun:
      return "SettlementRerun";
    case EventType::kKillSwitchSet:
      return "KillSwitchSet";
    case EventType::kEligibilityChanged:
      return "EligibilityChanged";
    case EventType::kIndicativeOpen:
      return "IndicativeOpen";
    case EventType::kInstrumentOpened:
      return "InstrumentOpened";
    case EventType::kTrade:
      return "Trade";
    case EventType::kOrderCancelled:
      return "OrderCancelled";
    case EventType::kOrderRestated:
      return "OrderRestated";
    case EventType::kBookLevel:
      return "BookLevel";
  }
  return nullptr;
}

const char* CommandTypeName(CommandType t) {
  switch (t) {
    case CommandType::kNone:
      return "None";
    case CommandType::kNewOrder:
      return "NewOrder";
    case CommandType::kCancel:
      return "Cancel";
    case CommandType::kReplace:
      return "Replace";
    case CommandType::kMassCancel:
      return "MassCancel";
    case CommandType::kSetInstrumentState:
      return "SetInstrumentState";
    case CommandType::kSetReferencePrice:
      return "SetReferencePrice";
    case CommandType::kEndOfSession:
      return "EndOfSession";
    case CommandType::kListInstrument:
      return "ListInstrument";
    case CommandType::kReferenceData:
      return "ReferenceData";
    case CommandType::kReportFailure:
      return "ReportFailure";
    case CommandType::kIndexFixing:
      return "IndexFixing";
    case CommandType::kCollateral:
      return "Collateral";
    case CommandType::kSettlementRerun:
      return "SettlementRerun";
    case CommandType::kKillSwitch:
      return "KillSwitch";
    case CommandType::kTimer:
      return "Timer";
  }
  return nullptr;
}

const char* SideName(Side s) {
  switch (s) {
    case Side::kNone:
      return "None";
    case Side::kBuy:
      return "Buy";
    case Side::kSell:
      return "Sell";
  }
  return nullptr;
}

const char* StateName(InstrumentState s) {
  switch (s) {
    case InstrumentState::kNone:
      return "None";
    case InstrumentState::kPreOpen:
      return "PreOpen";
    case InstrumentState::kOpen:
      return "Open";
    case InstrumentState::kHalted:
      return "Halted";
    case InstrumentState::kClosed:
      return "Closed";
    case InstrumentState::kExpired:
      return "Expired";
  }
  return nullptr;
}

const char* OrderTypeName(OrderType t) {
  switch (t) {
    case OrderType::kNone:
      return "None";
    case OrderType::kLimit:
      return "Limit";
    case OrderType::kMarket:
      return "Market";
  }
  return nullptr;
}

const char* TifName(TimeInForce t) {
  switch (t) {
    case TimeInForce::kNone:
      return "None";
    case TimeInForce::kDay:
      return "Day";
    case TimeInForce::kGtc:
      return "Gtc";
    case TimeInForce::kIoc:
      return "Ioc";
    case TimeInForce::kFok:
      return "Fok";
    case TimeInForce::kGtd:
      return "Gtd";
  }
  return nullptr;
}

const char* StpName(StpMode m) {
  switch (m) {
    case StpMode::kAccountDefault:
      return "AccountDefault";
    case StpMode::kCancelNewest:
      return "CancelNewest";
    case StpMode::kCancelOldest:
      return "CancelOldest";
    case StpMode::kCancelBoth:
      return "CancelBoth";
    case StpMode::kDecrement:
      return "Decrement";
  }
  return nullptr;
}

// "Name" or "?(7)" for values outside the enum.
template <typename E>
std::string EnumText(const char* name, E value) {
  if (name != nullptr) return name;
  return "?(" + std::to_string(static_cast<unsigned>(value)) + ")";
}

std::string ReasonText(const Event& e) {
  std::string_view name;
  if (e.type == EventType::kRejected) {
    name = RejectCodeName(e.reject_code());
  } else {
    name = CancelReasonName(e.cancel_reason());
  }
  std::string text = name.empty() ? "?" : std::string(name);
  return text + "(" + std::to_string(e.reason) + ")";
}

struct EventField {
  const char* name;
  std::string (*text)(const Event&);  // empty when default
};

std::string Num(int64_t v) { return v == 0 ? "" : std::to_string(v); }
std::string Num(uint64_t v) { return v == 0 ? "" : std::to_string(v); }

const EventField kEventFields[] = {
    {"seq", [](const Event& e) { return Num(e.seq.value); }},
    {"ts", [](const Event& e) { return Num(e.ts.nanos); }},
    {"type",
     [](const Event& e) { return EnumText(EventTypeName(e.type), e.type); }},
    {"command",
     [](const Event& e) {
       return e.command == CommandType::kNone
                  ? std::string()
                  : EnumText(CommandTypeName(e.command), e.command);
     }},
    {"reason",
     [](const Event& e) {
       return e.reason == 0 ? std::string() : ReasonText(e);
     }},
    {"side",
     [](const Event& e) {
       return e.side == Side::kNone ? std::string()
                                    : EnumText(SideName(e.side), e.side);
     }},
    {"state",
     [](const Event& e) {
       return e.state == InstrumentState::kNone
                  ? std::string()
                  : EnumText(StateName(e.state), e.state);
     }},
    {"order_type",
     [](const Event& e) {
       return e.order_type == OrderType::kNone
                  ? std::string()
                  : EnumText(OrderTypeName(e.order_type), e.order_type);
     }},
    {"tif",
     [](const Event& e) {
       return e.tif == TimeInForce::kNone ? std::string()
                                          : EnumText(TifName(e.tif), e.tif);
     }},
    {"instrument",
     [](const Event& e) { return Num(uint64_t{e.instrument.value}); }},
    {"count", [](const Event& e) { return Num(uint64_t{e.count}); }},
    {"trade_id", [](const Event& e) { return Num(e.trade_id.value); }},
    {"account", [](const Event& e) { return Num(uint64_t{e.account.value}); }},
    {"order_id", [](const Event& e) { return Num(e.order_id.value); }},
    {"client_order_id",
     [](const Event& e) { return Num(e.client_order_id.value); }},
    {"price", [](const Event& e) { return Num(e.price.units); }},
    {"quantity", [](const Event& e) { return Num(e.quantity.lots); }},
    {"leaves", [](const Event& e) { return Num(e.leaves.lots); }},
    {"filled", [](const Event& e) { return Num(e.filled.lots); }},
    {"counter_account",
     [](const Event& e) { return Num(uint64_t{e.counter_account.value}); }},
    {"counter_order_id",
     [](const Event& e) { return Num(e.counter_order_id.value); }},
    {"counter_client_order_id",
     [](const Event& e) { return Num(e.counter_client_order_id.value); }},
    {"counter_leaves",
     [](const Event& e) { return Num(e.counter_leaves.lots); }},
    {"counter_filled",
     [](const Event& e) { return Num(e.counter_filled.lots); }},
};

}  // namespace

std::string DescribeEvent(const Event& e) {
  std::string s = EnumText(EventTypeName(e.type), e.type) + "{";
  bool first = true;
  for (const EventField& f : kEventFields) {
    if (std::string_view(f.name) == "type") continue;
    const std::string v = f.text(e);
    if (v.empty()) continue;
    if (!first) s += ' ';
    s += f.name;
    s += '=';
    s += v;
    first = false;
  }
  return s + "}";
}

std::vector<std::string> DiffEvents(const Event& a, const Event& b) {
  std::vector<std::string> diffs;
  for (const EventField& f : kEventFields) {
    if (f.text(a) != f.text(b)) diffs.emplace_back(f.name);
  }
  return diffs;
}

std::string DescribeCommand(const Command& c) {
  std::string s = EnumText(CommandTypeName(c.type), c.type) + "{";
  auto add = [&s](const char* name, const std::string& v) {
    if (v.empty()) return;
    if (s.back() != '{') s += ' ';
    s += name;
    s += '=';
    s += v;
  };
  add("seq", std::to_string(c.seq.value));
  add("ts", std::to_string(c.ts.nanos));
  if (c.side != Side::kNone) add("side", EnumText(SideName(c.side), c.side));
  if (c.order_type != OrderType::kNone) {
    add("order_type", EnumText(OrderTypeName(c.order_type), c.order_type));
  }
  if (c.tif != TimeInForce::kNone) add("tif", EnumText(TifName(c.tif), c.tif));
  if (c.stp != StpMode::kAccountDefault) {
    add("stp", EnumText(StpName(c.stp), c.stp));
  }
  add("flags", Num(uint64_t{c.flags}));
  if (c.state != InstrumentState::kNone) {
    add("state", EnumText(StateName(c.state), c.state));
  }
  add("account", Num(uint64_t{c.account.value}));
  add("instrument", Num(uint64_t{c.instrument.value}));
  add("client_order_id", Num(c.client_order_id.value));
  if (c.type == CommandType::kNewOrder) {
    add("expire_time", Num(c.expire_time().nanos));
  } else if (c.type == CommandType::kCollateral) {
    add("settlement_date", Num(c.target));
  } else {
    add("order_id", Num(c.order_id().value));
  }
  add("price", Num(c.price.units));
  add("quantity", Num(c.quantity.lots));
  return s + "}";
}

}  // namespace cfx::exchange::testing
