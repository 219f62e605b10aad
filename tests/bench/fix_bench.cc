#include "tests/bench/fix_bench.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gateway/config/server_config.h"
#include "gateway/fix/dictionary.h"
#include "gateway/server/exchange_server.h"
#include "tests/bench/fix_bare_acceptor.h"
#include "tests/bench/bench_tls.h"
#include "tests/bench/loopback_bench.h"
#include "tests/bench/scratch_dir.h"
#include "tests/bench/text.h"

namespace cfx::bench {

double FixBenchResult::ratio() const {
  if (!gateway.ran || !bare.ran || bare.throughput.orders_per_s <= 0) return 0;
  return gateway.throughput.orders_per_s / bare.throughput.orders_per_s;
}

double FixBenchResult::tls_ratio() const {
  if (!gateway.ran || !gateway_tls.ran || gateway.throughput.orders_per_s <= 0) {
    return 0;
  }
  return gateway_tls.throughput.orders_per_s / gateway.throughput.orders_per_s;
}

namespace {

using gateway::ExchangeServer;
using gateway::ServerConfig;

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr char kSoh = '\x01';
// The workload: DAY limit orders for 1 lot of the front B200-STD future
// (reference $5.80, price band +-10 %) that never cross: buys on 20 levels
// from $5.30, sells on 20 levels from $6.11. Every order rests, so each
// yields exactly one ExecutionReport (New), as at the bare acceptor.
constexpr const char* kSymbol = "XB2SZ6";
constexpr int kBuyTicks = 530;   // $0.01 ticks: $5.30
constexpr int kSellTicks = 611;  // $6.11
constexpr int kLevels = 20;
// Sessions' HeartBtInt(108).
constexpr int kHeartbeatSeconds = 30;
// A phase fails when no order was answered for this long.
constexpr int64_t kStallNanos = 10 * kNanosPerSecond;

void Progress(const FixBenchOptions& o, const std::string& line) {
  if (!o.quiet) std::fprintf(stderr, "cfx-bench fix: %s\n", line.c_str());
}

// ---------------------------------------------------------------- FIX wire

// "YYYYMMDD-HH:MM:SS.sss" UTC now: the calendar part is recomputed once a
// second, the milliseconds on every call.
class FixClock {
 public:
  static constexpr std::size_t kSize = 21;
  std::string_view Now() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const int64_t ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
    const int64_t second = ms / 1000;
    if (second != second_) {
      second_ = second;
      const auto t = static_cast<time_t>(second);
      tm u{};
      gmtime_r(&t, &u);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d:%02d:%02d.000",
                    u.tm_year + 1900, u.tm_mon + 1, u.tm_mday, u.tm_hour,
                    u.tm_min, u.tm_sec);
      std::memcpy(text_, buf, kSize);
    }
    const auto m = static_cast<int>(ms % 1000);
    text_[18] = static_cast<char>('0' + m / 100);
    text_[19] = static_cast<char>('0' + m / 10 % 10);
    text_[20] = static_cast<char>('0' + m % 10);
    return {text_, kSize};
  }

 private:
  int64_t second_ = -1;
  char text_[kSize + 1] = {};
};

// Appends "<tag>=<value>SOH".
class FieldWriter {
 public:
  explicit FieldWriter(std::string* out) : out_(out) {}
  FieldWriter& Add(int tag, std::string_view value) {
    AppendInt(tag);
    out_->push_back('=');
    out_->append(value);
    out_->push_back(kSoh);
    return *this;
  }
  FieldWriter& Add(int tag, uint64_t value) {
    AppendInt(tag);
    out_->push_back('=');
    AppendInt(value);
    out_->push_back(kSoh);
    return *this;
  }

 private:
  void AppendInt(uint64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_->append(buf, r.ptr);
  }
  std::string* out_;
};

// "5.30" for 530 cents.
std::string_view FormatCents(int cents, char (&buf)[8]) {
  std::snprintf(buf, sizeof buf, "%d.%02d", cents / 100, cents % 100);
  return buf;
}

// One session's connection: a raw socket speaking just enough FIX 4.4 for
// the benchmark (Logon, NewOrderSingle, Heartbeat and TestRequest answers,
// Logout). Not a QuickFIX initiator: the clients share the two cores with
// the server, so each costs as little as possible. Owned and used by the
// client thread.
struct FixConnection {
  uint32_t index = 0;  // order of the sessions
  std::string sender;  // our SenderCompID
  std::string target;  // the acceptor's CompID
  std::string username;
  std::string password;

  int fd = -1;
  BenchStream stream;    // on fd: plaintext, or TLS for --tls
  uint64_t out_seq = 1;  // next MsgSeqNum(34) to send
  uint64_t in_seq = 1;   // next MsgSeqNum(34) expected
  uint64_t next_clordid = 1;
  std::string out;  // encoded, not yet written from out_pos
  std::size_t out_pos = 0;
  std::vector<char> in = std::vector<char>(1u << 18);
  std::size_t in_pos = 0;  // received and not yet parsed: [in_pos, in_end)
  std::size_t in_end = 0;
  int64_t last_send_ns = 0;
  bool logged_on = false;
  bool logged_out = false;
  std::string error;

  // Counters for the result.
  uint64_t sent = 0;
  uint64_t acks = 0;
  uint64_t rejects = 0;
  uint64_t session_rejects = 0;
  uint64_t business_rejects = 0;
  uint64_t extra_reports = 0;
  uint64_t test_requests = 0;
  std::string first_reject;

  FixConnection() = default;
  FixConnection(const FixConnection&) = delete;
  FixConnection& operator=(const FixConnection&) = delete;
  ~FixConnection() {
    if (fd >= 0) close(fd);
  }

  // Appends one message: the standard header (8, 9, 35, 34, 49, 52, 56),
  // `body` (SOH-terminated fields) and the CheckSum. Returns its MsgSeqNum.
  uint64_t Append(std::string_view type, std::string_view body,
                  std::string_view sending_time) {
    // Everything after BodyLength(9) is written after a gap big enough for
    // "8=FIX.4.4|9=NNNNNNN|"; once the length is known the prefix goes at
    // the end of the gap and the gap's unused front is erased.
    static constexpr std::string_view kBegin =
        "8=FIX.4.4\x01"
        "9=";
    const std::size_t start = out.size();
    const std::size_t gap = kBegin.size() + 8;  // up to 7 length digits + SOH
    out.resize(start + gap);
    const uint64_t seq = out_seq++;
    FieldWriter(&out)
        .Add(35, type)
        .Add(34, seq)
        .Add(49, sender)
        .Add(52, sending_time)
        .Add(56, target);
    out.append(body);
    const std::size_t body_length = out.size() - start - gap;
    char len[8];
    const auto r = std::to_chars(len, len + sizeof len, body_length);
    const auto len_size = static_cast<std::size_t>(r.ptr - len);
    // Move the prefix to end right before the body.
    const std::size_t prefix = kBegin.size() + len_size + 1;
    const std::size_t at = start + gap - prefix;
    std::memcpy(out.data() + at, kBegin.data(), kBegin.size());
    std::memcpy(out.data() + at + kBegin.size(), len, len_size);
    out[at + kBegin.size() + len_size] = kSoh;
    out.erase(start, at - start);
    unsigned sum = 0;
    for (std::size_t i = start; i < out.size(); ++i) {
      sum += static_cast<unsigned char>(out[i]);
    }
    char tail[8];
    std::snprintf(tail, sizeof tail, "10=%03u\x01", sum % 256);
    out.append(tail, 7);
    return seq;
  }

