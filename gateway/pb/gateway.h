#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/clock.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "gateway/config/user_directory.h"
#include "gateway/md/status_reasons.h"
#include "gateway/pb/execution_report_publisher.h"
#include "gateway/pb/halt_desk.h"
#include "gateway/pb/index_desk.h"
#include "gateway/pb/logon_nonces.h"
#include "gateway/pb/market_data_publisher.h"
#include "gateway/pb/order_entry_adapter.h"
#include "gateway/pb/reference_desk.h"
#include "gateway/pb/resend.h"
#include "gateway/pb/session.h"
#include "gateway/pb/settlement_desk.h"
#include "gateway/session/acceptor.h"
#include "gateway/session/kill_switches.h"
#include "gateway/session/service_reads.h"
#include "gateway/session/logon_backoff.h"
#include "gateway/session/tls.h"

namespace cfx::gateway {
struct ServerConfig;
struct UserConfig;
class InstrumentTable;
class MarketDataStore;
class Metrics;
class CredentialChecker;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

struct GatewayDeps {
  const ServerConfig* config = nullptr;
  // The gateway thread's instruments as listed now (spot listings), fed
  // each event before OnEvent(). Must outlive the gateway.
  const InstrumentTable* instruments = nullptr;
  // The day's order view (gateway/session/order_view.h), shared with the
  // FIX gateway and fed each event before OnEvent(). Null: the gateway
  // keeps one of its own and feeds it itself. Must outlive the gateway.
  const OrderView* orders = nullptr;
  // This gateway's producer ring into the sequencer.
  exchange::SpscRing<exchange::Command>* ring = nullptr;
  // The gateway's directory: Listen() keeps the used logon nonces in
  // <dir>/logon-nonces (created). Empty: in memory only.
  std::string dir{};
  const MarketDataStore* market_data = nullptr;
  Metrics* metrics = nullptr;  // may be null
  const exchange::Clock* clock = nullptr;
  // Set when the exchange runs on the simulated clock: ClockRequest may
  // then move it.
  exchange::SimulatedClock* simulated_clock = nullptr;
  // The last durable exchange seq, for LogonAck.
  std::function<uint64_t()> durable_seq{};
  // Payload slots for reference-data commands (Pipeline::payload_arena()).
  exchange::PayloadArena* payload_arena = nullptr;
  // The engine's reference-data registry as recovered, read once by the
  // constructor before the pipeline starts; may be null (empty).
  const exchange::Registry* recovered_registry = nullptr;
  // The CFX index, read for IndexQuery and IndexExplainRequest on the
  // gateway thread; may be null (those requests are then refused
  // INDEX_UNAVAILABLE). Must outlive the gateway.
  const index::IndexService* index = nullptr;
  // Clearing and settlement, read for SettlementQuery and
  // SettlementStatusRequest on the gateway thread; may be null (those
  // requests are then refused SETTLEMENT_UNAVAILABLE; CollateralRequests
  // still reach the engine). Must outlive the gateway.
  const settlement::SettlementService* settlement = nullptr;
  // The server log: a logon of a demo identity (UserConfig::demo) is
  // logged as a warning. May be empty.
  std::function<void(const std::string&)> log{};
  // How the index and settlement are read when they run on a thread of
  // their own (service_reads.h); null: read at once, on this thread.
  // Must outlive the gateway.
  ServiceReads* service_reads = nullptr;
  // Runs the Logon signature checks off the gateway thread (shared with the
  // FIX gateway). May be null: the gateway then runs its own, with one
  // worker. Must outlive the gateway.
  CredentialChecker* credentials = nullptr;
  // The users as the journal has them (gateway/config/user_directory.h),
  // shared with the FIX gateway: the gateway updates it with each user
  // command the engine accepted, then calls user_changed. Null: the
  // config's users, unchanged. Must outlive the gateway.
  UserDirectory* users = nullptr;
  std::function<void(const exchange::ReferenceUser&)> user_changed{};
  // The clock of the logon back-off, steady ns. Default (empty): the steady
  // clock.
  std::function<int64_t()> logon_clock_ns{};
  // The halt reasons by command token (gateway/md/status_reasons.h), shared
  // with the FIX gateway's SecurityStatus. Null: the gateway keeps its own.
  StatusReasons* status_reasons = nullptr;
  // The kill switch requests in flight (gateway/session/kill_switches.h),
  // shared with the FIX gateway, which reads their reasons. Null: the
  // gateway keeps its own. Must outlive the gateway.
  KillSwitches* kill_switches = nullptr;
};

// The protobuf order-entry gateway (docs/protocol.md): accepts TCP
// connections, runs each session's state machine (logon, heartbeats,
// throttle, logout), validates every message, turns orders into engine
// Commands on its producer ring, and turns durable engine events into
// execution reports for the owning account's sessions and market data for
// subscribers. Retransmission after a reconnect is served from the
// accounts' recent messages kept in memory (Resender), throttled, on the
// gateway thread.
//
// The parts: the shared Acceptor (gateway/session/acceptor.h) admits
// connections (logged-on sessions up to session.max_sessions, and the
// pre-logon budget: session.max_pre_logon, max_pre_logon_per_source,
// pre_logon_timeout_ms); OrderEntryAdapter is the ingress
// path (frames to validated Commands); ExecutionReportPublisher the egress
// one (events to order messages); MarketDataPublisher serves subscriptions;
// the reference, index and settlement desks answer their requests; Outbox
// queues every session's output. The Gateway runs the session state
// machine and wires them.
//
// Thread: everything runs on the gateway thread that runs `io` and calls
// OnEvent() and Poll(); the gateway starts no thread (the Logon signature
// checks run on the credential checker's workers,
// gateway/session/credential_check.h). Memory: per-session buffers; per
// account its last session.resend_max_messages messages; the hot path
// allocates in protobuf and in the output buffers.
class Gateway {
 public:
  Gateway(asio::io_context& io, const GatewayDeps& deps);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Starts accepting on address:port (0 = an ephemeral port); an accept
  // that fails is retried. Returns kInvalidArgument for a bad address,
  // kUnavailable if the socket cannot be bound or the nonce file in
  // deps.dir cannot be opened.
  Status Listen(const std::string& address, uint16_t port);
  uint16_t port() const { return acceptor_.port(); }
  // Also accepts TLS on address:port with `tls`'s current certificate
  // (docs/protocol.md, "TLS"): the same sessions, limits and frames after
  // the handshake, which counts as pre-logon time (pre_logon_timeout_ms,
  // the pre-logon budget). Call after Listen(); errors as Listen(). `tls`
  // must outlive the gateway.
  Status ListenTls(const std::string& address, uint16_t port,
                   TlsServerContext& tls);
  // The TLS port; 0 when there is none.
  uint16_t tls_port() const;

