#pragma once

// A protobuf gateway (pb::Gateway) on loopback with an in-memory index
// service behind it and no engine: tests feed the index service sequenced
// events (spot trades, busts, fixings) on the gateway thread, exactly as the
// exchange server does with durable events, and talk to the gateway with
// the client library or the cfx tool. Every wait is bounded by a deadline.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "exchange/clock.h"
#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "exchange/payload_arena.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/gateway.h"
#include "index/index_service.h"

namespace cfx::gateway::index_test {

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kHour = 3'600 * kSecond;
inline constexpr int64_t kDayNs = 24 * kHour;

// Demo accounts (deploy/config/exchange.textproto): the buyers' firms
// FIRM-A..C and the sellers' PROV-A..C.
inline constexpr exchange::AccountId kFirmA{1};
inline constexpr exchange::AccountId kFirmB{2};
inline constexpr exchange::AccountId kFirmC{3};
inline constexpr exchange::AccountId kProvA{4};
inline constexpr exchange::AccountId kProvB{5};
inline constexpr exchange::AccountId kProvC{6};

// Grade indexes of the demo config.
inline constexpr uint32_t kStd = 0;  // B200-STD
inline constexpr uint32_t kPrm = 1;  // B200-PRM

// Thread: the test thread calls everything; the gateway runs on its own
// thread, which is the only one that touches the gateway and feeds the
// index service.
class IndexGateway {
 public:
  // Starts listening on an ephemeral loopback port. Check ok() after.
  IndexGateway();
  ~IndexGateway();
  IndexGateway(const IndexGateway&) = delete;
  IndexGateway& operator=(const IndexGateway&) = delete;

  bool ok() const { return ok_; }
  uint16_t port() const { return gateway_->port(); }
  const ServerConfig& config() const { return config_; }
  // Read it only while nothing is being fed.
  const index::IndexService& index() const { return *index_; }

  // Runs `fn` on the gateway thread and waits for it (at most 10 s; false
  // when it did not run in time).
  bool RunOnGatewayThread(const std::function<void()>& fn);

  // Feeds events to the index service on the gateway thread, each with the
  // next seq; new prints and restatements reach the gateway's sessions.
  // The trade's match time is `ts_ns`; `price_units` is on the exchange's
  // 1/10,000 USD grid.
  bool Trade(uint64_t trade_id, int64_t ts_ns, uint32_t grade,
             exchange::AccountId seller, exchange::AccountId buyer,
             int64_t price_units, int64_t lots,
             uint32_t seller_milli_tokens = 300'000);
  bool Bust(uint64_t trade_id, int64_t ts_ns);
  // The fixing of `day` (days since 1970-01-01), at its fixing time.
  bool Fix(int64_t day);

  // The fixing instant of `day`.
  int64_t FixingNs(int64_t day) const;

 private:
  bool Feed(exchange::Event e);

  ServerConfig config_;
  asio::io_context io_;
  std::unique_ptr<InstrumentTable> instruments_;
  std::unique_ptr<MarketDataStore> market_data_;
  exchange::SpscRing<exchange::Command> ring_;
  exchange::PayloadArena arena_;
  exchange::SimulatedClock clock_;
  std::unique_ptr<index::IndexService> index_;
  std::unique_ptr<pb::Gateway> gateway_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  uint64_t next_seq_ = 1;
  bool ok_ = false;
};

// Twelve trades of `grade` in day `day`, two in each 4-hour partition, 2
// lots each, between the three sellers and three buyers, priced around
// `price_units`; trade ids first_id, first_id + 1, ...
bool TradeADay(IndexGateway& gw, int64_t day, uint32_t grade,
               int64_t price_units, uint64_t first_id);

// A Level 1 day of B200-STD restated twice: TradeADay() at $6.00 (ids
// first_id to first_id + 11) plus two 20-lot trades far above it in
// partition 6 (first_id + 12 at $6.60, first_id + 13 at $7.20), the fixing,
// and a bust of each 30 and 60 minutes after it; each bust moves partition
// 6's median, and the value by more than 0.25 %: three revisions.
bool TwiceRestatedDay(IndexGateway& gw, int64_t day, uint64_t first_id);

}  // namespace cfx::gateway::index_test
