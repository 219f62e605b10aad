#pragma once

#include <cstdint>
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
#include "gateway/fix/fix_engine.h"
#include "gateway/fix/fix_tags.h"

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
class Metrics;
}  // namespace cfx::gateway

namespace cfx::gateway::fix {

// Sums of price x lots (average prices); __extension__ keeps -Wpedantic quiet.
__extension__ using Int128 = __int128;

struct FixGatewayDeps {
  const ServerConfig* config = nullptr;
  // The gateway thread's instruments as listed now (spot listings), fed
  // each event before OnEvent(). Must outlive the gateway.
  const InstrumentTable* instruments = nullptr;
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
// text is kept (and appended to <dir>/clordids, so reports after a restart
// still carry it).
//
// Thread: the gateway thread (io, OnEvent, Poll). Memory: one record per
// order accepted today or still resting, one per ClOrdID text.
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

  // One durable engine event, in seq order. Call BEFORE the market-data
  // store sees it (book updates are classified new/change/delete against
  // the store's previous state). During the startup replay (before
  // GoLive()) it only rebuilds the order view.
  void OnEvent(const exchange::Event& e);

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

  uint64_t commands_submitted() const { return commands_submitted_; }

  // What the gateway knows of one order, from durable events.
  struct Order {
    exchange::OrderId id;
    exchange::AccountId account;
    exchange::InstrumentId instrument;
    exchange::Side side = exchange::Side::kNone;
    exchange::OrderType type = exchange::OrderType::kNone;
    exchange::TimeInForce tif = exchange::TimeInForce::kNone;
    exchange::Price price;
    exchange::Quantity quantity;
    exchange::Quantity leaves;
    exchange::Quantity filled;
    Int128 notional = 0;             // sum of fill price x lots
    uint64_t clordid = 0;            // current client order id
    char status = ord_status::kNew;  // OrdStatus(39)
    bool done() const {
      return status == ord_status::kFilled || status == ord_status::kCanceled ||
             status == ord_status::kExpired;
    }
  };
  struct Pending;
  struct SessionState;
  struct Connection;

 private:
  FixGateway(asio::io_context& io, const FixGatewayDeps& deps);

  // Handler (the QuickFIX island's callbacks).
  std::string Authenticate(int session, const std::string& username,
                           const std::string& password) override;
  void OnLogon(int session) override;
  void OnLogout(int session) override;
  void OnMessage(int session, const Message& message) override;
  void Write(uint64_t conn, const char* data, std::size_t size) override;
  void Close(uint64_t conn) override;
  void Log(const std::string& line) override;

  // Requests.
  void OnNewOrder(int s, const Message& m);
  void OnCancel(int s, const Message& m, bool replace);
  void OnMassCancel(int s, const Message& m);
  void OnOrderStatus(int s, const Message& m);
  void OnRequestForPositions(int s, const Message& m);
  // CollateralInquiry (BB): collateral_inquiry.h.
  void OnCollateralInquiry(int s, const Message& m);
  void OnMarketDataRequest(int s, const Message& m);
  // A MarketDataRequest naming MDEntryType 3 (index value).
  void OnIndexRequest(int s, const Message& m, bool subscribe);
  // The grade of index symbol `symbol` ("CFX-B200-STD"), or -1.
  int32_t IndexGradeOf(const std::string& symbol) const;
  // A W for `req_id` with the grade's print `print` (no entry if null).
  Message IndexSnapshot(const std::string& req_id, uint32_t grade,
                        const index::Print* print) const;
  void OnSecurityList(int s, const Message& m);
  void OnSecurityStatus(int s, const Message& m);
  bool Submit(int s, const exchange::Command& c, const Message& m,
              const std::string& ref_id);
  // engine_->Send, counted in the metrics.
  void Send(int s, const Message& m);
  void SetSessionsMetric();
  void BusinessReject(int s, const Message& m, int reason,
                      const std::string& ref_id, const std::string& text);
  void RejectNew(int s, const Message& m, int reason, const std::string& text);
  void RejectCancel(int s, const Message& m, bool replace, const Order* o,
                    int reason, const std::string& text);
  void MarketDataReject(int s, const std::string& req_id, int reason,
                        const std::string& text);

  // Events.
  void ApplyToOrders(const exchange::Event& e);
  void Report(const exchange::Event& e);
  void MarketData(const exchange::Event& e);
  // True iff a session of `account` is active (SessionState::active).
  bool Watched(exchange::AccountId account) const;
  void SendToAccount(exchange::AccountId account, const Message& m);
  void DropCopy(const exchange::Event& e, bool counter);
  // A busted spot trade (DESIGN.md §2): ExecType=H to both sides and to
  // their clearing members' drop copy.
  void TradeBust(const exchange::Event& e);
  void SendDropCopy(const Order& o, const Message& r);
  Message ExecReport(const Order& o, char type, const exchange::Event& e);
  void FlushMarketData();