  // One NewOrderSingle: 1 lot of kSymbol, DAY limit, on a level that never
  // crosses. Returns its MsgSeqNum.
  uint64_t AppendOrder(uint64_t clordid, std::string_view now) {
    const bool buy = ((clordid + index) & 1) == 0;
    const int level = static_cast<int>((clordid / 2) % kLevels);
    char price[8];
    body_.clear();
    FieldWriter(&body_)
        .Add(11, clordid)
        .Add(55, kSymbol)
        .Add(54, buy ? "1" : "2")
        .Add(38, "1")
        .Add(40, "2")
        .Add(44, FormatCents((buy ? kBuyTicks : kSellTicks) + level, price))
        .Add(59, "0")
        .Add(60, now);
    ++sent;
    return Append("D", body_, now);
  }

  // Writes what it can without blocking. False on an error (error set).
  bool Flush(int64_t now) {
    while (out_pos < out.size()) {
      const ssize_t n =
          stream.Write(out.data() + out_pos, out.size() - out_pos);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        error = std::string("write: ") + std::strerror(errno);
        return false;
      }
      out_pos += static_cast<std::size_t>(n);
      last_send_ns = now;
    }
    if (out_pos == out.size()) {
      out.clear();
      out_pos = 0;
    } else if (out_pos > (1u << 20)) {
      out.erase(0, out_pos);
      out_pos = 0;
    }
    return true;
  }
  bool pending_output() const { return out_pos < out.size(); }

  // Reads what has arrived. False on an error or a close (error set).
  bool Read() {
    while (true) {
      if (in_end == in.size()) {
        // Move the unparsed tail to the front; grow only if it fills half.
        std::memmove(in.data(), in.data() + in_pos, in_end - in_pos);
        in_end -= in_pos;
        in_pos = 0;
        if (in_end * 2 > in.size()) in.resize(in.size() * 2);
      }
      const ssize_t n = stream.Read(in.data() + in_end, in.size() - in_end);
      if (n > 0) {
        in_end += static_cast<std::size_t>(n);
        if (in_end < in.size()) return true;  // drained the socket
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      error = n == 0 ? "connection closed by the acceptor"
                     : std::string("read: ") + std::strerror(errno);
      return false;
    }
  }

  // The next complete message, or false (incomplete; or malformed, then
  // error set).
  bool Next(std::string_view* message) {
    static constexpr std::string_view kBegin =
        "8=FIX.4.4\x01"
        "9=";
    const std::string_view rest(in.data() + in_pos, in_end - in_pos);
    if (rest.size() < kBegin.size() + 2) return false;
    if (rest.substr(0, kBegin.size()) != kBegin) {
      error = "received bytes that do not start a FIX.4.4 message";
      return false;
    }
    std::size_t i = kBegin.size();
    std::size_t body_length = 0;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') {
      body_length = body_length * 10 + static_cast<std::size_t>(rest[i] - '0');
      ++i;
    }
    if (i == rest.size()) return false;
    if (rest[i] != kSoh || body_length > (1u << 20)) {
      error = "received a malformed BodyLength(9)";
      return false;
    }
    const std::size_t total = i + 1 + body_length + 7;  // + "10=NNN|"
    if (rest.size() < total) return false;
    if (rest.substr(total - 7, 3) != "10=") {
      error = "received a message whose BodyLength(9) is wrong";
      return false;
    }
    *message = rest.substr(0, total);
    in_pos += total;
    return true;
  }

 private:
  std::string body_;
};

// The fields the client reads from a received message.
struct Inbound {
  std::string_view type;         // 35
  uint64_t seq = 0;              // 34
  std::string_view clordid;      // 11
  std::string_view exec_type;    // 150
  uint64_t ref_seq = 0;          // 45
  std::string_view ref_id;       // 379
  std::string_view test_req_id;  // 112
  std::string_view text;         // 58
  uint64_t new_seq = 0;          // 36
};

uint64_t ToUint(std::string_view s) {
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// Splits on SOH and keeps the tags above; nothing else is parsed.
Inbound Scan(std::string_view m) {
  Inbound in;
  std::size_t i = 0;
  while (i < m.size()) {
    const std::size_t eq = m.find('=', i);
    if (eq == std::string_view::npos) break;
    std::size_t end = m.find(kSoh, eq);
    if (end == std::string_view::npos) end = m.size();
    int tag = 0;
    std::from_chars(m.data() + i, m.data() + eq, tag);
    const std::string_view value = m.substr(eq + 1, end - eq - 1);
    switch (tag) {
      case 35:
        in.type = value;
        break;
      case 34:
        in.seq = ToUint(value);
        break;
      case 11:
        in.clordid = value;
        break;
      case 150:
        in.exec_type = value;
        break;
      case 45:
        in.ref_seq = ToUint(value);
        break;
      case 379:
        in.ref_id = value;
        break;
      case 112:
        in.test_req_id = value;
        break;
      case 58:
        in.text = value;
        break;
      case 36:
        in.new_seq = ToUint(value);
        break;
      default:
        break;
    }
    i = end + 1;
  }
  return in;
}

// ---------------------------------------------------------------- sessions

struct SessionSpec {
  std::string sender;
  std::string username;
  std::string password;
};

void SetNonBlocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
}

// Waits up to `timeout_ns` for input on c; false on timeout or error.
bool WaitReadable(FixConnection& c, int64_t timeout_ns) {
  pollfd p{c.fd, POLLIN, 0};
  const int ms = static_cast<int>(std::max<int64_t>(1, timeout_ns / 1'000'000));
  return poll(&p, 1, ms) > 0;
}

