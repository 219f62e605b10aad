#include "gateway/tools/cli/demo.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "gateway/tools/cli/demo_run.h"

namespace cfx::gateway::cli::internal {

// Waits for the day's B200-STD print, which every session is sent.
Status Demo::AwaitFixing(int64_t day) {
  const std::string date = FormatDay(day);
  if (prints_.count(date) != 0) return Status::Ok();
  Result<w::Envelope> r =
      admin_->Ask(nullptr, "the fixing of " + date, [&](const w::Envelope& m) {
        return m.has_index_print() && m.index_print().grade() == kGrade &&
               m.index_print().date() == date;
      });
  if (!r.has_value()) return r.error();
  prints_[date] = r.value().index_print();
  return Status::Ok();
}

void Demo::Progress(std::size_t k, int64_t day, bool last) {
  if (o_.progress == DemoProgress::kNone) return;
  const std::string date = FormatDay(day);
  std::string index = "-";
  auto it = prints_.find(date);
  if (it != prints_.end()) {
    index = (it->second.has_value() ? it->second.value() : "-") + " (" +
            it->second.level_name() + ")";
  }
  const std::size_t n = days_.size();
  if (o_.progress == DemoProgress::kLines) {
    err_ << "cfx demo: day " << k + 1 << "/" << n << " " << date
         << ": CFX-B200-STD " << index << ", " << spot_trades_ << " spot and "
         << futures_trades_ << " futures trades so far\n"
         << std::flush;
    return;
  }
  const auto filled = static_cast<int>((k + 1) * kProgressWidth / n);
  err_ << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(kProgressWidth - filled), '.')
       << "] day " << k + 1 << "/" << n << " " << date << "  CFX-B200-STD "
       << index << "   " << (last ? "\n" : "") << std::flush;
}

// Waits until settlement has run for `day` (it runs after the fixing).
// *available is false when the server keeps no settlement.
Status Demo::AwaitSettlement(int64_t day, bool* available) {
  *available = true;
  const std::string date = FormatDay(day);
  const SteadyClock::time_point deadline = SteadyClock::now() + o_.timeout;
  for (;;) {
    const uint64_t id = ++next_request_;
    w::Envelope e;
    e.mutable_settlement_status_request()->set_request_id(id);
    Result<w::Envelope> r =
        admin_->Ask(&e, "settlement status", [id](const w::Envelope& m) {
          return (m.has_settlement_status() &&
                  m.settlement_status().request_id() == id) ||
                 (m.has_reference_ack() &&
                  m.reference_ack().request_id() == id);
        });
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      if (ack.reason() == w::REJECT_REASON_SETTLEMENT_UNAVAILABLE) {
        *available = false;
        return Status::Ok();
      }
      if (ack.reason() != w::REJECT_REASON_NOT_SETTLED) {
        return Refused("settlement status refused: " +
                       ReasonText(EnumName(ack.reason()), ack.text()));
      }
    } else {
      const w::SettlementStatus& s = r.value().settlement_status();
      if (!s.ok()) return Refused("settlement stopped: " + s.error());
      if (s.latest_date() >= date) return Status::Ok();
    }
    if (SteadyClock::now() >= deadline) {
      return Status(StatusCode::kResourceExhausted,
                    "settlement of " + date + " did not run in time");
    }
    // Settlement has no push: ask again shortly.
    std::this_thread::sleep_for(milliseconds(20));
  }
}

Result<w::SettlementReport> Demo::Report(Session& s, const std::string& date) {
  const uint64_t id = ++next_request_;
  w::Envelope e;
  e.mutable_settlement_query()->set_request_id(id);
  e.mutable_settlement_query()->set_date(date);
  w::SettlementReport report;
  bool first = true;
  for (;;) {
    Result<w::Envelope> r =
        s.Ask(first ? &e : nullptr, "settlement report " + date,
              [id](const w::Envelope& m) {
                return (m.has_settlement_report() &&
                        m.settlement_report().request_id() == id) ||
                       (m.has_reference_ack() &&
                        m.reference_ack().request_id() == id);
              });
    first = false;
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      return Refused(s.user() + ": settlement report " + date + " refused: " +
                     ReasonText(EnumName(ack.reason()), ack.text()));
    }
    const w::SettlementReport& part = r.value().settlement_report();
    report.MergeFrom(part);  // appends every repeated field
    if (!part.more()) {
      report.set_more(false);
      return report;
    }
  }
}

