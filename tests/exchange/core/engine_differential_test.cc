// Differential property test: random command streams go to the real Engine
// and to the naive ReferenceEngine (tests/support/reference_book.h); after
// every command their events, state hashes and read-only views must agree and
// the reference must satisfy the book invariants (STYLE.md §9).
//
// Environment:
//   CFX_TEST_SEED=<n>      run only seed n (as printed by a failure)
//   CFX_TEST_VARIANT=<v>   with CFX_TEST_SEED: standard, small-pool,
//                          deep-book or notional-overflow (default: the
//                          seed's own variant)
//   CFX_TEST_COMMANDS=<n>  commands per seed (default kCommandsPerSeed)
//   CFX_TEST_MINIMIZE=1    on failure, shrink the stream (delta debugging)
//                          and print the minimal failing command sequence
//   CFX_TEST_STATS=1       print per-seed event and reject statistics

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/engine.h"
#include "exchange/core/engine_config.h"
#include "exchange/core/event.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/types.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/reference_book.h"

namespace cfx::exchange::testing {
namespace {

// Commands per seed: about 0.1-0.8 s per seed in Release; unoptimized
// sanitizer builds are ~50x slower, so they run shorter streams.
#ifdef NDEBUG
constexpr int kCommandsPerSeed = 5'000;
#else
constexpr int kCommandsPerSeed = 1'500;
#endif
constexpr int64_t kStartTs = 1'800'000'000'000'000'000;
constexpr int64_t kTsStep = 1'000;  // ns per random time step

const uint64_t kFixedSeeds[] = {
    1,   2,   3,   5,   8,   13,   21,       34,         55,        89,
    144, 233, 377, 610, 987, 1597, 0xC0FFEE, 0xDEADBEEF, 271828183, 314159265,
};

// ---------------------------------------------------------------------------
// Environment

bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

bool EnvU64(const char* name, uint64_t* out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(v, &end, 0);
  if (end == v || *end != '\0') return false;
  *out = parsed;
  return true;
}

int CommandsPerSeed() {
  uint64_t n = 0;
  if (EnvU64("CFX_TEST_COMMANDS", &n) && n > 0) return static_cast<int>(n);
  return kCommandsPerSeed;
}

// ---------------------------------------------------------------------------
// Configuration

// kStandard: books of ~20 orders, pool of 200. kSmallPool: pool of 30, so
// ORDER_BOOK_FULL is frequent, and room for 200 client order ids a day
// (EndOfSession of all instruments comes every ~200 commands, but days vary
// a lot), so CLIENT_ORDER_ID_LIMIT rejects ~10 % of new orders. kDeepBook:
// mostly passive prices and few cancels, so ~100-200 orders rest and the pool
// fills. kNotionalOverflow: instrument 3 lots are so large that
// NOTIONAL_OVERFLOW is in range.
enum class Variant { kStandard, kSmallPool, kDeepBook, kNotionalOverflow };

const char* VariantName(Variant v) {
  switch (v) {
    case Variant::kStandard:
      return "standard";
    case Variant::kSmallPool:
      return "small-pool";
    case Variant::kDeepBook:
      return "deep-book";
    case Variant::kNotionalOverflow:
      return "notional-overflow";
  }
  return "?";
}

// Three small instruments (ladders of 400 to 2,000 levels), five accounts
// with every STP mode. Instrument 2 has a position limit and bands that do not
// fall on whole ticks; instrument 3 starts PRE_OPEN with min quantity 2.
// Instruments 1 and 3 are futures of one margin group, two months apart, so
// their opposite positions form spreads; instrument 2 (spot) is not
// margined. Accounts 1, 2 and 5 have little collateral (a few contracts of
// instrument 1 at $1,095 each), so INSUFFICIENT_MARGIN is frequent; 3 and 4
// have plenty.
EngineConfig MakeConfig(Variant variant) {
  EngineConfig c;
  c.limits.max_orders = variant == Variant::kSmallPool ? 30 : 200;
  c.limits.max_client_order_ids = variant == Variant::kSmallPool ? 200 : 4'096;
  c.limits.max_accounts = 8;
  c.limits.max_instruments = 4;

  InstrumentConfig i1;
  i1.id = InstrumentId{1};
  i1.kind = InstrumentKind::kFuture;
  i1.tick = Price{100};
  i1.max_price = Price{200'000};        // $20
  i1.reference_price = Price{100'000};  // $10
  i1.min_quantity = Quantity{1};
  i1.max_quantity = Quantity{50};
  i1.position_limit = Quantity{0};
  i1.band_bps = 1'000;       // band $1.00 = 100 ticks
  i1.market_band_bps = 500;  // protection $0.50 = 50 ticks
  i1.gpu_hours_per_lot = 730;
  i1.initial_state = InstrumentState::kOpen;
  i1.margin_group = 1;
  i1.maturity_month = 2027 * 12 + 0;  // 2027-01

  InstrumentConfig i2;
  i2.id = InstrumentId{2};
  i2.kind = InstrumentKind::kSpot;
  i2.tick = Price{500};
  i2.max_price = Price{200'000};
  i2.reference_price = Price{100'000};
  i2.min_quantity = Quantity{1};
  i2.max_quantity = Quantity{50};
  i2.position_limit = Quantity{60};
  i2.band_bps = 777;         // 7,770 units -> 7,500 = 15 ticks
  i2.market_band_bps = 333;  // 3,330 units -> 3,000 = 6 ticks
  i2.gpu_hours_per_lot = 192;
  i2.initial_state = InstrumentState::kOpen;

  InstrumentConfig i3;
  i3.id = InstrumentId{3};
  i3.kind = InstrumentKind::kFuture;
  i3.tick = Price{100};
  i3.max_price = Price{120'000};
  i3.reference_price = Price{60'000};
  i3.min_quantity = Quantity{2};
  i3.max_quantity = Quantity{40};
  i3.position_limit = Quantity{0};
  i3.band_bps = 1'000;
  i3.market_band_bps = 500;
  // 1e11 GPU-hours per lot puts the 64-bit notional limit inside the
  // generated range: 60,000 units x 100 micros/unit x 15 lots x 1e11 = 9e18.
  i3.gpu_hours_per_lot =
      variant == Variant::kNotionalOverflow ? 100'000'000'000 : 730;
  i3.initial_state = InstrumentState::kPreOpen;
  i3.margin_group = 1;
  i3.maturity_month = 2027 * 12 + 2;  // 2027-03

  // Listed out of id order on purpose: ids, not positions, define order.
  c.instruments = {i2, i1, i3};
  constexpr int64_t kUsd = kMicrosPerUsd;
  c.accounts = {
      AccountConfig{AccountId{1}, StpMode::kCancelNewest, Amount{5'000 * kUsd}},
      AccountConfig{AccountId{2}, StpMode::kCancelOldest,
                    Amount{30'000 * kUsd}},
      AccountConfig{AccountId{3}, StpMode::kCancelBoth,
                    Amount{1'000'000'000 * kUsd}},
      // Enough for positions of instrument 3 in the notional-overflow
      // variant ($9e10 a contract).
      AccountConfig{AccountId{4}, StpMode::kDecrement,
                    Amount{4'000'000'000'000'000'000}},
      AccountConfig{AccountId{5}, StpMode::kCancelNewest, Amount{0}},
  };
  return c;
}

// ---------------------------------------------------------------------------
// Random command generator

// mt19937_64 is fully specified by the standard; the helpers below avoid the
// implementation-defined std distributions so a seed means the same stream
// on every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  // Uniform in [lo, hi].
  int64_t Uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(gen_() % span);
  }
  // True with probability num / den.
  bool Chance(int64_t num, int64_t den) { return Uniform(0, den - 1) < num; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(
        Uniform(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  std::mt19937_64 gen_;
};

// One generated command and whether its seq was deliberately not above the
// previous one (kept when the stream is shrunk and re-stamped).
struct GeneratedCommand {
  Command cmd;
  bool stale_seq = false;
};

class CommandGenerator {
 public:
  CommandGenerator(uint64_t seed, int total_commands, bool deep_book)
      : rng_(seed),
        pre_open_rng_(seed ^ 0x9e0be7ull),
        kill_rng_(seed ^ 0x4b111ull),
        total_(total_commands),
        deep_(deep_book) {}

  GeneratedCommand Next(const ReferenceEngine& ref) {
    ++index_;
    ts_ += kTsStep * rng_.Uniform(0, 4);
    const int64_t r = rng_.Uniform(0, 999);
    Command c;
    if (Reopen(ref, c)) {
      // c reopens an instrument that is not open
    } else if (r < 660) {
      c = NewOrder(ref);
    } else if (r < 740) {
      c = deep_ && rng_.Chance(2, 3) ? NewOrder(ref) : Cancel(ref);
    } else if (r < 860) {
      c = Replace(ref);
    } else if (r < 866) {
      c = deep_ && rng_.Chance(3, 4) ? NewOrder(ref) : MassCancel();
    } else if (r < 877) {
      c = SetState(ref);
    } else if (r < 897) {
      c = SetReference(ref);
    } else if (r < 957) {
      c.type = CommandType::kTimer;
    } else if (r < 987) {
      c = Collateral();
    } else if (r < 997) {
      c.type = CommandType::kEndOfSession;
      c.instrument = rng_.Chance(1, 2) ? InstrumentId{} : PickInstrument();
    } else {
      // Unknown types. Listing, reference data and failure reports are not
      // in the reference model; eligibility_test.cc covers them.
      c.type = static_cast<CommandType>(
          rng_.Chance(1, 2) ? 0 : 12 + rng_.Uniform(0, 100));
    }
    KillSwitch(ref, c);
    GeneratedCommand g;
    g.cmd = c;
    g.cmd.ts = Timestamp{ts_};
    if (seq_ > 0 && rng_.Chance(1, 200)) {
      g.stale_seq = true;
      g.cmd.seq = Seq{
          seq_ - static_cast<uint64_t>(rng_.Uniform(
                     0, static_cast<int64_t>(std::min<uint64_t>(seq_, 3))))};
    } else {
      seq_ +=
          rng_.Chance(1, 100) ? 2 : 1;  // rare gap: only "not above" is wrong
      g.cmd.seq = Seq{seq_};
    }
    return g;
  }

  // Learns order ids and owners from the events of the last command.
  void Observe(const std::vector<Event>& events) {
    for (const Event& e : events) {
      if (e.type == EventType::kOrderAccepted) {
        known_orders_.emplace_back(e.order_id, e.account);
      }
    }
  }

 private:
  InstrumentId PickInstrument() {
    if (rng_.Chance(2, 100)) {
      return InstrumentId{
          static_cast<uint32_t>(rng_.Pick(std::vector<int64_t>{0, 4, 99}))};
    }
    const int64_t r = rng_.Uniform(0, 9);
    return InstrumentId{r < 5 ? 1u : r < 8 ? 2u : 3u};
  }

  AccountId PickAccount() {
    if (rng_.Chance(2, 100)) {
      return AccountId{static_cast<uint32_t>(
          rng_.Pick(std::vector<int64_t>{0, 6, 7, 1000}))};
    }
    return AccountId{static_cast<uint32_t>(rng_.Uniform(1, 5))};
  }

  // A limit price for `side` of `id`, mostly a few ticks around the
  // reference (both passive and crossing), sometimes at the band edges, far
  // away, off tick or out of range.
  Price LimitPrice(const ReferenceEngine& ref, InstrumentId id, Side side) {
    if (!ref.has_instrument(id)) return Price{100'000};
    const InstrumentConfig& ic = ref.instrument_config(id);
    const int64_t tick = ic.tick.units;
    const int64_t refp = ref.reference_price(id).units;
    const int64_t ref_ticks = refp / tick;
    const int64_t dir = side == Side::kSell ? -1 : 1;  // +: aggressive
    const int64_t r = rng_.Uniform(0, 99);
    int64_t ticks = 0;
    if (r < 76) {
      ticks = ref_ticks +
              dir * (deep_ ? rng_.Uniform(-15, 1) : rng_.Uniform(-6, 3));
    } else if (r < 86) {
      const int64_t band_ticks = refp * ic.band_bps / 10'000 / tick;
      ticks = ref_ticks + dir * (band_ticks + rng_.Uniform(-2, 2));
    } else if (r < 92) {
      ticks = ref_ticks - dir * rng_.Uniform(20, 150);  // deep, passive
    } else if (r < 94) {
      return Price{(ref_ticks + rng_.Uniform(-3, 3)) * tick +
                   rng_.Uniform(1, tick - 1)};
    } else if (r < 96) {
      return Price{rng_.Chance(1, 2) ? 0 : -tick * rng_.Uniform(1, 5)};
    } else if (r < 98) {
      return Price{ic.max_price.units + tick * rng_.Uniform(0, 2)};
    } else {
      ticks = side == Side::kSell ? ic.max_price.units / tick : 1;  // extremes
    }
    return Price{ticks * tick};
  }

  Quantity OrderQuantity(const ReferenceEngine& ref, InstrumentId id) {
    const int64_t max = ref.has_instrument(id)
                            ? ref.instrument_config(id).max_quantity.lots
                            : 50;
    const int64_t min = ref.has_instrument(id)
                            ? ref.instrument_config(id).min_quantity.lots
                            : 1;
    const int64_t r = rng_.Uniform(0, 99);
    if (r < 80) return Quantity{rng_.Uniform(1, 12)};
    if (r < 95) return Quantity{rng_.Uniform(1, max)};
    return Quantity{
        rng_.Pick(std::vector<int64_t>{0, -3, min - 1, min, max, max + 1})};
  }

  Command NewOrder(const ReferenceEngine& ref) {
    Command c;
    c.type = CommandType::kNewOrder;
    c.instrument = PickInstrument();
    c.account = PickAccount();
    c.client_order_id = PickClientOrderId(c.account);
    c.side = rng_.Chance(1, 2) ? Side::kBuy : Side::kSell;
    if (rng_.Chance(1, 100))
      c.side = static_cast<Side>(rng_.Chance(1, 2) ? 0 : 3);
    const int64_t t = rng_.Uniform(0, 99);
    c.order_type = t < 86   ? OrderType::kLimit
                   : t < 98 ? OrderType::kMarket
                            : static_cast<OrderType>(rng_.Chance(1, 2) ? 0 : 3);
    const int64_t f = rng_.Uniform(0, 99);
    if (c.order_type == OrderType::kMarket && f < 90) {
      c.tif = f < 50 ? TimeInForce::kIoc : TimeInForce::kFok;
    } else {
      c.tif = f < 42   ? TimeInForce::kGtc
              : f < 62 ? TimeInForce::kDay
              : f < 75 ? TimeInForce::kGtd
              : f < 87 ? TimeInForce::kIoc
              : f < 98 ? TimeInForce::kFok
                       : static_cast<TimeInForce>(rng_.Chance(1, 2) ? 0 : 6);
    }
    const int64_t s = rng_.Uniform(0, 99);
    c.stp = s < 60   ? StpMode::kAccountDefault
            : s < 98 ? static_cast<StpMode>(rng_.Uniform(1, 4))
                     : static_cast<StpMode>(rng_.Chance(1, 2) ? 5 : 9);
    const int64_t fl = rng_.Uniform(0, 99);
    c.flags = fl < 12 ? kFlagPostOnly : fl < 13 ? uint8_t{0x82} : uint8_t{0};
    if (c.order_type != OrderType::kMarket) {
      c.price = LimitPrice(ref, c.instrument, c.side);
    } else if (rng_.Chance(1, 50)) {
      c.price = Price{100'000};  // a market order's price is ignored
    }
    c.quantity = OrderQuantity(ref, c.instrument);
    const int64_t e = rng_.Uniform(0, 99);
    if (c.tif == TimeInForce::kGtd) {
      c.set_expire_time(
          Timestamp{e < 4    ? 0
                    : e < 8  ? ts_
                    : e < 10 ? ts_ - kTsStep * rng_.Uniform(1, 5)
                    : e < 55 ? ts_ + kTsStep * rng_.Uniform(1, 60)
                             : ts_ + kTsStep * rng_.Uniform(1, 1'500)});
    } else if (e < 5) {
      c.set_expire_time(Timestamp{ts_ + kTsStep * rng_.Uniform(-5, 5)});
    }
    return c;
  }

  // Mostly a fresh client order id. Sometimes the id of one of the last
  // new orders: from the same account (a resend: a duplicate if that order
  // was accepted this trading day, accepted again if it was rejected or a
  // session end came between) or from whatever account `account` is; or
  // none (0, never checked).
  ClientOrderId PickClientOrderId(AccountId& account) {
    const int64_t r = rng_.Uniform(0, 99);
    ClientOrderId id{next_client_id_++};
    if (!recent_ids_.empty() && r < 8) {
      const auto& [a, used] = rng_.Pick(recent_ids_);
      if (r < 6) account = a;
      id = used;
    } else if (r < 10) {
      return ClientOrderId{};
    }
    if (recent_ids_.size() < 24) {
      recent_ids_.emplace_back(account, id);
    } else {
      recent_ids_[next_recent_++ % recent_ids_.size()] = {account, id};
    }
    return id;
  }

  // An order id to act on: usually a live order of the acting account.
  void PickTarget(const ReferenceEngine& ref, Command& c) {
    const std::vector<RefOrder> live = ref.AllRestingOrders();
    const int64_t r = rng_.Uniform(0, 99);
    if (!live.empty() && r < 80) {
      const RefOrder& o = rng_.Pick(live);
      c.set_order_id(o.id);
      c.account = o.account;
      return;
    }
    if (!live.empty() && r < 88) {  // someone else's order
      const RefOrder& o = rng_.Pick(live);
      c.set_order_id(o.id);
      c.account = AccountId{o.account.value % 5 + 1};
      return;
    }
    if (!known_orders_.empty() && r < 96) {  // most likely gone by now
      const auto& [id, account] = rng_.Pick(known_orders_);
      c.set_order_id(id);
      c.account = account;
      return;
    }
    c.set_order_id(OrderId{static_cast<uint64_t>(
        rng_.Uniform(0, static_cast<int64_t>(ref.next_order_id()) + 3))});
    c.account = PickAccount();
  }

  Command Cancel(const ReferenceEngine& ref) {
    Command c;
    c.type = CommandType::kCancel;
    c.client_order_id = ClientOrderId{next_client_id_++};
    PickTarget(ref, c);
    return c;
  }

  Command Replace(const ReferenceEngine& ref) {
    Command c;
    c.type = CommandType::kReplace;
    c.client_order_id = ClientOrderId{next_client_id_++};
    PickTarget(ref, c);
    if (rng_.Chance(1, 8)) {
      // An order that lost lots to self-trade decrement: its leaves are
      // below quantity - filled, which the replace rules must respect.
      for (const RefOrder& d : ref.AllRestingOrders()) {
        if (d.stp_decremented.lots == 0) continue;
        c.set_order_id(d.id);
        c.account = d.account;
        c.price = d.price;
        c.quantity = rng_.Pick(std::vector<Quantity>{
            Quantity{d.leaves.lots + d.filled.lots}, d.quantity,
            Quantity{d.quantity.lots - 1}, Quantity{d.quantity.lots + 1}});
        return c;
      }
    }
    const RefOrder* o = ref.FindOrder(c.order_id());
    if (o == nullptr) {
      c.price = Price{100'000};
      c.quantity = Quantity{rng_.Uniform(1, 10)};
      return c;
    }
    const InstrumentConfig& ic = ref.instrument_config(o->instrument);
    const int64_t tick = ic.tick.units;
    const int64_t dir = o->side == Side::kBuy ? 1 : -1;  // +: more aggressive
    c.price = o->price;
    c.quantity = o->quantity;
    const int64_t r = rng_.Uniform(0, 99);
    if (r < 20) {  // quantity down (keeps priority when leaves do not grow)
      c.quantity = Quantity{
          rng_.Uniform(o->filled.lots + 1,
                       std::max(o->filled.lots + 1, o->quantity.lots - 1))};
    } else if (r < 32) {  // quantity up
      c.quantity = Quantity{o->quantity.lots + rng_.Uniform(1, 8)};
    } else if (r < 50) {  // price move, passive or aggressive
      c.price = Price{o->price.units + dir * tick * rng_.Uniform(-4, 3)};
    } else if (r < 62) {  // to or through the opposite best
      const Price best = ref.best_price(
          o->instrument, o->side == Side::kBuy ? Side::kSell : Side::kBuy);
      const int64_t base = best.units != 0 ? best.units : o->price.units;
      c.price = Price{base + dir * tick * rng_.Uniform(0, 2)};
    } else if (r < 72) {  // both
      c.price = Price{o->price.units + dir * tick * rng_.Uniform(-3, 3)};
      c.quantity = Quantity{o->filled.lots + rng_.Uniform(1, 15)};
    } else if (r < 78) {
      // no change
    } else if (r < 84) {  // not above filled
      c.quantity = Quantity{o->filled.lots - rng_.Uniform(0, 1)};
    } else if (r < 90) {  // bad price
      c.price = rng_.Pick(std::vector<Price>{
          Price{0}, Price{o->price.units + 1}, Price{ic.max_price.units + tick},
          Price{ref.reference_price(o->instrument).units + dir * 20'000}});
    } else if (r < 94) {  // bad quantity
      c.quantity = Quantity{rng_.Pick(std::vector<int64_t>{
          0, ic.min_quantity.lots - 1, ic.max_quantity.lots,
          ic.max_quantity.lots + 1})};
    } else {  // the same numbers with a new client order id, quantity back up
      c.quantity = Quantity{o->leaves.lots + o->filled.lots};
    }
    return c;
  }

  // Deposits, withdrawals (often more than the margin requirement leaves
  // free) and settlement bookings for a business date that mostly moves
  // on, sometimes repeats or goes back (ALREADY_SETTLED); now and then a
  // zero, an overflowing amount or a date after 9999-12-31.
  Command Collateral() {
    Command c;
    c.type = CommandType::kCollateral;
    c.account = PickAccount();
    c.client_order_id = ClientOrderId{next_client_id_++};
    const int64_t usd = kMicrosPerUsd;
    const int64_t r = rng_.Uniform(0, 99);
    if (r < 25) {
      c.quantity = Quantity{rng_.Uniform(1, 20'000) * usd};
    } else if (r < 50) {
      c.quantity = Quantity{-rng_.Uniform(1, 20'000) * usd};
    } else if (r < 92) {
      if (rng_.Chance(3, 4)) ++settle_date_;
      c.target = static_cast<uint64_t>(settle_date_ - rng_.Uniform(0, 1));
      c.quantity = Quantity{rng_.Uniform(-15'000, 15'000) * usd +
                            rng_.Uniform(0, usd - 1)};
    } else if (r < 95) {
      c.quantity = Quantity{0};
      if (rng_.Chance(1, 2)) c.target = static_cast<uint64_t>(settle_date_);
    } else if (r < 98) {
      c.quantity = Quantity{rng_.Chance(1, 2) ? INT64_MAX : INT64_MIN};
    } else {
      c.target = 2'932'897 + static_cast<uint64_t>(rng_.Uniform(0, 5));
      c.quantity = Quantity{usd};
    }
    return c;
  }

  // Kill switches come from their own generator and replace the command
  // just drawn, so a seed's other draws stay what they were before kill
  // switches existed: about one command in 250 kills an account (now and
  // then an unknown one, or with an unknown flag), and while accounts are
  // killed one in 30 reinstates one (sometimes a live one: accepted, no
  // change). A killed account's orders and replaces are refused meanwhile.
  void KillSwitch(const ReferenceEngine& ref, Command& c) {
    std::vector<AccountId> killed;
    for (AccountId a : ref.account_ids()) {
      if (ref.killed(a)) killed.push_back(a);
    }
    const bool kill = kill_rng_.Chance(1, 250);
    const bool reinstate = !killed.empty() && kill_rng_.Chance(1, 30);
    if (!kill && !reinstate) return;
    Command k;
    k.type = CommandType::kKillSwitch;
    k.client_order_id = ClientOrderId{next_client_id_++};
    const int64_t r = kill_rng_.Uniform(0, 99);
    if (kill) {
      k.flags = kFlagKill;
      k.account = AccountId{static_cast<uint32_t>(kill_rng_.Uniform(1, 5))};
      if (r < 5) k.account = AccountId{r < 2 ? 0u : 6u};
      if (r >= 93) k.flags = r < 97 ? uint8_t{0x3} : uint8_t{0x80};
    } else {
      k.account = killed[static_cast<std::size_t>(kill_rng_.Uniform(
          0, static_cast<int64_t>(killed.size()) - 1))];
      if (r < 10) {
        k.account = AccountId{static_cast<uint32_t>(kill_rng_.Uniform(1, 5))};
      }
    }
    c = k;
  }

  Command MassCancel() {
    Command c;
    c.type = CommandType::kMassCancel;
    c.account = PickAccount();
    const int64_t r = rng_.Uniform(0, 99);
    c.instrument = r < 50 ? InstrumentId{0}
                   : r < 95
                       ? InstrumentId{static_cast<uint32_t>(rng_.Uniform(1, 3))}
                       : InstrumentId{static_cast<uint32_t>(
                             rng_.Pick(std::vector<int64_t>{4, 99}))};
    return c;
  }

  // Instruments leave OPEN rarely and come back soon, so the books spend
  // most of the stream (about 90 %) in continuous trading. Returns true when
  // `c` is set to such a state change.
  bool Reopen(const ReferenceEngine& ref, Command& c) {
    std::vector<InstrumentId> not_open;
    for (InstrumentId id : ref.instrument_ids()) {
      const InstrumentState s = ref.state(id);
      if (s != InstrumentState::kOpen && s != InstrumentState::kExpired) {
        not_open.push_back(id);
      }
    }
    if (not_open.empty() || !rng_.Chance(3, 100)) return false;
    c = SetState(ref);
    c.instrument = rng_.Pick(not_open);
    if (c.state != InstrumentState::kExpired && rng_.Chance(9, 10)) {
      c.state = InstrumentState::kOpen;
      c.set_pre_open_nanos(0);
    }
    return true;
  }

  Command SetState(const ReferenceEngine& ref) {
    Command c;
    c.type = CommandType::kSetInstrumentState;
    c.instrument = PickInstrument();
    const InstrumentState cur = ref.state(c.instrument);
    const int64_t r = rng_.Uniform(0, 99);
    if (r < 3) {
      c.state = static_cast<InstrumentState>(
          rng_.Pick(std::vector<int64_t>{0, 6, 200}));
    } else if (cur == InstrumentState::kOpen) {
      c.state = r < 55   ? InstrumentState::kHalted
                : r < 82 ? InstrumentState::kClosed
                : r < 92 ? InstrumentState::kPreOpen
                         : InstrumentState::kOpen;  // same state: rejected
    } else {
      c.state = r < 85 ? InstrumentState::kOpen
                       : static_cast<InstrumentState>(rng_.Uniform(1, 4));
    }
    // Expiry is terminal: only instrument 3, only late, rarely.
    if (c.instrument.value == 3 && index_ > total_ * 6 / 10 &&
        rng_.Chance(1, 12)) {
      c.state = InstrumentState::kExpired;
    }
    // Most pre-opens end by their scheduled open a few commands on; some
    // wait for an explicit open; a few ask for more than a day, or give a
    // length to another state (INVALID_PRE_OPEN_LENGTH).
    const int64_t p = pre_open_rng_.Uniform(0, 99);
    if (c.state == InstrumentState::kPreOpen && p < 70) {
      c.set_pre_open_nanos(
          static_cast<uint64_t>(kTsStep * pre_open_rng_.Uniform(1, 60)));
    } else if (p < 3) {
      c.set_pre_open_nanos(p < 2 ? kMaxPreOpenNanos + 1 : 1'000);
    }
    c.client_order_id = ClientOrderId{
        static_cast<uint64_t>(pre_open_rng_.Uniform(0, 3))};
    return c;
  }

  Command SetReference(const ReferenceEngine& ref) {
    Command c;
    c.type = CommandType::kSetReferencePrice;
    c.instrument = PickInstrument();
    if (!ref.has_instrument(c.instrument)) {
      c.price = Price{100'000};
      return c;
    }
    const InstrumentConfig& ic = ref.instrument_config(c.instrument);
    const int64_t tick = ic.tick.units;
    const int64_t r = rng_.Uniform(0, 99);
    if (r < 85) {
      c.price = Price{ic.reference_price.units + tick * rng_.Uniform(-12, 12)};
    } else if (r < 91) {  // off tick: allowed, the bands still round
      c.price = Price{ic.reference_price.units + rng_.Uniform(-999, 999)};
    } else if (r < 95) {
      c.price = Price{rng_.Chance(1, 2) ? 0 : -tick};
    } else if (r < 98) {
      c.price = Price{ic.max_price.units + rng_.Uniform(0, 1) * tick};
    } else {
      c.price = Price{tick};
    }
    return c;
  }

  Rng rng_;
  // Pre-open lengths: a generator of their own, so the rest of the stream
  // is what it was before pre-opens had a length.
  Rng pre_open_rng_;
  Rng kill_rng_;
  int total_;
  bool deep_;
  int index_ = 0;
  uint64_t seq_ = 0;
  int64_t ts_ = kStartTs;
  uint64_t next_client_id_ = 1'000;
  int64_t settle_date_ = 20'800;  // 2026-12-13
  // (account, client order id) of the last new orders that carried one.
  std::vector<std::pair<AccountId, ClientOrderId>> recent_ids_;
  std::size_t next_recent_ = 0;
  std::vector<std::pair<OrderId, AccountId>> known_orders_;
};

// ---------------------------------------------------------------------------
// Running both engines side by side

// Engine events go through a 5-event buffer so the sink's flush-when-full
// path runs too.
class VectorSink : public EventCollector {
 public:
  VectorSink() : EventCollector(5) {}
};

std::string EventList(const std::vector<Event>& events, std::size_t mark) {
  std::ostringstream os;
  for (std::size_t i = 0; i < events.size(); ++i) {
    os << (i == mark ? "  >> " : "     ") << "[" << i << "] "
       << DescribeEvent(events[i]) << "\n";
  }
  if (events.empty()) os << "     (none)\n";
  return os.str();
}

// Counts for CFX_TEST_STATS, to keep the generator honest.
struct Stats {
  std::map<std::string, int> counts;
  // Keys are "<command> -> <event> [<reason>]".
  void Add(const Command& cmd, const std::vector<Event>& events) {
    std::string command = DescribeCommand(cmd);
    command = command.substr(0, command.find('{'));
    for (const Event& e : events) {
      std::string key = DescribeEvent(e);
      key = command + " -> " + key.substr(0, key.find('{'));
      if (e.type == EventType::kRejected) {
        key += " " + std::string(RejectCodeName(e.reject_code()));
      } else if (e.type == EventType::kOrderCancelled ||
                 e.type == EventType::kOrderRestated) {
        key += " " + std::string(CancelReasonName(e.cancel_reason()));
      }
      ++counts[key];
    }
  }
  std::string ToString() const {
    std::ostringstream os;
    for (const auto& [k, n] : counts) os << "    " << k << ": " << n << "\n";
    return os.str();
  }
};

class Differential {
 public:
  explicit Differential(const EngineConfig& config)
      : config_(config), ref_(config) {
    auto r = Engine::Create(config);
    if (r.has_value()) {
      engine_ = std::move(r).value();
    } else {
      create_error_ = r.error().ToString();
    }
  }

  bool ok() const { return engine_ != nullptr; }
  const std::string& create_error() const { return create_error_; }
  const ReferenceEngine& ref() const { return ref_; }
  const std::vector<Event>& ref_events() const { return ref_events_; }

  // Applies `cmd` to both engines and checks everything; returns "" when
  // they agree and the invariants hold, else a description.
  std::string Step(const Command& cmd) {
    engine_->Apply(cmd, sink_.sink());
    const std::vector<Event> got = sink_.Take();
    ref_events_.clear();
    ref_.Apply(cmd, ref_events_);

    std::string failure = CompareEvents(got, ref_events_);
    if (failure.empty()) failure = CheckResults(cmd, ref_events_);
    if (failure.empty()) failure = CompareState();
    if (failure.empty()) failure = CheckInvariants(ref_events_);
    if (failure.empty()) failure = CheckLedger(ref_events_);
    if (!failure.empty()) {
      failure = "command: " + DescribeCommand(cmd) + "\n" + failure;
    }
    return failure;
  }

 private:
  static std::string CompareEvents(const std::vector<Event>& got,
                                   const std::vector<Event>& want) {
    const std::size_t n = std::max(got.size(), want.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::string what;
      if (i >= got.size()) {
        what = "engine emitted fewer events";
      } else if (i >= want.size()) {
        what = "engine emitted more events";
      } else {
        const std::vector<std::string> diffs = DiffEvents(got[i], want[i]);
        if (diffs.empty()) continue;
        what = "fields differ:";
        for (const std::string& d : diffs) what += " " + d;
      }
      std::ostringstream os;
      os << "event mismatch at index " << i << " (" << what << ")\n"
         << "  engine (" << got.size() << " events):\n"
         << EventList(got, i) << "  reference (" << want.size() << " events):\n"
         << EventList(want, i);
      return os.str();
    }
    return "";
  }

  // One result per command; every event carries the command's seq and ts.
  static std::string CheckResults(const Command& cmd,
                                  const std::vector<Event>& events) {
    int results = 0;
    for (const Event& e : events) {
      results += IsResult(e.type) ? 1 : 0;
      if (e.seq != cmd.seq || e.ts != cmd.ts) {
        return "event with a foreign seq/ts: " + DescribeEvent(e) + "\n";
      }
    }
    if (results != 1) {
      return "expected exactly one result event, got " +
             std::to_string(results) + ":\n" + EventList(events, events.size());
    }
    return "";
  }

  // Hash and read-only views of the engine against the reference.
  std::string CompareState() const {
    std::ostringstream os;
    const uint64_t got_hash = engine_->StateHash();
    const uint64_t want_hash = ref_.StateHash();
    if (got_hash != want_hash) {
      os << "StateHash differs: engine " << got_hash << ", reference "
         << want_hash << "\n";
    }
    if (engine_->last_seq() != ref_.last_seq()) {
      os << "last_seq differs: engine " << engine_->last_seq().value
         << ", reference " << ref_.last_seq().value << "\n";
    }
    if (engine_->resting_orders() != ref_.resting_orders()) {
      os << "resting_orders differs: engine " << engine_->resting_orders()
         << ", reference " << ref_.resting_orders() << "\n";
    }
    for (InstrumentId id : ref_.instrument_ids()) {
      if (engine_->state(id) != ref_.state(id)) {
        os << "state of instrument " << id.value << " differs: engine "
           << static_cast<int>(engine_->state(id)) << ", reference "
           << static_cast<int>(ref_.state(id)) << "\n";
      }
      for (Side side : {Side::kBuy, Side::kSell}) {
        const Price got = engine_->best_price(id, side);
        const Price want = ref_.best_price(id, side);
        if (got != want) {
          os << "best " << (side == Side::kBuy ? "bid" : "ask")
             << " of instrument " << id.value << " differs: engine "
             << got.units << ", reference " << want.units << "\n";
        }
        std::set<int64_t> prices;
        for (const RefOrder& o : ref_.RestingOrders(id, side)) {
          prices.insert(o.price.units);
        }
        for (int64_t p : prices) {
          const Quantity g = engine_->level_quantity(id, side, Price{p});
          const Quantity w = ref_.level_quantity(id, side, Price{p});
          if (g != w) {
            os << "level " << id.value << "/"
               << (side == Side::kBuy ? "bid" : "ask") << "/" << p
               << " differs: engine " << g.lots << ", reference " << w.lots
               << "\n";
          }
        }
      }
      for (AccountId a : ref_.account_ids()) {
        if (id.value == 1 &&
            (engine_->collateral(a).micros != ref_.collateral(a) ||
             engine_->settled_date(a) != ref_.settled_date(a))) {
          os << "collateral of account " << a.value << " differs: engine "
             << engine_->collateral(a).micros << " (settled "
             << engine_->settled_date(a) << "), reference "
             << ref_.collateral(a) << " (settled " << ref_.settled_date(a)
             << ")\n";
        }
        if (id.value == 1 && engine_->killed(a) != ref_.killed(a)) {
          os << "kill switch of account " << a.value << " differs: engine "
             << engine_->killed(a) << ", reference " << ref_.killed(a)
             << "\n";
        }
        if (engine_->position(a, id) != ref_.position(a, id)) {
          os << "position of account " << a.value << " in " << id.value
             << " differs: engine " << engine_->position(a, id)
             << ", reference " << ref_.position(a, id) << "\n";
        }
      }
    }
    Timestamp next_expiry{0};
    for (const RefOrder& o : ref_.AllRestingOrders()) {
      if (o.tif == TimeInForce::kGtd &&
          (next_expiry.nanos == 0 || o.expire_time < next_expiry)) {
        next_expiry = o.expire_time;
      }
    }
    const Timestamp open = ref_.next_open();
    if (open.nanos != 0 && (next_expiry.nanos == 0 || open < next_expiry)) {
      next_expiry = open;
    }
    if (engine_->next_expiry() != next_expiry) {
      os << "next_expiry differs: engine " << engine_->next_expiry().nanos
         << ", reference " << next_expiry.nanos << "\n";
    }
    if (engine_->state(InstrumentId{99}) != InstrumentState::kNone ||
        engine_->best_price(InstrumentId{99}, Side::kBuy) != Price{0}) {
      os << "unknown instrument 99 has a state or a best price\n";
    }
    return os.str();
  }

  // Invariants of the reference (and so, by equality, of the engine), plus
  // depth and positions rebuilt from the event stream alone.
  std::string CheckInvariants(const std::vector<Event>& events) {
    std::ostringstream os;
    for (const Event& e : events) {
      if (e.type == EventType::kBookLevel) {
        const auto key = std::make_tuple(
            e.instrument.value, static_cast<int>(e.side), e.price.units);
        if (e.quantity.lots == 0 && e.count == 0) {
          depth_.erase(key);
        } else {
          depth_[key] = {e.quantity.lots, e.count};
        }
      } else if (e.type == EventType::kTrade) {
        const bool buy = e.side == Side::kBuy;
        positions_[{e.account.value, e.instrument.value}] +=
            buy ? e.quantity.lots : -e.quantity.lots;
        positions_[{e.counter_account.value, e.instrument.value}] +=
            buy ? -e.quantity.lots : e.quantity.lots;
        if (e.quantity.lots <= 0) os << "trade without lots\n";
      }
    }

    std::map<std::tuple<uint32_t, int, int64_t>, std::pair<int64_t, uint32_t>>
        levels;
    std::set<uint64_t> ids;
    // (instrument, account, side) -> resting leaves.
    std::map<std::tuple<uint32_t, uint32_t, int>, int64_t> open_lots;
    for (InstrumentId id : ref_.instrument_ids()) {
      const InstrumentConfig& ic = ref_.instrument_config(id);
      const InstrumentState state = ref_.state(id);
      for (Side side : {Side::kBuy, Side::kSell}) {
        const std::vector<RefOrder> orders = ref_.RestingOrders(id, side);
        const RefOrder* prev = nullptr;
        for (const RefOrder& o : orders) {
          auto& level = levels[std::make_tuple(id.value, static_cast<int>(side),
                                               o.price.units)];
          level.first += o.leaves.lots;
          level.second += 1;
          open_lots[std::make_tuple(id.value, o.account.value,
                                    static_cast<int>(side))] += o.leaves.lots;
          if (!ids.insert(o.id.value).second) os << "duplicate order id\n";
          if (o.side != side || o.instrument != id) {
            os << "order " << o.id.value << " on the wrong book\n";
          }
          if (o.leaves.lots <= 0 || o.filled.lots < 0 ||
              o.stp_decremented.lots < 0) {
            os << "order " << o.id.value << " rests with bad lots\n";
          }
          if (o.quantity.lots !=
              o.leaves.lots + o.filled.lots + o.stp_decremented.lots) {
            os << "order " << o.id.value
               << ": quantity != leaves + filled + decremented\n";
          }
          if (o.price.units <= 0 || o.price.units % ic.tick.units != 0 ||
              o.price > ic.max_price) {
            os << "order " << o.id.value << " rests at a bad price\n";
          }
          if (o.tif != TimeInForce::kDay && o.tif != TimeInForce::kGtc &&
              o.tif != TimeInForce::kGtd) {
            os << "order " << o.id.value << " rests with tif "
               << static_cast<int>(o.tif) << "\n";
          }
          if (o.tif == TimeInForce::kGtd && o.expire_time <= ref_.last_ts()) {
            os << "GTD order " << o.id.value << " outlived its expire time\n";
          }
          if (o.tif == TimeInForce::kDay && state == InstrumentState::kClosed) {
            os << "DAY order " << o.id.value << " rests while CLOSED\n";
          }
          if (state == InstrumentState::kExpired) {
            os << "order " << o.id.value << " rests on an EXPIRED book\n";
          }
          if (prev != nullptr) {
            const bool worse = side == Side::kBuy ? o.price < prev->price
                                                  : o.price > prev->price;
            if (o.price == prev->price) {
              if (o.priority <= prev->priority) {
                os << "FIFO broken at " << o.price.units << ": order "
                   << o.id.value << " (priority " << o.priority
                   << ") behind order " << prev->id.value << " (priority "
                   << prev->priority << ")\n";
              }
            } else if (!worse) {
              os << "levels out of price order at order " << o.id.value << "\n";
            }
          }
          prev = &o;
        }
      }
      const Price bid = ref_.best_price(id, Side::kBuy);
      const Price ask = ref_.best_price(id, Side::kSell);
      // Only a book that has not opened since a pre-open may cross.
      if (ref_.state(id) == InstrumentState::kOpen && bid.units != 0 &&
          ask.units != 0 && bid >= ask) {
        os << "instrument " << id.value << " crossed at rest: bid " << bid.units
           << " >= ask " << ask.units << "\n";
      }
      int64_t net = 0;
      for (AccountId a : ref_.account_ids()) {
        const int64_t pos = ref_.position(a, id);
        net += pos;
        if (ic.position_limit.lots != 0) {
          int64_t open_buy = 0;
          int64_t open_sell = 0;
          for (const auto& [key, lots] : open_lots) {
            if (std::get<0>(key) != id.value || std::get<1>(key) != a.value) {
              continue;
            }
            (std::get<2>(key) == static_cast<int>(Side::kBuy) ? open_buy
                                                              : open_sell) +=
                lots;
          }
          if (pos + open_buy > ic.position_limit.lots ||
              -pos + open_sell > ic.position_limit.lots) {
            os << "account " << a.value << " over the position limit in "
               << id.value << "\n";
          }
        }
        const auto it = positions_.find({a.value, id.value});
        const int64_t from_trades = it == positions_.end() ? 0 : it->second;
        if (from_trades != pos) {
          os << "position of " << a.value << " in " << id.value
             << " is not the sum of its trades\n";
        }
      }
      if (net != 0) os << "positions in " << id.value << " do not net to 0\n";
    }
    if (ref_.resting_orders() > config_.limits.max_orders) {
      os << "more resting orders than max_orders\n";
    }
    if (levels != depth_) {
      os << "depth rebuilt from BookLevel events differs from the book\n";
    }
    return os.str();
  }

  // Lots of one live order as its events tell them.
  struct Ledger {
    int64_t quantity = 0;
    int64_t leaves = 0;
    int64_t filled = 0;
  };

  // Quantity conservation from the event stream alone: every lot of an
  // order is accounted for by trades, restatements and its final cancel, the
  // leaves and filled each event reports follow from the ones before, and
  // what is still live is exactly what rests.
  std::string CheckLedger(const std::vector<Event>& events) {
    std::ostringstream os;
    auto expect = [&os](const Event& e, const Ledger& l, int64_t leaves,
                        int64_t filled, const char* who) {
      if (leaves != l.leaves || filled != l.filled) {
        os << "ledger: " << who << " of " << DescribeEvent(e)
           << " reports leaves " << leaves << " filled " << filled
           << ", events so far give " << l.leaves << "/" << l.filled << "\n";
      }
    };
    for (const Event& e : events) {
      switch (e.type) {
        case EventType::kOrderAccepted:
          if (e.leaves != e.quantity || ledger_.count(e.order_id.value) != 0) {
            os << "ledger: bad OrderAccepted " << DescribeEvent(e) << "\n";
          }
          ledger_[e.order_id.value] = {e.quantity.lots, e.quantity.lots, 0};
          break;
        case EventType::kTrade: {
          Ledger& a = ledger_[e.order_id.value];
          Ledger& r = ledger_[e.counter_order_id.value];
          a.leaves -= e.quantity.lots;
          a.filled += e.quantity.lots;
          r.leaves -= e.quantity.lots;
          r.filled += e.quantity.lots;
          expect(e, a, e.leaves.lots, e.filled.lots, "aggressor");
          expect(e, r, e.counter_leaves.lots, e.counter_filled.lots, "resting");
          if (r.leaves == 0) ledger_.erase(e.counter_order_id.value);
          if (a.leaves == 0) ledger_.erase(e.order_id.value);
          break;
        }
        case EventType::kOrderRestated: {
          Ledger& l = ledger_[e.order_id.value];
          l.leaves -= e.quantity.lots;
          expect(e, l, e.leaves.lots, e.filled.lots, "order");
          if (l.leaves <= 0) os << "ledger: restated to nothing\n";
          break;
        }
        case EventType::kOrderCancelled:
        case EventType::kCancelAccepted: {
          const Ledger l = ledger_[e.order_id.value];
          expect(e, l, e.quantity.lots, e.filled.lots, "cancelled lots");
          if (e.leaves.lots != 0) os << "ledger: cancel with leaves\n";
          ledger_.erase(e.order_id.value);
          break;
        }
        case EventType::kOrderReplaced: {
          Ledger& l = ledger_[e.order_id.value];
          if (e.filled.lots != l.filled ||
              e.leaves.lots != e.quantity.lots - l.filled) {
            os << "ledger: bad OrderReplaced " << DescribeEvent(e) << "\n";
          }
          l.quantity = e.quantity.lots;
          l.leaves = e.leaves.lots;
          break;
        }
        default:
          break;
      }
    }
    const std::vector<RefOrder> resting = ref_.AllRestingOrders();
    if (resting.size() != ledger_.size()) {
      os << "ledger: " << ledger_.size() << " live orders by events, "
         << resting.size() << " resting\n";
    }
    for (const RefOrder& o : resting) {
      auto it = ledger_.find(o.id.value);
      if (it == ledger_.end() || it->second.leaves != o.leaves.lots ||
          it->second.filled != o.filled.lots ||
          it->second.quantity != o.quantity.lots) {
        os << "ledger: resting order " << o.id.value
           << " differs from its events\n";
      }
    }
    return os.str();
  }

  EngineConfig config_;
  std::unique_ptr<Engine> engine_;
  std::string create_error_;
  ReferenceEngine ref_;
  VectorSink sink_;
  std::vector<Event> ref_events_;
  // Depth and positions rebuilt from events only.
  std::map<std::tuple<uint32_t, int, int64_t>, std::pair<int64_t, uint32_t>>
      depth_;
  std::map<std::pair<uint32_t, uint32_t>, int64_t> positions_;
  std::map<uint64_t, Ledger> ledger_;
};

// ---------------------------------------------------------------------------
// Shrinking a failing stream

// Re-stamps seqs densely (keeping deliberately stale ones stale) and replays;
// returns the index of the first failing command, or -1.
int FirstFailure(const EngineConfig& config,
                 const std::vector<GeneratedCommand>& stream,
                 std::vector<Command>* stamped, std::string* failure) {
  Differential d(config);
  uint64_t seq = 0;
  if (stamped != nullptr) stamped->clear();
  for (std::size_t i = 0; i < stream.size(); ++i) {
    Command c = stream[i].cmd;
    if (stream[i].stale_seq) {
      c.seq = Seq{seq};
    } else {
      c.seq = Seq{++seq};
    }
    if (stamped != nullptr) stamped->push_back(c);
    std::string f = d.Step(c);
    if (!f.empty()) {
      if (failure != nullptr) *failure = std::move(f);
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Delta debugging (ddmin) over the commands before and at the failure.
std::string Minimize(const EngineConfig& config,
                     std::vector<GeneratedCommand> stream) {
  int fail = FirstFailure(config, stream, nullptr, nullptr);
  if (fail < 0) return "  (failure did not reproduce with re-stamped seqs)\n";
  stream.resize(static_cast<std::size_t>(fail) + 1);
  std::size_t n = 2;
  while (stream.size() >= 2) {
    const std::size_t chunk = (stream.size() + n - 1) / n;
    bool reduced = false;
    for (std::size_t start = 0; start < stream.size(); start += chunk) {
      std::vector<GeneratedCommand> candidate(
          stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(start));
      candidate.insert(candidate.end(),
                       stream.begin() + static_cast<std::ptrdiff_t>(std::min(
                                            start + chunk, stream.size())),
                       stream.end());
      const int f = FirstFailure(config, candidate, nullptr, nullptr);
      if (f >= 0) {
        candidate.resize(static_cast<std::size_t>(f) + 1);
        stream = std::move(candidate);
        n = std::max<std::size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= stream.size()) break;
      n = std::min(n * 2, stream.size());
    }
  }
  std::vector<Command> stamped;
  std::string failure;
  FirstFailure(config, stream, &stamped, &failure);
  std::ostringstream os;
  os << "  minimal failing stream (" << stamped.size() << " commands):\n";
  for (const Command& c : stamped) os << "    " << DescribeCommand(c) << "\n";
  os << "  failure:\n" << failure;
  return os.str();
}

// ---------------------------------------------------------------------------
// One seed

Variant VariantForSeed(uint64_t seed) {
  switch (seed % 5) {
    case 3:
      return Variant::kSmallPool;
    case 4:
      return Variant::kDeepBook;
    default:
      return Variant::kStandard;
  }
}

// Runs `seed` under `variant`; returns "" on success, else a report. Adds
// the outcome counts to `totals` when given.
std::string RunSeed(uint64_t seed, Variant variant, Stats* totals = nullptr) {
  const EngineConfig config = MakeConfig(variant);
  Differential d(config);
  if (!d.ok()) return "Engine::Create failed: " + d.create_error();

  const int total = CommandsPerSeed();
  CommandGenerator gen(seed, total, variant == Variant::kDeepBook);
  std::vector<GeneratedCommand> stream;
  Stats stats;
  std::size_t resting_sum = 0;
  std::size_t resting_max = 0;
  for (int i = 0; i < total; ++i) {
    const GeneratedCommand g = gen.Next(d.ref());
    stream.push_back(g);
    const std::string failure = d.Step(g.cmd);
    if (!failure.empty()) {
      std::ostringstream os;
      os << "seed " << seed << " (" << VariantName(variant)
         << " config) failed at command #" << i << " (seq " << g.cmd.seq.value
         << "); reproduce with CFX_TEST_SEED=" << seed
         << (variant != VariantForSeed(seed)
                 ? std::string(" CFX_TEST_VARIANT=") + VariantName(variant)
                 : std::string())
         << " CFX_TEST_COMMANDS=" << total
         << " (add CFX_TEST_MINIMIZE=1 to shrink)\n"
         << failure << "  previous commands:\n";
      const std::size_t from = stream.size() > 16 ? stream.size() - 16 : 0;
      for (std::size_t k = from; k + 1 < stream.size(); ++k) {
        os << "    #" << k << " " << DescribeCommand(stream[k].cmd) << "\n";
      }
      if (EnvFlag("CFX_TEST_MINIMIZE")) os << Minimize(config, stream);
      return os.str();
    }
    gen.Observe(d.ref_events());
    stats.Add(g.cmd, d.ref_events());
    resting_sum += d.ref().resting_orders();
    resting_max = std::max(resting_max, d.ref().resting_orders());
  }
  if (totals != nullptr) {
    for (const auto& [key, n] : stats.counts) totals->counts[key] += n;
  }
  if (EnvFlag("CFX_TEST_STATS")) {
    std::printf("seed %llu (%s): resting orders mean %zu, max %zu\n%s",
                static_cast<unsigned long long>(seed), VariantName(variant),
                resting_sum / static_cast<std::size_t>(total), resting_max,
                stats.ToString().c_str());
  }
  return "";
}

bool EnvSeed(uint64_t* seed) { return EnvU64("CFX_TEST_SEED", seed); }

class EngineDifferentialTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(EngineDifferentialTest, MatchesReferenceOnRandomStream) {
  uint64_t env_seed = 0;
  if (EnvSeed(&env_seed)) GTEST_SKIP() << "CFX_TEST_SEED is set";
  const uint64_t seed = GetParam();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string failure = RunSeed(seed, VariantForSeed(seed));
  EXPECT_TRUE(failure.empty()) << failure;
}

INSTANTIATE_TEST_SUITE_P(FixedSeeds, EngineDifferentialTest,
                         ::testing::ValuesIn(kFixedSeeds));

TEST(EngineDifferential, MatchesReferenceOnFreshSeed) {
  uint64_t seed = 0;
  if (EnvSeed(&seed)) GTEST_SKIP() << "CFX_TEST_SEED is set";
  std::random_device rd;
  seed = (uint64_t{rd()} << 32) | rd();
  SCOPED_TRACE("fresh seed " + std::to_string(seed));
  std::printf("EngineDifferential fresh seed: %llu\n",
              static_cast<unsigned long long>(seed));
  const std::string failure = RunSeed(seed, VariantForSeed(seed));
  EXPECT_TRUE(failure.empty()) << failure;
}

// The streams reach the margin and collateral rules: orders and replaces
// refused for margin, every kind of collateral outcome.
TEST(EngineDifferential, RandomStreamsExerciseMarginAndCollateral) {
  uint64_t env_seed = 0;
  if (EnvSeed(&env_seed)) GTEST_SKIP() << "CFX_TEST_SEED is set";
  Stats totals;
  for (uint64_t seed : {1u, 2u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string failure = RunSeed(seed, Variant::kStandard, &totals);
    ASSERT_TRUE(failure.empty()) << failure;
  }
  for (const char* key : {
           "NewOrder -> Rejected INSUFFICIENT_MARGIN",
           "Replace -> Rejected INSUFFICIENT_MARGIN",
           "Collateral -> CollateralChanged",
           "Collateral -> Rejected INSUFFICIENT_MARGIN",
           "Collateral -> Rejected ALREADY_SETTLED",
           "Collateral -> Rejected INVALID_AMOUNT",
           "Collateral -> Rejected INVALID_SETTLEMENT_DATE",
           "Collateral -> Rejected UNKNOWN_ACCOUNT",
       }) {
    EXPECT_GT(totals.counts[key], 0) << key << "\n" << totals.ToString();
  }
  // Margin never stops everything: futures orders still trade.
  EXPECT_GT(totals.counts["NewOrder -> Trade"], 100) << totals.ToString();
}

// The streams reach the kill switch: kills that cancel resting orders,
// orders refused while an account is killed, reinstates, and the rejects
// of a kill.
TEST(EngineDifferential, RandomStreamsExerciseKillSwitches) {
  uint64_t env_seed = 0;
  if (EnvSeed(&env_seed)) GTEST_SKIP() << "CFX_TEST_SEED is set";
  Stats totals;
  for (uint64_t seed : {1u, 2u, 5u, 8u, 13u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string failure = RunSeed(seed, Variant::kStandard, &totals);
    ASSERT_TRUE(failure.empty()) << failure;
  }
  for (const char* key : {
           "KillSwitch -> KillSwitchSet",
           "KillSwitch -> OrderCancelled KILL_SWITCH",
           "KillSwitch -> Rejected UNKNOWN_ACCOUNT",
           "KillSwitch -> Rejected INVALID_FLAGS",
           "NewOrder -> Rejected ACCOUNT_KILLED",
       }) {
    EXPECT_GT(totals.counts[key], 0) << key << "\n" << totals.ToString();
  }
}

// The 64-bit notional limit placed inside the generated price and quantity
// range of instrument 3, so NOTIONAL_OVERFLOW happens on both sides of it.
TEST(EngineDifferential, MatchesReferenceAtNotionalOverflowBoundary) {
  uint64_t seed = 0;
  if (EnvSeed(&seed)) GTEST_SKIP() << "CFX_TEST_SEED is set";
  for (uint64_t s : {4242u, 4243u}) {
    SCOPED_TRACE("seed " + std::to_string(s));
    const std::string failure = RunSeed(s, Variant::kNotionalOverflow);
    EXPECT_TRUE(failure.empty()) << failure;
  }
}

// CFX_TEST_SEED=<n> reruns one seed, under the variant the failure named
// (CFX_TEST_VARIANT=notional-overflow for the boundary test).
TEST(EngineDifferential, MatchesReferenceOnEnvSeed) {
  uint64_t seed = 0;
  if (!EnvSeed(&seed)) GTEST_SKIP() << "CFX_TEST_SEED is not set";
  Variant variant = VariantForSeed(seed);
  if (const char* v = std::getenv("CFX_TEST_VARIANT"); v != nullptr) {
    for (Variant candidate : {Variant::kStandard, Variant::kSmallPool,
                              Variant::kDeepBook, Variant::kNotionalOverflow}) {
      if (std::string(v) == VariantName(candidate)) variant = candidate;
    }
  }
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::string failure = RunSeed(seed, variant);
  EXPECT_TRUE(failure.empty()) << failure;
}

}  // namespace
}  // namespace cfx::exchange::testing
