#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/spsc_ring.h"
#include "gateway/asio.h"
#include "exchange/core/reference/reference_payload.h"
#include "gateway/config/user_directory.h"
#include "gateway/fix/fix_engine.h"
#include "gateway/fix/fix_fields.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/session/acceptor.h"
#include "gateway/session/kill_switches.h"
#include "gateway/session/known_sources.h"
#include "gateway/session/logon_backoff.h"
#include "gateway/session/order_view.h"
#include "gateway/session/tls.h"
#include "gateway/session/service_reads.h"

namespace cfx::index {
class IndexService;
struct Print;
}  // namespace cfx::index

namespace cfx::settlement {
class SettlementService;
}  // namespace cfx::settlement

namespace cfx::gateway {
struct ServerConfig;
struct UserConfig;
class InstrumentTable;
class MarketDataStore;
class StatusReasons;
struct InstrumentInfo;
enum class BookLevelChange : uint8_t;  // gateway/md/market_data.h
class Metrics;
class CredentialChecker;
}  // namespace cfx::gateway

namespace cfx::gateway::fix {

struct FixGatewayDeps {
  const ServerConfig* config = nullptr;
  // The gateway thread's instruments as listed now (spot listings), fed
  // each event before OnEvent(). Must outlive the gateway.
  const InstrumentTable* instruments = nullptr;
  // The day's order view (gateway/session/order_view.h, client order ids
  // indexed), shared with the protobuf gateway and fed each event before
  // OnEvent(). Null: the gateway keeps one of its own and feeds it itself.
  // Must outlive the gateway.
  const OrderView* orders = nullptr;
  // The gateway thread's producer ring into the sequencer (shared with the
  // protobuf gateway: both run on the gateway thread).
  exchange::SpscRing<exchange::Command>* ring = nullptr;
  const MarketDataStore* market_data = nullptr;
  Metrics* metrics = nullptr;  // may be null
  const exchange::Clock* clock = nullptr;
  // The CFX index, for MarketDataRequests of MDEntryType 3 on the symbols
  // CFX-<grade> (read on the gateway thread). May be null: no index symbols.
  // Must outlive the gateway.
  const index::IndexService* index = nullptr;
  // Clearing (DESIGN.md §5), for RequestForPositions (AN) and
  // CollateralInquiry (BB). May be null: both are then answered "not
  // supported". Must outlive the gateway.
  const settlement::SettlementService* settlement = nullptr;
  // How the index and settlement are read when they run on a thread of
  // their own (service_reads.h); null: read at once, on this thread.
  // Must outlive the gateway.
  ServiceReads* service_reads = nullptr;
  // Runs the Logon password checks off the gateway thread (shared with the
  // protobuf gateway). May be null: the gateway then runs its own, with one
  // worker. Must outlive the gateway.
  CredentialChecker* credentials = nullptr;
  // The users as the journal has them (enabled, password hash); null: the
  // config's. Must outlive the gateway.
  const UserDirectory* users = nullptr;
  // The halt reasons by command token, shared with the protobuf gateway
  // (gateway/md/status_reasons.h); null: SecurityStatus carries none.
  const StatusReasons* status_reasons = nullptr;
  // The kill switch requests in flight (shared with the protobuf gateway,
  // which feeds it), for the reason of a kill switch's News. May be null:
  // News without a reason. Must outlive the gateway.
  const KillSwitches* kill_switches = nullptr;
  // <data-dir>/fix: the QuickFIX session stores and the ClOrdID file.
  std::string dir;
  std::function<void(const std::string&)> log;
};

// The FIX 4.4 gateway (docs/fix.md): a TCP acceptor whose bytes go to the
// QuickFIX session layer (fix_engine.h), FIX application messages mapped to
// engine Commands, and durable engine events mapped to ExecutionReports,
// cancel rejects, mass cancel reports, drop copies and market data; the CFX
// index's prints are market data of the symbols CFX-<grade> (MDEntryType 3).
//
// ClOrdIDs: 1-18 digits without a leading zero are the engine's client order
// id; any other ClOrdID maps to a 64-bit hash with the top bit set, and its
// text is kept once the engine accepts the order (a rejected order's text
// is not), while the day's order view knows the order: at most one entry
// per order the view holds (the day's client order ids, bounded by the
// engine's max_client_order_ids, plus resting GTC/GTD orders). The texts are
// appended to <dir>/clordids, written to the OS before any message is
// stored, like the session stores, so reports after a restart still carry
// them; the file is rewritten with only the kept texts at start and at
// each day's end.
//
// Orders are the day's order view shared with the protobuf gateway
// (gateway/session/order_view.h, FixGatewayDeps::orders), and who may see
// which account's clearing results is gateway/session/visibility.h. The class is implemented by
// concern: fix_gateway.cc (creation, transport, logons, dispatch, ClOrdID
// texts), logon_check.cc (Logon passwords, off the gateway thread, and
// their back-off by source address), order_entry_adapter.cc (requests to
// Commands), execution_report_publisher.cc (events to reports and drop copies),
// market_data_publisher.cc (snapshots, incrementals, index values, security
// status), and position_reports.h / collateral_inquiry.h (clearing).
//
// Thread: the gateway thread (io, OnEvent, Poll). Memory: one record per
// ClOrdID text (the order records are the shared view's; without
// FixGatewayDeps::orders, one per order accepted today or still resting).
class FixGateway final : private Handler {
 public:
  static Result<std::unique_ptr<FixGateway>> Create(asio::io_context& io,
                                                    const FixGatewayDeps& deps);
  ~FixGateway() override;
  FixGateway(const FixGateway&) = delete;
  FixGateway& operator=(const FixGateway&) = delete;

