#pragma once

#include <tuple>

#include "exchange/core/event.h"

namespace cfx::gateway {

// An ordered list of the consumers of the durable event stream: OnEvent()
// hands each event to every consumer, first to last, before the next event.
// The list is one type, so the composition root writes the order once and
// uses the same object live and at start-up replay; the calls are direct
// and inline (a fold over references, no virtual or std::function call).
//
// Each consumer type has `void OnEvent(const exchange::Event&)`. The list
// holds references: the consumers must remain live while it is used.
//
// Thread: whichever thread feeds the events; the list itself is immutable.
template <typename... Consumers>
class EventConsumerList {
 public:
  explicit EventConsumerList(Consumers&... consumers)
      : consumers_(consumers...) {}

  void OnEvent(const exchange::Event& e) const {
    // A fold over the comma operator runs left to right.
    std::apply([&e](Consumers&... c) { (c.OnEvent(e), ...); }, consumers_);
  }

 private:
  std::tuple<Consumers&...> consumers_;
};

}  // namespace cfx::gateway
