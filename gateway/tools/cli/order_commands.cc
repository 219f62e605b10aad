// The `order` commands of the cfx tool: new, cancel, replace, status and
// mass-cancel, and how they print execution reports.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "exchange/clock.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

// Unique per account within a trading day, as the protocol asks: the wall
// clock in nanoseconds.
uint64_t NewClientOrderId() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;

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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;

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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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

}  // namespace

void AddOrderCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code) {
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
}

}  // namespace cfx::gateway::cli
