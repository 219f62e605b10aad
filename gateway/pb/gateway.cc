#include "gateway/pb/gateway.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>

#include "exchange/event_replay.h"
#include "exchange/journal.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/server_config.h"
#include "gateway/config/token_bucket.h"
#include "gateway/http/metrics.h"
#include "gateway/md/market_data.h"
#include "gateway/pb/frame.h"
#include "gateway/pb/logon_signature.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using asio::ip::tcp;
using exchange::AccountId;
using exchange::Command;
using exchange::CommandType;
using exchange::InstrumentId;

namespace {

constexpr int64_t kNanosPerMilli = 1'000'000;
constexpr int64_t kNanosPerSecond = 1'000'000'000;
// A connection must log on within this time.
constexpr int64_t kLogonTimeoutNs = 10 * kNanosPerSecond;
// A session whose unsent output grows beyond this is too slow: closed.
constexpr std::size_t kMaxOutputBytes = 64u << 20;
constexpr uint32_t kMinHeartbeatMs = 100;
constexpr uint32_t kMaxHeartbeatMs = 60'000;
constexpr uint32_t kMaxRecentTrades = 1'000;
constexpr std::size_t kMaxSymbolLength = 64;
constexpr std::size_t kMaxPendingAcks = 1 << 16;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

exchange::Side ToSide(w::Side s) {
  return s == w::SIDE_BUY ? exchange::Side::kBuy : exchange::Side::kSell;
}

w::Side WireSide(exchange::Side s) {
  return s == exchange::Side::kBuy    ? w::SIDE_BUY
         : s == exchange::Side::kSell ? w::SIDE_SELL
                                      : w::SIDE_UNSPECIFIED;
}

w::InstrumentState WireState(exchange::InstrumentState s) {
  return static_cast<w::InstrumentState>(s);
}

bool PrintableAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

// One TCP connection and its session state. Owned by Gateway::sessions_;
// asio handlers hold a shared_ptr so a closed session outlives its last
// completion.
class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class State : uint8_t { kAwaitLogon, kActive, kClosing, kClosed };

  Session(uint64_t session_id, tcp::socket sock)
      : id(session_id), socket(std::move(sock)) {}

  uint64_t id;
  tcp::socket socket;
  FrameReader reader;
  std::string out;      // framed bytes waiting for the socket
  std::string writing;  // bytes of the write in flight
  bool write_pending = false;
  bool dirty = false;
  State state = State::kAwaitLogon;

  const UserConfig* user = nullptr;
  AccountId account;
  uint32_t heartbeat_ms = 5'000;
  bool cancel_on_disconnect = true;
  int64_t connected_ns = 0;
  int64_t last_recv_ns = 0;
  int64_t last_send_ns = 0;

  // Token bucket, in thousandths of a message.
  TokenBucket throttle;

  // Retransmission: while replaying, live order messages are held back;
  // live messages for seqs <= live_after_seq are covered by the replay.
  bool replaying = false;
  uint64_t live_after_seq = 0;
  std::string held;

  // Orders sent and not yet acknowledged, oldest first: (client order id,
  // receive time), for the order-to-ack latency metric.
  std::deque<std::pair<uint64_t, int64_t>> acks;

  std::vector<uint32_t> depth;   // subscribed instrument ids
  std::vector<uint32_t> trades;  // subscribed instrument ids
};

Gateway::Gateway(asio::io_context& io, const GatewayDeps& deps)
    : io_(io),
      deps_(deps),
      config_(*deps.config),
      instruments_(*deps.instruments),
      acceptor_(io),
      by_account_(deps.config->engine.limits.max_accounts + 1),
      depth_subscribers_(deps.config->instruments.size() + 1),
      trade_subscribers_(deps.config->instruments.size() + 1),
      builder_(*deps.config),
      desk_(*deps.config, deps.payload_arena),
      index_desk_(deps.index),
      settlement_desk_(*deps.config, deps.settlement) {
  if (deps.recovered_registry != nullptr) {
    desk_.Seed(*deps.recovered_registry).ok();
  }
}

Gateway::~Gateway() { Stop(); }

Status Gateway::Listen(const std::string& address, uint16_t port) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  "protobuf gateway: bad bind address \"" + address +
                      "\": " + ec.message());
  }
  const tcp::endpoint ep(ip, port);
  const std::string where = address + ":" + std::to_string(port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(
        StatusCode::kUnavailable,
        "protobuf gateway: cannot listen on " + where + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  Accept();
  return Status();
}

void Gateway::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec,
                                tcp::socket socket) {
    if (ec || stopped_) return;
    if (sessions_.size() >= config_.session.max_sessions) {
      boost::system::error_code ignored;
      socket.close(ignored);
      Accept();
      return;
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto s = std::make_shared<Session>(next_session_id_++, std::move(socket));
    s->connected_ns = s->last_recv_ns = s->last_send_ns = SteadyNs();
    s->heartbeat_ms = config_.session.default_heartbeat_ms;
    s->throttle.Reset(config_.session.max_messages_per_second, s->connected_ns);
    sessions_.emplace(s->id, s);
    if (deps_.metrics != nullptr) {
      deps_.metrics->SetSessions(static_cast<int64_t>(sessions_.size()));
    }
    // The read loop.
    struct Reader {
      Gateway* gw;
      std::shared_ptr<Session> s;
      void operator()() const {
        auto self = *this;
        s->socket.async_read_some(
            asio::buffer(s->reader.WritableSpace(), s->reader.WritableSize()),
            [self](boost::system::error_code ec, std::size_t n) {
              Session& ss = *self.s;
              if (ss.state == Session::State::kClosed) return;
              if (ec) {
                self.gw->Close(ss, ec == asio::error::eof
                                       ? "connection closed by peer"
                                       : "read error: " + ec.message());
                return;
              }
              ss.reader.Commit(n);
              std::string_view payload;
              while (ss.state != Session::State::kClosed &&
                     ss.reader.Next(&payload)) {
                self.gw->OnFrame(ss, payload);
              }
              if (ss.state == Session::State::kClosed) return;
              if (ss.reader.error() != FrameError::kNone) {
                self.gw->Close(ss,
                               std::string(FrameErrorName(ss.reader.error())));
                return;
              }
              self();
            });
      }
    };
    Reader{this, s}();
    Accept();
  });
}

