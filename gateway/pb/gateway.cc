#include "gateway/pb/gateway.h"

#include <algorithm>
#include <filesystem>

#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/frame.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/metrics.h"

// The protobuf gateway's connections: accepting, reading frames and
// dispatching them, the order-entry path to the sequencer's ring, the fan-out
// of durable events, timers and socket writes. Logon and resume are in
// gateway_logon.cc, the desks' requests in gateway_desks.cc.

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using asio::ip::tcp;
using exchange::Command;
using exchange::CommandType;

namespace {

constexpr int64_t kNanosPerMilli = 1'000'000;
constexpr int64_t kNanosPerSecond = 1'000'000'000;
// A session whose unsent output grows beyond this is too slow: closed.
constexpr std::size_t kMaxOutputBytes = 64u << 20;

// The body's Envelope field name, for rejects only (a lookup, off the order
// path).
const char* BodyName(w::Envelope::BodyCase body) {
  return w::Envelope::descriptor()
      ->FindFieldByNumber(static_cast<int>(body))
      ->name()
      .c_str();
}

// Logged-on sessions up to max_sessions, plus the pre-logon budget.
AcceptorOptions PortOptions(const SessionPolicy& session) {
  AcceptorOptions options;
  options.max_connections =
      std::size_t{session.max_sessions} + session.max_pre_logon;
  options.pre_logon = {session.max_pre_logon, session.max_pre_logon_per_source};
  return options;
}

// The TLS acceptor's first slot: far above any plaintext one.
constexpr uint64_t kTlsFirstSlot = uint64_t{1} << 62;

}  // namespace

Gateway::Gateway(asio::io_context& io, const GatewayDeps& deps)
    : io_(io),
      deps_(deps),
      config_(*deps.config),
      instruments_(*deps.instruments),
      own_orders_(deps.orders != nullptr ? nullptr
                                         : std::make_unique<OrderView>()),
      orders_(deps.orders != nullptr ? *deps.orders : *own_orders_),
      own_reasons_(deps.status_reasons != nullptr
                       ? nullptr
                       : std::make_unique<StatusReasons>()),
      reasons_(deps.status_reasons != nullptr ? *deps.status_reasons
                                              : *own_reasons_),
      outbox_(deps.metrics),
      resender_(deps.config->engine.limits.max_accounts,
                deps.config->session.resend_max_messages, outbox_),
      adapter_(*deps.instruments),
      reports_(*deps.config, *deps.instruments, orders_, outbox_, resender_),
      market_data_(deps.config->instruments.size(), *deps.instruments, adapter_,
                   *deps.market_data, reasons_, outbox_),
      desk_(*deps.config, deps.payload_arena),
      index_desk_(deps.index),
      settlement_desk_(*deps.config, deps.settlement),
      halt_desk_(*deps.instruments, *deps.market_data, reasons_),
      own_kill_switches_(deps.kill_switches != nullptr
                             ? nullptr
                             : std::make_unique<KillSwitches>(*deps.config)),
      kill_switches_(deps.kill_switches != nullptr ? *deps.kill_switches
                                                   : *own_kill_switches_),
      acceptor_(io,
                AcceptorHandlers{[this] { return sessions_.size(); },
                                 [this](tcp::socket socket, uint64_t slot) {
                                   StartSession(std::move(socket), slot);
                                 },
                                 [this](tcp::socket& socket, Refusal why) {
                                   Refuse(socket, why);
                                 },
                                 [this](uint64_t slot) { Evict(slot); }},
                PortOptions(deps.config->session)) {
  if (deps.recovered_registry != nullptr) {
    desk_.Seed(*deps.recovered_registry).ok();
  }
  checker_ = deps.credentials;
  if (checker_ == nullptr) {
    own_checker_ = std::make_unique<CredentialChecker>();
    checker_ = own_checker_.get();
  }
}

Gateway::~Gateway() { Stop(); }

