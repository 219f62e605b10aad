#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string_view>
#include <vector>

#include "exchange/core/engine.h"

namespace cfx::exchange::testing {

// Collects engine events into a vector through an EventSink. A small
// `buffer` (at most 64) makes the sink's flush-when-full path run often.
class EventCollector {
 public:
  explicit EventCollector(std::size_t buffer = kBuffer)
      : sink_(buffer_, buffer < kBuffer ? buffer : kBuffer, &Append, this) {}
  EventCollector(const EventCollector&) = delete;
  EventCollector& operator=(const EventCollector&) = delete;

  EventSink& sink() { return sink_; }
  // Flushes and returns the events since the last Take().
  std::vector<Event> Take() {
    sink_.Flush();
    std::vector<Event> out;
    out.swap(events_);
    return out;
  }

 private:
  static constexpr std::size_t kBuffer = 64;
  static void Append(void* self, const Event* e, std::size_t n) {
    auto* c = static_cast<EventCollector*>(self);
    c->events_.insert(c->events_.end(), e, e + n);
  }
  Event buffer_[kBuffer];
  EventSink sink_;
  std::vector<Event> events_;
};

// Prices in whole cents, for readable tests: Cents(580) = $5.80.
constexpr Price Cents(int64_t c) { return Price{c * 100}; }

// Builds commands with sensible defaults and applies them with dense seqs
// and a clock that moves 1 µs per command unless set.
class EngineDriver {
 public:
  explicit EngineDriver(const EngineConfig& config) {
    auto r = Engine::Create(config);
    if (r.has_value()) engine_ = std::move(r).value();
  }

  Engine& engine() { return *engine_; }
  bool ok() const { return engine_ != nullptr; }
  void set_time(Timestamp ts) { ts_ = ts; }
  Timestamp time() const { return ts_; }
  uint64_t next_seq() const { return seq_ + 1; }

  // Applies `cmd` (seq and ts filled in unless seq is already set) and
  // returns its events.
  std::vector<Event> Apply(Command cmd) {
    if (cmd.seq.value == 0) cmd.seq = Seq{++seq_};
    if (cmd.ts.nanos == 0) {
      ts_.nanos += 1'000;
      cmd.ts = ts_;
    }
    engine_->Apply(cmd, collector_.sink());
    return collector_.Take();
  }

  // As Apply(); for a kReferenceData command with its payload.
  std::vector<Event> Apply(Command cmd, std::string_view payload) {
    if (cmd.seq.value == 0) cmd.seq = Seq{++seq_};
    if (cmd.ts.nanos == 0) {
      ts_.nanos += 1'000;
      cmd.ts = ts_;
    }
    engine_->Apply(cmd, payload, collector_.sink());
    return collector_.Take();
  }

  static Command Limit(AccountId a, InstrumentId i, Side side, Price price,
                       int64_t lots, TimeInForce tif = TimeInForce::kGtc) {
    Command c;
    c.type = CommandType::kNewOrder;
    c.account = a;
    c.instrument = i;
    c.side = side;
    c.order_type = OrderType::kLimit;
    c.tif = tif;
    c.price = price;
    c.quantity = Quantity{lots};
    return c;
  }
  static Command Market(AccountId a, InstrumentId i, Side side, int64_t lots,
                        TimeInForce tif = TimeInForce::kIoc) {
    Command c = Limit(a, i, side, Price{0}, lots, tif);
    c.order_type = OrderType::kMarket;
    return c;
  }
  static Command Cancel(AccountId a, OrderId id) {
    Command c;
    c.type = CommandType::kCancel;
    c.account = a;
    c.set_order_id(id);
    return c;
  }
  static Command Replace(AccountId a, OrderId id, Price price, int64_t lots) {
    Command c;
    c.type = CommandType::kReplace;
    c.account = a;
    c.set_order_id(id);
    c.price = price;
    c.quantity = Quantity{lots};
    return c;
  }
  static Command MassCancel(AccountId a, InstrumentId i) {
    Command c;
    c.type = CommandType::kMassCancel;
    c.account = a;
    c.instrument = i;
    return c;
  }
  static Command SetState(InstrumentId i, InstrumentState s) {
    Command c;
    c.type = CommandType::kSetInstrumentState;
    c.instrument = i;
    c.state = s;
    return c;
  }
  static Command SetReference(InstrumentId i, Price p) {
    Command c;
    c.type = CommandType::kSetReferencePrice;
    c.instrument = i;
    c.price = p;
    return c;
  }
  static Command Timer() {
    Command c;
    c.type = CommandType::kTimer;
    return c;
  }
  // A member's deposit (micros > 0) or withdrawal (< 0) when `date` is 0,
  // else a settlement booking for `date` (days since 1970-01-01).
  static Command Collateral(AccountId a, int64_t micros, uint64_t date = 0) {
    Command c;
    c.type = CommandType::kCollateral;
    c.account = a;
    c.quantity = Quantity{micros};
    c.target = date;
    return c;
  }
  // A kill (`kill` true) or reinstate of account `a`.
  static Command KillSwitch(AccountId a, bool kill, uint64_t token = 0) {
    Command c;
    c.type = CommandType::kKillSwitch;
    c.account = a;
    c.flags = kill ? kFlagKill : uint8_t{0};
    c.client_order_id = ClientOrderId{token};
    return c;
  }

 private:
  std::unique_ptr<Engine> engine_;
  EventCollector collector_;
  uint64_t seq_ = 0;
  Timestamp ts_{1'800'000'000'000'000'000};
};

// Events of `type` in `events`.
inline std::vector<Event> OfType(const std::vector<Event>& events,
                                 EventType type) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (e.type == type) out.push_back(e);
  }
  return out;
}

inline int CountResults(const std::vector<Event>& events) {
  int n = 0;
  for (const Event& e : events) n += IsResult(e.type) ? 1 : 0;
  return n;
}

}  // namespace cfx::exchange::testing

namespace cfx::exchange {
// Readable one-line dump of an event, for assertion messages (found by ADL).
std::ostream& operator<<(std::ostream& os, const Event& e);
}  // namespace cfx::exchange
