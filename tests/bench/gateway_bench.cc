#include "tests/bench/gateway_bench.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "gateway/config/server_config.h"
#include "gateway/pb/frame.h"
#include "gateway/pb/logon_signature.h"
#include "gateway/server/exchange_server.h"
#include "tests/bench/bench_tls.h"
#include "tests/bench/loopback_bench.h"
#include "tests/bench/scratch_dir.h"

namespace cfx::bench {

namespace {

namespace w = cfx::wire::v1;
using gateway::ExchangeServer;
using gateway::ServerConfig;
using gateway::pb::FrameReader;

constexpr int64_t kNanosPerSecond = 1'000'000'000;
// The workload: DAY limit orders for 1 lot of the front B200-STD future at
// its $5.80 reference, alternately buy and sell on every connection.
constexpr const char* kSymbol = "XB2SZ6";
constexpr int64_t kPrice = 58'000;
constexpr int64_t kQuantity = 1;
// How long a phase may take beyond its schedule to collect the last acks.
constexpr int64_t kDrainNanos = 10 * kNanosPerSecond;

void Progress(const GatewayBenchOptions& o, const std::string& line) {
  if (!o.quiet) std::fprintf(stderr, "cfx-bench gateway: %s\n", line.c_str());
}

// ---------------------------------------------------------------- wire

uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Appends one frame holding Envelope{new_order: {client_order_id: id,
// symbol, side, LIMIT, DAY, price, quantity}}: byte for byte what the
// protobuf serializer writes (fields in number order; CheckOrderEncoding()
// proves it at startup), at a fraction of its cost, so the client threads
// leave the CPU to the server.
void AppendNewOrderFrame(uint64_t id, bool buy, std::string* out) {
  static constexpr std::size_t kSymbolLength = 6;
  uint8_t body[64];
  uint8_t* p = body;
  *p++ = 0x08;  // 1: client_order_id, varint
  p = PutVarint(p, id);
  *p++ = 0x12;  // 2: symbol, length-delimited
  *p++ = kSymbolLength;
  std::memcpy(p, kSymbol, kSymbolLength);
  p += kSymbolLength;
  *p++ = 0x18;  // 3: side
  *p++ = buy ? w::SIDE_BUY : w::SIDE_SELL;
  *p++ = 0x20;  // 4: order_type
  *p++ = w::ORDER_TYPE_LIMIT;
  *p++ = 0x28;  // 5: time_in_force
  *p++ = w::TIME_IN_FORCE_DAY;
  *p++ = 0x30;  // 6: price
  p = PutVarint(p, kPrice);
  *p++ = 0x38;  // 7: quantity
  p = PutVarint(p, kQuantity);
  const auto body_size = static_cast<std::size_t>(p - body);

  uint8_t head[16];
  uint8_t* h = head + gateway::pb::kFrameHeaderSize;
  *h++ = 0x52;  // Envelope 10: new_order, length-delimited
  h = PutVarint(h, body_size);
  const auto total = static_cast<std::size_t>(h - head) + body_size;
  head[0] = static_cast<uint8_t>(total >> 24);
  head[1] = static_cast<uint8_t>(total >> 16);
  head[2] = static_cast<uint8_t>(total >> 8);
  head[3] = static_cast<uint8_t>(total);
  head[4] = static_cast<uint8_t>(gateway::pb::kFrameMagic >> 8);
  head[5] = static_cast<uint8_t>(gateway::pb::kFrameMagic & 0xff);
  out->append(reinterpret_cast<const char*>(head),
              static_cast<std::size_t>(h - head));
  out->append(reinterpret_cast<const char*>(body), body_size);
}

Status CheckOrderEncoding() {
  for (const uint64_t id : {uint64_t{1}, uint64_t{300}, uint64_t{1} << 40}) {
    for (const bool buy : {true, false}) {
      w::Envelope e;
      w::NewOrder* o = e.mutable_new_order();
      o->set_client_order_id(id);
      o->set_symbol(kSymbol);
      o->set_side(buy ? w::SIDE_BUY : w::SIDE_SELL);
      o->set_order_type(w::ORDER_TYPE_LIMIT);
      o->set_time_in_force(w::TIME_IN_FORCE_DAY);
      o->set_price(kPrice);
      o->set_quantity(kQuantity);
      std::string expected;
      std::string ours;
      gateway::pb::AppendFrame(e, &expected);
      AppendNewOrderFrame(id, buy, &ours);
      if (ours != expected) {
        return InternalError(
            "the benchmark's NewOrder encoding differs from protobuf's");
      }
    }
  }
  return Status::Ok();
}

bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = *p++;
    r |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) {
      *v = r;
      return true;
    }
  }
  return false;
}

// Skips a field's value of wire type `type`. False if malformed.
bool SkipValue(const uint8_t*& p, const uint8_t* end, uint64_t type) {
  uint64_t v = 0;
  switch (type) {
    case 0:
      return ReadVarint(p, end, &v);
    case 1:
      if (end - p < 8) return false;
      p += 8;
      return true;
    case 2:
      if (!ReadVarint(p, end, &v) || v > static_cast<uint64_t>(end - p)) {
        return false;
      }
      p += v;
      return true;
    case 5:
      if (end - p < 4) return false;
      p += 4;
      return true;
    default:
      return false;
  }
}

// What the client needs from a server message.
struct Inbound {
  enum class Kind : uint8_t {
    kOther,
    kReport,
    kSessionReject
  } kind = Kind::kOther;
  uint64_t exec_type = 0;
  uint64_t client_order_id = 0;
  uint64_t leaves = 0;
  uint64_t reason = 0;
};

// Reads the fields the benchmark needs straight from the wire: the clients
// scan every report, and a full parse per message would compete with the
// server for the same two cores.
bool Decode(std::string_view payload, Inbound* in) {
  auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  *in = Inbound{};
  while (p < end) {
    uint64_t tag = 0;
    if (!ReadVarint(p, end, &tag)) return false;
    const uint64_t field = tag >> 3;
    const uint64_t type = tag & 7;
    if ((field != 20 && field != 6) || type != 2) {
      if (!SkipValue(p, end, type)) return false;
      continue;
    }
    uint64_t len = 0;
    if (!ReadVarint(p, end, &len) || len > static_cast<uint64_t>(end - p)) {
      return false;
    }
    const uint8_t* q = p;
    const uint8_t* sub_end = p + len;
    p = sub_end;
    const bool report = field == 20;
    in->kind = report ? Inbound::Kind::kReport : Inbound::Kind::kSessionReject;
    while (q < sub_end) {
      uint64_t t = 0;
      if (!ReadVarint(q, sub_end, &t)) return false;
      const uint64_t f = t >> 3;
      if ((t & 7) != 0) {
        if (!SkipValue(q, sub_end, t & 7)) return false;
        continue;
      }
      uint64_t v = 0;
      if (!ReadVarint(q, sub_end, &v)) return false;
      if (report) {
        if (f == 4) in->exec_type = v;
        if (f == 7) in->client_order_id = v;
        if (f == 14) in->leaves = v;
        if (f == 20) in->reason = v;
      } else {
        if (f == 1) in->reason = v;
        if (f == 5) in->client_order_id = v;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------- server

std::string BenchUser(uint32_t i) { return "bench-" + std::to_string(i + 1); }
std::string BenchSecret(uint32_t i) { return BenchHmacSecret(BenchUser(i)); }

// The demo config plus one trader, account and API key per connection.
// Bench accounts use STP cancel-oldest: an order meeting its own account's
// resting order removes that order and keeps matching, so with every
// connection alternating buy and sell at one price the book stays within a
// few orders per connection.
Result<ServerConfig> MakeConfig(const GatewayBenchOptions& o,
                                uint32_t connections) {
  auto made = BenchServerConfig(kSymbol);
  if (!made.has_value()) return made.error();
  ServerConfig c = std::move(made).value();
  c.session.max_sessions = std::max(c.session.max_sessions, connections + 16);
  // Every order carries a client order id, and the engine remembers a
  // day's worth (EngineLimits::max_client_order_ids, 4M by default: under
  // 30 s at 150k orders/s). Room for 400k orders/s in the throughput phase
  // (above what 2 cores reach) keeps long runs from ending in
  // CLIENT_ORDER_ID_LIMIT rejects; the default runs keep the default table,
  // whose first touch the matching thread pays for.
  const double phase_seconds = o.warmup_seconds + o.seconds;
  const double needed =
      phase_seconds * (400e3 + static_cast<double>(o.offered_rate));
  uint32_t& ids = c.engine.limits.max_client_order_ids;
  while (static_cast<double>(ids) < needed && ids < (1u << 28)) ids *= 2;
  c.firms.push_back(gateway::FirmInfo{"BENCH", ""});
  for (uint32_t i = 0; i < connections; ++i) {
    AddBenchTrader(c, "BENCH", "BENCH-" + std::to_string(i + 1), BenchUser(i),
                   BenchSecret(i), exchange::StpMode::kCancelOldest);
  }
  c.RebuildIndex();
  CFX_RETURN_IF_ERROR(exchange::ValidateEngineConfig(c.engine));
  return c;
}

// ---------------------------------------------------------------- client

// One logged-on connection. Owned by the run; used by one client thread at
// a time.
struct Connection {
  int fd = -1;
  BenchStream stream;  // on fd: plaintext, or TLS for --tls
  uint32_t index = 0;
  FrameReader reader;
  std::string out;
  uint64_t next_id = 1;  // client order ids: 1, 2, ... per account
  uint64_t sent = 0;
  uint64_t acks = 0;
  uint64_t rejects = 0;
  uint64_t session_rejects = 0;
  uint64_t trades = 0;
  uint64_t cancels = 0;
  int64_t open = 0;  // this account's orders on the book
  std::string error;

  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    if (fd >= 0) close(fd);
  }

  // Buy on even ids of even connections, so the connections start on both
  // sides and each alternates.
  bool BuyNext() const { return ((next_id + index) & 1) == 0; }

  bool WriteOut() {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = stream.Write(out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = std::string("write: ") + std::strerror(errno);
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    out.clear();
    return true;
  }

  // One read(); >0 bytes, 0 if nothing arrived before the socket's receive
  // timeout, -1 on error or close (error set).
  ssize_t ReadSome() {
    const ssize_t n =
        stream.Read(reader.WritableSpace(), reader.WritableSize());
    if (n > 0) {
      reader.Commit(static_cast<std::size_t>(n));
      return n;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return 0;
    }
    error = n == 0 ? "connection closed by the server"
                   : std::string("read: ") + std::strerror(errno);
    return -1;
  }

  // Handles every complete frame; calls on_answer(client_order_id) for each
  // acknowledgement (NEW, REJECTED) and each SessionReject. False on a
  // malformed frame.
  template <typename OnAnswer>
  bool Drain(OnAnswer&& on_answer) {
    std::string_view payload;
    while (reader.Next(&payload)) {
      Inbound in;
      if (!Decode(payload, &in)) {
        error = "a server frame does not decode";
        return false;
      }
      if (in.kind == Inbound::Kind::kSessionReject) {
        ++session_rejects;
        on_answer(in.client_order_id);
      } else if (in.kind == Inbound::Kind::kReport) {
        switch (in.exec_type) {
          case w::EXEC_TYPE_NEW:
            ++acks;
            ++open;
            on_answer(in.client_order_id);
            break;
          case w::EXEC_TYPE_REJECTED:
            ++acks;
            ++rejects;
            on_answer(in.client_order_id);
            break;
          case w::EXEC_TYPE_TRADE:
            ++trades;
            if (in.leaves == 0) --open;
            break;
          case w::EXEC_TYPE_CANCELED:
          case w::EXEC_TYPE_EXPIRED:
            ++cancels;
            --open;
            break;
          default:
            break;
        }
      }
    }
    if (reader.error() != gateway::pb::FrameError::kNone) {
      error = std::string(gateway::pb::FrameErrorName(reader.error()));
      return false;
    }
    return true;
  }
};

void SetTimeout(int fd, int option, int64_t nanos) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(nanos / kNanosPerSecond);
  tv.tv_usec = static_cast<suseconds_t>((nanos % kNanosPerSecond) / 1000);
  setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

// Connects to 127.0.0.1:port, with `tls` over TLS (the handshake's wall
// time into `handshakes`), and logs on as bench user `index`.
Status ConnectAndLogon(uint16_t port, const BenchTlsContext* tls,
                       LatencyHistogram* handshakes, Connection& c) {
  CFX_RETURN_IF_ERROR(ConnectLoopback(port, &c.fd));
  SetTimeout(c.fd, SO_RCVTIMEO, 5 * kNanosPerSecond);
  // A server that stops reading fails the run instead of hanging it.
  SetTimeout(c.fd, SO_SNDTIMEO, 10 * kNanosPerSecond);
  c.stream.Attach(c.fd);
  if (tls != nullptr) {
    const int64_t t0 = NowNanos();
    CFX_RETURN_IF_ERROR(c.stream.StartTls(*tls));
    handshakes->Record(static_cast<uint64_t>(NowNanos() - t0));
  }

  const std::string key = BenchUser(c.index);
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string nonce = "cfx-bench-" + std::to_string(getpid()) + "-" +
                            std::to_string(NowNanos());
  w::Envelope e;
  w::Logon* l = e.mutable_logon();
  l->set_api_key(key);
  l->set_timestamp_ns(now);
  l->set_nonce(nonce);
  l->set_signature(
      gateway::pb::LogonSignature(BenchSecret(c.index), key, now, nonce));
  // Phases never pause for long, but the client sends no heartbeats.
  l->set_heartbeat_interval_ms(60'000);
  gateway::pb::AppendFrame(e, &c.out);
  if (!c.WriteOut()) return Status(StatusCode::kUnavailable, c.error);
  std::string_view payload;
  while (!c.reader.Next(&payload)) {
    if (c.ReadSome() <= 0) {
      return Status(StatusCode::kUnavailable,
                    key + ": no answer to the Logon: " + c.error);
    }
  }
  w::Envelope answer;
  if (!answer.ParseFromArray(payload.data(),
                             static_cast<int>(payload.size())) ||
      !answer.has_logon_ack()) {
    return FailedPreconditionError(
        key + ": logon refused: " + answer.ShortDebugString());
  }
  SetTimeout(c.fd, SO_RCVTIMEO, 100'000'000);  // loops check deadlines
  return Status::Ok();
}

// Throughput phase, one connection: keep `window` orders in flight until
// `to`, then collect the outstanding acks. Acks received in [from, to) are
// counted, per whole second too.
struct ThroughputPlan {
  int64_t from = 0;
  int64_t to = 0;
  uint32_t window = 0;
};

void ThroughputLoop(Connection& c, const ThroughputPlan& plan,
                    std::vector<uint64_t>* per_second, uint64_t* counted,
                    const std::atomic<bool>* may_exit) {
  NameThread("bench-conn-" + std::to_string(c.index));
  uint64_t inflight = 0;
  bool sending = true;
  while (true) {
    const int64_t now = NowNanos();
    if (now >= plan.to) sending = false;
    if (sending && inflight < plan.window) {
      while (inflight < plan.window) {
        AppendNewOrderFrame(c.next_id, c.BuyNext(), &c.out);
        ++c.next_id;
        ++c.sent;
        ++inflight;
      }
      if (!c.WriteOut()) break;
    }
    if (!sending && inflight == 0) break;
    if (now > plan.to + kDrainNanos) {
      c.error = std::to_string(inflight) + " orders never acknowledged";
      break;
    }
    const ssize_t n = c.ReadSome();
    if (n < 0) break;
    if (n == 0) continue;
    const int64_t t = NowNanos();
    const bool in_window = t >= plan.from && t < plan.to;
    const auto second =
        static_cast<std::size_t>((t - plan.from) / kNanosPerSecond);
    if (!c.Drain([&](uint64_t) {
          if (inflight > 0) --inflight;
          if (in_window) {
            ++*counted;
            if (second < per_second->size()) ++(*per_second)[second];
          }
        })) {
      break;
    }
  }
  while (!may_exit->load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Latency phase, one connection: order i is due at start + offset +
// i * interval (an absolute schedule: a late send does not delay the next
// one). Latency runs from the due time (and, for comparison, from the
// actual send) to the ack's arrival; orders due before `from` warm up.
struct LatencyPlan {
  int64_t start = 0;
  int64_t from = 0;
  uint64_t orders = 0;  // per connection
  double interval_ns = 0;
  double offset_ns = 0;
};

void LatencyLoop(Connection& c, const LatencyPlan& plan, LatencyHistogram* h,
                 LatencyHistogram* h_send, const std::atomic<bool>* may_exit) {
  NameThread("bench-conn-" + std::to_string(c.index));
  // Wake-ups from ppoll() within 1 us of the due time, not the default 50.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  const uint64_t base = c.next_id;
  const uint64_t n = plan.orders;
  std::vector<int64_t> sent(n, 0);
  auto due = [&](uint64_t i) {
    return plan.start +
           static_cast<int64_t>(plan.offset_ns +
                                static_cast<double>(i) * plan.interval_ns);
  };
  const int64_t deadline = due(n) + kDrainNanos;
  uint64_t next = 0;
  uint64_t answered = 0;
  while (answered < n) {
    int64_t now = NowNanos();
    if (next < n && due(next) <= now) {
      const uint64_t first = next;
      while (next < n && due(next) <= now) {
        AppendNewOrderFrame(c.next_id, c.BuyNext(), &c.out);
        ++c.next_id;
        ++c.sent;
        ++next;
      }
      now = NowNanos();
      for (uint64_t i = first; i < next; ++i) sent[i] = now;
      if (!c.WriteOut()) break;
    }
    if (now > deadline) {
      c.error = std::to_string(n - answered) + " orders never acknowledged";
      break;
    }
    // Sleep until the next order is due or an answer arrives.
    const int64_t wait =
        next < n ? std::max<int64_t>(0, due(next) - NowNanos()) : 100'000'000;
    pollfd pfd{c.fd, POLLIN, 0};
    const timespec ts{static_cast<time_t>(wait / kNanosPerSecond),
                      static_cast<long>(wait % kNanosPerSecond)};
    if (ppoll(&pfd, 1, &ts, nullptr) <= 0) continue;
    const ssize_t r = c.ReadSome();
    if (r < 0) break;
    if (r == 0) continue;
    const int64_t t = NowNanos();
    if (!c.Drain([&](uint64_t id) {
          if (id < base || id >= base + n) return;
          ++answered;
          const uint64_t i = id - base;
          if (due(i) < plan.from) return;
          h->Record(static_cast<uint64_t>(t - due(i)));
          h_send->Record(static_cast<uint64_t>(t - sent[i]));
        })) {
      break;
    }
  }
  while (!may_exit->load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Samples the device under the journal while the latency phase runs: a
// 4 KB append + fdatasync in the same directory every 50 ms, the floor of
// any order-to-ack time (an ack waits for the synced write of its order).
void FsyncProbe(const std::string& path, int64_t from, int64_t to,
                LatencyHistogram* h) {
  NameThread("bench-fsync");
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  const std::string block(4096, 'x');
  SleepUntilNanos(from);
  for (int64_t next = from; next < to; next += 50'000'000) {
    SleepUntilNanos(next);
    const int64_t t0 = NowNanos();
    if (write(fd, block.data(), block.size()) !=
            static_cast<ssize_t>(block.size()) ||
        fdatasync(fd) != 0) {
      break;
    }
    h->Record(static_cast<uint64_t>(NowNanos() - t0));
  }
  close(fd);
}

struct PhaseClock {
  CpuSample cpu;
  uint64_t journal_writes = 0;
  uint64_t commands = 0;
};

// --tls: kHandshakes new connections one after the other, each closed once
// its TLS handshake is done (no logon); their wall times go into
// r->handshake, the gateway thread's CPU per handshake into
// r->handshake_gateway_cpu_us.
Status HandshakePhase(const GatewayBenchOptions& o, uint16_t port,
                      const BenchTlsContext& tls, GatewayBenchResult* r) {
  const uint32_t n = o.smoke ? 20 : kHandshakes;
  Progress(o, "handshake phase: " + std::to_string(n) + " TLS handshakes");
  const CpuSample before = SampleCpu();
  const int64_t t0 = NowNanos();
  for (uint32_t i = 0; i < n; ++i) {
    int fd = -1;
    CFX_RETURN_IF_ERROR(ConnectLoopback(port, &fd));
    SetTimeout(fd, SO_RCVTIMEO, 5 * kNanosPerSecond);
    Status handshake;
    {
      BenchStream stream;
      stream.Attach(fd);
      const int64_t start = NowNanos();
      handshake = stream.StartTls(tls);
      if (handshake.ok()) {
        r->handshake.Record(static_cast<uint64_t>(NowNanos() - start));
      }
    }
    close(fd);
    CFX_RETURN_IF_ERROR(handshake);
  }
  const double seconds = static_cast<double>(NowNanos() - t0) * 1e-9;
  const PhaseCpu cpu = DiffCpu(before, SampleCpu(), seconds, "cfx-");
  for (const ThreadCpu& t : cpu.threads) {
    if (t.name == "cfx-gateway") {
      r->handshake_gateway_cpu_us = t.seconds * 1e6 / n;
    }
  }
  r->handshake_process_cpu_us = cpu.process_seconds() * 1e6 / n;
  return Status::Ok();
}

PhaseClock Sample(const ExchangeServer& server) {
  PhaseClock p;
  p.journal_writes = server.journal_writes();
  p.commands = server.commands_submitted();
  p.cpu = SampleCpu();
  return p;
}

void Finish(const PhaseClock& a, const PhaseClock& b, double seconds,
            GatewayPhase* out) {
  out->seconds = seconds;
  out->journal_writes = b.journal_writes - a.journal_writes;
  out->journal_commands = b.commands - a.commands;
  // The server's threads (cfx-...) are listed even when they sat idle.
  out->cpu = DiffCpu(a.cpu, b.cpu, seconds, "cfx-");
  out->orders_per_s = static_cast<double>(out->orders) / seconds;
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

Result<GatewayBenchResult> RunGatewayBench(const GatewayBenchOptions& o) {
  GatewayBenchResult r;
  r.load_average = LoadAverage();
  CFX_RETURN_IF_ERROR(CheckOrderEncoding());
  const uint32_t k = std::max<uint32_t>(1, o.connections);
  auto made = MakeConfig(o, k);
  if (!made.has_value()) return made.error();
  ServerConfig config = std::move(made).value();

  auto scratch = ScratchDir::Create(o.dir, "cfx-bench-gateway");
  if (!scratch.has_value()) return scratch.error();
  const std::string& dir = scratch.value()->path();

  gateway::ServerOptions so = BenchServerOptions(dir + "/data");
  std::unique_ptr<BenchTlsContext> tls;
  if (o.tls) {
    std::filesystem::create_directories(dir + "/tls");
    auto ca = EnableBenchTls(dir + "/tls", config);
    if (!ca.has_value()) return ca.error();
    auto context = BenchTlsContext::Create(ca.value());
    if (!context.has_value()) return context.error();
    tls = std::move(context).value();
    so.protobuf_tls_port = 0;
    so.fix_tls_port = 0;
    so.https_port = 0;
  }
  r.tls = o.tls;
  auto started = ExchangeServer::Start(config, so);
  if (!started.has_value()) return started.error();
  ExchangeServer& server = *started.value();
  const uint16_t port =
      o.tls ? server.protobuf_tls_port() : server.protobuf_port();

  std::vector<std::unique_ptr<Connection>> conns;
  for (uint32_t i = 0; i < k; ++i) {
    conns.push_back(std::make_unique<Connection>());
    conns.back()->index = i;
    CFX_RETURN_IF_ERROR(
        ConnectAndLogon(port, tls.get(), &r.handshake, *conns.back()));
  }
  Progress(o, std::to_string(k) + " connections logged on, port " +
                  std::to_string(port) + (o.tls ? " (TLS)" : "") +
                  ", data in " + dir);
  if (tls != nullptr) {
    CFX_RETURN_IF_ERROR(HandshakePhase(o, port, *tls, &r));
  }

  const auto warm_ns = static_cast<int64_t>(o.warmup_seconds * 1e9);
  const auto measure_ns = static_cast<int64_t>(o.seconds * 1e9);

  // Phase 1: latency at the offered rate.
  {
    const double per_conn_rate =
        static_cast<double>(o.offered_rate) / static_cast<double>(k);
    LatencyPlan plan;
    plan.start = NowNanos() + 20'000'000;
    plan.from = plan.start + warm_ns;
    plan.interval_ns = 1e9 / per_conn_rate;
    plan.orders = static_cast<uint64_t>(std::ceil(
        static_cast<double>(warm_ns + measure_ns) * 1e-9 * per_conn_rate));
    const int64_t end =
        plan.start + static_cast<int64_t>(static_cast<double>(plan.orders) *
                                          plan.interval_ns);
    Progress(o, "latency phase: " + std::to_string(o.offered_rate) +
                    " orders/s offered for " +
                    Seconds(o.warmup_seconds + o.seconds));
    std::vector<LatencyHistogram> hs(k);
    std::vector<LatencyHistogram> hs_send(k);
    std::atomic<bool> may_exit{false};
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < k; ++i) {
      LatencyPlan p = plan;
      p.offset_ns = plan.interval_ns * i / k;
      threads.emplace_back(LatencyLoop, std::ref(*conns[i]), p, &hs[i],
                           &hs_send[i], &may_exit);
    }
    std::thread probe(FsyncProbe, dir + "/fsync-probe", plan.from, end,
                      &r.fsync);
    SleepUntilNanos(plan.from);
    const PhaseClock a = Sample(server);
    SleepUntilNanos(end);
    const PhaseClock b = Sample(server);
    may_exit.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
    probe.join();
    for (uint32_t i = 0; i < k; ++i) {
      r.latency.Merge(hs[i]);
      r.latency_from_send.Merge(hs_send[i]);
    }
    r.latency_phase.orders = r.latency.count();
    Finish(a, b, static_cast<double>(end - plan.from) * 1e-9, &r.latency_phase);
  }

  // Phase 2: throughput with a window of orders in flight per connection.
  {
    ThroughputPlan plan;
    const int64_t start = NowNanos() + 20'000'000;
    plan.from = start + warm_ns;
    plan.to = plan.from + measure_ns;
    plan.window = std::max<uint32_t>(1, o.window);
    Progress(o, "throughput phase: " + std::to_string(plan.window) +
                    " orders in flight per connection for " +
                    Seconds(o.warmup_seconds + o.seconds));
    const auto whole_seconds = static_cast<std::size_t>(std::max<int64_t>(
        1, (measure_ns + kNanosPerSecond - 1) / kNanosPerSecond));
    std::vector<std::vector<uint64_t>> per_second(
        k, std::vector<uint64_t>(whole_seconds, 0));
    std::vector<uint64_t> counted(k, 0);
    std::atomic<bool> may_exit{false};
    std::vector<std::thread> threads;
    SleepUntilNanos(start);
    for (uint32_t i = 0; i < k; ++i) {
      threads.emplace_back(ThroughputLoop, std::ref(*conns[i]), plan,
                           &per_second[i], &counted[i], &may_exit);
    }
    SleepUntilNanos(plan.from);
    const PhaseClock a = Sample(server);
    SleepUntilNanos(plan.to);
    const PhaseClock b = Sample(server);
    may_exit.store(true, std::memory_order_release);
    for (std::thread& t : threads) t.join();
    for (uint32_t i = 0; i < k; ++i) r.throughput.orders += counted[i];
    Finish(a, b, static_cast<double>(measure_ns) * 1e-9, &r.throughput);
    // Whole seconds only: a partial last second would read low.
    const std::size_t full =
        static_cast<std::size_t>(measure_ns / kNanosPerSecond);
    for (std::size_t s = 0; s < full; ++s) {
      uint64_t sum = 0;
      for (uint32_t i = 0; i < k; ++i) sum += per_second[i][s];
      const auto v = static_cast<double>(sum);
      if (s == 0 || v < r.throughput.min_second_per_s) {
        r.throughput.min_second_per_s = v;
      }
      r.throughput.max_second_per_s =
          std::max(r.throughput.max_second_per_s, v);
    }
    if (full == 0) {
      r.throughput.min_second_per_s = r.throughput.max_second_per_s =
          r.throughput.orders_per_s;
    }
  }

  for (const auto& c : conns) {
    r.orders_sent += c->sent;
    r.rejects += c->rejects;
    r.session_rejects += c->session_rejects;
    r.trades += c->trades;
    r.stp_cancels += c->cancels;
    r.resting_at_end += c->open;
    if (!c->error.empty()) {
      r.problems.push_back(BenchUser(c->index) + ": " + c->error);
    }
  }
  conns.clear();
  const Status st = server.Stop();
  if (!st.ok()) r.problems.push_back("server stop: " + st.ToString());
  if (r.rejects != 0) {
    r.problems.push_back(std::to_string(r.rejects) + " orders rejected");
  }
  if (r.session_rejects != 0) {
    r.problems.push_back(std::to_string(r.session_rejects) +
                         " session rejects (throttle or busy)");
  }
  return r;
}

// ---------------------------------------------------------------- report

namespace {

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The run whose `key` is the median (the upper middle for an even count).
template <typename Key>
std::size_t MedianRun(const std::vector<GatewayBenchResult>& runs, Key key) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return key(runs[a]) < key(runs[b]);
  });
  return order.empty() ? 0 : order[order.size() / 2];
}

double P99(const GatewayBenchResult& r) {
  return static_cast<double>(r.latency.Percentile(0.99));
}
double Throughput(const GatewayBenchResult& r) {
  return r.throughput.orders_per_s;
}

double Ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string List(const std::vector<GatewayBenchResult>& runs,
                 double (*f)(const GatewayBenchResult&), double scale,
                 const char* fmt) {
  std::string out;
  char buf[32];
  for (const auto& r : runs) {
    std::snprintf(buf, sizeof buf, fmt, f(r) * scale);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

void PrintCpu(std::FILE* out, const char* title, const GatewayPhase& p) {
  const PhaseCpu& c = p.cpu;
  const double orders = static_cast<double>(std::max<uint64_t>(1, p.orders));
  std::fprintf(out,
               "  cpu, %s (%.1f s, %llu orders; machine: %u CPUs, %.2f busy, "
               "%.2f of them this process)\n",
               title, c.wall_seconds, static_cast<unsigned long long>(p.orders),
               c.cpus, c.machine_busy_seconds / c.wall_seconds,
               c.process_seconds() / c.wall_seconds);
  std::fprintf(out, "    %-16s %7s %8s %7s %13s\n", "thread", "threads",
               "cpu s", "% core", "ms/1k orders");
  double server = 0;
  double client = 0;
  for (const ThreadCpu& t : c.threads) {
    (IsClientThread(t.name) ? client : server) += t.seconds;
    std::fprintf(out, "    %-16s %7u %8.3f %6.0f%% %13.3f\n", t.name.c_str(),
                 t.threads, t.seconds, 100 * t.seconds / c.wall_seconds,
                 1e6 * t.seconds / orders);
  }
  std::fprintf(out, "    %-16s %7s %8.3f %6.0f%% %13.3f\n", "= server", "",
               server, 100 * server / c.wall_seconds, 1e6 * server / orders);
  std::fprintf(out, "    %-16s %7s %8.3f %6.0f%% %13.3f\n", "= clients", "",
               client, 100 * client / c.wall_seconds, 1e6 * client / orders);
  const double others = c.machine_busy_seconds - c.process_seconds();
  std::fprintf(out, "    %-16s %7s %8.3f %6.0f%%\n", "other processes", "",
               std::max(0.0, others),
               100 * std::max(0.0, others) / c.wall_seconds);
}

// See CpuBoundRate().
double CapacityEstimate(const GatewayPhase& p) {
  return CpuBoundRate(p.cpu, p.orders);
}

double CommandsPerWrite(const GatewayPhase& p) {
  return p.journal_writes == 0 ? 0
                               : static_cast<double>(p.journal_commands) /
                                     static_cast<double>(p.journal_writes);
}

}  // namespace

void PrintGatewayHuman(std::FILE* out, const GatewayBenchOptions& o,
                       const std::vector<GatewayBenchResult>& runs) {
  if (runs.empty()) return;
  std::vector<double> tps;
  for (const auto& r : runs) tps.push_back(r.throughput.orders_per_s);
  const GatewayBenchResult& t = runs[MedianRun(runs, Throughput)];
  const GatewayBenchResult& l = runs[MedianRun(runs, P99)];
  const LatencyHistogram& h = l.latency;
  const LatencyHistogram& hs = l.latency_from_send;
  std::fprintf(out,
               "gateway: %u connections over loopback to an in-process "
               "exchange (protobuf gateway,\n"
               "         synced RocksDB journal, wall clock), %zu run%s; "
               "load average at start: %s\n",
               o.connections, runs.size(), runs.size() == 1 ? "" : "s",
               runs.front().load_average.c_str());
  std::fprintf(out,
               "  throughput     %.1f k orders/s acknowledged (median; runs: "
               "%s k/s)\n"
               "                 %u orders in flight per connection, %.1f s "
               "measured after %.1f s warm-up;\n"
               "                 median run: slowest second %.1f k/s, "
               "fastest %.1f k/s\n",
               MedianOf(tps) / 1e3,
               List(runs, Throughput, 1e-3, "%.1f").c_str(), o.window,
               o.seconds, o.warmup_seconds, t.throughput.min_second_per_s / 1e3,
               t.throughput.max_second_per_s / 1e3);
  std::fprintf(out,
               "  group commit   %llu synced writes, %.1f commands per write "
               "(median run)\n",
               static_cast<unsigned long long>(t.throughput.journal_writes),
               CommandsPerWrite(t.throughput));
  std::fprintf(
      out,
      "  cpu-bound      about %.0f k orders/s if this process had the "
      "%u CPUs to itself\n"
      "                 (median run's CPU per order; the measured rate "
      "above is what the\n"
      "                 machine's other load left over)\n",
      CapacityEstimate(t.throughput) / 1e3, t.throughput.cpu.cpus);
  std::fprintf(
      out,
      "  order-to-ack   at %llu orders/s offered (achieved %.0f/s), %.1f s "
      "measured after %.1f s warm-up,\n"
      "                 %llu orders; from the SCHEDULED send time (open loop, "
      "no coordinated omission):\n"
      "                 p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  p99.9 %.3f ms  "
      "max %.3f ms\n"
      "                 (median-p99 run; p99 of the runs: %s ms)\n"
      "                 from the actual send: p50 %.3f ms  p99 %.3f ms  max "
      "%.3f ms\n",
      static_cast<unsigned long long>(o.offered_rate),
      l.latency_phase.orders_per_s, o.seconds, o.warmup_seconds,
      static_cast<unsigned long long>(h.count()), Ms(h.Percentile(0.50)),
      Ms(h.Percentile(0.90)), Ms(h.Percentile(0.99)), Ms(h.Percentile(0.999)),
      Ms(h.max()), List(runs, P99, 1e-6, "%.3f").c_str(),
      Ms(hs.Percentile(0.50)), Ms(hs.Percentile(0.99)), Ms(hs.max()));
  std::fprintf(out,
               "  histogram      cumulative share of orders acked within:\n"
               "                ");
  for (const unsigned us :
       {50u, 100u, 200u, 300u, 500u, 1000u, 2000u, 5000u, 10000u}) {
    const double pct =
        h.count() == 0
            ? 0
            : 100.0 *
                  static_cast<double>(h.CountAtOrBelow(uint64_t{us} * 1000)) /
                  static_cast<double>(h.count());
    if (us < 1000) {
      std::fprintf(out, " %uus %.1f%%", us, pct);
    } else {
      std::fprintf(out, " %ums %.2f%%", us / 1000, pct);
    }
    if (us == 500u) std::fprintf(out, "\n                ");
  }
  std::fprintf(out, "\n");
  std::fprintf(out,
               "  group commit   %llu synced writes, %.1f commands per write "
               "(latency phase)\n",
               static_cast<unsigned long long>(l.latency_phase.journal_writes),
               CommandsPerWrite(l.latency_phase));
  std::fprintf(out,
               "  device fsync   p50 %.3f ms  p99 %.3f ms  max %.3f ms (%llu "
               "samples of 4 KB + fdatasync\n"
               "                 in the data directory during the latency "
               "phase: the floor under order-to-ack)\n",
               Ms(l.fsync.Percentile(0.50)), Ms(l.fsync.Percentile(0.99)),
               Ms(l.fsync.max()),
               static_cast<unsigned long long>(l.fsync.count()));
  std::fprintf(out,
               "  orders         %llu sent, %llu rejected, %llu session "
               "rejects, %llu trade reports,\n"
               "                 %llu cancel reports (STP), about %lld "
               "resting at the end (median run)\n",
               static_cast<unsigned long long>(t.orders_sent),
               static_cast<unsigned long long>(t.rejects),
               static_cast<unsigned long long>(t.session_rejects),
               static_cast<unsigned long long>(t.trades),
               static_cast<unsigned long long>(t.stp_cancels),
               static_cast<long long>(t.resting_at_end));
  const double p99_ms = Ms(h.Percentile(0.99));
  std::fprintf(out,
               "  issue #4       >= 150k orders/s: %s (%.1f k/s); p99 <= 1 ms "
               "at 20k/s: %s (%.3f ms)\n",
               MedianOf(tps) >= 150'000 ? "met" : "NOT met",
               MedianOf(tps) / 1e3,
               o.offered_rate != 20'000 ? "n/a (other rate)"
               : p99_ms <= 1.0          ? "met"
                                        : "NOT met",
               p99_ms);
  PrintCpu(out, "throughput phase, median run", t.throughput);
  PrintCpu(out, "latency phase, median-p99 run", l.latency_phase);
  bool ok = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const std::string& p : runs[i].problems) {
      ok = false;
      std::fprintf(out, "  PROBLEM        run %zu: %s\n", i + 1, p.c_str());
    }
  }
  if (ok) {
    std::fprintf(out,
                 "  verified       every order acknowledged, none refused\n");
  }
}

void PrintGatewayJson(std::FILE* out, const GatewayBenchOptions& o,
                      const std::vector<GatewayBenchResult>& runs) {
  if (runs.empty()) return;
  std::vector<double> tps;
  for (const auto& r : runs) tps.push_back(r.throughput.orders_per_s);
  const GatewayBenchResult& t = runs[MedianRun(runs, Throughput)];
  const GatewayBenchResult& l = runs[MedianRun(runs, P99)];
  bool ok = true;
  for (const auto& r : runs) ok = ok && r.problems.empty();
  std::fprintf(out,
               "{\"workload\":\"gateway\",\"transport\":\"%s\","
               "\"connections\":%u,\"runs\":%zu,"
               "\"seconds\":%.3f,\"warmup_seconds\":%.3f,\"window\":%u,"
               "\"load_average\":\"%s\","
               "\"throughput_per_s\":%.0f,\"throughput_runs_per_s\":[",
               t.tls ? "tls" : "plaintext", o.connections, runs.size(),
               o.seconds, o.warmup_seconds, o.window,
               runs.front().load_average.c_str(), MedianOf(tps));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::fprintf(out, "%s%.0f", i == 0 ? "" : ",",
                 runs[i].throughput.orders_per_s);
  }
  std::fprintf(out,
               "],\"throughput_cpu_bound_per_s\":%.0f,"
               "\"throughput_min_second_per_s\":%.0f,"
               "\"throughput_max_second_per_s\":%.0f,"
               "\"journal_writes\":%llu,\"commands_per_write\":%.1f,"
               "\"offered_per_s\":%llu,\"achieved_per_s\":%.0f,"
               "\"latency_kind\":\"scheduled_send_to_ack\",",
               CapacityEstimate(t.throughput), t.throughput.min_second_per_s,
               t.throughput.max_second_per_s,
               static_cast<unsigned long long>(t.throughput.journal_writes),
               CommandsPerWrite(t.throughput),
               static_cast<unsigned long long>(o.offered_rate),
               l.latency_phase.orders_per_s);
  PrintLatencyJson(out, l.latency, l.latency_from_send);
  std::fprintf(out, ",\"latency_p99_runs_ns\":[");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::fprintf(
        out, "%s%llu", i == 0 ? "" : ",",
        static_cast<unsigned long long>(runs[i].latency.Percentile(0.99)));
  }
  std::fprintf(out,
               "],\"latency_journal_writes\":%llu,"
               "\"latency_commands_per_write\":%.1f,"
               "\"fsync_ns\":{\"count\":%llu,\"p50\":%llu,\"p99\":%llu,"
               "\"max\":%llu},"
               "\"orders\":{\"sent\":%llu,\"rejected\":%llu,"
               "\"session_rejects\":%llu,\"trade_reports\":%llu,"
               "\"cancel_reports\":%llu,\"resting_at_end\":%lld},"
               "\"cpu\":{\"throughput\":",
               static_cast<unsigned long long>(l.latency_phase.journal_writes),
               CommandsPerWrite(l.latency_phase),
               static_cast<unsigned long long>(l.fsync.count()),
               static_cast<unsigned long long>(l.fsync.Percentile(0.50)),
               static_cast<unsigned long long>(l.fsync.Percentile(0.99)),
               static_cast<unsigned long long>(l.fsync.max()),
               static_cast<unsigned long long>(t.orders_sent),
               static_cast<unsigned long long>(t.rejects),
               static_cast<unsigned long long>(t.session_rejects),
               static_cast<unsigned long long>(t.trades),
               static_cast<unsigned long long>(t.stp_cancels),
               static_cast<long long>(t.resting_at_end));
  PrintCpuJson(out, t.throughput.cpu, t.throughput.orders);
  std::fprintf(out, ",\"latency\":");
  PrintCpuJson(out, l.latency_phase.cpu, l.latency_phase.orders);
  std::fprintf(out, "}");
  if (t.tls) {
    const LatencyHistogram& hs = t.handshake;
    std::fprintf(out,
                 ",\"handshake_ns\":{\"count\":%llu,\"p50\":%llu,"
                 "\"p99\":%llu,\"max\":%llu},"
                 "\"handshake_gateway_cpu_us\":%.1f,"
                 "\"handshake_process_cpu_us\":%.1f",
                 static_cast<unsigned long long>(hs.count()),
                 static_cast<unsigned long long>(hs.Percentile(0.50)),
                 static_cast<unsigned long long>(hs.Percentile(0.99)),
                 static_cast<unsigned long long>(hs.max()),
                 t.handshake_gateway_cpu_us, t.handshake_process_cpu_us);
  }
  std::fprintf(out, ",\"verified\":%s}\n", ok ? "true" : "false");
}

namespace {

// Throughput over TLS / over plaintext: of the medians, and run by run.
double TlsRatio(const std::vector<GatewayBenchResult>& plain,
                const std::vector<GatewayBenchResult>& tls, std::size_t i) {
  const double p = plain[i].throughput.orders_per_s;
  return p > 0 ? tls[i].throughput.orders_per_s / p : 0;
}

double MedianTlsRatio(const std::vector<GatewayBenchResult>& plain,
                      const std::vector<GatewayBenchResult>& tls) {
  std::vector<double> p, t;
  for (const auto& r : plain) p.push_back(r.throughput.orders_per_s);
  for (const auto& r : tls) t.push_back(r.throughput.orders_per_s);
  const double mp = MedianOf(p);
  return mp > 0 ? MedianOf(t) / mp : 0;
}

}  // namespace

void PrintGatewayTlsHuman(std::FILE* out, const GatewayBenchOptions& o,
                          const std::vector<GatewayBenchResult>& plain,
                          const std::vector<GatewayBenchResult>& tls) {
  if (plain.empty() || plain.size() != tls.size()) return;
  std::fprintf(out, "over plaintext (the protobuf port):\n");
  PrintGatewayHuman(out, o, plain);
  std::fprintf(out, "over TLS (the TLS protobuf port):\n");
  PrintGatewayHuman(out, o, tls);
  const double ratio = MedianTlsRatio(plain, tls);
  std::string per_run;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s%.2f", i == 0 ? "" : ", ",
                  TlsRatio(plain, tls, i));
    per_run += buf;
  }
  const GatewayBenchResult& t = tls[MedianRun(tls, Throughput)];
  const LatencyHistogram& hs = t.handshake;
  std::fprintf(out,
               "  TLS/plaintext  throughput %.2f (medians; run by run, each "
               "pair in the same minute: %s);\n"
               "                 issue #19 >= 0.8: %s\n"
               "  handshake      p50 %.3f ms  p99 %.3f ms  max %.3f ms over "
               "%llu handshakes (median run);\n"
               "                 CPU per handshake: gateway thread %.0f us, "
               "whole process %.0f us (client side included)\n",
               ratio, per_run.c_str(), ratio >= 0.8 ? "met" : "NOT met",
               Ms(hs.Percentile(0.50)), Ms(hs.Percentile(0.99)), Ms(hs.max()),
               static_cast<unsigned long long>(hs.count()),
               t.handshake_gateway_cpu_us, t.handshake_process_cpu_us);
}

void PrintGatewayTlsJson(std::FILE* out, const GatewayBenchOptions& o,
                         const std::vector<GatewayBenchResult>& plain,
                         const std::vector<GatewayBenchResult>& tls) {
  if (plain.empty() || plain.size() != tls.size()) return;
  const auto object = [&o](const std::vector<GatewayBenchResult>& runs) {
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&text, &size);
    if (f == nullptr) return std::string("null");
    PrintGatewayJson(f, o, runs);
    std::fclose(f);
    std::string s(text, size);
    std::free(text);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  };
  std::fprintf(out,
               "{\"workload\":\"gateway_tls\",\"runs\":%zu,"
               "\"tls_ratio\":%.3f,\"tls_ratio_runs\":[",
               plain.size(), MedianTlsRatio(plain, tls));
  for (std::size_t i = 0; i < plain.size(); ++i) {
    std::fprintf(out, "%s%.3f", i == 0 ? "" : ",", TlsRatio(plain, tls, i));
  }
  std::fprintf(out, "],\"plaintext\":%s,\"tls\":%s}\n",
               object(plain).c_str(), object(tls).c_str());
}

}  // namespace cfx::bench
