#pragma once

// The baseline of `cfx-bench fix`: a bare QuickFIX acceptor that answers
// every NewOrderSingle with one ExecutionReport and does nothing else.
//
// QuickFIX 1.15.1 headers compile only as C++14 (STYLE.md §10), so QuickFIX
// is included by tests/bench/fix_bare_acceptor_quickfix.cc alone; this header
// is C++14 and holds no QuickFIX types.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cfx {
namespace bench {

struct BareAcceptorOptions {
  // SenderCompID of everything the acceptor sends (the clients'
  // TargetCompID). QuickFIX keeps one process-wide registry of sessions:
  // these CompIDs must differ from the exchange's (CFX, TRADER_A, ...), so
  // the two never share a SessionID. Default: BARE.
  std::string sender_comp_id = "BARE";
  // One session per entry: a client's SenderCompID, e.g. BENCH1.
  std::vector<std::string> clients;
  // Directory of the sessions' FileStore (created if missing), as the
  // exchange's FIX sessions use.
  std::string store_dir;
  // The data dictionary (QuickFIX XML) to validate incoming messages with,
  // written to store_dir; "" = UseDataDictionary=N.
  std::string dictionary_xml;
};

// A FIX::SocketAcceptor on 127.0.0.1 (QuickFIX binds every interface) with
// an Application whose fromApp answers each NewOrderSingle(D) on its session
// with an ExecutionReport(8) ExecType=0 OrdStatus=0 carrying the order's
// ClOrdID, Symbol, Side, OrderQty, OrdType, Price and TimeInForce, an
// OrderID, an ExecID, LeavesQty = OrderQty, CumQty 0, AvgPx 0 and a
// TransactTime: the fields of the exchange's own New report. Any other
// application message is refused (BusinessMessageReject, by QuickFIX).
//
// Thread: Start/Stop and the accessors from one owning thread; QuickFIX runs
// the sessions on a thread of its own (named "fix-bare" once a session logs
// on).
class BareAcceptor {
 public:
  // Starts listening on a free loopback port (found by binding an ephemeral
  // socket; retried if another process takes it first). On failure returns
  // nullptr and sets *error.
  static std::unique_ptr<BareAcceptor> Start(const BareAcceptorOptions& options,
                                             std::string* error);
  virtual ~BareAcceptor() {}

  virtual uint16_t port() const = 0;
  // ExecutionReports sent so far; any thread.
  virtual uint64_t reports_sent() const = 0;
  // Stops the acceptor, closing every connection. Idempotent.
  virtual void Stop() = 0;
};

}  // namespace bench
}  // namespace cfx