Status Demo::Summary(bool settlement) {
  const int64_t first = days_.front();
  const int64_t last = days_.back();
  // The index history, weekends included (every calendar day has a print).
  const uint64_t id = ++next_request_;
  w::Envelope q;
  q.mutable_index_query()->set_request_id(id);
  q.mutable_index_query()->set_grade(kGrade);
  q.mutable_index_query()->set_from_date(FormatDay(first));
  q.mutable_index_query()->set_to_date(FormatDay(last));
  std::vector<w::IndexPrint> prints;
  bool sent = false;
  for (;;) {
    Result<w::Envelope> r = admin_->Ask(
        sent ? nullptr : &q, "index history", [id](const w::Envelope& m) {
          return (m.has_index_print_list() &&
                  m.index_print_list().request_id() == id) ||
                 (m.has_reference_ack() &&
                  m.reference_ack().request_id() == id);
        });
    sent = true;
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      return Refused("index history refused: " +
                     ReasonText(EnumName(ack.reason()), ack.text()));
    }
    for (const w::IndexPrint& p : r.value().index_print_list().prints()) {
      prints.push_back(p);
    }
    if (!r.value().index_print_list().more()) break;
  }
  out_ << "\nCFX-B200-STD index history\n" << IndexHistoryText(prints);

  out_ << "\ntrading: " << spot_trades_
       << " spot trades of B200-STD node-days (" << spot_lots_
       << " lots, protobuf); " << futures_trades_
       << " futures trades, trader-a over FIX against trader-c\n";
  out_ << "trader-a over FIX: " << fix_fills_ << " fills; net";
  for (const Future& f : futures_) {
    out_ << " " << f.symbol << " " << Signed(fix_position_[f.symbol]);
  }
  out_ << " lots\n";

  const Future& front = futures_.front();
  const std::string expiry = FormatDay(front.last_trading_day);
  if (!settlement) {
    out_ << "\nsettlement: this server runs no settlement\n" << std::flush;
    return Status::Ok();
  }
  std::vector<std::pair<std::string, std::vector<w::SettlementReport>>> members;
  for (const char* user : kClearers) {
    Result<SessionPtr> s = Session::Open(o_, user);
    if (!s.has_value()) return s.error();
    std::vector<w::SettlementReport> reports;
    Result<w::SettlementReport> latest = Report(*s.value(), "");
    if (!latest.has_value()) return latest.error();
    const bool expired = front.last_trading_day <= last;
    if (expired && latest.value().date() != expiry) {
      Result<w::SettlementReport> at = Report(*s.value(), expiry);
      if (!at.has_value()) return at.error();
      reports.push_back(std::move(at).value());
    }
    reports.push_back(std::move(latest).value());
    s.value()->Close();
    std::string member = user;
    if (!reports.back().accounts().empty()) {
      member = reports.back().accounts(0).clearing_member() + " (" + user + ")";
    }
    members.emplace_back(member, std::move(reports));
  }

  // The front month's final settlement, from the expiry day's report.
  out_ << "\nfinal settlement " << front.symbol << " (last trading day "
       << expiry << "): ";
  bool found = false;
  for (const w::SettlementReport& r : members.front().second) {
    for (const w::SettlementPrice& c : r.contracts()) {
      if (c.symbol() == front.symbol && c.final()) {
        out_ << "FSP " << c.price()
             << (c.disrupted() ? ", DISRUPTED" : ", not disrupted") << "\n";
        found = true;
      }
    }
  }
  if (!found) {
    out_ << "not yet: the demo stopped on " << FormatDay(last) << "\n";
  }
  // Each member's reports, showing only the contracts the demo traded or
  // with open interest (a report lists every listed contract).
  for (const auto& [member, reports] : members) {
    out_ << "\nclearing member " << member << "\n";
    for (const w::SettlementReport& r : reports) {
      w::SettlementReport shown = r;
      shown.clear_contracts();
      for (const w::SettlementPrice& c : r.contracts()) {
        const bool traded = std::any_of(
            futures_.begin(), futures_.end(),
            [&c](const Future& f) { return f.symbol == c.symbol(); });
        if (traded || c.open_interest() > 0) *shown.add_contracts() = c;
      }
      out_ << SettlementReportText(shown);
    }
  }
  out_ << std::flush;
  return Status::Ok();
}

