#include "gateway/tools/cli/commands.h"

#include <google/protobuf/util/json_util.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "exchange/clock.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/password.h"
#include "gateway/tools/attest/ed25519.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/client.h"
#include "gateway/tools/client/decimal.h"
#include "index/index_service.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// Await handlers return an exit code (>= 0) to stop, or one of these.
// Keep waiting for the answer.
constexpr int kKeepWaiting = -1;
// The answer is in: keep printing what follows for the settle time (--wait),
// then exit 0.
constexpr int kSettle = -2;

// How long `watch` waits in one Receive() once the book is shown.
constexpr milliseconds kWatchPoll{1000};
// How long cfx waits for the server's answer to its Logout.
constexpr milliseconds kLogoutWait{1000};
// The protocol's bound on MarketDataSubscribe.recent_trades.
constexpr uint32_t kMaxRecentTrades = 1000;

struct GlobalOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9879;
  std::string api_key;
  std::string secret;
  bool json = false;
  std::string timeout = "5s";
};

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Prints the one error line and returns `code`.
int Fail(int code, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "cfx: %s\n", OneLine(message).c_str());
  return code;
}

// A failed client call: a timeout exits 4, anything else 3.
int FailStatus(const Status& s, const std::string& prefix = "") {
  return Fail(s.code() == StatusCode::kResourceExhausted ? kExitTimeout
                                                         : kExitConnection,
              prefix + s.message());
}

void Print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void PrintJson(const std::string& json) { Print(json + "\n"); }

// Unique per account within a trading day, as the protocol asks: the wall
// clock in nanoseconds.
uint64_t NewClientOrderId() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
}

Result<milliseconds> ParsePositiveMillis(const std::string& text,
                                         const std::string& flag) {
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  if (!d.has_value()) {
    return InvalidArgumentError(flag + ": " + d.error().message());
  }
  const auto ms = std::chrono::duration_cast<milliseconds>(d.value());
  if (ms.count() <= 0) {
    return InvalidArgumentError(flag + ": must be at least 1ms");
  }
  return ms;
}

// Case-insensitive lookup of `text` in `table`; false when absent.
template <typename E>
bool Lookup(std::string_view text,
            std::initializer_list<std::pair<std::string_view, E>> table,
            E* out) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (const auto& [name, value] : table) {
    if (name == lower) {
      *out = value;
      return true;
    }
  }
  return false;
}

// CLI11 reads unsigned options with strtoull(base 0), which takes "-1",
// "0x10" and octal "010". This check allows plain decimal digits only and
// drops leading zeros, so "010" is 10.
CLI::Validator DecimalDigits() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty() ||
            s.find_first_not_of("0123456789") != std::string::npos) {
          return "expected a whole decimal number, not \"" + s + "\"";
        }
        s.erase(0, std::min(s.find_first_not_of('0'), s.size() - 1));
        return std::string();
      },
      "", "DIGITS");
}

bool IsTerminal(w::OrderStatus s) {
  return s == w::ORDER_STATUS_FILLED || s == w::ORDER_STATUS_CANCELED ||
         s == w::ORDER_STATUS_REJECTED || s == w::ORDER_STATUS_EXPIRED;
}

// Prints execution reports: a header before the first text row, or one
// JSON object each.
class ReportPrinter {
 public:
  explicit ReportPrinter(bool json) : json_(json) {}
  void Print(const w::ExecutionReport& r) {
    if (json_) {
      PrintJson(ExecutionReportJson(r));
      return;
    }
    if (!header_) cli::Print(ExecutionReportHeader());
    header_ = true;
    cli::Print(ExecutionReportRow(r));
  }

 private:
  bool json_;
  bool header_ = false;
};

// One logged-on session of a command.
class Connection {
 public:
  explicit Connection(const GlobalOptions& g) : g_(g) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Logs out (orders stay: the logon opted out of cancel-on-disconnect)
  // and waits briefly for the server's Logout, so the session has ended
  // when cfx exits and the next cfx run as this user can log on.
  ~Connection() {
    if (client_ == nullptr || !client_->connected()) return;
    if (!logged_on_) {
      client_->Close();
      return;
    }
    w::Envelope e;
    e.mutable_logout()->set_text("cfx done");
    if (client_->Send(e).ok()) {
      (void)client_->ReceiveUntil(
          [](const w::Envelope& m) { return m.has_logout(); }, kLogoutWait);
    }
    client_->Close();
  }

  // Checks the connection options; returns kExitOk or prints a usage error
  // and returns kExitUsage.
  int Check() {
    Result<milliseconds> t = ParsePositiveMillis(g_.timeout, "--timeout");
    if (!t.has_value()) return Fail(kExitUsage, t.error().message());
    timeout_ = t.value();
    if (g_.api_key.empty()) {
      return Fail(kExitUsage, "no API key: pass --api-key or set CFX_API_KEY");
    }
    if (g_.secret.empty()) {
      return Fail(kExitUsage,
                  "no API secret: pass --secret or set CFX_API_SECRET");
    }
    return kExitOk;
  }

  // Connects and logs on, keeping resting orders after the session ends.
  // Returns kExitOk, or prints the error and returns its exit code.
  int Open() {
    const SteadyClock::time_point start = SteadyClock::now();
    auto c = client::Client::Connect(g_.host, g_.port, timeout_);
    if (!c.has_value()) return Fail(kExitConnection, c.error().message());
    client_ = std::move(c).value();
    client::LogonParams p;
    p.api_key = g_.api_key;
    p.secret = g_.secret;
    p.cancel_on_disconnect_opt_out = true;
    const auto left = std::max(
        milliseconds(1), timeout_ - std::chrono::duration_cast<milliseconds>(
                                        SteadyClock::now() - start));
    Result<w::LogonAck> ack = client_->Logon(p, left);
    if (!ack.has_value()) {
      const std::string& m = ack.error().message();
      return FailStatus(ack.error(),
                        m.rfind("logon", 0) == 0 ? "" : "logon failed: ");
    }
    logged_on_ = true;
    return kExitOk;
  }

  int Send(const w::Envelope& e) {
    const Status s = client_->Send(e);
    return s.ok() ? kExitOk : FailStatus(s);
  }

  // Receives until `handle` returns an exit code. `subject` names the
  // request in errors ("order" -> "order rejected: ..."), `what` the awaited
  // answer ("timed out after 5s waiting for <what>"). A SessionReject is
  // the answer to the one request a command sends: it exits 1. Once
  // `handle` returns kSettle, the wait ends with kExitOk after `settle`
  // without further messages.
  int Await(const std::string& subject, const std::string& what,
            milliseconds settle,
            const std::function<int(const w::Envelope&)>& handle) {
    const SteadyClock::time_point deadline = SteadyClock::now() + timeout_;
    std::optional<SteadyClock::time_point> settle_until;
    for (;;) {
      const SteadyClock::time_point until =
          settle_until.has_value() ? std::min(*settle_until, deadline)
                                   : deadline;
      const auto left =
          std::max(milliseconds(0),
                   std::chrono::ceil<milliseconds>(until - SteadyClock::now()));
      Result<w::Envelope> r = client_->Receive(left);
      if (!r.has_value()) {
        if (r.error().code() != StatusCode::kResourceExhausted) {
          return FailStatus(r.error());
        }
        if (settle_until.has_value()) return kExitOk;
        if (SteadyClock::now() < deadline) continue;
        return Fail(kExitTimeout,
                    "timed out after " + g_.timeout + " waiting for " + what);
      }
      const w::Envelope& m = r.value();
      if (m.has_session_reject()) {
        const w::SessionReject& rej = m.session_reject();
        if (g_.json) PrintJson(SessionRejectJson(rej));
        return Fail(kExitRejected,
                    subject + " rejected: " +
                        ReasonText(EnumName(rej.reason()), rej.text()));
      }
      const int rc = handle(m);
      if (rc == kSettle) {
        settle_until = SteadyClock::now() + settle;
      } else if (rc != kKeepWaiting) {
        return rc;
      }
    }
  }

  client::Client& client() { return *client_; }
  bool json() const { return g_.json; }
  const std::string& timeout_text() const { return g_.timeout; }

 private:
  const GlobalOptions& g_;
  milliseconds timeout_{5000};
  std::unique_ptr<client::Client> client_;
  bool logged_on_ = false;
};

// ------------------------------------------------------------------ order

