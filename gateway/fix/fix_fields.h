#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "exchange/core/types.h"
#include "gateway/fix/fix_engine.h"
#include "gateway/session/order_view.h"

namespace cfx::gateway::fix {

// The FIX gateway's field conversions (docs/fix.md "Numbers" and "ClOrdID"):
// the one place each FIX text <-> engine value rule lives.

// The engine client order id of a FIX ClOrdID (docs/fix.md): 1-18 digits
// without a leading zero are the number itself; anything else is FNV-1a 64
// with the top bit set. 0 for an invalid ClOrdID (empty, over 20
// characters, or not printable ASCII without spaces).
uint64_t ClientOrderIdForClOrdId(std::string_view text);

// A FIX price ("5.80") in engine units, or nullopt (docs/fix.md: at most 4
// decimals, no sign or exponent).
std::optional<int64_t> ParseFixPrice(std::string_view text);
// A FIX quantity ("5", "5.0") in lots, or nullopt (not a positive whole
// number).
std::optional<int64_t> ParseFixQuantity(std::string_view text);
// Average price `notional` / `lots` (notional in engine price units x lots),
// rounded half-even to 6 decimal places, e.g. "5.805". "0" when lots is 0.
std::string FormatAvgPx(Int128 notional, int64_t lots);
// "YYYYMMDD-HH:MM:SS.sss" UTC.
std::string FormatFixTime(exchange::Timestamp t);
// "YYYYMMDD-HH:MM:SS" with an optional fraction of 1 to 9 digits, in ns
// since the epoch, or nullopt (also for a time before 1970 or after
// 2262-04-11T23:47:16.854775807Z, beyond int64 nanoseconds).
std::optional<int64_t> ParseFixTime(std::string_view s);

// 1 to 19 decimal digits, or nullopt.
std::optional<uint64_t> ParseU64(std::string_view s);

inline std::string Str(int64_t v) { return std::to_string(v); }
inline std::string Str(uint64_t v) { return std::to_string(v); }

// Side(54): '1' buy, '2' sell.
inline char SideChar(exchange::Side s) {
  return s == exchange::Side::kBuy ? '1' : '2';
}
// TimeInForce(59) of an engine time in force ('0' for day and unknown).
char TifChar(exchange::TimeInForce t);
// The engine time in force of TimeInForce(59) `v` (absent = day), or
// nullopt for a value the exchange does not take.
std::optional<exchange::TimeInForce> TifOf(const std::string* v);
// OrdStatus(39) of an order's state.
char OrdStatusOf(OrderState s);

// The value of `tag` in `m`, or "" when absent.
const std::string& Get(const Message& m, int tag);

}  // namespace cfx::gateway::fix
