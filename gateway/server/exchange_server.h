#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "exchange/clock.h"
#include "exchange/core/status.h"
#include "exchange/journal.h"
#include "exchange/recovery.h"
#include "gateway/config/server_config.h"

namespace cfx::index {
class IndexService;
}  // namespace cfx::index

namespace cfx::settlement {
class SettlementService;
}  // namespace cfx::settlement

namespace cfx::gateway {

struct ServerOptions {
  // Journal and snapshot directory. Default: var/cfx.
  std::string data_dir = "var/cfx";
  // Overrides of the config's clock (the command line's --clock/--start).
  std::optional<bool> simulated_clock;
  std::optional<exchange::Timestamp> clock_start;
  // Overrides of the config's snapshot interval (--snapshot-every).
  std::optional<uint64_t> snapshot_every;
  // Overrides of the config's ports; 0 = an ephemeral port (tests).
  std::optional<uint16_t> protobuf_port;
  std::optional<uint16_t> http_port;
  std::optional<uint16_t> fix_port;
  // Overrides of the TLS listeners' ports (network.tls); only a listener
  // the config has is opened. 0 = an ephemeral port.
  std::optional<uint16_t> fix_tls_port{};
  std::optional<uint16_t> protobuf_tls_port{};
  std::optional<uint16_t> https_port{};
  // One line per call: startup, recovery, listening, shutdown.
  std::function<void(const std::string&)> log;
  // The table seed of a new journal (exchange::JournalOptions::
  // genesis_table_seed). Default (zero): random. Tests that compare two
  // servers' state hashes fix it.
  exchange::SipKey genesis_table_seed{};
  // Journal replay progress during recovery.
  exchange::Journal::ProgressFn progress;
};

// cfx-exchanged in one object: recovers the pipeline from the data dir,
// rebuilds the gateway's order and market-data views from the journal,
// listens on the FIX, protobuf and HTTP ports (and their TLS listeners,
// network.tls) and runs the gateway thread until
// Stop(). Refuses (kFailedPrecondition) plaintext listeners off loopback.
// Used by the binary and by end-to-end tests.
//
// Thread: Start/Stop from one owning thread; the server runs a sequencer, a
// matching, a gateway and a service thread of its own; the gateway thread
// feeds the index and settlement, which run on the service thread
// (service_feed.h).
class ExchangeServer {
 public:
  static Result<std::unique_ptr<ExchangeServer>> Start(
      const ServerConfig& config, const ServerOptions& options);
  ~ExchangeServer();
  ExchangeServer(const ExchangeServer&) = delete;
  ExchangeServer& operator=(const ExchangeServer&) = delete;

  // Closes every session (cancel-on-disconnect applies), sequences what was
  // submitted, writes a final snapshot and stops. Idempotent.
  Status Stop();

  uint16_t protobuf_port() const;
  uint16_t http_port() const;
  uint16_t fix_port() const;
  // The TLS listeners' ports; 0 for one that is not open.
  uint16_t fix_tls_port() const;
  uint16_t protobuf_tls_port() const;
  uint16_t https_port() const;
  // Reads the TLS certificate and key again (SIGHUP): new handshakes use
  // them, open sessions keep running on theirs. On error the current ones
  // stay. Logs the outcome. Any thread. kFailedPrecondition without TLS
  // listeners.
  Status ReloadTls();
  const exchange::RecoveryReport& recovery() const;
  // REQUIRES: stopped. The engine's state hash and last seq.
  uint64_t state_hash() const;
  exchange::Seq last_seq() const;
  // REQUIRES: stopped. The index service as the server left it.
  const index::IndexService& index() const;
  // The settlement service (REQUIRES: stopped, like index()).
  const settlement::SettlementService& settlement() const;
  // Commands the gateway handed to the sequencer; any thread.
  uint64_t commands_submitted() const;
  // Synced journal writes (group commits) so far; any thread.
  uint64_t journal_writes() const;

  struct Impl;

 private:
  explicit ExchangeServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway
