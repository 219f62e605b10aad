// `cfx-bench abuse --workload logon-flood`: one in-process exchange; a
// victim (trader-a, protobuf) sends one order at a time and cancels it,
// and each order's round trip (send to ExecutionReport NEW) is timed in
// three phases of the same run: quiet; while attackers flood TRADER_B's FIX
// port with wrong passwords; while they flood the protobuf port with
// wrong signatures for trader-b. The attackers spread their connections
// over many loopback source addresses (127.0.1.x), so the back-off by
// source does not quiet them: each address gets a check, and the credential
// checker's queue runs full. The figures are the victim's p50 and p99 per
// attack against the quiet phase (target p99 <= 2x).

#include "tests/bench/abuse_logon.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "gateway/config/demo_identities.h"
#include "gateway/pb/frame.h"
#include "gateway/pb/logon_signature.h"
#include "gateway/server/exchange_server.h"
#include "gateway/tools/client/client.h"
#include "tests/bench/loopback_bench.h"
#include "tests/bench/scratch_dir.h"

namespace cfx::bench {

namespace {

namespace w = cfx::wire::v1;
using Millis = std::chrono::milliseconds;

constexpr const char* kSymbol = "XB2SZ6";
constexpr int64_t kRestingPrice = 50'000;  // $5.00: below the market, rests
constexpr int kFixAttackers = 8;
constexpr int kPbAttackers = 2;
// Source addresses the attackers cycle through: 127.0.1.1 ... .kSources.
constexpr int kSources = 250;

// The answers the attackers got, by kind.
struct AttackCounts {
  std::atomic<uint64_t> attempts{0};
  std::atomic<uint64_t> invalid{0};  // checked and refused
  std::atomic<uint64_t> later{0};    // back-off or busy: "try again later"
  std::atomic<uint64_t> other{0};    // no answer, or something else
};

// A FIX message with BodyLength and CheckSum.
std::string FixMessage(const std::vector<std::pair<int, std::string>>& fields) {
  std::string body;
  for (const auto& [tag, value] : fields) {
    body += std::to_string(tag) + "=" + value + '\001';
  }
  std::string m =
      "8=FIX.4.4\0019=" + std::to_string(body.size()) + '\001' + body;
  unsigned sum = 0;
  for (char c : m) sum += static_cast<unsigned char>(c);
  char tail[16];
  std::snprintf(tail, sizeof tail, "10=%03u\001", sum % 256);
  return m + tail;
}

std::string FixTime() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H:%M:%S", &tm);
  return buf;
}

// A TCP connection to 127.0.0.1:port from the IPv4 address `from_host`
// (host byte order), reads timing out after `timeout_s`; -1 on failure.
int ConnectFromAddress(uint16_t port, uint32_t from_host, time_t timeout_s) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(from_host);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{timeout_s, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0 ||
      ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// 127.0.1.<source>: the attackers' addresses.
int ConnectFrom(uint16_t port, int source) {
  return ConnectFromAddress(
      port, (127u << 24) | (1u << 8) | static_cast<uint32_t>(source), 2);
}

// Sends `bytes`, reads until the server closes (or 2 s pass); the answer.
std::string Exchange(int fd, const std::string& bytes) {
  std::string in;
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
      static_cast<ssize_t>(bytes.size())) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return in;
}

void Count(AttackCounts& c, const std::string& answer, const char* invalid) {
  ++c.attempts;
  if (answer.find("try again later") != std::string::npos) {
    ++c.later;
  } else if (answer.find(invalid) != std::string::npos) {
    ++c.invalid;
  } else {
    ++c.other;
  }
}

// The `i`th attack logon of each kind.
std::string FixLogon(int i) {
  return FixMessage({{35, "A"},
                     {49, "TRADER_B"},
                     {56, "CFX"},
                     {34, "1"},
                     {52, FixTime()},
                     {98, "0"},
                     {108, "30"},
                     {553, "trader-b"},
                     {554, "wrong-" + std::to_string(i)}});
}

std::string PbLogon(int i) {
  w::Envelope e;
  w::Logon* l = e.mutable_logon();
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string nonce =
      "abuse-" + std::to_string(i) + "-" + std::to_string(NowNanos());
  l->set_api_key("trader-b");
  l->set_timestamp_ns(now);
  l->set_nonce(nonce);
  l->set_signature(
      gateway::pb::LogonSignature("a guess", "trader-b", now, nonce));
  std::string out;
  gateway::pb::AppendFrame(e, &out);
  return out;
}

struct AttackKind {
  const char* thread_name;
  std::string (*logon)(int i);
  const char* invalid_text;  // the answer of a checked, refused logon
};
constexpr AttackKind kFixAttack{"abuse-fix", FixLogon,
                                "invalid username or password"};
constexpr AttackKind kPbAttack{"abuse-pb", PbLogon, "authentication failed"};

// A genuine FIX user's logon (TRADER_C, the right password) from
// `from_host`, then its logout: true when the answer was a Logon; *took_ns
// from the send to that answer, *answer what came.
bool GenuineFixLogon(uint16_t port, uint32_t from_host, int64_t* took_ns,
                     std::string* answer) {
  answer->clear();
  const int fd = ConnectFromAddress(port, from_host, 5);
  if (fd < 0) {
    *answer = "no connection";
    return false;
  }
  const std::string logon = FixMessage({{35, "A"},
                                        {49, "TRADER_C"},
                                        {56, "CFX"},
                                        {34, "1"},
                                        {52, FixTime()},
                                        {98, "0"},
                                        {108, "30"},
                                        {141, "Y"},
                                        {553, "trader-c"},
                                        {554, "demo-trader-c"}});
  const int64_t start = NowNanos();
  bool logged_on = false;
  if (::send(fd, logon.data(), logon.size(), MSG_NOSIGNAL) ==
      static_cast<ssize_t>(logon.size())) {
    char buf[4096];
    while (answer->find("\00135=A\001") == std::string::npos &&
           answer->find("\00135=5\001") == std::string::npos) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      answer->append(buf, static_cast<std::size_t>(n));
    }
    *took_ns = NowNanos() - start;
    logged_on = answer->find("\00135=A\001") != std::string::npos;
  }
  if (logged_on) {
    const std::string logout = FixMessage({{35, "5"},
                                           {49, "TRADER_C"},
                                           {56, "CFX"},
                                           {34, "2"},
                                           {52, FixTime()}});
    // Waits for the server to end the session, so the next logon of the
    // user does not find it still logged on.
    Exchange(fd, logout);
  } else {
    ::close(fd);
  }
  return logged_on;
}

// Genuine FIX logons made during a flood, by where they came from.
struct GenuineLogons {
  int tried = 0;
  int accepted = 0;
  int64_t slowest_ns = 0;
  std::string refusal;  // the last refusal's Text(58), if any
};

void TryGenuine(uint16_t port, uint32_t from_host, int times,
                GenuineLogons* g) {
  for (int i = 0; i < times; ++i) {
    int64_t took = 0;
    std::string answer;
    ++g->tried;
    if (GenuineFixLogon(port, from_host, &took, &answer)) {
      ++g->accepted;
      g->slowest_ns = std::max(g->slowest_ns, took);
    } else {
      const std::size_t text = answer.find("\00158=");
      g->refusal = text == std::string::npos
                       ? (answer.empty() ? "no answer (closed, or 5 s passed)"
                                         : "no Logout text")
                       : answer.substr(text + 4,
                                       answer.find('\001', text + 4) -
                                           (text + 4));
    }
  }
}

std::string GenuineNote(const char* from, const GenuineLogons& g) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "genuine FIX logons (TRADER_C) during the FIX flood from %s: "
                "%d of %d accepted (slowest %.0f ms)%s%s",
                from, g.accepted, g.tried,
                static_cast<double>(g.slowest_ns) / 1e6,
                g.refusal.empty() ? "" : "; refused: ", g.refusal.c_str());
  return buf;
}

// Sends `kind` logons to `port` one after another, each on a new connection
// from the next source address, until `stop`.
void Attacker(const AttackKind* kind, uint16_t port, int first,
              const std::atomic<bool>* stop, AttackCounts* counts) {
  NameThread(kind->thread_name);
  for (int i = first; !stop->load(std::memory_order_relaxed); ++i) {
    const int fd = ConnectFrom(port, 1 + i % kSources);
    if (fd < 0) {
      ++counts->attempts;
      ++counts->other;
      continue;
    }
    Count(*counts, Exchange(fd, kind->logon(i)), kind->invalid_text);
  }
}

// One order's round trip, send to NEW, in ns; then its cancel. < 0 on
// failure (`problem` set).
int64_t RoundTrip(gateway::client::Client& c, uint64_t id,
                  std::string* problem) {
  w::Envelope order;
  w::NewOrder* o = order.mutable_new_order();
  o->set_client_order_id(id);
  o->set_symbol(kSymbol);
  o->set_side(w::SIDE_BUY);
  o->set_order_type(w::ORDER_TYPE_LIMIT);
  o->set_time_in_force(w::TIME_IN_FORCE_DAY);
  o->set_price(kRestingPrice);
  o->set_quantity(1);
  const int64_t start = NowNanos();
  auto is_ack = [id](const w::Envelope& e) {
    return e.has_execution_report() &&
           e.execution_report().client_order_id() == id;
  };
  if (!c.Send(order).ok()) {
    *problem = "victim: cannot send an order";
    return -1;
  }
  auto ack = c.ReceiveUntil(is_ack, Millis(10'000));
  const int64_t took = NowNanos() - start;
  if (!ack.has_value() ||
      ack.value().execution_report().exec_type() != w::EXEC_TYPE_NEW) {
    *problem = "victim: order " + std::to_string(id) + " not acknowledged";
    return -1;
  }
  const uint64_t order_id = ack.value().execution_report().order_id();
  w::Envelope cancel;
  cancel.mutable_cancel_order()->set_client_order_id(id + 1);
  cancel.mutable_cancel_order()->set_order_id(order_id);
  auto is_cancel = [order_id](const w::Envelope& e) {
    return (e.has_execution_report() &&
            e.execution_report().order_id() == order_id &&
            e.execution_report().exec_type() == w::EXEC_TYPE_CANCELED) ||
           e.has_cancel_reject();
  };
  if (!c.Send(cancel).ok() ||
      !c.ReceiveUntil(is_cancel, Millis(10'000)).has_value()) {
    *problem = "victim: order " + std::to_string(id) + " not cancelled";
    return -1;
  }
  return took;
}

// The victim's round trips for `orders` orders (ids from *next_id).
std::vector<double> VictimPhase(gateway::client::Client& c, int orders,
                                uint64_t* next_id, std::string* problem) {
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(orders));
  for (int i = 0; i < orders && problem->empty(); ++i) {
    const int64_t ns = RoundTrip(c, *next_id, problem);
    *next_id += 2;
    if (ns >= 0) v.push_back(static_cast<double>(ns));
  }
  return v;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto k =
      static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  return v[k];
}

// The victim's round trips while `attackers` threads flood `port`; then,
// still under the flood, `during()` (when set).
std::vector<double> UnderAttack(gateway::client::Client& victim, int orders,
                                uint64_t* next_id, std::string* problem,
                                const AttackKind& kind, int attackers,
                                uint16_t port, AttackCounts& counts,
                                double* seconds,
                                const std::function<void()>& during = {}) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < attackers; ++t) {
    threads.emplace_back(Attacker, &kind, port, t * 1000, &stop, &counts);
  }
  // Let the flood build up before measuring.
  const int64_t start = NowNanos();
  while (counts.attempts.load() < 20 && NowNanos() - start < 2'000'000'000) {
    std::this_thread::yield();
  }
  const int64_t measured_from = NowNanos();
  const uint64_t attempts_before = counts.attempts.load();
  std::vector<double> v = VictimPhase(victim, orders, next_id, problem);
  *seconds = static_cast<double>(NowNanos() - measured_from) / 1e9;
  const uint64_t attempts = counts.attempts.load() - attempts_before;
  if (during) during();
  stop = true;
  for (std::thread& t : threads) t.join();
  counts.attempts = attempts;  // the rate note counts the measured interval
  return v;
}

std::string CountsNote(const char* what, const AttackCounts& c,
                       double seconds) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: %.0f logons/s while measured; answers: %llu invalid, "
                "%llu try-again-later, %llu other",
                what,
                seconds > 0 ? static_cast<double>(c.attempts) / seconds : 0,
                static_cast<unsigned long long>(c.invalid.load()),
                static_cast<unsigned long long>(c.later.load()),
                static_cast<unsigned long long>(c.other.load()));
  return buf;
}

}  // namespace

