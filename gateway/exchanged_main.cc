// cfx-exchanged: the exchange server. Loads the config (--config, else the
// built-in deploy/config/exchange.textproto), recovers the engine from its
// data dir, listens on the protobuf and HTTP ports and runs until SIGINT or
// SIGTERM, when it closes every session and stops cleanly with a final
// snapshot.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "exchange/clock.h"
#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"

namespace cfx::gateway {
namespace {

void Log(const std::string& line) {
  std::fprintf(stderr, "cfx-exchanged: %s\n", line.c_str());
  std::fflush(stderr);
}

int Run(int argc, char** argv) {
  CLI::App app{"CFX exchange server"};
  std::string config_path;
  std::string data_dir = "var/cfx";
  std::string clock_kind;
  std::string start;
  uint64_t snapshot_every = 0;
  int protobuf_port = -1;
  int http_port = -1;
  int fix_port = -1;
  app.add_option("--config", config_path,
                 "Exchange config (.textproto); default: the built-in "
                 "deploy/config/exchange.textproto");
  app.add_option("--data-dir", data_dir, "Journal and snapshot directory")
      ->capture_default_str();
  app.add_option("--clock", clock_kind,
                 "wall, or simulated (moves only when the admin advances "
                 "it); default: the config's")
      ->check(CLI::IsMember({"wall", "simulated"}));
  app.add_option("--start", start,
                 "Start of the simulated clock, e.g. 2026-12-01T00:00:00Z; "
                 "a restart resumes from the journal's last time, and a "
                 "--start before it is refused");
  app.add_option("--snapshot-every", snapshot_every,
                 "Snapshot after every N commands; default: the config's");
  app.add_option("--protobuf-port", protobuf_port,
                 "Protobuf order-entry port (0 = any free port); default: "
                 "the config's")
      ->check(CLI::Range(0, 65535));
  app.add_option("--fix-port", fix_port,
                 "FIX 4.4 port (0 = any free port); default: the config's")
      ->check(CLI::Range(0, 65535));
  app.add_option("--http-port", http_port,
                 "HTTP port (0 = any free port); default: the config's")
      ->check(CLI::Range(0, 65535));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  auto config = config_path.empty() ? DefaultServerConfig()
                                    : LoadServerConfig(config_path);
  if (!config.has_value()) {
    Log(config.error().message());
    return 2;
  }
  ServerOptions options;
  options.data_dir = data_dir;
  if (!clock_kind.empty()) options.simulated_clock = clock_kind == "simulated";
  if (!start.empty()) {
    auto t = exchange::ParseUtcTimestamp(start);
    if (!t.has_value()) {
      Log("--start: " + t.error().message());
      return 2;
    }
    options.clock_start = t.value();
  }
  if (snapshot_every != 0) options.snapshot_every = snapshot_every;
  if (protobuf_port >= 0) {
    options.protobuf_port = static_cast<uint16_t>(protobuf_port);
  }
  if (http_port >= 0) options.http_port = static_cast<uint16_t>(http_port);
  if (fix_port >= 0) options.fix_port = static_cast<uint16_t>(fix_port);
  options.log = Log;
  options.progress = [](exchange::Seq done, exchange::Seq last) {
    Log("replayed to seq " + std::to_string(done.value) + " of " +
        std::to_string(last.value));
  };

  // SIGINT/SIGTERM are taken by sigwait below; every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = ExchangeServer::Start(config.value(), options);
  if (!server.has_value()) {
    Log(server.error().ToString());
    return 1;
  }
  int sig = 0;
  sigwait(&signals, &sig);
  Log(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
      ", stopping");
  const Status st = server.value()->Stop();
  if (!st.ok()) {
    Log("stopped with error: " + st.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace cfx::gateway

int main(int argc, char** argv) { return cfx::gateway::Run(argc, argv); }