  // Starts accepting on address:port (0 = an ephemeral port).
  Status Listen(const std::string& address, uint16_t port);
  uint16_t port() const { return port_; }
  // Also accepts TLS on address:port with `tls`'s current certificate
  // (docs/fix.md, "TLS"): the same sessions after the handshake, which
  // counts as time before the Logon (the logon timeout and the pre-logon
  // budget bound it). `tls` must outlive the gateway.
  Status ListenTls(const std::string& address, uint16_t port,
                   TlsServerContext& tls);
  // The TLS port; 0 when there is none.
  uint16_t tls_port() const;

  // One durable engine event, in seq order, AFTER the market-data store
  // applied it: `level` is what MarketDataStore::OnEvent() returned (book
  // updates go out as new, change or delete). During the startup replay
  // (before GoLive()) it only rebuilds the order view.
  void OnEvent(const exchange::Event& e, BookLevelChange level);

  // A new print or restatement of the CFX index (IndexService's on_print,
  // once its causing event is durable): one MarketDataSnapshotFullRefresh
  // (W) to every live subscription of its grade. Before GoLive() it does
  // nothing.
  void OnIndexPrint(const index::Print& print);

  // The startup replay is over: from now on events produce messages.
  // Rewrites the ClOrdID file with the texts still needed.
  Status GoLive();

  // Socket writes, session timers and held requests. Returns the work done.
  int Poll();

  // Logs every session out and closes the connections.
  void Stop();

  // The admin changed `user` (an accepted user command): a disabled user's
  // logged-on session is logged out with Text(58) "user disabled by the
  // admin"; its Logons are refused while it stays disabled. A user added
  // with a FIX SenderCompID that has no session yet gets one at once
  // (deps.users must hold the user: its UserConfig lives there).
  void UserChanged(const exchange::ReferenceUser& user);

  uint64_t commands_submitted() const { return commands_submitted_; }

  struct Pending;
  struct SessionState;
  struct Connection;

 private:
  FixGateway(asio::io_context& io, const FixGatewayDeps& deps);

  // Handler (the QuickFIX island's callbacks).
  // logon_check.cc: the password goes to the credential checker, unless
  // the source address backs off.
  bool CheckLogon(uint64_t conn, int session, const std::string& username,
                  const std::string& password, std::string* refusal) override;
  // At Create: the checker and the unknown users' hash.
  void InitLogonChecks();
  // The checker's verdict, back on the gateway thread.
  // Refuses the Logon of `conn` unchecked with `text`, after the refusal
  // delay; returns what CheckLogon returns.
  bool RefuseUnchecked(uint64_t conn, const std::string& text,
                       std::string* refusal);
  // Answers the delayed refusals that are due; returns how many.
  int ReleaseRefusals(int64_t now_ns);
  void LogonCheckDone(uint64_t conn, int session, LogonBackoff::Key source,
                      bool passed, bool disabled);
  void OnLogon(int session) override;
  void OnConnectionLoggedOn(uint64_t conn) override;
  void OnLogout(int session) override;
  void OnMessage(int session, const Message& message) override;
  void Write(uint64_t conn, const char* data, std::size_t size) override;
  void Close(uint64_t conn) override;
  void Log(const std::string& line) override;

