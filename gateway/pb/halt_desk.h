#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {
class InstrumentTable;
class MarketDataStore;
class StatusReasons;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

// Halts and resumes (docs/protocol.md, "Halts and the opening auction"):
// turns the admin's TradingHaltRequest into one kSetInstrumentState command
// per instrument it names (HALTED, or PRE_OPEN with the pre-open's length),
// and gathers the engine's answers into one TradingHaltAck.
//
// Thread: the gateway thread. Memory: one pending entry per request in
// flight, bounded by the sequencer ring (each holds at least one command).
class HaltDesk {
 public:
  // The pre-open of a resume when the request gives none.
  static constexpr uint32_t kDefaultPreOpenSeconds = 60;

  // Every argument must outlive the desk.
  HaltDesk(const InstrumentTable& instruments,
           const MarketDataStore& market_data, StatusReasons& reasons)
      : instruments_(instruments),
        market_data_(market_data),
        reasons_(reasons) {}

  // The outcome of a request: commands to submit, or `ack` refusing it.
  struct Plan {
    std::vector<exchange::Command> cmds;
    std::vector<std::string> symbols;  // of cmds[i]
    wire::v1::TradingHaltAck ack;
  };
  Plan Request(const UserConfig& user, const wire::v1::TradingHaltRequest& m);

  // The first `submitted` commands of `plan` reached the sequencer; the
  // rest are answered SYSTEM_BUSY. When none did, returns false and the
  // caller sends plan.ack (made SYSTEM_BUSY) itself.
  bool Submitted(Plan& plan, std::size_t submitted, uint64_t session_id);

  // For the engine's answer to a submitted command: true once the request
  // has all its answers, with the session to send `*ack` to.
  bool OnEvent(const exchange::Event& e, uint64_t* session_id,
               wire::v1::TradingHaltAck* ack);

 private:
  struct Pending {
    uint64_t session_id = 0;
    std::size_t waiting = 0;
    wire::v1::TradingHaltAck ack;
  };

  const InstrumentTable& instruments_;
  const MarketDataStore& market_data_;
  StatusReasons& reasons_;
  uint64_t next_request_ = 1;
  // token (the command's client_order_id) -> (request, result index)
  std::unordered_map<uint64_t, std::pair<uint64_t, int>> by_token_;
  std::unordered_map<uint64_t, Pending> pending_;  // by request
};

}  // namespace cfx::gateway::pb