// ---------------------------------------------------------------- output

void Gateway::SendBytes(Session& s, std::string_view bytes, bool sequenced,
                        uint64_t seq) {
  if (s.state == Session::State::kClosed) return;
  if (sequenced) {
    if (seq <= s.live_after_seq) return;  // the replay covers it
    if (s.replaying) {
      s.held.append(bytes);
      return;
    }
  }
  s.out.append(bytes);
  if (!s.dirty) {
    s.dirty = true;
    dirty_.push_back(&s);
  }
}

void Gateway::Send(Session& s, const w::Envelope& e) {
  frame_.clear();
  if (!AppendFrame(e, &frame_)) return;
  if (deps_.metrics != nullptr) {
    deps_.metrics->MessageSent(static_cast<int>(e.body_case()));
  }
  SendBytes(s, frame_, false, 0);
}

void Gateway::Reject(Session& s, w::SessionRejectReason reason,
                     const char* message_type, const char* field,
                     const std::string& text, uint64_t client_order_id) {
  out_.Clear();
  w::SessionReject* r = out_.mutable_session_reject();
  r->set_reason(reason);
  r->set_text(text);
  r->set_message_type(message_type);
  if (field != nullptr) r->set_field(field);
  r->set_client_order_id(client_order_id);
  if (deps_.metrics != nullptr) deps_.metrics->SessionReject(reason);
  Send(s, out_);
}

void Gateway::LogonReject(Session& s, w::LogonRejectReason reason,
                          const std::string& text) {
  out_.Clear();
  out_.mutable_logon_reject()->set_reason(reason);
  out_.mutable_logon_reject()->set_text(text);
  if (deps_.metrics != nullptr) deps_.metrics->LogonResult(false);
  Send(s, out_);
  s.state = Session::State::kClosing;  // closed once the reject is written
}

void Gateway::Close(Session& s, const std::string& why) {
  (void)why;
  if (s.state == Session::State::kClosed) return;
  const bool was_active =
      s.state == Session::State::kActive ||
      (s.state == Session::State::kClosing && s.user != nullptr);
  s.state = Session::State::kClosed;
  boost::system::error_code ignored;
  s.socket.shutdown(tcp::socket::shutdown_both, ignored);
  s.socket.close(ignored);
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
  if (s.account.value != 0 && s.user != nullptr) {
    auto& v = by_account_[s.account.value];
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  for (uint32_t id : s.depth) {
    auto& v = depth_subscribers_[id];
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  for (uint32_t id : s.trades) {
    auto& v = trade_subscribers_[id];
    v.erase(std::remove(v.begin(), v.end(), &s), v.end());
  }
  dirty_.erase(std::remove(dirty_.begin(), dirty_.end(), &s), dirty_.end());
  s.dirty = false;
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
    Reject(s, w::SESSION_REJECT_REASON_THROTTLED, "", nullptr,
           "more than " + std::to_string(rate) + " messages per second");
    return;
  }

  in_.Clear();
  if (!in_.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    Reject(s, w::SESSION_REJECT_REASON_MALFORMED_MESSAGE, "", nullptr,
           "the frame does not hold a valid Envelope");
    return;
  }
  if (deps_.metrics != nullptr) {
    deps_.metrics->MessageReceived(static_cast<int>(in_.body_case()));
  }
  const auto body = in_.body_case();
  switch (body) {
    case w::Envelope::BODY_NOT_SET:
      Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_MESSAGE, "", nullptr,
             "the Envelope holds no known message");
      return;
    case w::Envelope::kLogon:
      OnLogon(s, in_.logon());
      return;
    case w::Envelope::kHeartbeat:
      return;
    case w::Envelope::kLogout:
      if (s.state != Session::State::kActive) {
        Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE, "logout",
               nullptr, "not logged on");
        return;
      }
      out_.Clear();
      out_.mutable_logout()->set_text("goodbye");
      Send(s, out_);
      s.state = Session::State::kClosing;
      return;
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
      Reject(s, w::SESSION_REJECT_REASON_UNEXPECTED_MESSAGE,
             w::Envelope::descriptor()
                 ->FindFieldByNumber(static_cast<int>(body))
                 ->name()
                 .c_str(),
             nullptr, "a server-to-client message");
      return;
    default:
      break;
  }
  // The body's field name, for rejects only (a lookup, off the order path).
  const auto type = [body] {
    return w::Envelope::descriptor()
        ->FindFieldByNumber(static_cast<int>(body))
        ->name()
        .c_str();
  };
  if (s.state != Session::State::kActive) {
    Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE, type(), nullptr,
           "log on first");
    return;
  }
  switch (body) {
    case w::Envelope::kNewOrder:
      OnNewOrder(s, in_.new_order());
      break;
    case w::Envelope::kCancelOrder:
      OnCancel(s, in_.cancel_order());
      break;
    case w::Envelope::kReplaceOrder:
      OnReplace(s, in_.replace_order());
      break;
    case w::Envelope::kMassCancel:
      OnMassCancel(s, in_.mass_cancel());
      break;
    case w::Envelope::kOrderStatusRequest:
      OnOrderStatus(s, in_.order_status_request());
      break;
    case w::Envelope::kMarketDataSubscribe:
      OnSubscribe(s, in_.market_data_subscribe());
      break;
    case w::Envelope::kMarketDataUnsubscribe:
      OnUnsubscribe(s, in_.market_data_unsubscribe());
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
    case w::Envelope::kIndexQuery:
    case w::Envelope::kIndexExplainRequest:
      OnIndexRequest(s, in_);
      break;
    case w::Envelope::kCollateralRequest:
    case w::Envelope::kSettlementQuery:
    case w::Envelope::kSettlementStatusRequest:
    case w::Envelope::kMarginCallQuery:
    case w::Envelope::kSettlementRerunRequest:
      OnClearingRequest(s, in_);
      break;
    default:
      Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_MESSAGE, type(), nullptr,
             "not handled");
      break;
  }
}