// Connects to 127.0.0.1:port, with `tls` over TLS (the handshake, blocking,
// into `handshakes`), and logs on (ResetSeqNumFlag=Y, Username(553),
// Password(554)).
Status ConnectAndLogon(uint16_t port, const BenchTlsContext* tls,
                       LatencyHistogram* handshakes, FixClock& clock,
                       FixConnection& c) {
  if (Status s = ConnectLoopback(port, &c.fd); !s.ok()) {
    return Status(s.code(), c.sender + ": " + s.message());
  }
  c.stream.Attach(c.fd);
  if (tls != nullptr) {
    const int64_t t0 = NowNanos();
    if (Status s = c.stream.StartTls(*tls); !s.ok()) {
      return Status(s.code(), c.sender + ": " + s.message());
    }
    handshakes->Record(static_cast<uint64_t>(NowNanos() - t0));
  }
  SetNonBlocking(c.fd);
  std::string body;
  FieldWriter(&body)
      .Add(98, "0")
      .Add(108, static_cast<uint64_t>(kHeartbeatSeconds))
      .Add(141, "Y")
      .Add(553, c.username)
      .Add(554, c.password);
  c.Append("A", body, clock.Now());
  const int64_t deadline = NowNanos() + 15 * kNanosPerSecond;
  while (c.pending_output()) {
    if (!c.Flush(NowNanos())) return Status(StatusCode::kUnavailable, c.error);
    if (NowNanos() > deadline) {
      return Status(StatusCode::kUnavailable, c.sender + ": Logon not sent");
    }
  }
  while (true) {
    const int64_t left = deadline - NowNanos();
    if (left <= 0 || !WaitReadable(c, left)) {
      return Status(StatusCode::kUnavailable,
                    c.sender + ": no answer to the Logon within 15 s");
    }
    if (!c.Read()) {
      return Status(StatusCode::kUnavailable,
                    c.sender + ": logon refused: " + c.error);
    }
    std::string_view m;
    while (c.Next(&m)) {
      const Inbound in = Scan(m);
      c.in_seq = in.seq + 1;
      if (in.type == "A") {
        c.logged_on = true;
        return Status::Ok();
      }
      if (in.type == "5") {
        return FailedPreconditionError(
            c.sender + ": Logout instead of Logon: " + std::string(in.text));
      }
    }
    if (!c.error.empty()) return Status(StatusCode::kUnavailable, c.error);
  }
}

// Sends Logout and waits (at most 5 s) for the acceptor's.
void Logout(FixClock& clock, FixConnection& c) {
  if (c.fd < 0 || !c.logged_on) return;
  c.Append("5", {}, clock.Now());
  const int64_t deadline = NowNanos() + 5 * kNanosPerSecond;
  while (NowNanos() < deadline && !c.logged_out) {
    if (!c.Flush(NowNanos())) break;
    if (!WaitReadable(c, deadline - NowNanos())) continue;
    if (!c.Read()) break;
    std::string_view m;
    while (c.Next(&m)) {
      if (Scan(m).type == "5") c.logged_out = true;
    }
  }
  if (!c.logged_out && c.error.empty()) c.error = "no Logout answer";
}

// ---------------------------------------------------------------- phases

// One order of a phase on one session.
struct Slot {
  int64_t due = 0;   // latency phase: the scheduled send time
  int64_t sent = 0;  // handed to the socket
  uint64_t seq = 0;  // its MsgSeqNum
  bool answered = false;
};

// A phase's orders on one session: ClOrdIDs base, base + 1, ...
struct SessionPhase {
  uint64_t base = 0;
  std::vector<Slot> slots;
  std::size_t next = 0;  // next slot to send
  uint64_t outstanding = 0;
};

struct PhasePlan {
  bool paced = false;
  // Unpaced: orders in flight per session.
  uint32_t window = 1;
  // Paced: order j (round-robin over the sessions) is due at start + j *
  // interval_ns; answers to orders due before record_from are not recorded.
  int64_t start = 0;
  double interval_ns = 0;
  int64_t record_from = 0;
};

struct PhaseOutcome {
  uint64_t answered = 0;
  int64_t first_send = 0;
  int64_t last_answer = 0;
  std::string error;
};

// Handles one received message on c; answers the phase's orders.
template <typename OnAnswer>
void Dispatch(FixConnection& c, SessionPhase& p, std::string_view m,
              FixClock& clock, OnAnswer&& on_answer) {
  const Inbound in = Scan(m);
  if (in.seq != c.in_seq && in.type != "4") {
    if (c.error.empty()) {
      c.error = "MsgSeqNum(34) " + std::to_string(in.seq) + " received, " +
                std::to_string(c.in_seq) + " expected";
    }
  }
  c.in_seq = in.seq + 1;
  auto answer = [&](uint64_t id, bool refused, std::string_view text) {
    if (id < p.base || id - p.base >= p.slots.size()) {
      ++c.extra_reports;
      return;
    }
    Slot& s = p.slots[id - p.base];
    if (s.answered) {
      ++c.extra_reports;
      return;
    }
    s.answered = true;
    if (refused && c.first_reject.empty()) {
      c.first_reject =
          text.empty() ? std::string("(no Text)") : std::string(text);
    }
    on_answer(p, id - p.base);
  };
  if (in.type == "8") {
    const bool rejected = in.exec_type == "8";
    if (rejected) ++c.rejects;
    const uint64_t id = ToUint(in.clordid);
    if (id >= p.base && id - p.base < p.slots.size() &&
        !p.slots[id - p.base].answered) {
      ++c.acks;
    }
    answer(id, rejected, in.text);
  } else if (in.type == "1") {
    ++c.test_requests;
    std::string body;
    FieldWriter(&body).Add(112, in.test_req_id);
    c.Append("0", body, clock.Now());
  } else if (in.type == "3") {
    ++c.session_rejects;
    // The order with MsgSeqNum RefSeqNum(45): slots are in seq order.
    auto it = std::lower_bound(
        p.slots.begin(), p.slots.begin() + static_cast<std::ptrdiff_t>(p.next),
        in.ref_seq, [](const Slot& s, uint64_t seq) { return s.seq < seq; });
    if (it != p.slots.begin() + static_cast<std::ptrdiff_t>(p.next) &&
        it->seq == in.ref_seq) {
      answer(p.base + static_cast<uint64_t>(it - p.slots.begin()), true,
             in.text);
    } else if (c.first_reject.empty()) {
      c.first_reject = "Reject(3): " + std::string(in.text);
    }
  } else if (in.type == "j") {
    ++c.business_rejects;
    answer(ToUint(in.ref_id), true, in.text);
  } else if (in.type == "2") {
    // Nothing is kept to resend: reset the acceptor's expectation instead.
    if (c.error.empty()) c.error = "the acceptor sent a ResendRequest";
    std::string body;
    FieldWriter(&body).Add(36, c.out_seq + 1);
    c.Append("4", body, clock.Now());
  } else if (in.type == "4") {
    c.in_seq = in.new_seq;
  } else if (in.type == "5") {
    c.logged_out = true;
    if (c.error.empty()) {
      c.error = "Logout from the acceptor: " + std::string(in.text);
    }
  }
}

