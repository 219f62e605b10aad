#include "gateway/tools/cli/fix_initiator.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "gateway/fix/fix_tags.h"

namespace cfx::gateway::cli {

namespace {

namespace tag = fix::tag;
namespace msg_type = fix::msg_type;

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr char kSoh = '\x01';
constexpr std::string_view kBegin =
    "8=FIX.4.4\x01"
    "9=";
// Bigger BodyLength(9) values are taken for garbage: the exchange's
// largest messages (SecurityList) stay far below.
constexpr std::size_t kMaxBodyLength = 1u << 20;

Status Unavailable(const std::string& m) {
  return Status(StatusCode::kUnavailable, m);
}

Status Timeout(const std::string& m) {
  return Status(StatusCode::kResourceExhausted, m);
}

std::string Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Milliseconds left until `deadline`, at least 0, rounded up.
int MillisLeft(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::ceil<milliseconds>(deadline - SteadyClock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

void AppendField(std::string* out, int number, std::string_view value) {
  char buf[16];
  const auto r = std::to_chars(buf, buf + sizeof buf, number);
  out->append(buf, r.ptr);
  out->push_back('=');
  out->append(value);
  out->push_back(kSoh);
}

// Connects to host:port within `timeout`; returns the blocking socket.
Result<int> ConnectTcp(const std::string& host, uint16_t port,
                       milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const int gai = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (gai != 0) {
    return Unavailable("fix: cannot resolve " + host + ": " +
                       ::gai_strerror(gai));
  }
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                 a->ai_protocol);
    if (fd < 0) {
      last_error = Errno("socket");
      continue;
    }
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, MillisLeft(deadline));
      int err = 0;
      socklen_t len = sizeof err;
      if (rc == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
          err == 0) {
        rc = 0;
      } else {
        errno = rc == 0 ? ETIMEDOUT : (err != 0 ? err : errno);
        rc = -1;
      }
    }
    if (rc != 0) {
      last_error = Errno("connect");
      ::close(fd);
      continue;
    }
    // Blocking from here on: reads wait in poll() with a deadline, and the
    // few hundred bytes of a write always fit the socket buffer.
    const int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::freeaddrinfo(found);
    return fd;
  }
  ::freeaddrinfo(found);
  return Unavailable("fix: cannot connect to " + host + ":" + service + ": " +
                     last_error);
}

}  // namespace

// ---------------------------------------------------------------- message

std::string FixMessage::Get(int number) const {
  for (const auto& [t, v] : fields) {
    if (t == number) return v;
  }
  return std::string();
}

bool FixMessage::Has(int number) const {
  for (const auto& f : fields) {
    if (f.first == number) return true;
  }
  return false;
}

bool FixMessage::Is(int number, char value) const {
  const std::string v = Get(number);
  return v.size() == 1 && v[0] == value;
}

std::string FixMessage::Text() const {
  std::string out;
  for (const auto& [t, v] : fields) {
    out += std::to_string(t) + "=" + v + "|";
  }
  return out;
}

// ---------------------------------------------------------------- session

FixInitiator::FixInitiator(int fd, FixSessionOptions options)
    : fd_(fd), options_(std::move(options)), last_send_(SteadyClock::now()) {}

FixInitiator::~FixInitiator() { CloseSocket(); }

void FixInitiator::CloseSocket() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  ssl_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status FixInitiator::StartTls(const std::string& host,
                              const TlsClientOptions& tls,
                              milliseconds timeout) {
  auto context = MakeTlsClientContext(
      tls, tls.server_name.empty() ? host : tls.server_name);
  if (!context.has_value()) return Unavailable("fix: " + context.error().message());
  tls_context_ = std::move(context).value();
  ssl_ = SSL_new(tls_context_->native_handle());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) {
    return Unavailable("fix: cannot start TLS");
  }
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
  if (char* name = X509_VERIFY_PARAM_get0_host(param, 0)) {
    SSL_set_tlsext_host_name(ssl_, name);
  }
  // The blocking handshake, bounded by a receive and send timeout.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int rc = SSL_connect(ssl_);
  timeval none{};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
  if (rc != 1) {
    const unsigned long e = ERR_peek_last_error();
    const long verify = SSL_get_verify_result(ssl_);
    const char* reason = verify != X509_V_OK
                             ? X509_verify_cert_error_string(verify)
                         : e != 0 ? ERR_reason_error_string(e)
                                  : nullptr;
    const std::string why =
        reason != nullptr ? reason : "connection closed or timed out";
    ERR_clear_error();
    return Unavailable("fix: TLS handshake with " + host + " failed: " + why);
  }
  return Status::Ok();
}

