#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/spsc_ring.h"
#include "gateway/config/server_config.h"
#include "index/index_service.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {

// The exchange's two services as one consumer of the durable event stream:
// the CFX index (DESIGN.md §4; store <data_dir>/index) and clearing and
// settlement (DESIGN.md §5; ledger <data_dir>/settlement), and what they
// send back: each new print to the gateways, and to the engine, as
// sequenced commands, each fixing's spot reference price and each
// settlement run's prices, expiries and collateral bookings.
//
// Thread: one thread calls everything (the gateway thread). Memory: the
// services allocate as they apply events; the engine commands wait in a
// deque for room in the ring.
class ServiceFeed {
 public:
  using LogFn = std::function<void(const std::string&)>;

  // Opens both services' stores under `data_dir`; their errors otherwise.
  // `log` gets one line per store failure, settlement stop and resume; it
  // must remain live while the feed is.
  static Result<std::unique_ptr<ServiceFeed>> Open(const ServerConfig& config,
                                                   const std::string& data_dir,
                                                   LogFn log);
  ServiceFeed(const ServiceFeed&) = delete;
  ServiceFeed& operator=(const ServiceFeed&) = delete;

  index::IndexService& index() { return *index_; }
  settlement::SettlementService& settlement() { return *settlement_; }

  // One durable event, in seq order: the index first, then settlement,
  // because a last trading day's final settlement reads the day's fixing.
  void OnEvent(const exchange::Event& e) {
    index_->OnEvent(e);
    settlement_->OnEvent(e);
  }

  // After the start-up replay: writes the index store. Its error is fatal.
  Status FlushReplay() { return index_->Flush(); }
  // Logs where both services stand and connects their outputs: from now on
  // every new print and restatement goes to `publish_print` and its spot
  // references to the engine, every settlement run to the engine; what the
  // replay derived but the engine may not have applied is queued first.
  void GoLive(std::function<void(const index::Print&)> publish_print);
  // After a batch of live events: writes the index store (a failure is
  // logged once and retried with the next batch; a restart catches up from
  // the journal) and, when `check_settlement`, logs a settlement stop or
  // resume once.
  void AfterBatch(bool check_settlement);
  // Pushes the queued engine commands into `ring` while it has room;
  // returns how many.
  int SubmitEngineCommands(exchange::SpscRing<exchange::Command>& ring);

 private:
  ServiceFeed(std::unique_ptr<index::IndexService> index,
              std::unique_ptr<settlement::SettlementService> settlement,
              LogFn log);
  void QueueSettlement(const settlement::RunResult& r, bool prices);
  void QueueSpotReference(const index::Print& print);
  void CheckSettlement();
  void Log(const std::string& line) const {
    if (log_) log_(line);
  }

  std::unique_ptr<index::IndexService> index_;
  std::unique_ptr<settlement::SettlementService> settlement_;
  LogFn log_;
  // The seq through which the settlement service loaded its stored state:
  // the replay feeds it only the later events.
  uint64_t settlement_from_ = 0;
  bool index_flush_failed_ = false;
  bool settlement_failed_ = false;
  bool settlement_store_failed_ = false;
  // What the services tell the engine, waiting for room in the ring.
  std::deque<exchange::Command> engine_commands_;
};

}  // namespace cfx::gateway