  // Order entry (order_entry_adapter.cc): requests to Commands.
  void OnNewOrder(int s, const Message& m);
  // Price(44) of a new order into c->price; false once refused.
  bool ReadNewOrderPrice(int s, const Message& m, bool market,
                         exchange::Command* c);
  // TimeInForce(59), ExpireTime(126) and ExecInst(18) of a new order into
  // `c`; false once refused.
  bool ReadNewOrderTerms(int s, const Message& m, exchange::Command* c);
  void OnCancel(int s, const Message& m, bool replace);
  // The session's order a cancel or replace names (by OrderID(37), else
  // OrigClOrdID(41)), or nullptr: unknown, or *handled when the request
  // was held for its order's acknowledgement or refused.
  const OrderRecord* CancelTarget(int s, const Message& m, bool replace,
                                  bool* handled);
  // A replace's price and quantity into `c`; false once refused.
  bool ReadReplace(int s, const Message& m, const OrderRecord& o,
                   exchange::Command* c);
  void OnMassCancel(int s, const Message& m);
  void OnOrderStatus(int s, const Message& m);
  // The order of `account` with OrderID `order_id_text` (when not null),
  // else the one that carried client order id `clordid` today; or nullptr.
  const OrderRecord* OwnOrder(exchange::AccountId account,
                              const std::string* order_id_text,
                              uint64_t clordid) const;
  // True (and a BusinessMessageReject sent) when session s may not trade.
  bool TradeDenied(int s, const Message& m, const std::string& clordid);
  bool Submit(int s, const exchange::Command& c, const Message& m,
              const std::string& ref_id);
  void RejectNew(int s, const Message& m, int reason, const std::string& text);
  void RejectCancel(int s, const Message& m, bool replace, const OrderRecord* o,
                    int reason, const std::string& text);

  // Runs `handler(s, m)` on a copy of `m` through deps_.service_reads, if
  // session s is still logged on then; busy: a BusinessMessageReject.
  void ReadServicesFor(int s, const Message& m,
                       std::function<void(int, const Message&)> handler);
  // Clearing (position_reports.h, collateral_inquiry.h).
  void OnRequestForPositions(int s, const Message& m);
  void OnCollateralInquiry(int s, const Message& m);

  // Market data (market_data_publisher.cc).
  void OnMarketDataRequest(int s, const Message& m);
  // The entry types and symbols of a book or trades MarketDataRequest;
  // false once refused.
  bool ReadBookRequest(int s, const Message& m, bool* book, bool* trades,
                       std::vector<const InstrumentInfo*>* symbols);
  // True when session s may add `n` subscriptions of `req_id`; else
  // refuses the request.
  bool MaySubscribe(int s, const std::string& req_id, std::size_t n);
  // A W of one instrument's book (`depth` levels, 0 = all) and trades.
  Message BookSnapshot(const std::string& req_id, const InstrumentInfo& info,
                       bool book, bool trades, std::size_t depth) const;
  // A MarketDataRequest naming MDEntryType 3 (index value).
  void OnIndexRequest(int s, const Message& m, bool subscribe);
  // The grade of index symbol `symbol` ("CFX-B200-STD"), or -1.
  int32_t IndexGradeOf(const std::string& symbol) const;
  // A W for `req_id` with the grade's print `print` (no entry if null).
  Message IndexSnapshot(const std::string& req_id, uint32_t grade,
                        const index::Print* print) const;
  void OnSecurityList(int s, const Message& m);
  void OnSecurityStatus(int s, const Message& m);
  void MarketDataReject(int s, const std::string& req_id, int reason,
                        const std::string& text);
  // The incremental entry of a book or trade event, kept until the
  // command's entries are flushed. `level` is what the store changed.
  void MarketData(const exchange::Event& e, BookLevelChange level);
  void FlushMarketData();
  // SecurityStatus (f) to the subscribers of an instrument whose state
  // changed.
  void PublishSecurityStatus(const exchange::Event& e);
  // News (B) to the sessions of an account whose kill switch changed
  // (kKillSwitchSet), with the request's reason.
  void KillSwitchNews(const exchange::Event& e);
  // A spot slot listed again: subscriptions to its previous listing end.
  void EndSubscriptions(exchange::InstrumentId instrument);

