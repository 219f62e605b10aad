#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "gateway/session/tls.h"

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// How `cfx demo` reports progress on its error stream.
enum class DemoProgress {
  kNone,   // --quiet
  kBar,    // one line redrawn with '\r' (a terminal)
  kLines,  // one line per business day (not a terminal)
};

struct DemoOptions {
  // The protobuf gateway and the FIX acceptor of a running cfx-exchanged.
  std::string host = "127.0.0.1";
  uint16_t port = 9879;
  uint16_t fix_port = 9878;
  // Set: both connections are TLS (the TLS ports, e.g. 9869 and 9868),
  // verified against tls->ca_file. Default: plaintext.
  std::optional<TlsClientOptions> tls{};
  // Business days to run; 0 = from the server's current simulated day
  // through the first futures month's last trading day plus one business
  // day. Default: 0.
  int days = 0;
  // Seeds the prices, quantities and sides: the same seed against the same
  // server state gives the same trades. Default: 1.
  uint64_t seed = 1;
  DemoProgress progress = DemoProgress::kNone;
  // The bound on each wait for an answer. Default: 10 s.
  std::chrono::milliseconds timeout{10'000};
};

// `cfx demo` (docs/cli.md): a compressed month of CFX market life against a
// running server on the simulated clock, entirely through the public
// interfaces as the demo users of DESIGN.md §6. Setup: the admin registers
// a fresh attester key, the rater rates PROV-A/B/C, each provider submits
// attestations of its nodes signed with that key. Then each business day:
// the admin moves the clock through the day; in each 4-hour index
// partition the three providers sell B200-STD node-days for the next
// delivery day to trader-a/b/c over protobuf; trader-a trades the first two
// XB2S futures over FIX against trader-c over protobuf, also inside the
// 20:45-21:00 settlement window; the clock then passes 21:00, so the index
// fixes and settlement runs. At the end it prints to `out` the B200-STD
// index history, the first future's final settlement and each clearing
// member's settlement summary (as clear-1 and clear-2).
//
// Progress goes to `err` as `options.progress` says. Returns the exit code
// of commands.h (kExitOk; kExitRejected when the exchange refuses a step,
// e.g. "cfx demo needs a server started with --clock=simulated";
// kExitConnection; kExitTimeout) and, on failure, writes one line
// "cfx: <reason>" to `err`.
//
// Thread: the caller's; it blocks until done.
int RunDemo(const DemoOptions& options, std::ostream& out, std::ostream& err);

// Registers `demo` on the root `app`: --fix-port, --days, --seed, --quiet;
// --host and --port are the root's connection options (commands.h) when
// AddGatewayCommands() registered them before, else the demo's own. The
// command writes its exit code to `*exit_code`, which must remain live
// while `app` parses.
void AddDemoCommand(CLI::App& app, int* exit_code);

}  // namespace cfx::gateway::cli
