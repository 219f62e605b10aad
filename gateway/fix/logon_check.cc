// FixGateway: Logon passwords (docs/fix.md, "Logon"). PBKDF2 costs tens of
// milliseconds, so the check runs on the credential checker's workers, never
// on the gateway thread that every session shares; the Logon waits (outside
// its session) for the verdict. A source address whose check failed backs
// off exponentially; the genuine user at another address is never delayed by
// it. Unknown SenderCompIDs and users are checked against a hash that
// matches nothing, so every refusal costs and reads the same.

#include <openssl/crypto.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "gateway/config/password.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/fix/fix_gateway_state.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/metrics.h"

namespace cfx::gateway::fix {

namespace {

constexpr char kInvalidCredentials[] = "invalid username or password";

// A Logon refused unchecked (back-off, checks in flight, busy) is answered
// this long after it came, so that a flood of them, each answered at once,
// cannot make a loop of connections that costs the gateway more than the
// checks it spares; at most kMaxDelayedRefusals wait (beyond, at once).
constexpr int64_t kRefusalDelayNs = 1'000'000'000;
constexpr std::size_t kMaxDelayedRefusals = 4'096;

// Per source address: 1 s after a failed check, doubling, at most 60 s; as
// many checks at once as the address may hold connections not logged on (at
// least 8), so a firm's sessions logging on together from one host are never
// refused by it.
BackoffPolicy SourceBackoff(const SessionPolicy& session) {
  return BackoffPolicy{
      .max_in_flight = std::max<uint32_t>(8, session.max_pre_logon_per_source)};
}

// "<address>" of the connection's peer, or "" when it has none.
std::string PeerAddress(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  return ec ? std::string() : peer.address().to_string();
}

}  // namespace

void FixGateway::InitLogonChecks() {
  checker_ = deps_.credentials;
  if (checker_ == nullptr) {
    own_checker_ = std::make_unique<CredentialChecker>();
    checker_ = own_checker_.get();
  }
  // The most iterations any user's hash has: an unknown user's check costs
  // at least what a known one's does. The hash bytes match no password.
  uint64_t iterations = kDefaultPasswordIterations;
  for (const UserConfig& u : config_.users) {
    const std::string& h = u.password_hash;
    const std::size_t a = h.find('$');
    const std::size_t b = a == std::string::npos ? a : h.find('$', a + 1);
    if (b == std::string::npos) continue;
    iterations = std::max<uint64_t>(
        iterations,
        std::strtoull(h.substr(a + 1, b - a - 1).c_str(), nullptr, 10));
  }
  iterations = std::min<uint64_t>(iterations, kMaxPasswordIterations);
  unknown_user_hash_ = "pbkdf2-sha256$" + std::to_string(iterations) +
                       "$00000000000000000000000000000000$" +
                       std::string(64, '0');
}

bool FixGateway::CheckLogon(uint64_t conn, int session,
                            const std::string& username,
                            const std::string& password, std::string* refusal) {
  auto it = conns_.find(conn);
  const std::string address =
      it == conns_.end() ? std::string() : PeerAddress(it->second->stream.socket());
  const LogonBackoff::Key source = backoff_.KeyOf("fix " + address);
  const UserConfig* user =
      session >= 0 ? sessions_[static_cast<std::size_t>(session)]->user
                   : nullptr;
  const std::string who = user != nullptr
                              ? "fix " + user->fix_sender_comp_id
                              : std::string("fix unknown SenderCompID");
  int64_t wait = 0;
  const BackoffRefusal why =
      backoff_.Begin(source, SourceBackoff(config_.session), SteadyNs(), &wait);
  if (why != BackoffRefusal::kNone) {
    if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(false);
    Log(who + ": logon from " + address + " refused: " +
        (why == BackoffRefusal::kInFlight ? "checks in flight" : "back-off"));
    return RefuseUnchecked(conn, RefusalText(why, wait), refusal);
  }
  const std::string& user_hash =
      user == nullptr ? unknown_user_hash_
      : deps_.users != nullptr
          ? deps_.users->PasswordHash(user->name, user->password_hash)
          : user->password_hash;
  const bool named =
      user != nullptr && username == user->name && !user_hash.empty();
  // A disabled user's password is checked all the same (the refusal costs
  // what any other does), then refused as disabled.
  const bool disabled = named && deps_.users != nullptr &&
                        !deps_.users->Enabled(user->name);
  std::string hash = named ? user_hash : unknown_user_hash_;
  auto check = [hash = std::move(hash), pw = std::string(password),
                named]() mutable {
    const bool ok = VerifyPassword(hash, pw) && named;
    OPENSSL_cleanse(pw.data(), pw.size());
    return ok;
  };
  std::weak_ptr<char> alive = alive_;
  auto done = [this, alive, conn, session, source, disabled](bool passed) {
    if (!alive.expired()) {
      LogonCheckDone(conn, session, source, passed, disabled);
    }
  };
  // PBKDF2 is costly: within the checker's CPU budget, unless a logon
  // passed from this address before (a firm's own host).
  const bool costly = !known_sources_.Known(source, SteadyNs());
  if (!checker_->TrySubmit(io_, std::move(check), std::move(done), costly)) {
    backoff_.Abandon(source);
    if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(false);
    Log(who + ": logon from " + address + " refused: checks busy");
    return RefuseUnchecked(conn, kChecksBusyText, refusal);
  }
  return false;
}

bool FixGateway::RefuseUnchecked(uint64_t conn, const std::string& text,
                                 std::string* refusal) {
  if (delayed_refusals_.size() >= kMaxDelayedRefusals) {
    *refusal = text;
    return true;
  }
  delayed_refusals_.push_back(
      DelayedRefusal{SteadyNs() + kRefusalDelayNs, conn, text});
  return false;
}

int FixGateway::ReleaseRefusals(int64_t now_ns) {
  int n = 0;
  while (!delayed_refusals_.empty() &&
         delayed_refusals_.front().due_ns <= now_ns) {
    const DelayedRefusal r = std::move(delayed_refusals_.front());
    delayed_refusals_.pop_front();
    // Nothing when the connection is gone meanwhile.
    engine_->LogonChecked(r.conn, r.text);
    ++n;
  }
  return n;
}

void FixGateway::LogonCheckDone(uint64_t conn, int session,
                                LogonBackoff::Key source, bool passed,
                                bool disabled) {
  const int64_t now = SteadyNs();
  backoff_.End(source, passed, SourceBackoff(config_.session), now);
  if (passed) {
    known_sources_.Passed(source, now);
  } else {
    known_sources_.Failed(source);
  }
  if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(passed);
  if (!passed) {
    Log((session >= 0
             ? "fix " + sessions_[static_cast<std::size_t>(session)]->comp_id
             : std::string("fix unknown SenderCompID")) +
        ": logon refused: " + kInvalidCredentials);
  }
  if (passed && disabled) {
    Log("fix " + sessions_[static_cast<std::size_t>(session)]->comp_id +
        ": logon refused: " + kUserDisabledText);
    engine_->LogonChecked(conn, kUserDisabledText);
    return;
  }
  engine_->LogonChecked(conn, passed ? std::string() : kInvalidCredentials);
}

void FixGateway::UserChanged(const exchange::ReferenceUser& user) {
  if (user.enabled) {
    AddUserSession(user);
    return;
  }
  for (const auto& s : sessions_) {
    if (s->user == nullptr || s->user->name != user.name) continue;
    if (!engine_->LoggedOn(s->index)) continue;
    Log("fix " + s->comp_id + ": logged out: " + kUserDisabledText);
    engine_->Logout(s->index, kUserDisabledText);
  }
}

void FixGateway::AddUserSession(const exchange::ReferenceUser& user) {
  if (user.fix_sender_comp_id.empty() || deps_.users == nullptr) return;
  for (const auto& s : sessions_) {
    if (s->comp_id == user.fix_sender_comp_id) return;
  }
  const UserConfig* u = deps_.users->FindUserConfig(user.name);
  if (u == nullptr) return;
  std::string error;
  const int index = engine_->AddSession(u->fix_sender_comp_id, &error);
  if (index < 0) {
    Log("fix " + u->fix_sender_comp_id + ": no session: " + error);
    return;
  }
  SessionState& s = AddSessionState(*u);
  s.active = engine_->HasHistory(s.index);
  Log("fix " + s.comp_id + ": session added for user " + u->name);
}

}  // namespace cfx::gateway::fix
