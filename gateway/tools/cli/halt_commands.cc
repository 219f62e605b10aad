// The `admin halt` and `admin resume` commands of the cfx tool (docs/cli.md,
// "Halts and resumes"): halt one instrument, a root's or every instrument;
// resume through a pre-open and the opening auction.

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/command_io.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

struct HaltArgs {
  std::string symbol;
  std::string root;
  bool all = false;
  std::string reason;
  uint32_t pre_open_seconds = 0;
};

int RunHalt(const GlobalOptions& g, const HaltArgs& a, w::HaltAction action) {
  const int targets =
      (a.symbol.empty() ? 0 : 1) + (a.root.empty() ? 0 : 1) + (a.all ? 1 : 0);
  if (targets != 1) {
    return Fail(kExitUsage, "name one target: SYMBOL, --root ROOT or --all");
  }
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::TradingHaltRequest* r = e.mutable_trading_halt_request();
  r->set_request_id(RequestId());
  r->set_action(action);
  if (!a.symbol.empty()) r->set_symbol(a.symbol);
  if (!a.root.empty()) r->set_root(a.root);
  if (a.all) r->set_all(true);
  r->set_reason(a.reason);
  r->set_pre_open_seconds(a.pre_open_seconds);
  const uint64_t id = r->request_id();
  const std::string what =
      action == w::HALT_ACTION_HALT ? "halt" : "resume";
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(what, "the answer", milliseconds(0), [&](const w::Envelope& m) {
    if (!m.has_trading_halt_ack() ||
        m.trading_halt_ack().request_id() != id) {
      return kKeepWaiting;
    }
    const w::TradingHaltAck& ack = m.trading_halt_ack();
    if (c.json()) PrintJson(ProtoJson(ack));
    if (ack.results_size() == 0) {
      return Fail(kExitRejected, what + " rejected: " +
                                     ReasonText(EnumName(ack.reason()),
                                                ack.text()));
    }
    if (!c.json()) {
      std::string out;
      for (const w::TradingHaltAck::Result& x : ack.results()) {
        out += x.symbol() + "  ";
        out += x.accepted() ? EnumName(x.state()) + " (seq " +
                                  std::to_string(x.seq()) + ")"
                            : "rejected: " + ReasonText(EnumName(x.reason()),
                                                        x.text());
        out += "\n";
      }
      Print(out);
    }
    return ack.accepted() ? kExitOk : kExitRejected;
  });
}

}  // namespace

void AddHaltCommands(CLI::App& admin, const std::shared_ptr<GlobalOptions>& g,
                     int* exit_code) {
  for (const w::HaltAction action :
       {w::HALT_ACTION_HALT, w::HALT_ACTION_RESUME}) {
    const bool halt = action == w::HALT_ACTION_HALT;
    auto a = std::make_shared<HaltArgs>();
    CLI::App* sub = admin.add_subcommand(
        halt ? "halt" : "resume",
        halt ? "Halt trading: new orders and replaces are refused, cancels "
               "accepted, resting orders stay (admin)"
             : "Resume a halted instrument: a pre-open (orders rest, nothing "
               "matches), then the opening auction (admin)");
    sub->add_option("SYMBOL", a->symbol, "One instrument, e.g. XB2SZ6");
    sub->add_option("--root", a->root,
                    "Every instrument of a futures root (e.g. XB2S) or of a "
                    "spot grade (e.g. B200-STD)");
    sub->add_flag("--all", a->all, "Every instrument");
    sub->add_option("--reason", a->reason,
                    "Shown with the status to every subscriber (at most 200 "
                    "printable characters)");
    if (!halt) {
      sub->add_option("--pre-open", a->pre_open_seconds,
                      "Seconds of pre-open before the auction (default 60, "
                      "at most 86400)");
    }
    sub->callback([g, a, action, exit_code] {
      *exit_code = RunHalt(*g, *a, action);
    });
  }
}

}  // namespace cfx::gateway::cli