Status Gateway::Listen(const std::string& address, uint16_t port) {
  if (!deps_.dir.empty()) {
    std::error_code fs_ec;
    std::filesystem::create_directories(deps_.dir, fs_ec);
    if (fs_ec) {
      return Status(StatusCode::kUnavailable, "protobuf gateway: cannot create " +
                                                  deps_.dir + ": " +
                                                  fs_ec.message());
    }
    const int64_t horizon =
        WallNs() -
        2 * int64_t{config_.session.logon_window_seconds} * kNanosPerSecond;
    CFX_RETURN_IF_ERROR(nonces_->Open(deps_.dir + "/logon-nonces", horizon));
  }
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  "protobuf gateway: bad bind address \"" + address +
                      "\": " + ec.message());
  }
  ec = acceptor_.Listen(ip, port);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "protobuf gateway: cannot listen on " + address + ":" +
                      std::to_string(port) + ": " + ec.message());
  }
  return Status();
}

Status Gateway::ListenTls(const std::string& address, uint16_t port,
                          TlsServerContext& tls) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  "protobuf gateway: bad TLS bind address \"" + address +
                      "\": " + ec.message());
  }
  AcceptorOptions options = PortOptions(config_.session);
  options.first_slot = kTlsFirstSlot;
  tls_ = &tls;
  // A refused connection is closed without an answer: a LogonReject in
  // clear would not parse on a TLS client.
  tls_acceptor_ = std::make_unique<Acceptor>(
      io_,
      AcceptorHandlers{[this] { return sessions_.size(); },
                       [this](tcp::socket socket, uint64_t slot) {
                         StartTlsSession(std::move(socket), slot);
                       },
                       [this](tcp::socket&, Refusal why) {
                         if (deps_.metrics != nullptr) {
                           deps_.metrics->ConnectionRefused(
                               Metrics::Port::kProtobuf,
                               why == Refusal::kSourceFull);
                         }
                       },
                       [this](uint64_t slot) { Evict(slot); }},
      options);
  ec = tls_acceptor_->Listen(ip, port);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "protobuf gateway: cannot listen (TLS) on " + address + ":" +
                      std::to_string(port) + ": " + ec.message());
  }
  return Status();
}

uint16_t Gateway::tls_port() const {
  return tls_acceptor_ == nullptr ? 0 : tls_acceptor_->port();
}

uint64_t Gateway::accept_errors() const {
  return acceptor_.accept_errors() +
         (tls_acceptor_ == nullptr ? 0 : tls_acceptor_->accept_errors());
}

Acceptor& Gateway::AcceptorOf(uint64_t id) {
  return id >= kTlsFirstSlot && tls_acceptor_ != nullptr ? *tls_acceptor_
                                                         : acceptor_;
}

std::size_t Gateway::PreLogon() const {
  return acceptor_.pre_logon() +
         (tls_acceptor_ == nullptr ? 0 : tls_acceptor_->pre_logon());
}

// A connection over its source's pre-logon cap gets a LogonReject, written
// without waiting (the socket is non-blocking and new: the frame fits its
// send buffer); one over the port's limit is closed silently.
void Gateway::Refuse(tcp::socket& socket, Refusal why) {
  const bool source_full = why == Refusal::kSourceFull;
  if (deps_.metrics != nullptr) {
    deps_.metrics->ConnectionRefused(Metrics::Port::kProtobuf, source_full);
  }
  if (!source_full) return;
  w::Envelope e;
  w::LogonReject* reject = e.mutable_logon_reject();
  reject->set_reason(w::LOGON_REJECT_REASON_TOO_MANY_CONNECTIONS);
  reject->set_text("too many connections not logged on from this address");
  std::string frame;
  if (!AppendFrame(e, &frame)) return;
  boost::system::error_code ignored;
  socket.write_some(asio::buffer(frame), ignored);
}

// The oldest connection not logged on, closed to make room for a new one.
void Gateway::Evict(uint64_t slot) {
  auto it = sessions_.find(slot);
  if (it == sessions_.end()) return;
  if (deps_.metrics != nullptr) {
    deps_.metrics->PreLogonEvicted(Metrics::Port::kProtobuf);
  }
  Close(*it->second, "closed to make room: the pre-logon budget is full");
}

void Gateway::StartSession(tcp::socket socket, uint64_t slot) {
  // The acceptor's slot id is the session id: both are unique and
  // increasing (per acceptor).
  auto s = std::make_shared<Session>(slot, Stream(std::move(socket)));
  AddSession(s);
  Read(s);
}