  // Execution reports (execution_report_publisher.cc): events to
  // ExecutionReports, cancel rejects, mass cancel reports and drop copies.
  void OnOrderAccepted(const exchange::Event& e);
  void OnTrade(const exchange::Event& e);
  void OnOrderCancelled(const exchange::Event& e);
  // `previous` is the order's client order id before the replace.
  void OnOrderReplaced(const exchange::Event& e, uint64_t previous);
  void OnOrderRestated(const exchange::Event& e);
  void OnMassCancelDone(const exchange::Event& e);
  void OnRejected(const exchange::Event& e);
  void OnNewOrderRejected(const exchange::Event& e, const std::string& reason);
  void OnCancelRejected(const exchange::Event& e, const std::string& reason);
  void OnMassCancelRejected(const exchange::Event& e,
                            const std::string& reason);
  // The trading day is over: forget the ClOrdID texts no order needs.
  void OnDayEnded();
  // The request of (a, c) of `kind` in flight, taken out of pending_.
  std::unique_ptr<Pending> TakePending(exchange::AccountId a,
                                       exchange::ClientOrderId c, char kind);
  // Requests held for the acknowledgement of (a, c) go to Poll().
  void ReleaseHeld(exchange::AccountId a, exchange::ClientOrderId c);
  // True iff a session of `account` is active (SessionState::active).
  bool Watched(exchange::AccountId account) const;
  void SendToAccount(exchange::AccountId account, const Message& m);
  // True iff a session of the clearing member of `account` is active; its
  // sessions are then in *sessions.
  bool DropCopyWatched(exchange::AccountId account,
                       const std::vector<int>** sessions) const;
  void DropCopy(const exchange::Event& e, bool counter);
  // A busted spot trade (DESIGN.md §2): ExecType=H to both sides and to
  // their clearing members' drop copy.
  void TradeBust(const exchange::Event& e);
  void SendDropCopy(const OrderRecord& o, const Message& r);
  Message ExecReport(const OrderRecord& o, char type, const exchange::Event& e);
  // ExecReport of type `type` with the fill's LastQty, LastPx, TrdMatchID.
  Message FillReport(const OrderRecord& o, char type, const exchange::Event& e,
                     exchange::Price price, exchange::Quantity quantity);
  std::string NextExecId(exchange::Seq seq);

  // Sessions and transport (fix_gateway.cc).
  // engine_->Send, counted in the metrics.
  void Send(int s, const Message& m);
  void SetSessionsMetric();
  void BusinessReject(int s, const Message& m, int reason,
                      const std::string& ref_id, const std::string& text);
  void Accepted(asio::ip::tcp::socket socket, uint64_t slot, bool tls);
  // An acceptor for `address`:`port` whose connections go to Accepted().
  Result<std::unique_ptr<Acceptor>> OpenAcceptor(const std::string& address,
                                                 uint16_t port, bool tls);
  // The acceptor that accepted connection `conn` (null before Listen()).
  Acceptor* AcceptorOf(uint64_t conn);
  void Evict(uint64_t slot);
  void StartRead(const std::shared_ptr<Connection>& c);
  void Flush(const std::shared_ptr<Connection>& c);
  void Gone(const std::shared_ptr<Connection>& c);

  // ClOrdIDs (fix_gateway.cc).
  std::string ClOrdIdText(exchange::AccountId account, uint64_t id) const;
  // Keeps the text of a hashed ClOrdID (and appends it to the file once
  // live).
  void RememberClOrdIdText(exchange::AccountId account, uint64_t id,
                           const std::string& text);
  // Writes the appended texts to the OS (not to the disk, as the session
  // stores: docs/fix.md).
  // The gateway's state of the session of user `u` (which has a FIX
  // SenderCompID and must outlive the gateway), at the next index: the
  // engine's session of the same index is created alongside.
  SessionState& AddSessionState(const UserConfig& u);
  // UserChanged(): the session of a user added at run time, if it has a
  // FIX SenderCompID and no session yet.
  void AddUserSession(const exchange::ReferenceUser& user);
  void FlushClOrdIdFile();
  // Drops the texts of orders the order view no longer knows.
  void PruneClOrdIdTexts();
  Status RewriteClOrdIdFile();