  // ClOrdIDs.
  uint64_t ClientOrderIdOf(exchange::AccountId account, const std::string& text,
                           bool remember);
  std::string ClOrdIdText(exchange::AccountId account, uint64_t id) const;
  void FlushClOrdIdFile();

  // Transport.
  void Accept();
  void StartRead(const std::shared_ptr<Connection>& c);
  void Flush(const std::shared_ptr<Connection>& c);
  void Gone(const std::shared_ptr<Connection>& c);
  std::string NextExecId(exchange::Seq seq);

  asio::io_context& io_;
  FixGatewayDeps deps_;
  const ServerConfig& config_;
  const InstrumentTable& instruments_;
  std::unique_ptr<Engine> engine_;
  asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  bool live_ = false;
  bool stopped_ = false;

  uint64_t next_conn_ = 1;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> conns_;
  std::vector<std::shared_ptr<Connection>> dirty_;

  std::vector<std::unique_ptr<SessionState>> sessions_;
  std::vector<std::vector<int>> by_account_;  // account id -> sessions
  std::unordered_map<std::string, std::vector<int>> by_clearing_member_;

  std::unordered_map<uint64_t, Order> orders_;
  // The orders on both sides of each spot trade, as they stood at the
  // trade, until a bust or until the instrument's slot is listed again (the
  // order view forgets finished orders at each session end).
  struct SpotFill {
    Order buy;
    Order sell;
    exchange::Price price;
    exchange::Quantity quantity;
  };
  std::unordered_map<uint64_t, SpotFill> spot_fills_;  // by trade id
  // A clearing member's session is active: fills are drop-copied.
  bool drop_copy_active_ = false;
  // Consecutive client order ids of one account land in consecutive
  // buckets (the table is walked in order, not at random: scrambling the
  // key cost 1.3 us per order in cache misses at a million orders).
  struct KeyHash {
    std::size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
      return static_cast<std::size_t>(k.second + (uint64_t{k.first} << 40));
    }
  };
  using Key = std::pair<uint32_t, uint64_t>;  // (account, client order id)
  std::unordered_map<Key, uint64_t, KeyHash> order_by_clordid_;
  std::unordered_map<Key, std::string, KeyHash> clordid_text_;
  std::unordered_map<Key, std::unique_ptr<Pending>, KeyHash> pending_;
  std::unordered_map<uint64_t, Key> pending_cancel_by_order_;
  // Requests naming an order whose NewOrderSingle is still in flight.
  std::unordered_map<Key, std::vector<std::pair<int, Message>>, KeyHash> held_;
  std::vector<std::pair<int, Message>> released_;

  std::string password_salt_;  // random per process (Authenticate)
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

// The engine client order id of a FIX ClOrdID (docs/fix.md): 1-18 digits
// without a leading zero are the number itself; anything else is FNV-1a 64
// with the top bit set. 0 for an invalid ClOrdID (empty, over 20
// characters, or not printable ASCII without spaces).
uint64_t ClientOrderIdForClOrdId(std::string_view text);

// A FIX price ("5.80") in engine units, or nullopt (docs/fix.md: at most 4
// decimals, no sign or exponent).
std::optional<int64_t> ParseFixPrice(std::string_view text);
// A FIX quantity ("5", "5.0") in lots, or nullopt (not a positive whole
// number).
std::optional<int64_t> ParseFixQuantity(std::string_view text);
// Average price `notional` / `lots` (notional in engine price units x lots),
// rounded half-even to 6 decimal places, e.g. "5.805". "0" when lots is 0.
std::string FormatAvgPx(Int128 notional, int64_t lots);
// "YYYYMMDD-HH:MM:SS.sss" UTC.
std::string FormatFixTime(exchange::Timestamp t);
// The NoMDEntries(268) entry of an index print (docs/fix.md, "Index
// values"): 269=3; 270 MDEntryPx = the value (absent when there is none);
// 272 MDEntryDate and 273 MDEntryTime = the fixing instant `fixing_ns` in
// UTC; then the CFX index tags 5810-5823 (absent when empty: P25/P75 below
// Level 2, partitions outside 1a, USD per million tokens when unknown, the
// trade ids for Levels 3, 4 and DISRUPTED).
std::vector<Field> IndexEntry(const index::Print& print, int64_t fixing_ns);

}  // namespace cfx::gateway::fix