// Runs one phase over `conns`. `orders` in total, split evenly; answered
// orders are reported to on_answer(phase, slot, t), t being when the read
// that brought the answer returned.
template <typename OnAnswer>
PhaseOutcome RunPhase(std::vector<std::unique_ptr<FixConnection>>& conns,
                      FixClock& clock, const PhasePlan& plan, uint64_t orders,
                      OnAnswer&& on_answer) {
  const auto k = static_cast<uint32_t>(conns.size());
  std::vector<SessionPhase> phases(k);
  for (uint32_t i = 0; i < k; ++i) {
    SessionPhase& p = phases[i];
    p.base = conns[i]->next_clordid;
    p.slots.resize(orders / k + (i < orders % k ? 1 : 0));
    conns[i]->next_clordid += p.slots.size();
  }
  auto due = [&](uint64_t j) {
    return plan.start +
           static_cast<int64_t>(static_cast<double>(j) * plan.interval_ns);
  };
  if (plan.paced) {
    for (uint64_t j = 0; j < orders; ++j)
      phases[j % k].slots[j / k].due = due(j);
  }
  PhaseOutcome out;
  uint64_t next_due = 0;  // paced: next order of the global schedule
  int64_t last_progress = NowNanos();
  std::vector<pollfd> fds(k);
  auto answered = [&](SessionPhase& p, std::size_t slot, int64_t t) {
    ++out.answered;
    out.last_answer = t;
    if (p.outstanding > 0) --p.outstanding;
    on_answer(p, slot, t);
  };
  while (out.answered < orders) {
    int64_t now = NowNanos();
    // Send what is due (paced) or what the window allows (unpaced).
    if (plan.paced) {
      while (next_due < orders && due(next_due) <= now) {
        const auto i = static_cast<uint32_t>(next_due % k);
        SessionPhase& p = phases[i];
        Slot& s = p.slots[p.next];
        s.seq = conns[i]->AppendOrder(p.base + p.next, clock.Now());
        s.sent = now;
        ++p.next;
        ++p.outstanding;
        ++next_due;
        if (out.first_send == 0) out.first_send = now;
      }
    } else {
      for (uint32_t i = 0; i < k; ++i) {
        SessionPhase& p = phases[i];
        while (p.next < p.slots.size() && p.outstanding < plan.window) {
          Slot& s = p.slots[p.next];
          s.seq = conns[i]->AppendOrder(p.base + p.next, clock.Now());
          s.sent = now;
          ++p.next;
          ++p.outstanding;
          if (out.first_send == 0) out.first_send = now;
        }
      }
    }
    for (uint32_t i = 0; i < k; ++i) {
      FixConnection& c = *conns[i];
      if (now - c.last_send_ns > (kHeartbeatSeconds - 5) * kNanosPerSecond &&
          !c.pending_output()) {
        c.Append("0", {}, clock.Now());
      }
      if (!c.Flush(now)) {
        out.error = c.sender + ": " + c.error;
        return out;
      }
    }
    // Wait for answers, or until the next order is due.
    int64_t wait = 100'000'000;
    if (plan.paced && next_due < orders) {
      wait = std::max<int64_t>(0, due(next_due) - NowNanos());
    }
    for (uint32_t i = 0; i < k; ++i) {
      fds[i] = pollfd{conns[i]->fd,
                      static_cast<short>(
                          POLLIN | (conns[i]->pending_output() ? POLLOUT : 0)),
                      0};
    }
    const timespec ts{static_cast<time_t>(wait / kNanosPerSecond),
                      static_cast<long>(wait % kNanosPerSecond)};
    const int ready = ppoll(fds.data(), k, &ts, nullptr);
    now = NowNanos();
    if (ready > 0) {
      const uint64_t before = out.answered;
      for (uint32_t i = 0; i < k; ++i) {
        if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) == 0) continue;
        FixConnection& c = *conns[i];
        const bool ok = c.Read();
        const int64_t t = NowNanos();
        std::string_view m;
        while (c.Next(&m)) {
          Dispatch(
              c, phases[i], m, clock,
              [&](SessionPhase& p, std::size_t slot) { answered(p, slot, t); });
        }
        if (!ok || !c.error.empty()) {
          out.error = c.sender + ": " + c.error;
          return out;
        }
      }
      if (out.answered != before) last_progress = now;
    }
    const bool all_sent = plan.paced ? next_due == orders : [&] {
      for (const SessionPhase& p : phases) {
        if (p.next < p.slots.size()) return false;
      }
      return true;
    }();
    const int64_t stall_from =
        plan.paced && !all_sent
            ? now
            : std::max(last_progress, plan.paced ? due(orders) : 0);
    if (now - stall_from > kStallNanos) {
      out.error = std::to_string(orders - out.answered) +
                  " orders unanswered 10 s after the last answer";
      return out;
    }
  }
  return out;
}

// ---------------------------------------------------------------- targets

// Where a target listens and who logs on to it.
struct TargetSetup {
  uint16_t port = 0;
  const BenchTlsContext* tls = nullptr;  // set: the sessions speak TLS
  std::string target_comp_id;
  std::vector<SessionSpec> sessions;
};

