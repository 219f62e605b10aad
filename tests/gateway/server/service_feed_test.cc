// The services' thread (gateway/server/service_feed.h): live events are
// applied on "cfx-services", not on the thread that hands them over; a full
// ring holds the events back without losing one; a read handed over after
// an event sees it, and waits (without blocking the caller) while the
// services are busy.
#include "gateway/server/service_feed.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway {
namespace {

using exchange::Event;
using exchange::EventType;

constexpr int64_t kFirstDay = 20'788;  // 2026-12-01
constexpr int64_t kHourNs = 3'600 * index::kNanosPerSecond;

index::IndexConfig TwoGrades() {
  index::IndexConfig c;
  c.grades = {"B200-STD", "B200-PRM"};
  c.gpu_hours_per_lot = {192, 192};
  c.reference_grade = {1, 0};
  // Instruments 1 and 2: the grades' spot node-days.
  c.instrument_grade = {0, 1, 2};
  c.account_firm = {0, 1, 2, 3, 4, 5, 6};
  c.account_group = {0, 1, 2, 3, 4, 5, 6};
  c.firm_names = {"", "F1", "F2", "F3", "F4", "F5", "F6"};
  return c;
}

// `days` days of spot trades of both grades (sellers 1-3, buyers 4-6, two
// in each 4 h partition), each followed by its fixing, and one bust.
std::vector<Event> TradingDays(int days) {
  std::vector<Event> out;
  uint64_t seq = 0;
  uint64_t trade = 0;
  const auto add = [&](Event e) {
    e.seq = exchange::Seq{++seq};
    out.push_back(e);
  };
  for (int d = 0; d < days; ++d) {
    const int64_t day = kFirstDay + d;
    const int64_t start = (day - 1) * index::kNanosPerDay + 21 * kHourNs;
    for (int k = 0; k < 24; ++k) {
      Event t;
      t.type = EventType::kTrade;
      t.ts = exchange::Timestamp{start + (k / 4) * 4 * kHourNs + (k % 4) * 60};
      t.instrument = exchange::InstrumentId{static_cast<uint32_t>(1 + k % 2)};
      t.trade_id = exchange::TradeId{++trade};
      t.side = exchange::Side::kBuy;
      t.counter_account = exchange::AccountId{static_cast<uint32_t>(1 + k % 3)};
      t.account = exchange::AccountId{static_cast<uint32_t>(4 + (k / 2) % 3)};
      t.price = exchange::Price{(580 + d * 7 + k % 5) * 100 * 100};
      t.quantity = exchange::Quantity{2};
      t.count = 250'000;  // attested milli-tokens
      add(t);
    }
    if (d == 1) {
      Event bust;
      bust.type = EventType::kTradeBusted;
      bust.ts = exchange::Timestamp{start + 23 * kHourNs};
      bust.trade_id = exchange::TradeId{trade - 3};
      bust.instrument = exchange::InstrumentId{1};
      add(bust);
    }
    Event fixing;
    fixing.type = EventType::kIndexFixing;
    fixing.ts = exchange::Timestamp{day * index::kNanosPerDay + 21 * kHourNs};
    fixing.count = static_cast<uint32_t>(day);
    add(fixing);
  }
  return out;
}

// A feed of in-memory services, its prints and the commands it sent.
struct Harness {
  explicit Harness(ServiceFeedOptions options = {}) {
    feed = ServiceFeed::Create(
        index::IndexService::InMemory(TwoGrades()),
        settlement::SettlementService::InMemory(settlement::SettlementConfig{}),
        nullptr, std::move(options));
    feed->GoLive([this](const index::Print& p) {
      publisher_thread = std::this_thread::get_id();
      prints.push_back({p.grade, p.day, p.revision, p.value.micros});
    });
  }
  // The gateway loop's part: prints, commands, answers.
  void Turn() {
    feed->Poll();
    feed->SubmitEngineCommands(ring);
    exchange::Command c;
    while (ring.TryPop(&c)) {
      commands.push_back({c.type, c.instrument.value, c.price.units});
    }
  }
  // Hands every event over as the gateway loop does: only while the ring
  // has room, taking the outputs back meanwhile.
  void HandOver(const std::vector<Event>& events) {
    std::size_t i = 0;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (i < events.size() && std::chrono::steady_clock::now() < deadline) {
      for (std::size_t room = feed->Room(); room > 0 && i < events.size();
           --room) {
        feed->OnEvent(events[i++]);
      }
      Turn();
    }
    ASSERT_EQ(i, events.size()) << "the ring never had room";
  }
  // Turns until `done()`, for at most kWait.
  bool TurnUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      Turn();
      std::this_thread::yield();
    }
    Turn();
    return true;
  }
  bool CaughtUp() {
    return TurnUntil([this] { return feed->applied() == feed->handed(); });
  }

  static constexpr std::chrono::seconds kWait{30};
  std::unique_ptr<ServiceFeed> feed;
  exchange::SpscRing<exchange::Command> ring{1 << 12};
  std::vector<std::tuple<uint32_t, int64_t, uint32_t, int64_t>> prints;
  std::vector<std::tuple<exchange::CommandType, uint32_t, int64_t>> commands;
  std::thread::id publisher_thread;
};

