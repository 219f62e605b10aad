#include "gateway/config/instrument_table.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {
namespace {

using exchange::Event;
using exchange::EventType;
using exchange::InstrumentId;
using exchange::InstrumentState;

constexpr int64_t kDec2 = 20'789;  // 2026-12-02, days since 1970-01-01

// The shipped config: 24 futures (ids 1-24), then 8 spot slots of B200-STD
// (25-32) and 8 of B200-PRM (33-40).
ServerConfig Config() {
  auto c = DefaultServerConfig();
  if (!c.has_value()) std::abort();
  return std::move(c).value();
}

Event Listed(InstrumentId slot, int64_t day, uint64_t seq = 1) {
  Event e;
  e.seq = exchange::Seq{seq};
  e.type = EventType::kInstrumentListed;
  e.instrument = slot;
  e.state = InstrumentState::kOpen;
  e.price = exchange::Price{58'000};
  e.count = static_cast<uint32_t>(day);
  return e;
}

Event Expired(InstrumentId slot, uint64_t seq = 2) {
  Event e;
  e.seq = exchange::Seq{seq};
  e.type = EventType::kInstrumentStateChanged;
  e.instrument = slot;
  e.state = InstrumentState::kExpired;
  return e;
}

std::vector<std::string> Symbols(const InstrumentTable& t) {
  std::vector<std::string> out;
  t.ForEach([&](const InstrumentInfo& i) { out.push_back(i.symbol); });
  return out;
}

class InstrumentTableTest : public ::testing::Test {
 protected:
  InstrumentTableTest() : config_(Config()), table_(config_) {}

  InstrumentId Slot(std::size_t grade, uint32_t k) const {
    return InstrumentId{config_.spot.first_slot.at(grade).value + k};
  }

  ServerConfig config_;
  InstrumentTable table_;
};

TEST(SpotSymbol, IsGradeDashYearMonthDay) {
  EXPECT_EQ(SpotSymbol("B200-STD", 20'792), "B200-STD-20261205");
  EXPECT_EQ(SpotSymbol("B200-PRM", 0), "B200-PRM-19700101");
  EXPECT_EQ(SpotSymbol("G", 21'243), "G-20280229");
}

TEST(FormatDay, IsIsoDate) {
  EXPECT_EQ(FormatDay(0), "1970-01-01");
  EXPECT_EQ(FormatDay(11'017), "2000-03-01");
  EXPECT_EQ(FormatDay(21'243), "2028-02-29");
  EXPECT_EQ(FormatDay(2'932'896), "9999-12-31");
}

TEST_F(InstrumentTableTest, FuturesResolveFromTheStart) {
  const InstrumentInfo* z6 = table_.Find("XB2SZ6");
  ASSERT_NE(z6, nullptr);
  EXPECT_EQ(z6->id, config_.FindInstrument("XB2SZ6")->id);
  EXPECT_EQ(table_.Get(z6->id), z6);
  EXPECT_EQ(z6->kind, exchange::InstrumentKind::kFuture);
  EXPECT_EQ(z6->maturity, "2026-12");
}

TEST_F(InstrumentTableTest, SlotsAreUnknownUntilListed) {
  ASSERT_EQ(config_.spot.first_slot.size(), 2u);
  EXPECT_EQ(table_.Get(Slot(0, 0)), nullptr);
  EXPECT_EQ(table_.Find("B200-STD-20261202"), nullptr);
  // Only the 24 futures are listed.
  const std::vector<std::string> symbols = Symbols(table_);
  ASSERT_EQ(symbols.size(), 24u);
  EXPECT_EQ(symbols.front(), "XB2SZ6");
}

TEST_F(InstrumentTableTest, ListingNamesTheSlot) {
  const InstrumentId slot = Slot(0, kDec2 % 8);
  table_.OnEvent(Listed(slot, kDec2));
  const InstrumentInfo* info = table_.Find("B200-STD-20261202");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->id, slot);
  EXPECT_EQ(table_.Get(slot), info);
  EXPECT_EQ(info->kind, exchange::InstrumentKind::kSpot);
  EXPECT_EQ(info->grade, "B200-STD");
  EXPECT_EQ(info->delivery_date, "2026-12-02");
  EXPECT_EQ(info->last_trading_day, "2026-12-01");
  EXPECT_EQ(info->contract_gpu_hours, 192);
  // Listed in id order after the futures; the other slots stay out.
  const std::vector<std::string> symbols = Symbols(table_);
  ASSERT_EQ(symbols.size(), 25u);
  EXPECT_EQ(symbols.back(), "B200-STD-20261202");
}

TEST_F(InstrumentTableTest, ExpiredListingResolvesUntilTheSlotIsListedAgain) {
  const InstrumentId slot = Slot(0, kDec2 % 8);
  table_.OnEvent(Listed(slot, kDec2, 1));
  table_.OnEvent(Expired(slot, 2));
  const InstrumentInfo* info = table_.Find("B200-STD-20261202");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->id, slot);
  EXPECT_EQ(table_.Get(slot)->symbol, "B200-STD-20261202");

  // Eight days later the same slot holds 2026-12-10.
  table_.OnEvent(Listed(slot, kDec2 + 8, 3));
  EXPECT_EQ(table_.Find("B200-STD-20261202"), nullptr);
  const InstrumentInfo* next = table_.Find("B200-STD-20261210");
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->id, slot);
  EXPECT_EQ(table_.Get(slot), next);
  EXPECT_EQ(next->delivery_date, "2026-12-10");
  EXPECT_EQ(next->last_trading_day, "2026-12-09");
  EXPECT_EQ(Symbols(table_).size(), 25u);
}

TEST_F(InstrumentTableTest, GradesListTheirOwnSlots) {
  table_.OnEvent(Listed(Slot(0, kDec2 % 8), kDec2));
  table_.OnEvent(Listed(Slot(1, kDec2 % 8), kDec2));
  const InstrumentInfo* std_day = table_.Find("B200-STD-20261202");
  const InstrumentInfo* prm_day = table_.Find("B200-PRM-20261202");
  ASSERT_NE(std_day, nullptr);
  ASSERT_NE(prm_day, nullptr);
  EXPECT_NE(std_day->id, prm_day->id);
  EXPECT_EQ(prm_day->grade, "B200-PRM");
}

TEST_F(InstrumentTableTest, FuturesAreUnaffectedByListings) {
  const InstrumentInfo* z6 = table_.Find("XB2SZ6");
  ASSERT_NE(z6, nullptr);
  // A listing event naming a future (which the engine never emits) changes
  // nothing.
  table_.OnEvent(Listed(z6->id, kDec2));
  EXPECT_EQ(table_.Find("XB2SZ6"), z6);
  EXPECT_EQ(z6->symbol, "XB2SZ6");
  EXPECT_EQ(table_.Find("B200-STD-20261202"), nullptr);
  for (uint32_t k = 0; k < 8; ++k) {
    table_.OnEvent(Listed(Slot(0, k), kDec2 + k));
  }
  EXPECT_EQ(table_.Find("XB2SZ6"), z6);
  const InstrumentInfo* x7 = table_.Find("XB2PX7");
  ASSERT_NE(x7, nullptr);
  EXPECT_EQ(x7->symbol, "XB2PX7");
  EXPECT_EQ(Symbols(table_).size(), 32u);
}

TEST_F(InstrumentTableTest, UnknownSymbolsAndIds) {
  EXPECT_EQ(table_.Find(""), nullptr);
  EXPECT_EQ(table_.Find("XB2SZ7"), nullptr);
  EXPECT_EQ(table_.Find("B200-STD-2026120"), nullptr);
  EXPECT_EQ(table_.Get(InstrumentId{0}), nullptr);
  EXPECT_EQ(table_.Get(InstrumentId{41}), nullptr);
  // Events for ids the config lacks are ignored.
  table_.OnEvent(Listed(InstrumentId{41}, kDec2));
  table_.OnEvent(Listed(InstrumentId{0}, kDec2));
  EXPECT_EQ(Symbols(table_).size(), 24u);
}

}  // namespace
}  // namespace cfx::gateway
