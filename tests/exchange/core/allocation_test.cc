// Counts heap allocations through a replaced global operator new and checks
// that the engine makes none once warmed up (STYLE.md §7).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "exchange/core/engine.h"
#include "tests/support/engine_fixture.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace cfx::exchange {
namespace {

struct Counts {
  std::size_t events = 0;
  std::size_t insufficient_margin = 0;
  std::size_t collateral_changed = 0;
};

void CountEvents(void* context, const Event* e, std::size_t k) {
  auto* n = static_cast<Counts*>(context);
  n->events += k;
  for (std::size_t i = 0; i < k; ++i) {
    n->insufficient_margin +=
        e[i].type == EventType::kRejected &&
        e[i].reject_code() == RejectCode::kInsufficientMargin;
    n->collateral_changed += e[i].type == EventType::kCollateralChanged;
  }
}

TEST(EngineAllocation, NoHeapAllocationAcrossHundredThousandCommands) {
  EngineConfig config;
  config.limits.max_orders = 1 << 16;
  config.limits.max_accounts = 16;
  config.limits.max_instruments = 4;
  for (uint32_t i = 1; i <= 2; ++i) {
    InstrumentConfig ic;
    ic.id = InstrumentId{i};
    ic.reference_price = Price{100'000};  // $10.00
    ic.max_quantity = Quantity{100};
    ic.position_limit = Quantity{1'000'000};
    // Both margined, one root, adjacent months: every order and replace
    // runs the margin check, spreads included.
    ic.margin_group = 1;
    ic.maturity_month = 2027 * 12 + static_cast<int32_t>(i);
    config.instruments.push_back(ic);
  }
  for (uint32_t a = 1; a < 16; ++a) {
    // Accounts 1-5 can margin a few dozen contracts ($1,095 each); the
    // rest far more.
    const int64_t usd = a <= 5 ? 40'000 : 1'000'000'000;
    config.accounts.push_back({AccountId{a}, static_cast<StpMode>(1 + a % 4),
                               Amount{usd * kMicrosPerUsd}});
  }
  auto engine = Engine::Create(config);
  ASSERT_TRUE(engine.has_value()) << engine.error().ToString();

  // Every kind of command, valid and invalid, from a fixed seed; generated
  // before counting so only Apply() is measured.
  const uint32_t seed = 20261130;
  std::mt19937_64 rng(seed);
  constexpr int kWarmup = 20'000;
  constexpr int kMeasured = 100'000;
  std::vector<Command> cmds;
  cmds.reserve(kWarmup + kMeasured);
  uint64_t orders = 0;
  for (int n = 0; n < kWarmup + kMeasured; ++n) {
    Command c;
    c.seq = Seq{static_cast<uint64_t>(n + 1)};
    c.ts = Timestamp{1'800'000'000'000'000'000 + n * 1'000};
    c.account = AccountId{static_cast<uint32_t>(1 + rng() % 15)};
    c.instrument = InstrumentId{static_cast<uint32_t>(1 + rng() % 2)};
    const uint64_t r = rng() % 100;
    if (r < 55) {
      c.type = CommandType::kNewOrder;
      c.side = rng() % 2 ? Side::kBuy : Side::kSell;
      c.order_type = r < 52 ? OrderType::kLimit : OrderType::kMarket;
      c.tif = c.order_type == OrderType::kMarket
                  ? TimeInForce::kIoc
                  : static_cast<TimeInForce>(1 + rng() % 5);
      if (c.tif == TimeInForce::kGtd)
        c.set_expire_time(Timestamp{c.ts.nanos + 50'000});
      const int64_t offset = static_cast<int64_t>(rng() % 80) - 40;
      c.price = Price{100'000 + offset * 100 + (rng() % 50 == 0 ? 7 : 0)};
      c.quantity = Quantity{static_cast<int64_t>(rng() % 120)};
      ++orders;
    } else if (r < 80) {
      c.type = CommandType::kCancel;
      c.set_order_id(OrderId{1 + rng() % (orders + 1)});
    } else if (r < 95) {
      c.type = CommandType::kReplace;
      c.set_order_id(OrderId{1 + rng() % (orders + 1)});
      c.price = Price{100'000 + (static_cast<int64_t>(rng() % 80) - 40) * 100};
      c.quantity = Quantity{static_cast<int64_t>(1 + rng() % 100)};
    } else if (r < 97) {
      c.type = CommandType::kMassCancel;
      if (rng() % 2) c.instrument = InstrumentId{};
    } else if (r < 98) {
      c.type = CommandType::kSetReferencePrice;
      c.price = Price{100'000 + (static_cast<int64_t>(rng() % 20) - 10) * 100};
    } else if (r < 99) {
      // Deposits and withdrawals (the latter compute the requirement).
      c.type = CommandType::kCollateral;
      c.instrument = InstrumentId{};
      c.quantity = Quantity{(static_cast<int64_t>(rng() % 20'001) - 10'000) *
                            kMicrosPerUsd};
    } else {
      c.type = CommandType::kTimer;
    }
    if (c.type == CommandType::kNewOrder) {
      // Client order ids, some used again: remembered, or rejected as
      // duplicates; 0 now and then (never checked).
      c.client_order_id = ClientOrderId{static_cast<uint64_t>(n % 7'000)};
    }
    if (n % 30'000 == 29'999) {  // the trading day ends: ids forgotten
      c = Command{};
      c.seq = Seq{static_cast<uint64_t>(n + 1)};
      c.ts = Timestamp{1'800'000'000'000'000'000 + n * 1'000};
      c.type = CommandType::kEndOfSession;
    }
    cmds.push_back(c);
  }

  Counts counts;
  Event buffer[256];
  EventSink sink(buffer, 256, &CountEvents, &counts);
  for (int n = 0; n < kWarmup; ++n) engine.value()->Apply(cmds[n], sink);
  const uint64_t before = g_allocations.load();
  for (int n = kWarmup; n < kWarmup + kMeasured; ++n) {
    engine.value()->Apply(cmds[n], sink);
  }
  sink.Flush();
  const uint64_t after = g_allocations.load();
  EXPECT_EQ(after - before, 0u) << "seed " << seed;
  EXPECT_GT(counts.events, static_cast<std::size_t>(kMeasured));
  // The margin paths ran: refusals and collateral changes both happened.
  EXPECT_GT(counts.insufficient_margin, 100u) << "seed " << seed;
  EXPECT_GT(counts.collateral_changed, 100u) << "seed " << seed;
  EXPECT_GT(engine.value()->resting_orders(), 0u);
}

}  // namespace
}  // namespace cfx::exchange
