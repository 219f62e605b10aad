#pragma once

#include <cstdint>
#include <type_traits>

#include "exchange/core/types.h"

namespace cfx::exchange {

enum class CommandType : uint8_t {
  kNone = 0,
  kNewOrder = 1,
  kCancel = 2,
  kReplace = 3,
  kMassCancel = 4,          // instrument 0 = every instrument
  kSetInstrumentState = 5,  // admin
  kSetReferencePrice = 6,   // admin / DSP / index fixing
  kTimer = 7,               // advances time: expires due GTD orders
  kEndOfSession = 8,        // the trading day ends: DAY orders expire
  kListInstrument = 9,      // spot calendar: a slot starts a delivery day
  // Ratings, attester keys, attestations: the variable-length payload
  // (exchange/core/reference/reference_payload.h) travels beside the command
  // and is journaled with it.
  kReferenceData = 10,
  // Spot: a party reports a delivery failure; the trade is busted.
  kReportFailure = 11,
  // The index fixing time of a day has come (DESIGN.md §4): the index
  // service fixes every grade when it sees the result. Sequencer only.
  kIndexFixing = 12,
  // Collateral of an account changes: a member's deposit or withdrawal, or
  // a settlement run's booking for a business date (DESIGN.md §5).
  kCollateral = 13,
  // Admin: re-run the refused settlement of a business date (DESIGN.md §5,
  // docs/settlement.md "Operator recovery"); the settlement service acts on
  // the result, the engine only validates the date.
  kSettlementRerun = 14,
  // Kill switch of one account (docs/matching.md, "Kill switch"): kill
  // cancels every resting order of the account and refuses its new orders
  // and replaces until a reinstate. Admin or the account's clearing member.
  kKillSwitch = 15,
};

// Order flags.
inline constexpr uint8_t kFlagPostOnly = 1u << 0;
inline constexpr uint8_t kKnownFlags = kFlagPostOnly;
// kKillSwitch flags: set = kill, clear = reinstate.
inline constexpr uint8_t kFlagKill = 1u << 0;
inline constexpr uint8_t kKnownKillSwitchFlags = kFlagKill;

// One sequenced input to the engine. Fixed size and trivially copyable so it
// can be copied through rings and written to the journal as it is.
//
// Fields used per type (all others must be zero):
//   kNewOrder:           account, instrument, side, order_type, tif, stp,
//                        flags, client_order_id, price (limit orders),
//                        quantity, expire_time() (GTD only)
//   kCancel:             account, order_id(), client_order_id
//   kReplace:            account, order_id(), client_order_id, price, quantity
//                        (the new total order quantity, filled included)
//   kMassCancel:         account, instrument (0 = all), client_order_id
//                        (the request's, echoed in MassCancelDone)
//   kSetInstrumentState: instrument, state, client_order_id (the request's
//                        token, echoed), target (kPreOpen only: the
//                        pre-open's length in nanoseconds, at most
//                        kMaxPreOpenNanos; 0 = until a kOpen command)
//   kSetReferencePrice:  instrument, price
//   kTimer:              (ts only)
//   kEndOfSession:       instrument (0 = all)
//   kListInstrument:     instrument (a spot slot), target (delivery day:
//                        days since 1970-01-01), price (reference; 0 = the
//                        slot's current one: the configured one until a
//                        kSetReferencePrice moves it, e.g. a fixing)
//   kReferenceData:      client_order_id (the request's token, echoed),
//                        account (the acting user's account, or 0),
//                        target (live only: the payload's arena slot),
//                        quantity (payload length in bytes)
//   kReportFailure:      account (the reporting party), target (trade id),
//                        client_order_id (the request's token, echoed)
//   kIndexFixing:        target (the fixing's day: days since 1970-01-01)
//   kCollateral:         account, quantity (the signed amount in
//                        micro-dollars, not lots: deposit > 0, withdrawal
//                        < 0, settlement booking any sign), target (the
//                        settlement business date, days since 1970-01-01,
//                        for a settlement booking; 0 for a member's
//                        deposit or withdrawal), client_order_id (the
//                        request's token, echoed)
//   kSettlementRerun:    target (the business date, days since 1970-01-01),
//                        client_order_id (the request's token, echoed)
//   kKillSwitch:         account, flags (kFlagKill: kill; 0: reinstate),
//                        client_order_id (the request's token, echoed)
struct Command {
  Seq seq;       // stamped by the sequencer
  Timestamp ts;  // stamped by the sequencer: the only clock the engine sees
  CommandType type = CommandType::kNone;
  Side side = Side::kNone;
  OrderType order_type = OrderType::kNone;
  TimeInForce tif = TimeInForce::kNone;
  StpMode stp = StpMode::kAccountDefault;
  uint8_t flags = 0;
  InstrumentState state = InstrumentState::kNone;
  uint8_t reserved = 0;
  AccountId account;
  InstrumentId instrument;
  ClientOrderId client_order_id;
  // One slot with a meaning per type (see above): one slot keeps Command
  // within a cache line; use the accessors below.
  uint64_t target = 0;
  Price price;
  Quantity quantity;

