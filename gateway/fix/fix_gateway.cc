#include "gateway/fix/fix_gateway.h"

// FixGateway: creation, the TCP transport under the QuickFIX session layer,
// logons and the message dispatch, and the ClOrdID texts. Order entry,
// execution reports, market data and clearing reports live in their own
// files (fix_gateway.h lists them).

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "exchange/text_format.h"
#include "gateway/config/server_config.h"
#include "gateway/fix/collateral_inquiry.h"
#include "gateway/fix/dictionary.h"
#include "gateway/fix/fix_gateway_state.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/fix/position_reports.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/metrics.h"

namespace cfx::gateway::fix {

using exchange::AccountId;
using exchange::Command;
using tcp = asio::ip::tcp;

namespace {

// The TLS acceptor's first connection id: far above any plaintext one.
constexpr uint64_t kTlsFirstSlot = uint64_t{1} << 62;

// "HH:MM:SS" of `seconds` after 00:00 UTC (0 <= seconds < 2 days).
std::string TimeOfDay(int64_t seconds) {
  return exchange::FormatUtcTimestamp(
             exchange::Timestamp{seconds * kNanosPerSecond})
      .substr(11, 8);
}

}  // namespace

// ------------------------------------------------------------------ setup

FixGateway::FixGateway(asio::io_context& io, const FixGatewayDeps& deps)
    : io_(io),
      deps_(deps),
      config_(*deps.config),
      instruments_(*deps.instruments),
      own_orders_(deps.orders != nullptr
                      ? nullptr
                      : std::make_unique<OrderView>(
                            /*index_client_order_ids=*/true)),
      orders_(deps.orders != nullptr ? *deps.orders : *own_orders_) {}

FixGateway::~FixGateway() {
  if (clordid_fd_ >= 0) ::close(clordid_fd_);
}

Result<std::unique_ptr<FixGateway>> FixGateway::Create(
    asio::io_context& io, const FixGatewayDeps& deps) {
  std::unique_ptr<FixGateway> g(new FixGateway(io, deps));
  std::error_code fec;
  // A new dir is private (0700) whatever the umask.
  if (std::filesystem::create_directories(deps.dir, fec) && !fec) {
    std::filesystem::permissions(deps.dir, std::filesystem::perms::owner_all,
                                 fec);
  }
  if (fec) {
    return Status(StatusCode::kUnavailable,
                  "fix: cannot create " + deps.dir + ": " + fec.message());
  }
  const ServerConfig& config = *deps.config;
  EngineOptions options;
  options.store_dir = deps.dir + "/store";
  // Whole seconds (the engine's timers tick once a second), at least 1.
  options.logon_timeout_seconds =
      static_cast<int>((config.session.pre_logon_timeout_ms + 999) / 1000);
  options.dictionary_xml = EmbeddedDictionaryXml();
  // The daily window follows the exchange clock: it ends at the end of the
  // trading day and the next starts 5 seconds later.
  options.end_time = TimeOfDay(config.clock.session_end_utc_seconds);
  options.start_time = TimeOfDay(config.clock.session_end_utc_seconds + 5);
  if (const exchange::Clock* clock = deps.clock) {
    options.exchange_now_ns = [clock] { return clock->Now().nanos; };
  }
  g->by_account_.resize(config.accounts.size() + 1);
  for (const UserConfig& u : config.users) {
    if (u.fix_sender_comp_id.empty()) continue;
    options.sessions.push_back(u.fix_sender_comp_id);
    g->AddSessionState(u);
  }
  std::string error;
  g->engine_ = Engine::Create(options, g.get(), &error);
  if (g->engine_ == nullptr) {
    return Status(StatusCode::kInvalidArgument, "fix: " + error);
  }
  for (const auto& s : g->sessions_)
    s->active = g->engine_->HasHistory(s->index);
  // ClOrdID texts of earlier runs: "<account> <client order id> <text>".
  g->clordid_path_ = deps.dir + "/clordids";
  std::ifstream in(g->clordid_path_);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    uint32_t account = 0;
    uint64_t id = 0;
    std::string text;
    if ((ls >> account >> id >> text) && ClientOrderIdForClOrdId(text) == id) {
      g->clordid_text_[{account, id}] = text;
    }
  }
  g->InitLogonChecks();
  g->reject_exec_prefix_ =
      "R" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()) +
      "-";
  return g;
}

