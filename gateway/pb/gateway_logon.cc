#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gateway/config/server_config.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/pb/gateway.h"
#include "gateway/pb/logon_signature.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/metrics.h"

// The protobuf gateway's logon (credentials, signature checked off the
// gateway thread with back-off per source and per API key, timestamp window,
// nonce reuse, also across restarts, the nonce synced off the gateway thread
// too, one session per user) and resume: a
// logon with resume_after_seq starts the account's retransmission, which
// the Resender serves from memory in Poll() while live messages wait.

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr uint32_t kMinHeartbeatMs = 100;
constexpr uint32_t kMaxHeartbeatMs = 60'000;
// A Logon refused unchecked (back-off, checks in flight, busy) is answered
// this long after it came, so that a flood of them, each answered at once,
// cannot make a loop of connections that costs the gateway more than the
// checks it spares; at most kMaxDelayedRefusals wait (beyond, at once).
constexpr int64_t kRefusalDelayNs = 1'000'000'000;
constexpr std::size_t kMaxDelayedRefusals = 4'096;

// Per source address: free for 8 failed checks (several users behind one
// address), then 1 s, doubling, at most 60 s; as many checks at once as the
// address may hold connections not logged on (at least 8), so a firm whose
// sessions log on together from one host is never refused by it.
BackoffPolicy SourceBackoff(const SessionPolicy& session) {
  return BackoffPolicy{
      .free_failures = 8,
      .max_in_flight = std::max<uint32_t>(8, session.max_pre_logon_per_source)};
}
// Per API key at one source address: 1 s after a failed check, doubling,
// at most 60 s.
constexpr BackoffPolicy kKeyBackoff{};

// The peer's address, or "" when it has none.
std::string PeerAddress(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  return ec ? std::string() : peer.address().to_string();
}

constexpr std::size_t kHmacSignatureBytes = 32;

// A valid public key no logon's signature verifies with (its private key
// is discarded), so an unknown key's Ed25519 check costs a real one.
const std::string& UnknownKeyPublicKey() {
  static const std::string key = [] {
    Result<crypto::Ed25519KeyPair> pair = crypto::GenerateKeyPair();
    return pair.has_value() ? pair.value().public_key
                            : std::string(crypto::kEd25519PublicKeyBytes, '\0');
  }();
  return key;
}

bool PrintableAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c > 0x20 && c < 0x7f; });
}

// Why the Logon's fields are malformed, or nullptr.
const char* LogonFieldError(const w::Logon& m) {
  if (m.api_key().empty() || m.api_key().size() > 128 ||
      !PrintableAscii(m.api_key())) {
    return "api_key: 1 to 128 printable characters";
  }
  if (m.nonce().size() < 8 || m.nonce().size() > 64 ||
      !PrintableAscii(m.nonce())) {
    return "nonce: 8 to 64 printable characters";
  }
  // Either kind's length: which one the key needs is only learnt on the
  // worker, with the same answer for a wrong kind as for a wrong signature.
  if (m.signature().size() != crypto::kEd25519SignatureBytes &&
      m.signature().size() != kHmacSignatureBytes) {
    return "signature: 64 bytes of Ed25519 or 32 of HMAC-SHA256";
  }
  if (m.heartbeat_interval_ms() != 0 &&
      (m.heartbeat_interval_ms() < kMinHeartbeatMs ||
       m.heartbeat_interval_ms() > kMaxHeartbeatMs)) {
    return "heartbeat_interval_ms: 0 or 100 to 60000";
  }
  return nullptr;
}

}  // namespace

