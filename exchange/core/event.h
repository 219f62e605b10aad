#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "exchange/core/command.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

enum class Eligibility : uint8_t;  // exchange/core/reference/registry.h

enum class EventType : uint8_t {
  kNone = 0,
  // Results: every command yields exactly one of these (see IsResult()).
  kRejected = 1,        // any command; reason = RejectCode, command = type
  kOrderAccepted = 2,   // kNewOrder passed every check (fills may follow)
  kCancelAccepted = 3,  // kCancel: the order left the book
  kOrderReplaced = 4,   // kReplace applied (fills may follow)
  kMassCancelDone = 5,  // count = orders cancelled
  kInstrumentStateChanged = 6,
  kReferencePriceSet = 7,
  kTimerDone = 8,           // count = orders expired by this timer
  kSessionEnded = 9,        // count = DAY orders expired
  kInstrumentListed = 10,   // kListInstrument applied
  kReferenceAccepted = 11,  // kReferenceData accepted
  kTradeBusted = 12,        // kReportFailure: the spot trade is busted
  kIndexFixing = 13,        // kIndexFixing: count = the fixing's day
  kCollateralChanged = 14,  // kCollateral applied
  kSettlementRerun = 15,    // kSettlementRerun: count = the date
  kKillSwitchSet = 16,      // kKillSwitch: count = orders cancelled
  // Consequences.
  kTrade = 20,               // one match; account/order = aggressor,
                             // counter_* = resting order
  kOrderCancelled = 21,      // left the book without a user cancel; reason =
                             // CancelReason; quantity = lots cancelled
  kOrderRestated = 22,       // leaves reduced by self-trade decrement
  kBookLevel = 23,           // L2: new aggregate at (side, price); 0 = gone
  kEligibilityChanged = 24,  // a provider's standing for a grade changed
  kIndicativeOpen = 25,      // pre-open: the price the book would open at
  kInstrumentOpened = 26,    // the opening auction ran: continuous trading
};

// One engine output. Fixed size and trivially copyable. Fields per type:
//   kRejected:        command, reason, account, instrument, order_id (cancel/
//                     replace target), client_order_id, side, price, quantity
//   kOrderAccepted:   account, instrument, order_id, client_order_id, side,
//                     price (0 for market), quantity, leaves, order_type,
//                     tif
//   kCancelAccepted,
//   kOrderCancelled:  reason (CancelReason), account, instrument, order_id,
//                     client_order_id, side, price, quantity (lots
//                     cancelled), leaves (0), filled
//   kOrderReplaced:   account, instrument, order_id, client_order_id (the
//                     replace's), side, price, quantity (new total), leaves,
//                     filled
//   kOrderRestated:   reason (kSelfTradePrevention), account, instrument,
//                     order_id, client_order_id, side, price, quantity (lots
//                     removed), leaves, filled
//   kTrade:           trade_id, instrument, side (aggressor), price,
//                     quantity; aggressor account/order/client/leaves/filled;
//                     resting counter_account/.../counter_filled; spot
//                     only: count = the seller's attested output tokens/s
//                     per GPU for the grade, in thousandths (the mean over
//                     its nodes that meet the grade; 0 = none)
//   kBookLevel:       instrument, side, price, quantity (aggregate), count
//                     (orders at the level)
//   kMassCancelDone:  account, instrument (0 = all), count,
//                     client_order_id (the mass cancel's)
//   kInstrumentStateChanged: instrument, state, client_order_id (the
//                     command's), quantity (kPreOpen: the scheduled open,
//                     nanoseconds since 1970-01-01; 0 = none)
//   kIndicativeOpen:  instrument, price (0 = the book does not cross),
//                     quantity (lots that would trade), side (the side with
//                     lots left at that price; kNone = none), leaves (those
//                     lots)
//   kInstrumentOpened: instrument, state (kOpen), price (the opening price;
//                     0 = nothing traded), quantity (lots traded)
//   kReferencePriceSet: instrument, price
//   kTimerDone:       count
//   kSessionEnded:    instrument (0 = all), count
//   kInstrumentListed: instrument, state (open), price (reference), count
//                     (delivery day: days since 1970-01-01)
//   kReferenceAccepted: account, client_order_id (the command's)
//   kTradeBusted:     trade_id, instrument, price, quantity, account (buyer),
//                     counter_account (seller), side (of the reporting
//                     party), client_order_id (the command's), count
//                     (delivery day)
//   kIndexFixing:     count (the fixing's day: days since 1970-01-01)
//   kCollateralChanged: account, quantity (the amount, micro-dollars),
//                     leaves (the collateral after it, micro-dollars),
//                     count (the settlement date; 0 for a deposit or
//                     withdrawal), client_order_id (the command's)
//   kSettlementRerun: count (the business date), client_order_id (the
//                     command's)
//   kKillSwitchSet:   account, reason (1: killed, 0: reinstated; see
//                     killed()), count (orders cancelled), client_order_id
//                     (the command's)
//   kEligibilityChanged: account, count (grade index), reason (Eligibility),
//                     quantity (attested nodes meeting the grade)
//   kRejected of a new spot sell for kGradeNotEligible: count = the
//                     Eligibility naming the missing requirement
struct Event {
  Seq seq;       // of the command that caused the event
  Timestamp ts;  // of that command
  EventType type = EventType::kNone;
  Side side = Side::kNone;
  CommandType command = CommandType::kNone;
  InstrumentState state = InstrumentState::kNone;
  uint16_t reason = 0;  // RejectCode or CancelReason, per type
  OrderType order_type = OrderType::kNone;  // kOrderAccepted
  TimeInForce tif = TimeInForce::kNone;     // kOrderAccepted
  InstrumentId instrument;
  uint32_t count = 0;
  AccountId account;
  AccountId counter_account;
  OrderId order_id;
  OrderId counter_order_id;
  ClientOrderId client_order_id;
  ClientOrderId counter_client_order_id;
  Price price;
  Quantity quantity;
  Quantity leaves;
  Quantity counter_leaves;
  Quantity filled;
  Quantity counter_filled;
  TradeId trade_id;

