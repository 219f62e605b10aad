// BuildSettlementConfig (gateway/config/settlement_config.h): the exchange
// calendar of the config is the one settlement follows.
#include "gateway/config/settlement_config.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "exchange/core/event.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {
namespace {

using exchange::Event;
using exchange::EventType;

constexpr int64_t kHourNs = int64_t{3'600} * 1'000'000'000;
constexpr int64_t kDayNs = 24 * kHourNs;

ServerConfig Demo() {
  Result<ServerConfig> r = DefaultServerConfig();
  EXPECT_TRUE(r.has_value()) << r.error().message();
  return r.has_value() ? std::move(r).value() : ServerConfig();
}

int64_t Day(const char* date) { return ParseDay(date).value(); }

TEST(SettlementConfig, TheConfiguredHolidaysReachSettlement) {
  const ServerConfig demo = Demo();
  const settlement::SettlementConfig sc = BuildSettlementConfig(demo);
  EXPECT_EQ(sc.calendar.holidays(), demo.calendar.holidays());
  EXPECT_FALSE(sc.calendar.IsBusinessDay(Day("2026-12-25")));  // Christmas
  EXPECT_TRUE(sc.calendar.IsBusinessDay(Day("2026-12-24")));
}

// With the demo calendar: no run on Christmas 2026 (a Friday), and a fill
// on it belongs to Monday 2026-12-28.
TEST(SettlementConfig, NoRunOnAHolidayAndItsFillsBelongToTheNextBusinessDay) {
  const ServerConfig demo = Demo();
  auto svc =
      settlement::SettlementService::InMemory(BuildSettlementConfig(demo));
  uint64_t seq = 0;
  auto next = [&seq](EventType type, int64_t ts) {
    Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq};
    e.ts = exchange::Timestamp{ts};
    return e;
  };
  const int64_t christmas = Day("2026-12-25");
  Event trade = next(EventType::kTrade, christmas * kDayNs + 12 * kHourNs);
  trade.instrument = demo.FindInstrument("XB2SZ6")->id;
  trade.trade_id = exchange::TradeId{1};
  trade.side = exchange::Side::kBuy;
  trade.account = demo.FindAccount("FIRM-A")->id;
  trade.counter_account = demo.FindAccount("FIRM-C")->id;
  trade.price = exchange::Price{59'000};
  trade.quantity = exchange::Quantity{2};
  svc->OnEvent(trade);
  for (int64_t d = Day("2026-12-24"); d <= Day("2026-12-28"); ++d) {
    Event fixing = next(EventType::kIndexFixing, d * kDayNs + 21 * kHourNs);
    fixing.count = static_cast<uint32_t>(d);
    svc->OnEvent(fixing);
  }
  ASSERT_TRUE(svc->status().ok()) << svc->status().ToString();
  EXPECT_EQ(svc->SettledDates(),
            (std::vector<int64_t>{Day("2026-12-24"), Day("2026-12-28")}));
  EXPECT_EQ(svc->Report(Day("2026-12-24"))->fills, 0u);
  EXPECT_EQ(svc->Report(Day("2026-12-28"))->fills, 2u);
}

}  // namespace
}  // namespace cfx::gateway