void Gateway::OnLogon(Session& s, const w::Logon& m) {
  if (s.state != Session::State::kAwaitLogon) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE, "logon",
                   nullptr, "already logged on");
    return;
  }
  if (const char* why = LogonFieldError(m); why != nullptr) {
    LogonReject(s, w::LOGON_REJECT_REASON_INVALID_LOGON, why);
    return;
  }
  // The journal's keys (a key added or revoked at run time counts at
  // once); without a directory, the config's.
  const ApiKey* key = nullptr;
  const UserConfig* user =
      deps_.users != nullptr ? deps_.users->FindUserByApiKey(m.api_key(), &key)
                             : config_.FindUserByApiKey(m.api_key(), &key);
  // Back-off per source address and per API key at that address; a check
  // that may run goes to the credential checker, and the session's later
  // frames wait for its verdict.
  const std::string address = PeerAddress(s.stream.socket());
  const LogonBackoff::Key source = backoff_.KeyOf("pb " + address);
  const LogonBackoff::Key pair = backoff_.KeyOf(
      "pb " + address +
      (user != nullptr ? " user " + user->name : " key " + m.api_key()));
  const int64_t now_ns = LogonNow();
  int64_t wait = 0;
  BackoffRefusal why = backoff_.Begin(source, SourceBackoff(config_.session),
                                      now_ns, &wait);
  if (why != BackoffRefusal::kNone) {
    RefuseUnchecked(s, RefusalText(why, wait));
    return;
  }
  why = backoff_.Begin(pair, kKeyBackoff, now_ns, &wait);
  if (why != BackoffRefusal::kNone) {
    backoff_.Abandon(source);
    RefuseUnchecked(s, RefusalText(why, wait));
    return;
  }
  // On the worker: the signature (an unknown key is checked against a
  // key of its own, of the signature's kind, so that it costs what a known
  // one does), then the
  // timestamp window, then the nonce, recorded there so that no file write
  // holds this thread (its sync follows: SyncNonces()). The check's result
  // is what the back-off counts: whether the signature passed.
  struct Found {
    LogonVerdict verdict = LogonVerdict::kBadSignature;
    uint64_t ticket = 0;
  };
  auto found = std::make_shared<Found>();
  const int64_t window_ns =
      int64_t{config_.session.logon_window_seconds} * kNanosPerSecond;
  ApiKey checked_key =
      user != nullptr ? *key
      : m.signature().size() == kHmacSignatureBytes
          ? ApiKey::Hmac(m.api_key(), std::string(kHmacSignatureBytes, '\0'))
          : ApiKey::Ed25519(m.api_key(), UnknownKeyPublicKey());
  auto check = [checked_key = std::move(checked_key), m,
                known = user != nullptr, window_ns, nonces = nonces_, found] {
    if (!VerifyLogon(checked_key, m.api_key(), m.timestamp_ns(), m.nonce(),
                     m.signature()) ||
        !known) {
      return false;
    }
    const int64_t now = WallNs();
    if (m.timestamp_ns() < now - window_ns ||
        m.timestamp_ns() > now + window_ns) {
      found->verdict = LogonVerdict::kStale;
      return true;
    }
    switch (nonces->Record(m.api_key(), m.nonce(), m.timestamp_ns(),
                           &found->ticket)) {
      case LogonNonces::Use::kFresh:
        found->verdict = LogonVerdict::kRecorded;
        break;
      case LogonNonces::Use::kReused:
        found->verdict = LogonVerdict::kNonceReused;
        break;
      case LogonNonces::Use::kNotRecorded:
        found->verdict = LogonVerdict::kNonceNotRecorded;
        break;
    }
    return true;
  };
  std::weak_ptr<char> alive = alive_;
  // The worker's writes to *found happen before this runs: it is posted to
  // io_ after the check returned.
  auto done = [this, alive, id = s.id, m, user, source, pair,
               found](bool passed) {
    if (!alive.expired()) {
      LogonCheckDone(id, m, user, source, pair,
                     passed ? found->verdict : LogonVerdict::kBadSignature,
                     found->ticket);
    }
  };
  if (!checker_->TrySubmit(io_, std::move(check), std::move(done))) {
    backoff_.Abandon(source);
    backoff_.Abandon(pair);
    RefuseUnchecked(s, kChecksBusyText);
    return;
  }
  s.logon_checking = true;
}

int64_t Gateway::LogonNow() const {
  return deps_.logon_clock_ns ? deps_.logon_clock_ns() : SteadyNs();
}

