#pragma once

// An index configuration and engine event streams for the tests of the
// index's public feeds (HTTP here, FIX in tests/gateway/fix): spot trades
// and fixings as the sequencer and the engine emit them.

#include <cstdint>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "index/index_service.h"

namespace cfx::gateway::testing {

inline constexpr int64_t kIndexDay0 = 20'788;  // 2026-12-01
inline constexpr int64_t kHourNs = int64_t{3600} * 1'000'000'000;
// The spot instruments of the two grades (any ids outside the config's
// instruments: the index only maps them to grades).
inline constexpr uint32_t kStdSpot = 11;
inline constexpr uint32_t kPrmSpot = 12;
// Firm names the index knows and its public views must never show.
inline const std::vector<std::string>& IndexFirmNames() {
  static const std::vector<std::string> names = {
      "",           "SELLER-ONE", "SELLER-TWO", "SELLER-THREE",
      "BUYER-FOUR", "BUYER-FIVE", "BUYER-SIX"};
  return names;
}

// Grades B200-STD (0) and B200-PRM (1), each the other's Level 3
// reference; accounts 1-6 are firms 1-6, none affiliated.
inline index::IndexConfig IndexTestConfig() {
  index::IndexConfig c;
  c.grades = {"B200-STD", "B200-PRM"};
  c.gpu_hours_per_lot = {192, 192};
  c.reference_grade = {1, 0};
  c.instrument_grade.assign(kPrmSpot + 1, 0);
  c.instrument_grade[kStdSpot] = 1;
  c.instrument_grade[kPrmSpot] = 2;
  c.account_firm = {0, 1, 2, 3, 4, 5, 6};
  c.account_group = {0, 1, 2, 3, 4, 5, 6};
  c.firm_names = IndexFirmNames();
  return c;
}

// The fixing instant of `day`: 21:00 UTC.
inline int64_t IndexFixingNs(int64_t day) {
  return day * 24 * kHourNs + 21 * kHourNs;
}

// Builds durable engine events in seq order.
class IndexEventStream {
 public:
  // A spot trade: the buyer's order took the seller's. `price_units` is
  // the engine's price (USD x 10,000 per GPU-hour).
  void Trade(uint32_t instrument, int64_t ts_ns, int64_t price_units,
             int64_t lots, uint32_t seller, uint32_t buyer) {
    exchange::Event e = Next(exchange::EventType::kTrade, ts_ns);
    e.instrument = exchange::InstrumentId{instrument};
    e.trade_id = exchange::TradeId{++trade_id_};
    e.side = exchange::Side::kBuy;
    e.account = exchange::AccountId{buyer};
    e.counter_account = exchange::AccountId{seller};
    e.price = exchange::Price{price_units};
    e.quantity = exchange::Quantity{lots};
    e.count = 250'000;  // the seller's attested 250 tokens/s/GPU
    events_.push_back(e);
  }

  // Twelve trades of `instrument` in index day `day`, two in each 4 h
  // partition, sellers 1-3 and buyers 4-6, 2 lots each (4,608 GPU-hours),
  // prices from `base_units` up by cents: a Level 1a day.
  void LevelOneDay(uint32_t instrument, int64_t day, int64_t base_units) {
    const int64_t start = IndexFixingNs(day - 1);
    for (int k = 0; k < 12; ++k) {
      const int64_t ts = start + (k / 2) * 4 * kHourNs + (k % 2) * kHourNs;
      Trade(instrument, ts, base_units + (k % 5) * 100, 2,
            static_cast<uint32_t>(1 + k % 3), static_cast<uint32_t>(4 + k % 3));
    }
  }

  // A delivery failure of trade `trade_id` reported at `ts_ns`.
  void Bust(uint64_t trade_id, int64_t ts_ns) {
    exchange::Event e = Next(exchange::EventType::kTradeBusted, ts_ns);
    e.trade_id = exchange::TradeId{trade_id};
    events_.push_back(e);
  }

  // A Level 1a day of B200-STD restated twice: LevelOneDay() plus two
  // 20-lot trades far above it in partition 6 ($6.40, then $7.00), the
  // fixing, then a bust of each before 23:00 (30 and 60 minutes after the
  // fixing). Each bust moves partition 6's median, and the value by more
  // than 0.25 %: three revisions of `day`.
  void TwiceRestatedDay(int64_t day, int64_t base_units) {
    LevelOneDay(kStdSpot, day, base_units);
    Trade(kStdSpot, IndexFixingNs(day) - kHourNs / 2, base_units + 6'000, 20, 1,
          4);
    const uint64_t first = trade_id_;
    Trade(kStdSpot, IndexFixingNs(day) - kHourNs / 4, base_units + 12'000, 20,
          2, 5);
    Fixing(day);
    Bust(first, IndexFixingNs(day) + kHourNs / 2);
    Bust(first + 1, IndexFixingNs(day) + kHourNs);
  }

  // The sequencer's fixing of `day`, at its fixing instant.
  void Fixing(int64_t day) {
    exchange::Event e =
        Next(exchange::EventType::kIndexFixing, IndexFixingNs(day));
    e.count = static_cast<uint32_t>(day);
    events_.push_back(e);
  }

  // The events not yet taken, in seq order.
  std::vector<exchange::Event> Take() {
    std::vector<exchange::Event> out;
    out.swap(events_);
    return out;
  }

  uint64_t last_trade_id() const { return trade_id_; }

 private:
  exchange::Event Next(exchange::EventType type, int64_t ts_ns) {
    exchange::Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq_};
    e.ts = exchange::Timestamp{ts_ns};
    return e;
  }

  std::vector<exchange::Event> events_;
  uint64_t seq_ = 0;
  uint64_t trade_id_ = 0;
};

}  // namespace cfx::gateway::testing