  // One durable engine event, in seq order (also the startup replay that
  // seeds the order view, before any session exists).
  void OnEvent(const exchange::Event& e);

  // A new print or restatement of the index: an IndexPrint to every
  // logged-on session. REQUIRES: the event that caused it is durable (the
  // index service is fed durable events only); deps.index is set.
  void OnIndexPrint(const index::Print& p);

  // Timers and output: heartbeats, timeouts, pending cancel-on-disconnect
  // commands, socket writes. Call after each batch of OnEvent() and
  // io.poll(). Returns the work done.
  int Poll();

  // Closes the acceptor and every session (with cancel-on-disconnect).
  void Stop();

  std::size_t sessions() const { return sessions_.size(); }
  uint64_t last_event_seq() const { return last_event_seq_; }
  // Commands handed to the sequencer so far.
  uint64_t commands_submitted() const { return commands_submitted_; }
  // Accepts that failed (and were retried) so far; any thread may read it.
  uint64_t accept_errors() const;
  // Resumes started so far, and the ones being served now.
  uint64_t resumes_started() const { return resender_.started(); }
  std::size_t resumes_active() const { return resender_.active(); }

 private:
  // gateway.cc: connections, frames, timers and writes.
  void StartSession(asio::ip::tcp::socket socket, uint64_t slot);
  // A TLS connection: the session exists (pre-logon) from accept; its
  // frames are read once the handshake is done.
  void StartTlsSession(asio::ip::tcp::socket socket, uint64_t slot);
  void AddSession(const std::shared_ptr<Session>& s);
  // The acceptor that accepted session `id`, and the pre-logon
  // connections of both.
  Acceptor& AcceptorOf(uint64_t id);
  std::size_t PreLogon() const;
  void Refuse(asio::ip::tcp::socket& socket, Refusal why);
  void Evict(uint64_t slot);
  // The read loop: reads, then DrainFrames(), then reads again unless that
  // returned false.
  void Read(const std::shared_ptr<Session>& s);
  // Dispatches the complete frames read so far; false when the session is
  // closed, or its input waits for a Logon check.
  bool DrainFrames(Session& s);
  void OnFrame(Session& s, std::string_view payload);
  bool OnSessionMessage(Session& s, wire::v1::Envelope::BodyCase body);
  void OnRequest(Session& s, wire::v1::Envelope::BodyCase body);
  void OnOrderEntry(Session& s, const wire::v1::Envelope& m);
  bool Submit(Session& s, const exchange::Command& c, const char* type,
              uint64_t client_order_id);
  void Close(Session& s, const std::string& why);
  void ScanTimers(int64_t now);
  int Write(int64_t now);