void Gateway::OnLogon(Session& s, const w::Logon& m) {
  if (s.state != Session::State::kAwaitLogon) {
    Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE, "logon", nullptr,
           "already logged on");
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
  if (user == nullptr ||
      !VerifyLogonSignature(key->secret, m.api_key(), m.timestamp_ns(),
                            m.nonce(), m.signature())) {
    LogonReject(s, w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED,
                "authentication failed");
    return;
  }
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
  auto [it, fresh] =
      nonces_.emplace(std::make_pair(m.api_key(), m.nonce()), m.timestamp_ns());
  (void)it;
  if (!fresh) {
    LogonReject(s, w::LOGON_REJECT_REASON_NONCE_REUSED,
                "this nonce was already used");
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
  if (m.heartbeat_interval_ms() != 0)
    s.heartbeat_ms = m.heartbeat_interval_ms();
  s.cancel_on_disconnect = !m.cancel_on_disconnect_opt_out();
  if (s.account.value != 0) by_account_[s.account.value].push_back(&s);
  if (deps_.metrics != nullptr) deps_.metrics->LogonResult(true);

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
  Send(s, out_);

  if (m.has_resume_after_seq()) {
    StartRetransmission(s, m.resume_after_seq(), m.resume_after_index());
  }
}

// ---------------------------------------------------------------- orders

bool Gateway::Submit(Session& s, const Command& c, const char* type,
                     uint64_t client_order_id) {
  if (!deps_.ring->TryPush(c)) {
    Reject(s, w::SESSION_REJECT_REASON_SYSTEM_BUSY, type, nullptr,
           "the exchange is busy; nothing was accepted, try again",
           client_order_id);
    return false;
  }
  ++commands_submitted_;
  return true;
}

namespace {

// Returns the name of a NOT_AUTHORIZED problem, or nullptr.
const char* OrderEntryDenied(const UserConfig& user) {
  if (user.role != Role::kTrader && user.role != Role::kProvider) {
    return "this role may not enter orders";
  }
  if (user.account.value == 0) return "no trading account";
  return nullptr;
}

}  // namespace

void Gateway::OnNewOrder(Session& s, const w::NewOrder& m) {
  const uint64_t id = m.client_order_id();
  if (const char* why = OrderEntryDenied(*s.user)) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "new_order", nullptr,
           why, id);
    return;
  }
  if (id == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "new_order",
           "client_order_id", "client_order_id is required (nonzero)");
    return;
  }
  if (m.symbol().empty()) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "new_order", "symbol",
           "symbol is required", id);
    return;
  }
  const InstrumentInfo* info = m.symbol().size() > kMaxSymbolLength
                                   ? nullptr
                                   : instruments_.Find(m.symbol());
  if (info == nullptr) {
    Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, "new_order", "symbol",
           "unknown symbol", id);
    return;
  }
  if (m.side() != w::SIDE_BUY && m.side() != w::SIDE_SELL) {
    Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM, "new_order", "side",
           "side must be SIDE_BUY or SIDE_SELL", id);
    return;
  }
  if (m.order_type() != w::ORDER_TYPE_LIMIT &&
      m.order_type() != w::ORDER_TYPE_MARKET) {
    Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM, "new_order", "order_type",
           "order_type must be LIMIT or MARKET", id);
    return;
  }
  if (m.time_in_force() < w::TIME_IN_FORCE_DAY ||
      m.time_in_force() > w::TIME_IN_FORCE_GTD) {
    Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM, "new_order",
           "time_in_force", "time_in_force must be DAY, GTC, IOC, FOK or GTD",
           id);
    return;
  }
  if (m.stp_mode() < w::STP_MODE_ACCOUNT_DEFAULT ||
      m.stp_mode() > w::STP_MODE_DECREMENT) {
    Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM, "new_order", "stp_mode",
           "unknown stp_mode", id);
    return;
  }
  if (m.quantity() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "new_order", "quantity",
           "quantity is required", id);
    return;
  }
  if (m.quantity() < 0) {
    Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "new_order",
           "quantity", "quantity must be positive", id);
    return;
  }
  const bool market = m.order_type() == w::ORDER_TYPE_MARKET;
  if (!market && m.price() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "new_order", "price",
           "a limit order needs a price", id);
    return;
  }
  if (m.price() < 0 || (market && m.price() != 0)) {
    Reject(
        s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "new_order", "price",
        market ? "a market order carries no price" : "price must be positive",
        id);
    return;
  }
  const bool gtd = m.time_in_force() == w::TIME_IN_FORCE_GTD;
  if (gtd && m.expire_time_ns() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "new_order",
           "expire_time_ns", "a GTD order needs expire_time_ns", id);
    return;
  }
  if (m.expire_time_ns() < 0 || (!gtd && m.expire_time_ns() != 0)) {
    Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "new_order",
           "expire_time_ns",
           gtd ? "expire_time_ns must be positive"
               : "expire_time_ns is for GTD orders only",
           id);
    return;
  }
  Command c;
  c.type = CommandType::kNewOrder;
  c.account = s.account;
  c.instrument = info->id;
  c.side = ToSide(m.side());
  c.order_type =
      market ? exchange::OrderType::kMarket : exchange::OrderType::kLimit;
  c.tif = static_cast<exchange::TimeInForce>(m.time_in_force());
  c.stp = static_cast<exchange::StpMode>(m.stp_mode());
  c.flags = m.post_only() ? exchange::kFlagPostOnly : 0;
  c.client_order_id = exchange::ClientOrderId{id};
  c.price = exchange::Price{m.price()};
  c.quantity = exchange::Quantity{m.quantity()};
  if (gtd) c.set_expire_time(exchange::Timestamp{m.expire_time_ns()});
  if (Submit(s, c, "new_order", id) && deps_.metrics != nullptr) {
    // Bounded: a session that never gets its acks cannot grow this.
    if (s.acks.size() >= kMaxPendingAcks) s.acks.pop_front();
    s.acks.emplace_back(id, SteadyNs());
  }
}