std::string ThreadName() {
  char name[32] = {};
  pthread_getname_np(pthread_self(), name, sizeof name);
  return name;
}

TEST(ServiceFeedTest, LiveEventsAreAppliedOnTheServiceThread) {
  std::atomic<bool> off_caller{true};
  std::atomic<int> applied{0};
  std::string name;
  const std::thread::id caller = std::this_thread::get_id();
  ServiceFeedOptions options;
  options.before_apply = [&](const Event&) {
    if (std::this_thread::get_id() == caller) off_caller = false;
    if (applied++ == 0) name = ThreadName();
  };
  Harness h(std::move(options));
  h.feed->Start();
  const std::vector<Event> events = TradingDays(1);
  h.HandOver(events);
  ASSERT_TRUE(h.CaughtUp());
  EXPECT_EQ(applied.load(), static_cast<int>(events.size()));
  EXPECT_TRUE(off_caller.load());
  EXPECT_EQ(name, "cfx-services");
  // The prints reach the gateways on the caller's (the gateway's) thread.
  ASSERT_EQ(h.prints.size(), 2u);
  EXPECT_EQ(h.publisher_thread, caller);
  h.feed->Stop();
}

TEST(ServiceFeedTest, AFullRingHoldsEventsBackAndLosesNone) {
  const std::vector<Event> events = TradingDays(3);
  // The synchronous result: the same feed, never started, applies each
  // event as it is handed over.
  Harness sync;
  for (const Event& e : events) {
    sync.feed->OnEvent(e);
    sync.Turn();
  }
  ServiceFeedOptions tiny;
  tiny.event_ring = 2;
  tiny.print_ring = 2;
  tiny.command_ring = 2;
  Harness threaded(std::move(tiny));
  threaded.feed->Start();
  threaded.HandOver(events);
  ASSERT_TRUE(threaded.CaughtUp());
  EXPECT_EQ(threaded.feed->applied(), events.size());
  EXPECT_FALSE(sync.prints.empty());
  EXPECT_EQ(threaded.prints, sync.prints);
  EXPECT_FALSE(sync.commands.empty());
  EXPECT_EQ(threaded.commands, sync.commands);
  threaded.feed->Stop();
  for (uint32_t g = 0; g < 2; ++g) {
    for (int64_t d = kFirstDay; d < kFirstDay + 3; ++d) {
      const index::Print* a = threaded.feed->index().Find(g, d);
      const index::Print* b = sync.feed->index().Find(g, d);
      ASSERT_NE(a, nullptr) << g << " " << d;
      ASSERT_NE(b, nullptr) << g << " " << d;
      EXPECT_EQ(a->value.micros, b->value.micros) << g << " " << d;
      EXPECT_EQ(a->revision, b->revision) << g << " " << d;
      EXPECT_EQ(a->trade_ids, b->trade_ids) << g << " " << d;
    }
  }
  EXPECT_EQ(threaded.feed->index().last_applied_seq(),
            sync.feed->index().last_applied_seq());
  EXPECT_EQ(threaded.feed->settlement().last_applied_seq(),
            sync.feed->settlement().last_applied_seq());
}