// The handshake runs while the session waits for its Logon, so the
// pre-logon deadline (ScanTimers) and budget (Evict) bound it: a client that
// never finishes it is closed like one that never logs on.
void Gateway::StartTlsSession(tcp::socket socket, uint64_t slot) {
  auto s =
      std::make_shared<Session>(slot, Stream(std::move(socket), tls_->Current()));
  AddSession(s);
  s->stream.AsyncHandshake(
      ssl::stream_base::server, [this, s](boost::system::error_code ec) {
        Session& ss = *s;
        // A handshake cut short by the pre-logon deadline or an eviction
        // ends with operation_aborted: counted as failed too.
        if (deps_.metrics != nullptr) {
          deps_.metrics->TlsHandshake(Metrics::Port::kProtobuf, !ec);
        }
        if (ss.state == Session::State::kClosed) return;
        if (ec) {
          const std::string line =
              tls_failures_.Failed("protobuf gateway", ec);
          if (!line.empty() && deps_.log) deps_.log(line);
          Close(ss, "TLS handshake failed");
          return;
        }
        Read(s);
      });
}

void Gateway::AddSession(const std::shared_ptr<Session>& s) {
  s->connected_ns = s->last_recv_ns = s->last_send_ns = SteadyNs();
  s->heartbeat_ms = config_.session.default_heartbeat_ms;
  s->throttle.Reset(config_.session.max_messages_per_second, s->connected_ns);
  sessions_.emplace(s->id, s);
  if (deps_.metrics != nullptr) {
    deps_.metrics->SetSessions(static_cast<int64_t>(sessions_.size()));
  }
}

void Gateway::Read(const std::shared_ptr<Session>& s) {
  s->stream.async_read_some(
      asio::buffer(s->reader.WritableSpace(), s->reader.WritableSize()),
      [this, s](boost::system::error_code ec, std::size_t n) {
        Session& ss = *s;
        if (ss.state == Session::State::kClosed) return;
        if (ec) {
          Close(ss, ec == asio::error::eof ? "connection closed by peer"
                                           : "read error: " + ec.message());
          return;
        }
        ss.reader.Commit(n);
        if (DrainFrames(ss)) Read(s);
      });
}

bool Gateway::DrainFrames(Session& s) {
  std::string_view payload;
  while (s.state != Session::State::kClosed && !s.logon_checking &&
         s.reader.Next(&payload)) {
    OnFrame(s, payload);
  }
  if (s.state == Session::State::kClosed) return false;
  // A Logon being checked: the rest waits in the reader, unread, and
  // reading resumes with the verdict (gateway_logon.cc).
  if (s.logon_checking) return false;
  if (s.reader.error() != FrameError::kNone) {
    Close(s, std::string(FrameErrorName(s.reader.error())));
    return false;
  }
  return true;
}

void Gateway::Close(Session& s, const std::string& why) {
  (void)why;
  if (s.state == Session::State::kClosed) return;
  const bool was_active =
      s.state == Session::State::kActive ||
      (s.state == Session::State::kClosing && s.user != nullptr);
  s.state = Session::State::kClosed;
  AcceptorOf(s.id).Closed(s.id);
  s.stream.Close();
  if (was_active && s.cancel_on_disconnect && s.account.value != 0) {
    Command c;
    c.type = CommandType::kMassCancel;
    c.account = s.account;
    if (!deps_.ring->TryPush(c)) {
      pending_commands_.push_back(c);
    } else {
      ++commands_submitted_;
    }
  }
  reports_.Remove(s);
  market_data_.Remove(s);
  outbox_.Forget(s);
  // Keep the object alive until its pending handlers have run.
  auto it = sessions_.find(s.id);
  if (it != sessions_.end()) {
    std::shared_ptr<Session> keep = it->second;
    sessions_.erase(it);
    asio::post(io_, [keep] {});
  }
  if (deps_.metrics != nullptr) {
    deps_.metrics->SetSessions(static_cast<int64_t>(sessions_.size()));
  }
}

// ---------------------------------------------------------------- input