void Gateway::OnCancel(Session& s, const w::CancelOrder& m) {
  const uint64_t id = m.client_order_id();
  if (const char* why = OrderEntryDenied(*s.user)) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "cancel_order", nullptr,
           why, id);
    return;
  }
  if (id == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "cancel_order",
           "client_order_id", "client_order_id is required (nonzero)");
    return;
  }
  if (m.order_id() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "cancel_order",
           "order_id", "order_id is required", id);
    return;
  }
  Command c;
  c.type = CommandType::kCancel;
  c.account = s.account;
  c.client_order_id = exchange::ClientOrderId{id};
  c.set_order_id(exchange::OrderId{m.order_id()});
  Submit(s, c, "cancel_order", id);
}

void Gateway::OnReplace(Session& s, const w::ReplaceOrder& m) {
  const uint64_t id = m.client_order_id();
  if (const char* why = OrderEntryDenied(*s.user)) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "replace_order", nullptr,
           why, id);
    return;
  }
  if (id == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "replace_order",
           "client_order_id", "client_order_id is required (nonzero)");
    return;
  }
  if (m.order_id() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "replace_order",
           "order_id", "order_id is required", id);
    return;
  }
  if (m.price() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "replace_order", "price",
           "price is required", id);
    return;
  }
  if (m.price() < 0) {
    Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "replace_order",
           "price", "price must be positive", id);
    return;
  }
  if (m.quantity() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "replace_order",
           "quantity", "quantity is required", id);
    return;
  }
  if (m.quantity() < 0) {
    Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE, "replace_order",
           "quantity", "quantity must be positive", id);
    return;
  }
  Command c;
  c.type = CommandType::kReplace;
  c.account = s.account;
  c.client_order_id = exchange::ClientOrderId{id};
  c.set_order_id(exchange::OrderId{m.order_id()});
  c.price = exchange::Price{m.price()};
  c.quantity = exchange::Quantity{m.quantity()};
  Submit(s, c, "replace_order", id);
}

void Gateway::OnMassCancel(Session& s, const w::MassCancel& m) {
  const uint64_t id = m.client_order_id();
  if (const char* why = OrderEntryDenied(*s.user)) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "mass_cancel", nullptr,
           why, id);
    return;
  }
  InstrumentId instrument;
  if (!m.symbol().empty()) {
    const InstrumentInfo* info = m.symbol().size() > kMaxSymbolLength
                                     ? nullptr
                                     : instruments_.Find(m.symbol());
    if (info == nullptr) {
      Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, "mass_cancel",
             "symbol", "unknown symbol", id);
      return;
    }
    instrument = info->id;
  }
  Command c;
  c.type = CommandType::kMassCancel;
  c.account = s.account;
  c.instrument = instrument;
  c.client_order_id = exchange::ClientOrderId{id};
  Submit(s, c, "mass_cancel", id);
}

void Gateway::OnOrderStatus(Session& s, const w::OrderStatusRequest& m) {
  if (const char* why = OrderEntryDenied(*s.user)) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "order_status_request",
           nullptr, why);
    return;
  }
  if (m.order_id() == 0) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "order_status_request",
           "order_id", "order_id is required");
    return;
  }
  const exchange::OrderId id{m.order_id()};
  out_.Clear();
  BuildOrderStatus(instruments_, builder_.orders().Find(id), s.account, id,
                   out_.mutable_execution_report());
  Send(s, out_);
}

// ---------------------------------------------------------------- market data

void Gateway::Subscribe(std::vector<std::vector<Session*>>& table, uint32_t id,
                        Session* s) {
  auto& v = table[id];
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

void Gateway::Unsubscribe(std::vector<std::vector<Session*>>& table,
                          uint32_t id, Session* s) {
  auto& v = table[id];
  v.erase(std::remove(v.begin(), v.end(), s), v.end());
}

void Gateway::OnSubscribe(Session& s, const w::MarketDataSubscribe& m) {
  if (m.symbol().empty()) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "market_data_subscribe",
           "symbol", "symbol is required");
    return;
  }
  const InstrumentInfo* info = m.symbol().size() > kMaxSymbolLength
                                   ? nullptr
                                   : instruments_.Find(m.symbol());
  if (info == nullptr) {
    Reject(s, w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL, "market_data_subscribe",
           "symbol", "unknown symbol");
    return;
  }
  if (!m.depth() && !m.trades()) {
    Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "market_data_subscribe",
           "depth", "ask for depth, trades or both");
    return;
  }
  if (m.recent_trades() > kMaxRecentTrades ||
      (m.recent_trades() != 0 && !m.trades())) {
    Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE,
           "market_data_subscribe", "recent_trades",
           "recent_trades: at most 1000, and only with trades");
    return;
  }
  const uint32_t id = info->id.value;
  const MarketDataStore& md = *deps_.market_data;
  if (m.depth()) {
    out_.Clear();
    w::BookSnapshot* snap = out_.mutable_book_snapshot();
    snap->set_symbol(info->symbol);
    snap->set_seq(md.last_seq().value);
    snap->set_state(WireState(md.state(info->id)));
    std::vector<BookLevel> levels;
    md.Levels(info->id, exchange::Side::kBuy, 0, &levels);
    for (const BookLevel& l : levels) {
      w::Level* x = snap->add_bids();
      x->set_price(l.price.units);
      x->set_quantity(l.quantity.lots);
      x->set_order_count(l.order_count);
    }
    levels.clear();
    md.Levels(info->id, exchange::Side::kSell, 0, &levels);
    for (const BookLevel& l : levels) {
      w::Level* x = snap->add_asks();
      x->set_price(l.price.units);
      x->set_quantity(l.quantity.lots);
      x->set_order_count(l.order_count);
    }
    Send(s, out_);
    if (std::find(s.depth.begin(), s.depth.end(), id) == s.depth.end()) {
      s.depth.push_back(id);
    }
    Subscribe(depth_subscribers_, id, &s);
  }
  if (m.trades()) {
    if (m.recent_trades() != 0) {
      std::vector<TradeRecord> trades;
      md.RecentTrades(info->id, m.recent_trades(), &trades);
      for (const TradeRecord& t : trades) {
        out_.Clear();
        w::TradePrint* p = out_.mutable_trade_print();
        p->set_symbol(info->symbol);
        p->set_seq(t.seq.value);
        p->set_trade_id(t.id.value);
        p->set_price(t.price.units);
        p->set_quantity(t.quantity.lots);
        p->set_aggressor_side(WireSide(t.aggressor));
        p->set_time_ns(t.ts.nanos);
        Send(s, out_);
      }
    }
    if (std::find(s.trades.begin(), s.trades.end(), id) == s.trades.end()) {
      s.trades.push_back(id);
    }
    Subscribe(trade_subscribers_, id, &s);
  }
}