  asio::io_context& io_;
  FixGatewayDeps deps_;
  const ServerConfig& config_;
  const InstrumentTable& instruments_;
  std::unique_ptr<Engine> engine_;
  // Created by Listen() and ListenTls(). Connection ids are their slot ids
  // (the TLS acceptor's start at kTlsFirstSlot).
  std::unique_ptr<Acceptor> acceptor_;
  std::unique_ptr<Acceptor> tls_acceptor_;
  TlsServerContext* tls_ = nullptr;
  TlsFailureLog tls_failures_;
  uint16_t port_ = 0;
  bool live_ = false;
  bool stopped_ = false;

  std::unordered_map<uint64_t, std::shared_ptr<Connection>> conns_;
  std::vector<std::shared_ptr<Connection>> dirty_;

  std::vector<std::unique_ptr<SessionState>> sessions_;
  std::vector<std::vector<int>> by_account_;  // account id -> sessions
  std::unordered_map<std::string, std::vector<int>> by_clearing_member_;

  // deps.orders, or (without one) own_orders_, which OnEvent() feeds.
  std::unique_ptr<OrderView> own_orders_;
  const OrderView& orders_;
  // The orders on both sides of each spot trade, as they stood at the
  // trade, until a bust or until the instrument's slot is listed again (the
  // order view forgets finished orders at each session end).
  struct SpotFill {
    OrderRecord buy;
    OrderRecord sell;
    exchange::Price price;
    exchange::Quantity quantity;
  };
  std::unordered_map<uint64_t, SpotFill> spot_fills_;  // by trade id
  // A clearing member's session is active: fills are drop-copied.
  bool drop_copy_active_ = false;
  using Key = ClientOrderKey;  // (account, client order id)
  using KeyHash = ClientOrderKeyHash;
  std::unordered_map<Key, std::string, KeyHash> clordid_text_;
  std::unordered_map<Key, std::unique_ptr<Pending>, KeyHash> pending_;
  std::unordered_map<uint64_t, Key> pending_cancel_by_order_;
  // Requests naming an order whose NewOrderSingle is still in flight.
  std::unordered_map<Key, std::vector<std::pair<int, Message>>, KeyHash> held_;
  std::vector<std::pair<int, Message>> released_;

  // Logon checks (logon_check.cc): the checker (deps_.credentials or
  // own_checker_), the back-off by source address, a well-formed hash that
  // matches no password (checked for unknown users, so that they cost what
  // known ones do), and a token whose expiry tells late verdicts that the
  // gateway is gone.
  std::unique_ptr<CredentialChecker> own_checker_;
  CredentialChecker* checker_ = nullptr;
  LogonBackoff backoff_;
  // Addresses a logon passed from: their checks skip the checker's CPU
  // budget (logon_check.cc).
  KnownSources known_sources_;
  // Logons refused unchecked, answered once due (logon_check.cc), oldest
  // first.
  struct DelayedRefusal {
    int64_t due_ns = 0;
    uint64_t conn = 0;
    std::string text;
  };
  std::deque<DelayedRefusal> delayed_refusals_;
  std::string unknown_user_hash_;
  std::shared_ptr<char> alive_ = std::make_shared<char>(0);
  std::string clordid_path_;
  int clordid_fd_ = -1;
  std::string clordid_buffer_;

  exchange::Seq exec_seq_;
  uint32_t exec_index_ = 0;
  std::string reject_exec_prefix_;
  uint64_t reject_exec_count_ = 0;

  // Market data built per command: instrument -> entries.
  std::vector<std::pair<uint32_t, std::vector<Field>>> md_entries_;
  exchange::Seq md_seq_;

  uint64_t commands_submitted_ = 0;
  int64_t last_tick_ns_ = 0;
};

// The NoMDEntries(268) entry of an index print (docs/fix.md, "Index
// values"): 269=3; 270 MDEntryPx = the value (absent when there is none);
// 272 MDEntryDate and 273 MDEntryTime = the fixing instant `fixing_ns` in
// UTC; then the CFX index tags 5810-5823 (absent when empty: P25/P75 below
// Level 2, partitions outside 1a, USD per million tokens when unknown, the
// trade ids for Levels 3, 4 and DISRUPTED).
std::vector<Field> IndexEntry(const index::Print& print, int64_t fixing_ns);

}  // namespace cfx::gateway::fix