long FixInitiator::ReadSome(char* buffer, std::size_t size) {
  if (ssl_ == nullptr) return ::recv(fd_, buffer, size, 0);
  const int n = SSL_read(ssl_, buffer, static_cast<int>(size));
  if (n > 0) return n;
  const int err = SSL_get_error(ssl_, n);
  ERR_clear_error();
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    errno = EINTR;
    return -1;
  }
  return 0;  // close_notify, or the connection is gone
}

long FixInitiator::WriteSome(const char* data, std::size_t size) {
  if (ssl_ == nullptr) return ::send(fd_, data, size, MSG_NOSIGNAL);
  const int n = SSL_write(ssl_, data, static_cast<int>(size));
  if (n > 0) return n;
  const int err = SSL_get_error(ssl_, n);
  ERR_clear_error();
  errno = err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ ? EINTR
                                                                    : EPIPE;
  return -1;
}

bool FixInitiator::Buffered() const {
  return ssl_ != nullptr && SSL_pending(ssl_) > 0;
}

std::string FixInitiator::UtcNow() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
  const auto t = static_cast<time_t>(ms / 1000);
  tm u{};
  gmtime_r(&t, &u);
  char buf[96];  // room for any int the compiler cannot rule out
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d:%02d:%02d.%03d",
                u.tm_year + 1900, u.tm_mon + 1, u.tm_mday, u.tm_hour, u.tm_min,
                u.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

Result<std::unique_ptr<FixInitiator>> FixInitiator::Connect(
    const std::string& host, uint16_t port, const FixSessionOptions& options,
    milliseconds timeout, const TlsClientOptions* tls) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  Result<int> fd = ConnectTcp(host, port, timeout);
  if (!fd.has_value()) return fd.error();
  std::unique_ptr<FixInitiator> s(new FixInitiator(fd.value(), options));
  if (tls != nullptr) CFX_RETURN_IF_ERROR(s->StartTls(host, *tls, timeout));
  CFX_RETURN_IF_ERROR(s->SendMessage(
      msg_type::kLogon,
      {{tag::kEncryptMethod, "0"},
       {tag::kHeartBtInt, std::to_string(options.heartbeat_seconds)},
       {tag::kResetSeqNumFlag, "Y"},
       {tag::kUsername, options.username},
       {tag::kPassword, options.password}}));
  for (;;) {
    FixMessage m;
    Result<bool> got = s->TakeMessage(&m);
    if (!got.has_value()) return got.error();
    if (!got.value()) {
      const int left = MillisLeft(deadline);
      if (left == 0) {
        return Timeout("fix: no answer to the Logon of " +
                       options.sender_comp_id);
      }
      pollfd p{s->fd_, POLLIN, 0};
      const int ready = s->Buffered() ? 1 : ::poll(&p, 1, left);
      if (ready < 0 && errno != EINTR) return Unavailable(Errno("fix: poll"));
      if (ready <= 0) continue;
      char chunk[4096];
      const long n = s->ReadSome(chunk, sizeof chunk);
      if (n > 0) {
        s->in_.append(chunk, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        return Unavailable("fix: logon of " + options.sender_comp_id +
                           " refused: connection closed by the acceptor");
      }
      continue;
    }
    if (m.type == msg_type::kLogon) return s;
    if (m.type == msg_type::kLogout) {
      return Unavailable("fix: logon of " + options.sender_comp_id +
                         " refused: " + m.Get(tag::kText));
    }
    // Anything before the Logon answer (a Reject of our Logon) ends it.
    return Unavailable("fix: logon of " + options.sender_comp_id +
                       " answered with 35=" + m.type + ": " +
                       m.Get(tag::kText));
  }
}

