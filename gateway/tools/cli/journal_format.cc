#include "gateway/tools/cli/journal_format.h"

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>

#include "exchange/civil_date.h"
#include "exchange/clock.h"
#include "exchange/text_format.h"

namespace cfx::gateway::cli {

using exchange::Amount;
using exchange::Command;
using exchange::CommandType;
using exchange::FormatAmount;
using exchange::FormatDay;
using exchange::FormatPrice;
using exchange::FormatUtcTimestamp;
using exchange::InstrumentState;
using exchange::kFlagPostOnly;
using exchange::kFlagKill;
using exchange::kKnownFlags;
using exchange::kKnownKillSwitchFlags;
using exchange::OrderType;
using exchange::Price;
using exchange::Side;
using exchange::StpMode;
using exchange::TimeInForce;

namespace {

// The name of `v` in `names`, or UNKNOWN(n) for a value the table lacks.
template <typename E, std::size_t N>
std::string NameOf(E v, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [value, name] : names) {
    if (value == v) return name;
  }
  return "UNKNOWN(" + std::to_string(static_cast<unsigned>(v)) + ")";
}

std::string TypeName(CommandType t) {
  static constexpr std::pair<CommandType, const char*> kNames[] = {
      {CommandType::kNone, "NONE"},
      {CommandType::kNewOrder, "NEW_ORDER"},
      {CommandType::kCancel, "CANCEL"},
      {CommandType::kReplace, "REPLACE"},
      {CommandType::kMassCancel, "MASS_CANCEL"},
      {CommandType::kSetInstrumentState, "SET_INSTRUMENT_STATE"},
      {CommandType::kSetReferencePrice, "SET_REFERENCE_PRICE"},
      {CommandType::kTimer, "TIMER"},
      {CommandType::kEndOfSession, "END_OF_SESSION"},
      {CommandType::kListInstrument, "LIST_INSTRUMENT"},
      {CommandType::kReferenceData, "REFERENCE_DATA"},
      {CommandType::kReportFailure, "REPORT_FAILURE"},
      {CommandType::kIndexFixing, "INDEX_FIXING"},
      {CommandType::kCollateral, "COLLATERAL"},
      {CommandType::kSettlementRerun, "SETTLEMENT_RERUN"},
      {CommandType::kKillSwitch, "KILL_SWITCH"}};
  return NameOf(t, kNames);
}

std::string SideName(Side s) {
  static constexpr std::pair<Side, const char*> kNames[] = {
      {Side::kNone, "NONE"}, {Side::kBuy, "BUY"}, {Side::kSell, "SELL"}};
  return NameOf(s, kNames);
}

std::string OrderTypeName(OrderType t) {
  static constexpr std::pair<OrderType, const char*> kNames[] = {
      {OrderType::kNone, "NONE"},
      {OrderType::kLimit, "LIMIT"},
      {OrderType::kMarket, "MARKET"}};
  return NameOf(t, kNames);
}

std::string TifName(TimeInForce t) {
  static constexpr std::pair<TimeInForce, const char*> kNames[] = {
      {TimeInForce::kNone, "NONE"}, {TimeInForce::kDay, "DAY"},
      {TimeInForce::kGtc, "GTC"},   {TimeInForce::kIoc, "IOC"},
      {TimeInForce::kFok, "FOK"},   {TimeInForce::kGtd, "GTD"}};
  return NameOf(t, kNames);
}

std::string StpName(StpMode m) {
  static constexpr std::pair<StpMode, const char*> kNames[] = {
      {StpMode::kAccountDefault, "ACCOUNT_DEFAULT"},
      {StpMode::kCancelNewest, "CANCEL_NEWEST"},
      {StpMode::kCancelOldest, "CANCEL_OLDEST"},
      {StpMode::kCancelBoth, "CANCEL_BOTH"},
      {StpMode::kDecrement, "DECREMENT"}};
  return NameOf(m, kNames);
}

std::string StateName(InstrumentState s) {
  static constexpr std::pair<InstrumentState, const char*> kNames[] = {
      {InstrumentState::kNone, "NONE"},
      {InstrumentState::kPreOpen, "PRE_OPEN"},
      {InstrumentState::kOpen, "OPEN"},
      {InstrumentState::kHalted, "HALTED"},
      {InstrumentState::kClosed, "CLOSED"},
      {InstrumentState::kExpired, "EXPIRED"}};
  return NameOf(s, kNames);
}

// Price units (1/10,000 USD) as dollars with all four decimals of the
// grid: "5.8300".
std::string FormatGridPrice(Price p) { return FormatPrice(p, Price{1}); }

// Which optional fields a command type uses (command.h); the text form
// prints the others as name=value when they are not zero, so a dump never
// hides a byte of the record.
enum Field : unsigned {
  kSide = 1u << 0,
  kOrderType = 1u << 1,
  kTif = 1u << 2,
  kStp = 1u << 3,
  kFlags = 1u << 4,
  kState = 1u << 5,
  kAccount = 1u << 6,
  kInstrument = 1u << 7,
  kClientOrderId = 1u << 8,
  kTarget = 1u << 9,
  kPrice = 1u << 10,
  kQuantity = 1u << 11,
};

unsigned UsedFields(const Command& c) {
  switch (c.type) {
    case CommandType::kNewOrder:
      return kSide | kOrderType | kTif | kStp | kFlags | kAccount |
             kInstrument | kClientOrderId | kPrice | kQuantity |
             (c.tif == TimeInForce::kGtd ? kTarget : 0u);
    case CommandType::kCancel:
      return kAccount | kTarget | kClientOrderId;
    case CommandType::kReplace:
      return kAccount | kTarget | kClientOrderId | kPrice | kQuantity;
    case CommandType::kMassCancel:
      return kAccount | kInstrument;
    case CommandType::kSetInstrumentState:
      return kInstrument | kState;
    case CommandType::kSetReferencePrice:
      return kInstrument | kPrice;
    case CommandType::kCollateral:
      return kAccount | kQuantity | kTarget | kClientOrderId;
    case CommandType::kSettlementRerun:
      return kTarget | kClientOrderId;
    case CommandType::kKillSwitch:
      return kAccount | kFlags | kClientOrderId;
    default:
      return 0;
  }
}

// "settlement_date=2026-12-13" of a command's target day, or the number
// when it is no date (0, or after 9999-12-31).
std::string SettlementDateText(uint64_t target) {
  if (target != 0 && target <= 2'932'896) {
    return "settlement_date=" + FormatDay(static_cast<int64_t>(target));
  }
  return "settlement_date=" + std::to_string(target);
}

}  // namespace

