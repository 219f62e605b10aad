// Internal to exchange_core: the engine's state while one command is
// applied, and what every part of applying it shares: the builders of the
// events it emits (each stamped with the command's seq and ts) and the
// lookups of books, accounts, positions and eligibility rows.
//
// Thread: the matching thread, for the duration of one Apply.
// Memory: never allocates; events go into the sink's preallocated buffer.

#pragma once

#include <cstddef>
#include <cstdint>

#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

class CommandContext {
 public:
  // `s` must remain live while this object is.
  explicit CommandContext(EngineState& s) : s_(s) {}

 protected:
  // ---- events ----
  // Starts the next event in the sink's buffer; the caller fills it in
  // before starting another.
  Event& Base(EventType type) {
    Event& e = s_.out->Next();
    ClearEvent(e);
    e.seq = s_.cmd->seq;
    e.ts = s_.cmd->ts;
    e.type = type;
    return e;
  }

  void Reject(RejectCode code) { RejectEvent(code); }

  Event& RejectEvent(RejectCode code) {
    const Command& c = *s_.cmd;
    Event& e = Base(EventType::kRejected);
    e.command = c.type;
    e.reason = static_cast<uint16_t>(code);
    e.account = c.account;
    e.instrument = c.instrument;
    if (c.type == CommandType::kCancel || c.type == CommandType::kReplace) {
      e.order_id = c.order_id();
    }
    e.client_order_id = c.client_order_id;
    e.side = c.side;
    e.price = c.price;
    e.quantity = c.quantity;
    return e;
  }

  Event& OrderEvent(EventType type, const Order& o) {
    Event& e = Base(type);
    e.account = o.account;
    e.instrument = o.instrument;
    e.order_id = o.id;
    e.client_order_id = o.client_order_id;
    e.side = o.side;
    e.price = o.price;
    e.quantity = o.quantity;
    e.leaves = o.leaves;
    e.filled = o.filled;
    return e;
  }

  Event& TakerEvent(EventType type, const Taker& t, InstrumentId inst) {
    Event& e = Base(type);
    e.account = t.account;
    e.instrument = inst;
    e.order_id = t.id;
    e.client_order_id = t.client_order_id;
    e.side = t.side;
    e.price = t.event_price;
    e.leaves = t.leaves;
    e.filled = t.filled;
    return e;
  }

  // ---- lookups ----
  Book* FindBook(InstrumentId id) {
    if (id.value == 0 || id.value >= s_.books.size()) return nullptr;
    Book& b = s_.books[id.value];
    return b.listed ? &b : nullptr;
  }

  bool AccountKnown(AccountId a) const {
    return a.value != 0 && a.value < s_.accounts.size() &&
           s_.accounts[a.value].configured;
  }

  PositionRow& Row(AccountId a, InstrumentId i) {
    return s_.positions[static_cast<std::size_t>(a.value) *
                            s_.limits.max_instruments +
                        i.value];
  }

  // The account's standing in grade `grade`, cached from the registry.
  EligibilityRow& RowOf(AccountId a, uint32_t grade) {
    return s_
        .eligibility[static_cast<std::size_t>(a.value) * kMaxGrades + grade];
  }

  EngineState& s_;
};

}  // namespace internal
}  // namespace cfx::exchange