  // Fields that carry another meaning for some types, by name. Days are days
  // since 1970-01-01; a value of target >= 2^63 reads as a negative day.
  // kCancel, kReplace: the order the command names (target).
  OrderId order_id() const { return OrderId{target}; }
  void set_order_id(OrderId id) { target = id.value; }
  // kNewOrder with kGtd: the expire time (target).
  Timestamp expire_time() const {
    return Timestamp{static_cast<int64_t>(target)};
  }
  void set_expire_time(Timestamp t) { target = static_cast<uint64_t>(t.nanos); }
  // kListInstrument: the delivery day (target).
  int64_t delivery_day() const { return static_cast<int64_t>(target); }
  void set_delivery_day(int64_t day) { target = static_cast<uint64_t>(day); }
  // kIndexFixing: the fixing's day (target).
  int64_t fixing_day() const { return static_cast<int64_t>(target); }
  void set_fixing_day(int64_t day) { target = static_cast<uint64_t>(day); }
  // kCollateral (0 for a member's deposit or withdrawal), kSettlementRerun:
  // the settlement business date (target).
  int64_t settlement_date() const { return static_cast<int64_t>(target); }
  void set_settlement_date(int64_t date) {
    target = static_cast<uint64_t>(date);
  }
  // kSetInstrumentState to kPreOpen: the pre-open's length in nanoseconds
  // (target); the instrument opens by auction at ts + length (0: no
  // scheduled open).
  uint64_t pre_open_nanos() const { return target; }
  void set_pre_open_nanos(uint64_t n) { target = n; }
  // kReportFailure: the trade reported (target).
  TradeId trade_id() const { return TradeId{target}; }
  void set_trade_id(TradeId id) { target = id.value; }
  // kReferenceData, live only: the payload's slot in the PayloadArena
  // (target).
  uint64_t payload_slot() const { return target; }
  void set_payload_slot(uint64_t slot) { target = slot; }
  // kCollateral: the signed amount in micro-dollars (quantity).
  Amount amount() const { return Amount{quantity.lots}; }
  void set_amount(Amount a) { quantity = Quantity{a.micros}; }
  // kReferenceData: the payload's length in bytes (quantity).
  int64_t payload_size() const { return quantity.lots; }
  void set_payload_size(int64_t n) { quantity = Quantity{n}; }
};

// The longest pre-open a kSetInstrumentState may set: one day.
inline constexpr uint64_t kMaxPreOpenNanos = 24ull * 3600 * 1'000'000'000;

static_assert(std::is_trivially_copyable_v<Command>);
static_assert(sizeof(Command) <= kCacheLineSize);

}  // namespace cfx::exchange