void Gateway::OnUnsubscribe(Session& s, const w::MarketDataUnsubscribe& m) {
  const InstrumentInfo* info =
      m.symbol().empty() || m.symbol().size() > kMaxSymbolLength
          ? nullptr
          : instruments_.Find(m.symbol());
  if (info == nullptr) {
    Reject(s,
           m.symbol().empty() ? w::SESSION_REJECT_REASON_MISSING_FIELD
                              : w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL,
           "market_data_unsubscribe", "symbol",
           m.symbol().empty() ? "symbol is required" : "unknown symbol");
    return;
  }
  const uint32_t id = info->id.value;
  const bool had =
      std::find(s.depth.begin(), s.depth.end(), id) != s.depth.end() ||
      std::find(s.trades.begin(), s.trades.end(), id) != s.trades.end();
  if (!had) {
    Reject(s, w::SESSION_REJECT_REASON_WRONG_SESSION_STATE,
           "market_data_unsubscribe", "symbol", "not subscribed");
    return;
  }
  s.depth.erase(std::remove(s.depth.begin(), s.depth.end(), id), s.depth.end());
  s.trades.erase(std::remove(s.trades.begin(), s.trades.end(), id),
                 s.trades.end());
  Unsubscribe(depth_subscribers_, id, &s);
  Unsubscribe(trade_subscribers_, id, &s);
}

// ---------------------------------------------------------------- reference

void Gateway::OnInstrumentList(Session& s) {
  out_.Clear();
  w::InstrumentList* list = out_.mutable_instrument_list();
  const MarketDataStore& md = *deps_.market_data;
  instruments_.ForEach([&](const InstrumentInfo& info) {
    const exchange::InstrumentConfig& ic =
        config_.engine.instruments[info.id.value - 1];
    const bool spot = info.kind == exchange::InstrumentKind::kSpot;
    w::Instrument* x = list->add_instruments();
    x->set_symbol(info.symbol);
    x->set_kind(static_cast<w::InstrumentKind>(info.kind));
    x->set_grade(info.grade);
    x->set_tick(ic.tick.units);
    x->set_contract_gpu_hours(info.contract_gpu_hours);
    x->set_min_quantity(ic.min_quantity.lots);
    x->set_max_quantity(ic.max_quantity.lots);
    x->set_reference_price(md.reference_price(info.id).units);
    x->set_state(WireState(md.state(info.id)));
    x->set_maturity(spot ? info.delivery_date : info.maturity);
    x->set_last_trading_day(info.last_trading_day);
    x->set_price_band_bps(ic.band_bps);
  });
  Send(s, out_);
}

void Gateway::OnGradeList(Session& s) {
  out_.Clear();
  w::GradeList* list = out_.mutable_grade_list();
  static constexpr const char* kTiers[] = {
      "", "PLATINUM", "GOLD", "SILVER", "BRONZE", "UNDERPERFORM"};
  for (const GradeInfo& g : config_.grades) {
    w::Grade* x = list->add_grades();
    x->set_name(g.name);
    x->set_hardware(g.hardware);
    const auto tier = static_cast<std::size_t>(g.min_rating);
    x->set_min_rating(tier < std::size(kTiers) ? kTiers[tier] : "");
    x->set_min_output_tokens_per_s_per_gpu(g.min_output_tokens_per_s_per_gpu);
    x->set_recipe(g.recipe);
    x->set_max_attestation_age_days(
        static_cast<int32_t>(g.max_attestation_age_days));
    x->set_region(g.region);
    x->set_initial_reference_price(g.initial_reference.units);
  }
  Send(s, out_);
}

