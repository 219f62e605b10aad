#include "gateway/server/event_consumers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cfx::gateway {
namespace {

// Writes "<name><seq>" to a shared log for every event it gets.
struct Recorder {
  std::string name;
  std::vector<std::string>* log;
  void OnEvent(const exchange::Event& e) {
    log->push_back(name + std::to_string(e.seq.value));
  }
};

TEST(EventConsumerList, EachEventReachesEveryConsumerInListOrder) {
  std::vector<std::string> log;
  Recorder a{"a", &log}, b{"b", &log}, c{"c", &log};
  const EventConsumerList<Recorder, Recorder, Recorder> list(a, b, c);
  exchange::Event e;
  e.seq = exchange::Seq{1};
  list.OnEvent(e);
  e.seq = exchange::Seq{2};
  list.OnEvent(e);
  EXPECT_EQ(log,
            (std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "c2"}));
}

TEST(EventConsumerList, HoldsTheConsumersByReference) {
  std::vector<std::string> log;
  Recorder a{"a", &log};
  const EventConsumerList<Recorder> list(a);
  a.name = "renamed";
  list.OnEvent(exchange::Event{});
  EXPECT_EQ(log, (std::vector<std::string>{"renamed0"}));
}

}  // namespace
}  // namespace cfx::gateway