struct NewOrderArgs {
  std::string symbol;
  std::string side;
  std::string quantity;
  std::string price;
  std::string type = "limit";
  std::string tif;
  std::string expire;
  std::string stp;
  bool post_only = false;
  uint64_t client_order_id = 0;
  bool client_order_id_set = false;
  std::string wait = "200ms";
};

// Builds the NewOrder of `a`, or a usage error.
Result<w::NewOrder> BuildNewOrder(const NewOrderArgs& a) {
  w::NewOrder o;
  o.set_symbol(a.symbol);
  w::Side side = w::SIDE_UNSPECIFIED;
  if (!Lookup<w::Side>(a.side, {{"buy", w::SIDE_BUY}, {"sell", w::SIDE_SELL}},
                       &side)) {
    return InvalidArgumentError("--side: expected buy or sell, not \"" +
                                a.side + "\"");
  }
  o.set_side(side);
  w::OrderType type = w::ORDER_TYPE_UNSPECIFIED;
  if (!Lookup<w::OrderType>(
          a.type,
          {{"limit", w::ORDER_TYPE_LIMIT}, {"market", w::ORDER_TYPE_MARKET}},
          &type)) {
    return InvalidArgumentError("--type: expected limit or market, not \"" +
                                a.type + "\"");
  }
  o.set_order_type(type);
  Result<exchange::Quantity> q = client::ParseQuantity(a.quantity);
  if (!q.has_value())
    return InvalidArgumentError("--qty: " + q.error().message());
  o.set_quantity(q.value().lots);
  if (type == w::ORDER_TYPE_LIMIT) {
    if (a.price.empty()) {
      return InvalidArgumentError("--price is required for a limit order");
    }
    Result<exchange::Price> p = client::ParsePrice(a.price);
    if (!p.has_value()) {
      return InvalidArgumentError("--price: " + p.error().message());
    }
    o.set_price(p.value().units);
  } else if (!a.price.empty()) {
    return InvalidArgumentError("--price cannot be used with --type market");
  }
  w::TimeInForce tif = w::TIME_IN_FORCE_UNSPECIFIED;
  if (a.tif.empty()) {
    tif = type == w::ORDER_TYPE_MARKET ? w::TIME_IN_FORCE_IOC
          : a.expire.empty()           ? w::TIME_IN_FORCE_DAY
                                       : w::TIME_IN_FORCE_GTD;
  } else if (!Lookup<w::TimeInForce>(a.tif,
                                     {{"day", w::TIME_IN_FORCE_DAY},
                                      {"gtc", w::TIME_IN_FORCE_GTC},
                                      {"ioc", w::TIME_IN_FORCE_IOC},
                                      {"fok", w::TIME_IN_FORCE_FOK},
                                      {"gtd", w::TIME_IN_FORCE_GTD}},
                                     &tif)) {
    return InvalidArgumentError(
        "--tif: expected day, gtc, ioc, fok or gtd, not \"" + a.tif + "\"");
  }
  o.set_time_in_force(tif);
  if (tif == w::TIME_IN_FORCE_GTD) {
    if (a.expire.empty()) {
      return InvalidArgumentError("--tif gtd needs --expire");
    }
    Result<exchange::Timestamp> t = exchange::ParseUtcTimestamp(a.expire);
    if (!t.has_value()) {
      return InvalidArgumentError("--expire: " + t.error().message());
    }
    o.set_expire_time_ns(t.value().nanos);
  } else if (!a.expire.empty()) {
    return InvalidArgumentError("--expire needs --tif gtd");
  }
  o.set_post_only(a.post_only);
  if (!a.stp.empty()) {
    w::StpMode stp = w::STP_MODE_ACCOUNT_DEFAULT;
    if (!Lookup<w::StpMode>(a.stp,
                            {{"cancel-newest", w::STP_MODE_CANCEL_NEWEST},
                             {"cancel-oldest", w::STP_MODE_CANCEL_OLDEST},
                             {"cancel-both", w::STP_MODE_CANCEL_BOTH},
                             {"decrement", w::STP_MODE_DECREMENT}},
                            &stp)) {
      return InvalidArgumentError(
          "--stp: expected cancel-newest, cancel-oldest, cancel-both or "
          "decrement, not \"" +
          a.stp + "\"");
    }
    o.set_stp_mode(stp);
  }
  if (a.client_order_id_set && a.client_order_id == 0) {
    return InvalidArgumentError("--client-order-id: must not be 0");
  }
  o.set_client_order_id(a.client_order_id != 0 ? a.client_order_id
                                               : NewClientOrderId());
  return o;
}

int RunOrderNew(const GlobalOptions& g, const NewOrderArgs& a) {
  Result<w::NewOrder> order = BuildNewOrder(a);
  if (!order.has_value()) return Fail(kExitUsage, order.error().message());
  Result<milliseconds> settle = ParsePositiveMillis(a.wait, "--wait");
  if (!settle.has_value()) return Fail(kExitUsage, settle.error().message());
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;

  w::Envelope e;
  *e.mutable_new_order() = order.value();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  const uint64_t cl = order.value().client_order_id();
  // IOC, FOK and market orders end in one command: wait for their end.
  const bool immediate =
      order.value().order_type() == w::ORDER_TYPE_MARKET ||
      order.value().time_in_force() == w::TIME_IN_FORCE_IOC ||
      order.value().time_in_force() == w::TIME_IN_FORCE_FOK;
  uint64_t order_id = 0;
  ReportPrinter printer(c.json());
  return c.Await(
      "order", "the order acknowledgement", settle.value(),
      [&](const w::Envelope& m) {
        if (!m.has_execution_report()) return kKeepWaiting;
        const w::ExecutionReport& r = m.execution_report();
        const bool ours = r.exec_type() != w::EXEC_TYPE_ORDER_STATUS &&
                          (r.client_order_id() == cl ||
                           (order_id != 0 && r.order_id() == order_id));
        if (!ours) return kKeepWaiting;
        if (r.exec_type() == w::EXEC_TYPE_REJECTED) {
          if (c.json()) printer.Print(r);
          return Fail(kExitRejected,
                      "order rejected: " +
                          ReasonText(EnumName(r.reject_reason()), r.text()));
        }
        printer.Print(r);
        if (order_id == 0) order_id = r.order_id();
        if (IsTerminal(r.order_status())) return kExitOk;
        return immediate ? kKeepWaiting : kSettle;
      });
}

int RunOrderCancel(const GlobalOptions& g, uint64_t order_id) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  const uint64_t cl = NewClientOrderId();
  w::Envelope e;
  e.mutable_cancel_order()->set_client_order_id(cl);
  e.mutable_cancel_order()->set_order_id(order_id);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  ReportPrinter printer(c.json());
  return c.Await(
      "cancel", "the cancel's answer", milliseconds(0),
      [&](const w::Envelope& m) {
        if (m.has_cancel_reject()) {
          const w::CancelReject& r = m.cancel_reject();
          if (r.replace() ||
              (r.client_order_id() != cl && r.order_id() != order_id)) {
            return kKeepWaiting;
          }
          if (c.json()) PrintJson(CancelRejectJson(r));
          return Fail(
              kExitRejected,
              "cancel rejected: " + ReasonText(EnumName(r.reason()), r.text()));
        }
        if (!m.has_execution_report()) return kKeepWaiting;
        const w::ExecutionReport& r = m.execution_report();
        if (r.order_id() != order_id ||
            r.exec_type() == w::EXEC_TYPE_ORDER_STATUS) {
          return kKeepWaiting;
        }
        printer.Print(r);
        return r.exec_type() == w::EXEC_TYPE_CANCELED ? kExitOk : kKeepWaiting;
      });
}

// Asks for the state of `order_id`; on success stores it in `*out`.
// Returns kExitOk or the exit code of a printed error.
int QueryOrder(Connection& c, uint64_t order_id, w::ExecutionReport* out,
               bool print) {
  w::Envelope e;
  e.mutable_order_status_request()->set_order_id(order_id);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "order status request", "the order status", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_execution_report()) return kKeepWaiting;
        const w::ExecutionReport& r = m.execution_report();
        if (r.exec_type() != w::EXEC_TYPE_ORDER_STATUS ||
            (r.order_id() != order_id &&
             r.order_status() != w::ORDER_STATUS_UNKNOWN)) {
          return kKeepWaiting;
        }
        if (r.order_status() == w::ORDER_STATUS_UNKNOWN) {
          if (print && c.json()) PrintJson(ExecutionReportJson(r));
          return Fail(
              kExitRejected,
              "order " + std::to_string(order_id) + ": " +
                  ReasonText(r.reject_reason() != w::REJECT_REASON_UNSPECIFIED
                                 ? EnumName(r.reject_reason())
                                 : "UNKNOWN_ORDER",
                             r.text()));
        }
        if (print) ReportPrinter(c.json()).Print(r);
        *out = r;
        return kExitOk;
      });
}

