#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cfx/wire/v1/wire.pb.h"
#include "gateway/tools/cli/command_io.h"
#include "gateway/tools/client/client.h"

namespace cfx::gateway::cli {

// Await handlers return an exit code (>= 0) to stop, or one of these.
// Keep waiting for the answer.
inline constexpr int kKeepWaiting = -1;
// The answer is in: keep printing what follows for the settle time (--wait),
// then exit 0.
inline constexpr int kSettle = -2;

// The connection options every gateway command shares.
struct GlobalOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9879;
  std::string api_key;
  std::string secret;
  // --key FILE (env CFX_API_KEY_FILE): the Ed25519 private key file
  // (`cfx keygen`) an ed25519 API key's logon is signed with.
  std::string key_file;
  bool json = false;
  std::string timeout = "5s";
  // TLS (--tls): the server certificate must chain to `ca` (--ca, env
  // CFX_CA; empty: the system CAs) and name the host connected to.
  bool tls = false;
  std::string ca;
};

// Registers the connection options (--host, --port, --api-key, --key,
// --secret,
// --tls, --ca, their CFX_* environment variables, --timeout) and --json on
// `app`,
// writing them to `*g`.
void AddConnectionOptions(CLI::App& app, GlobalOptions& g);

// One logged-on session of a command.
//
// Thread: the command's. `g` must remain live while the connection is.
class Connection {
 public:
  explicit Connection(const GlobalOptions& g) : g_(g) {}
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Logs out (orders stay: the logon opted out of cancel-on-disconnect)
  // and waits briefly for the server's Logout, so the session has ended
  // when cfx exits and the next cfx run as this user can log on.
  ~Connection();

  // Checks the connection options; returns kExitOk or prints a usage error
  // and returns kExitUsage.
  int Check();

  // Connects and logs on, keeping resting orders after the session ends.
  // Returns kExitOk, or prints the error and returns its exit code.
  int Open();

  // Check(), then Open(): kExitOk, or the exit code of the printed error.
  int Start();

  int Send(const wire::v1::Envelope& e);

  // Receives until `handle` returns an exit code. `subject` names the
  // request in errors ("order" -> "order rejected: ..."), `what` the awaited
  // answer ("timed out after 5s waiting for <what>"). A SessionReject is
  // the answer to the one request a command sends: it exits 1. Once
  // `handle` returns kSettle, the wait ends with kExitOk after `settle`
  // without further messages.
  int Await(const std::string& subject, const std::string& what,
            std::chrono::milliseconds settle,
            const std::function<int(const wire::v1::Envelope&)>& handle);

  client::Client& client() { return *client_; }
  bool json() const { return g_.json; }
  const std::string& timeout_text() const { return g_.timeout; }

 private:
  const GlobalOptions& g_;
  std::chrono::milliseconds timeout_{5000};
  // The Ed25519 seed the logon signs with (--key, or a demo user's
  // published key); empty: --secret signs.
  std::string private_key_;
  std::unique_ptr<client::Client> client_;
  bool logged_on_ = false;
};

// A fresh request id: the steady clock in its own ticks.
uint64_t RequestId();

// A ReferenceAck refusing query `request_id` (index, settlement): printed
// (and as JSON with --json); returns kExitRejected. kKeepWaiting for any
// other message.
int Refusal(Connection& c, const std::string& subject, uint64_t request_id,
            const wire::v1::Envelope& m);

// Awaits the answer to query `request_id`, which may come in parts: the
// messages for which `has` is true hold one, got with `get`. The first part
// is copied to `*answer`, and `merge(part)` adds each later one to it; the
// answer ends with the part whose more() is false, and then `*answer` says
// more() false too. A ReferenceAck refusing the query exits 1 (Refusal());
// `subject` names the query, `what` the answer, as in Connection::Await().
template <typename Part, typename Merge>
int AwaitParts(Connection& c, const std::string& subject,
               const std::string& what, uint64_t request_id,
               bool (wire::v1::Envelope::*has)() const,
               const Part& (wire::v1::Envelope::*get)() const, Part* answer,
               Merge merge) {
  const int rc =
      c.Await(subject, what, std::chrono::milliseconds(0),
              [&, first = true](const wire::v1::Envelope& m) mutable {
                if (!(m.*has)() || (m.*get)().request_id() != request_id) {
                  return Refusal(c, subject, request_id, m);
                }
                const Part& part = (m.*get)();
                if (first) {
                  *answer = part;
                  first = false;
                } else {
                  merge(part);
                }
                return part.more() ? kKeepWaiting : kExitOk;
              });
  if (rc == kExitOk) answer->set_more(false);
  return rc;
}

}  // namespace cfx::gateway::cli
