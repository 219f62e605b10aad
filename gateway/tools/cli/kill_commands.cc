// The kill switch commands of the cfx tool (docs/cli.md, "Kill switches"):
// `admin kill | reinstate FIRM | --account ACCOUNT [--reason TEXT]` (the
// admin) and `risk kill | reinstate ACCOUNT [--reason TEXT]` (a clearing
// member, for the accounts it clears).

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/command_io.h"
#include "gateway/tools/cli/exit_codes.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

struct KillArgs {
  std::string firm;
  std::string account;
  std::string reason;
};

// One line per account of an accepted ack.
std::string KillAckText(const w::KillSwitchAck& ack) {
  const bool kill = ack.action() == w::KILL_SWITCH_ACTION_KILL;
  std::string out;
  for (const w::KillSwitchAccount& a : ack.accounts()) {
    out += (kill ? "killed account " : "reinstated account ") + a.account();
    if (kill) {
      out += ": " + std::to_string(a.orders_cancelled()) +
             (a.orders_cancelled() == 1 ? " resting order" : " resting orders") +
             " cancelled";
    }
    out += ", seq " + std::to_string(a.seq()) + "\n";
  }
  return out;
}

// One JSON object: type "kill_switch", the request's firm or account and
// action, accepted, then the accounts (or the reason and text).
std::string KillAckJson(const w::KillSwitchAck& ack) {
  JsonObject o;
  o.Str("type", "kill_switch");
  if (!ack.firm().empty()) o.Str("firm", ack.firm());
  if (!ack.account().empty()) o.Str("account", ack.account());
  o.Str("action", EnumName(ack.action())).Bool("accepted", ack.accepted());
  if (!ack.accepted()) {
    o.Str("reason", EnumName(ack.reason())).Str("text", ack.text());
    return o.str();
  }
  std::string accounts = "[";
  for (const w::KillSwitchAccount& a : ack.accounts()) {
    if (accounts.size() > 1) accounts += ",";
    accounts += JsonObject()
                    .Str("account", a.account())
                    .Uint("orders_cancelled", a.orders_cancelled())
                    .Uint("seq", a.seq())
                    .str();
  }
  o.Raw("accounts", accounts + "]");
  return o.str();
}

int RunKillSwitch(const GlobalOptions& g, const KillArgs& a, bool kill) {
  if (a.firm.empty() == a.account.empty()) {
    return Fail(kExitUsage, "name a FIRM or --account ACCOUNT, not both");
  }
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::KillSwitchRequest* r = e.mutable_kill_switch_request();
  r->set_request_id(RequestId());
  r->set_firm(a.firm);
  r->set_account(a.account);
  r->set_action(kill ? w::KILL_SWITCH_ACTION_KILL
                     : w::KILL_SWITCH_ACTION_REINSTATE);
  r->set_reason(a.reason);
  const uint64_t id = r->request_id();
  const std::string subject = kill ? "kill" : "reinstate";
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      subject, "the answer", milliseconds(0), [&](const w::Envelope& m) {
        if (!m.has_kill_switch_ack() || m.kill_switch_ack().request_id() != id) {
          return kKeepWaiting;
        }
        const w::KillSwitchAck& ack = m.kill_switch_ack();
        if (c.json()) PrintJson(KillAckJson(ack));
        if (!ack.accepted()) {
          return Fail(kExitRejected,
                      subject + " rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!c.json()) Print(KillAckText(ack));
        return kExitOk;
      });
}

// `kill` and `reinstate` under `parent`; with `firms`, FIRM or --account,
// else ACCOUNT.
void AddKillPair(CLI::App& parent, const std::shared_ptr<GlobalOptions>& g,
                 int* exit_code, bool firms) {
  for (const bool kill : {true, false}) {
    auto args = std::make_shared<KillArgs>();
    CLI::App* sub = parent.add_subcommand(
        kill ? "kill" : "reinstate",
        kill ? "Cancel every resting order of the account(s) and refuse "
               "their new orders until reinstated"
             : "Accept the orders of killed account(s) again");
    if (firms) {
      sub->add_option("FIRM", args->firm, "every trading account of the firm");
      sub->add_option("--account", args->account, "one trading account");
    } else {
      sub->add_option("ACCOUNT", args->account,
                      "a trading account the member clears")
          ->required();
    }
    sub->add_option("--reason", args->reason,
                    "why, shown to the account's sessions (at most 200 "
                    "printable ASCII characters)");
    sub->callback([g, args, exit_code, kill] {
      *exit_code = RunKillSwitch(*g, *args, kill);
    });
  }
}

}  // namespace

void AddKillCommands(CLI::App& admin, CLI::App& app,
                     const std::shared_ptr<GlobalOptions>& g, int* exit_code) {
  AddKillPair(admin, g, exit_code, /*firms=*/true);
  CLI::App* risk = app.add_subcommand(
      "risk", "Kill switches of the accounts a clearing member clears");
  risk->require_subcommand(1);
  AddKillPair(*risk, g, exit_code, /*firms=*/false);
}

}  // namespace cfx::gateway::cli