int RunOrderStatus(const GlobalOptions& g, uint64_t order_id) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::ExecutionReport r;
  return QueryOrder(c, order_id, &r, /*print=*/true);
}

struct ReplaceArgs {
  uint64_t order_id = 0;
  std::string price;
  std::string quantity;
  std::string wait = "200ms";
};

int RunOrderReplace(const GlobalOptions& g, const ReplaceArgs& a) {
  if (a.price.empty() && a.quantity.empty()) {
    return Fail(kExitUsage, "replace needs --price, --qty or both");
  }
  std::optional<exchange::Price> price;
  std::optional<exchange::Quantity> quantity;
  if (!a.price.empty()) {
    Result<exchange::Price> p = client::ParsePrice(a.price);
    if (!p.has_value())
      return Fail(kExitUsage, "--price: " + p.error().message());
    price = p.value();
  }
  if (!a.quantity.empty()) {
    Result<exchange::Quantity> q = client::ParseQuantity(a.quantity);
    if (!q.has_value())
      return Fail(kExitUsage, "--qty: " + q.error().message());
    quantity = q.value();
  }
  Result<milliseconds> settle = ParsePositiveMillis(a.wait, "--wait");
  if (!settle.has_value()) return Fail(kExitUsage, settle.error().message());
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;

  // ReplaceOrder carries both price and total quantity: take what was not
  // given from the order's current state.
  if (!price.has_value() || !quantity.has_value()) {
    w::ExecutionReport current;
    const int rc = QueryOrder(c, a.order_id, &current, /*print=*/false);
    if (rc != kExitOk) return rc;
    if (!price.has_value()) price = exchange::Price{current.price()};
    if (!quantity.has_value())
      quantity = exchange::Quantity{current.quantity()};
  }
  const uint64_t cl = NewClientOrderId();
  w::Envelope e;
  w::ReplaceOrder* r = e.mutable_replace_order();
  r->set_client_order_id(cl);
  r->set_order_id(a.order_id);
  r->set_price(price->units);
  r->set_quantity(quantity->lots);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  ReportPrinter printer(c.json());
  bool replaced = false;
  return c.Await(
      "replace", "the replace's answer", settle.value(),
      [&](const w::Envelope& m) {
        if (m.has_cancel_reject()) {
          const w::CancelReject& rej = m.cancel_reject();
          if (!rej.replace() ||
              (rej.client_order_id() != cl && rej.order_id() != a.order_id)) {
            return kKeepWaiting;
          }
          if (c.json()) PrintJson(CancelRejectJson(rej));
          return Fail(kExitRejected,
                      "replace rejected: " +
                          ReasonText(EnumName(rej.reason()), rej.text()));
        }
        if (!m.has_execution_report()) return kKeepWaiting;
        const w::ExecutionReport& rep = m.execution_report();
        if (rep.order_id() != a.order_id ||
            rep.exec_type() == w::EXEC_TYPE_ORDER_STATUS) {
          return kKeepWaiting;
        }
        printer.Print(rep);
        if (rep.exec_type() == w::EXEC_TYPE_REPLACED) replaced = true;
        if (!replaced) return kKeepWaiting;
        return IsTerminal(rep.order_status()) ? kExitOk : kSettle;
      });
}

int RunMassCancel(const GlobalOptions& g, const std::string& symbol) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  const uint64_t cl = NewClientOrderId();
  w::Envelope e;
  e.mutable_mass_cancel()->set_client_order_id(cl);
  e.mutable_mass_cancel()->set_symbol(symbol);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "mass cancel", "the mass cancel report", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_mass_cancel_report()) return kKeepWaiting;
        const w::MassCancelReport& r = m.mass_cancel_report();
        if (r.client_order_id() != cl && r.client_order_id() != 0) {
          return kKeepWaiting;
        }
        if (c.json()) {
          PrintJson(MassCancelReportJson(r));
        } else if (r.reject_reason() == w::REJECT_REASON_UNSPECIFIED) {
          Print(MassCancelReportText(r));
        }
        if (r.reject_reason() != w::REJECT_REASON_UNSPECIFIED) {
          return Fail(kExitRejected,
                      "mass cancel rejected: " +
                          ReasonText(EnumName(r.reject_reason()), r.text()));
        }
        return kExitOk;
      });
}

// ------------------------------------------------------------ market data

struct MarketArgs {
  std::string symbol;
  std::size_t depth = 10;
  uint32_t limit = 20;
  uint64_t updates = 0;
};

void Unsubscribe(Connection& c, const std::string& symbol) {
  w::Envelope e;
  e.mutable_market_data_unsubscribe()->set_symbol(symbol);
  (void)c.client().Send(e);
}

int RunBook(const GlobalOptions& g, const MarketArgs& a) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_market_data_subscribe()->set_symbol(a.symbol);
  e.mutable_market_data_subscribe()->set_depth(true);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  const int rc = c.Await(
      "book request", "the book snapshot", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_book_snapshot() || m.book_snapshot().symbol() != a.symbol) {
          return kKeepWaiting;
        }
        LocalBook book;
        book.Reset(m.book_snapshot());
        if (c.json()) {
          PrintJson(book.Json(a.depth));
        } else {
          Print(book.Text(a.depth));
        }
        return kExitOk;
      });
  if (rc == kExitOk) Unsubscribe(c, a.symbol);
  return rc;
}

int RunTrades(const GlobalOptions& g, const MarketArgs& a) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_market_data_subscribe()->set_symbol(a.symbol);
  e.mutable_market_data_subscribe()->set_trades(true);
  e.mutable_market_data_subscribe()->set_recent_trades(a.limit);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  // The gateway answers one session's requests in order, so the answer to
  // a request sent behind the subscription marks the end of the resent
  // trades.
  w::Envelope marker;
  marker.mutable_grade_list_request();
  if (const int rc = c.Send(marker); rc != kExitOk) return rc;
  std::vector<w::TradePrint> trades;
  const int rc = c.Await(
      "trades request", "the recent trades", milliseconds(0),
      [&](const w::Envelope& m) {
        if (m.has_trade_print() && m.trade_print().symbol() == a.symbol) {
          trades.push_back(m.trade_print());
          return trades.size() >= a.limit ? kExitOk : kKeepWaiting;
        }
        return m.has_grade_list() ? kExitOk : kKeepWaiting;
      });
  if (rc != kExitOk) return rc;
  Unsubscribe(c, a.symbol);
  if (c.json()) {
    for (const w::TradePrint& t : trades) PrintJson(TradeJson(t));
  } else if (trades.empty()) {
    Print("no trades in " + a.symbol + "\n");
  } else {
    std::string out = TradeHeader();
    for (const w::TradePrint& t : trades) out += TradeRow(t);
    Print(out);
  }
  return kExitOk;
}

