// The market data and reference data commands of the cfx tool: book,
// trades, watch (a live book), instruments and grades.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/local_book.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

// How long `watch` waits in one Receive() once the book is shown.
constexpr milliseconds kWatchPoll{1000};
// The protocol's bound on MarketDataSubscribe.recent_trades.
constexpr uint32_t kMaxRecentTrades = 1000;

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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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

int RunInstruments(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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

}  // namespace

void AddMarketDataCommands(CLI::App& app,
                           const std::shared_ptr<GlobalOptions>& g,
                           int* exit_code) {
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
}

}  // namespace cfx::gateway::cli