FixGateway::SessionState& FixGateway::AddSessionState(const UserConfig& u) {
  auto s = std::make_unique<SessionState>();
  s->index = static_cast<int>(sessions_.size());
  s->user = &u;
  s->comp_id = u.fix_sender_comp_id;
  s->account = u.account;
  if (u.role != Role::kTrader && u.role != Role::kProvider) {
    s->trade_denied = "this user's role may not enter orders";
  } else if (u.account.value == 0) {
    s->trade_denied = "this user has no trading account";
  }
  if (const AccountInfo* a = config_.account(u.account)) {
    s->account_name = a->name;
    if (u.account.value >= by_account_.size()) {
      by_account_.resize(std::size_t{u.account.value} + 1);
    }
    by_account_[u.account.value].push_back(s->index);
  }
  if (u.role == Role::kClearingMember && !u.clearing_member.empty()) {
    by_clearing_member_[u.clearing_member].push_back(s->index);
  }
  sessions_.push_back(std::move(s));
  return *sessions_.back();
}

Result<std::unique_ptr<Acceptor>> FixGateway::OpenAcceptor(
    const std::string& address, uint16_t port, bool tls) {
  const char* what = tls ? "TLS " : "";
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  std::string("fix gateway: bad ") + what + "bind address \"" +
                      address + "\": " + ec.message());
  }
  const SessionPolicy& session = config_.session;
  AcceptorOptions options;
  options.max_connections =
      std::size_t{session.max_sessions} + session.max_pre_logon;
  options.pre_logon = {session.max_pre_logon, session.max_pre_logon_per_source};
  if (tls) options.first_slot = kTlsFirstSlot;
  // A refused connection is closed without an answer: there is no session
  // to answer on.
  auto acceptor = std::make_unique<Acceptor>(
      io_,
      AcceptorHandlers{[this] { return conns_.size(); },
                       [this, tls](tcp::socket socket, uint64_t slot) {
                         Accepted(std::move(socket), slot, tls);
                       },
                       [this](tcp::socket&, Refusal why) {
                         if (deps_.metrics != nullptr) {
                           deps_.metrics->ConnectionRefused(
                               Metrics::Port::kFix,
                               why == Refusal::kSourceFull);
                         }
                       },
                       [this](uint64_t slot) { Evict(slot); }},
      options);
  ec = acceptor->Listen(ip, port);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  std::string("fix gateway: cannot listen ") +
                      (tls ? "(TLS) " : "") + "on " + address + ":" +
                      std::to_string(port) + ": " + ec.message());
  }
  return acceptor;
}

Status FixGateway::Listen(const std::string& address, uint16_t port) {
  auto acceptor = OpenAcceptor(address, port, /*tls=*/false);
  if (!acceptor.has_value()) return acceptor.error();
  acceptor_ = std::move(acceptor).value();
  port_ = acceptor_->port();
  return Status();
}

Status FixGateway::ListenTls(const std::string& address, uint16_t port,
                             TlsServerContext& tls) {
  tls_ = &tls;
  auto acceptor = OpenAcceptor(address, port, /*tls=*/true);
  if (!acceptor.has_value()) return acceptor.error();
  tls_acceptor_ = std::move(acceptor).value();
  return Status();
}

uint16_t FixGateway::tls_port() const {
  return tls_acceptor_ == nullptr ? 0 : tls_acceptor_->port();
}

Acceptor* FixGateway::AcceptorOf(uint64_t conn) {
  return conn >= kTlsFirstSlot ? tls_acceptor_.get() : acceptor_.get();
}

Status FixGateway::GoLive() {
  PruneClOrdIdTexts();
  CFX_RETURN_IF_ERROR(RewriteClOrdIdFile());
  live_ = true;
  return Status();
}

void FixGateway::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (acceptor_ != nullptr) acceptor_->Close();
  if (tls_acceptor_ != nullptr) tls_acceptor_->Close();
  engine_->LogoutAll("the exchange is shutting down");
  Poll();
}

// -------------------------------------------------------------- transport