int RunWatch(const GlobalOptions& g, const MarketArgs& a) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_market_data_subscribe()->set_symbol(a.symbol);
  e.mutable_market_data_subscribe()->set_depth(true);
  e.mutable_market_data_subscribe()->set_trades(true);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;

  LocalBook book;
  bool have_book = false;
  uint64_t updates = 0;
  std::optional<w::TradePrint> last_trade;
  const auto draw = [&] {
    std::string out = "\x1b[H\x1b[2J" + book.Text(a.depth) + "\n";
    if (last_trade.has_value()) {
      out += "last trade: " + std::to_string(last_trade->quantity()) + " @ " +
             client::FormatPrice(exchange::Price{last_trade->price()}) + " " +
             EnumName(last_trade->aggressor_side()) + "  " +
             FormatTime(last_trade->time_ns()) + "\n";
    }
    out += "updates: " + std::to_string(updates) +
           (a.updates != 0 ? " of " + std::to_string(a.updates) : "") +
           "  (Ctrl-C to quit)\n";
    Print(out);
  };
  // Until the snapshot arrives, the usual --timeout applies.
  const int rc = c.Await(
      "watch request", "the book snapshot", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_book_snapshot() || m.book_snapshot().symbol() != a.symbol) {
          return kKeepWaiting;
        }
        book.Reset(m.book_snapshot());
        have_book = true;
        return kExitOk;
      });
  if (rc != kExitOk) return rc;
  if (c.json()) {
    PrintJson(book.Json(a.depth));
  } else {
    draw();
  }
  while (a.updates == 0 || updates < a.updates) {
    Result<w::Envelope> r = c.client().Receive(kWatchPoll);
    if (!r.has_value()) {
      if (r.error().code() == StatusCode::kResourceExhausted) continue;
      return FailStatus(r.error());
    }
    const w::Envelope& m = r.value();
    if (m.has_book_update() && book.Apply(m.book_update())) {
      ++updates;
      if (c.json()) {
        PrintJson(BookUpdateJson(m.book_update()));
      } else {
        draw();
      }
    } else if (m.has_trade_print() && m.trade_print().symbol() == a.symbol) {
      last_trade = m.trade_print();
      if (c.json()) {
        PrintJson(TradeJson(m.trade_print()));
      } else {
        draw();
      }
    } else if (m.has_book_snapshot() &&
               m.book_snapshot().symbol() == a.symbol) {
      book.Reset(m.book_snapshot());
      if (c.json()) {
        PrintJson(book.Json(a.depth));
      } else {
        draw();
      }
    } else if (m.has_session_reject()) {
      return Fail(
          kExitRejected,
          "watch rejected: " + ReasonText(EnumName(m.session_reject().reason()),
                                          m.session_reject().text()));
    }
  }
  Unsubscribe(c, a.symbol);
  return kExitOk;
}

// -------------------------------------------------------------- reference

int RunInstruments(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_instrument_list_request();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "instrument list request", "the instrument list", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_instrument_list()) return kKeepWaiting;
        if (c.json()) {
          for (const w::Instrument& i : m.instrument_list().instruments()) {
            PrintJson(InstrumentJson(i));
          }
        } else {
          Print(InstrumentsText(m.instrument_list()));
        }
        return kExitOk;
      });
}

int RunGrades(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_grade_list_request();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await("grade list request", "the grade list", milliseconds(0),
                 [&](const w::Envelope& m) {
                   if (!m.has_grade_list()) return kKeepWaiting;
                   if (c.json()) {
                     for (const w::Grade& gr : m.grade_list().grades()) {
                       PrintJson(GradeJson(gr));
                     }
                   } else {
                     Print(GradesText(m.grade_list()));
                   }
                   return kExitOk;
                 });
}

// -------------------------------------------------- ratings, attestations

std::string ProtoJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

std::string UtcText(int64_t ns) {
  return ns == 0 ? "-" : exchange::FormatUtcTimestamp(exchange::Timestamp{ns});
}

void PrintStanding(
    const google::protobuf::RepeatedPtrField<w::GradeStanding>& standing) {
  for (const w::GradeStanding& g : standing) {
    std::string line = "  " + g.grade() + ": ";
    if (g.eligible()) {
      line += "eligible, " + std::to_string(g.attested_nodes()) +
              " attested node" + (g.attested_nodes() == 1 ? "" : "s") + "\n";
    } else {
      line += "not eligible: " + g.missing() + "\n";
    }
    Print(line);
  }
}

// Sends `e` (one reference-data request) and waits for its ReferenceAck.
// `done(ack)` prints the accepted answer.
int RunReference(const GlobalOptions& g, const std::string& subject,
                 const w::Envelope& e, uint64_t request_id,
                 const std::function<void(const w::ReferenceAck&)>& done) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      subject, "the answer", milliseconds(0), [&](const w::Envelope& m) {
        if (!m.has_reference_ack() ||
            m.reference_ack().request_id() != request_id) {
          return kKeepWaiting;
        }
        const w::ReferenceAck& ack = m.reference_ack();
        if (c.json()) PrintJson(ProtoJson(ack));
        if (!ack.accepted()) {
          return Fail(kExitRejected,
                      subject + " rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!c.json()) done(ack);
        return kExitOk;
      });
}

uint64_t RequestId() {
  return static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
}

struct RatingArgs {
  std::string operator_firm;
  std::string tier;
  std::string effective;
  std::string expires;
  std::string reference;
};

int RunRatingSet(const GlobalOptions& g, const RatingArgs& a) {
  static const std::pair<const char*, w::RatingTier> kTiers[] = {
      {"platinum", w::RATING_TIER_PLATINUM},
      {"gold", w::RATING_TIER_GOLD},
      {"silver", w::RATING_TIER_SILVER},
      {"bronze", w::RATING_TIER_BRONZE},
      {"underperform", w::RATING_TIER_UNDERPERFORM}};
  std::string tier = a.tier;
  for (char& ch : tier) ch = static_cast<char>(std::tolower(ch));
  w::RatingTier t = w::RATING_TIER_UNSPECIFIED;
  for (const auto& [name, value] : kTiers) {
    if (tier == name) t = value;
  }
  if (t == w::RATING_TIER_UNSPECIFIED) {
    return Fail(kExitUsage,
                "tier must be platinum, gold, silver, bronze or underperform");
  }
  w::Envelope e;
  w::RatingSet* m = e.mutable_rating_set();
  m->set_request_id(RequestId());
  m->set_operator_firm(a.operator_firm);
  m->set_tier(t);
  m->set_reference(a.reference);
  if (!a.effective.empty()) {
    Result<exchange::Timestamp> ts = exchange::ParseUtcTimestamp(a.effective);
    if (!ts.has_value()) return Fail(kExitUsage, ts.error().message());
    m->set_effective_ns(ts.value().nanos);
  }
  Result<exchange::Timestamp> ts = exchange::ParseUtcTimestamp(a.expires);
  if (!ts.has_value()) return Fail(kExitUsage, ts.error().message());
  m->set_expires_ns(ts.value().nanos);
  return RunReference(
      g, "rating", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("rated " + a.operator_firm + " " + tier + " (reference " +
              a.reference + "), seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunRatingRevoke(const GlobalOptions& g, const RatingArgs& a) {
  w::Envelope e;
  w::RatingRevoke* m = e.mutable_rating_revoke();
  m->set_request_id(RequestId());
  m->set_operator_firm(a.operator_firm);
  m->set_reference(a.reference);
  return RunReference(
      g, "rating revoke", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("revoked rating " + a.reference + " of " + a.operator_firm +
              ", seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunRatingShow(const GlobalOptions& g, const std::string& firm) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::RatingQuery* q = e.mutable_rating_query();
  q->set_request_id(RequestId());
  q->set_operator_firm(firm);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "rating query", "the rating report", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_rating_report() || m.rating_report().request_id() != id) {
          return kKeepWaiting;
        }
        const w::RatingReport& r = m.rating_report();
        if (c.json()) {
          PrintJson(ProtoJson(r));
          return kExitOk;
        }
        if (r.ratings().empty()) {
          Print("no ratings of " + r.operator_firm() + " visible to you\n");
        }
        for (const w::Rating& x : r.ratings()) {
          Print(r.operator_firm() + " " + EnumName(x.tier()) + " " +
                UtcText(x.effective_ns()) + " .. " + UtcText(x.expires_ns()) +
                " by " + x.agency() + " ref " + x.reference() +
                (x.revoked() ? " REVOKED" : "") +
                (x.in_force() ? " (in force)" : "") + "\n");
        }
        if (!r.standing().empty()) {
          Print("standing:\n");
          PrintStanding(r.standing());
        }
        return kExitOk;
      });
}

int RunAttestSubmit(const GlobalOptions& g, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(kExitUsage, "cannot open " + path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (text.size() > 60'000) return Fail(kExitUsage, path + ": too large");
  w::Envelope e;
  w::AttestationSubmit* m = e.mutable_attestation_submit();
  m->set_request_id(RequestId());
  m->set_signed_attestation(std::move(text));
  return RunReference(
      g, "attestation", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("attestation accepted, seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunAttestList(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_attestation_list_request()->set_request_id(RequestId());
  const uint64_t id = e.attestation_list_request().request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "attestation list", "the attestation list", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_attestation_list() ||
            m.attestation_list().request_id() != id) {
          return kKeepWaiting;
        }
        const w::AttestationList& l = m.attestation_list();
        if (c.json()) {
          PrintJson(ProtoJson(l));
          return kExitOk;
        }
        if (l.attestations().empty()) Print("no attestations\n");
        for (const w::AttestationInfo& a : l.attestations()) {
          Print(a.attestation_id() + "  node " + a.node_id() + "  " +
                std::to_string(a.gpu_count()) + "x " + a.gpu_model() + "  " +
                a.recipe() + "  " + a.output_tokens_per_s_per_gpu() +
                " tok/s/GPU  measured " + UtcText(a.measured_at_ns()) +
                "  key " + a.attester_key_id() + "\n");
        }
        if (!l.standing().empty()) {
          Print("standing:\n");
          PrintStanding(l.standing());
        }
        return kExitOk;
      });
}

int RunKeyRegister(const GlobalOptions& g, const std::string& pub_path,
                   const std::string& attester) {
  Result<std::string> pub = attest::ReadPublicKeyFile(pub_path);
  if (!pub.has_value()) return Fail(kExitUsage, pub.error().message());
  w::Envelope e;
  w::AttesterKeyRegister* m = e.mutable_attester_key_register();
  m->set_request_id(RequestId());
  m->set_public_key(pub.value());
  m->set_attester(attester);
  return RunReference(g, "key registration", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("registered " + ack.key_id() + " for " +
                              attester + ", seq " + std::to_string(ack.seq()) +
                              "\n");
                      });
}

int RunKeyRevoke(const GlobalOptions& g, const std::string& key_id) {
  w::Envelope e;
  w::AttesterKeyRevoke* m = e.mutable_attester_key_revoke();
  m->set_request_id(RequestId());
  m->set_key_id(key_id);
  return RunReference(g, "key revocation", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("revoked " + key_id + ", seq " +
                              std::to_string(ack.seq()) + "\n");
                      });
}