void Gateway::OnFrame(Session& s, std::string_view payload) {
  const int64_t now = SteadyNs();
  s.last_recv_ns = now;
  if (s.state != Session::State::kAwaitLogon &&
      s.state != Session::State::kActive) {
    return;  // closing: the rest of the input is ignored
  }
  // Throttle: a token bucket of max_messages_per_second, burst = one
  // second's worth.
  const int64_t rate = config_.session.max_messages_per_second;
  if (!s.throttle.TryTake(rate, now)) {
    outbox_.Reject(
        s, w::SESSION_REJECT_REASON_THROTTLED, "", nullptr,
        "more than " + std::to_string(rate) + " messages per second");
    return;
  }

  in_.Clear();
  if (!in_.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_MALFORMED_MESSAGE, "", nullptr,
                   "the frame does not hold a valid Envelope");
    return;
  }
  if (deps_.metrics != nullptr) {
    deps_.metrics->MessageReceived(static_cast<int>(in_.body_case()));
  }
  const auto body = in_.body_case();
  // The hot path first: orders of a logged-on session.
  if (OrderEntryAdapter::Handles(body) && s.state == Session::State::kActive) {
    OnOrderEntry(s, in_);
    return;
  }
  if (OnSessionMessage(s, body)) return;
  if (s.state != Session::State::kActive) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE,
                   BodyName(body), nullptr, "log on first");
    return;
  }
  OnRequest(s, body);
}

// The messages of the session layer, allowed before logon: logon,
// heartbeat, logout, and the rejects of empty and server-to-client
// Envelopes. Returns false for every other message.
bool Gateway::OnSessionMessage(Session& s, w::Envelope::BodyCase body) {
  switch (body) {
    case w::Envelope::BODY_NOT_SET:
      outbox_.Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_MESSAGE, "", nullptr,
                     "the Envelope holds no known message");
      return true;
    case w::Envelope::kLogon:
      OnLogon(s, in_.logon());
      return true;
    case w::Envelope::kHeartbeat:
      return true;
    case w::Envelope::kLogout:
      if (s.state != Session::State::kActive) {
        outbox_.Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE,
                       "logout", nullptr, "not logged on");
        return true;
      }
      out_.Clear();
      out_.mutable_logout()->set_text("goodbye");
      outbox_.Send(s, out_);
      s.state = Session::State::kClosing;
      return true;
    case w::Envelope::kLogonAck:
    case w::Envelope::kLogonReject:
    case w::Envelope::kSessionReject:
    case w::Envelope::kRetransmissionComplete:
    case w::Envelope::kExecutionReport:
    case w::Envelope::kCancelReject:
    case w::Envelope::kMassCancelReport:
    case w::Envelope::kBookSnapshot:
    case w::Envelope::kBookUpdate:
    case w::Envelope::kTradePrint:
    case w::Envelope::kInstrumentList:
    case w::Envelope::kGradeList:
    case w::Envelope::kClockReport:
    case w::Envelope::kReferenceAck:
    case w::Envelope::kRatingReport:
    case w::Envelope::kAttestationList:
    case w::Envelope::kTradeBust:
    case w::Envelope::kIndexPrint:
    case w::Envelope::kIndexPrintList:
    case w::Envelope::kIndexExplanation:
    case w::Envelope::kCollateralAck:
    case w::Envelope::kSettlementReport:
    case w::Envelope::kSettlementStatus:
    case w::Envelope::kMarginCallList:
    case w::Envelope::kSettlementRerunAck:
    case w::Envelope::kUserList:
    case w::Envelope::kApiKeyList:
    case w::Envelope::kTradingHaltAck:
    case w::Envelope::kInstrumentStatus:
    case w::Envelope::kIndicativeOpen:
    case w::Envelope::kKillSwitchAck:
    case w::Envelope::kKillSwitchStatus:
      outbox_.Reject(s, w::SESSION_REJECT_REASON_UNEXPECTED_MESSAGE,
                     BodyName(body), nullptr, "a server-to-client message");
      return true;
    default:
      return false;
  }
}