void Gateway::LogonCheckDone(uint64_t session_id, const w::Logon& m,
                             const UserConfig* user, LogonBackoff::Key source,
                             LogonBackoff::Key pair, LogonVerdict verdict,
                             uint64_t ticket) {
  const bool passed = verdict != LogonVerdict::kBadSignature;
  const int64_t now_ns = LogonNow();
  backoff_.End(source, passed, SourceBackoff(config_.session), now_ns);
  backoff_.End(pair, passed, kKeyBackoff, now_ns);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  std::shared_ptr<Session> s = it->second;
  if (s->state == Session::State::kClosed || !s->logon_checking) return;
  if (verdict == LogonVerdict::kRecorded &&
      s->state == Session::State::kAwaitLogon) {
    // Still checking: its frames wait until the nonce is durable.
    awaiting_sync_.push_back(AwaitingSync{session_id, m, user, ticket});
    return;
  }
  s->logon_checking = false;
  if (s->state == Session::State::kAwaitLogon) {
    switch (verdict) {
      case LogonVerdict::kBadSignature:
        LogonReject(*s, w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                    "authentication failed");
        break;
      case LogonVerdict::kStale:
        LogonReject(*s, w::LOGON_REJECT_REASON_STALE_TIMESTAMP,
                    "timestamp_ns is more than " +
                        std::to_string(config_.session.logon_window_seconds) +
                        " s from the exchange's clock");
        break;
      case LogonVerdict::kNonceReused:
        LogonReject(*s, w::LOGON_REJECT_REASON_NONCE_REUSED,
                    "this nonce was already used");
        break;
      case LogonVerdict::kNonceNotRecorded:
        LogonReject(*s, w::LOGON_REJECT_REASON_NONCE_NOT_RECORDED,
                    "the nonce could not be recorded; try again");
        break;
      case LogonVerdict::kRecorded:  // handled above
        break;
    }
  }
  // The frames that waited, then the read loop again.
  if (DrainFrames(*s)) Read(s);
}

int Gateway::SyncNonces() {
  if (awaiting_sync_.empty() || nonce_sync_running_) return 0;
  auto through = std::make_shared<uint64_t>(0);
  const int64_t keep_ns =
      2 * int64_t{config_.session.logon_window_seconds} * kNanosPerSecond;
  auto sync = [nonces = nonces_, through, keep_ns] {
    const bool ok = nonces->Sync(through.get());
    // Nonces older than twice the window are forgotten.
    nonces->Expire(WallNs() - keep_ns);
    return ok;
  };
  std::weak_ptr<char> alive = alive_;
  auto done = [this, alive, through](bool ok) {
    if (!alive.expired()) NoncesSynced(ok, *through);
  };
  // A full queue: tried again on the next turn.
  if (!checker_->TrySubmit(io_, std::move(sync), std::move(done))) return 0;
  nonce_sync_running_ = true;
  return 1;
}

void Gateway::NoncesSynced(bool ok, uint64_t through) {
  nonce_sync_running_ = false;
  std::vector<AwaitingSync> covered;
  auto keep = std::stable_partition(
      awaiting_sync_.begin(), awaiting_sync_.end(),
      [through](const AwaitingSync& a) { return a.ticket > through; });
  covered.assign(std::make_move_iterator(keep),
                 std::make_move_iterator(awaiting_sync_.end()));
  awaiting_sync_.erase(keep, awaiting_sync_.end());
  for (const AwaitingSync& a : covered) {
    auto it = sessions_.find(a.session_id);
    if (it == sessions_.end()) continue;
    std::shared_ptr<Session> s = it->second;
    if (s->state == Session::State::kClosed || !s->logon_checking) continue;
    s->logon_checking = false;
    if (s->state == Session::State::kAwaitLogon) {
      if (ok) {
        CompleteLogon(*s, a.logon, a.user);
      } else {
        LogonReject(*s, w::LOGON_REJECT_REASON_NONCE_NOT_RECORDED,
                    "the nonce could not be recorded; try again");
      }
    }
    if (DrainFrames(*s)) Read(s);
  }
}