void Gateway::OnReference(Session& s, const w::Envelope& m) {
  const exchange::Timestamp now = deps_.clock->Now();
  ReferenceDesk::Request r;
  switch (m.body_case()) {
    case w::Envelope::kRatingQuery: {
      w::RatingReport report = desk_.Ratings(*s.user, m.rating_query(), now);
      out_.Clear();
      *out_.mutable_rating_report() = std::move(report);
      Send(s, out_);
      return;
    }
    case w::Envelope::kAttestationListRequest: {
      w::AttestationList list = desk_.Attestations(
          *s.user, m.attestation_list_request().request_id(), now);
      out_.Clear();
      *out_.mutable_attestation_list() = std::move(list);
      Send(s, out_);
      return;
    }
    case w::Envelope::kRatingSet:
      r = desk_.RatingSet(*s.user, m.rating_set(), now);
      break;
    case w::Envelope::kRatingRevoke:
      r = desk_.RatingRevoke(*s.user, m.rating_revoke());
      break;
    case w::Envelope::kAttesterKeyRegister:
      r = desk_.KeyRegister(*s.user, m.attester_key_register());
      break;
    case w::Envelope::kAttesterKeyRevoke:
      r = desk_.KeyRevoke(*s.user, m.attester_key_revoke());
      break;
    case w::Envelope::kAttestationSubmit:
      r = desk_.AttestationSubmit(*s.user, m.attestation_submit());
      break;
    case w::Envelope::kSpotFailureReport:
      r = desk_.SpotFailure(*s.user, m.spot_failure_report());
      break;
    default:
      return;
  }
  if (r.submit && !deps_.ring->TryPush(r.cmd)) {
    const uint64_t request_id = r.ack.request_id();
    desk_.Abandon(r);
    r = ReferenceDesk::Request{};
    r.ack.set_request_id(request_id);
    r.ack.set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    r.ack.set_text("the exchange is busy; nothing was accepted, try again");
  }
  if (!r.submit) {
    if (deps_.metrics != nullptr) deps_.metrics->OrderRejected();
    out_.Clear();
    *out_.mutable_reference_ack() = r.ack;
    Send(s, out_);
    return;
  }
  ++commands_submitted_;
  desk_.Submitted(r, s.id);
}

void Gateway::OnReferenceEvent(const exchange::Event& e) {
  uint64_t session_id = 0;
  w::ReferenceAck ack;
  if (desk_.OnEvent(e, &session_id, &ack)) {
    auto it = sessions_.find(session_id);
    if (it != sessions_.end() && it->second->state == Session::State::kActive) {
      out_.Clear();
      *out_.mutable_reference_ack() = std::move(ack);
      Send(*it->second, out_);
    }
  }
  if (e.type == exchange::EventType::kTradeBusted) SendTradeBust(e);
}

// Both sides' sessions and their clearing members' sessions learn of a
// bust; each sees only its own side's account.
void Gateway::SendTradeBust(const exchange::Event& e) {
  const AccountInfo* buyer = config_.account(e.account);
  const AccountInfo* seller = config_.account(e.counter_account);
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  for (auto& [id, sp] : sessions_) {
    Session& s = *sp;
    if (s.state != Session::State::kActive || s.user == nullptr) continue;
    const UserConfig& u = *s.user;
    const bool cm = u.role == Role::kClearingMember;
    const bool is_buyer =
        buyer != nullptr && (cm ? buyer->clearing_member == u.clearing_member
                                : u.account == buyer->id);
    const bool is_seller =
        seller != nullptr && (cm ? seller->clearing_member == u.clearing_member
                                 : u.account == seller->id);
    if (!is_buyer && !is_seller) continue;
    out_.Clear();
    w::TradeBust* b = out_.mutable_trade_bust();
    b->set_trade_id(e.trade_id.value);
    if (info != nullptr) {
      b->set_symbol(info->symbol);
      b->set_delivery_date(info->delivery_date);
    }
    b->set_price(e.price.units);
    b->set_quantity(e.quantity.lots);
    if (is_buyer) b->set_buyer_account(buyer->name);
    if (is_seller) b->set_seller_account(seller->name);
    b->set_reported_by(e.side == exchange::Side::kBuy ? w::SIDE_BUY
                                                      : w::SIDE_SELL);
    b->set_seq(e.seq.value);
    b->set_time_ns(e.ts.nanos);
    Send(s, out_);
  }
}

// ---------------------------------------------------------------- index

void Gateway::OnIndexRequest(Session& s, const w::Envelope& m) {
  const std::vector<w::Envelope> answer =
      m.has_index_query()
          ? index_desk_.Query(m.index_query())
          : index_desk_.Explain(*s.user, m.index_explain_request());
  for (const w::Envelope& e : answer) Send(s, e);
}

// ---------------------------------------------------------------- clearing

void Gateway::OnClearingRequest(Session& s, const w::Envelope& m) {
  if (m.has_settlement_query()) {
    for (const w::Envelope& e :
         settlement_desk_.Report(*s.user, m.settlement_query())) {
      Send(s, e);
    }
    return;
  }
  if (m.has_settlement_status_request()) {
    Send(s, settlement_desk_.Status(*s.user, m.settlement_status_request()));
    return;
  }
  if (m.has_margin_call_query()) {
    for (const w::Envelope& e :
         settlement_desk_.Calls(*s.user, m.margin_call_query())) {
      Send(s, e);
    }
    return;
  }
  if (m.has_settlement_rerun_request()) {
    SettlementDesk::Rerun r =
        settlement_desk_.RerunRequest(*s.user, m.settlement_rerun_request());
    if (r.submit && !deps_.ring->TryPush(r.cmd)) {
      r.submit = false;
      r.ack.set_accepted(false);
      r.ack.set_reason(w::REJECT_REASON_SYSTEM_BUSY);
      r.ack.set_text("the exchange is busy; nothing was accepted, try again");
    }
    if (!r.submit) {
      out_.Clear();
      *out_.mutable_settlement_rerun_ack() = std::move(r.ack);
      Send(s, out_);
      return;
    }
    ++commands_submitted_;
    settlement_desk_.Submitted(r, s.id);
    return;
  }
  const w::CollateralRequest& c = m.collateral_request();
  if (c.action() != w::COLLATERAL_ACTION_DEPOSIT &&
      c.action() != w::COLLATERAL_ACTION_WITHDRAW) {
    Reject(s, w::SESSION_REJECT_REASON_INVALID_ENUM, "collateral_request",
           "action", "action: DEPOSIT or WITHDRAW");
    return;
  }
  SettlementDesk::Request r = settlement_desk_.Collateral(*s.user, c);
  if (r.submit && !deps_.ring->TryPush(r.cmd)) {
    r.submit = false;
    r.ack.set_accepted(false);
    r.ack.set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    r.ack.set_text("the exchange is busy; nothing was accepted, try again");
  }
  if (!r.submit) {
    if (deps_.metrics != nullptr) deps_.metrics->OrderRejected();
    out_.Clear();
    *out_.mutable_collateral_ack() = std::move(r.ack);
    Send(s, out_);
    return;
  }
  ++commands_submitted_;
  settlement_desk_.Submitted(r, s.id);
}