  // gateway_logon.cc: logon and resume (retransmission).
  // What the credential checker's worker found of a Logon: the signature,
  // then (if it passed) the timestamp window, then the nonce, recorded
  // there, off the gateway thread; its sync follows (SyncNonces()).
  enum class LogonVerdict : uint8_t {
    kBadSignature,
    kStale,
    kNonceReused,
    kNonceNotRecorded,
    kRecorded,  // signature, window and a fresh nonce, written, not synced
  };
  // A Logon whose nonce is written and waits for the sync through `ticket`.
  struct AwaitingSync {
    uint64_t session_id = 0;
    wire::v1::Logon logon;
    const UserConfig* user = nullptr;
    uint64_t ticket = 0;
  };
  void OnLogon(Session& s, const wire::v1::Logon& m);
  // The credential checker's verdict on the Logon `m` of session
  // `session_id`, back on the gateway thread.
  void LogonCheckDone(uint64_t session_id, const wire::v1::Logon& m,
                      const UserConfig* user, LogonBackoff::Key source,
                      LogonBackoff::Key pair, LogonVerdict verdict,
                      uint64_t ticket);
  // Once per loop turn: one sync of the nonces written so far, on the
  // credential checker's worker, for every Logon waiting for it (at most
  // one sync at a time; the Logons recorded meanwhile wait for the next).
  // Returns 1 when it started one.
  int SyncNonces();
  // The sync's result, back on the gateway thread: the Logons with tickets
  // through `through` are acknowledged (ok) or refused NONCE_NOT_RECORDED.
  void NoncesSynced(bool ok, uint64_t through);
  // The logon back-off's clock (deps_.logon_clock_ns, else the steady one).
  int64_t LogonNow() const;
  // A Logon that passed its checks, its nonce durable: one session per
  // user, resume; then LogonAck.
  void CompleteLogon(Session& s, const wire::v1::Logon& m,
                     const UserConfig* user);
  void LogonReject(Session& s, wire::v1::LogonRejectReason reason,
                   const std::string& text);
  // LogonReject(TRY_AGAIN_LATER, text) of a Logon not checked, after the
  // refusal delay; the session's later frames wait meanwhile.
  void RefuseUnchecked(Session& s, const std::string& text);
  // Answers the delayed refusals that are due; returns how many.
  int ReleaseRefusals(int64_t now_ns);
  // Serves the resuming sessions (Resender::Serve); returns messages sent.
  int ServeResends();

  // gateway_desks.cc: reference data, clock, index and clearing requests.
  void OnInstrumentList(Session& s);
  void OnGradeList(Session& s);
  void OnClock(Session& s, const wire::v1::ClockRequest& m);
  // Ratings, attester keys, attestations, spot failure reports
  // (reference_desk.h).
  void OnReference(Session& s, const wire::v1::Envelope& m);
  // Puts the desk's command on the ring, or sends its refusal (or
  // SYSTEM_BUSY when the ring is full).
  void SubmitReference(Session& s, ReferenceDesk::Request r);
  // gateway_users.cc: the admin's user commands (passwords hashed on the
  // credential checker's workers) and the user list; a changed user.
  void OnUserRequest(Session& s, const wire::v1::Envelope& m);
  // The API key commands and list (no hashing: submitted at once).
  void OnApiKeyRequest(Session& s, const wire::v1::Envelope& m);
  void OnUserChanged(const exchange::ReferenceUser& user);
  void OnReferenceEvent(const exchange::Event& e);
  // IndexQuery and IndexExplainRequest (index_desk.h).
  void OnIndexRequest(Session& s, const wire::v1::Envelope& m);
  // SettlementQuery, SettlementStatusRequest and CollateralRequest
  // (settlement_desk.h).
  void OnClearingRequest(Session& s, const wire::v1::Envelope& m);
  // Runs `handler` on in_ through deps_.service_reads, for the session if
  // it is still active then; busy: a SessionReject SYSTEM_BUSY.
  void ReadServicesFor(Session& s, wire::v1::Envelope::BodyCase body,
                       void (Gateway::*handler)(Session&,
                                                const wire::v1::Envelope&));
  void OnClearingEvent(const exchange::Event& e);
  // The admin's TradingHaltRequest (halt_desk.h) and the acks of its
  // commands.
  void OnHaltRequest(Session& s, const wire::v1::TradingHaltRequest& m);
  void OnHaltEvent(const exchange::Event& e);
  // gateway_kill.cc: KillSwitchRequest (kill_switches.h): one command per
  // account, acked once all are durable; KillSwitchStatus to the sessions
  // of an account whose switch changed.
  void OnKillSwitchRequest(Session& s, const wire::v1::KillSwitchRequest& m);
  void OnKillSwitchEvent(const exchange::Event& e);
  // A desk request's command onto the ring (true, counted as submitted), or
  // false when the ring is full.
  bool PushDeskCommand(const exchange::Command& c);
  // Sends the desk ack in out_ of a request that does not reach the engine,
  // counted as a rejected order when `rejected`.
  void SendDeskAck(Session& s, bool rejected);

