#include "gateway/tools/cli/connection.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "gateway/config/demo_identities.h"
#include "gateway/config/server_config.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// True iff `api_key` is one of the built-in demo config's demo users' keys.
bool IsDemoApiKey(const std::string& api_key) {
  static const Result<ServerConfig> demo = DefaultServerConfig();
  if (!demo.has_value()) return false;
  const UserConfig* u = demo.value().FindUserByApiKey(api_key, nullptr);
  return u != nullptr && u->demo;
}

// How long cfx waits for the server's answer to its Logout.
constexpr milliseconds kLogoutWait{1000};

}  // namespace

void AddConnectionOptions(CLI::App& app, GlobalOptions& g) {
  const std::string conn = "Connection";
  app.add_option("--host", g.host, "Gateway host (env CFX_HOST)")
      ->envname("CFX_HOST")
      ->capture_default_str()
      ->group(conn);
  app.add_option("--port", g.port, "Gateway port (env CFX_PORT)")
      ->envname("CFX_PORT")
      ->capture_default_str()
      ->group(conn)
      ->check(DecimalDigits());
  app.add_option("--api-key", g.api_key,
                 "API key, e.g. trader-a (env CFX_API_KEY)")
      ->envname("CFX_API_KEY")
      ->group(conn);
  app.add_option("--key", g.key_file,
                 "Ed25519 private key file of the API key, from cfx keygen "
                 "(env CFX_API_KEY_FILE; default for a demo user: its "
                 "published key)")
      ->envname("CFX_API_KEY_FILE")
      ->group(conn);
  app.add_option("--secret", g.secret,
                 "Secret of an hmac-sha256 API key (env CFX_API_SECRET)")
      ->envname("CFX_API_SECRET")
      ->group(conn);
  app.add_flag("--tls", g.tls,
               "Connect over TLS (the exchange's TLS port, e.g. 9869), "
               "verifying the server's certificate and name (env CFX_TLS)")
      ->envname("CFX_TLS")
      ->group(conn);
  app.add_option("--ca", g.ca,
                 "PEM CA file the server certificate must chain to, e.g. "
                 "var/cfx/tls/ca.crt, for --tls (env CFX_CA; default: the "
                 "system CAs)")
      ->envname("CFX_CA")
      ->group(conn);
  app.add_option("--timeout", g.timeout,
                 "How long to wait for each answer, e.g. 5s or 500ms")
      ->capture_default_str()
      ->group(conn);
  app.add_flag("--json", g.json, "One JSON object per result")->group("Output");
}

Connection::~Connection() {
  if (client_ == nullptr || !client_->connected()) return;
  if (!logged_on_) {
    client_->Close();
    return;
  }
  w::Envelope e;
  e.mutable_logout()->set_text("cfx done");
  if (client_->Send(e).ok()) {
    (void)client_->ReceiveUntil(
        [](const w::Envelope& m) { return m.has_logout(); }, kLogoutWait);
  }
  client_->Close();
}

int Connection::Check() {
  Result<milliseconds> t = ParsePositiveMillis(g_.timeout, "--timeout");
  if (!t.has_value()) return Fail(kExitUsage, t.error().message());
  timeout_ = t.value();
  if (g_.api_key.empty()) {
    return Fail(kExitUsage, "no API key: pass --api-key or set CFX_API_KEY");
  }
  if (!g_.key_file.empty()) {
    Result<std::string> key = crypto::ReadPrivateKeyFile(g_.key_file);
    if (!key.has_value()) return Fail(kExitUsage, key.error().message());
    private_key_ = std::move(key).value();
    return kExitOk;
  }
  if (!g_.secret.empty()) return kExitOk;
  if (IsDemoApiKey(g_.api_key)) {
    private_key_ = DemoPrivateKey(g_.api_key);
    return kExitOk;
  }
  return Fail(kExitUsage,
              "no credentials for API key " + g_.api_key +
                  ": pass --key FILE (env CFX_API_KEY_FILE), or --secret "
                  "(env CFX_API_SECRET) for an hmac-sha256 key");
}

int Connection::Open() {
  const SteadyClock::time_point start = SteadyClock::now();
  TlsClientOptions tls;
  tls.ca_file = g_.ca;
  auto c = client::Client::Connect(g_.host, g_.port, timeout_, "",
                                   g_.tls ? &tls : nullptr);
  if (!c.has_value()) return Fail(kExitConnection, c.error().message());
  client_ = std::move(c).value();
  client::LogonParams p;
  p.api_key = g_.api_key;
  p.secret = g_.secret;
  p.private_key = private_key_;
  p.cancel_on_disconnect_opt_out = true;
  const auto left = std::max(
      milliseconds(1), timeout_ - std::chrono::duration_cast<milliseconds>(
                                      SteadyClock::now() - start));
  Result<w::LogonAck> ack = client_->Logon(p, left);
  if (!ack.has_value()) {
    const std::string& m = ack.error().message();
    return FailStatus(ack.error(),
                      m.rfind("logon", 0) == 0 ? "" : "logon failed: ");
  }
  logged_on_ = true;
  return kExitOk;
}

int Connection::Start() {
  if (const int rc = Check(); rc != kExitOk) return rc;
  return Open();
}

int Connection::Send(const w::Envelope& e) {
  const Status s = client_->Send(e);
  return s.ok() ? kExitOk : FailStatus(s);
}

int Connection::Await(const std::string& subject, const std::string& what,
                      milliseconds settle,
                      const std::function<int(const w::Envelope&)>& handle) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout_;
  std::optional<SteadyClock::time_point> settle_until;
  for (;;) {
    const SteadyClock::time_point until =
        settle_until.has_value() ? std::min(*settle_until, deadline) : deadline;
    const auto left =
        std::max(milliseconds(0),
                 std::chrono::ceil<milliseconds>(until - SteadyClock::now()));
    Result<w::Envelope> r = client_->Receive(left);
    if (!r.has_value()) {
      if (r.error().code() != StatusCode::kResourceExhausted) {
        return FailStatus(r.error());
      }
      if (settle_until.has_value()) return kExitOk;
      if (SteadyClock::now() < deadline) continue;
      return Fail(kExitTimeout,
                  "timed out after " + g_.timeout + " waiting for " + what);
    }
    const w::Envelope& m = r.value();
    if (m.has_session_reject()) {
      const w::SessionReject& rej = m.session_reject();
      if (g_.json) PrintJson(SessionRejectJson(rej));
      return Fail(kExitRejected,
                  subject + " rejected: " +
                      ReasonText(EnumName(rej.reason()), rej.text()));
    }
    const int rc = handle(m);
    if (rc == kSettle) {
      settle_until = SteadyClock::now() + settle;
    } else if (rc != kKeepWaiting) {
      return rc;
    }
  }
}

uint64_t RequestId() {
  return static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
}

int Refusal(Connection& c, const std::string& subject, uint64_t request_id,
            const w::Envelope& m) {
  if (!m.has_reference_ack() || m.reference_ack().request_id() != request_id) {
    return kKeepWaiting;
  }
  const w::ReferenceAck& ack = m.reference_ack();
  if (c.json()) PrintJson(ProtoJson(ack));
  return Fail(
      kExitRejected,
      subject + " rejected: " + ReasonText(EnumName(ack.reason()), ack.text()));
}

}  // namespace cfx::gateway::cli