// The requests of a logged-on session other than order entry (which
// OnFrame() hands to OnOrderEntry() first).
void Gateway::OnRequest(Session& s, w::Envelope::BodyCase body) {
  switch (body) {
    case w::Envelope::kOrderStatusRequest:
      reports_.OnOrderStatus(s, in_.order_status_request());
      break;
    case w::Envelope::kMarketDataSubscribe:
      market_data_.OnSubscribe(s, in_.market_data_subscribe());
      break;
    case w::Envelope::kMarketDataUnsubscribe:
      market_data_.OnUnsubscribe(s, in_.market_data_unsubscribe());
      break;
    case w::Envelope::kInstrumentListRequest:
      OnInstrumentList(s);
      break;
    case w::Envelope::kGradeListRequest:
      OnGradeList(s);
      break;
    case w::Envelope::kClockRequest:
      OnClock(s, in_.clock_request());
      break;
    case w::Envelope::kRatingSet:
    case w::Envelope::kRatingRevoke:
    case w::Envelope::kRatingQuery:
    case w::Envelope::kAttesterKeyRegister:
    case w::Envelope::kAttesterKeyRevoke:
    case w::Envelope::kAttestationSubmit:
    case w::Envelope::kAttestationListRequest:
    case w::Envelope::kSpotFailureReport:
      OnReference(s, in_);
      break;
    case w::Envelope::kUserAdd:
    case w::Envelope::kUserSetEnabled:
    case w::Envelope::kUserSetPassword:
    case w::Envelope::kUserListRequest:
      OnUserRequest(s, in_);
      break;
    case w::Envelope::kApiKeyAdd:
    case w::Envelope::kApiKeyRevoke:
    case w::Envelope::kApiKeyListRequest:
      OnApiKeyRequest(s, in_);
      break;
    case w::Envelope::kTradingHaltRequest:
      OnHaltRequest(s, in_.trading_halt_request());
      break;
    case w::Envelope::kIndexQuery:
    case w::Envelope::kIndexExplainRequest:
      ReadServicesFor(s, body, &Gateway::OnIndexRequest);
      break;
    case w::Envelope::kCollateralRequest:
    case w::Envelope::kSettlementQuery:
    case w::Envelope::kSettlementStatusRequest:
    case w::Envelope::kMarginCallQuery:
    case w::Envelope::kSettlementRerunRequest:
      ReadServicesFor(s, body, &Gateway::OnClearingRequest);
      break;
    case w::Envelope::kKillSwitchRequest:
      OnKillSwitchRequest(s, in_.kill_switch_request());
      break;
    default:
      outbox_.Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_MESSAGE,
                     BodyName(body), nullptr, "not handled");
      break;
  }
}

// The index and settlement may be applying later events on their own
// thread: the answer waits until they have applied every event this
// gateway has seen (service_reads.h). The request is copied; the session is
// looked up again, and a session no longer active gets nothing.
void Gateway::ReadServicesFor(Session& s, w::Envelope::BodyCase body,
                              void (Gateway::*handler)(Session&,
                                                       const w::Envelope&)) {
  const bool taken = ReadServices(deps_.service_reads, [this, id = s.id,
                                                        m = in_, handler] {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->state != Session::State::kActive) {
      return;
    }
    (this->*handler)(*it->second, m);
  });
  if (!taken) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_SYSTEM_BUSY, BodyName(body),
                   nullptr, kBusyText);
  }
}

// ---------------------------------------------------------------- orders

void Gateway::OnOrderEntry(Session& s, const w::Envelope& m) {
  Command c;
  if (const auto r = adapter_.Decode(m, *s.user, s.account, &c)) {
    outbox_.Reject(s, r->reason, r->message_type, r->field, r->text,
                   r->client_order_id);
    return;
  }
  const uint64_t id = c.client_order_id.value;
  if (Submit(s, c, OrderEntryAdapter::MessageType(m.body_case()), id) &&
      m.has_new_order() && deps_.metrics != nullptr) {
    reports_.ExpectAck(s, id, SteadyNs());
  }
}

bool Gateway::Submit(Session& s, const Command& c, const char* type,
                     uint64_t client_order_id) {
  if (!deps_.ring->TryPush(c)) {
    outbox_.Reject(s, w::SESSION_REJECT_REASON_SYSTEM_BUSY, type, nullptr,
                   kBusyText, client_order_id);
    return false;
  }
  ++commands_submitted_;
  return true;
}