// A TLS connection is the engine's from accept, so its logon timeout and
// the pre-logon budget also bound the handshake; its bytes are read once
// the handshake is done.
void FixGateway::Accepted(tcp::socket socket, uint64_t slot, bool tls) {
  if (stopped_) {
    AcceptorOf(slot)->Closed(slot);
    return;
  }
  auto c = std::make_shared<Connection>(
      tls ? Stream(std::move(socket), tls_->Current())
          : Stream(std::move(socket)));
  c->id = slot;
  conns_[c->id] = c;
  engine_->Connected(c->id, WallSeconds());
  if (!tls) {
    StartRead(c);
    return;
  }
  c->stream.AsyncHandshake(
      ssl::stream_base::server, [this, c](boost::system::error_code ec) {
        // Cut short by the logon timeout or an eviction: operation_aborted,
        // counted as failed too.
        if (deps_.metrics != nullptr) {
          deps_.metrics->TlsHandshake(Metrics::Port::kFix, !ec);
        }
        if (c->dead) return;
        if (ec) {
          const std::string line = tls_failures_.Failed("fix gateway", ec);
          if (!line.empty()) Log(line);
          Gone(c);
          return;
        }
        StartRead(c);
      });
}

// The oldest connection without a Logon, closed to make room for a new one.
void FixGateway::Evict(uint64_t slot) {
  auto it = conns_.find(slot);
  if (it == conns_.end()) return;
  if (deps_.metrics != nullptr) {
    deps_.metrics->PreLogonEvicted(Metrics::Port::kFix);
  }
  // Counted, not logged: a flood must not flood the log too.
  const std::shared_ptr<Connection> c = it->second;
  Gone(c);
}

void FixGateway::OnConnectionLoggedOn(uint64_t conn) {
  if (Acceptor* a = AcceptorOf(conn)) a->LoggedOn(conn);
}

void FixGateway::StartRead(const std::shared_ptr<Connection>& c) {
  c->stream.async_read_some(
      asio::buffer(c->in),
      [this, c](boost::system::error_code ec, std::size_t n) {
        if (c->dead) return;
        if (ec) {
          Gone(c);
          return;
        }
        engine_->Received(c->id, c->in.data(), n);
        if (!c->dead) StartRead(c);
      });
}

void FixGateway::Write(uint64_t conn, const char* data, std::size_t size) {
  auto it = conns_.find(conn);
  if (it == conns_.end() || it->second->dead) return;
  Connection& c = *it->second;
  c.out.append(data, size);
  if (!c.dirty) {
    c.dirty = true;
    dirty_.push_back(it->second);
  }
}

void FixGateway::Close(uint64_t conn) {
  auto it = conns_.find(conn);
  if (it == conns_.end() || it->second->dead) return;
  it->second->closing = true;
  if (!it->second->dirty) {
    it->second->dirty = true;
    dirty_.push_back(it->second);
  }
}

void FixGateway::Flush(const std::shared_ptr<Connection>& c) {
  c->dirty = false;
  if (c->dead || c->write_in_flight) return;
  if (c->out.empty()) {
    if (c->closing) {
      c->stream.Close();
      Gone(c);
    }
    return;
  }
  c->writing.clear();
  std::swap(c->out, c->writing);
  c->write_in_flight = true;
  asio::async_write(c->stream, asio::buffer(c->writing),
                    [this, c](boost::system::error_code ec, std::size_t) {
                      c->write_in_flight = false;
                      if (ec) {
                        Gone(c);
                        return;
                      }
                      if (!c->out.empty() || c->closing) Flush(c);
                    });
}

void FixGateway::Gone(const std::shared_ptr<Connection>& c) {
  if (c->dead) return;
  c->dead = true;
  c->stream.Close();
  if (Acceptor* a = AcceptorOf(c->id)) a->Closed(c->id);
  conns_.erase(c->id);
  engine_->Disconnected(c->id);
}

void FixGateway::Log(const std::string& line) {
  if (deps_.log) deps_.log(line);
}

int FixGateway::Poll() {
  int work = 0;
  if (!released_.empty()) {
    std::vector<std::pair<int, Message>> released;
    released.swap(released_);
    for (auto& [s, m] : released) {
      auto& session = sessions_[static_cast<std::size_t>(s)];
      if (session->held > 0) --session->held;
      if (m.type == msg_type::kOrderCancelRequest) OnCancel(s, m, false);
      if (m.type == msg_type::kOrderCancelReplaceRequest) OnCancel(s, m, true);
    }
    work += static_cast<int>(released.size());
  }
  FlushMarketData();
  const int64_t now = SteadyNs();
  work += ReleaseRefusals(now);
  if (now - last_tick_ns_ >= kNanosPerSecond) {
    last_tick_ns_ = now;
    engine_->Tick(WallSeconds());
  }
  FlushClOrdIdFile();
  engine_->Flush();  // the session stores first, then the engine's output
  if (!dirty_.empty()) {
    std::vector<std::shared_ptr<Connection>> dirty;
    dirty.swap(dirty_);
    for (const auto& c : dirty) Flush(c);
    work += static_cast<int>(dirty.size());
  }
  return work;
}

