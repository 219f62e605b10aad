#include "gateway/server/exchange_server.h"

#include <google/protobuf/stubs/logging.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "exchange/event_replay.h"
#include "exchange/idle.h"
#include "exchange/pipeline.h"
#include "gateway/asio.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/listeners.h"
#include "gateway/config/user_directory.h"
#include "gateway/fix/fix_gateway.h"
#include "gateway/http/http_server.h"
#include "gateway/md/market_data.h"
#include "gateway/md/status_reasons.h"
#include "gateway/pb/gateway.h"
#include "gateway/server/event_consumers.h"
#include "gateway/server/service_feed.h"
#include "gateway/session/credential_check.h"
#include "gateway/session/kill_switches.h"
#include "gateway/session/metrics.h"
#include "gateway/session/order_view.h"
#include "gateway/session/tls.h"
#include "index/index_service.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway {

using exchange::Event;
using exchange::Seq;

// The consumers of the durable event stream, in the order every event
// reaches them, live and at start-up replay:
// - the instrument table first: the others name instruments by it;
// - the day's order view, which both gateways read (order_view.h);
// - the market-data store, then FIX, which builds its incrementals from the
//   level change the store applied (MarketDataThenFix);
// - the protobuf gateway;
// - last the services, the index then settlement (service_feed.h): live,
//   the feed copies each event into the ring to the service thread; new
//   prints reach the gateways, and what the services derive reaches the
//   engine, through the feed's rings back (ServiceFeed::Poll).
struct MarketDataThenFix {
  MarketDataStore& md;
  fix::FixGateway& fix;
  void OnEvent(const Event& e) { fix.OnEvent(e, md.OnEvent(e)); }
};
using EventConsumers =
    EventConsumerList<InstrumentTable, OrderView, MarketDataThenFix,
                      pb::Gateway, ServiceFeed>;

struct ExchangeServer::Impl {
  ServerConfig config;
  ServerOptions options;
  std::unique_ptr<exchange::Clock> clock;
  exchange::SimulatedClock* simulated = nullptr;
  std::unique_ptr<exchange::Pipeline> pipeline;
  exchange::SpscRing<exchange::Command>* ring = nullptr;
  // Both gateways' commands wait here (this thread at both ends) until the
  // services have applied the events delivered before them and the
  // engine commands derived from those are in `ring`: a client's command
  // that follows what it saw is sequenced after them, as when the services
  // ran on this thread (ReleaseStaged).
  std::unique_ptr<exchange::SpscRing<exchange::Command>> staged;
  uint64_t staged_target = 0;
  std::size_t staged_seen = 0;
  asio::io_context io{1};
  // The instruments as listed now.
  std::unique_ptr<InstrumentTable> instruments;
  // The day's orders, for both gateways (ClOrdIDs indexed for FIX).
  std::unique_ptr<OrderView> orders;
  std::unique_ptr<MarketDataStore> md;
  // The CFX index and clearing and settlement.
  std::unique_ptr<ServiceFeed> services;
  std::unique_ptr<Metrics> metrics;
  // The users as the journal has them, for both gateways' logons.
  UserDirectory users;
  // Halt reasons by command token, for both gateways' status messages.
  StatusReasons status_reasons;
  // The kill switch requests in flight: the protobuf gateway submits and
  // answers them, both gateways tell the accounts' sessions their reasons.
  KillSwitches kill_switches{config};
  // Logon credential checks of both gateways, off this thread.
  std::unique_ptr<CredentialChecker> credentials;
  // The TLS listeners' certificate (network.tls); before the gateways,
  // which hold it. Null: no TLS listener.
  std::unique_ptr<TlsServerContext> tls;
  std::unique_ptr<pb::Gateway> gateway;
  std::unique_ptr<fix::FixGateway> fix;
  std::unique_ptr<HttpServer> http;
  std::unique_ptr<HttpServer> https;  // null: no HTTPS listener
  // Built once every consumer exists (CreateGateways).
  std::optional<MarketDataThenFix> md_then_fix;
  std::optional<EventConsumers> consumers;
  std::thread thread;
  // 0 = running, 1 = close sessions then keep draining events, 2 = exit.
  std::atomic<int> phase{0};
  std::atomic<bool> sessions_closed{false};
  std::atomic<uint64_t> commands_submitted{0};
  bool stopped = false;
  Status stop_status;
  uint64_t final_hash = 0;
  Seq final_seq;