Status FixInitiator::WriteAll(std::string_view bytes) {
  if (fd_ < 0) return Unavailable("fix: not connected");
  while (!bytes.empty()) {
    const long n = WriteSome(bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const Status s = Unavailable(Errno("fix: send"));
      CloseSocket();
      return s;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  last_send_ = SteadyClock::now();
  return Status::Ok();
}

Status FixInitiator::SendMessage(std::string_view type, const FixFields& fields,
                                 bool poss_dup, uint64_t seq_override) {
  std::string body;
  AppendField(&body, tag::kMsgType, type);
  const uint64_t seq = seq_override != 0 ? seq_override : next_out_seq_++;
  AppendField(&body, tag::kMsgSeqNum, std::to_string(seq));
  AppendField(&body, tag::kSenderCompID, options_.sender_comp_id);
  const std::string now = UtcNow();
  AppendField(&body, tag::kSendingTime, now);
  AppendField(&body, tag::kTargetCompID, options_.target_comp_id);
  if (poss_dup) {
    AppendField(&body, tag::kPossDupFlag, "Y");
    AppendField(&body, tag::kOrigSendingTime, now);
  }
  for (const auto& [number, value] : fields) AppendField(&body, number, value);
  std::string out(kBegin);
  out += std::to_string(body.size());
  out.push_back(kSoh);
  out += body;
  unsigned sum = 0;
  for (const char c : out) sum += static_cast<unsigned char>(c);
  char tail[8];
  std::snprintf(tail, sizeof tail, "10=%03u", sum % 256);
  out += tail;
  out.push_back(kSoh);
  return WriteAll(out);
}

Status FixInitiator::Send(std::string_view type, const FixFields& fields) {
  return SendMessage(type, fields);
}

Result<bool> FixInitiator::TakeMessage(FixMessage* out) {
  if (in_.size() < kBegin.size() + 2) return false;
  if (in_.compare(0, kBegin.size(), kBegin) != 0) {
    CloseSocket();
    return Status(StatusCode::kDataLoss,
                  "fix: received bytes that do not start a FIX.4.4 message");
  }
  std::size_t i = kBegin.size();
  std::size_t body_length = 0;
  while (i < in_.size() && in_[i] >= '0' && in_[i] <= '9' &&
         body_length <= kMaxBodyLength) {
    body_length = body_length * 10 + static_cast<std::size_t>(in_[i] - '0');
    ++i;
  }
  if (i == in_.size()) return false;
  if (in_[i] != kSoh || i == kBegin.size() || body_length > kMaxBodyLength) {
    CloseSocket();
    return Status(StatusCode::kDataLoss, "fix: malformed BodyLength(9)");
  }
  const std::size_t checksum_at = i + 1 + body_length;
  const std::size_t total = checksum_at + 7;  // "10=NNN" SOH
  if (in_.size() < total) return false;
  unsigned sum = 0;
  for (std::size_t k = 0; k < checksum_at; ++k) {
    sum += static_cast<unsigned char>(in_[k]);
  }
  char expect[8];
  std::snprintf(expect, sizeof expect, "10=%03u", sum % 256);
  if (in_.compare(checksum_at, 6, expect) != 0 || in_[total - 1] != kSoh) {
    CloseSocket();
    return Status(StatusCode::kDataLoss,
                  "fix: wrong BodyLength(9) or CheckSum(10)");
  }
  out->type.clear();
  out->fields.clear();
  std::size_t pos = i + 1;
  while (pos < checksum_at) {
    const std::size_t eq = in_.find('=', pos);
    const std::size_t end = in_.find(kSoh, pos);
    if (eq == std::string::npos || end == std::string::npos || eq > end ||
        end > checksum_at) {
      CloseSocket();
      return Status(StatusCode::kDataLoss, "fix: a field without tag=value");
    }
    int number = 0;
    const auto r = std::from_chars(in_.data() + pos, in_.data() + eq, number);
    if (r.ec != std::errc() || r.ptr != in_.data() + eq) {
      CloseSocket();
      return Status(StatusCode::kDataLoss, "fix: a tag that is not a number");
    }
    std::string value = in_.substr(eq + 1, end - eq - 1);
    if (number == tag::kMsgType) out->type = value;
    out->fields.emplace_back(number, std::move(value));
    pos = end + 1;
  }
  in_.erase(0, total);
  return true;
}

Result<bool> FixInitiator::HandleSession(const FixMessage& m) {
  if (m.type == msg_type::kHeartbeat || m.type == msg_type::kSequenceReset) {
    return false;
  }
  if (m.type == msg_type::kTestRequest) {
    CFX_RETURN_IF_ERROR(SendMessage(
        msg_type::kHeartbeat, {{tag::kTestReqID, m.Get(tag::kTestReqID)}}));
    return false;
  }
  if (m.type == msg_type::kResendRequest) {
    // Nothing is kept to resend: fill the whole range with one GapFill.
    uint64_t begin = 0;
    const std::string b = m.Get(tag::kBeginSeqNo);
    std::from_chars(b.data(), b.data() + b.size(), begin);
    if (begin == 0 || begin >= next_out_seq_) begin = next_out_seq_;
    CFX_RETURN_IF_ERROR(
        SendMessage(msg_type::kSequenceReset,
                    {{tag::kGapFillFlag, "Y"},
                     {tag::kNewSeqNo, std::to_string(next_out_seq_)}},
                    /*poss_dup=*/true, begin));
    return false;
  }
  if (m.type == msg_type::kLogout) {
    // Answer the acceptor's Logout (unless it answers ours), then the
    // session is over.
    if (!logout_sent_) (void)SendMessage(msg_type::kLogout, {});
    CloseSocket();
    const std::string text = m.Get(tag::kText);
    return Unavailable("fix: logged out by the acceptor" +
                       (text.empty() ? std::string() : ": " + text));
  }
  return true;
}

Result<FixMessage> FixInitiator::Receive(milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  const auto heartbeat = std::chrono::seconds(options_.heartbeat_seconds);
  for (;;) {
    FixMessage m;
    Result<bool> got = TakeMessage(&m);
    if (!got.has_value()) return got.error();
    if (got.value()) {
      Result<bool> mine = HandleSession(m);
      if (!mine.has_value()) return mine.error();
      if (mine.value()) return m;
      continue;
    }
    if (fd_ < 0) return Unavailable("fix: not connected");
    if (SteadyClock::now() - last_send_ >= heartbeat) {
      CFX_RETURN_IF_ERROR(SendMessage(msg_type::kHeartbeat, {}));
    }
    const int left = MillisLeft(std::min(deadline, last_send_ + heartbeat));
    if (left == 0 && SteadyClock::now() >= deadline) {
      return Timeout("fix: nothing received");
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = Buffered() ? 1 : ::poll(&p, 1, left);
    if (ready < 0 && errno != EINTR) return Unavailable(Errno("fix: poll"));
    if (ready <= 0) continue;
    char chunk[8192];
    const long n = ReadSome(chunk, sizeof chunk);
    if (n > 0) {
      in_.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      CloseSocket();
      return Unavailable("fix: connection closed by the acceptor");
    }
  }
}

Result<FixMessage> FixInitiator::ReceiveUntil(
    const std::function<bool(const FixMessage&)>& pred, milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  for (;;) {
    Result<FixMessage> m =
        Receive(std::max(milliseconds(0), std::chrono::ceil<milliseconds>(
                                              deadline - SteadyClock::now())));
    if (!m.has_value()) return m.error();
    if (pred(m.value())) return m;
  }
}

void FixInitiator::Logout(milliseconds timeout) {
  if (fd_ < 0) return;
  logout_sent_ = true;
  if (!SendMessage(msg_type::kLogout, {}).ok()) return;
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  while (fd_ >= 0 && SteadyClock::now() < deadline) {
    // HandleSession closes the socket on the acceptor's Logout.
    Result<FixMessage> m =
        Receive(std::chrono::ceil<milliseconds>(deadline - SteadyClock::now()));
    if (!m.has_value()) break;
  }
  CloseSocket();
}

}  // namespace cfx::gateway::cli