// --------------------------------------------------------------- sessions

void FixGateway::OnLogon(int session) {
  SessionState& s = *sessions_[static_cast<std::size_t>(session)];
  s.logged_on = true;
  s.active = true;
  if (s.user->role == Role::kClearingMember) drop_copy_active_ = true;
  SetSessionsMetric();
  s.throttle.Reset(config_.session.max_messages_per_second, SteadyNs());
  Log("fix " + s.comp_id + ": " + s.user->name + " logged on" +
      (s.user->demo ? " (WARNING: a demo identity, published credentials)"
                    : ""));
}

void FixGateway::OnLogout(int session) {
  SessionState& s = *sessions_[static_cast<std::size_t>(session)];
  if (!s.logged_on) return;
  s.logged_on = false;
  SetSessionsMetric();
  s.md.clear();
  s.status.clear();
  Log("fix " + s.comp_id + ": " + s.user->name + " logged out");
}

void FixGateway::OnMessage(int session, const Message& m) {
  SessionState& s = *sessions_[static_cast<std::size_t>(session)];
  if (deps_.metrics != nullptr && m.type.size() == 1) {
    deps_.metrics->FixMessageReceived(m.type[0]);
  }
  // Throttle: a token bucket of max_messages_per_second, burst one second.
  const int64_t rate = config_.session.max_messages_per_second;
  if (!s.throttle.TryTake(rate, SteadyNs())) {
    std::string ref;
    for (int tag : {tag::kClOrdID, tag::kMDReqID, tag::kSecurityReqID,
                    tag::kSecurityStatusReqID}) {
      if (const std::string* v = m.Find(tag)) {
        ref = *v;
        break;
      }
    }
    BusinessReject(session, m, business_reject_reason::kOther, ref,
                   "throttled: more than " + Str(rate) +
                       " messages per second; nothing was accepted");
    return;
  }
  if (m.type == msg_type::kNewOrderSingle) return OnNewOrder(session, m);
  if (m.type == msg_type::kOrderCancelRequest)
    return OnCancel(session, m, false);
  if (m.type == msg_type::kOrderCancelReplaceRequest)
    return OnCancel(session, m, true);
  if (m.type == msg_type::kOrderMassCancelRequest)
    return OnMassCancel(session, m);
  if (m.type == msg_type::kOrderStatusRequest) return OnOrderStatus(session, m);
  if (m.type == msg_type::kRequestForPositions) {
    return ReadServicesFor(session, m, [this](int index, const Message& r) {
      OnRequestForPositions(index, r);
    });
  }
  if (m.type == msg_type::kCollateralInquiry) {
    return ReadServicesFor(session, m, [this](int index, const Message& r) {
      OnCollateralInquiry(index, r);
    });
  }
  if (m.type == msg_type::kMarketDataRequest)
    return OnMarketDataRequest(session, m);
  if (m.type == msg_type::kSecurityListRequest)
    return OnSecurityList(session, m);
  if (m.type == msg_type::kSecurityStatusRequest)
    return OnSecurityStatus(session, m);
  BusinessReject(session, m, business_reject_reason::kUnsupportedMessageType,
                 "", "MsgType " + m.type + " is not accepted by the exchange");
}

void FixGateway::Send(int s, const Message& m) {
  // The ClOrdID texts reach the OS before any message that may carry one
  // is stored (docs/fix.md, "Durability").
  FlushClOrdIdFile();
  if (deps_.metrics != nullptr && m.type.size() == 1) {
    deps_.metrics->FixMessageSent(m.type[0]);
    if (m.type == msg_type::kOrderCancelReject ||
        (m.type == msg_type::kExecutionReport &&
         m.Find(tag::kExecType) != nullptr &&
         *m.Find(tag::kExecType) == std::string(1, exec_type::kRejected))) {
      deps_.metrics->OrderRejected();
    }
  }
  engine_->Send(s, m);
}

void FixGateway::SetSessionsMetric() {
  if (deps_.metrics == nullptr) return;
  int64_t n = 0;
  for (const auto& ss : sessions_) n += ss->logged_on ? 1 : 0;
  deps_.metrics->SetFixSessions(n);
}

