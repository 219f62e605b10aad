#include "tests/bench/engine_workloads.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/core/event.h"
#include "exchange/core/reject_code.h"
#include "tests/bench/rng.h"
#include "tests/bench/text.h"

namespace cfx::bench {
namespace {

using exchange::AccountConfig;
using exchange::AccountId;
using exchange::ClientOrderId;
using exchange::Command;
using exchange::CommandType;
using exchange::Engine;
using exchange::EngineConfig;
using exchange::Event;
using exchange::EventSink;
using exchange::EventType;
using exchange::InstrumentConfig;
using exchange::InstrumentId;
using exchange::OrderId;
using exchange::OrderType;
using exchange::Price;
using exchange::Quantity;
using exchange::Side;
using exchange::StpMode;
using exchange::TimeInForce;

constexpr InstrumentId kInstrument{1};
// One tick = $0.01 = 100 price units, as the B200 products.
constexpr int64_t kTickUnits = 100;

// A resting (or just accepted) order as the generator's model sees it.
struct LiveOrder {
  uint64_t id = 0;
  AccountId account;
  Side side = Side::kNone;
  int64_t price_ticks = 0;
  int64_t quantity = 0;  // total, filled included
  int64_t leaves = 0;
  int64_t filled = 0;
};

// The live orders of the generator's engine, maintained from its events.
// O(1) add, remove, lookup by id and uniform random pick.
class LiveOrders {
 public:
  std::size_t size() const { return live_.size(); }
  bool empty() const { return live_.empty(); }
  const LiveOrder& at(std::size_t i) const { return live_[i]; }

  void OnEvent(const Event& e) {
    switch (e.type) {
      case EventType::kOrderAccepted:
        Add(LiveOrder{e.order_id.value, e.account, e.side,
                      e.price.units / kTickUnits, e.quantity.lots,
                      e.leaves.lots, 0});
        break;
      case EventType::kTrade:
        Update(e.order_id.value, e.leaves.lots, e.filled.lots);
        Update(e.counter_order_id.value, e.counter_leaves.lots,
               e.counter_filled.lots);
        break;
      case EventType::kOrderRestated:
        Update(e.order_id.value, e.leaves.lots, e.filled.lots);
        break;
      case EventType::kCancelAccepted:
      case EventType::kOrderCancelled:
        Remove(e.order_id.value);
        break;
      case EventType::kOrderReplaced:
        if (LiveOrder* o = Find(e.order_id.value)) {
          o->price_ticks = e.price.units / kTickUnits;
          o->quantity = e.quantity.lots;
          o->leaves = e.leaves.lots;
          o->filled = e.filled.lots;
        }
        break;
      default:
        break;
    }
  }

 private:
  LiveOrder* Find(uint64_t id) {
    if (id >= pos_.size() || pos_[id] == 0) return nullptr;
    return &live_[pos_[id] - 1];
  }

  void Add(const LiveOrder& o) {
    if (o.id >= pos_.size())
      pos_.resize(std::max<std::size_t>(o.id + 1, pos_.size() * 2));
    live_.push_back(o);
    pos_[o.id] = static_cast<uint32_t>(live_.size());
  }

  void Update(uint64_t id, int64_t leaves, int64_t filled) {
    LiveOrder* o = Find(id);
    if (o == nullptr) return;
    o->leaves = leaves;
    o->filled = filled;
    if (leaves == 0) Remove(id);
  }

  void Remove(uint64_t id) {
    if (id >= pos_.size() || pos_[id] == 0) return;
    const uint32_t i = pos_[id] - 1;
    pos_[id] = 0;
    if (i + 1 != live_.size()) {
      live_[i] = live_.back();
      pos_[live_[i].id] = i + 1;
    }
    live_.pop_back();
  }

  std::vector<LiveOrder> live_;
  std::vector<uint32_t> pos_;  // order id -> index in live_ + 1; 0 = not live
};

// The generator's private engine. Every command is applied to it as it is
// generated; its events keep LiveOrders exact, and a reject is a generator
// bug (the benchmark must replay a stream the engine fully accepts).
class ShadowEngine {
 public:
  Status Init(const EngineConfig& config) {
    auto created = Engine::Create(config);
    if (!created.has_value()) return created.error();
    engine_ = std::move(created).value();
    buffer_.resize(256);
    return Status::Ok();
  }