int RunReportFailure(const GlobalOptions& g, uint64_t trade_id) {
  w::Envelope e;
  w::SpotFailureReport* m = e.mutable_spot_failure_report();
  m->set_request_id(RequestId());
  m->set_trade_id(trade_id);
  return RunReference(
      g, "failure report", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("trade " + std::to_string(trade_id) + " busted, seq " +
              std::to_string(ack.seq()) + "\n");
      });
}

// ------------------------------------------------------------------ index

struct IndexArgs {
  std::string grade;
  std::string from;
  std::string to;
  std::string date;
  bool all_revisions = false;
};

// A usage error for a grade that is not printable ASCII without spaces
// (protobuf strings must be UTF-8: such a name could not even be sent), else
// kExitOk. Whether the grade exists is the exchange's answer.
int CheckGrade(const std::string& grade) {
  for (const char ch : grade) {
    if (ch <= 0x20 || ch >= 0x7f) {
      return Fail(kExitUsage, "GRADE: not a grade name, e.g. B200-STD");
    }
  }
  return kExitOk;
}

// A usage error for a date argument that is not YYYY-MM-DD, else kExitOk.
int CheckDate(const std::string& date, const std::string& what) {
  if (date.empty() || ParseDay(date).has_value()) return kExitOk;
  return Fail(kExitUsage,
              what + ": \"" + OneLine(date) + "\" is not a date (YYYY-MM-DD)");
}

// A ReferenceAck refusing query `request_id` (index, settlement): printed
// (and as JSON with --json); returns kExitRejected. kKeepWaiting for any
// other message.
int Refusal(Connection& c, const std::string& subject, uint64_t request_id,
            const w::Envelope& m) {
  if (!m.has_reference_ack() || m.reference_ack().request_id() != request_id) {
    return kKeepWaiting;
  }
  const w::ReferenceAck& ack = m.reference_ack();
  if (c.json()) PrintJson(ProtoJson(ack));
  return Fail(
      kExitRejected,
      subject + " rejected: " + ReasonText(EnumName(ack.reason()), ack.text()));
}

// Sends an IndexQuery and collects its IndexPrintLists into *out. Returns
// kExitOk, or the exit code of a printed error.
int QueryIndex(Connection& c, const std::string& grade, const std::string& from,
               const std::string& to, std::vector<w::IndexPrint>* out,
               bool all_revisions = false) {
  w::Envelope e;
  w::IndexQuery* q = e.mutable_index_query();
  q->set_request_id(RequestId());
  q->set_grade(grade);
  q->set_from_date(from);
  q->set_to_date(to);
  q->set_all_revisions(all_revisions);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await("index query", "the index prints", milliseconds(0),
                 [&](const w::Envelope& m) {
                   if (m.has_index_print_list() &&
                       m.index_print_list().request_id() == id) {
                     const w::IndexPrintList& l = m.index_print_list();
                     out->insert(out->end(), l.prints().begin(),
                                 l.prints().end());
                     return l.more() ? kKeepWaiting : kExitOk;
                   }
                   return Refusal(c, "index query", id, m);
                 });
}

int RunIndexShow(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  std::vector<w::IndexPrint> prints;
  if (const int rc = QueryIndex(c, a.grade, "", "", &prints); rc != kExitOk) {
    return rc;
  }
  if (prints.empty()) {
    return Fail(kExitRejected, "no print of CFX-" + a.grade + " yet");
  }
  Print(c.json() ? IndexPrintJson(prints.back()) + "\n"
                 : IndexPrintText(prints.back()));
  return kExitOk;
}

int RunIndexHistory(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.from, "--from"); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.to, "--to"); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  std::string to = a.to;
  if (a.from.empty() && to.empty()) {
    // No range: the days up to the latest print (the server's default span
    // before to_date).
    std::vector<w::IndexPrint> latest;
    if (const int rc = QueryIndex(c, a.grade, "", "", &latest); rc != kExitOk) {
      return rc;
    }
    if (latest.empty()) {
      if (!c.json()) Print("no prints of CFX-" + a.grade + "\n");
      return kExitOk;
    }
    to = latest.back().date();
  }
  std::vector<w::IndexPrint> prints;
  if (const int rc =
          QueryIndex(c, a.grade, a.from, to, &prints, a.all_revisions);
      rc != kExitOk) {
    return rc;
  }
  if (c.json()) {
    for (const w::IndexPrint& p : prints) PrintJson(IndexPrintJson(p));
  } else if (prints.empty()) {
    Print("no prints of CFX-" + a.grade + " in that range\n");
  } else {
    Print(IndexHistoryText(prints, /*computed_at=*/a.all_revisions));
  }
  return kExitOk;
}

int RunIndexExplain(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.date, "DATE"); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::IndexExplainRequest* r = e.mutable_index_explain_request();
  r->set_request_id(RequestId());
  r->set_grade(a.grade);
  r->set_date(a.date);
  const uint64_t id = r->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  // A long explanation comes in parts: the first has the print, the notes
  // and the partitions; every part has more trades.
  w::IndexExplanation x;
  bool first = true;
  const int rc = c.Await("index explain", "the index explanation",
                         milliseconds(0), [&](const w::Envelope& m) {
                           if (!m.has_index_explanation() ||
                               m.index_explanation().request_id() != id) {
                             return Refusal(c, "index explain", id, m);
                           }
                           const w::IndexExplanation& part =
                               m.index_explanation();
                           if (first) {
                             x = part;
                             first = false;
                           } else {
                             x.mutable_trades()->MergeFrom(part.trades());
                             x.mutable_excluded()->MergeFrom(part.excluded());
                           }
                           return part.more() ? kKeepWaiting : kExitOk;
                         });
  if (rc != kExitOk) return rc;
  x.set_more(false);
  if (!c.json()) {
    Print(IndexExplanationText(x));
    return kExitOk;
  }
  // The print reads as everywhere else (IndexPrintJson); the rest of the
  // explanation is the message's JSON.
  w::IndexExplanation rest = x;
  rest.clear_print();
  const std::string others = ProtoJson(rest);
  Print("{\"print\":" + IndexPrintJson(x.print()) +
        (others.size() > 2 ? "," + others.substr(1) : "}") + "\n");
  return kExitOk;
}

// ------------------------------------------------------------------ clearing

struct SettleArgs {
  std::string date;
  bool csv = false;
};

int RunSettleStatus(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  const uint64_t id = RequestId();
  e.mutable_settlement_status_request()->set_request_id(id);
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await("settlement status", "the settlement status", milliseconds(0),
                 [&](const w::Envelope& m) {
                   if (!m.has_settlement_status() ||
                       m.settlement_status().request_id() != id) {
                     return Refusal(c, "settlement status", id, m);
                   }
                   const w::SettlementStatus& s = m.settlement_status();
                   Print(c.json() ? SettlementStatusJson(s) + "\n"
                                  : SettlementStatusText(s));
                   return kExitOk;
                 });
}