  void Log(const std::string& line) const {
    if (options.log) options.log(line);
  }

  Status OpenPipeline();
  Status OpenServices();
  Status CreateGateways();
  Status ReplayJournal();
  void ConnectServices();
  Status Listen();
  std::unique_ptr<HttpServer> MakeHttpServer(const HttpServerOptions& o);
  // The TLS listeners of network.tls, if any (and their files exist).
  Status ListenTls();
  int ReleaseStaged(bool force);
  void Run();
};

// Moves the staged commands into the producer ring once the services have
// caught up with the last event that may give them output (a print, engine
// commands) handed to them when the newest was staged (or at once when
// `force`); returns how many. Other events derive nothing, so a command
// staged after them goes on at once.
int ExchangeServer::Impl::ReleaseStaged(bool force) {
  if (staged->SizeApprox() > staged_seen) {
    staged_target = services->handed_with_output();
  }
  int n = 0;
  if (force || services->CaughtUpTo(staged_target)) {
    while (const exchange::Command* c = staged->Front()) {
      if (!ring->TryPush(*c)) break;
      staged->Pop();
      ++n;
    }
  }
  staged_seen = staged->SizeApprox();
  return n;
}

void ExchangeServer::Impl::Run() {
  exchange::BackoffIdle idle;
  int idle_spins = 0;
  uint64_t published = 0;
  auto last_metrics = std::chrono::steady_clock::now();
  auto on_event = [&](const Event& e) {
    consumers->OnEvent(e);
    published = e.seq.value;
  };
  // A full ring to the service thread is back-pressure: no further event
  // leaves the pipeline until it has room (the event stays in the event
  // ring; the matching thread waits for room there).
  const auto poll_events = [&] {
    return pipeline->PollDurableEvents(
        on_event, std::min<std::size_t>(services->Room(), 4096));
  };
  while (phase.load(std::memory_order_acquire) == 0) {
    int work = static_cast<int>(io.poll());
    work += static_cast<int>(poll_events());
    work += services->Poll();
    work += services->SubmitEngineCommands(*ring);
    work += gateway->Poll();
    work += fix->Poll();
    work += ReleaseStaged(/*force=*/false);
    commands_submitted.store(
        gateway->commands_submitted() + fix->commands_submitted(),
        std::memory_order_relaxed);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_metrics >= std::chrono::milliseconds(100)) {
      last_metrics = now;
      metrics->SetPipeline(
          pipeline->durable_seq().value, pipeline->applied_seq().value,
          published, pipeline->journal_writes(), pipeline->durable_seq().value);
      metrics->SetQueueDepth(0, ring->SizeApprox() + staged->SizeApprox());
      metrics->SetQueueDepth(1, pipeline->engine_queue_depth());
      metrics->SetQueueDepth(2, pipeline->event_queue_depth());
    }
    if (io.stopped()) io.restart();
    // Spin briefly for the next event, then wait in epoll for up to 50 us,
    // so an idle gateway sleeps instead of yielding in a loop.
    if (work > 0) {
      idle_spins = 0;
    } else if (++idle_spins < 64) {
      idle.Idle(0);
    } else {
      io.run_one_for(std::chrono::microseconds(50));
    }
  }
  // Shutdown: close the sessions (their cancel-on-disconnect commands go to
  // the ring), flush what can be flushed, then keep draining events so the
  // pipeline can finish, and let the services apply them.
  fix->Stop();
  gateway->Stop();
  http->Stop();
  if (https != nullptr) https->Stop();
  gateway->Poll();
  fix->Poll();
  io.poll();
  while (staged->Front() != nullptr) {
    const int n = ReleaseStaged(/*force=*/true) +
                  static_cast<int>(poll_events()) +
                  services->Poll(/*check_settlement=*/false);
    idle.Idle(n);
  }
  commands_submitted.store(
      gateway->commands_submitted() + fix->commands_submitted(),
      std::memory_order_relaxed);
  sessions_closed.store(true, std::memory_order_release);
  while (phase.load(std::memory_order_acquire) == 1) {
    const int n = static_cast<int>(poll_events()) +
                  services->Poll(/*check_settlement=*/false);
    idle.Idle(n);
  }
  services->Stop();
}