std::string FormatCommandText(const Command& c) {
  std::string s = std::to_string(c.seq.value);
  s += ' ';
  s += FormatUtcTimestamp(c.ts);
  s += ' ';
  s += TypeName(c.type);
  auto add = [&](const std::string& part) {
    s += ' ';
    s += part;
  };
  const std::string acct = "acct=" + std::to_string(c.account.value);
  const std::string inst = "inst=" + std::to_string(c.instrument.value);
  const std::string cl = "cl=" + std::to_string(c.client_order_id.value);
  const std::string order = "order=" + std::to_string(c.order_id().value);
  switch (c.type) {
    case CommandType::kNewOrder:
      add(acct);
      add(inst);
      add(SideName(c.side));
      add(OrderTypeName(c.order_type));
      add(TifName(c.tif));
      add(std::to_string(c.quantity.lots));
      if (c.order_type != OrderType::kMarket || c.price.units != 0) {
        add("@ " + FormatGridPrice(c.price));
      }
      add(cl);
      if (c.stp != StpMode::kAccountDefault) add("stp=" + StpName(c.stp));
      if ((c.flags & kFlagPostOnly) != 0) add("POST_ONLY");
      if ((c.flags & ~kKnownFlags) != 0) {
        add("flags=" + std::to_string(static_cast<unsigned>(c.flags)));
      }
      if (c.tif == TimeInForce::kGtd)
        add("expire=" + FormatUtcTimestamp(c.expire_time()));
      break;
    case CommandType::kCancel:
      add(acct);
      add(order);
      add(cl);
      break;
    case CommandType::kReplace:
      add(acct);
      add(order);
      add(std::to_string(c.quantity.lots));
      add("@ " + FormatGridPrice(c.price));
      add(cl);
      break;
    case CommandType::kMassCancel:
      add(acct);
      add(c.instrument.value == 0 ? "inst=all" : inst);
      break;
    case CommandType::kSetInstrumentState:
      add(inst);
      add(StateName(c.state));
      break;
    case CommandType::kSetReferencePrice:
      add(inst);
      add("@ " + FormatGridPrice(c.price));
      break;
    case CommandType::kCollateral:
      add(acct);
      add("amount=" + FormatAmount(c.amount()));
      if (c.target != 0) add(SettlementDateText(c.target));
      add(cl);
      break;
    case CommandType::kSettlementRerun:
      add(SettlementDateText(c.target));
      add(cl);
      break;
    case CommandType::kKillSwitch:
      add(acct);
      add((c.flags & kFlagKill) != 0 ? "KILL" : "REINSTATE");
      if ((c.flags & ~kKnownKillSwitchFlags) != 0) {
        add("flags=" + std::to_string(static_cast<unsigned>(c.flags)));
      }
      add(cl);
      break;
    default:
      break;
  }
  // Whatever the type does not use, if set: nothing in the record is hidden.
  const unsigned used = UsedFields(c);
  auto extra = [&](Field f, bool set, const std::string& text) {
    if ((used & f) == 0 && set) add(text);
  };
  extra(kAccount, c.account.value != 0, acct);
  extra(kInstrument, c.instrument.value != 0, inst);
  extra(kSide, c.side != Side::kNone, "side=" + SideName(c.side));
  extra(kOrderType, c.order_type != OrderType::kNone,
        "order_type=" + OrderTypeName(c.order_type));
  extra(kTif, c.tif != TimeInForce::kNone, "tif=" + TifName(c.tif));
  extra(kStp, c.stp != StpMode::kAccountDefault, "stp=" + StpName(c.stp));
  extra(kFlags, c.flags != 0,
        "flags=" + std::to_string(static_cast<unsigned>(c.flags)));
  extra(kState, c.state != InstrumentState::kNone,
        "state=" + StateName(c.state));
  extra(kClientOrderId, c.client_order_id.value != 0, cl);
  extra(kTarget, c.target != 0, "target=" + std::to_string(c.target));
  extra(kPrice, c.price.units != 0, "price=" + FormatGridPrice(c.price));
  extra(kQuantity, c.quantity.lots != 0,
        "quantity=" + std::to_string(c.quantity.lots));
  if (c.reserved != 0)
    add("reserved=" + std::to_string(static_cast<unsigned>(c.reserved)));
  return s;
}

