// cfx-demo-engine: replays a short demo session through the matching engine
// and prints every trade and the resulting books. What deploy/run starts
// until the network server exists.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exchange/core/engine.h"

namespace cfx::exchange {
namespace {

struct Names {
  const char* instrument[3] = {"", "XB2SZ6", "B200-STD-20261202"};
  const char* account[7] = {"",       "FIRM-A", "FIRM-B", "FIRM-C",
                            "PROV-A", "PROV-B", "PROV-C"};
};

std::string Usd(Price p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%04" PRId64, p.units / 10'000,
                p.units % 10'000);
  std::string s(buf);
  while (s.size() > 4 && s.back() == '0' && s[s.size() - 3] != '.')
    s.pop_back();
  return "$" + s;
}

struct Printer {
  Names names;
  int trades = 0;
  int rejects = 0;
  static void Flush(void* self, const Event* events, std::size_t n) {
    auto* p = static_cast<Printer*>(self);
    for (std::size_t i = 0; i < n; ++i) p->Print(events[i]);
  }
  void Print(const Event& e) {
    if (e.type == EventType::kTrade) {
      ++trades;
      const bool buy = e.side == Side::kBuy;
      std::printf(
          "  trade %-3" PRIu64 " %-18s %3" PRId64
          " lots @ %-7s buyer %s  seller %s\n",
          e.trade_id.value, names.instrument[e.instrument.value],
          e.quantity.lots, Usd(e.price).c_str(),
          names.account[buy ? e.account.value : e.counter_account.value],
          names.account[buy ? e.counter_account.value : e.account.value]);
    } else if (e.type == EventType::kRejected) {
      ++rejects;
      std::printf("  reject %-18s %s (%s)\n",
                  names.instrument[e.instrument.value],
                  std::string(RejectCodeName(e.reject_code())).c_str(),
                  names.account[e.account.value]);
    } else if (e.type == EventType::kOrderCancelled) {
      std::printf("  cancel %-18s order %" PRIu64 " %s\n",
                  names.instrument[e.instrument.value], e.order_id.value,
                  std::string(CancelReasonName(e.cancel_reason())).c_str());
    }
  }
};

Command Order(uint32_t account, uint32_t instrument, Side side, int64_t cents,
              int64_t lots) {
  Command c;
  c.type = CommandType::kNewOrder;
  c.account = AccountId{account};
  c.instrument = InstrumentId{instrument};
  c.side = side;
  c.order_type = OrderType::kLimit;
  c.tif = TimeInForce::kGtc;
  c.price = Price{cents * 100};
  c.quantity = Quantity{lots};
  return c;
}

void PrintBook(const Engine& engine, InstrumentId id, const char* name) {
  std::printf("\n%s\n  %10s %9s | %-9s %s\n", name, "bid lots", "bid", "ask",
              "ask lots");
  // Walk the levels the engine exposes, five per side.
  std::vector<std::pair<Price, Quantity>> bids, asks;
  for (int64_t c = 2000; c >= 1 && bids.size() < 5; --c) {
    const Quantity q = engine.level_quantity(id, Side::kBuy, Price{c * 100});
    if (q.lots > 0) bids.emplace_back(Price{c * 100}, q);
  }
  for (int64_t c = 1; c <= 2000 && asks.size() < 5; ++c) {
    const Quantity q = engine.level_quantity(id, Side::kSell, Price{c * 100});
    if (q.lots > 0) asks.emplace_back(Price{c * 100}, q);
  }
  for (std::size_t i = 0; i < 5 && (i < bids.size() || i < asks.size()); ++i) {
    std::string bl, bp, ap, al;
    if (i < bids.size()) {
      bl = std::to_string(bids[i].second.lots);
      bp = Usd(bids[i].first);
    }
    if (i < asks.size()) {
      ap = Usd(asks[i].first);
      al = std::to_string(asks[i].second.lots);
    }
    std::printf("  %10s %9s | %-9s %s\n", bl.c_str(), bp.c_str(), ap.c_str(),
                al.c_str());
  }
}

int Run() {
  EngineConfig config;
  config.limits.max_orders = 1024;
  config.limits.max_accounts = 8;
  config.limits.max_instruments = 4;
  InstrumentConfig future;
  future.id = InstrumentId{1};
  future.kind = InstrumentKind::kFuture;
  future.reference_price = Price{58'000};  // $5.80
  future.max_quantity = Quantity{500};
  InstrumentConfig spot = future;
  spot.id = InstrumentId{2};
  spot.kind = InstrumentKind::kSpot;
  spot.gpu_hours_per_lot = 192;
  config.instruments = {future, spot};
  for (uint32_t a = 1; a <= 6; ++a) config.accounts.push_back({AccountId{a}});

  auto created = Engine::Create(config);
  if (!created.has_value()) {
    std::fprintf(stderr, "cfx-demo-engine: %s\n",
                 created.error().ToString().c_str());
    return 1;
  }
  Engine& engine = *created.value();

  const uint32_t kFut = 1, kSpot = 2;
  std::vector<Command> script = {
      // Providers list B200-STD node-days for 2 December.
      Order(4, kSpot, Side::kSell, 585, 4),
      Order(5, kSpot, Side::kSell, 590, 6),
      Order(6, kSpot, Side::kSell, 582, 2),
      // Traders bid; FIRM-A lifts the cheapest capacity.
      Order(2, kSpot, Side::kBuy, 575, 5),
      Order(1, kSpot, Side::kBuy, 586, 5),
      // December futures: a two-sided market, then a sweep.
      Order(4, kFut, Side::kSell, 583, 10),
      Order(5, kFut, Side::kSell, 584, 10),
      Order(2, kFut, Side::kBuy, 578, 15),
      Order(3, kFut, Side::kBuy, 579, 5),
      Order(1, kFut, Side::kBuy, 584, 12),
      // A buy above the price band ($5.80 + 10 %) is refused.
      Order(3, kFut, Side::kBuy, 700, 1),
      // PROV-C hedges: sells futures into the bids.
      Order(6, kFut, Side::kSell, 578, 8),
      // FIRM-C's buy would meet its own offer: self-trade prevention
      // cancels the newer order instead of trading.
      Order(3, kFut, Side::kSell, 581, 1),
      Order(3, kFut, Side::kBuy, 581, 1),
  };

  Printer printer;
  Event buffer[64];
  EventSink sink(buffer, 64, &Printer::Flush, &printer);
  std::printf("CFX engine demo: %zu orders from 6 firms on %s and %s\n",
              script.size(), printer.names.instrument[kFut],
              printer.names.instrument[kSpot]);
  int64_t ts = 1'796'083'200'000'000'000;  // 2026-12-01T00:00:00Z
  uint64_t seq = 0;
  for (Command& c : script) {
    c.seq = Seq{++seq};
    c.ts = Timestamp{ts += 1'000'000};
    engine.Apply(c, sink);
    sink.Flush();
  }
  PrintBook(engine, InstrumentId{kFut}, "XB2SZ6 (December 2026 future)");
  PrintBook(engine, InstrumentId{kSpot}, "B200-STD-20261202 (spot node-day)");
  std::printf(
      "\n%d trades, %d rejected, %zu orders resting, state hash %016" PRIx64
      "\n",
      printer.trades, printer.rejects, engine.resting_orders(),
      engine.StateHash());
  return 0;
}

}  // namespace
}  // namespace cfx::exchange

int main() { return cfx::exchange::Run(); }
