// Internal to exchange_core: the one walk over the fields of the state that
// is both snapshotted and hashed, so that Engine::SaveSnapshot(),
// Engine::LoadSnapshot() and Engine::StateHash() see the same fields in the
// same order (docs/journal.md "Snapshot", docs/matching.md "State hash").

#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

// The persisted fields of a resting order, in canonical order.
enum class OrderField : uint8_t {
  kId,
  kClientOrderId,
  kAccount,
  kSide,
  kPrice,
  kQuantity,
  kLeaves,
  kFilled,
  kTimeInForce,
  kStp,  // in the snapshot, not in the state hash
  kFlags,
  kExpireTime,
};

// Calls v(OrderField, field) for each persisted field of `o` in canonical
// order, `field` a reference to the member's integer or enum. With a
// non-const Order the visitor may assign the fields (snapshot loading).
template <typename O, typename Visitor>
requires std::is_same_v<std::remove_const_t<O>, Order>
void VisitOrderFields(O& o, Visitor&& v) {
  v(OrderField::kId, o.id.value);
  v(OrderField::kClientOrderId, o.client_order_id.value);
  v(OrderField::kAccount, o.account.value);
  v(OrderField::kSide, o.side);
  v(OrderField::kPrice, o.price.units);
  v(OrderField::kQuantity, o.quantity.lots);
  v(OrderField::kLeaves, o.leaves.lots);
  v(OrderField::kFilled, o.filled.lots);
  v(OrderField::kTimeInForce, o.tif);
  v(OrderField::kStp, o.stp);
  v(OrderField::kFlags, o.flags);
  v(OrderField::kExpireTime, o.expire_time.nanos);
}

// Calls v(field) for each persisted field of spot trade `t` in canonical
// order, `field` a reference to the integer member.
template <typename T, typename Visitor>
requires std::is_same_v<std::remove_const_t<T>, SpotTrade>
void VisitSpotTradeFields(T& t, Visitor&& v) {
  v(t.trade_id);
  v(t.day);
  v(t.price);
  v(t.quantity);
  v(t.instrument);
  v(t.buyer);
  v(t.seller);
  v(t.busted);
}

// Calls fn(account, instrument, position) for every non-zero net position,
// by account id, then instrument id.
template <typename Fn>
void ForEachPosition(const EngineState& s, Fn fn) {
  const uint32_t ni = s.limits.max_instruments;
  for (uint32_t a = 0; a < s.accounts.size(); ++a) {
    for (uint32_t i = 0; i < ni; ++i) {
      const int64_t p =
          s.positions[static_cast<std::size_t>(a) * ni + i].position;
      if (p != 0) fn(a, i, p);
    }
  }
}

// The integer a field is written and hashed as: an enum's underlying value,
// else the field itself.
template <typename T>
constexpr auto FieldInteger(T v) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<std::underlying_type_t<T>>(v);
  } else {
    return v;
  }
}

}  // namespace internal
}  // namespace cfx::exchange
