#include "tests/support/random_commands.h"

#include <utility>

namespace cfx::exchange::testing {

EngineConfig SmallMarketConfig() {
  EngineConfig config;
  config.limits.max_orders = 20'000;
  config.limits.max_accounts = 9;
  config.limits.max_instruments = 3;
  config.limits.max_client_order_ids = 1'024;
  for (uint32_t i = 1; i <= 2; ++i) {
    InstrumentConfig ic;
    ic.id = InstrumentId{i};
    ic.kind = i == 1 ? InstrumentKind::kFuture : InstrumentKind::kSpot;
    ic.reference_price = Price{100'000};  // $10.00
    ic.max_price = Price{200'000};
    ic.max_quantity = Quantity{100};
    ic.position_limit = Quantity{i == 1 ? 5'000 : 0};
    if (i == 1) {
      ic.margin_group = 1;
      ic.maturity_month = 2027 * 12;  // 2027-01
    }
    config.instruments.push_back(ic);
  }
  for (uint32_t a = 1; a <= 8; ++a) {
    // Accounts 1 and 2 can margin about three contracts of instrument 1
    // ($1,095 each at the $10.00 reference), the others far more.
    const int64_t usd = a <= 2 ? 3'500 : 10'000'000;
    config.accounts.push_back({AccountId{a}, static_cast<StpMode>(1 + a % 4),
                               Amount{usd * kMicrosPerUsd}});
  }
  return config;
}

std::vector<Command> RandomCommands(uint64_t seed, std::size_t n,
                                    uint64_t first_seq, int64_t start_ns) {
  std::mt19937_64 rng(seed);
  std::vector<Command> out;
  out.reserve(n);
  int64_t ts = start_ns;
  // Order ids are dense in acceptance order; targeting ids up to a bound
  // that grows with the stream hits live, dead and unknown orders.
  uint64_t id_bound = first_seq;
  // Resends: a separate generator, so the rest of the stream is what it
  // was before client order ids were checked.
  std::mt19937_64 resend_rng(seed ^ 0x7e5e4d5ull);
  std::vector<std::pair<AccountId, ClientOrderId>> recent;
  // Collateral commands replace one command in 40: a separate generator
  // too, so the other commands stay what they were.
  std::mt19937_64 collateral_rng(seed ^ 0xc011a7e5ull);
  int64_t settle_date = 20'800;
  // Pre-open lengths: a separate generator too. Commands come every 1 to
  // 51 us, so 1 to 4 ms ends most pre-opens by their scheduled open.
  std::mt19937_64 pre_open_rng(seed ^ 0x9e0be7ull);
  // Kill switches replace about one command in 300 (a kill of the acting
  // account) and, while accounts are killed, one in 40 (a reinstate of the
  // longest killed): a third generator, so the other commands stay what
  // they were.
  std::mt19937_64 kill_rng(seed ^ 0x4b111ull);
  std::vector<AccountId> killed;
  for (std::size_t j = 0; j < n; ++j) {
    Command c;
    c.seq = Seq{first_seq + j};
    ts += static_cast<int64_t>(1'000 + rng() % 50'000);
    c.ts = Timestamp{ts};
    c.account = AccountId{static_cast<uint32_t>(1 + rng() % 8)};
    c.instrument = InstrumentId{static_cast<uint32_t>(1 + rng() % 2)};
    c.client_order_id = ClientOrderId{rng() % 1'000'000};
    const uint64_t r = rng() % 1000;
    if (r < 600) {
      c.type = CommandType::kNewOrder;
      c.side = rng() % 2 ? Side::kBuy : Side::kSell;
      c.order_type = r < 570 ? OrderType::kLimit : OrderType::kMarket;
      c.tif = c.order_type == OrderType::kMarket
                  ? (rng() % 4 ? TimeInForce::kIoc : TimeInForce::kFok)
                  : static_cast<TimeInForce>(1 + rng() % 5);
      if (c.tif == TimeInForce::kGtd) {
        c.set_expire_time(
            Timestamp{ts + static_cast<int64_t>(rng() % 2'000'000)});
      }
      if (c.order_type == OrderType::kLimit && c.tif != TimeInForce::kIoc &&
          c.tif != TimeInForce::kFok && rng() % 10 == 0) {
        c.flags = kFlagPostOnly;
      }
      if (rng() % 8 == 0) c.stp = static_cast<StpMode>(rng() % 5);
      const int64_t offset = static_cast<int64_t>(rng() % 60) - 30;
      c.price =
          c.order_type == OrderType::kMarket
              ? Price{}
              : Price{100'000 + offset * 100 + (rng() % 100 == 0 ? 50 : 0)};
      c.quantity = Quantity{static_cast<int64_t>(rng() % 30)};
      if (rng() % 200 == 0) c.side = static_cast<Side>(7);
      // One new order in 16 resends the (account, client order id) of one
      // of the last 16: a duplicate if that one was accepted this day.
      if (!recent.empty() && resend_rng() % 16 == 0) {
        const auto& [account, id] = recent[resend_rng() % recent.size()];
        c.account = account;
        c.client_order_id = id;
      }
      if (recent.size() < 16) {
        recent.emplace_back(c.account, c.client_order_id);
      } else {
        recent[j % recent.size()] = {c.account, c.client_order_id};
      }
      ++id_bound;
    } else if (r < 850) {
      c.type = CommandType::kCancel;
      c.set_order_id(OrderId{1 + rng() % id_bound});
    } else if (r < 970) {
      c.type = CommandType::kReplace;
      c.set_order_id(OrderId{1 + rng() % id_bound});
      c.price = Price{100'000 + (static_cast<int64_t>(rng() % 60) - 30) * 100};
      c.quantity = Quantity{static_cast<int64_t>(1 + rng() % 30)};
    } else if (r < 980) {
      c.type = CommandType::kMassCancel;
      if (rng() % 2) c.instrument = InstrumentId{};
    } else if (r < 988) {
      c.type = CommandType::kSetInstrumentState;
      static constexpr InstrumentState kStates[] = {
          InstrumentState::kOpen, InstrumentState::kOpen,
          InstrumentState::kHalted, InstrumentState::kClosed,
          InstrumentState::kPreOpen};
      c.state = kStates[rng() % 5];
      if (c.state == InstrumentState::kPreOpen && pre_open_rng() % 4 != 0) {
        c.set_pre_open_nanos(pre_open_rng() % 50 == 0
                                 ? kMaxPreOpenNanos + 1
                                 : 1'000'000 * (1 + pre_open_rng() % 4));
      }
    } else if (r < 993) {
      c.type = CommandType::kSetReferencePrice;
      c.price = Price{100'000 + (static_cast<int64_t>(rng() % 20) - 10) * 100};
    } else if (r < 997) {
      c.type = CommandType::kTimer;
    } else {
      c.type = CommandType::kEndOfSession;
      if (rng() % 2) c.instrument = InstrumentId{};
    }
    if (collateral_rng() % 40 == 0) {
      // Deposits, withdrawals and settlement bookings, some for a date
      // already booked.
      Command k;
      k.seq = c.seq;
      k.ts = c.ts;
      k.type = CommandType::kCollateral;
      k.account = c.account;
      k.client_order_id = c.client_order_id;
      const uint64_t kind = collateral_rng() % 10;
      const auto usd =
          static_cast<int64_t>(1 + collateral_rng() % 5'000) * kMicrosPerUsd;
      if (kind < 3) {
        k.quantity = Quantity{usd};
      } else if (kind < 6) {
        k.quantity = Quantity{-usd};
      } else {
        if (collateral_rng() % 3 != 0) ++settle_date;
        k.target = static_cast<uint64_t>(settle_date);
        k.quantity = Quantity{collateral_rng() % 2 ? usd : -usd};
      }
      c = k;
    }
    const bool kill = kill_rng() % 300 == 0;
    const bool reinstate = !killed.empty() && kill_rng() % 40 == 0;
    if (kill || reinstate) {
      Command k;
      k.seq = c.seq;
      k.ts = c.ts;
      k.type = CommandType::kKillSwitch;
      k.client_order_id = c.client_order_id;
      if (kill) {
        k.account = c.account;
        k.flags = kFlagKill;
        killed.push_back(c.account);
      } else {
        k.account = killed.front();
        killed.erase(killed.begin());
      }
      c = k;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace cfx::exchange::testing
