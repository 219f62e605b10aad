// The clearing commands of the cfx tool: settle status, report, calls and
// rerun, and collateral deposit and withdraw.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "gateway/config/instrument_table.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/settlement_render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

struct SettleArgs {
  std::string date;
  bool csv = false;
};

int RunSettleStatus(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::SettlementQuery* q = e.mutable_settlement_query();
  q->set_request_id(RequestId());
  q->set_date(a.date);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  // A large report comes in parts: contracts first, then accounts, fills
  // and movements; merging appends every repeated field.
  w::SettlementReport report;
  const int rc = AwaitParts(
      c, "settlement report", "the settlement report", id,
      &w::Envelope::has_settlement_report, &w::Envelope::settlement_report,
      &report,
      [&](const w::SettlementReport& part) { report.MergeFrom(part); });
  if (rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::MarginCallQuery* q = e.mutable_margin_call_query();
  q->set_request_id(RequestId());
  q->set_date(a.date);
  q->set_account(a.account);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  w::MarginCallList list;
  const int rc = AwaitParts(c, "margin calls", "the margin calls", id,
                            &w::Envelope::has_margin_call_list,
                            &w::Envelope::margin_call_list, &list,
                            [&](const w::MarginCallList& part) {
                              list.mutable_calls()->MergeFrom(part.calls());
                            });
  if (rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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

}  // namespace

void AddClearingCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                         int* exit_code) {
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
}

}  // namespace cfx::gateway::cli