// ---------------------------------------------------------------- events

void Gateway::OnEvent(const exchange::Event& e) {
  last_event_seq_ = e.seq.value;
  if (own_orders_ != nullptr) own_orders_->OnEvent(e);
  OnReferenceEvent(e);
  OnClearingEvent(e);
  OnHaltEvent(e);
  OnKillSwitchEvent(e);
  reports_.OnEvent(e);
  market_data_.OnEvent(e);
}

// ---------------------------------------------------------------- poll

int Gateway::Poll() {
  int work = 0;
  // Commands that found the ring full (cancel-on-disconnect).
  while (!pending_commands_.empty() &&
         deps_.ring->TryPush(pending_commands_.front())) {
    pending_commands_.erase(pending_commands_.begin());
    ++commands_submitted_;
    ++work;
  }
  const int64_t now = SteadyNs();
  if (now - last_timer_scan_ns_ >= 10 * kNanosPerMilli) {
    last_timer_scan_ns_ = now;
    ScanTimers(now);
  }
  work += SyncNonces();
  work += ReleaseRefusals(now);
  work += ServeResends();
  return work + Write(now);
}

int Gateway::ServeResends() {
  std::vector<Session*> slow;
  const int sent = resender_.Serve(sessions_, instruments_, orders_,
                                   kMaxOutputBytes, &slow);
  for (Session* s : slow) Close(*s, "slow consumer");
  return sent;
}

// Logon timeouts, heartbeats, dead peers. (Expired nonces are forgotten by
// the logon checks, off this thread: gateway_logon.cc.)
void Gateway::ScanTimers(int64_t now) {
  std::vector<Session*> expired;
  for (auto& [id, sp] : sessions_) {
    Session& s = *sp;
    if (s.state == Session::State::kAwaitLogon &&
        now - s.connected_ns >
            int64_t{config_.session.pre_logon_timeout_ms} * kNanosPerMilli) {
      expired.push_back(&s);
      continue;
    }
    if (s.state != Session::State::kActive) continue;
    const int64_t hb = int64_t{s.heartbeat_ms} * kNanosPerMilli;
    if (now - s.last_recv_ns > 3 * hb) {
      expired.push_back(&s);
      continue;
    }
    if (now - s.last_send_ns >= hb && s.out.empty() && !s.write_pending) {
      out_.Clear();
      out_.mutable_heartbeat();
      outbox_.Send(s, out_);
    }
  }
  for (Session* s : expired) Close(*s, "timeout");
}

// Starts a socket write for each session with output and none in flight.
int Gateway::Write(int64_t now) {
  int work = 0;
  std::vector<Session*> dirty;
  outbox_.TakeDirty(&dirty);
  for (Session* sp : dirty) {
    Session& s = *sp;
    s.dirty = false;
    if (s.state == Session::State::kClosed || s.write_pending ||
        s.out.empty()) {
      continue;
    }
    if (s.out.size() > kMaxOutputBytes) {
      Close(s, "slow consumer");
      continue;
    }
    ++work;
    s.writing.swap(s.out);
    s.out.clear();
    s.write_pending = true;
    s.last_send_ns = now;
    std::shared_ptr<Session> keep = sessions_.at(s.id);
    asio::async_write(s.stream, asio::buffer(s.writing),
                      [this, keep](boost::system::error_code ec, std::size_t) {
                        Session& ws = *keep;
                        ws.write_pending = false;
                        ws.writing.clear();
                        if (ws.state == Session::State::kClosed) return;
                        if (ec) {
                          Close(ws, "write error: " + ec.message());
                          return;
                        }
                        if (!ws.out.empty()) {
                          outbox_.MarkDirty(ws);
                        } else if (ws.state == Session::State::kClosing) {
                          Close(ws, "logged out");
                        }
                      });
  }
  return work;
}

void Gateway::Stop() {
  if (stopped_) return;
  stopped_ = true;
  acceptor_.Close();
  if (tls_acceptor_ != nullptr) tls_acceptor_->Close();
  std::vector<Session*> all;
  for (auto& [id, s] : sessions_) all.push_back(s.get());
  for (Session* s : all) Close(*s, "exchange stopping");
}

}  // namespace cfx::gateway::pb