void Gateway::CompleteLogon(Session& s, const w::Logon& m,
                            const UserConfig* user) {
  // The logged-on sessions' room: connections not logged on (this one
  // included) are counted apart, in the acceptor's pre-logon budget.
  const std::size_t waiting = PreLogon();
  if (sessions_.size() > waiting &&
      sessions_.size() - waiting >= config_.session.max_sessions) {
    LogonReject(s, w::LOGON_REJECT_REASON_TOO_MANY_CONNECTIONS,
                "session.max_sessions (" +
                    std::to_string(config_.session.max_sessions) +
                    ") sessions are logged on");
    return;
  }
  if (deps_.users != nullptr && !deps_.users->Enabled(user->name)) {
    LogonReject(s, w::LOGON_REJECT_REASON_USER_DISABLED, kUserDisabledText);
    return;
  }
  // The key was revoked while its signature was checked: as unknown.
  if (deps_.users != nullptr &&
      !deps_.users->KeyActive(user->name, m.api_key())) {
    LogonReject(s, w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                "authentication failed");
    return;
  }
  for (const auto& [id, other] : sessions_) {
    if (other.get() != &s && other->user == user &&
        other->state == Session::State::kActive) {
      LogonReject(s, w::LOGON_REJECT_REASON_ALREADY_LOGGED_ON,
                  "user " + user->name + " already has a session");
      return;
    }
  }
  if (m.has_resume_after_seq() && m.resume_after_seq() > last_event_seq_) {
    LogonReject(s, w::LOGON_REJECT_REASON_RETRANSMISSION_UNAVAILABLE,
                "resume_after_seq " + std::to_string(m.resume_after_seq()) +
                    " is beyond the exchange's last seq " +
                    std::to_string(last_event_seq_));
    return;
  }

  s.user = user;
  s.api_key = m.api_key();
  s.account = user->account;
  s.state = Session::State::kActive;
  AcceptorOf(s.id).LoggedOn(s.id);
  // The heartbeat timeout counts from logon: the check took time.
  s.last_recv_ns = SteadyNs();
  if (m.heartbeat_interval_ms() != 0)
    s.heartbeat_ms = m.heartbeat_interval_ms();
  s.cancel_on_disconnect = !m.cancel_on_disconnect_opt_out();
  reports_.Add(s);
  if (deps_.metrics != nullptr) deps_.metrics->LogonResult(true);
  if (user->demo && deps_.log) {
    deps_.log("protobuf: " + user->name +
              " logged on (WARNING: a demo identity, published credentials)");
  }

  out_.Clear();
  w::LogonAck* ack = out_.mutable_logon_ack();
  ack->set_user(user->name);
  ack->set_firm(user->firm);
  if (const AccountInfo* a = config_.account(s.account)) {
    ack->set_account(a->name);
  }
  ack->set_role(static_cast<w::Role>(user->role));
  ack->set_heartbeat_interval_ms(s.heartbeat_ms);
  ack->set_exchange_seq(deps_.durable_seq ? deps_.durable_seq() : 0);
  ack->set_exchange_time_ns(deps_.clock->Now().nanos);
  ack->set_cancel_on_disconnect(s.cancel_on_disconnect);
  outbox_.Send(s, out_);

  if (m.has_resume_after_seq()) {
    resender_.Start(
        s, MessagePosition{m.resume_after_seq(), m.resume_after_index()},
        last_event_seq_);
  }
}

void Gateway::RefuseUnchecked(Session& s, const std::string& text) {
  if (delayed_refusals_.size() >= kMaxDelayedRefusals) {
    LogonReject(s, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, text);
    return;
  }
  s.logon_checking = true;
  delayed_refusals_.push_back(
      DelayedRefusal{SteadyNs() + kRefusalDelayNs, s.id, text});
}

int Gateway::ReleaseRefusals(int64_t now_ns) {
  int n = 0;
  while (!delayed_refusals_.empty() &&
         delayed_refusals_.front().due_ns <= now_ns) {
    const DelayedRefusal r = std::move(delayed_refusals_.front());
    delayed_refusals_.pop_front();
    ++n;
    auto it = sessions_.find(r.session_id);
    if (it == sessions_.end()) continue;
    std::shared_ptr<Session> s = it->second;
    if (s->state != Session::State::kAwaitLogon || !s->logon_checking) {
      continue;
    }
    s->logon_checking = false;
    LogonReject(*s, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, r.text);
    if (DrainFrames(*s)) Read(s);
  }
  return n;
}

void Gateway::LogonReject(Session& s, w::LogonRejectReason reason,
                          const std::string& text) {
  out_.Clear();
  out_.mutable_logon_reject()->set_reason(reason);
  out_.mutable_logon_reject()->set_text(text);
  if (deps_.metrics != nullptr) deps_.metrics->LogonResult(false);
  outbox_.Send(s, out_);
  s.state = Session::State::kClosing;  // closed once the reject is written
}

}  // namespace cfx::gateway::pb
