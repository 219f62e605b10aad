#include "gateway/md/market_data.h"

#include <gtest/gtest.h>

#include <vector>

#include "exchange/core/event.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {
namespace {

using exchange::Event;
using exchange::EventType;
using exchange::InstrumentId;
using exchange::InstrumentState;
using exchange::Price;
using exchange::Quantity;
using exchange::Side;

constexpr InstrumentId kZ6{1};
constexpr InstrumentId kF7{2};

ServerConfig TwoInstruments() {
  ServerConfig config;
  const char* symbols[] = {"XB2SZ6", "XB2SF7"};
  for (uint32_t i = 1; i <= 2; ++i) {
    exchange::InstrumentConfig ic;
    ic.id = InstrumentId{i};
    ic.reference_price = Price{58'000 + int64_t{i}};
    ic.initial_state =
        i == 1 ? InstrumentState::kOpen : InstrumentState::kPreOpen;
    config.engine.instruments.push_back(ic);
    InstrumentInfo info;
    info.id = InstrumentId{i};
    info.symbol = symbols[i - 1];
    config.instruments.push_back(info);
  }
  config.RebuildIndex();
  return config;
}

Event Level(uint64_t seq, InstrumentId id, Side side, int64_t price,
            int64_t lots, uint32_t orders) {
  Event e;
  e.seq = exchange::Seq{seq};
  e.type = EventType::kBookLevel;
  e.instrument = id;
  e.side = side;
  e.price = Price{price};
  e.quantity = Quantity{lots};
  e.count = orders;
  return e;
}

Event Trade(uint64_t seq, InstrumentId id, uint64_t trade_id, int64_t price,
            int64_t lots, Side aggressor) {
  Event e;
  e.seq = exchange::Seq{seq};
  e.ts = exchange::Timestamp{int64_t{1'796'083'200'000'000'000} +
                             static_cast<int64_t>(seq)};
  e.type = EventType::kTrade;
  e.instrument = id;
  e.trade_id = exchange::TradeId{trade_id};
  e.price = Price{price};
  e.quantity = Quantity{lots};
  e.side = aggressor;
  // Private fields the store must not need.
  e.account = exchange::AccountId{7};
  e.counter_account = exchange::AccountId{8};
  return e;
}

std::vector<BookLevel> Levels(const MarketDataStore& md, InstrumentId id,
                              Side side, std::size_t max = 0) {
  std::vector<BookLevel> out;
  md.Levels(id, side, max, &out);
  return out;
}

std::vector<uint64_t> TradeIds(const MarketDataStore& md, InstrumentId id,
                               std::size_t max) {
  std::vector<TradeRecord> trades;
  md.RecentTrades(id, max, &trades);
  std::vector<uint64_t> ids;
  for (const auto& t : trades) ids.push_back(t.id.value);
  return ids;
}

TEST(MarketDataStore, StartsFromTheEngineConfig) {
  const MarketDataStore md(TwoInstruments());
  EXPECT_EQ(md.state(kZ6), InstrumentState::kOpen);
  EXPECT_EQ(md.state(kF7), InstrumentState::kPreOpen);
  EXPECT_EQ(md.reference_price(kZ6), Price{58'001});
  EXPECT_EQ(md.last_price(kZ6), Price{0});
  EXPECT_EQ(md.volume(kZ6), Quantity{0});
  EXPECT_EQ(md.last_seq(), exchange::Seq{0});
  EXPECT_TRUE(Levels(md, kZ6, Side::kBuy).empty());
  EXPECT_TRUE(TradeIds(md, kZ6, 10).empty());
}

TEST(MarketDataStore, BookLevelAddsUpdatesAndRemovesALevel) {
  MarketDataStore md(TwoInstruments());
  md.OnEvent(Level(1, kZ6, Side::kBuy, 57'900, 5, 1));
  auto bids = Levels(md, kZ6, Side::kBuy);
  ASSERT_EQ(bids.size(), 1u);
  EXPECT_EQ(bids[0].price, Price{57'900});
  EXPECT_EQ(bids[0].quantity, Quantity{5});
  EXPECT_EQ(bids[0].order_count, 1u);

  md.OnEvent(Level(2, kZ6, Side::kBuy, 57'900, 12, 3));
  bids = Levels(md, kZ6, Side::kBuy);
  ASSERT_EQ(bids.size(), 1u);
  EXPECT_EQ(bids[0].quantity, Quantity{12});
  EXPECT_EQ(bids[0].order_count, 3u);

  md.OnEvent(Level(3, kZ6, Side::kBuy, 57'900, 0, 0));
  EXPECT_TRUE(Levels(md, kZ6, Side::kBuy).empty());
  EXPECT_EQ(md.last_seq(), exchange::Seq{3});
}

TEST(MarketDataStore, OnEventReturnsTheLevelChangeItApplied) {
  MarketDataStore md(TwoInstruments());
  EXPECT_EQ(md.OnEvent(Level(1, kZ6, Side::kSell, 58'100, 5, 1)),
            BookLevelChange::kNew);
  EXPECT_EQ(md.OnEvent(Level(2, kZ6, Side::kSell, 58'100, 7, 2)),
            BookLevelChange::kChange);
  EXPECT_EQ(md.OnEvent(Level(3, kZ6, Side::kSell, 58'100, 0, 0)),
            BookLevelChange::kDelete);
  EXPECT_EQ(md.OnEvent(Level(4, kZ6, Side::kSell, 58'100, 3, 1)),
            BookLevelChange::kNew);
  EXPECT_EQ(md.OnEvent(Level(5, exchange::InstrumentId{99}, Side::kSell, 58'100,
                             3, 1)),
            BookLevelChange::kNone);
}

TEST(MarketDataStore, LevelsAreBestFirstAndCapped) {
  MarketDataStore md(TwoInstruments());
  uint64_t seq = 0;
  for (const int64_t p : {57'800, 58'000, 57'900}) {
    md.OnEvent(Level(++seq, kZ6, Side::kBuy, p, 1, 1));
  }
  for (const int64_t p : {58'300, 58'100, 58'200}) {
    md.OnEvent(Level(++seq, kZ6, Side::kSell, p, 2, 1));
  }
  const auto bids = Levels(md, kZ6, Side::kBuy);
  ASSERT_EQ(bids.size(), 3u);
  EXPECT_EQ(bids[0].price, Price{58'000});
  EXPECT_EQ(bids[1].price, Price{57'900});
  EXPECT_EQ(bids[2].price, Price{57'800});
  const auto asks = Levels(md, kZ6, Side::kSell);
  ASSERT_EQ(asks.size(), 3u);
  EXPECT_EQ(asks[0].price, Price{58'100});
  EXPECT_EQ(asks[1].price, Price{58'200});
  EXPECT_EQ(asks[2].price, Price{58'300});

  const auto top2 = Levels(md, kZ6, Side::kSell, 2);
  ASSERT_EQ(top2.size(), 2u);
  EXPECT_EQ(top2[1].price, Price{58'200});
  // The other instrument's book is separate.
  EXPECT_TRUE(Levels(md, kF7, Side::kBuy).empty());
  // Side kNone has no levels.
  EXPECT_TRUE(Levels(md, kZ6, Side::kNone).empty());
}

TEST(MarketDataStore, TradesSetLastPriceAndVolume) {
  MarketDataStore md(TwoInstruments());
  md.OnEvent(Trade(5, kZ6, 1, 58'000, 3, Side::kBuy));
  md.OnEvent(Trade(6, kZ6, 2, 58'125, 4, Side::kSell));
  EXPECT_EQ(md.last_price(kZ6), Price{58'125});
  EXPECT_EQ(md.volume(kZ6), Quantity{7});
  EXPECT_EQ(md.volume(kF7), Quantity{0});

  std::vector<TradeRecord> trades;
  md.RecentTrades(kZ6, 10, &trades);
  ASSERT_EQ(trades.size(), 2u);
  EXPECT_EQ(trades[0].id, exchange::TradeId{1});
  EXPECT_EQ(trades[0].seq, exchange::Seq{5});
  EXPECT_EQ(trades[0].aggressor, Side::kBuy);
  EXPECT_EQ(trades[1].price, Price{58'125});
  EXPECT_EQ(trades[1].quantity, Quantity{4});
  EXPECT_EQ(trades[1].aggressor, Side::kSell);
  EXPECT_EQ(trades[1].ts.nanos, int64_t{1'796'083'200'000'000'006});
}

TEST(MarketDataStore, TradeRingKeepsTheMostRecentOldestFirst) {
  MarketDataStore md(TwoInstruments(), /*trades_kept=*/3);
  for (uint64_t i = 1; i <= 7; ++i) {
    md.OnEvent(Trade(i, kZ6, i, 58'000, 1, Side::kBuy));
  }
  EXPECT_EQ(TradeIds(md, kZ6, 10), (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_EQ(TradeIds(md, kZ6, 2), (std::vector<uint64_t>{6, 7}));
  EXPECT_EQ(TradeIds(md, kZ6, 0), (std::vector<uint64_t>{}));
  // Volume counts every trade, not only the kept ones.
  EXPECT_EQ(md.volume(kZ6), Quantity{7});
}

TEST(MarketDataStore, TradeRingBeforeItIsFull) {
  MarketDataStore md(TwoInstruments(), /*trades_kept=*/5);
  for (uint64_t i = 1; i <= 3; ++i) {
    md.OnEvent(Trade(i, kZ6, i, 58'000, 1, Side::kBuy));
  }
  EXPECT_EQ(TradeIds(md, kZ6, 10), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(TradeIds(md, kZ6, 1), (std::vector<uint64_t>{3}));
}

TEST(MarketDataStore, KeepingNoTradesStillCountsVolume) {
  MarketDataStore md(TwoInstruments(), /*trades_kept=*/0);
  md.OnEvent(Trade(1, kZ6, 1, 58'000, 2, Side::kBuy));
  EXPECT_TRUE(TradeIds(md, kZ6, 10).empty());
  EXPECT_EQ(md.volume(kZ6), Quantity{2});
  EXPECT_EQ(md.last_price(kZ6), Price{58'000});
}

TEST(MarketDataStore, StateAndReferencePriceEvents) {
  MarketDataStore md(TwoInstruments());
  Event state;
  state.seq = exchange::Seq{10};
  state.type = EventType::kInstrumentStateChanged;
  state.instrument = kF7;
  state.state = InstrumentState::kHalted;
  md.OnEvent(state);
  Event ref;
  ref.seq = exchange::Seq{11};
  ref.type = EventType::kReferencePriceSet;
  ref.instrument = kF7;
  ref.price = Price{61'250};
  md.OnEvent(ref);
  EXPECT_EQ(md.state(kF7), InstrumentState::kHalted);
  EXPECT_EQ(md.reference_price(kF7), Price{61'250});
  EXPECT_EQ(md.state(kZ6), InstrumentState::kOpen);
  EXPECT_EQ(md.last_seq(), exchange::Seq{11});
}

TEST(MarketDataStore, ListingStartsTheInstrumentAfresh) {
  // kF7 stands in for a spot slot: its previous listing traded, left a level
  // and expired; the new listing starts with an empty book at its reference.
  MarketDataStore md(TwoInstruments());
  md.OnEvent(Level(1, kF7, Side::kBuy, 58'000, 2, 1));
  md.OnEvent(Trade(2, kF7, 1, 58'000, 1, Side::kSell));
  Event expired;
  expired.seq = exchange::Seq{3};
  expired.type = EventType::kInstrumentStateChanged;
  expired.instrument = kF7;
  expired.state = InstrumentState::kExpired;
  md.OnEvent(expired);
  EXPECT_EQ(md.state(kF7), InstrumentState::kExpired);
  Event listed;
  listed.seq = exchange::Seq{4};
  listed.type = EventType::kInstrumentListed;
  listed.instrument = kF7;
  listed.state = InstrumentState::kOpen;
  listed.price = Price{59'000};
  listed.count = 20'797;
  md.OnEvent(listed);
  EXPECT_EQ(md.state(kF7), InstrumentState::kOpen);
  EXPECT_EQ(md.reference_price(kF7), Price{59'000});
  EXPECT_EQ(md.last_price(kF7), Price{0});
  EXPECT_EQ(md.volume(kF7), Quantity{0});
  EXPECT_TRUE(Levels(md, kF7, Side::kBuy).empty());
  EXPECT_TRUE(TradeIds(md, kF7, 10).empty());
  md.OnEvent(Trade(5, kF7, 2, 59'000, 3, Side::kBuy));
  EXPECT_EQ(TradeIds(md, kF7, 10), std::vector<uint64_t>{2});
  EXPECT_EQ(md.volume(kF7), Quantity{3});
  EXPECT_EQ(md.state(kZ6), InstrumentState::kOpen);
}

TEST(MarketDataStore, UnknownInstrumentIsIgnored) {
  MarketDataStore md(TwoInstruments());
  for (const uint32_t id : {0u, 3u, 1'000u, 4'000'000'000u}) {
    const InstrumentId unknown{id};
    md.OnEvent(Level(1, unknown, Side::kBuy, 58'000, 1, 1));
    md.OnEvent(Trade(2, unknown, 1, 58'000, 1, Side::kBuy));
    Event state;
    state.type = EventType::kInstrumentStateChanged;
    state.instrument = unknown;
    state.state = InstrumentState::kHalted;
    md.OnEvent(state);
    EXPECT_TRUE(Levels(md, unknown, Side::kBuy).empty());
    EXPECT_TRUE(TradeIds(md, unknown, 10).empty());
    EXPECT_EQ(md.state(unknown), InstrumentState::kNone);
    EXPECT_EQ(md.reference_price(unknown), Price{0});
    EXPECT_EQ(md.last_price(unknown), Price{0});
    EXPECT_EQ(md.volume(unknown), Quantity{0});
  }
  EXPECT_TRUE(Levels(md, kZ6, Side::kBuy).empty());
  EXPECT_EQ(md.volume(kZ6), Quantity{0});
}

TEST(MarketDataStore, PrivateEventsOnlyAdvanceTheSeq) {
  MarketDataStore md(TwoInstruments());
  Event accepted;
  accepted.seq = exchange::Seq{42};
  accepted.type = EventType::kOrderAccepted;
  accepted.instrument = kZ6;
  accepted.side = Side::kBuy;
  accepted.price = Price{58'000};
  accepted.quantity = Quantity{5};
  md.OnEvent(accepted);
  EXPECT_EQ(md.last_seq(), exchange::Seq{42});
  EXPECT_TRUE(Levels(md, kZ6, Side::kBuy).empty());
  EXPECT_EQ(md.volume(kZ6), Quantity{0});
}

TEST(MarketDataStore, OutputIsReplacedNotAppended) {
  MarketDataStore md(TwoInstruments());
  md.OnEvent(Level(1, kZ6, Side::kBuy, 58'000, 1, 1));
  std::vector<BookLevel> out(5);
  md.Levels(kZ6, Side::kBuy, 0, &out);
  EXPECT_EQ(out.size(), 1u);
  std::vector<TradeRecord> trades(5);
  md.RecentTrades(kZ6, 10, &trades);
  EXPECT_TRUE(trades.empty());
}

}  // namespace
}  // namespace cfx::gateway