Result<AbuseRun> RunLogonFloodAbuse(const AbuseOptions& options, uint32_t) {
  auto config = BenchServerConfig(kSymbol);
  if (!config.has_value()) return config.error();
  auto scratch = ScratchDir::Create(options.dir, "cfx-bench-abuse-logon");
  if (!scratch.has_value()) return scratch.error();
  const gateway::ServerOptions so = BenchServerOptions(scratch.value()->path() + "/data");
  auto started = gateway::ExchangeServer::Start(config.value(), so);
  if (!started.has_value()) return started.error();
  gateway::ExchangeServer& server = *started.value();

  auto victim = gateway::client::Client::Connect(
      "127.0.0.1", server.protobuf_port(), Millis(5'000));
  if (!victim.has_value()) return victim.error();
  gateway::client::LogonParams p;
  p.api_key = "trader-a";
  p.private_key = gateway::DemoPrivateKey("trader-a");
  p.heartbeat_interval_ms = 60'000;
  auto ack = victim.value()->Logon(p, Millis(5'000));
  if (!ack.has_value()) return ack.error();

  const int orders = options.smoke ? 100 : 2'000;
  uint64_t next_id = 1;
  std::string problem;
  // Warm-up, unmeasured.
  VictimPhase(*victim.value(), orders / 10, &next_id, &problem);
  const std::vector<double> quiet =
      VictimPhase(*victim.value(), orders, &next_id, &problem);
  // TRADER_C logs on over FIX once from its own host, 127.0.0.1, before the
  // flood; during it, again from there and from a host never seen.
  constexpr uint32_t kOwnHost = (127u << 24) | 1u;
  constexpr uint32_t kNewHost = (127u << 24) | (2u << 8) | 1u;
  GenuineLogons before, own, fresh;
  TryGenuine(server.fix_port(), kOwnHost, 1, &before);
  AttackCounts fix_counts;
  double fix_seconds = 0;
  const std::vector<double> fix_flood = UnderAttack(
      *victim.value(), orders, &next_id, &problem, kFixAttack, kFixAttackers,
      server.fix_port(), fix_counts, &fix_seconds, [&] {
        TryGenuine(server.fix_port(), kOwnHost, 3, &own);
        TryGenuine(server.fix_port(), kNewHost, 3, &fresh);
      });
  AttackCounts pb_counts;
  double pb_seconds = 0;
  const std::vector<double> pb_flood =
      UnderAttack(*victim.value(), orders, &next_id, &problem, kPbAttack,
                  kPbAttackers, server.protobuf_port(), pb_counts, &pb_seconds);

  AbuseRun run;
  const double q50 = Percentile(quiet, 0.50) / 1e3;
  const double q99 = Percentile(quiet, 0.99) / 1e3;
  run.figures.push_back(
      {"fix_flood_p50", "us", q50, Percentile(fix_flood, 0.50) / 1e3, 0});
  run.figures.push_back(
      {"fix_flood_p99", "us", q99, Percentile(fix_flood, 0.99) / 1e3, 2.0});
  run.figures.push_back(
      {"pb_flood_p50", "us", q50, Percentile(pb_flood, 0.50) / 1e3, 0});
  run.figures.push_back(
      {"pb_flood_p99", "us", q99, Percentile(pb_flood, 0.99) / 1e3, 2.0});
  run.notes.push_back(std::to_string(orders) +
                      " victim orders per phase (trader-a, protobuf), each "
                      "timed from send to NEW, then cancelled");
  run.notes.push_back(
      CountsNote("FIX wrong passwords (TRADER_B)", fix_counts, fix_seconds));
  run.notes.push_back(CountsNote("protobuf wrong signatures (trader-b)",
                                 pb_counts, pb_seconds));
  run.notes.push_back(GenuineNote("its own host, which logged on before", own));
  run.notes.push_back(GenuineNote("a host never seen", fresh));
  if (before.accepted != 1) {
    run.problems.push_back("TRADER_C's FIX logon before the flood failed: " +
                           before.refusal);
  }
  if (own.accepted != own.tried) {
    run.problems.push_back(
        "TRADER_C's FIX logon from its own host was refused during the "
        "flood: " + own.refusal);
  }
  if (!problem.empty()) run.problems.push_back(problem);
  if (fix_counts.invalid.load() == 0) {
    run.problems.push_back("no FIX attack logon was checked and refused");
  }
  if (pb_counts.invalid.load() == 0) {
    run.problems.push_back("no protobuf attack logon was checked and refused");
  }
  const Status stopped = server.Stop();
  if (!stopped.ok()) run.problems.push_back("stop: " + stopped.ToString());
  return run;
}

}  // namespace cfx::bench