// The client thread's work against one target: logon, warm-up, throughput,
// latency, logout. `sample` reads the target's journal counters (may be
// null).
void DriveTarget(const FixBenchOptions& o, const TargetSetup& setup,
                 const std::string& label,
                 const std::function<std::pair<uint64_t, uint64_t>()>& journal,
                 FixTargetResult* r) {
  NameThread("bench-fix");
  // ppoll() wake-ups within 1 us of the due time, not the default 50.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  FixClock clock;
  std::vector<std::unique_ptr<FixConnection>> conns;
  for (std::size_t i = 0; i < setup.sessions.size(); ++i) {
    auto c = std::make_unique<FixConnection>();
    c->index = static_cast<uint32_t>(i);
    c->sender = setup.sessions[i].sender;
    c->target = setup.target_comp_id;
    c->username = setup.sessions[i].username;
    c->password = setup.sessions[i].password;
    if (!r->sessions.empty()) r->sessions += ", ";
    r->sessions += c->sender;
    const int64_t t0 = NowNanos();
    const Status st =
        ConnectAndLogon(setup.port, setup.tls, &r->handshake, clock, *c);
    r->logon_ms_max =
        std::max(r->logon_ms_max, static_cast<double>(NowNanos() - t0) * 1e-6);
    if (!st.ok()) {
      r->problems.push_back(label + ": " + st.ToString());
      continue;
    }
    ++r->logons;
    conns.push_back(std::move(c));
  }
  r->ran = true;
  if (conns.size() != setup.sessions.size()) {
    for (auto& c : conns) Logout(clock, *c);
    return;
  }
  char logon_ms[32];
  std::snprintf(logon_ms, sizeof logon_ms, "%.1f ms", r->logon_ms_max);
  Progress(o, label + ": " + std::to_string(conns.size()) +
                  " sessions logged on (slowest Logon " + logon_ms +
                  "), port " + std::to_string(setup.port));
  const auto k = static_cast<uint32_t>(conns.size());
  bool ok = true;
  auto fail = [&](const std::string& what, const PhaseOutcome& p) {
    if (p.error.empty()) return;
    r->problems.push_back(label + ": " + what + ": " + p.error);
    ok = false;
  };

  // Warm-up and throughput.
  PhasePlan tplan;
  tplan.window = std::max<uint32_t>(1, o.window);
  if (o.warmup_orders > 0) {
    fail("warm-up",
         RunPhase(conns, clock, tplan, std::max<uint64_t>(k, o.warmup_orders),
                  [](SessionPhase&, std::size_t, int64_t) {}));
  }
  if (ok) {
    const auto j0 = journal ? journal() : std::pair<uint64_t, uint64_t>{};
    const CpuSample a = SampleCpu();
    const PhaseOutcome p =
        RunPhase(conns, clock, tplan, std::max<uint64_t>(k, o.orders),
                 [](SessionPhase&, std::size_t, int64_t) {});
    const CpuSample b = SampleCpu();
    const auto j1 = journal ? journal() : std::pair<uint64_t, uint64_t>{};
    fail("throughput phase", p);
    r->journal_writes = j1.first - j0.first;
    r->journal_commands = j1.second - j0.second;
    FixPhase& f = r->throughput;
    f.orders = p.answered;
    f.seconds = static_cast<double>(p.last_answer - p.first_send) * 1e-9;
    f.orders_per_s =
        f.seconds > 0 ? static_cast<double>(f.orders) / f.seconds : 0;
    f.cpu = DiffCpu(a, b, f.seconds);
    Progress(o, label + ": throughput " +
                    std::to_string(static_cast<uint64_t>(f.orders_per_s)) +
                    " orders/s");
  }

  // Latency.
  if (ok) {
    PhasePlan lplan;
    lplan.paced = true;
    lplan.start = NowNanos() + 20'000'000;
    lplan.interval_ns = 1e9 / static_cast<double>(o.offered_rate);
    lplan.record_from =
        lplan.start + static_cast<int64_t>(o.warmup_seconds * 1e9);
    const auto total = static_cast<uint64_t>(std::ceil(
        (o.warmup_seconds + o.seconds) * static_cast<double>(o.offered_rate)));
    const int64_t end =
        lplan.start +
        static_cast<int64_t>(static_cast<double>(total) * lplan.interval_ns);
    LatencyHistogram* h = &r->latency;
    LatencyHistogram* hs = &r->latency_from_send;
    // CPU over the measured schedule, sampled off the client thread so the
    // /proc reads delay no order.
    CpuSample a;
    CpuSample b;
    std::thread sampler([&] {
      NameThread("bench-fix-cpu");
      SleepUntilNanos(lplan.record_from);
      a = SampleCpu();
      SleepUntilNanos(end);
      b = SampleCpu();
    });
    const PhaseOutcome p = RunPhase(
        conns, clock, lplan, std::max<uint64_t>(k, total),
        [&](SessionPhase& sp, std::size_t slot, int64_t t) {
          const Slot& s = sp.slots[slot];
          if (s.due < lplan.record_from) return;
          h->Record(static_cast<uint64_t>(std::max<int64_t>(0, t - s.due)));
          hs->Record(static_cast<uint64_t>(std::max<int64_t>(0, t - s.sent)));
        });
    sampler.join();
    fail("latency phase", p);
    FixPhase& f = r->latency_phase;
    f.orders = h->count();
    f.seconds = static_cast<double>(std::max<int64_t>(
                    1, std::max(end, p.last_answer) - lplan.record_from)) *
                1e-9;
    f.orders_per_s = static_cast<double>(f.orders) / f.seconds;
    f.cpu = DiffCpu(a, b, static_cast<double>(end - lplan.record_from) * 1e-9);
    Progress(o, label + ": latency p99 " +
                    std::to_string(h->Percentile(0.99) / 1000) + " us");
  }

  for (auto& c : conns) {
    Logout(clock, *c);
    r->orders_sent += c->sent;
    r->acks += c->acks;
    r->rejects += c->rejects;
    r->session_rejects += c->session_rejects;
    r->business_rejects += c->business_rejects;
    r->extra_reports += c->extra_reports;
    r->test_requests += c->test_requests;
    if (r->first_reject.empty()) r->first_reject = c->first_reject;
    if (!c->error.empty() && ok) {
      r->problems.push_back(label + ": " + c->sender + ": " + c->error);
    }
  }
  if (r->rejects != 0) {
    r->problems.push_back(label + ": " + std::to_string(r->rejects) +
                          " orders rejected, first: " + r->first_reject);
  }
  if (r->session_rejects + r->business_rejects != 0) {
    r->problems.push_back(label + ": " + std::to_string(r->session_rejects) +
                          " session rejects, " +
                          std::to_string(r->business_rejects) +
                          " business rejects, first: " + r->first_reject);
  }
  if (r->extra_reports != 0) {
    r->problems.push_back(label + ": " + std::to_string(r->extra_reports) +
                          " reports beyond the first per order");
  }
}

void RunOnClientThread(const std::function<void()>& f) {
  std::thread t(f);
  t.join();
}

// The demo config, with what the benchmark needs: no throttle, engine tables
// sized for the run's orders.
Result<ServerConfig> MakeConfig(const FixBenchOptions& o, uint64_t orders) {
  auto made = BenchServerConfig(kSymbol);
  if (!made.has_value()) return made.error();
  ServerConfig c = std::move(made).value();
  exchange::EngineLimits& l = c.engine.limits;
  if (o.smoke) {
    // As the server tests do: the shipped tables cost a few hundred ms of
    // page zeroing, more than a smoke run's orders need.
    l.max_orders = 1u << 16;
    l.max_client_order_ids = 1u << 16;
  }
  // Every order rests and carries a client order id.
  const double needed = 1.25 * static_cast<double>(orders);
  while (static_cast<double>(l.max_orders) < needed &&
         l.max_orders < (1u << 28)) {
    l.max_orders *= 2;
  }
  while (static_cast<double>(l.max_client_order_ids) < needed &&
         l.max_client_order_ids < (1u << 28)) {
    l.max_client_order_ids *= 2;
  }
  c.RebuildIndex();
  CFX_RETURN_IF_ERROR(exchange::ValidateEngineConfig(c.engine));
  return c;
}

// The demo traders and providers with a FIX SenderCompID, in config order;
// their demo password is "demo-<user>" (DESIGN.md §6).
std::vector<SessionSpec> DemoSessions(const ServerConfig& c, uint32_t n) {
  std::vector<SessionSpec> out;
  for (const gateway::UserConfig& u : c.users) {
    if (out.size() == n) break;
    if (u.fix_sender_comp_id.empty() || u.account.value == 0 ||
        u.password_hash.empty() ||
        (u.role != gateway::Role::kTrader &&
         u.role != gateway::Role::kProvider)) {
      continue;
    }
    out.push_back({u.fix_sender_comp_id, u.name, "demo-" + u.name});
  }
  return out;
}

uint64_t TotalOrders(const FixBenchOptions& o) {
  return o.warmup_orders + o.orders +
         static_cast<uint64_t>(std::ceil((o.warmup_seconds + o.seconds) *
                                         static_cast<double>(o.offered_rate))) +
         2 * o.sessions;
}

