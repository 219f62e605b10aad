// `cfx-bench abuse --workload resume-storm`: 100 protobuf sessions log on
// at once asking to resume from the start of the day, further back than
// the server keeps, while a quiet victim session measures its round trips.
// Figures: the victim's p99 OrderStatusRequest round trip before vs during
// the storm (target <= 2), and the process's resident memory before vs at
// its peak during the storm (the target: at most +256 MB).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"
#include "gateway/tools/client/client.h"
#include "tests/bench/abuse_bench.h"
#include "tests/bench/latency_histogram.h"
#include "tests/bench/loopback_bench.h"
#include "tests/bench/scratch_dir.h"

namespace cfx::bench {

namespace {

namespace w = cfx::wire::v1;
using gateway::ExchangeServer;
using gateway::ServerConfig;
using Clock = std::chrono::steady_clock;
namespace client = cfx::gateway::client;

constexpr const char* kSymbol = "XB2SZ6";
constexpr int64_t kPrice = 57'000;  // under the $5.80 reference
constexpr std::chrono::milliseconds kWait{60'000};
// An order id no one has: status requests for it are gateway round trips.
constexpr uint64_t kNoSuchOrder = 0x7fff'ffff'ffff'fff0ull;

struct Sizes {
  uint32_t stormers;  // concurrent resumes
  uint32_t kept;      // session.resend_max_messages
  uint32_t orders;    // resting orders per stormer: more than kept
  uint32_t quiet_round_trips;
};

Sizes SizesFor(const AbuseOptions& o) {
  if (o.smoke) return {20, 100, 150, 300};
  return {100, 2'500, 2'600, 2'000};
}

std::string User(uint32_t i) { return "storm-" + std::to_string(i); }
std::string Secret(uint32_t i) { return BenchHmacSecret(User(i)); }

// The bench config plus `users` traders, each with its own account.
Result<ServerConfig> MakeConfig(const Sizes& z, uint32_t users) {
  auto made = BenchServerConfig(kSymbol);
  if (!made.has_value()) return made.error();
  ServerConfig c = std::move(made).value();
  c.session.max_sessions = std::max(c.session.max_sessions, users + 16);
  // All of them log on at once, and each stays a connection not logged on
  // until its signature is checked and its nonce synced: room for all, so
  // that the pre-logon budget (64 by default, the oldest evicted) does not
  // close the storm it measures.
  c.session.max_pre_logon = std::max(c.session.max_pre_logon, users + 16);
  c.session.resend_max_messages = z.kept;
  c.firms.push_back(gateway::FirmInfo{"STORM", ""});
  for (uint32_t i = 0; i < users; ++i) {
    AddBenchTrader(c, "STORM", "STORM-" + std::to_string(i), User(i),
                   Secret(i), exchange::StpMode::kCancelNewest);
  }
  c.RebuildIndex();
  CFX_RETURN_IF_ERROR(exchange::ValidateEngineConfig(c.engine));
  return c;
}

Result<std::unique_ptr<client::Client>> LogOn(
    uint16_t port, uint32_t i, std::optional<uint64_t> resume_after = {}) {
  // Each trader from a loopback address of its own (127.1.x.y), as firms
  // log on from their own hosts: the storm measures resumes, not the
  // per-address limits on connections and logon checks.
  const std::string source = "127.1." + std::to_string(i / 250) + "." +
                             std::to_string(i % 250 + 1);
  auto c = client::Client::Connect("127.0.0.1", port, kWait, source);
  if (!c.has_value()) return c.error();
  client::LogonParams p;
  p.api_key = User(i);
  p.secret = Secret(i);
  p.cancel_on_disconnect_opt_out = true;
  p.resume_after_seq = resume_after;
  auto ack = c.value()->Logon(p, kWait);
  if (!ack.has_value()) return ack.error();
  return c;
}

// Rests `n` one-lot buys for user `i`, then leaves (its orders stay).
Status Fill(uint16_t port, uint32_t i, uint32_t n) {
  auto c = LogOn(port, i);
  if (!c.has_value()) return c.error();
  for (uint32_t k = 0; k < n; ++k) {
    w::Envelope e;
    w::NewOrder* o = e.mutable_new_order();
    o->set_client_order_id(k + 1);
    o->set_symbol(kSymbol);
    o->set_side(w::SIDE_BUY);
    o->set_order_type(w::ORDER_TYPE_LIMIT);
    o->set_time_in_force(w::TIME_IN_FORCE_GTC);
    o->set_price(kPrice - int64_t{100} * (k % 20));
    o->set_quantity(1);
    CFX_RETURN_IF_ERROR(c.value()->Send(e));
  }
  uint32_t answered = 0;
  auto r = c.value()->ReceiveUntil(
      [&](const w::Envelope& e) {
        return e.has_execution_report() && ++answered == n;
      },
      kWait);
  return r.has_value() ? Status() : r.error();
}

uint64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
    std::getline(in, key);
  }
  return 0;
}

// One OrderStatusRequest round trip, in ns; 0 on failure.
uint64_t RoundTrip(client::Client& c) {
  w::Envelope e;
  e.mutable_order_status_request()->set_order_id(kNoSuchOrder);
  const auto t0 = Clock::now();
  if (!c.Send(e).ok()) return 0;
  auto r = c.ReceiveUntil(
      [](const w::Envelope& m) { return m.has_execution_report(); }, kWait);
  if (!r.has_value()) return 0;
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0)
          .count());
}

