// `cfx-bench abuse --workload hash-flood`: client order ids chosen to
// collide in the engine's client order id table (computed by inverting the
// table's old, unkeyed hash) against random ids, in the same run; and a
// victim firm's round trips through the protobuf gateway, quiet and while
// an attacker firm sends such ids within its throttle.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "exchange/core/client_order_id_set.h"
#include "gateway/config/server_config.h"
#include "gateway/server/exchange_server.h"
#include "tests/bench/abuse_bench.h"
#include "tests/bench/abuse_pb_client.h"
#include "tests/bench/latency_histogram.h"
#include "tests/bench/loopback_bench.h"
#include "tests/bench/rng.h"
#include "tests/bench/scratch_dir.h"
#include "tests/support/colliding_client_order_ids.h"

namespace cfx::bench {

namespace {

using exchange::internal::ClientOrderIdSet;

// The account of the attacking firm in the engine-level figure.
constexpr uint32_t kAttacker = 7;
// Timed passes over the ids per run; the median pass is reported.
constexpr int kPasses = 5;

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Nanoseconds per Find() + Insert() of `ids` into `set`, the median of
// kPasses passes. An untimed pass first touches the slots the ids use, so
// neither set of ids pays page faults the other does not; each pass starts
// from an empty day (Clear()).
double InsertNanos(ClientOrderIdSet& set, const std::vector<uint64_t>& ids,
                   std::string* problem) {
  std::vector<double> passes;
  for (int pass = -1; pass < kPasses; ++pass) {
    set.Clear();
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t id : ids) {
      const ClientOrderIdSet::Probe p = set.Find(kAttacker, id);
      if (p.found || !p.room) {
        *problem = "client order id " + std::to_string(id) +
                   (p.found ? " found twice" : " found no room");
        return 0;
      }
      set.Insert(p, kAttacker, id);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (pass >= 0) {
      passes.push_back(
          std::chrono::duration<double, std::nano>(t1 - t0).count() /
          static_cast<double>(ids.size()));
    }
  }
  return MedianOf(passes);
}

// ------------------------------------------------------------ end to end

namespace w = cfx::wire::v1;

// IOC buys of 1 lot of the front B200-STD future below its $5.80
// reference: accepted (so the engine remembers the id), then cancelled at
// once, so the book stays empty whatever the load.
constexpr const char* kSymbol = "XB2SZ6";
constexpr int64_t kVictimPrice = 57'500;
constexpr int64_t kAttackerPrice = 57'000;
constexpr int64_t kAnswerNanos = 10'000'000'000;  // an answer's deadline

struct Trader {
  std::string key;
  std::string secret;
  uint32_t account = 0;
};

// Adds a firm with one account and one trader.
Trader AddTrader(gateway::ServerConfig& c, const std::string& firm) {
  Trader t{firm + "-trader", BenchHmacSecret(firm + "-trader"), 0};
  c.firms.push_back(gateway::FirmInfo{firm, ""});
  t.account = AddBenchTrader(c, firm, firm + "-1", t.key, t.secret,
                             exchange::StpMode::kCancelNewest)
                  .value;
  return t;
}

void QueueOrder(PbClient& c, uint64_t id, int64_t price) {
  w::Envelope e;
  w::NewOrder* o = e.mutable_new_order();
  o->set_client_order_id(id);
  o->set_symbol(kSymbol);
  o->set_side(w::SIDE_BUY);
  o->set_order_type(w::ORDER_TYPE_LIMIT);
  o->set_time_in_force(w::TIME_IN_FORCE_IOC);
  o->set_price(price);
  o->set_quantity(1);
  c.Queue(e);
}

// What one client thread saw.
struct ClientTally {
  uint64_t answered = 0;
  uint64_t rejected = 0;  // REJECTED or SessionReject
  std::string error;
};

// One server message by `deadline`: false at the deadline or on an error
// (t->error set); else true, with *id the client order id it answers (0:
// none, AnsweredClientOrderId()) and *rejected.
bool NextAnswer(PbClient& c, int64_t deadline, ClientTally* t, uint64_t* id,
                bool* rejected) {
  w::Envelope e;
  Result<bool> got = c.Next(deadline, &e);
  if (!got.has_value()) {
    t->error = got.error().ToString();
    return false;
  }
  if (!got.value()) return false;
  *id = AnsweredClientOrderId(e, rejected);
  return true;
}

// The victim, open loop: order i (id first_id + i) is sent at start + i x
// interval whatever has been answered so far, and the answers are read
// between sends. Each order's latency runs from its send to its
// acknowledgement, so a slow answer counts against its own order only, not
// against the orders behind it (as it would if the victim waited for each
// answer before sending the next). *late_ns: the latest a send was made
// after its due time (the client's own delay, not the server's).
void VictimLoop(PbClient& c, uint64_t first_id, uint64_t n, int64_t start,
                int64_t interval, LatencyHistogram* h, ClientTally* t,
                int64_t* late_ns) {
  std::vector<int64_t> sent_at(n, 0);  // 0: not sent, or answered
  uint64_t sent = 0;
  uint64_t answered = 0;
  // One server message, if one comes by `deadline`; false at the deadline
  // or on an error (t->error set).
  auto read = [&](int64_t deadline) {
    uint64_t id = 0;
    bool rejected = false;
    if (!NextAnswer(c, deadline, t, &id, &rejected)) return false;
    if (id >= first_id && id - first_id < sent && sent_at[id - first_id] != 0) {
      h->Record(static_cast<uint64_t>(NowNanos() - sent_at[id - first_id]));
      sent_at[id - first_id] = 0;
      ++answered;
      ++t->answered;
      t->rejected += rejected ? 1 : 0;
    }
    return true;
  };
  while (sent < n && t->error.empty()) {
    const int64_t due = start + static_cast<int64_t>(sent) * interval;
    while (NowNanos() < due && read(due)) {
    }
    if (!t->error.empty()) return;
    if (NowNanos() < due) continue;
    QueueOrder(c, first_id + sent, kVictimPrice);
    sent_at[sent] = NowNanos();
    *late_ns = std::max(*late_ns, sent_at[sent] - due);
    ++sent;
    if (Status st = c.Flush(); !st.ok()) {
      t->error = st.ToString();
      return;
    }
  }
  const int64_t deadline = NowNanos() + kAnswerNanos;
  while (answered < n && t->error.empty() && read(deadline)) {
  }
  if (answered < n && t->error.empty()) {
    t->error = std::to_string(n - answered) + " victim orders never answered";
  }
}

// The attacker: `ids` sent in 1 ms steps at `rate`/s from `start`, every
// answer read as it comes; then the rest collected.
void AttackerLoop(PbClient& c, const std::vector<uint64_t>& ids, int64_t start,
                  double rate, ClientTally* t) {
  std::size_t sent = 0;
  auto drain = [&](int64_t deadline) {
    uint64_t id = 0;
    bool rejected = false;
    if (!NextAnswer(c, deadline, t, &id, &rejected)) return false;
    if (id != 0) {
      ++t->answered;
      t->rejected += rejected ? 1 : 0;
    }
    return true;
  };
  while (sent < ids.size() && t->error.empty()) {
    const int64_t now = NowNanos();
    const auto due = static_cast<std::size_t>(
        std::max<double>(0, static_cast<double>(now - start) * 1e-9 * rate));
    for (; sent < std::min(due, ids.size()); ++sent) {
      QueueOrder(c, ids[sent], kAttackerPrice);
    }
    if (Status st = c.Flush(); !st.ok()) {
      t->error = st.ToString();
      return;
    }
    while (drain(0)) {
    }
    SleepUntilNanos(now + 1'000'000);
  }
  const int64_t deadline = NowNanos() + kAnswerNanos;
  while (t->answered < ids.size() && t->error.empty() && drain(deadline)) {
  }
  if (t->answered < ids.size() && t->error.empty()) {
    t->error = std::to_string(ids.size() - t->answered) +
               " attacker orders never answered";
  }
}

struct Rates {
  double seconds = 0;
  double victim = 0;    // orders/s
  double attacker = 0;  // orders/s
};

// Victim latency quiet (alone), then under attack, on one fresh server.
Status RunEndToEnd(const AbuseOptions& o, const Rates& rates,
                   LatencyHistogram* quiet, LatencyHistogram* attack,
                   AbuseRun* r) {
  auto made = BenchServerConfig(kSymbol);
  if (!made.has_value()) return made.error();
  gateway::ServerConfig config = std::move(made).value();
  // The attacker keeps within the session throttle the exchange ships with.
  auto shipped = gateway::DefaultServerConfig();
  if (!shipped.has_value()) return shipped.error();
  config.session.max_messages_per_second =
      shipped.value().session.max_messages_per_second;
  const Trader victim = AddTrader(config, "VICTIM");
  const Trader attacker = AddTrader(config, "FLOOD");
  config.RebuildIndex();
  CFX_RETURN_IF_ERROR(exchange::ValidateEngineConfig(config.engine));
  if (rates.attacker >= config.session.max_messages_per_second) {
    return InvalidArgumentError("attacker rate not within the throttle");
  }

  auto scratch = ScratchDir::Create(o.dir, "cfx-bench-abuse");
  if (!scratch.has_value()) return scratch.error();
  const gateway::ServerOptions so = BenchServerOptions(scratch.value()->path() + "/data");
  auto started = gateway::ExchangeServer::Start(config, so);
  if (!started.has_value()) return started.error();
  gateway::ExchangeServer& server = *started.value();

  PbClient vc, ac;
  CFX_RETURN_IF_ERROR(
      vc.ConnectAndLogon(server.protobuf_port(), victim.key, victim.secret));
  CFX_RETURN_IF_ERROR(ac.ConnectAndLogon(server.protobuf_port(), attacker.key,
                                         attacker.secret));

  const auto interval = static_cast<int64_t>(1e9 / rates.victim);
  const auto n = static_cast<uint64_t>(rates.seconds * rates.victim);
  const auto n_attack = static_cast<uint32_t>(rates.seconds * rates.attacker);
  const std::vector<uint64_t> ids =
      exchange::testing::CollidingClientOrderIds(attacker.account, n_attack);
  ClientTally vt, at;
  LatencyHistogram warm;
  int64_t late_warm = 0, late_quiet = 0, late_attack = 0;
  VictimLoop(vc, 1, n / 4 + 1, NowNanos(), interval, &warm, &vt,
             &late_warm);  // warm-up
  VictimLoop(vc, 1'000'000, n, NowNanos(), interval, quiet, &vt, &late_quiet);
  const int64_t start = NowNanos() + 10'000'000;
  std::thread flood(AttackerLoop, std::ref(ac), std::cref(ids), start,
                    rates.attacker, &at);
  VictimLoop(vc, 2'000'000, n, start, interval, attack, &vt, &late_attack);
  flood.join();
  const Status stopped = server.Stop();

  for (const std::string& e : {vt.error, at.error}) {
    if (!e.empty()) r->problems.push_back(e);
  }
  if (vt.rejected != 0) {
    r->problems.push_back(std::to_string(vt.rejected) +
                          " victim orders rejected");
  }
  if (at.rejected != 0) {
    r->problems.push_back(std::to_string(at.rejected) +
                          " attacker orders rejected (throttle or engine)");
  }
  if (!stopped.ok())
    r->problems.push_back("server stop: " + stopped.ToString());
  char line[400];
  std::snprintf(line, sizeof line,
                "victim_*: %llu IOC orders at %.0f/s through the protobuf "
                "gateway, open loop, each timed from its send to its "
                "acknowledgement; quiet = alone, attack = while another firm "
                "sends %u ids colliding under the unkeyed hash at %.0f/s (its "
                "throttle: %u messages/s)",
                static_cast<unsigned long long>(n), rates.victim, n_attack,
                rates.attacker, config.session.max_messages_per_second);
  r->notes.push_back(line);
  std::snprintf(line, sizeof line,
                "victim sends at most %.2f ms late (quiet) and %.2f ms late "
                "(attack): the client's own delay, not in the figures",
                static_cast<double>(late_quiet) / 1e6,
                static_cast<double>(late_attack) / 1e6);
  r->notes.push_back(line);
  return Status::Ok();
}

}  // namespace

Result<AbuseRun> RunHashFloodAbuse(const AbuseOptions& o, uint32_t run) {
  const uint32_t n = o.smoke ? 2'000 : 10'000;
  // The engine's default table (EngineLimits::max_client_order_ids).
  const uint32_t max_entries = 1u << 22;
  ClientOrderIdSet set(max_entries);
  if (!set.ok()) return InternalError("cannot allocate the id table");

  const std::vector<uint64_t> colliding =
      exchange::testing::CollidingClientOrderIds(kAttacker, n);
  Rng rng(o.seed + run);
  // A key as the journal's seed would give it.
  set.SetKey(exchange::SipKey{rng.Next() | 1, rng.Next()});
  std::vector<uint64_t> random;
  random.reserve(n);
  while (random.size() < n) {
    const uint64_t id = rng.Next();
    if (id != 0) random.push_back(id);
  }

  AbuseRun r;
  std::string problem;
  AbuseFigure engine{"engine_insert", "ns", 0, 0, 1.2};
  engine.quiet = InsertNanos(set, random, &problem);
  engine.attack = InsertNanos(set, colliding, &problem);
  if (!problem.empty()) r.problems.push_back(problem);
  r.figures.push_back(engine);
  r.notes.push_back("engine_insert: " + std::to_string(n) +
                    " ids of one account, Find + Insert into a table for " +
                    std::to_string(max_entries) +
                    " ids; quiet = random ids, attack = ids colliding under "
                    "the unkeyed hash");

  Rates rates;
  rates.seconds = o.smoke ? 0.5 : 2.0;
  rates.victim = o.smoke ? 400 : 1'000;
  rates.attacker = o.smoke ? 2'000 : 5'000;
  LatencyHistogram quiet, attack;
  CFX_RETURN_IF_ERROR(RunEndToEnd(o, rates, &quiet, &attack, &r));
  auto us = [](const LatencyHistogram& h, double q) {
    return static_cast<double>(h.Percentile(q)) / 1e3;
  };
  r.figures.push_back(
      {"victim_p50", "us", us(quiet, 0.50), us(attack, 0.50), 0});
  r.figures.push_back(
      {"victim_p99", "us", us(quiet, 0.99), us(attack, 0.99), 2.0});
  return r;
}

}  // namespace cfx::bench