// The exchange's FIX gateway; with `tls`, its TLS listener (test
// certificates made under `dir`).
void RunGatewayTarget(const FixBenchOptions& o, const std::string& dir,
                      bool tls, FixTargetResult* r) {
  auto made = MakeConfig(o, TotalOrders(o));
  if (!made.has_value()) {
    r->problems.push_back("gateway: config: " + made.error().ToString());
    return;
  }
  ServerConfig config = std::move(made).value();
  std::unique_ptr<BenchTlsContext> context;
  if (tls) {
    std::filesystem::create_directories(dir + "/tls");
    auto ca = EnableBenchTls(dir + "/tls", config);
    if (ca.has_value()) {
      auto made_context = BenchTlsContext::Create(ca.value());
      if (made_context.has_value()) {
        context = std::move(made_context).value();
      } else {
        r->problems.push_back("gateway-tls: " +
                              made_context.error().ToString());
      }
    } else {
      r->problems.push_back("gateway-tls: " + ca.error().ToString());
    }
    if (context == nullptr) return;
  }
  TargetSetup setup;
  setup.target_comp_id = "CFX";
  setup.sessions = DemoSessions(config, o.sessions);
  if (setup.sessions.size() < o.sessions) {
    r->problems.push_back("gateway: the demo config has only " +
                          std::to_string(setup.sessions.size()) +
                          " FIX traders and providers");
    return;
  }
  gateway::ServerOptions so;
  so.protobuf_port = 0;
  so.http_port = 0;
  so.fix_port = 0;
  so.simulated_clock = true;
  if (tls) {
    so.fix_tls_port = 0;
    so.protobuf_tls_port = 0;
    so.https_port = 0;
  }
  // A fresh data directory for each gateway target of the run.
  so.data_dir = dir + (tls ? "/data-tls" : "/data");
  auto started = ExchangeServer::Start(config, so);
  if (!started.has_value()) {
    r->problems.push_back("gateway: server start: " +
                          started.error().ToString());
    return;
  }
  ExchangeServer& server = *started.value();
  setup.port = tls ? server.fix_tls_port() : server.fix_port();
  setup.tls = context.get();
  if (setup.port == 0) {
    r->problems.push_back(
        "gateway: the exchange listens on no FIX port (fix_port() is 0)");
  } else {
    RunOnClientThread([&] {
      DriveTarget(
          o, setup, "gateway",
          [&server] {
            return std::pair<uint64_t, uint64_t>{server.journal_writes(),
                                                 server.commands_submitted()};
          },
          r);
    });
  }
  const Status st = server.Stop();
  if (!st.ok()) r->problems.push_back("gateway: server stop: " + st.ToString());
}

void RunBareTarget(const FixBenchOptions& o, const std::string& dir,
                   const std::string& dictionary, FixTargetResult* r) {
  BareAcceptorOptions bo;
  bo.sender_comp_id = "BARE";
  bo.store_dir = dir + "/bare";
  bo.dictionary_xml = dictionary;
  TargetSetup setup;
  setup.target_comp_id = bo.sender_comp_id;
  for (uint32_t i = 0; i < o.sessions; ++i) {
    const std::string id = "BENCH" + std::to_string(i + 1);
    bo.clients.push_back(id);
    setup.sessions.push_back({id, "bench-" + std::to_string(i + 1),
                              "bench-" + std::to_string(i + 1)});
  }
  std::string error;
  std::unique_ptr<BareAcceptor> acceptor = BareAcceptor::Start(bo, &error);
  if (acceptor == nullptr) {
    r->problems.push_back("bare: " + error);
    return;
  }
  setup.port = acceptor->port();
  RunOnClientThread([&] { DriveTarget(o, setup, "bare", nullptr, r); });
  acceptor->Stop();
}

// The exchange's data dictionary (gateway/fix/spec/CFX-FIX44.xml, built
// in), so the bare acceptor validates what the exchange validates.
std::string Dictionary() { return gateway::fix::EmbeddedDictionaryXml(); }

}  // namespace

Result<FixBenchResult> RunFixBench(const FixBenchOptions& o, uint32_t run) {
  FixBenchResult r;
  r.load_average = LoadAverage();
  r.bare_first = run % 2 == 0;
  const std::string dictionary = Dictionary();
  r.dictionary = !dictionary.empty();
  auto scratch = ScratchDir::Create(o.dir, "cfx-bench-fix");
  if (!scratch.has_value()) return scratch.error();
  const std::string& dir = scratch.value()->path();
  const bool gateway = o.target != "bare";
  const bool bare = o.target != "gateway";
  // --tls: the gateway over TLS too, before the plaintext gateway in the
  // runs where the bare acceptor goes last, so neither transport is always
  // measured first.
  const bool tls_first = o.tls && !r.bare_first;
  if (bare && r.bare_first) RunBareTarget(o, dir, dictionary, &r.bare);
  if (gateway && tls_first) {
    RunGatewayTarget(o, dir, /*tls=*/true, &r.gateway_tls);
  }
  if (gateway) RunGatewayTarget(o, dir, /*tls=*/false, &r.gateway);
  if (gateway && o.tls && !tls_first) {
    RunGatewayTarget(o, dir, /*tls=*/true, &r.gateway_tls);
  }
  if (bare && !r.bare_first) RunBareTarget(o, dir, dictionary, &r.bare);
  return r;
}

}  // namespace cfx::bench

// ---------------------------------------------------------------- report

namespace cfx::bench {
namespace {

// The target: the gateway's throughput over the bare acceptor's.
constexpr double kTargetRatio = 0.7;

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

using Pick = const FixTargetResult& (*)(const FixBenchResult&);
const FixTargetResult& GatewayOf(const FixBenchResult& r) { return r.gateway; }
const FixTargetResult& BareOf(const FixBenchResult& r) { return r.bare; }
const FixTargetResult& GatewayTlsOf(const FixBenchResult& r) {
  return r.gateway_tls;
}

std::vector<double> TlsRatios(const std::vector<FixBenchResult>& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.tls_ratio());
  return v;
}

// The TLS handshakes of every run's gateway-tls sessions.
LatencyHistogram Handshakes(const std::vector<FixBenchResult>& runs) {
  LatencyHistogram h;
  for (const auto& r : runs) h.Merge(r.gateway_tls.handshake);
  return h;
}

double Throughput(const FixTargetResult& t) {
  return t.throughput.orders_per_s;
}
double P99(const FixTargetResult& t) {
  return static_cast<double>(t.latency.Percentile(0.99));
}

// The run whose `key` of target `pick` is the median (upper middle).
std::size_t MedianRun(const std::vector<FixBenchResult>& runs, Pick pick,
                      double (*key)(const FixTargetResult&)) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key(pick(runs[a])) < key(pick(runs[b]));
  });
  return order.empty() ? 0 : order[order.size() / 2];
}

std::vector<double> Values(const std::vector<FixBenchResult>& runs, Pick pick,
                           double (*key)(const FixTargetResult&)) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(key(pick(r)));
  return v;
}

std::vector<double> Ratios(const std::vector<FixBenchResult>& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.ratio());
  return v;
}

// The values of `v` times `scale`, formatted, separated by `separator`.
std::string List(const std::vector<double>& v, double scale, const char* fmt,
                 const char* separator = " ") {
  std::string out;
  char buf[32];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, fmt, x * scale);
    if (!out.empty()) out += separator;
    out += buf;
  }
  return out;
}

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