  Status Apply(Command c) {
    Stamp(c, ++seq_);
    pending_.clear();
    EventSink sink(buffer_.data(), buffer_.size(), &ShadowEngine::Collect,
                   this);
    engine_->Apply(c, sink);
    sink.Flush();
    for (const Event& e : pending_) {
      if (e.type == EventType::kRejected) {
        return InternalError(
            "generator bug: command seq " + std::to_string(seq_) + " (type " +
            std::to_string(static_cast<int>(c.type)) + ") rejected " +
            std::string(exchange::RejectCodeName(e.reject_code())));
      }
      if (e.type == EventType::kTrade) ++trades_;
      live_.OnEvent(e);
    }
    return Status::Ok();
  }

  // Best price on `side` in ticks, 0 when that side is empty.
  int64_t best_ticks(Side side) const {
    return engine_->best_price(kInstrument, side).units / kTickUnits;
  }

  // Lots resting at `price_ticks` on `side`.
  int64_t level_lots(Side side, int64_t price_ticks) const {
    return engine_
        ->level_quantity(kInstrument, side, Price{price_ticks * kTickUnits})
        .lots;
  }

  const LiveOrders& live() const { return live_; }
  const Engine& engine() const { return *engine_; }
  uint64_t trades() const { return trades_; }

 private:
  static void Collect(void* context, const Event* events, std::size_t n) {
    auto* self = static_cast<ShadowEngine*>(context);
    self->pending_.insert(self->pending_.end(), events, events + n);
  }