int RunSettleReport(const GlobalOptions& g, const SettleArgs& a) {
  if (a.date.empty() || !ParseDay(a.date).has_value()) {
    return Fail(kExitUsage,
                "DATE: \"" + OneLine(a.date) + "\" is not a date (YYYY-MM-DD)");
  }
  if (a.csv && g.json) {
    return Fail(kExitUsage, "--csv and --json exclude each other");
  }
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::SettlementQuery* q = e.mutable_settlement_query();
  q->set_request_id(RequestId());
  q->set_date(a.date);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  // A large report comes in parts: contracts first, then accounts, fills
  // and movements; merging appends every repeated field.
  w::SettlementReport report;
  const int rc = c.Await("settlement report", "the settlement report",
                         milliseconds(0), [&](const w::Envelope& m) {
                           if (!m.has_settlement_report() ||
                               m.settlement_report().request_id() != id) {
                             return Refusal(c, "settlement report", id, m);
                           }
                           const w::SettlementReport& part =
                               m.settlement_report();
                           report.MergeFrom(part);
                           return part.more() ? kKeepWaiting : kExitOk;
                         });
  if (rc != kExitOk) return rc;
  report.set_more(false);
  if (c.json()) {
    PrintJson(SettlementReportJson(report));
  } else if (a.csv) {
    Print(SettlementReportCsv(report));
  } else {
    Print(SettlementReportText(report));
  }
  return kExitOk;
}

struct CallsArgs {
  std::string date;
  std::string account;
};

int RunSettleCalls(const GlobalOptions& g, const CallsArgs& a) {
  if (!a.date.empty()) {
    if (const int rc = CheckDate(a.date, "DATE"); rc != kExitOk) return rc;
  }
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::MarginCallQuery* q = e.mutable_margin_call_query();
  q->set_request_id(RequestId());
  q->set_date(a.date);
  q->set_account(a.account);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  w::MarginCallList list;
  bool first = true;
  const int rc = c.Await("margin calls", "the margin calls", milliseconds(0),
                         [&](const w::Envelope& m) {
                           if (!m.has_margin_call_list() ||
                               m.margin_call_list().request_id() != id) {
                             return Refusal(c, "margin calls", id, m);
                           }
                           const w::MarginCallList& part = m.margin_call_list();
                           if (first) {
                             list = part;
                             first = false;
                           } else {
                             list.mutable_calls()->MergeFrom(part.calls());
                           }
                           return part.more() ? kKeepWaiting : kExitOk;
                         });
  if (rc != kExitOk) return rc;
  list.set_more(false);
  if (c.json()) {
    PrintJson(MarginCallListJson(list));
  } else {
    Print(MarginCallListText(list));
  }
  return kExitOk;
}

// Sends the re-run, waits for its acknowledgement (once journaled), then
// prints the settlement status as it is after the re-run.
int RunSettleRerun(const GlobalOptions& g, const std::string& date) {
  if (const int rc = CheckDate(date, "DATE"); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::SettlementRerunRequest* r = e.mutable_settlement_rerun_request();
  r->set_request_id(RequestId());
  r->set_date(date);
  const uint64_t id = r->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  int rc = c.Await(
      "settlement rerun", "the answer", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_settlement_rerun_ack() ||
            m.settlement_rerun_ack().request_id() != id) {
          return kKeepWaiting;
        }
        const w::SettlementRerunAck& ack = m.settlement_rerun_ack();
        if (c.json()) PrintJson(ProtoJson(ack));
        if (!ack.accepted()) {
          return Fail(kExitRejected,
                      "settlement rerun rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!c.json()) {
          Print("rerun of " + ack.date() + " journaled at seq " +
                std::to_string(ack.seq()) + "\n");
        }
        return kExitOk;
      });
  if (rc != kExitOk) return rc;
  w::Envelope s;
  const uint64_t sid = RequestId();
  s.mutable_settlement_status_request()->set_request_id(sid);
  if (rc = c.Send(s); rc != kExitOk) return rc;
  return c.Await("settlement status", "the settlement status", milliseconds(0),
                 [&](const w::Envelope& m) {
                   if (!m.has_settlement_status() ||
                       m.settlement_status().request_id() != sid) {
                     return Refusal(c, "settlement status", sid, m);
                   }
                   const w::SettlementStatus& st = m.settlement_status();
                   Print(c.json() ? SettlementStatusJson(st) + "\n"
                                  : SettlementStatusText(st));
                   return st.ok() ? kExitOk : kExitRejected;
                 });
}

struct CollateralArgs {
  std::string account;
  std::string amount;
};

int RunCollateral(const GlobalOptions& g, const CollateralArgs& a,
                  w::CollateralAction action) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  w::CollateralRequest* r = e.mutable_collateral_request();
  r->set_request_id(RequestId());
  r->set_account(a.account);
  r->set_action(action);
  r->set_amount(a.amount);
  const uint64_t id = r->request_id();
  const std::string subject =
      action == w::COLLATERAL_ACTION_DEPOSIT ? "deposit" : "withdrawal";
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      subject, "the answer", milliseconds(0), [&](const w::Envelope& m) {
        if (!m.has_collateral_ack() || m.collateral_ack().request_id() != id) {
          return kKeepWaiting;
        }
        const w::CollateralAck& ack = m.collateral_ack();
        if (c.json()) PrintJson(CollateralAckJson(ack));
        if (!ack.accepted()) {
          return Fail(kExitRejected,
                      subject + " rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!c.json()) Print(CollateralAckText(ack));
        return kExitOk;
      });
}

// ------------------------------------------------------------------ admin

struct ClockArgs {
  std::string duration;
  std::string time;
};

int RunClock(const GlobalOptions& g, const w::ClockRequest& request) {
  Connection c(g);
  if (const int rc = c.Check(); rc != kExitOk) return rc;
  if (const int rc = c.Open(); rc != kExitOk) return rc;
  w::Envelope e;
  *e.mutable_clock_request() = request;
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await("clock request", "the clock report", milliseconds(0),
                 [&](const w::Envelope& m) {
                   if (!m.has_clock_report()) return kKeepWaiting;
                   Print(c.json() ? ClockJson(m.clock_report()) + "\n"
                                  : ClockText(m.clock_report()));
                   return kExitOk;
                 });
}

int RunHashPassword(bool json, uint32_t iterations) {
  std::string password((std::istreambuf_iterator<char>(std::cin)),
                       std::istreambuf_iterator<char>());
  if (!password.empty() && password.back() == '\n') password.pop_back();
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    return Fail(kExitUsage, "no password on stdin");
  }
  if (password.find('\n') != std::string::npos) {
    return Fail(kExitUsage, "the password on stdin must be one line");
  }
  const std::string hash = HashPassword(password, NewSalt(), iterations);
  if (hash.empty()) return Fail(kExitRejected, "cannot hash the password");
  Print(
      json ? JsonObject().Str("type", "password_hash").Str("hash", hash).str() +
                 "\n"
           : hash + "\n");
  return kExitOk;
}

}  // namespace

