#pragma once

// A protobuf gateway (pb::Gateway) on loopback with an in-memory settlement
// service and a real matching engine behind it, but no journal: the
// commands the gateway submits are sequenced and applied on the gateway
// thread, and their events go to the gateway and the settlement service,
// as the exchange server does with durable events. Tests also feed the
// settlement service synthetic events (futures trades, the daily fixing)
// with the same seq counter. Every wait is bounded by a deadline.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "exchange/clock.h"
#include "exchange/core/engine.h"
#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "exchange/payload_arena.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/gateway.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway::settlement_test {

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kMinute = 60 * kSecond;
inline constexpr int64_t kHour = 3'600 * kSecond;
inline constexpr int64_t kDayNs = 24 * kHour;
// 2026-12-01, a Tuesday.
inline constexpr int64_t kDec1 = 20'788;

// Thread: the test thread calls everything; the gateway runs on its own
// thread, which is the only one that touches the gateway, the engine and
// the settlement service.
class SettlementGateway {
 public:
  // Starts listening on an ephemeral loopback port. Check ok() after.
  SettlementGateway();
  ~SettlementGateway();
  SettlementGateway(const SettlementGateway&) = delete;
  SettlementGateway& operator=(const SettlementGateway&) = delete;

  bool ok() const { return ok_; }
  uint16_t port() const { return gateway_->port(); }
  const ServerConfig& config() const { return config_; }

  // Runs `fn` on the gateway thread and waits for it (at most 10 s; false
  // when it did not run in time).
  bool RunOnGatewayThread(const std::function<void()>& fn);

  // The engine's collateral of `account` (micro-dollars), read on the
  // gateway thread; -1 when the read timed out.
  int64_t Collateral(std::string_view account);
  // Commands the gateway has handed to the engine so far.
  uint64_t CommandsApplied();

  // Feeds the settlement service (only) a futures trade of `symbol`:
  // `buyer` buys `lots` from `seller` at `price_units` at `ts_ns`.
  bool Trade(std::string_view symbol, int64_t ts_ns, int64_t price_units,
             int64_t lots, std::string_view buyer, std::string_view seller);
  // The fixing of `day` at the settlement instant: the day settles.
  bool Fix(int64_t day);
  // The settlement instant of `day`.
  int64_t SettleNs(int64_t day) const;

 private:
  bool Feed(exchange::Event e);
  void ApplyCommands();

  ServerConfig config_;
  asio::io_context io_;
  std::unique_ptr<InstrumentTable> instruments_;
  std::unique_ptr<MarketDataStore> market_data_;
  exchange::SpscRing<exchange::Command> ring_;
  exchange::PayloadArena arena_;
  exchange::SimulatedClock clock_;
  std::unique_ptr<exchange::Engine> engine_;
  std::unique_ptr<settlement::SettlementService> settlement_;
  std::unique_ptr<pb::Gateway> gateway_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  // Gateway thread only.
  uint64_t next_seq_ = 1;
  uint64_t applied_ = 0;
  // Test thread only.
  uint64_t next_trade_id_ = 1;
  bool ok_ = false;
};

}  // namespace cfx::gateway::settlement_test