  std::unique_ptr<Engine> engine_;
  std::vector<Event> buffer_;
  std::vector<Event> pending_;
  LiveOrders live_;
  uint64_t seq_ = 0;
  uint64_t trades_ = 0;
};

Command NewLimit(AccountId account, Side side, int64_t price_ticks,
                 int64_t lots, TimeInForce tif, uint64_t client) {
  Command c;
  c.type = CommandType::kNewOrder;
  c.side = side;
  c.order_type = OrderType::kLimit;
  c.tif = tif;
  c.stp = StpMode::kAccountDefault;
  c.account = account;
  c.instrument = kInstrument;
  c.client_order_id = ClientOrderId{client};
  c.price = Price{price_ticks * kTickUnits};
  c.quantity = Quantity{lots};
  return c;
}

Command CancelOf(const LiveOrder& o, uint64_t client) {
  Command c;
  c.type = CommandType::kCancel;
  c.account = o.account;
  c.set_order_id(OrderId{o.id});
  c.client_order_id = ClientOrderId{client};
  return c;
}

Command ReplaceOf(const LiveOrder& o, int64_t price_ticks, int64_t quantity,
                  uint64_t client) {
  Command c;
  c.type = CommandType::kReplace;
  c.account = o.account;
  c.set_order_id(OrderId{o.id});
  c.client_order_id = ClientOrderId{client};
  c.price = Price{price_ticks * kTickUnits};
  c.quantity = Quantity{quantity};
  return c;
}

// One instrument on a $0.01 tick, trading around `reference_ticks`.
InstrumentConfig Instrument(int64_t reference_ticks, int64_t max_ticks,
                            int32_t band_bps) {
  InstrumentConfig ic;
  ic.id = kInstrument;
  ic.tick = Price{kTickUnits};
  ic.max_price = Price{max_ticks * kTickUnits};
  ic.reference_price = Price{reference_ticks * kTickUnits};
  ic.min_quantity = Quantity{1};
  ic.max_quantity = Quantity{1'000};
  ic.band_bps = band_bps;
  return ic;
}

void AddAccounts(EngineConfig& config, uint32_t n) {
  for (uint32_t a = 1; a <= n; ++a) {
    config.accounts.push_back(
        AccountConfig{AccountId{a}, StpMode::kCancelNewest});
  }
}

// Every generated new order carries a fresh client order id and a stream is
// one trading day (no EndOfSession), so the engine must remember them all:
// room for `new_orders` ids, and never less than the engine's default, so
// that the table a benchmark probes is as large as a production one.
Result<uint32_t> ClientOrderIdRoom(uint64_t new_orders) {
  if (new_orders > (uint64_t{1} << 30)) {
    return InvalidArgumentError(
        "--commands too large: more than 2^30 client order ids in one day");
  }
  return static_cast<uint32_t>(std::max<uint64_t>(
      exchange::EngineLimits{}.max_client_order_ids, new_orders));
}

// Sizes the shadow engine's client order id table for `commands` new orders
// at most (see ClientOrderIdRoom); MakeWorkload() fits it to the stream.
Status ReserveClientOrderIds(uint64_t commands, Workload& w) {
  auto room = ClientOrderIdRoom(commands);
  if (!room.has_value()) return room.error();
  w.config.limits.max_client_order_ids = room.value();
  return Status::Ok();
}

void RecordExpected(const ShadowEngine& shadow, Workload& w) {
  w.has_expected = true;
  w.expected_state_hash = shadow.engine().StateHash();
  w.expected_trades = shadow.trades();
  w.expected_resting = shadow.engine().resting_orders();
}

// ---- standard ----

Status MakeStandard(const WorkloadOptions& opt, Workload& w) {
  const uint64_t n = opt.commands != 0 ? opt.commands
                     : opt.smoke       ? 20'000
                                       : 10'000'000;
  constexpr int64_t kCenter = 10'000;    // $100.00
  constexpr int64_t kMaxTicks = 20'000;  // $200.00
  constexpr uint64_t kNear = 60;         // ticks: where 40% of orders go
  constexpr uint64_t kFar = 2'000;       // ticks: where the other 60% go
  constexpr std::size_t kTargetDepth = 1'000;
  constexpr uint32_t kAccounts = 1'000;

  w.description =
      "1 instrument, ~1,000 resting orders over ~750 levels; 50% new passive, "
      "35% cancel, 10% replace, 5% aggressive";
  w.config.limits.max_orders = 1u << 16;
  w.config.limits.max_accounts = kAccounts + 1;
  w.config.instruments.push_back(Instrument(kCenter, kMaxTicks, 5'000));
  AddAccounts(w.config, kAccounts);
  CFX_RETURN_IF_ERROR(ReserveClientOrderIds(kTargetDepth + n, w));

  ShadowEngine shadow;
  CFX_RETURN_IF_ERROR(shadow.Init(w.config));
  Rng rng(opt.seed * 0x9E3779B97F4A7C15ULL + 1);
  uint64_t client = 1;
  auto account = [&] {
    return AccountId{static_cast<uint32_t>(1 + rng.Uniform(kAccounts))};
  };

  // A limit order that does not cross. 40 % go near the centre (distance
  // the smaller of two uniform draws below kNear), where aggressors trade
  // them; 60 % anywhere within kFar, where they spread the book over ~750
  // levels and are mostly cancelled. Pulled back behind the opposite touch
  // if that has moved across the centre.
  auto offset = [&] {
    const uint64_t d = rng.Uniform(5) < 2
                           ? std::min(rng.Uniform(kNear), rng.Uniform(kNear))
                           : rng.Uniform(kFar);
    return static_cast<int64_t>(d);
  };
  auto passive = [&](Side side) {
    int64_t p = 0;
    if (side == Side::kBuy) {
      p = kCenter - 1 - offset();
      const int64_t ask = shadow.best_ticks(Side::kSell);
      if (ask != 0 && p >= ask)
        p = ask - 1 - static_cast<int64_t>(rng.Uniform(4));
      p = std::max<int64_t>(p, 1);
    } else {
      p = kCenter + 1 + offset();
      const int64_t bid = shadow.best_ticks(Side::kBuy);
      if (bid != 0 && p <= bid)
        p = bid + 1 + static_cast<int64_t>(rng.Uniform(4));
      p = std::min(p, kMaxTicks);
    }
    return NewLimit(account(), side, p, rng.Between(1, 100), TimeInForce::kGtc,
                    client++);
  };
  auto random_side = [&] { return rng.Coin() ? Side::kBuy : Side::kSell; };
  auto emit = [&](std::vector<Command>& out, const Command& c) -> Status {
    CFX_RETURN_IF_ERROR(shadow.Apply(c));
    out.push_back(c);
    return Status::Ok();
  };

  w.warmup.reserve(kTargetDepth);
  for (std::size_t i = 0; i < kTargetDepth; ++i) {
    CFX_RETURN_IF_ERROR(emit(w.warmup, passive(random_side())));
  }

  w.timed.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t u = rng.Uniform(100);
    const LiveOrders& live = shadow.live();
    Command c;
    if (u < 5) {
      // Aggressive: an IOC limit up to 15 ticks through the touch for
      // 50..800 lots (a few orders' worth; the book holds ~500 a side), or
      // a GTC limit at the touch for up to the touch level's lots + 100,
      // whose remainder, if any, rests.
      const Side side = random_side();
      const Side opp = exchange::Opposite(side);
      const int64_t touch = shadow.best_ticks(opp);
      if (touch == 0) {
        c = passive(side);
        ++w.mix.new_passive;
      } else {
        if (rng.Coin()) {
          const auto through = static_cast<int64_t>(rng.Uniform(16));
          const int64_t p =
              side == Side::kBuy ? touch + through : touch - through;
          c = NewLimit(account(), side, std::clamp<int64_t>(p, 1, kMaxTicks),
                       rng.Between(50, 800), TimeInForce::kIoc, client++);
        } else {
          const int64_t at_touch = shadow.level_lots(opp, touch);
          c = NewLimit(account(), side, touch,
                       std::min<int64_t>(rng.Between(1, at_touch + 100), 1'000),
                       TimeInForce::kGtc, client++);
        }
        ++w.mix.new_aggressive;
      }
    } else if (u < 15 && !live.empty()) {
      // Replace: quantity down in place, or a move of 1..5 ticks that stays
      // behind the opposite touch (so it never crosses).
      const LiveOrder o = live.at(rng.Uniform(live.size()));
      if (o.leaves >= 2 && rng.Coin()) {
        c = ReplaceOf(o, o.price_ticks, o.filled + rng.Between(1, o.leaves - 1),
                      client++);
        ++w.mix.replaces_quantity_down;
      } else {
        const int64_t delta = rng.Between(1, 5);
        const bool buy = o.side == Side::kBuy;
        const int64_t opp = shadow.best_ticks(buy ? Side::kSell : Side::kBuy);
        int64_t p = rng.Coin() ? o.price_ticks + delta : o.price_ticks - delta;
        const bool crosses = opp != 0 && (buy ? p >= opp : p <= opp);
        if (crosses) p = buy ? o.price_ticks - delta : o.price_ticks + delta;
        if (p < 1 || p > kMaxTicks) {
          c = CancelOf(o, client++);
          ++w.mix.cancels;
        } else {
          c = ReplaceOf(o, p, o.quantity, client++);
          ++w.mix.replaces_price;
        }
      }
    } else {
      // New vs cancel (85 % of commands), steered to hold the depth near
      // kTargetDepth: one point of new-order share per 10 orders off target.
      // At equilibrium new - cancel = what aggressors take, so the mix
      // settles near 50 % / 35 %.
      const auto off = (static_cast<int64_t>(kTargetDepth) -
                        static_cast<int64_t>(live.size())) /
                       10;
      const auto new_share =
          static_cast<uint64_t>(std::clamp<int64_t>(45 + off, 15, 70));
      if (live.empty() || rng.Uniform(85) < new_share) {
        c = passive(random_side());
        ++w.mix.new_passive;
      } else {
        c = CancelOf(live.at(rng.Uniform(live.size())), client++);
        ++w.mix.cancels;
      }
    }
    CFX_RETURN_IF_ERROR(emit(w.timed, c));
  }
  RecordExpected(shadow, w);
  return Status::Ok();
}

// ---- deep ----

Status MakeDeep(const WorkloadOptions& opt, Workload& w) {
  const uint64_t resting = opt.smoke ? 20'000 : 1'000'000;
  const uint64_t n = opt.commands != 0 ? opt.commands
                     : opt.smoke       ? 20'000
                                       : 2'000'000;
  constexpr int64_t kCenter = 10'000;
  constexpr int64_t kMaxTicks = 20'000;
  constexpr int64_t kLevelsPerSide = 250;
  constexpr uint32_t kAccounts = 1'000;

  w.description =
      "1 instrument, " + WithCommas(resting) +
      " resting orders on 500 levels built untimed; then 70% cancels of random "
      "live orders (anywhere in their queues), 30% new orders";
  w.config.limits.max_orders =
      static_cast<uint32_t>(std::bit_ceil(resting + resting / 8 + 1'024));
  w.config.limits.max_accounts = kAccounts + 1;
  w.config.instruments.push_back(Instrument(kCenter, kMaxTicks, 5'000));
  AddAccounts(w.config, kAccounts);
  CFX_RETURN_IF_ERROR(ReserveClientOrderIds(resting + n, w));

  ShadowEngine shadow;
  CFX_RETURN_IF_ERROR(shadow.Init(w.config));
  Rng rng(opt.seed * 0x9E3779B97F4A7C15ULL + 2);
  uint64_t client = 1;
  auto passive = [&] {
    const bool buy = rng.Coin();
    const auto offset = 1 + static_cast<int64_t>(rng.Uniform(kLevelsPerSide));
    return NewLimit(
        AccountId{static_cast<uint32_t>(1 + rng.Uniform(kAccounts))},
        buy ? Side::kBuy : Side::kSell,
        buy ? kCenter - offset : kCenter + offset, rng.Between(1, 100),
        TimeInForce::kGtc, client++);
  };

  w.warmup.reserve(resting);
  for (uint64_t i = 0; i < resting; ++i) {
    const Command c = passive();
    CFX_RETURN_IF_ERROR(shadow.Apply(c));
    w.warmup.push_back(c);
  }
  // Cancels stop at a tenth of the initial depth, so a long --commands run
  // turns into a 50/50 steady state instead of draining the book.
  const std::size_t floor = resting / 10;
  w.timed.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    const LiveOrders& live = shadow.live();
    Command c;
    if (rng.Uniform(100) < 70 && live.size() > floor) {
      c = CancelOf(live.at(rng.Uniform(live.size())), client++);
      ++w.mix.cancels;
    } else {
      c = passive();
      ++w.mix.new_passive;
    }
    CFX_RETURN_IF_ERROR(shadow.Apply(c));
    w.timed.push_back(c);
  }
  RecordExpected(shadow, w);
  return Status::Ok();
}

// ---- liquibook-inserts ----

Status MakeLiquibook(const WorkloadOptions& opt, Workload& w) {
  const uint64_t n = opt.commands != 0 ? opt.commands
                     : opt.smoke       ? 20'000
                                       : 5'000'000;
  // About half the orders rest; the pool must hold them all.
  const uint64_t max_orders = n * 3 / 5 + 1'024;
  if (max_orders > (uint64_t{1} << 30)) {
    return InvalidArgumentError("liquibook-inserts: --commands too large");
  }
  w.description =
      "Liquibook pt_order_book: alternating buy/sell GTC limits, buys "
      "1880-1889 ticks, sells 1884-1893, 100-1000 lots, no cancels";
  w.config.limits.max_orders = static_cast<uint32_t>(max_orders);
  // Reference $18.86, band 10%: every price of the test is inside it.
  w.config.instruments.push_back(Instrument(1'886, 4'000, 1'000));
  // Buys from account 1, sells from account 2: no self-trade ever, as in
  // Liquibook, which has no self-trade prevention.
  AddAccounts(w.config, 2);

  Rng rng(opt.seed * 0x9E3779B97F4A7C15ULL + 3);
  w.timed.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    const bool buy = i % 2 == 0;
    const int64_t price =
        static_cast<int64_t>(rng.Uniform(10)) + (buy ? 1'880 : 1'884);
    const int64_t lots = (static_cast<int64_t>(rng.Uniform(10)) + 1) * 100;
    w.timed.push_back(NewLimit(AccountId{buy ? 1u : 2u},
                               buy ? Side::kBuy : Side::kSell, price, lots,
                               TimeInForce::kGtc, i + 1));
    ++w.mix.new_passive;  // passive or not is decided by the book
  }
  return Status::Ok();
}

}  // namespace

std::string_view WorkloadName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kStandard:
      return "standard";
    case WorkloadKind::kDeep:
      return "deep";
    case WorkloadKind::kLiquibookInserts:
      return "liquibook-inserts";
  }
  return "unknown";
}

Result<Workload> MakeWorkload(WorkloadKind kind,
                              const WorkloadOptions& options) {
  Workload w;
  w.kind = kind;
  w.name = std::string(WorkloadName(kind));
  Status s;
  switch (kind) {
    case WorkloadKind::kStandard:
      s = MakeStandard(options, w);
      break;
    case WorkloadKind::kDeep:
      s = MakeDeep(options, w);
      break;
    case WorkloadKind::kLiquibookInserts:
      s = MakeLiquibook(options, w);
      break;
  }
  if (!s.ok()) return s;
  uint64_t client_order_ids = 0;
  for (const auto* part : {&w.warmup, &w.timed}) {
    for (const Command& c : *part) {
      client_order_ids +=
          c.type == CommandType::kNewOrder && c.client_order_id.value != 0;
    }
  }
  auto room = ClientOrderIdRoom(client_order_ids);
  if (!room.has_value()) return room.error();
  w.config.limits.max_client_order_ids = room.value();
  return w;
}

}  // namespace cfx::bench