void AddGatewayCommands(CLI::App& app, int* exit_code, CLI::App* attest) {
  auto g = std::make_shared<GlobalOptions>();
  const std::string conn = "Connection";
  app.add_option("--host", g->host, "Gateway host (env CFX_HOST)")
      ->envname("CFX_HOST")
      ->capture_default_str()
      ->group(conn);
  app.add_option("--port", g->port, "Gateway port (env CFX_PORT)")
      ->envname("CFX_PORT")
      ->capture_default_str()
      ->group(conn)
      ->check(DecimalDigits());
  app.add_option("--api-key", g->api_key,
                 "API key, e.g. trader-a (env CFX_API_KEY)")
      ->envname("CFX_API_KEY")
      ->group(conn);
  app.add_option("--secret", g->secret,
                 "API secret, e.g. demo-trader-a (env CFX_API_SECRET)")
      ->envname("CFX_API_SECRET")
      ->group(conn);
  app.add_option("--timeout", g->timeout,
                 "How long to wait for each answer, e.g. 5s or 500ms")
      ->capture_default_str()
      ->group(conn);
  app.add_flag("--json", g->json, "One JSON object per result")
      ->group("Output");

  // order
  CLI::App* order = app.add_subcommand("order", "Enter and manage orders");
  order->require_subcommand(1);

  auto n = std::make_shared<NewOrderArgs>();
  CLI::App* neworder = order->add_subcommand(
      "new", "Send a new order; print its acknowledgement or reject and fills");
  neworder->add_option("--symbol", n->symbol, "Instrument, e.g. XB2SZ6")
      ->required();
  neworder->add_option("--side", n->side, "buy or sell")->required();
  neworder->add_option("--qty", n->quantity, "Quantity in lots")->required();
  neworder->add_option("--price", n->price,
                       "Limit price in USD per GPU-hour, e.g. 5.80");
  neworder->add_option("--type", n->type, "limit or market")
      ->capture_default_str();
  neworder->add_option("--tif", n->tif,
                       "day, gtc, ioc, fok or gtd (default: day; ioc for "
                       "market orders; gtd with --expire)");
  neworder->add_option("--expire", n->expire,
                       "GTD expiry, UTC, e.g. 2026-12-02T00:00:00Z");
  neworder->add_flag("--post-only", n->post_only,
                     "Reject instead of taking liquidity");
  neworder->add_option("--stp", n->stp,
                       "Self-trade prevention: cancel-newest, cancel-oldest, "
                       "cancel-both or decrement (default: the account's)");
  CLI::Option* cl_opt = neworder->add_option(
      "--client-order-id", n->client_order_id,
      "Client order id, nonzero (default: from the clock)");
  cl_opt->check(DecimalDigits());
  neworder
      ->add_option("--wait", n->wait,
                   "After the acknowledgement, print the order's reports "
                   "for this long")
      ->capture_default_str();
  neworder->callback([g, n, cl_opt, exit_code] {
    n->client_order_id_set = cl_opt->count() > 0;
    *exit_code = RunOrderNew(*g, *n);
  });

  auto cancel_id = std::make_shared<uint64_t>(0);
  CLI::App* cancel = order->add_subcommand("cancel", "Cancel an order");
  cancel->add_option("ORDER_ID", *cancel_id, "Exchange order id")
      ->required()
      ->check(DecimalDigits());
  cancel->callback([g, cancel_id, exit_code] {
    *exit_code = RunOrderCancel(*g, *cancel_id);
  });

  auto rep = std::make_shared<ReplaceArgs>();
  CLI::App* replace = order->add_subcommand(
      "replace", "Change an order's price and/or total quantity");
  replace->add_option("ORDER_ID", rep->order_id, "Exchange order id")
      ->required()
      ->check(DecimalDigits());
  replace->add_option("--price", rep->price, "New limit price, e.g. 5.81");
  replace->add_option("--qty", rep->quantity,
                      "New total quantity in lots, filled lots included");
  replace
      ->add_option("--wait", rep->wait,
                   "After the acknowledgement, print the order's reports "
                   "for this long")
      ->capture_default_str();
  replace->callback(
      [g, rep, exit_code] { *exit_code = RunOrderReplace(*g, *rep); });

  auto status_id = std::make_shared<uint64_t>(0);
  CLI::App* status = order->add_subcommand("status", "Show an order's state");
  status->add_option("ORDER_ID", *status_id, "Exchange order id")
      ->required()
      ->check(DecimalDigits());
  status->callback([g, status_id, exit_code] {
    *exit_code = RunOrderStatus(*g, *status_id);
  });

  auto mass_symbol = std::make_shared<std::string>();
  CLI::App* mass = order->add_subcommand(
      "mass-cancel", "Cancel all resting orders, or those in one symbol");
  mass->add_option("--symbol", *mass_symbol, "Only this instrument");
  mass->callback([g, mass_symbol, exit_code] {
    *exit_code = RunMassCancel(*g, *mass_symbol);
  });

  // market data
  auto book_args = std::make_shared<MarketArgs>();
  CLI::App* book = app.add_subcommand("book", "Print an order book snapshot");
  book->add_option("SYMBOL", book_args->symbol, "Instrument")->required();
  book->add_option("--depth", book_args->depth, "Levels per side (0 = all)")
      ->capture_default_str()
      ->check(DecimalDigits());
  book->callback(
      [g, book_args, exit_code] { *exit_code = RunBook(*g, *book_args); });

  auto trade_args = std::make_shared<MarketArgs>();
  CLI::App* trades = app.add_subcommand("trades", "Print recent trades");
  trades->add_option("SYMBOL", trade_args->symbol, "Instrument")->required();
  trades->add_option("--limit", trade_args->limit, "How many (1 to 1000)")
      ->capture_default_str()
      ->check(CLI::Range(uint32_t{1}, kMaxRecentTrades))
      ->check(DecimalDigits());
  trades->callback(
      [g, trade_args, exit_code] { *exit_code = RunTrades(*g, *trade_args); });

  auto watch_args = std::make_shared<MarketArgs>();
  CLI::App* watch =
      app.add_subcommand("watch", "A live order book in the terminal");
  watch->add_option("SYMBOL", watch_args->symbol, "Instrument")->required();
  watch->add_option("--depth", watch_args->depth, "Levels per side (0 = all)")
      ->capture_default_str()
      ->check(DecimalDigits());
  watch
      ->add_option("--updates", watch_args->updates,
                   "Exit after this many book updates (0 = until Ctrl-C)")
      ->capture_default_str()
      ->check(DecimalDigits());
  watch->callback(
      [g, watch_args, exit_code] { *exit_code = RunWatch(*g, *watch_args); });

  // reference data
  app.add_subcommand("instruments", "List the listed instruments")
      ->callback([g, exit_code] { *exit_code = RunInstruments(*g); });
  app.add_subcommand("grades", "List the grades")->callback([g, exit_code] {
    *exit_code = RunGrades(*g);
  });

  // admin
  CLI::App* admin = app.add_subcommand("admin", "Exchange administration");
  admin->require_subcommand(1);
  CLI::App* clock = admin->add_subcommand(
      "clock", "Show, advance or set the exchange clock (admin role)");
  clock->require_subcommand(0, 1);
  auto clock_args = std::make_shared<ClockArgs>();
  clock->add_subcommand("show", "Show the exchange time (the default)");
  CLI::App* advance = clock->add_subcommand(
      "advance", "Move the simulated clock forward, e.g. by 6h");
  advance->add_option("DURATION", clock_args->duration, "e.g. 90s, 15m, 6h, 2d")
      ->required();
  CLI::App* set = clock->add_subcommand(
      "set", "Move the simulated clock to a time, e.g. 2026-12-02T00:00:00Z");
  set->add_option("TIME", clock_args->time, "UTC, YYYY-MM-DDTHH:MM:SSZ")
      ->required();
  clock->callback([g, clock_args, advance, set, exit_code] {
    w::ClockRequest request;
    if (*advance) {
      Result<std::chrono::nanoseconds> d = ParseDuration(clock_args->duration);
      if (!d.has_value()) {
        *exit_code = Fail(kExitUsage, d.error().message());
        return;
      }
      if (d.value().count() <= 0) {
        *exit_code = Fail(kExitUsage, "the clock only advances by more than 0");
        return;
      }
      request.set_advance_ns(d.value().count());
    } else if (*set) {
      Result<exchange::Timestamp> t =
          exchange::ParseUtcTimestamp(clock_args->time);
      if (!t.has_value()) {
        *exit_code = Fail(kExitUsage, t.error().message());
        return;
      }
      request.set_set_time_ns(t.value().nanos);
    } else {
      request.set_read(true);
    }
    *exit_code = RunClock(*g, request);
  });

  // rating (the rating agency; `show` for providers and the admin too)
  CLI::App* rating = app.add_subcommand(
      "rating", "Operator ratings: set and revoke (rating agency), show");
  rating->require_subcommand(1);
  auto ra = std::make_shared<RatingArgs>();
  CLI::App* rset = rating->add_subcommand(
      "set", "Rate an operator, e.g. rating set PROV-A gold --expires ...");
  rset->add_option("OPERATOR", ra->operator_firm, "The provider firm")
      ->required();
  rset->add_option("TIER", ra->tier,
                   "platinum, gold, silver, bronze or underperform")
      ->required();
  rset->add_option("--expires", ra->expires, "UTC, YYYY-MM-DDTHH:MM:SSZ")
      ->required();
  rset->add_option("--effective", ra->effective,
                   "UTC, YYYY-MM-DDTHH:MM:SSZ (default: now)");
  rset->add_option("--reference", ra->reference,
                   "The agency's id of the rating, unique per operator")
      ->required();
  rset->callback([g, ra, exit_code] { *exit_code = RunRatingSet(*g, *ra); });
  CLI::App* rrevoke =
      rating->add_subcommand("revoke", "Withdraw one of your ratings");
  rrevoke->add_option("OPERATOR", ra->operator_firm, "The provider firm")
      ->required();
  rrevoke->add_option("REFERENCE", ra->reference, "The rating's reference")
      ->required();
  rrevoke->callback(
      [g, ra, exit_code] { *exit_code = RunRatingRevoke(*g, *ra); });
  CLI::App* rshow = rating->add_subcommand(
      "show", "Show an operator's ratings (default: your own firm's)");
  rshow->add_option("OPERATOR", ra->operator_firm, "The provider firm");
  rshow->callback([g, ra, exit_code] {
    *exit_code = RunRatingShow(*g, ra->operator_firm);
  });

  // attest submit | list | key (the offline commands are attest_commands.cc)
  if (attest != nullptr) {
    auto file = std::make_shared<std::string>();
    CLI::App* submit = attest->add_subcommand(
        "submit", "Submit a signed attestation (provider)");
    submit->add_option("FILE", *file, "As written by `cfx attest sign`")
        ->required();
    submit->callback(
        [g, file, exit_code] { *exit_code = RunAttestSubmit(*g, *file); });
    attest
        ->add_subcommand("list",
                         "List your attestations and grade standing "
                         "(provider)")
        ->callback([g, exit_code] { *exit_code = RunAttestList(*g); });
    CLI::App* key = attest->add_subcommand(
        "key", "Register or revoke attester public keys (admin)");
    key->require_subcommand(1);
    auto attester = std::make_shared<std::string>();
    CLI::App* reg = key->add_subcommand("register", "Register a public key");
    reg->add_option("PUB", *file, "The attester's .pub file")->required();
    reg->add_option("--attester", *attester, "The attester firm")->required();
    reg->callback([g, file, attester, exit_code] {
      *exit_code = RunKeyRegister(*g, *file, *attester);
    });
    CLI::App* rev = key->add_subcommand("revoke", "Revoke a key");
    rev->add_option("KEY_ID", *file, "e.g. ed25519:0123456789abcdef")
        ->required();
    rev->callback(
        [g, file, exit_code] { *exit_code = RunKeyRevoke(*g, *file); });
  }

  // index (`index recompute`, which reads a data dir, is index_tool.h's)
  CLI::App* index_group = nullptr;
  for (CLI::App* sub : app.get_subcommands(
           [](CLI::App* a) { return a->get_name() == "index"; })) {
    index_group = sub;
  }
  if (index_group == nullptr) {
    index_group = app.add_subcommand("index", "The CFX index (docs/cli.md)");
    index_group->require_subcommand(1);
  }
  auto ia = std::make_shared<IndexArgs>();
  CLI::App* ishow = index_group->add_subcommand(
      "show", "Show the latest print of CFX-GRADE, with every field");
  ishow->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  ishow->callback([g, ia, exit_code] { *exit_code = RunIndexShow(*g, *ia); });
  CLI::App* ihistory = index_group->add_subcommand(
      "history",
      "One row per day (at most 1,000 days; default: those up to the latest "
      "print)");
  ihistory->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  ihistory->add_option("--from", ia->from,
                       "First day, YYYY-MM-DD (default: 999 days before "
                       "--to)");
  ihistory->add_option("--to", ia->to,
                       "Last day, YYYY-MM-DD (default: the latest print)");
  ihistory->add_flag(
      "--all-revisions", ia->all_revisions,
      "Every revision of each day (the fixing, then each "
      "restatement, with its computed-at time), not only "
      "the latest; at most " +
          std::to_string(index::IndexService::kMaxRevisionsPerRequest) +
          " prints");
  ihistory->callback(
      [g, ia, exit_code] { *exit_code = RunIndexHistory(*g, *ia); });
  CLI::App* iexplain = index_group->add_subcommand(
      "explain",
      "How a print came about: notes, contributing trades (firms "
      "anonymised), partitions, excluded trades");
  iexplain->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  iexplain->add_option("DATE", ia->date,
                       "Fixing date, YYYY-MM-DD (default: the latest print)");
  iexplain->callback(
      [g, ia, exit_code] { *exit_code = RunIndexExplain(*g, *ia); });

  // clearing (clearing members; `settle` for the admin too)
  CLI::App* settle = app.add_subcommand(
      "settle",
      "Daily settlement: status, reports, margin calls (clearing member, "
      "admin) and re-runs (admin)");
  settle->require_subcommand(1);
  settle
      ->add_subcommand("status",
                       "Whether settlement runs, the settled dates and the "
                       "latest settlement prices")
      ->callback([g, exit_code] { *exit_code = RunSettleStatus(*g); });
  auto sa = std::make_shared<SettleArgs>();
  CLI::App* sreport = settle->add_subcommand(
      "report",
      "One settled day: settlement prices, and your accounts' positions, VM, "
      "spot cash, IM and collateral");
  sreport->add_option("DATE", sa->date, "Business date, YYYY-MM-DD")
      ->required();
  sreport->add_flag("--csv", sa->csv, "CSV with a header line");
  sreport->callback(
      [g, sa, exit_code] { *exit_code = RunSettleReport(*g, *sa); });
  auto calls_args = std::make_shared<CallsArgs>();
  CLI::App* scalls = settle->add_subcommand(
      "calls",
      "Margin calls of a settled day (your accounts): amount due, collateral "
      "now, OPEN or MET");
  scalls->add_option("DATE", calls_args->date,
                     "Business date, YYYY-MM-DD (default: the latest settled)");
  scalls->add_option("--account", calls_args->account,
                     "Only this account, e.g. FIRM-A");
  scalls->callback([g, calls_args, exit_code] {
    *exit_code = RunSettleCalls(*g, *calls_args);
  });
  auto rerun_date = std::make_shared<std::string>();
  CLI::App* srerun = settle->add_subcommand(
      "rerun",
      "Re-run the refused settlement run of DATE once its cause is fixed, "
      "then the dates waiting behind it (admin)");
  srerun->add_option("DATE", *rerun_date, "The refused date, YYYY-MM-DD")
      ->required();
  srerun->callback([g, rerun_date, exit_code] {
    *exit_code = RunSettleRerun(*g, *rerun_date);
  });
  CLI::App* collateral = app.add_subcommand(
      "collateral",
      "Deposit or withdraw collateral of an account you clear (clearing "
      "member)");
  collateral->require_subcommand(1);
  auto ca = std::make_shared<CollateralArgs>();
  for (const auto& [name, action, help] :
       {std::make_tuple("deposit", w::COLLATERAL_ACTION_DEPOSIT,
                        "Deposit AMOUNT USD to ACCOUNT"),
        std::make_tuple("withdraw", w::COLLATERAL_ACTION_WITHDRAW,
                        "Withdraw AMOUNT USD from ACCOUNT (at most what its "
                        "margin requirement leaves)")}) {
    CLI::App* sub = collateral->add_subcommand(name, help);
    sub->add_option("ACCOUNT", ca->account, "Trading account, e.g. FIRM-A")
        ->required();
    sub->add_option("AMOUNT", ca->amount,
                    "USD, positive, at most 6 decimals, e.g. 250000.00")
        ->required();
    const w::CollateralAction act = action;
    sub->callback(
        [g, ca, act, exit_code] { *exit_code = RunCollateral(*g, *ca, act); });
  }

  // spot
  CLI::App* spot = app.add_subcommand("spot", "Spot trade life cycle");
  spot->require_subcommand(1);
  auto trade_id = std::make_shared<uint64_t>(0);
  CLI::App* failure = spot->add_subcommand(
      "report-failure",
      "Report that delivery of a spot trade failed (either side, before "
      "12:00 UTC of the delivery day): the trade is busted");
  failure->add_option("TRADE_ID", *trade_id, "The trade id")->required();
  failure->callback([g, trade_id, exit_code] {
    *exit_code = RunReportFailure(*g, *trade_id);
  });

  auto iterations = std::make_shared<uint32_t>(kDefaultPasswordIterations);
  CLI::App* hash = admin->add_subcommand(
      "hash-password",
      "Read a password from stdin, print its pbkdf2-sha256 hash for the "
      "config");
  hash->add_option("--iterations", *iterations, "PBKDF2 iterations")
      ->capture_default_str()
      ->check(CLI::Range(uint32_t{1}, kMaxPasswordIterations))
      ->check(DecimalDigits());
  hash->callback([g, iterations, exit_code] {
    *exit_code = RunHashPassword(g->json, *iterations);
  });
}

}  // namespace cfx::gateway::cli