TEST(ServiceFeedTest, OnlyTheEventsTheServicesUseAreHandedOver) {
  const std::vector<Event> used = TradingDays(2);
  // The same days with the order events around each: an order accepted
  // before it and a cancel and a replace after it, of the same command
  // (seq). Neither service applies those.
  std::vector<Event> mixed;
  for (const Event& e : used) {
    Event accepted;
    accepted.type = EventType::kOrderAccepted;
    accepted.seq = e.seq;
    accepted.ts = e.ts;
    accepted.instrument = exchange::InstrumentId{1};
    accepted.order_id = exchange::OrderId{e.seq.value};
    mixed.push_back(accepted);
    mixed.push_back(e);
    for (const EventType t :
         {EventType::kCancelAccepted, EventType::kOrderReplaced}) {
      Event other = accepted;
      other.type = t;
      mixed.push_back(other);
    }
  }
  Harness sync;
  for (const Event& e : used) {
    sync.feed->OnEvent(e);
    sync.Turn();
  }
  std::atomic<uint64_t> applied{0};
  std::atomic<bool> only_used{true};
  ServiceFeedOptions options;
  options.before_apply = [&](const Event& e) {
    ++applied;
    if (!index::IndexService::Uses(e.type) &&
        !settlement::SettlementService::Uses(e.type)) {
      only_used = false;
    }
  };
  Harness threaded(std::move(options));
  threaded.feed->Start();
  threaded.HandOver(mixed);
  ASSERT_TRUE(threaded.CaughtUp());
  EXPECT_EQ(threaded.feed->handed(), used.size());
  EXPECT_EQ(applied.load(), used.size());
  EXPECT_TRUE(only_used.load());
  EXPECT_FALSE(sync.prints.empty());
  EXPECT_EQ(threaded.prints, sync.prints);
  EXPECT_EQ(threaded.commands, sync.commands);
  EXPECT_EQ(threaded.feed->index().last_applied_seq(),
            sync.feed->index().last_applied_seq());
  threaded.feed->Stop();
}

TEST(ServiceFeedTest, AReadHandedOverAfterAnEventSeesIt) {
  Harness h;
  h.feed->Start();
  h.HandOver(TradingDays(1));
  // At once, without waiting for the service thread first.
  int64_t day_seen = 0;
  std::size_t prints_before = 0;
  bool answered = false;
  ASSERT_TRUE(h.feed->Read([&] {
    answered = true;
    const index::Print* p = h.feed->index().Latest(0);
    day_seen = p == nullptr ? 0 : p->day;
    prints_before = h.prints.size();
  }));
  ASSERT_TRUE(h.TurnUntil([&] { return answered; }));
  EXPECT_EQ(day_seen, kFirstDay);
  // The fixing's prints reached the gateways before the answer ran.
  EXPECT_EQ(prints_before, 2u);
  h.feed->Stop();
}

TEST(ServiceFeedTest, TheCallerStaysResponsiveWhileTheServicesAreBusy) {
  // The services stall on the fixing (a slow settlement run) until the
  // test lets them go on.
  std::atomic<bool> stalled{false};
  std::atomic<bool> go_on{false};
  ServiceFeedOptions options;
  options.max_pending_reads = 2;
  options.before_apply = [&](const Event& e) {
    if (e.type != EventType::kIndexFixing) return;
    stalled = true;
    const auto deadline = std::chrono::steady_clock::now() + Harness::kWait;
    while (!go_on.load() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  };
  Harness h(std::move(options));
  h.feed->Start();
  h.HandOver(TradingDays(1));
  ASSERT_TRUE(h.TurnUntil([&] { return stalled.load(); }));
  int answers = 0;
  int64_t day_seen = 0;
  const auto read = [&] {
    return h.feed->Read([&] {
      ++answers;
      const index::Print* p = h.feed->index().Latest(0);
      day_seen = p == nullptr ? 0 : p->day;
    });
  };
  EXPECT_TRUE(read());
  EXPECT_TRUE(read());
  // Two answers wait: one more is refused, not queued.
  EXPECT_FALSE(read());
  // The caller's turns return while the services are stalled.
  for (int k = 0; k < 100; ++k) h.Turn();
  EXPECT_EQ(answers, 0);
  EXPECT_TRUE(h.prints.empty());
  go_on = true;
  ASSERT_TRUE(h.TurnUntil([&] { return answers == 2; }));
  EXPECT_EQ(day_seen, kFirstDay);
  EXPECT_EQ(h.prints.size(), 2u);
  h.feed->Stop();
}

// The names of this process's threads.
std::set<std::string> ThreadNames() {
  std::set<std::string> names;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return names;
  while (const dirent* d = readdir(dir)) {
    if (d->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + d->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    names.insert(name);
  }
  closedir(dir);
  return names;
}

TEST(ServiceFeedTest, TheServerRunsTheServicesOnAThreadOfTheirOwn) {
  server_test::TestServer server;
  ASSERT_TRUE(server.Start().ok());
  // Each thread names itself once it runs.
  std::set<std::string> names;
  const auto deadline = std::chrono::steady_clock::now() + Harness::kWait;
  do {
    names = ThreadNames();
  } while ((names.count("cfx-services") == 0 ||
            names.count("cfx-gateway") == 0) &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(names.count("cfx-services"), 1u);
  EXPECT_EQ(names.count("cfx-gateway"), 1u);
  ASSERT_TRUE(server.Stop().ok());
  EXPECT_EQ(ThreadNames().count("cfx-services"), 0u);
}

}  // namespace
}  // namespace cfx::gateway