// "server 21.3 (cfx-gateway 14.2, cfx-seq 3.1, ...), client 2.9" in us of
// CPU per order, and the machine's load.
std::string CpuLine(const FixPhase& p) {
  const PhaseCpu& c = p.cpu;
  if (p.orders == 0 || c.wall_seconds <= 0) return "(not measured)";
  const double per = 1e6 / static_cast<double>(p.orders);
  double server = 0;
  double client = 0;
  std::string threads;
  char buf[96];
  for (const ThreadCpu& t : c.threads) {
    if (IsClientThread(t.name)) {
      client += t.seconds;
      continue;
    }
    server += t.seconds;
    if (t.seconds * per >= 0.05) {
      std::snprintf(buf, sizeof buf, "%s%s %.1f", threads.empty() ? "" : ", ",
                    t.name.c_str(), t.seconds * per);
      threads += buf;
    }
  }
  const double others =
      std::max(0.0, c.machine_busy_seconds - c.process_seconds());
  std::snprintf(buf, sizeof buf, "server %.1f (", server * per);
  std::string out = buf + threads;
  std::snprintf(buf, sizeof buf,
                "), client %.1f; other processes %.2f of %u CPUs", client * per,
                others / c.wall_seconds, c.cpus);
  return out + buf;
}

// Orders/s the target could sustain with the machine to itself, from the CPU
// each order cost in the throughput phase (as `cfx-bench gateway` does; see
// CpuBoundRate()).
double CpuBound(const FixTargetResult& t) {
  return CpuBoundRate(t.throughput.cpu, t.throughput.orders);
}

bool Verified(const std::vector<FixBenchResult>& runs) {
  for (const auto& r : runs) {
    if (!r.gateway.problems.empty() || !r.bare.problems.empty() ||
        !r.gateway_tls.problems.empty()) {
      return false;
    }
  }
  return true;
}

void PrintTargetHuman(std::FILE* out, const char* name,
                      const std::vector<FixBenchResult>& runs, Pick pick) {
  const FixTargetResult& t = pick(runs[MedianRun(runs, pick, Throughput)]);
  const FixTargetResult& l = pick(runs[MedianRun(runs, pick, P99)]);
  if (!t.ran) {
    std::fprintf(out, "  %-8s not run\n", name);
    return;
  }
  const LatencyHistogram& h = l.latency;
  const LatencyHistogram& hs = l.latency_from_send;
  std::fprintf(out,
               "  %-8s throughput  %.1f k orders/s (median; runs: %s k/s)\n"
               "           cpu-bound   about %.1f k orders/s with the %u CPUs "
               "to itself (median run)\n"
               "           order-to-ack p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms"
               "  max %.3f ms\n"
               "                        (median-p99 run; p99 of the runs: %s "
               "ms)\n"
               "           from the actual send: p50 %.3f ms  p99 %.3f ms\n"
               "           cpu us/order, throughput: %s\n"
               "           cpu us/order, latency:    %s\n",
               name, Throughput(t) / 1e3,
               List(Values(runs, pick, Throughput), 1e-3, "%.1f").c_str(),
               CpuBound(t) / 1e3, t.throughput.cpu.cpus, Ms(h.Percentile(0.50)),
               Ms(h.Percentile(0.99)), Ms(h.Percentile(0.999)), Ms(h.max()),
               List(Values(runs, pick, P99), 1e-6, "%.3f").c_str(),
               Ms(hs.Percentile(0.50)), Ms(hs.Percentile(0.99)),
               CpuLine(t.throughput).c_str(), CpuLine(l.latency_phase).c_str());
  std::fprintf(
      out,
      "           orders: %s sent, %s first reports, %llu rejected, %llu "
      "session rejects,\n"
      "                   %llu business rejects, %llu extra reports; slowest "
      "Logon %.1f ms (median run)\n",
      WithCommas(t.orders_sent).c_str(), WithCommas(t.acks).c_str(),
      static_cast<unsigned long long>(t.rejects),
      static_cast<unsigned long long>(t.session_rejects),
      static_cast<unsigned long long>(t.business_rejects),
      static_cast<unsigned long long>(t.extra_reports), t.logon_ms_max);
}