// One stormer: logs on resuming after seq 0 and reads to the end of the
// retransmission. Returns the RetransmissionComplete, or an error.
Result<w::RetransmissionComplete> Resume(uint16_t port, uint32_t i) {
  auto c = LogOn(port, i, 0);
  if (!c.has_value()) return c.error();
  auto done = c.value()->ReceiveUntil(
      [](const w::Envelope& e) { return e.has_retransmission_complete(); },
      kWait);
  if (!done.has_value()) return done.error();
  return done.value().retransmission_complete();
}

}  // namespace

Result<AbuseRun> RunResumeStormAbuse(const AbuseOptions& o, uint32_t run) {
  (void)run;
  const Sizes z = SizesFor(o);
  const uint32_t victim = z.stormers;
  auto made = MakeConfig(z, z.stormers + 1);
  if (!made.has_value()) return made.error();
  auto scratch = ScratchDir::Create(o.dir, "cfx-bench-abuse-resume");
  if (!scratch.has_value()) return scratch.error();
  const gateway::ServerOptions so = BenchServerOptions(scratch.value()->path() + "/data");
  auto started = ExchangeServer::Start(made.value(), so);
  if (!started.has_value()) return started.error();
  const uint16_t port = started.value()->protobuf_port();

  for (uint32_t i = 0; i < z.stormers; ++i) {
    CFX_RETURN_IF_ERROR(Fill(port, i, z.orders));
  }
  auto v = LogOn(port, victim);
  if (!v.has_value()) return v.error();
  client::Client& vc = *v.value();

  AbuseRun r;
  LatencyHistogram quiet;
  for (uint32_t k = 0; k < z.quiet_round_trips; ++k) {
    if (const uint64_t ns = RoundTrip(vc)) quiet.Record(ns);
  }
  const uint64_t rss_before = RssBytes();

  std::atomic<uint32_t> finished{0};
  std::vector<Result<w::RetransmissionComplete>> results(
      z.stormers, Status(StatusCode::kInternal, "not run"));
  std::vector<std::thread> storm;
  for (uint32_t i = 0; i < z.stormers; ++i) {
    storm.emplace_back([&, i] {
      results[i] = Resume(port, i);
      finished.fetch_add(1);
    });
  }
  LatencyHistogram attack;
  uint64_t rss_peak = rss_before;
  while (finished.load() < z.stormers || attack.count() < 100) {
    if (const uint64_t ns = RoundTrip(vc)) attack.Record(ns);
    rss_peak = std::max(rss_peak, RssBytes());
  }
  for (std::thread& t : storm) t.join();

  uint64_t messages = 0;
  for (uint32_t i = 0; i < z.stormers; ++i) {
    if (!results[i].has_value()) {
      r.problems.push_back(User(i) + ": " + results[i].error().ToString());
    } else if (!results[i].value().snapshot()) {
      r.problems.push_back(User(i) + ": a replay, not the snapshot");
    } else {
      messages += results[i].value().messages();
    }
  }
  if (quiet.count() == 0 || attack.count() == 0) {
    r.problems.push_back("the victim's round trips failed");
  }
  const double mb = 1024.0 * 1024.0;
  r.figures.push_back(AbuseFigure{"victim_p99", "us",
                                  static_cast<double>(quiet.Percentile(0.99)) / 1e3,
                                  static_cast<double>(attack.Percentile(0.99)) / 1e3,
                                  2.0});
  r.figures.push_back(AbuseFigure{"process_rss", "MB",
                                  static_cast<double>(rss_before) / mb,
                                  static_cast<double>(rss_peak) / mb, 0});
  const double added = static_cast<double>(rss_peak - rss_before) / mb;
  char note[200];
  std::snprintf(note, sizeof note,
                "process_rss: +%.1f MB at the peak of the storm (target <= "
                "256 MB; server and %u client threads in one process)",
                added, z.stormers);
  r.notes.push_back(note);
  r.notes.push_back(std::to_string(z.stormers) +
                    " resumes after seq 0 at once, each account with " +
                    std::to_string(z.orders) + " resting orders and " +
                    std::to_string(z.kept) + " messages kept; " +
                    std::to_string(messages) + " status reports sent");
  r.notes.push_back("victim_p99: OrderStatusRequest round trips, " +
                    std::to_string(quiet.count()) + " quiet, " +
                    std::to_string(attack.count()) + " during the storm");
  return r;
}

}  // namespace cfx::bench