namespace {

// Protobuf logs an ERROR for every string field with invalid UTF-8 it
// parses; such a message already gets a SessionReject, so a client must not
// be able to write a log line per message. Everything else goes to stderr.
void ProtobufLog(google::protobuf::LogLevel level, const char* filename,
                 int line, const std::string& message) {
  if (message.find("invalid UTF-8") != std::string::npos) return;
  std::fprintf(stderr, "protobuf %s:%d: %s\n", filename, line, message.c_str());
  (void)level;
}

// The simulated clock never moves back across a restart: it resumes from
// the journal's last time when it would start before it. An explicit start
// (--start) before that time is refused rather than ignored, as a venue
// refuses an operator instruction that contradicts its own record; the
// config's start only applies to a new journal.
Status ResumeSimulatedClock(
    exchange::Timestamp journal_last, bool explicit_start,
    exchange::SimulatedClock& clock,
    const std::function<void(const std::string&)>& log) {
  const exchange::Timestamp start = clock.Now();
  if (journal_last <= start) return Status::Ok();
  if (explicit_start) {
    return FailedPreconditionError(
        "--start " + exchange::FormatUtcTimestamp(start) +
        " is before the journal's last time " +
        exchange::FormatUtcTimestamp(journal_last) +
        ": the simulated clock never moves back (omit --start to resume "
        "from the journal, or give a later time)");
  }
  CFX_RETURN_IF_ERROR(clock.Set(journal_last));
  log("simulated clock resumes at " +
      exchange::FormatUtcTimestamp(journal_last) +
      ", the journal's last time (the config's start " +
      exchange::FormatUtcTimestamp(start) + " is earlier)");
  return Status::Ok();
}

}  // namespace

// Opens the clock and the pipeline (journal, recovery) and adds the
// gateway thread's producer ring.
Status ExchangeServer::Impl::OpenPipeline() {
  if (options.simulated_clock.value_or(config.clock.simulated)) {
    auto sim = std::make_unique<exchange::SimulatedClock>(
        options.clock_start.value_or(config.clock.start));
    simulated = sim.get();
    clock = std::move(sim);
  } else {
    clock = std::make_unique<exchange::WallClock>();
  }
  exchange::PipelineOptions po;
  po.data_dir = options.data_dir;
  po.genesis_table_seed = options.genesis_table_seed;
  po.shard.snapshot_every =
      options.snapshot_every.value_or(config.snapshot_every);
  po.sequencer.session_end_utc_seconds = config.clock.session_end_utc_seconds;
  po.sequencer.spot.first_slot = config.spot.first_slot;
  po.sequencer.spot.listing_days = config.spot.listing_days;
  if (!config.grades.empty()) {
    po.sequencer.index_fixing_utc_seconds = config.index.fixing_utc_seconds;
  }
  // The config's users seed a new exchange; after that the journal (the
  // recovered registry) is the truth, and the gateways serve its users.
  config.engine = SeededEngineConfig(config);
  Log("opening " + options.data_dir);
  auto opened =
      exchange::Pipeline::Open(config.engine, po, *clock, options.progress);
  if (!opened.has_value()) return opened.error();
  pipeline = std::move(opened.value());
  for (const std::string& w : pipeline->recovery().warnings) {
    Log("warning: " + w);
  }
  Log(exchange::DescribeRecovery(pipeline->recovery()));
  if (simulated != nullptr) {
    CFX_RETURN_IF_ERROR(ResumeSimulatedClock(
        pipeline->journal().last_ts(), options.clock_start.has_value(),
        *simulated, [this](const std::string& line) { Log(line); }));
  }
  std::vector<std::string> dropped;
  const std::vector<exchange::ReferenceUser> journal_users =
      pipeline->engine().registry().users();
  ApplyJournalUsers(journal_users, &config, &dropped);
  for (const std::string& name : dropped) {
    Log("warning: config user " + name +
        " is not in the journal (the config seeds a new exchange only; add "
        "it with cfx admin user add)");
  }
  users.Seed(journal_users, &config);
  ring = pipeline->AddProducer(1 << 16);
  staged = std::make_unique<exchange::SpscRing<exchange::Command>>(1 << 16);
  return Status::Ok();
}