void PrintTargetJson(std::FILE* out, const std::vector<FixBenchResult>& runs,
                     Pick pick) {
  const FixTargetResult& t = pick(runs[MedianRun(runs, pick, Throughput)]);
  const FixTargetResult& l = pick(runs[MedianRun(runs, pick, P99)]);
  std::fprintf(
      out,
      "{\"ran\":%s,\"logons\":%u,\"logon_ms_max\":%.1f,"
      "\"throughput_per_s\":%.0f,\"throughput_runs_per_s\":[%s],"
      "\"throughput_seconds\":%.3f,\"throughput_cpu_bound_per_s\":%.0f,",
      t.ran ? "true" : "false", t.logons, t.logon_ms_max, Throughput(t),
      List(Values(runs, pick, Throughput), 1, "%.0f", ",").c_str(),
      t.throughput.seconds, CpuBound(t));
  if (t.journal_writes != 0) {
    std::fprintf(out, "\"journal_writes\":%llu,\"commands_per_write\":%.1f,",
                 static_cast<unsigned long long>(t.journal_writes),
                 static_cast<double>(t.journal_commands) /
                     static_cast<double>(t.journal_writes));
  }
  std::fprintf(out,
               "\"latency_kind\":\"scheduled_send_to_ack\","
               "\"achieved_per_s\":%.0f,",
               l.latency_phase.orders_per_s);
  PrintLatencyJson(out, l.latency, l.latency_from_send);
  std::fprintf(out,
               ",\"latency_p99_runs_ns\":[%s],"
               "\"orders\":{\"sent\":%llu,\"acked\":%llu,\"rejected\":%llu,"
               "\"session_rejects\":%llu,\"business_rejects\":%llu,"
               "\"extra_reports\":%llu},\"cpu\":{\"throughput\":",
               List(Values(runs, pick, P99), 1, "%.0f", ",").c_str(),
               static_cast<unsigned long long>(t.orders_sent),
               static_cast<unsigned long long>(t.acks),
               static_cast<unsigned long long>(t.rejects),
               static_cast<unsigned long long>(t.session_rejects),
               static_cast<unsigned long long>(t.business_rejects),
               static_cast<unsigned long long>(t.extra_reports));
  PrintCpuJson(out, t.throughput.cpu, t.throughput.orders);
  std::fprintf(out, ",\"latency\":");
  PrintCpuJson(out, l.latency_phase.cpu, l.latency_phase.orders);
  std::fprintf(out, "}}");
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

void PrintFixHuman(std::FILE* out, const FixBenchOptions& o,
                   const std::vector<FixBenchResult>& runs) {
  if (runs.empty()) return;
  const FixBenchResult& f = runs.front();
  std::fprintf(
      out,
      "fix: %u FIX 4.4 sessions over loopback each, the same load against two "
      "targets, one after\n"
      "     the other in each run (%zu run%s; load average at start: %s):\n"
      "     gateway  the FIX gateway of an in-process exchange: synced "
      "RocksDB journal,\n"
      "              simulated clock; sessions %s\n"
      "     bare     a QuickFIX 1.15.1 SocketAcceptor that answers each "
      "NewOrderSingle with one\n"
      "              ExecutionReport: FileStore, %s; sessions %s\n",
      o.sessions, runs.size(), runs.size() == 1 ? "" : "s",
      f.load_average.c_str(),
      f.gateway.sessions.empty() ? "-" : f.gateway.sessions.c_str(),
      f.dictionary ? "the exchange's CFX-FIX44.xml dictionary"
                   : "no data dictionary",
      f.bare.sessions.empty() ? "-" : f.bare.sessions.c_str());
  std::fprintf(
      out,
      "  throughput   %s orders after %s unmeasured, at most %u in flight per "
      "session;\n"
      "               orders/s from the first send to the last ack\n"
      "  latency      %s orders/s offered for %.1f s after %.1f s warm-up, "
      "open loop; from the\n"
      "               SCHEDULED send time to the first ExecutionReport "
      "(no coordinated omission)\n",
      WithCommas(o.orders).c_str(), WithCommas(o.warmup_orders).c_str(),
      o.window, WithCommas(o.offered_rate).c_str(), o.seconds,
      o.warmup_seconds);
  PrintTargetHuman(out, "gateway", runs, GatewayOf);
  PrintTargetHuman(out, "bare", runs, BareOf);
  const std::vector<double> ratios = Ratios(runs);
  const double ratio = MedianOf(ratios);
  if (f.gateway.ran && f.bare.ran) {
    std::fprintf(out,
                 "  ratio        gateway/bare throughput %.2f (median of the "
                 "runs' same-run ratios;\n"
                 "               runs: %s); target >= %.2f: %s\n",
                 ratio, List(ratios, 1, "%.2f").c_str(), kTargetRatio,
                 ratio >= kTargetRatio ? "met" : "NOT met");
    const double g =
        CpuBound(runs[MedianRun(runs, GatewayOf, Throughput)].gateway);
    const double b = CpuBound(runs[MedianRun(runs, BareOf, Throughput)].bare);
    std::fprintf(out,
                 "               cpu-bound estimates' ratio %.2f (less "
                 "sensitive to the machine's other load)\n",
                 b > 0 ? g / b : 0.0);
  } else {
    std::fprintf(out, "  ratio        n/a: one target only\n");
  }
  bool ok = true;
  if (o.tls) {
    PrintTargetHuman(out, "gw-tls", runs, GatewayTlsOf);
    const std::vector<double> tls_ratios = TlsRatios(runs);
    const double tls_ratio = MedianOf(tls_ratios);
    const LatencyHistogram hs = Handshakes(runs);
    std::fprintf(out,
                 "  TLS          gw-tls/gateway throughput %.2f (median of the "
                 "runs' same-run ratios;\n"
                 "               runs: %s); issue #19 >= 0.80: %s\n"
                 "               handshake p50 %.3f ms  max %.3f ms over %llu "
                 "sessions (connect to handshake done)\n",
                 tls_ratio, List(tls_ratios, 1, "%.2f").c_str(),
                 tls_ratio >= 0.8 ? "met" : "NOT met", Ms(hs.Percentile(0.50)),
                 Ms(hs.max()), static_cast<unsigned long long>(hs.count()));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto* t :
         {&runs[i].gateway, &runs[i].bare, &runs[i].gateway_tls}) {
      for (const std::string& p : t->problems) {
        ok = false;
        std::fprintf(out, "  PROBLEM      run %zu: %s\n", i + 1, p.c_str());
      }
    }
  }
  if (ok) {
    std::fprintf(out,
                 "  verified     every order answered by exactly one "
                 "ExecutionReport, none refused\n");
  }
}

void PrintFixJson(std::FILE* out, const FixBenchOptions& o,
                  const std::vector<FixBenchResult>& runs) {
  if (runs.empty()) return;
  const std::vector<double> ratios = Ratios(runs);
  const double ratio = MedianOf(ratios);
  std::fprintf(out,
               "{\"workload\":\"fix\",\"sessions\":%u,\"runs\":%zu,"
               "\"orders\":%llu,\"warmup_orders\":%llu,\"window\":%u,"
               "\"offered_per_s\":%llu,\"seconds\":%.3f,"
               "\"warmup_seconds\":%.3f,\"load_average\":\"%s\","
               "\"dictionary\":%s,\"gateway\":",
               o.sessions, runs.size(),
               static_cast<unsigned long long>(o.orders),
               static_cast<unsigned long long>(o.warmup_orders), o.window,
               static_cast<unsigned long long>(o.offered_rate), o.seconds,
               o.warmup_seconds, runs.front().load_average.c_str(),
               runs.front().dictionary ? "true" : "false");
  PrintTargetJson(out, runs, GatewayOf);
  std::fprintf(out, ",\"bare\":");
  PrintTargetJson(out, runs, BareOf);
  const double g =
      CpuBound(runs[MedianRun(runs, GatewayOf, Throughput)].gateway);
  const double b = CpuBound(runs[MedianRun(runs, BareOf, Throughput)].bare);
  if (runs.front().gateway.ran && runs.front().bare.ran) {
    std::fprintf(out,
                 ",\"ratio\":%.3f,\"ratio_runs\":[%s],\"target_ratio\":%.2f,"
                 "\"target_met\":%s,\"cpu_bound_ratio\":%.3f",
                 ratio, List(ratios, 1, "%.3f", ",").c_str(), kTargetRatio,
                 ratio >= kTargetRatio ? "true" : "false", b > 0 ? g / b : 0.0);
  } else {
    std::fprintf(out,
                 ",\"ratio\":null,\"ratio_runs\":[],\"target_ratio\":%.2f,"
                 "\"target_met\":null",
                 kTargetRatio);
  }
  if (o.tls) {
    const std::vector<double> tls_ratios = TlsRatios(runs);
    const LatencyHistogram hs = Handshakes(runs);
    std::fprintf(out, ",\"gateway_tls\":");
    PrintTargetJson(out, runs, GatewayTlsOf);
    std::fprintf(out,
                 ",\"tls_ratio\":%.3f,\"tls_ratio_runs\":[%s],"
                 "\"handshake_ns\":{\"count\":%llu,\"p50\":%llu,\"max\":%llu}",
                 MedianOf(tls_ratios), List(tls_ratios, 1, "%.3f", ",").c_str(),
                 static_cast<unsigned long long>(hs.count()),
                 static_cast<unsigned long long>(hs.Percentile(0.50)),
                 static_cast<unsigned long long>(hs.max()));
  }
  std::fprintf(out, ",\"problems\":[");
  bool first = true;
  for (const auto& r : runs) {
    for (const auto* t : {&r.gateway, &r.bare, &r.gateway_tls}) {
      for (const std::string& p : t->problems) {
        std::fprintf(out, "%s\"%s\"", first ? "" : ",", JsonEscape(p).c_str());
        first = false;
      }
    }
  }
  std::fprintf(out, "],\"verified\":%s}\n", Verified(runs) ? "true" : "false");
}

}  // namespace cfx::bench
