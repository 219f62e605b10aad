#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>

namespace cfx::exchange {

// Cache line size used for alignment and padding. A project constant because
// GCC 12 warns on std::hardware_destructive_interference_size in headers.
inline constexpr std::size_t kCacheLineSize = 64;

// Prices live on one exchange-wide grid of 1/10,000 USD ("price units"). An
// instrument's tick is a multiple of the grid (B200 products: 100 units =
// $0.01), so the engine can check ticks and index values ($0.001) are exact.
inline constexpr int64_t kPriceUnitsPerUsd = 10'000;

// Money in integer micro-dollars.
inline constexpr int64_t kMicrosPerUsd = 1'000'000;

struct Price {
  int64_t units = 0;
  friend constexpr auto operator<=>(Price, Price) = default;
};

// Quantity in lots: spot node-days or futures contracts.
struct Quantity {
  int64_t lots = 0;
  friend constexpr auto operator<=>(Quantity, Quantity) = default;
};

struct Amount {
  int64_t micros = 0;
  friend constexpr auto operator<=>(Amount, Amount) = default;
};

// An index price: USD per GPU-hour in integer micro-dollars, the grid the
// index computes and publishes on (prints, the spot trade prices they are
// computed from, the fixings final settlement averages); finer than Price
// (one price unit = 100 micro-dollars). money.h converts between the two.
struct IndexPrice {
  int64_t micros = 0;
  friend constexpr auto operator<=>(IndexPrice, IndexPrice) = default;
};

// Exchange-assigned order id: dense, from 1, in order of acceptance.
struct OrderId {
  uint64_t value = 0;
  friend constexpr auto operator<=>(OrderId, OrderId) = default;
};

// Opaque client token carried back on every event of the order. Gateways map
// their own client order id strings to it.
struct ClientOrderId {
  uint64_t value = 0;
  friend constexpr auto operator<=>(ClientOrderId, ClientOrderId) = default;
};

// Trading account; dense index from 1 into the engine's account table.
struct AccountId {
  uint32_t value = 0;
  friend constexpr auto operator<=>(AccountId, AccountId) = default;
};

// Instrument; dense index from 1 into the engine's instrument table.
struct InstrumentId {
  uint32_t value = 0;
  friend constexpr auto operator<=>(InstrumentId, InstrumentId) = default;
};

struct TradeId {
  uint64_t value = 0;
  friend constexpr auto operator<=>(TradeId, TradeId) = default;
};

// Position in the sequenced command stream: dense, gap-free, from 1.
struct Seq {
  uint64_t value = 0;
  friend constexpr auto operator<=>(Seq, Seq) = default;
};

// Nanoseconds since the Unix epoch, stamped by the sequencer.
struct Timestamp {
  int64_t nanos = 0;
  friend constexpr auto operator<=>(Timestamp, Timestamp) = default;
};

enum class Side : uint8_t { kNone = 0, kBuy = 1, kSell = 2 };

constexpr Side Opposite(Side s) {
  return s == Side::kBuy ? Side::kSell : Side::kBuy;
}

enum class OrderType : uint8_t { kNone = 0, kLimit = 1, kMarket = 2 };

enum class TimeInForce : uint8_t {
  kNone = 0,
  kDay = 1,  // expires when the instrument's session closes
  kGtc = 2,  // good till cancelled (or the instrument expires)
  kIoc = 3,  // immediate or cancel: the remainder never rests
  kFok = 4,  // fill or kill: fills completely at once or not at all
  kGtd = 5,  // good till the command's expire_time
};

// Self-trade prevention mode; applies when an order would match a resting
// order of the same account. The incoming order's mode decides.
enum class StpMode : uint8_t {
  kAccountDefault = 0,  // use the account's configured mode
  kCancelNewest = 1,    // cancel the incoming order's remainder
  kCancelOldest = 2,    // cancel the resting order, keep matching
  kCancelBoth = 3,      // cancel both
  kDecrement = 4,       // reduce both by the smaller quantity; cancel at zero
};

enum class InstrumentState : uint8_t {
  kNone = 0,
  kPreOpen = 1,  // call period: limit orders rest, replaces and cancels
                 // accepted, nothing matches; the open is an auction
  kOpen = 2,     // continuous trading
  kHalted = 3,   // cancels accepted, new orders and replaces rejected
  kClosed = 4,   // session over: DAY orders expired; cancels accepted
  kExpired = 5,  // terminal: every order cancelled, new orders rejected
};

enum class InstrumentKind : uint8_t { kNone = 0, kSpot = 1, kFuture = 2 };

}  // namespace cfx::exchange