// Opens the instrument table, the market-data store and the services
// (their stores under the data dir).
Status ExchangeServer::Impl::OpenServices() {
  instruments = std::make_unique<InstrumentTable>(config);
  orders = std::make_unique<OrderView>(/*index_client_order_ids=*/true);
  md = std::make_unique<MarketDataStore>(config);
  auto feed = ServiceFeed::Open(config, options.data_dir,
                                [this](const std::string& line) { Log(line); });
  if (!feed.has_value()) return feed.error();
  services = std::move(feed).value();
  return Status::Ok();
}

// Creates the metrics and the protobuf and FIX gateways.
Status ExchangeServer::Impl::CreateGateways() {
  metrics = std::make_unique<Metrics>();
  credentials = std::make_unique<CredentialChecker>();
  pb::GatewayDeps deps;
  deps.config = &config;
  deps.instruments = instruments.get();
  deps.orders = orders.get();
  deps.ring = staged.get();
  deps.dir = options.data_dir + "/pb";
  deps.market_data = md.get();
  deps.metrics = metrics.get();
  deps.clock = clock.get();
  deps.simulated_clock = simulated;
  exchange::Pipeline* p = pipeline.get();
  deps.durable_seq = [p] { return p->durable_seq().value; };
  deps.payload_arena = &p->payload_arena();
  deps.recovered_registry = &p->engine().registry();
  deps.index = &services->index();
  deps.settlement = &services->settlement();
  deps.log = options.log;
  deps.service_reads = services.get();
  deps.credentials = credentials.get();
  deps.users = &users;
  deps.status_reasons = &status_reasons;
  deps.kill_switches = &kill_switches;
  // A user disabled by the admin: its FIX session too is logged out.
  deps.user_changed = [this](const exchange::ReferenceUser& u) {
    if (fix != nullptr) fix->UserChanged(u);
  };
  gateway = std::make_unique<pb::Gateway>(io, deps);
  fix::FixGatewayDeps fix_deps;
  fix_deps.config = &config;
  fix_deps.instruments = instruments.get();
  fix_deps.orders = orders.get();
  fix_deps.ring = staged.get();  // the same: both run on this thread
  fix_deps.market_data = md.get();
  fix_deps.metrics = metrics.get();
  fix_deps.clock = clock.get();
  fix_deps.dir = options.data_dir + "/fix";
  fix_deps.log = options.log;
  fix_deps.index = &services->index();
  fix_deps.settlement = &services->settlement();
  fix_deps.service_reads = services.get();
  fix_deps.credentials = credentials.get();
  fix_deps.users = &users;
  fix_deps.status_reasons = &status_reasons;
  fix_deps.kill_switches = &kill_switches;
  auto fix_gateway = fix::FixGateway::Create(io, fix_deps);
  if (!fix_gateway.has_value()) return fix_gateway.error();
  fix = std::move(fix_gateway).value();
  md_then_fix.emplace(MarketDataThenFix{*md, *fix});
  consumers.emplace(*instruments, *orders, *md_then_fix, *gateway, *services);
  return Status::Ok();
}

// Order status, market data and retransmission positions are derived from
// the whole journal, exactly as the live gateway would have seen it: the
// journal's events go to the same consumer list as the live ones.
Status ExchangeServer::Impl::ReplayJournal() {
  const Seq last = pipeline->recovery().last_seq;
  if (last.value == 0) return Status::Ok();
  const auto t0 = std::chrono::steady_clock::now();
  CFX_RETURN_IF_ERROR(exchange::ReplayEvents(
      pipeline->journal(), config.engine, Seq{0}, last,
      [this](const Event& e) { consumers->OnEvent(e); }));
  CFX_RETURN_IF_ERROR(services->FlushReplay());
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "gateway views rebuilt from %llu journaled commands in "
                "%.3f s",
                static_cast<unsigned long long>(last.value), secs);
  Log(buf);
  return Status::Ok();
}

// From now on every new print and restatement is published once its
// causing event is durable (the events reach the index through
// PollDurableEvents only).
void ExchangeServer::Impl::ConnectServices() {
  services->GoLive([this](const index::Print& print) {
    gateway->OnIndexPrint(print);
    fix->OnIndexPrint(print);
  });
}