std::string FormatCommandJson(const Command& c) {
  char buf[640];
  std::snprintf(
      buf, sizeof buf,
      "{\"seq\":%" PRIu64 ",\"ts\":\"%s\",\"ts_ns\":%" PRId64
      ",\"type\":\"%s\",\"account\":%" PRIu32 ",\"instrument\":%" PRIu32
      ",\"side\":\"%s\",\"order_type\":\"%s\",\"tif\":\"%s\",\"stp\":\"%s\""
      ",\"flags\":%u,\"state\":\"%s\",\"reserved\":%u,\"client_order_id\":"
      "%" PRIu64 ",\"target\":%" PRIu64
      ",\"price\":\"%s\",\"price_units\":%" PRId64 ",\"quantity\":%" PRId64 "}",
      c.seq.value, FormatUtcTimestamp(c.ts).c_str(), c.ts.nanos,
      TypeName(c.type).c_str(), c.account.value, c.instrument.value,
      SideName(c.side).c_str(), OrderTypeName(c.order_type).c_str(),
      TifName(c.tif).c_str(), StpName(c.stp).c_str(),
      static_cast<unsigned>(c.flags), StateName(c.state).c_str(),
      static_cast<unsigned>(c.reserved), c.client_order_id.value, c.target,
      FormatGridPrice(c.price).c_str(), c.price.units, c.quantity.lots);
  return buf;
}
}  // namespace cfx::gateway::cli