  RejectCode reject_code() const { return static_cast<RejectCode>(reason); }
  CancelReason cancel_reason() const {
    return static_cast<CancelReason>(reason);
  }

  // Fields that carry another meaning for some types (see above), by name.
  // Days are days since 1970-01-01.
  // kInstrumentListed, kTradeBusted: the delivery day (count).
  int64_t delivery_day() const { return count; }
  void set_delivery_day(int64_t day) { count = static_cast<uint32_t>(day); }
  // kIndexFixing: the fixing's day (count).
  int64_t fixing_day() const { return count; }
  void set_fixing_day(int64_t day) { count = static_cast<uint32_t>(day); }
  // kCollateralChanged (0 for a deposit or withdrawal), kSettlementRerun: the
  // settlement business date (count).
  int64_t settlement_date() const { return count; }
  void set_settlement_date(int64_t date) {
    count = static_cast<uint32_t>(date);
  }
  // kCollateralChanged: the signed amount (quantity) and the account's
  // collateral after it (leaves), in micro-dollars.
  Amount amount() const { return Amount{quantity.lots}; }
  void set_amount(Amount a) { quantity = Quantity{a.micros}; }
  Amount collateral() const { return Amount{leaves.lots}; }
  void set_collateral(Amount a) { leaves = Quantity{a.micros}; }
  // kInstrumentStateChanged to kPreOpen: the time of the scheduled open
  // (quantity; 0 = none).
  Timestamp open_time() const { return Timestamp{quantity.lots}; }
  void set_open_time(Timestamp t) { quantity = Quantity{t.nanos}; }
  // kTrade in a spot instrument: the seller's attested output tokens/s per
  // GPU for the grade, in thousandths (count; 0 = none).
  uint32_t seller_milli_tokens() const { return count; }
  void set_seller_milli_tokens(uint32_t v) { count = v; }
  // kEligibilityChanged: the grade index (count), the provider's standing
  // (reason) and its attested nodes that meet the grade (quantity).
  uint32_t grade() const { return count; }
  void set_grade(uint32_t g) { count = g; }
  Eligibility eligibility() const { return static_cast<Eligibility>(reason); }
  void set_eligibility(Eligibility e) { reason = static_cast<uint16_t>(e); }
  int64_t attested_nodes() const { return quantity.lots; }
  void set_attested_nodes(int64_t n) { quantity = Quantity{n}; }
  // kKillSwitchSet: whether the account is now killed (reason).
  bool killed() const { return reason != 0; }
  void set_killed(bool k) { reason = k ? 1 : 0; }
  // kRejected with kGradeNotEligible: the Eligibility naming the missing
  // requirement (count).
  Eligibility missing_eligibility() const {
    return static_cast<Eligibility>(count);
  }
  void set_missing_eligibility(Eligibility e) {
    count = static_cast<uint32_t>(e);
  }
};

static_assert(std::is_trivially_copyable_v<Event>);
static_assert(sizeof(Event) == 2 * kCacheLineSize);

// Resets `e` to Event{} with eight 16-byte stores: GCC turns a plain
// 128-byte clear into `rep stos`, which costs more than the whole event.
inline void ClearEvent(Event& e) noexcept {
#if defined(__SSE2__)
  auto* p = reinterpret_cast<__m128i*>(&e);
  const __m128i zero = _mm_setzero_si128();
  for (int i = 0; i < static_cast<int>(sizeof(Event) / 16); ++i) {
    _mm_storeu_si128(p + i, zero);
  }
#else
  e = Event{};
#endif
}

// True for the one event that ends each command.
constexpr bool IsResult(EventType t) {
  return t != EventType::kNone && static_cast<uint8_t>(t) < 20;
}

// Receives the engine's events in order. Events go into a caller-provided
// buffer; when it is full, and when the caller calls Flush(), they are handed
// to `flush(context, events, n)`. One indirect call per buffer, none per
// event.
//
// Thread: owned by the thread that calls Engine::Apply().
// Memory: never allocates; `buffer` must remain live while the sink is used.
class EventSink {
 public:
  using FlushFn = void (*)(void* context, const Event* events, std::size_t n);

  EventSink(Event* buffer, std::size_t capacity, FlushFn flush,
            void* context) noexcept
      : buffer_(buffer),
        capacity_(capacity),
        flush_(flush),
        context_(context) {}
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  void Emit(const Event& e) noexcept { Next() = e; }

  // The next event slot, to be filled in place (not cleared). Valid until
  // the next call to Next(), Emit() or Flush().
  Event& Next() noexcept {
    if (size_ == capacity_) Flush();
    return buffer_[size_++];
  }

  void Flush() noexcept {
    if (size_ != 0) flush_(context_, buffer_, size_);
    size_ = 0;
  }

  std::size_t pending() const { return size_; }

 private:
  Event* buffer_;
  std::size_t capacity_;
  FlushFn flush_;
  void* context_;
  std::size_t size_ = 0;
};

}  // namespace cfx::exchange