void FixGateway::BusinessReject(int s, const Message& m, int reason,
                                const std::string& ref_id,
                                const std::string& text) {
  Message r;
  r.type = msg_type::kBusinessMessageReject;
  if (m.seq_num > 0) r.Add(tag::kRefSeqNum, Str(int64_t{m.seq_num}));
  r.Add(tag::kRefMsgType, m.type);
  if (!ref_id.empty()) r.Add(tag::kBusinessRejectRefID, ref_id);
  r.Add(tag::kBusinessRejectReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  Send(s, r);
}

// ---------------------------------------------------------------- clearing

// The index and settlement may be applying later events on their own
// thread: the answer waits until they have applied every event this
// gateway has seen (service_reads.h).
void FixGateway::ReadServicesFor(
    int s, const Message& m, std::function<void(int, const Message&)> handler) {
  const bool taken = ReadServices(
      deps_.service_reads, [this, s, m, handler = std::move(handler)] {
        if (sessions_[static_cast<std::size_t>(s)]->logged_on) handler(s, m);
      });
  if (taken) return;
  std::string ref;
  for (int tag : {tag::kMDReqID, tag::kPosReqID, tag::kCollInquiryID}) {
    if (const std::string* v = m.Find(tag)) ref = *v;
  }
  BusinessReject(s, m, business_reject_reason::kApplicationNotAvailable, ref,
                 "the exchange is busy; nothing was answered, try again");
}

void FixGateway::OnRequestForPositions(int s, const Message& m) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  for (const Message& r :
       AnswerRequestForPositions(m, *ss.user, deps_.settlement)) {
    Send(s, r);
  }
}

void FixGateway::OnCollateralInquiry(int s, const Message& m) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  for (const Message& r :
       AnswerCollateralInquiry(m, *ss.user, deps_.settlement)) {
    Send(s, r);
  }
}

// ---------------------------------------------------------------- clordids

void FixGateway::RememberClOrdIdText(AccountId account, uint64_t id,
                                     const std::string& text) {
  if ((id >> 63) != 0 &&
      clordid_text_.emplace(Key{account.value, id}, text).second && live_) {
    clordid_buffer_ +=
        Str(uint64_t{account.value}) + ' ' + Str(id) + ' ' + text + '\n';
  }
}

void FixGateway::PruneClOrdIdTexts() {
  for (auto it = clordid_text_.begin(); it != clordid_text_.end();) {
    const bool keep =
        orders_.FindByClientOrderId(
            AccountId{it->first.first},
            exchange::ClientOrderId{it->first.second}) != nullptr ||
        pending_.count(it->first) != 0;
    it = keep ? std::next(it) : clordid_text_.erase(it);
  }
}

// Writes the kept texts to <dir>/clordids.tmp, renames it over
// <dir>/clordids and appends to that from now on.
Status FixGateway::RewriteClOrdIdFile() {
  FlushClOrdIdFile();
  clordid_buffer_.clear();  // the rewrite holds every kept text
  if (clordid_fd_ >= 0) {
    ::close(clordid_fd_);
    clordid_fd_ = -1;
  }
  const std::string tmp = clordid_path_ + ".tmp";
  std::string text;
  for (const auto& [key, clordid] : clordid_text_) {
    text +=
        Str(uint64_t{key.first}) + ' ' + Str(key.second) + ' ' + clordid + '\n';
  }
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  std::size_t done = 0;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (!ok) {
    return Status(StatusCode::kUnavailable,
                  "fix: cannot write " + tmp + ": " + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, clordid_path_, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "fix: cannot replace " + clordid_path_ + ": " + ec.message());
  }
  clordid_fd_ = ::open(clordid_path_.c_str(),
                       O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (clordid_fd_ < 0) {
    return Status(
        StatusCode::kUnavailable,
        "fix: cannot open " + clordid_path_ + ": " + std::strerror(errno));
  }
  return Status();
}

std::string FixGateway::ClOrdIdText(AccountId account, uint64_t id) const {
  auto it = clordid_text_.find({account.value, id});
  return it != clordid_text_.end() ? it->second : Str(id);
}

void FixGateway::FlushClOrdIdFile() {
  if (clordid_buffer_.empty() || clordid_fd_ < 0) return;
  const char* p = clordid_buffer_.data();
  std::size_t left = clordid_buffer_.size();
  while (left > 0) {
    const ssize_t n = ::write(clordid_fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      Log("fix: cannot append to " + clordid_path_ + ": " +
          std::strerror(errno));
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  clordid_buffer_.clear();
}

}  // namespace cfx::gateway::fix
