// The `admin` commands of the cfx tool: the exchange clock (show, advance,
// set) and hash-password.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "exchange/clock.h"
#include "gateway/config/password.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

struct ClockArgs {
  std::string duration;
  std::string time;
};

int RunClock(const GlobalOptions& g, const w::ClockRequest& request) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
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

void AddAdminCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code) {
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
