// The `admin` commands of the cfx tool: the exchange clock (show, advance,
// set), hash-password, and the users (add, disable, enable, set-password,
// list; docs/cli.md, "Users"); the API keys are api_key_commands.cc's.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "exchange/clock.h"
#include "gateway/config/password.h"
#include "gateway/config/server_config.h"
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

// The one-line password on stdin; "" after printing why there is none.
std::string ReadPassword() {
  std::string password((std::istreambuf_iterator<char>(std::cin)),
                       std::istreambuf_iterator<char>());
  if (!password.empty() && password.back() == '\n') password.pop_back();
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    Fail(kExitUsage, "no password on stdin");
    return {};
  }
  if (password.find('\n') != std::string::npos) {
    Fail(kExitUsage, "the password on stdin must be one line");
    return {};
  }
  return password;
}

int RunHashPassword(bool json, uint32_t iterations) {
  const std::string password = ReadPassword();
  if (password.empty()) return kExitUsage;
  const std::string hash = HashPassword(password, NewSalt(), iterations);
  if (hash.empty()) return Fail(kExitRejected, "cannot hash the password");
  Print(
      json ? JsonObject().Str("type", "password_hash").Str("hash", hash).str() +
                 "\n"
           : hash + "\n");
  return kExitOk;
}

struct UserArgs {
  std::string name;
  std::string firm;
  std::string role;
  std::string account;
  std::string fix_sender_comp_id;
};

// "trader" -> ROLE_TRADER, ...; ROLE_UNSPECIFIED for anything else.
w::Role ParseRole(const std::string& name) {
  for (int r = w::ROLE_TRADER; r <= w::ROLE_ADMIN; ++r) {
    if (RoleName(static_cast<Role>(r)) == name) return static_cast<w::Role>(r);
  }
  return w::ROLE_UNSPECIFIED;
}

int RunUserAdd(const GlobalOptions& g, const UserArgs& a) {
  const w::Role role = ParseRole(a.role);
  if (role == w::ROLE_UNSPECIFIED) {
    return Fail(kExitUsage,
                "--role: trader, provider, clearing-member, rating-agency, "
                "attester or admin");
  }
  w::Envelope e;
  w::UserAdd* m = e.mutable_user_add();
  m->set_request_id(RequestId());
  m->set_name(a.name);
  m->set_firm(a.firm);
  m->set_role(role);
  m->set_account(a.account);
  m->set_fix_sender_comp_id(a.fix_sender_comp_id);
  m->set_password(ReadPassword());
  if (m->password().empty()) return kExitUsage;
  return RunReference(g, "user add", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("added user " + a.name + ", seq " +
                              std::to_string(ack.seq()) + "\n");
                      });
}

int RunUserSetEnabled(const GlobalOptions& g, const std::string& name,
                      bool enabled) {
  w::Envelope e;
  w::UserSetEnabled* m = e.mutable_user_set_enabled();
  m->set_request_id(RequestId());
  m->set_name(name);
  m->set_enabled(enabled);
  const std::string verb = enabled ? "enable" : "disable";
  return RunReference(g, "user " + verb, e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print(verb + "d user " + name + ", seq " +
                              std::to_string(ack.seq()) + "\n");
                      });
}

int RunUserSetPassword(const GlobalOptions& g, const std::string& name) {
  w::Envelope e;
  w::UserSetPassword* m = e.mutable_user_set_password();
  m->set_request_id(RequestId());
  m->set_name(name);
  m->set_password(ReadPassword());
  if (m->password().empty()) return kExitUsage;
  return RunReference(g, "user set-password", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("set the password of user " + name + ", seq " +
                              std::to_string(ack.seq()) + "\n");
                      });
}

int RunUserList(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::UserListRequest* q = e.mutable_user_list_request();
  q->set_request_id(RequestId());
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "user list", "the user list", milliseconds(0),
      [&](const w::Envelope& m) {
        if (m.has_reference_ack() && m.reference_ack().request_id() == id) {
          const w::ReferenceAck& ack = m.reference_ack();
          if (c.json()) PrintJson(ProtoJson(ack));
          return Fail(kExitRejected,
                      "user list rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!m.has_user_list() || m.user_list().request_id() != id) {
          return kKeepWaiting;
        }
        if (c.json()) {
          PrintJson(ProtoJson(m.user_list()));
          return kExitOk;
        }
        Print("user            firm        role             account      "
              "FIX          status    password  api keys\n");
        for (const w::UserInfo& u : m.user_list().users()) {
          std::string keys;
          for (const std::string& k : u.api_keys()) {
            keys += (keys.empty() ? "" : ",") + k;
          }
          for (const std::string& k : u.revoked_api_keys()) {
            keys += (keys.empty() ? "" : ",") + k + "(revoked)";
          }
          char line[512];
          std::snprintf(
              line, sizeof line, "%-15s %-11s %-16s %-12s %-12s %-9s %-9s %s\n",
              u.name().c_str(), u.firm().c_str(),
              std::string(RoleName(static_cast<Role>(u.role()))).c_str(),
              u.account().empty() ? "-" : u.account().c_str(),
              u.fix_sender_comp_id().empty() ? "-"
                                             : u.fix_sender_comp_id().c_str(),
              u.enabled() ? "enabled" : "disabled",
              u.has_password() ? "yes" : "no", keys.empty() ? "-" : keys.c_str());
          Print(line);
        }
        return kExitOk;
      });
}

void AddUserCommands(CLI::App& admin, const std::shared_ptr<GlobalOptions>& g,
                     int* exit_code) {
  CLI::App* user = admin.add_subcommand(
      "user", "Add, disable, enable and list users, set passwords (admin)");
  user->require_subcommand(1);
  auto args = std::make_shared<UserArgs>();
  CLI::App* add = user->add_subcommand(
      "add", "Add a user; its FIX password is read from stdin");
  add->add_option("NAME", args->name, "the user's name")->required();
  add->add_option("--firm", args->firm, "a configured firm")->required();
  add->add_option("--role", args->role,
                  "trader, provider, clearing-member, rating-agency, "
                  "attester or admin")
      ->required();
  add->add_option("--account", args->account,
                  "the trading account (traders and providers)");
  add->add_option("--fix-sender-comp-id", args->fix_sender_comp_id,
                  "FIX SenderCompID (FIX access after a restart)");
  add->callback([g, args, exit_code] { *exit_code = RunUserAdd(*g, *args); });
  for (const bool enabled : {false, true}) {
    CLI::App* sub = user->add_subcommand(
        enabled ? "enable" : "disable",
        enabled ? "Let a disabled user log on again"
                : "Log the user's sessions out and refuse its logons");
    sub->add_option("NAME", args->name, "the user's name")->required();
    sub->callback([g, args, exit_code, enabled] {
      *exit_code = RunUserSetEnabled(*g, args->name, enabled);
    });
  }
  CLI::App* pw = user->add_subcommand(
      "set-password", "Replace a user's FIX password, read from stdin");
  pw->add_option("NAME", args->name, "the user's name")->required();
  pw->callback(
      [g, args, exit_code] { *exit_code = RunUserSetPassword(*g, args->name); });
  CLI::App* list =
      user->add_subcommand("list", "Every user, as the journal has it");
  list->callback([g, exit_code] { *exit_code = RunUserList(*g); });
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
  AddUserCommands(*admin, g, exit_code);
  AddApiKeyCommands(*admin, g, exit_code);
  AddHaltCommands(*admin, g, exit_code);
  AddKillCommands(*admin, app, g, exit_code);
}

}  // namespace cfx::gateway::cli