std::unique_ptr<HttpServer> ExchangeServer::Impl::MakeHttpServer(
    const HttpServerOptions& o) {
  exchange::Pipeline* pipe = pipeline.get();
  exchange::Clock* clk = clock.get();
  auto server = std::make_unique<HttpServer>(
      io, config, *instruments, *md, *metrics,
      [pipe, clk] {
        HealthInfo h;
        const Status ps = pipe->status();
        h.ok = ps.ok();
        h.status = ps.ok() ? "ok" : ps.ToString();
        h.durable_seq = pipe->durable_seq().value;
        h.applied_seq = pipe->applied_seq().value;
        h.exchange_time_ns = clk->Now().nanos;
        return h;
      },
      o);
  server->set_index(&services->index(), services.get());
  return server;
}

// Listens on the protobuf, FIX and HTTP ports, then the TLS ones.
Status ExchangeServer::Impl::Listen() {
  const std::string& bind = config.network.bind_address;
  CFX_RETURN_IF_ERROR(gateway->Listen(
      bind, options.protobuf_port.value_or(config.network.protobuf_port)));
  CFX_RETURN_IF_ERROR(
      fix->Listen(bind, options.fix_port.value_or(config.network.fix_port)));
  http = MakeHttpServer(HttpServerOptionsFor(config.session));
  CFX_RETURN_IF_ERROR(http->Listen(
      bind, options.http_port.value_or(config.network.http_port)));
  return ListenTls();
}

namespace {

// `file` as written, or under `dir` when relative.
std::string UnderDir(const std::string& dir, const std::string& file) {
  if (file.empty() || file.front() == '/') return file;
  return dir + "/" + file;
}

bool Exists(const std::string& file) {
  std::error_code ec;
  return std::filesystem::exists(file, ec);
}

}  // namespace

Status ExchangeServer::Impl::ListenTls() {
  if (!config.network.tls.has_value()) return Status::Ok();
  const TlsListenerConfig& t = *config.network.tls;
  const TlsFiles files{UnderDir(options.data_dir, t.certificate_file),
                       UnderDir(options.data_dir, t.private_key_file),
                       UnderDir(options.data_dir, t.client_ca_file)};
  if (t.skip_if_missing &&
      (!Exists(files.certificate_file) || !Exists(files.private_key_file))) {
    Log("WARNING: no TLS listeners: " + files.certificate_file + " or " +
        files.private_key_file +
        " does not exist (network.tls.skip_if_missing; deploy/run creates "
        "them)");
    return Status::Ok();
  }
  auto loaded = TlsServerContext::Load(files);
  if (!loaded.has_value()) return loaded.error();
  tls = std::move(loaded).value();
  const std::string& bind = t.bind_address;
  if (const uint16_t port = options.fix_tls_port.value_or(t.fix_port);
      t.fix_port != 0) {
    CFX_RETURN_IF_ERROR(fix->ListenTls(bind, port, *tls));
  }
  if (const uint16_t port =
          options.protobuf_tls_port.value_or(t.protobuf_port);
      t.protobuf_port != 0) {
    CFX_RETURN_IF_ERROR(gateway->ListenTls(bind, port, *tls));
  }
  if (t.https_port != 0) {
    HttpServerOptions o = HttpServerOptionsFor(config.session);
    o.tls = tls.get();
    o.log = options.log;
    https = MakeHttpServer(o);
    CFX_RETURN_IF_ERROR(
        https->Listen(bind, options.https_port.value_or(t.https_port)));
  }
  return Status::Ok();
}