// The engine's answer to a CollateralRequest goes to the session that
// sent it, once durable; a session gone since then gets nothing (the
// collateral moved all the same).
void Gateway::OnClearingEvent(const exchange::Event& e) {
  uint64_t session_id = 0;
  w::CollateralAck ack;
  w::SettlementRerunAck rerun;
  out_.Clear();
  if (settlement_desk_.OnEvent(e, &session_id, &ack)) {
    *out_.mutable_collateral_ack() = std::move(ack);
  } else if (settlement_desk_.OnRerunEvent(e, &session_id, &rerun)) {
    *out_.mutable_settlement_rerun_ack() = std::move(rerun);
  } else {
    return;
  }
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second->state != Session::State::kActive) {
    return;
  }
  Send(*it->second, out_);
}

void Gateway::OnIndexPrint(const index::Print& p) {
  if (deps_.index == nullptr) return;
  out_.Clear();
  index_desk_.ToWire(p, out_.mutable_index_print());
  frame_.clear();
  if (!AppendFrame(out_, &frame_)) return;
  for (auto& [id, sp] : sessions_) {
    Session& s = *sp;
    if (s.state != Session::State::kActive || s.user == nullptr) continue;
    if (deps_.metrics != nullptr) {
      deps_.metrics->MessageSent(static_cast<int>(out_.body_case()));
    }
    SendBytes(s, frame_, false, 0);
  }
}

void Gateway::OnClock(Session& s, const w::ClockRequest& m) {
  if (s.user->role != Role::kAdmin) {
    Reject(s, w::SESSION_REJECT_REASON_NOT_AUTHORIZED, "clock_request", nullptr,
           "only the admin may use the clock");
    return;
  }
  switch (m.action_case()) {
    case w::ClockRequest::ACTION_NOT_SET:
      Reject(s, w::SESSION_REJECT_REASON_MISSING_FIELD, "clock_request",
             "action", "read, advance_ns or set_time_ns is required");
      return;
    case w::ClockRequest::kRead:
      break;
    case w::ClockRequest::kAdvanceNs:
    case w::ClockRequest::kSetTimeNs: {
      if (deps_.simulated_clock == nullptr) {
        Reject(s, w::SESSION_REJECT_REASON_NOT_SUPPORTED, "clock_request",
               nullptr, "the exchange runs on the wall clock");
        return;
      }
      if (m.action_case() == w::ClockRequest::kAdvanceNs) {
        if (m.advance_ns() <= 0) {
          Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE,
                 "clock_request", "advance_ns", "advance_ns must be positive");
          return;
        }
        deps_.simulated_clock->Advance(m.advance_ns());
      } else {
        const Status st =
            deps_.simulated_clock->Set(exchange::Timestamp{m.set_time_ns()});
        if (!st.ok()) {
          Reject(s, w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE,
                 "clock_request", "set_time_ns", st.message());
          return;
        }
      }
      break;
    }
  }
  out_.Clear();
  out_.mutable_clock_report()->set_now_ns(deps_.clock->Now().nanos);
  out_.mutable_clock_report()->set_simulated(deps_.simulated_clock != nullptr);
  for (int64_t day : deps_.config->calendar.holidays()) {
    out_.mutable_clock_report()->add_holidays(FormatDay(day));
  }
  Send(s, out_);
}

// ---------------------------------------------------------------- events

void Gateway::OnEvent(const exchange::Event& e) {
  last_event_seq_ = e.seq.value;
  OnReferenceEvent(e);
  OnClearingEvent(e);
  builder_.OnEvent(e, [this](AccountId account, const w::Envelope& env) {
    auto& sessions = by_account_[account.value];
    const bool ack =
        env.has_execution_report() &&
        (env.execution_report().exec_type() == w::EXEC_TYPE_NEW ||
         env.execution_report().exec_type() == w::EXEC_TYPE_REJECTED);
    if (ack && deps_.metrics != nullptr) {
      const w::ExecutionReport& r = env.execution_report();
      if (r.exec_type() == w::EXEC_TYPE_REJECTED) {
        deps_.metrics->OrderRejected();
      }
      // A session's orders are acknowledged in the order it sent them.
      for (Session* s : sessions) {
        if (!s->acks.empty() && s->acks.front().first == r.client_order_id()) {
          deps_.metrics->ObserveOrderToAck(
              static_cast<double>(SteadyNs() - s->acks.front().second) * 1e-9);
          s->acks.pop_front();
          break;
        }
      }
    }
    if (sessions.empty()) return;
    frame_.clear();
    if (!AppendFrame(env, &frame_)) return;
    const uint64_t seq = last_event_seq_;
    for (Session* s : sessions) {
      if (deps_.metrics != nullptr) {
        deps_.metrics->MessageSent(static_cast<int>(env.body_case()));
      }
      SendBytes(*s, frame_, true, seq);
    }
  });

  // Public market data.
  const uint32_t id = e.instrument.value;
  if (e.type == exchange::EventType::kInstrumentListed) {
    EndSubscriptions(id);
    return;
  }
  const bool depth = e.type == exchange::EventType::kBookLevel &&
                     id < depth_subscribers_.size() &&
                     !depth_subscribers_[id].empty();
  const bool trade = e.type == exchange::EventType::kTrade &&
                     id < trade_subscribers_.size() &&
                     !trade_subscribers_[id].empty();
  if (!depth && !trade) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  if (info == nullptr) return;
  out_.Clear();
  if (depth) {
    w::BookUpdate* u = out_.mutable_book_update();
    u->set_symbol(info->symbol);
    u->set_seq(e.seq.value);
    u->set_side(WireSide(e.side));
    u->set_price(e.price.units);
    u->set_quantity(e.quantity.lots);
    u->set_order_count(e.count);
    for (Session* s : depth_subscribers_[id]) Send(*s, out_);
  } else {
    w::TradePrint* p = out_.mutable_trade_print();
    p->set_symbol(info->symbol);
    p->set_seq(e.seq.value);
    p->set_trade_id(e.trade_id.value);
    p->set_price(e.price.units);
    p->set_quantity(e.quantity.lots);
    p->set_aggressor_side(WireSide(e.side));
    p->set_time_ns(e.ts.nanos);
    for (Session* s : trade_subscribers_[id]) Send(*s, out_);
  }
}

