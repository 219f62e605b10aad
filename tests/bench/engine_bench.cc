// Micro-benchmarks of the matching engine's basic operations: add to book,
// cancel, aggressive match and replace. Each iteration applies exactly one
// command; pools are refilled (and engines rebuilt) with the timer paused.
//
// Smoke run (ctest engine_microbench_smoke):
//   engine_microbench --benchmark_min_time=0.01
// On a shared machine compare changes by instruction counts, e.g.
//   valgrind --tool=callgrind engine_microbench --benchmark_filter=Cancel

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/event.h"

namespace cfx::exchange {
namespace {

constexpr InstrumentId kInstrument{1};
constexpr int64_t kTick = 100;          // $0.01
constexpr int64_t kReference = 10'000;  // $100.00, in ticks
constexpr int64_t kPool = 50'000;       // orders per refill

// An engine with one instrument (reference $100, band 50 %, max $200) and
// four accounts, plus a counting sink and the sequencer's seq/ts.
class Bench {
 public:
  // Counts rejected commands into `*rejects`, which must outlive the Bench.
  explicit Bench(uint64_t* rejects)
      : sink_(buffer_.data(), buffer_.size(), &Bench::Count, rejects) {
    EngineConfig config;
    config.limits.max_orders = 1u << 17;
    InstrumentConfig ic;
    ic.id = kInstrument;
    ic.tick = Price{kTick};
    ic.max_price = Price{2 * kReference * kTick};
    ic.reference_price = Price{kReference * kTick};
    ic.max_quantity = Quantity{100'000};
    ic.band_bps = 5'000;
    config.instruments.push_back(ic);
    for (uint32_t a = 1; a <= 4; ++a) {
      config.accounts.push_back(
          AccountConfig{AccountId{a}, StpMode::kCancelNewest});
    }
    auto created = Engine::Create(config);
    if (!created.has_value()) std::abort();
    engine_ = std::move(created).value();
  }

  // Applies `c` stamped with the next seq. A new order that is accepted gets
  // the next order id (dense from 1 in acceptance order).
  void Apply(Command c) {
    ++seq_;
    c.seq = Seq{seq_};
    c.ts = Timestamp{static_cast<int64_t>(seq_) * 1'000};
    engine_->Apply(c, sink_);
  }

  ~Bench() { sink_.Flush(); }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

 private:
  static void Count(void* context, const Event* events, std::size_t n) {
    auto* rejects = static_cast<uint64_t*>(context);
    for (std::size_t i = 0; i < n; ++i) {
      *rejects += events[i].type == EventType::kRejected ? 1 : 0;
    }
  }

  std::vector<Event> buffer_ = std::vector<Event>(256);
  EventSink sink_;
  std::unique_ptr<Engine> engine_;
  uint64_t seq_ = 0;
};

Command Limit(AccountId account, Side side, int64_t price_ticks, int64_t lots,
              TimeInForce tif = TimeInForce::kGtc) {
  Command c;
  c.type = CommandType::kNewOrder;
  c.side = side;
  c.order_type = OrderType::kLimit;
  c.tif = tif;
  c.account = account;
  c.instrument = kInstrument;
  c.price = Price{price_ticks * kTick};
  c.quantity = Quantity{lots};
  return c;
}

Command CancelOf(AccountId account, uint64_t order_id) {
  Command c;
  c.type = CommandType::kCancel;
  c.account = account;
  c.set_order_id(OrderId{order_id});
  return c;
}

Command ReplaceOf(AccountId account, uint64_t order_id, int64_t price_ticks,
                  int64_t lots) {
  Command c;
  c.type = CommandType::kReplace;
  c.account = account;
  c.set_order_id(OrderId{order_id});
  c.price = Price{price_ticks * kTick};
  c.quantity = Quantity{lots};
  return c;
}

// Rests kPool bids of `lots` spread round-robin over `levels` prices below
// the reference. Returns their order ids, in order.
std::vector<uint64_t> FillBids(Bench& b, uint64_t& next_id, int64_t levels,
                               int64_t lots) {
  std::vector<uint64_t> ids(kPool);
  for (int64_t i = 0; i < kPool; ++i) {
    b.Apply(Limit(AccountId{1 + static_cast<uint32_t>(i % 2)}, Side::kBuy,
                  kReference - 1 - i % levels, lots));
    ids[static_cast<std::size_t>(i)] = next_id++;
  }
  return ids;
}

// Every benchmark must apply commands the engine accepts; a reject means it
// measures the wrong path. Destroys `b` (flushing its sink) first.
void Finish(benchmark::State& state, std::unique_ptr<Bench>& b,
            const uint64_t& rejects) {
  b.reset();
  state.SetItemsProcessed(state.iterations());
  if (rejects != 0) state.SkipWithError("the engine rejected commands");
}

// A new GTC bid that rests (no match) at one of state.range(0) prices; with
// `client_order_ids`, each carries the next client order id, which the
// engine looks up in and adds to its keyed client order id table.
void AddOrders(benchmark::State& state, bool client_order_ids) {
  uint64_t rejects = 0;
  const int64_t levels = state.range(0);
  auto b = std::make_unique<Bench>(&rejects);
  int64_t i = 0;
  for (auto _ : state) {
    if (i == kPool) {
      state.PauseTiming();
      b = std::make_unique<Bench>(&rejects);
      i = 0;
      state.ResumeTiming();
    }
    Command c =
        Limit(AccountId{1}, Side::kBuy, kReference - 1 - i % levels, 10);
    if (client_order_ids) {
      c.client_order_id = ClientOrderId{static_cast<uint64_t>(i) + 1};
    }
    b->Apply(c);
    ++i;
  }
  Finish(state, b, rejects);
}

void BM_AddOrder(benchmark::State& state) { AddOrders(state, false); }
BENCHMARK(BM_AddOrder)->Arg(1)->Arg(100)->Arg(5'000);

void BM_AddOrderWithClientOrderId(benchmark::State& state) {
  AddOrders(state, true);
}
BENCHMARK(BM_AddOrderWithClientOrderId)->Arg(100);

// Cancel of a random resting order among kPool on `levels` prices (so
// queues are kPool / levels long). The cost should not depend on the
// queue length or the order's position in it.
void BM_CancelOrder(benchmark::State& state) {
  uint64_t rejects = 0;
  const int64_t levels = state.range(0);
  std::unique_ptr<Bench> b;
  std::vector<uint64_t> ids;
  std::size_t next = 0;
  uint64_t next_id = 1;
  auto refill = [&] {
    b = std::make_unique<Bench>(&rejects);
    next_id = 1;
    ids = FillBids(*b, next_id, levels, 10);
    std::srand(7);
    for (std::size_t k = ids.size() - 1; k > 0; --k) {
      std::swap(ids[k], ids[static_cast<std::size_t>(std::rand()) % (k + 1)]);
    }
    next = 0;
  };
  refill();
  for (auto _ : state) {
    if (next == ids.size()) {
      state.PauseTiming();
      refill();
      state.ResumeTiming();
    }
    const uint64_t id = ids[next++];
    // Accounts alternate 1, 2 with the fill order, and ids start at 1.
    b->Apply(CancelOf(AccountId{1 + static_cast<uint32_t>((id - 1) % 2)}, id));
  }
  Finish(state, b, rejects);
}
BENCHMARK(BM_CancelOrder)->Arg(10)->Arg(5'000);

// An IOC sell that trades with exactly `range(0)` resting bids of 10 lots
// at the best price, removing them from the book.
void BM_AggressiveMatch(benchmark::State& state) {
  uint64_t rejects = 0;
  const int64_t sweep = state.range(0);
  std::unique_ptr<Bench> b;
  int64_t left = 0;
  auto refill = [&] {
    b = std::make_unique<Bench>(&rejects);
    uint64_t next_id = 1;
    FillBids(*b, next_id, 1, 10);
    left = kPool;
  };
  refill();
  for (auto _ : state) {
    if (left < sweep) {
      state.PauseTiming();
      refill();
      state.ResumeTiming();
    }
    b->Apply(Limit(AccountId{3}, Side::kSell, kReference - 1, 10 * sweep,
                   TimeInForce::kIoc));
    left -= sweep;
  }
  Finish(state, b, rejects);
}
BENCHMARK(BM_AggressiveMatch)->Arg(1)->Arg(10);

// Replace that lowers a resting order's quantity by one lot at the same
// price: updated in place, keeps its queue position.
void BM_ReplaceQuantityDown(benchmark::State& state) {
  uint64_t rejects = 0;
  std::unique_ptr<Bench> b;
  std::vector<uint64_t> ids;
  std::vector<int64_t> lots;
  std::size_t k = 0;
  auto refill = [&] {
    b = std::make_unique<Bench>(&rejects);
    uint64_t next_id = 1;
    ids = FillBids(*b, next_id, 100, 10'000);
    lots.assign(ids.size(), 10'000);
    k = 0;
  };
  refill();
  for (auto _ : state) {
    if (lots[k] == 1) {
      state.PauseTiming();
      refill();
      state.ResumeTiming();
    }
    const uint64_t id = ids[k];
    b->Apply(ReplaceOf(AccountId{1 + static_cast<uint32_t>((id - 1) % 2)}, id,
                       kReference - 1 - static_cast<int64_t>(k % 100),
                       --lots[k]));
    k = (k + 1) % ids.size();
  }
  Finish(state, b, rejects);
}
BENCHMARK(BM_ReplaceQuantityDown);

// Replace that moves a resting order 100 ticks down and back on alternate
// passes over the pool: it leaves its level and rests at the back of
// another (loses priority), without crossing.
void BM_ReplacePrice(benchmark::State& state) {
  uint64_t rejects = 0;
  auto b = std::make_unique<Bench>(&rejects);
  uint64_t next_id = 1;
  const std::vector<uint64_t> ids = FillBids(*b, next_id, 100, 10);
  std::size_t k = 0;
  int64_t shift = 1;  // 1 on odd passes over the pool, 0 on even ones
  for (auto _ : state) {
    const uint64_t id = ids[k];
    const int64_t home = kReference - 1 - static_cast<int64_t>(k % 100);
    b->Apply(ReplaceOf(AccountId{1 + static_cast<uint32_t>((id - 1) % 2)}, id,
                       home - 100 * shift, 10));
    if (++k == ids.size()) {
      k = 0;
      shift ^= 1;
    }
  }
  Finish(state, b, rejects);
}
BENCHMARK(BM_ReplacePrice);

}  // namespace
}  // namespace cfx::exchange

BENCHMARK_MAIN();