  asio::io_context& io_;
  GatewayDeps deps_;
  const ServerConfig& config_;
  const InstrumentTable& instruments_;
  // deps.orders, or (without one) own_orders_, which OnEvent() feeds.
  std::unique_ptr<OrderView> own_orders_;
  const OrderView& orders_;
  bool stopped_ = false;

  // deps.status_reasons, or (without one) own_reasons_.
  std::unique_ptr<StatusReasons> own_reasons_;
  StatusReasons& reasons_;

  SessionMap sessions_;
  Outbox outbox_;
  Resender resender_;  // before reports_, which records into it
  OrderEntryAdapter adapter_;
  ExecutionReportPublisher reports_;
  MarketDataPublisher market_data_;

  ReferenceDesk desk_;
  IndexDesk index_desk_;
  SettlementDesk settlement_desk_;
  HaltDesk halt_desk_;
  // deps.kill_switches, or (without one) own_kill_switches_.
  std::unique_ptr<KillSwitches> own_kill_switches_;
  KillSwitches& kill_switches_;
  uint64_t last_event_seq_ = 0;
  uint64_t commands_submitted_ = 0;
  wire::v1::Envelope in_;
  wire::v1::Envelope out_;
  // The desks' answers to engine events, reused: most events answer no
  // request, and they pass through on every one.
  wire::v1::ReferenceAck reference_ack_;
  wire::v1::CollateralAck collateral_ack_;
  wire::v1::SettlementRerunAck rerun_ack_;
  wire::v1::TradingHaltAck halt_ack_;
  // The acks of the kill switch requests in flight, by command token.
  std::unordered_map<uint64_t, wire::v1::KillSwitchAck> pending_kill_acks_;

  // Cancel-on-disconnect commands the ring had no room for.
  std::vector<exchange::Command> pending_commands_;
  // Used logon nonces, for replay protection (also across restarts);
  // shared with the checks on the credential checker's workers, which may
  // outlive the gateway.
  std::shared_ptr<LogonNonces> nonces_ = std::make_shared<LogonNonces>();
  std::vector<AwaitingSync> awaiting_sync_;
  bool nonce_sync_running_ = false;
  // Logons refused unchecked (TRY_AGAIN_LATER), answered once due, oldest
  // first (gateway_logon.cc).
  struct DelayedRefusal {
    int64_t due_ns = 0;
    uint64_t session_id = 0;
    std::string text;
  };
  std::deque<DelayedRefusal> delayed_refusals_;
  int64_t last_timer_scan_ns_ = 0;

  // Logon checks (gateway_logon.cc): the checker (deps_.credentials or
  // own_checker_), the back-off per source address and per API key at a
  // source address, and a token whose expiry tells late verdicts that the
  // gateway is gone.
  std::unique_ptr<CredentialChecker> own_checker_;
  CredentialChecker* checker_ = nullptr;
  LogonBackoff backoff_;
  std::shared_ptr<char> alive_ = std::make_shared<char>(0);
  // TLS handshake failures, counted and logged at a bounded rate.
  TlsFailureLog tls_failures_;
  // Last: their handlers read the members above. The TLS acceptor's slots
  // start at kTlsFirstSlot.
  Acceptor acceptor_;
  TlsServerContext* tls_ = nullptr;
  std::unique_ptr<Acceptor> tls_acceptor_;
};

}  // namespace cfx::gateway::pb