// A slot listed again is a new instrument: subscriptions to its previous
// listing end (they named the old symbol).
void Gateway::EndSubscriptions(uint32_t id) {
  if (id >= depth_subscribers_.size()) return;
  for (auto* table : {&depth_subscribers_, &trade_subscribers_}) {
    for (Session* s : (*table)[id]) {
      s->depth.erase(std::remove(s->depth.begin(), s->depth.end(), id),
                     s->depth.end());
      s->trades.erase(std::remove(s->trades.begin(), s->trades.end(), id),
                      s->trades.end());
    }
    (*table)[id].clear();
  }
}

// ----------------------------------------------------------------
// retransmission

void Gateway::StartRetransmission(Session& s, uint64_t after_seq,
                                  uint32_t after_index) {
  const uint64_t through = last_event_seq_;
  s.replaying = true;
  s.live_after_seq = through;
  const uint64_t session_id = s.id;
  const AccountId account = s.account;
  auto done = std::make_shared<std::atomic<bool>>(false);
  const ServerConfig* config = &config_;
  const exchange::Journal* journal = deps_.journal;
  asio::io_context* io = &io_;
  workers_.push_back(Worker{
      std::thread([this, config, journal, io, done, session_id, account,
                   after_seq, after_index, through] {
        std::string bytes;
        uint32_t count = 0;
        Status st;
        if (account.value != 0 && through > 0 &&
            (after_seq < through || (after_seq == through))) {
          // From the journal's start, as the live builder saw it: the
          // builder's order view gives trade and cancel reports the price,
          // quantity and status of orders accepted before `after_seq`.
          ReportBuilder rb(*config);
          st = exchange::ReplayEvents(
              *journal, config->engine, exchange::Seq{0},
              exchange::Seq{through}, [&](const exchange::Event& ev) {
                rb.OnEvent(ev, [&](AccountId a, const w::Envelope& env) {
                  if (a != account) return;
                  uint64_t seq = 0;
                  uint32_t index = 0;
                  if (env.has_execution_report()) {
                    seq = env.execution_report().seq();
                    index = env.execution_report().index();
                  } else if (env.has_cancel_reject()) {
                    seq = env.cancel_reject().seq();
                    index = env.cancel_reject().index();
                  } else if (env.has_mass_cancel_report()) {
                    seq = env.mass_cancel_report().seq();
                    index = env.mass_cancel_report().index();
                  }
                  if (seq < after_seq ||
                      (seq == after_seq && index <= after_index)) {
                    return;
                  }
                  if (AppendFrame(env, &bytes)) ++count;
                });
              });
        }
        asio::post(*io, [this, session_id, st, b = std::move(bytes), count,
                         through]() mutable {
          FinishRetransmission(session_id, st, std::move(b), count, through);
        });
        done->store(true, std::memory_order_release);
      }),
      done});
}

void Gateway::FinishRetransmission(uint64_t session_id, Status status,
                                   std::string bytes, uint32_t count,
                                   uint64_t through) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) return;
  Session& s = *it->second;
  if (s.state == Session::State::kClosed) return;
  s.replaying = false;
  if (!status.ok()) {
    out_.Clear();
    out_.mutable_logout()->set_text("retransmission failed: " +
                                    status.message());
    Send(s, out_);
    s.state = Session::State::kClosing;
    return;
  }
  SendBytes(s, bytes, false, 0);
  out_.Clear();
  out_.mutable_retransmission_complete()->set_messages(count);
  out_.mutable_retransmission_complete()->set_through_seq(through);
  Send(s, out_);
  std::string held = std::move(s.held);
  s.held.clear();
  SendBytes(s, held, false, 0);
}

void Gateway::ReapWorkers(bool all) {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (all || it->done->load(std::memory_order_acquire)) {
      if (it->thread.joinable()) it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
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
    std::vector<Session*> expired;
    for (auto& [id, sp] : sessions_) {
      Session& s = *sp;
      if (s.state == Session::State::kAwaitLogon &&
          now - s.connected_ns > kLogonTimeoutNs) {
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
        Send(s, out_);
      }
    }
    for (Session* s : expired) Close(*s, "timeout");
    // Forget nonces once their timestamp is outside the logon window.
    const int64_t horizon =
        WallNs() -
        2 * int64_t{config_.session.logon_window_seconds} * kNanosPerSecond;
    for (auto it = nonces_.begin(); it != nonces_.end();) {
      it = it->second < horizon ? nonces_.erase(it) : std::next(it);
    }
    ReapWorkers(false);
  }
  // Writes.
  std::vector<Session*> dirty;
  dirty.swap(dirty_);
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
    asio::async_write(s.socket, asio::buffer(s.writing),
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
                          if (!ws.dirty) {
                            ws.dirty = true;
                            dirty_.push_back(&ws);
                          }
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
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  std::vector<Session*> all;
  for (auto& [id, s] : sessions_) all.push_back(s.get());
  for (Session* s : all) Close(*s, "exchange stopping");
  ReapWorkers(true);
}

}  // namespace cfx::gateway::pb