Status Demo::Run() {
  next_id_ = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  CFX_RETURN_IF_ERROR(Connect());
  CFX_RETURN_IF_ERROR(LoadMarket());
  if (days_.empty()) return Refused("no business day to run");
  CFX_RETURN_IF_ERROR(Setup());
  for (std::size_t k = 0; k < days_.size(); ++k) {
    CFX_RETURN_IF_ERROR(RunDay(k, days_[k]));
    Progress(k, days_[k], k + 1 == days_.size());
  }
  bool settlement = true;
  CFX_RETURN_IF_ERROR(AwaitSettlement(days_.back(), &settlement));
  CFX_RETURN_IF_ERROR(Summary(settlement));
  if (fix_ != nullptr) fix_->Logout(kLogoutWait);
  return Status::Ok();
}

}  // namespace cfx::gateway::cli::internal

namespace cfx::gateway::cli {

using internal::Demo;
using internal::ExitCodeOf;
using internal::OneLine;

int RunDemo(const DemoOptions& options, std::ostream& out, std::ostream& err) {
  Demo demo(options, out, err);
  const Status s = demo.Run();
  if (s.ok()) return kExitOk;
  out << std::flush;
  if (options.progress == DemoProgress::kBar) err << "\n";
  err << "cfx: " << OneLine(std::string(s.message())) << "\n" << std::flush;
  return ExitCodeOf(s);
}

void AddDemoCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::string host = "127.0.0.1";
    uint16_t port = 9879;
    uint16_t fix_port = 9878;
    int days = 0;
    uint64_t seed = 1;
    bool quiet = false;
    bool tls = false;
    std::string ca;
  };
  auto a = std::make_shared<Args>();
  CLI::App* demo = app.add_subcommand(
      "demo",
      "Run a compressed month of market life against a server on the "
      "simulated clock");
  CLI::Option* root_host = app.get_option_no_throw("--host");
  CLI::Option* root_port = app.get_option_no_throw("--port");
  CLI::Option* root_tls = app.get_option_no_throw("--tls");
  CLI::Option* root_ca = app.get_option_no_throw("--ca");
  if (root_tls == nullptr) {
    demo->add_flag("--tls", a->tls,
                   "Connect over TLS: give the TLS ports (--port 9869 "
                   "--fix-port 9868)");
  }
  if (root_ca == nullptr) {
    demo->add_option("--ca", a->ca, "PEM CA file for --tls (env CFX_CA)")
        ->envname("CFX_CA");
  }
  if (root_host == nullptr) {
    demo->add_option("--host", a->host, "Gateway host")->capture_default_str();
  }
  if (root_port == nullptr) {
    demo->add_option("--port", a->port, "Protobuf gateway port")
        ->capture_default_str();
  }
  demo->add_option("--fix-port", a->fix_port, "FIX acceptor port")
      ->capture_default_str();
  demo->add_option("--days", a->days,
                   "Business days to run (default: through the first "
                   "futures month's expiry and one business day more)")
      ->check(CLI::PositiveNumber);
  demo->add_option("--seed", a->seed, "Seed of prices, sizes and sides")
      ->capture_default_str();
  demo->add_flag("--quiet", a->quiet, "No progress on stderr");
  demo->callback([a, root_host, root_port, root_tls, root_ca, exit_code] {
    DemoOptions o;
    o.host = a->host;
    o.port = a->port;
    if (root_host != nullptr && root_host->count() > 0) {
      o.host = root_host->as<std::string>();
    }
    if (root_port != nullptr && root_port->count() > 0) {
      o.port = root_port->as<uint16_t>();
    }
    o.fix_port = a->fix_port;
    const bool tls = root_tls != nullptr ? root_tls->count() > 0 : a->tls;
    if (tls) {
      o.tls.emplace();
      o.tls->ca_file = a->ca;
      if (root_ca != nullptr && root_ca->count() > 0) {
        o.tls->ca_file = root_ca->as<std::string>();
      }
    }
    o.days = a->days;
    o.seed = a->seed;
    o.progress = a->quiet           ? DemoProgress::kNone
                 : ::isatty(2) == 1 ? DemoProgress::kBar
                                    : DemoProgress::kLines;
    *exit_code = RunDemo(o, std::cout, std::cerr);
  });
}

}  // namespace cfx::gateway::cli
