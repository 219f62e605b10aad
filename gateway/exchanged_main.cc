// cfx-exchanged: the exchange server. Loads the config (--config, else the
// built-in deploy/config/exchange.textproto), recovers the engine from its
// data dir, listens on the FIX, protobuf and HTTP ports (plaintext on
// loopback only, and TLS ones from network.tls) and runs until SIGINT or
// SIGTERM, when it closes every session and stops cleanly with a final
// snapshot; SIGHUP reloads the TLS certificate. Demo identities (the
// built-in users, published credentials) may only serve loopback;
// everything it creates is private to its user (umask 077: the data dir
// 0700, its files 0600).
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "exchange/clock.h"
#include "gateway/config/demo_identities.h"
#include "gateway/config/listeners.h"
#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"

namespace cfx::gateway {
namespace {

void Log(const std::string& line) {
  std::fprintf(stderr, "cfx-exchanged: %s\n", line.c_str());
  std::fflush(stderr);
}

// Refuses demo identities off loopback; warns when they are in use.
bool CheckDemo(const ServerConfig& config, bool built_in) {
  const Status st = CheckDemoIdentitiesOnLoopback(config);
  if (!st.ok()) {
    Log("refusing to start: " + st.message());
    return false;
  }
  const std::string users = DemoIdentityList(config);
  if (!users.empty()) {
    Log(std::string("WARNING: ") +
        (built_in ? "no --config: running on the built-in demo config; " : "") +
        "demo identities with published credentials are in use (" + users +
        "): loopback only, never for real trading (docs/config.md, \"Demo "
        "identities\")");
  }
  return true;
}

// The data dir: created 0700; an existing one that its group or others
// may use gets a warning (it is left as it is).
void CheckDataDir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    ::mkdir(dir.c_str(), 0700);  // parents and errors: the server's to make
    return;
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o",
                  static_cast<unsigned>(st.st_mode & 0777));
    Log("WARNING: data dir " + dir + " has mode " + mode +
        ": its group or others may read the journal; chmod 700 " + dir);
  }
}

// The command line; a port of -1 (or an empty text, 0 snapshot interval)
// leaves the config's.
struct Flags {
  std::string config_path;
  std::string data_dir = "var/cfx";
  std::string clock_kind;
  std::string start;
  uint64_t snapshot_every = 0;
  int protobuf_port = -1;
  int http_port = -1;
  int fix_port = -1;
  int fix_tls_port = -1;
  int protobuf_tls_port = -1;
  int https_port = -1;
};

void AddFlags(CLI::App& app, Flags& f) {
  app.add_option("--config", f.config_path,
                 "Exchange config (.textproto); default: the built-in "
                 "deploy/config/exchange.textproto");
  app.add_option("--data-dir", f.data_dir, "Journal and snapshot directory")
      ->capture_default_str();
  app.add_option("--clock", f.clock_kind,
                 "wall, or simulated (moves only when the admin advances "
                 "it); default: the config's")
      ->check(CLI::IsMember({"wall", "simulated"}));
  app.add_option("--start", f.start,
                 "Start of the simulated clock, e.g. 2026-12-01T00:00:00Z; "
                 "a restart resumes from the journal's last time, and a "
                 "--start before it is refused");
  app.add_option("--snapshot-every", f.snapshot_every,
                 "Snapshot after every N commands; default: the config's");
  const auto port = [&app](const char* name, int& value, const char* help) {
    app.add_option(name, value, help)->check(CLI::Range(0, 65535));
  };
  port("--protobuf-port", f.protobuf_port,
       "Protobuf order-entry port (0 = any free port); default: the config's");
  port("--fix-port", f.fix_port,
       "FIX 4.4 port (0 = any free port); default: the config's");
  port("--http-port", f.http_port,
       "HTTP port (0 = any free port); default: the config's");
  port("--fix-tls-port", f.fix_tls_port,
       "FIX over TLS port, if the config has one (0 = any free port); "
       "default: the config's");
  port("--protobuf-tls-port", f.protobuf_tls_port,
       "Protobuf over TLS port, if the config has one (0 = any free port); "
       "default: the config's");
  port("--https-port", f.https_port,
       "HTTPS port, if the config has one (0 = any free port); default: the "
       "config's");
}

// The server options the flags give; false (logged) for a bad --start.
bool OptionsFromFlags(const Flags& f, ServerOptions* options) {
  options->data_dir = f.data_dir;
  if (!f.clock_kind.empty()) {
    options->simulated_clock = f.clock_kind == "simulated";
  }
  if (!f.start.empty()) {
    auto t = exchange::ParseUtcTimestamp(f.start);
    if (!t.has_value()) {
      Log("--start: " + t.error().message());
      return false;
    }
    options->clock_start = t.value();
  }
  if (f.snapshot_every != 0) options->snapshot_every = f.snapshot_every;
  const auto set = [](int flag, std::optional<uint16_t>* port) {
    if (flag >= 0) *port = static_cast<uint16_t>(flag);
  };
  set(f.protobuf_port, &options->protobuf_port);
  set(f.http_port, &options->http_port);
  set(f.fix_port, &options->fix_port);
  set(f.fix_tls_port, &options->fix_tls_port);
  set(f.protobuf_tls_port, &options->protobuf_tls_port);
  set(f.https_port, &options->https_port);
  options->log = Log;
  options->progress = [](exchange::Seq done, exchange::Seq last) {
    Log("replayed to seq " + std::to_string(done.value) + " of " +
        std::to_string(last.value));
  };
  return true;
}

int Run(int argc, char** argv) {
  // Before anything is created: files 0600, directories 0700, whatever
  // the caller's umask (RocksDB and QuickFIX create files of their own).
  ::umask(077);
  CLI::App app{"CFX exchange server"};
  Flags flags;
  AddFlags(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  const std::string& config_path = flags.config_path;

  auto config = config_path.empty() ? DefaultServerConfig()
                                    : LoadServerConfig(config_path);
  if (!config.has_value()) {
    Log(config.error().message());
    return 2;
  }
  if (!CheckDemo(config.value(), config_path.empty())) return 2;
  if (const Status st = CheckPlaintextListenersOnLoopback(config.value());
      !st.ok()) {
    Log("refusing to start: " + st.message());
    return 2;
  }
  CheckDataDir(flags.data_dir);
  ServerOptions options;
  if (!OptionsFromFlags(flags, &options)) return 2;

  // SIGINT/SIGTERM/SIGHUP are taken by sigwait below; every thread
  // inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = ExchangeServer::Start(config.value(), options);
  if (!server.has_value()) {
    Log(server.error().ToString());
    return 1;
  }
  int sig = 0;
  // SIGHUP: the TLS certificate and key are read again (ReloadTls logs the
  // outcome); the server keeps running either way.
  while (sigwait(&signals, &sig) == 0 && sig == SIGHUP) {
    Log("received SIGHUP, reloading the TLS certificate");
    server.value()->ReloadTls().ok();
  }
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
