#include <algorithm>
#include <string>

#include "gateway/config/server_config.h"
#include "gateway/pb/gateway.h"
#include "gateway/pb/logon_signature.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/metrics.h"

// The protobuf gateway's logon (credentials, signature checked off the
// gateway thread with back-off per source and per API key, timestamp window,
// nonce reuse, also across restarts, one session per user) and resume: a
// logon with resume_after_seq starts the account's retransmission, which
// the Resender serves from memory in Poll() while live messages wait.

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr uint32_t kMinHeartbeatMs = 100;
constexpr uint32_t kMaxHeartbeatMs = 60'000;

// Per source address: free for 8 failed checks (several users behind one
// address), then 1 s, doubling, at most 60 s.
constexpr BackoffPolicy kSourceBackoff{.free_failures = 8, .max_in_flight = 8};
// Per API key at one source address: 1 s after a failed check, doubling,
// at most 60 s.
constexpr BackoffPolicy kKeyBackoff{};

// The peer's address, or "" when it has none.
std::string PeerAddress(const asio::ip::tcp::socket& socket) {
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  return ec ? std::string() : peer.address().to_string();
}

bool PrintableAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

void Gateway::OnLogon(Session& s, const w::Logon& m) {
  if (s.state != Session::State::kAwaitLogon) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE, "logon",
                   nullptr, "already logged on");
    return;
  }
  if (m.api_key().empty() || m.api_key().size() > 128 ||
      !PrintableAscii(m.api_key())) {
    LogonReject(s, w::LOGON_REJECT_REASON_INVALID_LOGON,
                "api_key: 1 to 128 printable characters");
    return;
  }
  if (m.nonce().size() < 8 || m.nonce().size() > 64 ||
      !PrintableAscii(m.nonce())) {
    LogonReject(s, w::LOGON_REJECT_REASON_INVALID_LOGON,
                "nonce: 8 to 64 printable characters");
    return;
  }
  if (m.signature().size() != 32) {
    LogonReject(s, w::LOGON_REJECT_REASON_INVALID_LOGON,
                "signature: 32 bytes of HMAC-SHA256");
    return;
  }
  if (m.heartbeat_interval_ms() != 0 &&
      (m.heartbeat_interval_ms() < kMinHeartbeatMs ||
       m.heartbeat_interval_ms() > kMaxHeartbeatMs)) {
    LogonReject(s, w::LOGON_REJECT_REASON_INVALID_LOGON,
                "heartbeat_interval_ms: 0 or 100 to 60000");
    return;
  }
  const ApiKey* key = nullptr;
  const UserConfig* user = config_.FindUserByApiKey(m.api_key(), &key);
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
  if (!backoff_.Begin(source, kSourceBackoff, now_ns, &wait)) {
    LogonReject(s, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, BackoffText(wait));
    return;
  }
  if (!backoff_.Begin(pair, kKeyBackoff, now_ns, &wait)) {
    backoff_.Abandon(source);
    LogonReject(s, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, BackoffText(wait));
    return;
  }
  // An unknown key is checked against a secret of its own, so that it
  // costs what a known one does.
  auto check = [secret = user != nullptr ? key->secret : std::string(32, '\0'),
                m, known = user != nullptr] {
    return VerifyLogonSignature(secret, m.api_key(), m.timestamp_ns(),
                                m.nonce(), m.signature()) &&
           known;
  };
  std::weak_ptr<char> alive = alive_;
  auto done = [this, alive, id = s.id, m, user, source, pair](bool passed) {
    if (!alive.expired()) LogonCheckDone(id, m, user, source, pair, passed);
  };
  if (!checker_->TrySubmit(io_, std::move(check), std::move(done))) {
    backoff_.Abandon(source);
    backoff_.Abandon(pair);
    LogonReject(s, w::LOGON_REJECT_REASON_TRY_AGAIN_LATER, kChecksBusyText);
    return;
  }
  s.logon_checking = true;
}

int64_t Gateway::LogonNow() const {
  return deps_.logon_clock_ns ? deps_.logon_clock_ns() : SteadyNs();
}

void Gateway::LogonCheckDone(uint64_t session_id, const w::Logon& m,
                             const UserConfig* user, LogonBackoff::Key source,
                             LogonBackoff::Key pair, bool passed) {
  const int64_t now_ns = LogonNow();
  backoff_.End(source, passed, kSourceBackoff, now_ns);
  backoff_.End(pair, passed, kKeyBackoff, now_ns);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  std::shared_ptr<Session> s = it->second;
  if (s->state == Session::State::kClosed || !s->logon_checking) return;
  s->logon_checking = false;
  if (s->state == Session::State::kAwaitLogon) {
    if (passed) {
      CompleteLogon(*s, m, user);
    } else {
      LogonReject(*s, w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                  "authentication failed");
    }
  }
  // The frames that waited, then the read loop again.
  if (DrainFrames(*s)) Read(s);
}

void Gateway::CompleteLogon(Session& s, const w::Logon& m,
                            const UserConfig* user) {
  const int64_t now = WallNs();
  const int64_t window =
      int64_t{config_.session.logon_window_seconds} * kNanosPerSecond;
  if (m.timestamp_ns() < now - window || m.timestamp_ns() > now + window) {
    LogonReject(s, w::LOGON_REJECT_REASON_STALE_TIMESTAMP,
                "timestamp_ns is more than " +
                    std::to_string(config_.session.logon_window_seconds) +
                    " s from the exchange's clock");
    return;
  }
  if (!TakeNonce(s, m)) return;
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
  s.account = user->account;
  s.state = Session::State::kActive;
  AcceptorOf(s.id).LoggedOn(s.id);
  // The heartbeat timeout counts from logon: the nonce's sync took time.
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

void Gateway::LogonReject(Session& s, w::LogonRejectReason reason,
                          const std::string& text) {
  out_.Clear();
  out_.mutable_logon_reject()->set_reason(reason);
  out_.mutable_logon_reject()->set_text(text);
  if (deps_.metrics != nullptr) deps_.metrics->LogonResult(false);
  outbox_.Send(s, out_);
  s.state = Session::State::kClosing;  // closed once the reject is written
}

bool Gateway::TakeNonce(Session& s, const w::Logon& m) {
  switch (nonces_.TryUse(m.api_key(), m.nonce(), m.timestamp_ns())) {
    case LogonNonces::Use::kFresh:
      return true;
    case LogonNonces::Use::kReused:
      LogonReject(s, w::LOGON_REJECT_REASON_NONCE_REUSED,
                  "this nonce was already used");
      return false;
    case LogonNonces::Use::kNotRecorded:
      LogonReject(s, w::LOGON_REJECT_REASON_NONCE_NOT_RECORDED,
                  "the nonce could not be recorded; try again");
      return false;
  }
  return false;
}

}  // namespace cfx::gateway::pb