Result<std::unique_ptr<ExchangeServer>> ExchangeServer::Start(
    const ServerConfig& config, const ServerOptions& options) {
  google::protobuf::SetLogHandler(&ProtobufLog);
  // Off loopback only TLS may serve (docs/config.md, "TLS").
  CFX_RETURN_IF_ERROR(CheckPlaintextListenersOnLoopback(config));
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->options = options;
  Impl& s = *impl;
  CFX_RETURN_IF_ERROR(s.OpenPipeline());
  CFX_RETURN_IF_ERROR(s.OpenServices());
  CFX_RETURN_IF_ERROR(s.CreateGateways());
  CFX_RETURN_IF_ERROR(s.ReplayJournal());
  CFX_RETURN_IF_ERROR(s.fix->GoLive());
  s.ConnectServices();
  CFX_RETURN_IF_ERROR(s.Listen());

  s.pipeline->Start();
  s.services->Start();
  s.thread = std::thread([&s] {
    pthread_setname_np(pthread_self(), "cfx-gateway");
    s.Run();
  });
  const std::string& bind = config.network.bind_address;
  std::string tls_ports;
  if (s.tls != nullptr) {
    const std::string& tbind = config.network.tls->bind_address;
    if (s.fix->tls_port() != 0) {
      tls_ports += ", fix TLS " + tbind + ":" + std::to_string(s.fix->tls_port());
    }
    if (s.gateway->tls_port() != 0) {
      tls_ports += ", protobuf TLS " + tbind + ":" +
                   std::to_string(s.gateway->tls_port());
    }
    if (s.https != nullptr) {
      tls_ports += ", https " + tbind + ":" + std::to_string(s.https->port());
    }
    tls_ports += s.tls->mutual() ? " (client certificates required)" : "";
  }
  s.Log("listening: fix " + bind + ":" + std::to_string(s.fix->port()) +
        ", protobuf " + bind + ":" + std::to_string(s.gateway->port()) +
        ", http " + bind + ":" + std::to_string(s.http->port()) + tls_ports +
        "; " +
        std::to_string(s.config.instruments.size()) + " instruments, " +
        (s.simulated != nullptr ? "simulated" : "wall") + " clock");
  return std::unique_ptr<ExchangeServer>(new ExchangeServer(std::move(impl)));
}

ExchangeServer::ExchangeServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

ExchangeServer::~ExchangeServer() {
  if (impl_ != nullptr) Stop().ok();
}

Status ExchangeServer::Stop() {
  Impl& s = *impl_;
  if (s.stopped) return s.stop_status;
  s.stopped = true;
  s.phase.store(1, std::memory_order_release);
  exchange::BackoffIdle idle;
  while (!s.sessions_closed.load(std::memory_order_acquire)) idle.Idle(0);
  s.stop_status = s.pipeline->Stop();
  s.phase.store(2, std::memory_order_release);
  s.thread.join();
  s.final_hash = s.pipeline->engine().StateHash();
  s.final_seq = s.pipeline->engine().last_seq();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(s.final_hash));
  s.Log("stopped at seq " + std::to_string(s.final_seq.value) +
        ", state hash " + buf);
  return s.stop_status;
}

uint16_t ExchangeServer::protobuf_port() const {
  return impl_->gateway->port();
}
uint16_t ExchangeServer::http_port() const { return impl_->http->port(); }
uint16_t ExchangeServer::fix_tls_port() const {
  return impl_->fix == nullptr ? 0 : impl_->fix->tls_port();
}
uint16_t ExchangeServer::protobuf_tls_port() const {
  return impl_->gateway->tls_port();
}
uint16_t ExchangeServer::https_port() const {
  return impl_->https == nullptr ? 0 : impl_->https->port();
}

Status ExchangeServer::ReloadTls() {
  if (impl_->tls == nullptr) {
    impl_->Log("tls: no TLS listeners, nothing to reload");
    return FailedPreconditionError("tls: no TLS listeners to reload");
  }
  const Status st = impl_->tls->Reload();
  if (st.ok()) {
    impl_->Log("tls: reloaded " + impl_->tls->files().certificate_file +
               "; new handshakes use it, open sessions keep theirs");
  } else {
    impl_->Log("tls: reload failed, keeping the current certificate: " +
               st.message());
  }
  return st;
}
uint16_t ExchangeServer::fix_port() const {
  return impl_->fix == nullptr ? 0 : impl_->fix->port();
}
const exchange::RecoveryReport& ExchangeServer::recovery() const {
  return impl_->pipeline->recovery();
}
uint64_t ExchangeServer::state_hash() const { return impl_->final_hash; }
exchange::Seq ExchangeServer::last_seq() const { return impl_->final_seq; }
const index::IndexService& ExchangeServer::index() const {
  return impl_->services->index();
}
const settlement::SettlementService& ExchangeServer::settlement() const {
  return impl_->services->settlement();
}
uint64_t ExchangeServer::commands_submitted() const {
  return impl_->commands_submitted.load(std::memory_order_relaxed);
}
uint64_t ExchangeServer::journal_writes() const {
  return impl_->pipeline->journal_writes();
}

}  // namespace cfx::gateway
