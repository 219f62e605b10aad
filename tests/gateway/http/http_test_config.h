#pragma once

// A small ServerConfig and a fixed event stream shared by the HTTP tests,
// so their expected JSON can be written out in full.

#include <cstdint>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"

namespace cfx::gateway::testing {

// 2026-12-01T00:00:00Z.
inline constexpr int64_t kT0 = int64_t{1'796'083'200} * 1'000'000'000;

// XB2SZ6 (open, ref $5.80) and XB2SF7 (pre-open, ref $6.00), with two
// firms, accounts and users whose names must never reach /metrics.
inline ServerConfig HttpTestConfig() {
  ServerConfig c;
  struct Spec {
    const char* symbol;
    const char* maturity;
    const char* last_trading_day;
    int64_t reference;
    exchange::InstrumentState state;
  };
  const Spec specs[] = {
      {"XB2SZ6", "2026-12", "2026-12-31", 58'000,
       exchange::InstrumentState::kOpen},
      {"XB2SF7", "2027-01", "2027-01-29", 60'000,
       exchange::InstrumentState::kPreOpen},
  };
  uint32_t id = 0;
  for (const Spec& s : specs) {
    ++id;
    exchange::InstrumentConfig ic;
    ic.id = exchange::InstrumentId{id};
    ic.reference_price = exchange::Price{s.reference};
    ic.initial_state = s.state;
    c.engine.instruments.push_back(ic);
    InstrumentInfo info;
    info.id = exchange::InstrumentId{id};
    info.symbol = s.symbol;
    info.kind = exchange::InstrumentKind::kFuture;
    info.grade = "B200-STD";
    info.root = "XB2S";
    info.contract_gpu_hours = 730;
    info.maturity = s.maturity;
    info.last_trading_day = s.last_trading_day;
    c.instruments.push_back(info);
  }
  c.firms = {{"FIRM-ALPHA", ""}, {"PROV-BETA", ""}};
  c.clearing_members = {{"CM-GAMMA", "CM-GAMMA"}};
  for (uint32_t i = 1; i <= 2; ++i) {
    AccountInfo a;
    a.id = exchange::AccountId{i};
    a.name = i == 1 ? "ACCT-ALPHA-1" : "ACCT-BETA-1";
    a.firm = i == 1 ? "FIRM-ALPHA" : "PROV-BETA";
    a.clearing_member = "CM-GAMMA";
    c.accounts.push_back(a);
    c.engine.accounts.push_back({exchange::AccountId{i}});
    UserConfig u;
    u.name = i == 1 ? "trader-alpha" : "provider-beta";
    u.firm = a.firm;
    u.role = i == 1 ? Role::kTrader : Role::kProvider;
    u.account = a.id;
    u.fix_sender_comp_id = i == 1 ? "TRADER_ALPHA" : "PROVIDER_BETA";
    u.api_keys = {ApiKey::Hmac(i == 1 ? "key-alpha" : "key-beta", "secret")};
    c.users.push_back(u);
  }
  c.RebuildIndex();
  return c;
}

// Names from HttpTestConfig() that identify firms, accounts or users.
inline std::vector<std::string> PrivateNames(const ServerConfig& c) {
  std::vector<std::string> names;
  for (const auto& f : c.firms) names.push_back(f.name);
  for (const auto& a : c.accounts) names.push_back(a.name);
  for (const auto& u : c.users) {
    names.push_back(u.name);
    names.push_back(u.fix_sender_comp_id);
    for (const auto& k : u.api_keys) names.push_back(k.id);
  }
  for (const auto& m : c.clearing_members) names.push_back(m.name);
  return names;
}

// Leaves XB2SZ6 with bids 5.79 x3 (1 order), 5.78 x3 (1); asks 5.81 x3 (1);
// trades #1 (seq 4, 1 @ 5.81, buy) and #2 (seq 6, 2 @ 5.79, sell);
// reference 5.8125; last seq 6. XB2SF7 stays empty.
inline void FeedSampleEvents(MarketDataStore& md) {
  using exchange::Event;
  using exchange::EventType;
  using exchange::Side;
  const exchange::InstrumentId z6{1};
  auto level = [&](uint64_t seq, Side side, int64_t price, int64_t lots,
                   uint32_t orders) {
    Event e;
    e.seq = exchange::Seq{seq};
    e.ts = exchange::Timestamp{kT0};
    e.type = EventType::kBookLevel;
    e.instrument = z6;
    e.side = side;
    e.price = exchange::Price{price};
    e.quantity = exchange::Quantity{lots};
    e.count = orders;
    md.OnEvent(e);
  };
  auto trade = [&](uint64_t seq, int64_t ts, uint64_t id, int64_t price,
                   int64_t lots, Side aggressor) {
    Event e;
    e.seq = exchange::Seq{seq};
    e.ts = exchange::Timestamp{ts};
    e.type = EventType::kTrade;
    e.instrument = z6;
    e.trade_id = exchange::TradeId{id};
    e.side = aggressor;
    e.price = exchange::Price{price};
    e.quantity = exchange::Quantity{lots};
    e.account = exchange::AccountId{1};
    e.counter_account = exchange::AccountId{2};
    md.OnEvent(e);
  };
  level(1, Side::kBuy, 57'900, 5, 2);
  level(2, Side::kBuy, 57'800, 3, 1);
  level(3, Side::kSell, 58'100, 4, 1);
  trade(4, kT0 + 1'000'000'123, 1, 58'100, 1, Side::kBuy);
  level(4, Side::kSell, 58'100, 3, 1);
  Event ref;
  ref.seq = exchange::Seq{5};
  ref.type = EventType::kReferencePriceSet;
  ref.instrument = z6;
  ref.price = exchange::Price{58'125};
  md.OnEvent(ref);
  trade(6, kT0 + 2'500'000'000, 2, 57'900, 2, Side::kSell);
  level(6, Side::kBuy, 57'900, 3, 1);
}

inline constexpr char kInstrumentsJson[] =
    R"({"seq":6,"instruments":[)"
    R"({"symbol":"XB2SZ6","kind":"future","grade":"B200-STD","root":"XB2S",)"
    R"("contract_gpu_hours":730,"maturity":"2026-12",)"
    R"("last_trading_day":"2026-12-31","tick":"0.01","min_quantity":1,)"
    R"("max_quantity":1000,"price_band_bps":1000,"reference_price":"5.8125",)"
    R"("state":"open","best_bid":"5.79","best_ask":"5.81",)"
    R"("last_price":"5.79","volume":3},)"
    R"({"symbol":"XB2SF7","kind":"future","grade":"B200-STD","root":"XB2S",)"
    R"("contract_gpu_hours":730,"maturity":"2027-01",)"
    R"("last_trading_day":"2027-01-29","tick":"0.01","min_quantity":1,)"
    R"("max_quantity":1000,"price_band_bps":1000,"reference_price":"6.00",)"
    R"("state":"pre_open","best_bid":null,"best_ask":null,)"
    R"("last_price":null,"volume":0}]})";

inline constexpr char kBookJson[] =
    R"({"symbol":"XB2SZ6","seq":6,"state":"open",)"
    R"("bids":[{"price":"5.79","quantity":3,"orders":1},)"
    R"({"price":"5.78","quantity":3,"orders":1}],)"
    R"("asks":[{"price":"5.81","quantity":3,"orders":1}]})";

inline constexpr char kTradesJson[] =
    R"({"symbol":"XB2SZ6","trades":[)"
    R"({"trade_id":1,"seq":4,"time":"2026-12-01T00:00:01.000000123Z",)"
    R"("price":"5.81","quantity":1,"aggressor":"buy"},)"
    R"({"trade_id":2,"seq":6,"time":"2026-12-01T00:00:02.500000000Z",)"
    R"("price":"5.79","quantity":2,"aggressor":"sell"}]})";

}  // namespace cfx::gateway::testing
