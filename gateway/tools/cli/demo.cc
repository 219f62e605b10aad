#include "gateway/tools/cli/demo.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/reference/attestation.h"
#include "exchange/core/status.h"
#include "gateway/config/instrument_table.h"
#include "gateway/tools/attest/ed25519.h"
#include "gateway/tools/attest/measurement_json.h"
#include "gateway/tools/cli/commands.h"
#include "gateway/tools/cli/fix_initiator.h"
#include "gateway/tools/cli/index_render.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/settlement_render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/client.h"
#include "gateway/tools/client/decimal.h"
#include "settlement/rules.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;
// The daily index fixing and settlement (DESIGN.md §4, §5).
constexpr int64_t kFixing = 21 * kHour;
// The futures settlement window [20:45, 21:00): its trades set Tier 1 DSPs.
constexpr int64_t kWindowTrades[] = {20 * kHour + 50 * kMinute,
                                     20 * kHour + 55 * kMinute};
// Index partitions are 4 h from 21:00; the demo trades 2.5 h into each.
constexpr int64_t kPartition = 4 * kHour;
constexpr int64_t kIntoPartition = 2 * kHour + 30 * kMinute;
constexpr int kPartitions = 6;
// Partitions (0-based) in which the futures also trade, beside the window.
constexpr int kFuturesPartitions[] = {1, 3};
// $0.01, the tick of every instrument, in price units (1/10,000 USD).
constexpr int64_t kTick = 100;
constexpr const char* kGrade = "B200-STD";
constexpr const char* kRoot = "XB2S";
// Each provider attests this many nodes: what it may sell per delivery day
// (6 partitions x at most 3 lots fit).
constexpr int kNodes = 20;
constexpr int64_t kMaxSpotLots = 3;
constexpr int64_t kMaxFuturesLots = 8;
// Providers re-attest their nodes weekly (B200-STD accepts 30 days).
constexpr int64_t kReattestAfter = 7 * kDay;
constexpr milliseconds kLogoutWait{1'000};
constexpr int kProgressWidth = 24;

constexpr std::array<const char*, 3> kProviders = {"provider-a", "provider-b",
                                                   "provider-c"};
constexpr std::array<const char*, 3> kProviderFirms = {"PROV-A", "PROV-B",
                                                       "PROV-C"};
constexpr std::array<w::RatingTier, 3> kProviderTiers = {
    w::RATING_TIER_PLATINUM, w::RATING_TIER_GOLD, w::RATING_TIER_GOLD};
// Attested output tokens/s per GPU: above both grades' floors.
constexpr std::array<uint64_t, 3> kProviderTokens = {301, 292, 297};
constexpr std::array<const char*, 3> kTraders = {"trader-a", "trader-b",
                                                 "trader-c"};
constexpr std::array<const char*, 2> kClearers = {"clear-1", "clear-2"};

// Days since the epoch of the UTC date of `t`.
int64_t DayOf(int64_t t) { return t >= 0 ? t / kDay : (t - kDay + 1) / kDay; }

// The index day of `t`: the date of the next 21:00 fixing at or after it
// (a trade at exactly 21:00 belongs to the next day).
int64_t IndexDayOf(int64_t t) {
  const int64_t day = DayOf(t);
  return t - day * kDay >= kFixing ? day + 1 : day;
}

// Status codes to the exit codes of commands.h.
int ExitCodeOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kResourceExhausted:
      return kExitTimeout;
    case StatusCode::kUnavailable:
    case StatusCode::kDataLoss:
      return kExitConnection;
    default:
      return kExitRejected;
  }
}

Status Refused(const std::string& m) { return FailedPreconditionError(m); }

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// "+12", "-3", "0".
std::string Signed(int64_t v) {
  return v > 0 ? "+" + std::to_string(v) : std::to_string(v);
}

// A logged-on protobuf session of one demo user.
class Session {
 public:
  Session(std::string user, std::unique_ptr<client::Client> c,
          milliseconds timeout)
      : user_(std::move(user)), client_(std::move(c)), timeout_(timeout) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { Close(); }

  static Result<std::unique_ptr<Session>> Open(const DemoOptions& o,
                                               const std::string& user) {
    auto c = client::Client::Connect(o.host, o.port, o.timeout);
    if (!c.has_value()) return c.error();
    client::LogonParams p;
    p.api_key = user;
    p.secret = "demo-" + user;
    // Sessions may idle while the others work: the longest interval.
    p.heartbeat_interval_ms = 60'000;
    p.cancel_on_disconnect_opt_out = true;
    Result<w::LogonAck> ack = c.value()->Logon(p, o.timeout);
    if (!ack.has_value()) {
      return Status(ack.error().code(),
                    user + ": " + std::string(ack.error().message()));
    }
    return std::make_unique<Session>(user, std::move(c).value(), o.timeout);
  }

  // Sends `e` (unless null) and waits for the message `pred` accepts. A
  // SessionReject is the refusal of the request: kFailedPrecondition
  // "<what> rejected: REASON: text". Messages before the answer go to
  // `other_` when set.
  Result<w::Envelope> Ask(const w::Envelope* e, const std::string& what,
                          const std::function<bool(const w::Envelope&)>& pred) {
    if (e != nullptr) CFX_RETURN_IF_ERROR(client_->Send(*e));
    Result<w::Envelope> r = client_->ReceiveUntil(
        [&pred](const w::Envelope& m) {
          return m.has_session_reject() || pred(m);
        },
        timeout_,
        [this](const w::Envelope& m) {
          if (other_) other_(m);
        });
    if (!r.has_value()) {
      return Status(r.error().code(), user_ + ": " + what + ": " +
                                          std::string(r.error().message()));
    }
    if (r.value().has_session_reject()) {
      const w::SessionReject& rej = r.value().session_reject();
      return Refused(user_ + ": " + what + " rejected: " +
                     ReasonText(EnumName(rej.reason()), rej.text()));
    }
    return r;
  }

  // Logs out and waits briefly for the server's Logout; idempotent.
  void Close() {
    if (client_ == nullptr || !client_->connected()) return;
    w::Envelope e;
    e.mutable_logout()->set_text("cfx demo done");
    if (client_->Send(e).ok()) {
      (void)client_->ReceiveUntil(
          [](const w::Envelope& m) { return m.has_logout(); }, kLogoutWait);
    }
    client_->Close();
  }

  void set_other(std::function<void(const w::Envelope&)> f) {
    other_ = std::move(f);
  }
  const std::string& user() const { return user_; }

 private:
  std::string user_;
  std::unique_ptr<client::Client> client_;
  milliseconds timeout_;
  std::function<void(const w::Envelope&)> other_;
};

using SessionPtr = std::unique_ptr<Session>;

// A futures contract the demo trades.
struct Future {
  std::string symbol;
  int64_t last_trading_day = 0;
  int64_t premium = 0;  // over the spot price level, in price units
};

// One run of the demo (RunDemo()): the sessions of the demo users, the
// market it found, what it traded, and the index prints it saw.
//
// Thread: the caller's. Memory: a few sessions' buffers and one print per
// day.
class Demo {
 public:
  Demo(const DemoOptions& o, std::ostream& out, std::ostream& err)
      : o_(o), out_(out), err_(err), rng_(o.seed) {}
  Demo(const Demo&) = delete;
  Demo& operator=(const Demo&) = delete;
  // The attester's private key does not outlive the run.
  ~Demo() { attest::Wipe(key_.private_key); }

  Status Run();

 private:
  Status Connect();
  Status LoadMarket();
  Status Setup();
  Status Attest();
  Status RunDay(std::size_t k, int64_t day);
  Status SpotTrade(std::size_t seller, std::size_t buyer, int64_t day,
                   int64_t price, int64_t lots);
  Status FuturesTrade(const Future& f, int64_t price, int64_t lots, bool a_buys,
                      bool a_rests);
  Status FuturesRound(int64_t day);
  Status FixSessionFor(int64_t day);
  Status SetClock(int64_t t);
  Status AwaitFixing(int64_t day);
  Status AwaitSettlement(int64_t day, bool* available);
  Result<w::SettlementReport> Report(Session& s, const std::string& date);
  Status Summary(bool settlement);
  void Progress(std::size_t k, int64_t day, bool last);

  int64_t NextBusinessDay(int64_t day) const {
    return calendar_.NextOrSame(day + 1);
  }
  uint64_t NextId() { return ++next_id_; }
  // A uniform draw from [0, n), deterministic for the seed.
  int64_t Draw(int64_t n) {
    return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n));
  }
  Result<w::ReferenceAck> AskReference(Session& s, w::Envelope e,
                                       const std::string& what);
  Result<w::ExecutionReport> Order(Session& s, const w::NewOrder& o,
                                   bool terminal);

  const DemoOptions& o_;
  std::ostream& out_;
  std::ostream& err_;
  std::mt19937_64 rng_;
  uint64_t next_id_ = 0;
  uint64_t next_request_ = 0;

  SessionPtr admin_;
  std::array<SessionPtr, 3> providers_;
  std::array<SessionPtr, 3> traders_;
  std::unique_ptr<FixInitiator> fix_;  // trader-a's, logged on for fix_day_
  int64_t fix_day_ = 0;

  int64_t now_ = 0;  // the exchange clock, as last reported
  settlement::BusinessCalendar calendar_;  // the exchange's, from its clock
  std::vector<Future> futures_;
  int64_t level_ = 0;  // the day's spot price level, price units
  attest::Ed25519KeyPair key_;
  std::string key_id_;
  std::string run_id_;
  int64_t attested_at_ = 0;
  int attest_round_ = 0;
  std::map<std::string, w::IndexPrint> prints_;  // B200-STD, by date

  std::vector<int64_t> days_;
  int64_t spot_trades_ = 0;
  int64_t spot_lots_ = 0;
  int64_t futures_trades_ = 0;
  int64_t fix_fills_ = 0;
  std::map<std::string, int64_t> fix_position_;  // trader-a, by symbol
};

Result<w::ReferenceAck> Demo::AskReference(Session& s, w::Envelope e,
                                           const std::string& what) {
  const uint64_t id = ++next_request_;
  switch (e.body_case()) {
    case w::Envelope::kRatingSet:
      e.mutable_rating_set()->set_request_id(id);
      break;
    case w::Envelope::kAttesterKeyRegister:
      e.mutable_attester_key_register()->set_request_id(id);
      break;
    case w::Envelope::kAttestationSubmit:
      e.mutable_attestation_submit()->set_request_id(id);
      break;
    default:
      return InvalidArgumentError("not a reference request");
  }
  Result<w::Envelope> r = s.Ask(&e, what, [id](const w::Envelope& m) {
    return m.has_reference_ack() && m.reference_ack().request_id() == id;
  });
  if (!r.has_value()) return r.error();
  const w::ReferenceAck& ack = r.value().reference_ack();
  if (!ack.accepted()) {
    return Refused(s.user() + ": " + what + " refused: " +
                   ReasonText(EnumName(ack.reason()), ack.text()));
  }
  return ack;
}

// Sends `o` and waits for its acknowledgement (NEW), or with `terminal`
// for its end (filled, cancelled, expired); a REJECTED report is refused.
Result<w::ExecutionReport> Demo::Order(Session& s, const w::NewOrder& o,
                                       bool terminal) {
  w::Envelope e;
  *e.mutable_new_order() = o;
  const uint64_t id = o.client_order_id();
  const std::string what = "order " + o.symbol();
  Result<w::Envelope> r = s.Ask(&e, what, [id, terminal](const w::Envelope& m) {
    if (!m.has_execution_report()) return false;
    const w::ExecutionReport& x = m.execution_report();
    if (x.client_order_id() != id) return false;
    if (x.exec_type() == w::EXEC_TYPE_REJECTED) return true;
    if (!terminal) return x.exec_type() == w::EXEC_TYPE_NEW;
    return x.order_status() == w::ORDER_STATUS_FILLED ||
           x.order_status() == w::ORDER_STATUS_CANCELED ||
           x.order_status() == w::ORDER_STATUS_EXPIRED;
  });
  if (!r.has_value()) return r.error();
  const w::ExecutionReport& x = r.value().execution_report();
  if (x.exec_type() == w::EXEC_TYPE_REJECTED) {
    return Refused(s.user() + ": " + what + " rejected: " +
                   ReasonText(EnumName(x.reject_reason()), x.text()));
  }
  return x;
}

Status Demo::SetClock(int64_t t) {
  if (t <= now_) return Status::Ok();
  w::Envelope e;
  e.mutable_clock_request()->set_set_time_ns(t);
  Result<w::Envelope> r = admin_->Ask(
      &e, "clock", [](const w::Envelope& m) { return m.has_clock_report(); });
  if (!r.has_value()) return r.error();
  now_ = r.value().clock_report().now_ns();
  return Status::Ok();
}

Status Demo::Connect() {
  Result<SessionPtr> admin = Session::Open(o_, "admin");
  if (!admin.has_value()) return admin.error();
  admin_ = std::move(admin).value();
  // Every session gets each new index print; the admin's keeps them.
  admin_->set_other([this](const w::Envelope& m) {
    if (m.has_index_print() && m.index_print().grade() == kGrade) {
      prints_[m.index_print().date()] = m.index_print();
    }
  });
  w::Envelope read;
  read.mutable_clock_request()->set_read(true);
  Result<w::Envelope> clock =
      admin_->Ask(&read, "clock",
                  [](const w::Envelope& m) { return m.has_clock_report(); });
  if (!clock.has_value()) return clock.error();
  if (!clock.value().clock_report().simulated()) {
    return Refused("cfx demo needs a server started with --clock=simulated");
  }
  now_ = clock.value().clock_report().now_ns();
  // The exchange's business days: Monday to Friday minus its holidays.
  std::vector<int64_t> holidays;
  for (const std::string& h : clock.value().clock_report().holidays()) {
    const std::optional<int64_t> day = ParseDay(h);
    if (!day.has_value()) {
      return Refused("the exchange sent a holiday that is not a date: " +
                     OneLine(h));
    }
    holidays.push_back(*day);
  }
  calendar_ = settlement::BusinessCalendar(std::move(holidays));
  for (std::size_t i = 0; i < kProviders.size(); ++i) {
    Result<SessionPtr> s = Session::Open(o_, kProviders[i]);
    if (!s.has_value()) return s.error();
    providers_[i] = std::move(s).value();
  }
  for (std::size_t i = 0; i < kTraders.size(); ++i) {
    Result<SessionPtr> s = Session::Open(o_, kTraders[i]);
    if (!s.has_value()) return s.error();
    traders_[i] = std::move(s).value();
  }
  return Status::Ok();
}

// The exchange ends every FIX session at the end of its trading day (the
// daily session window on the exchange clock, docs/fix.md) and starts the
// next with sequence numbers at 1; trader-a logs on again for each day, as
// a venue's FIX client does.
Status Demo::FixSessionFor(int64_t day) {
  if (fix_ != nullptr && fix_day_ == day) return Status::Ok();
  if (fix_ != nullptr) fix_->Logout(kLogoutWait);
  fix_.reset();
  FixSessionOptions fo;
  fo.sender_comp_id = "TRADER_A";
  fo.username = "trader-a";
  fo.password = "demo-trader-a";
  Result<std::unique_ptr<FixInitiator>> fix =
      FixInitiator::Connect(o_.host, o_.fix_port, fo, o_.timeout);
  if (!fix.has_value()) return fix.error();
  fix_ = std::move(fix).value();
  fix_day_ = day;
  return Status::Ok();
}

// The futures to trade, the days to run and the price level to start from.
Status Demo::LoadMarket() {
  const int64_t first = calendar_.NextOrSame(IndexDayOf(now_));
  w::Envelope list;
  list.mutable_instrument_list_request();
  Result<w::Envelope> r =
      admin_->Ask(&list, "instrument list",
                  [](const w::Envelope& m) { return m.has_instrument_list(); });
  if (!r.has_value()) return r.error();
  for (const w::Instrument& i : r.value().instrument_list().instruments()) {
    if (i.kind() != w::INSTRUMENT_KIND_FUTURE || i.grade() != kGrade ||
        i.symbol().rfind(kRoot, 0) != 0 ||
        (i.state() != w::INSTRUMENT_STATE_OPEN &&
         i.state() != w::INSTRUMENT_STATE_PRE_OPEN)) {
      continue;
    }
    const std::optional<int64_t> ltd = ParseDay(i.last_trading_day());
    if (!ltd.has_value() || *ltd < first) continue;
    futures_.push_back({i.symbol(), *ltd, 0});
  }
  std::sort(futures_.begin(), futures_.end(),
            [](const Future& a, const Future& b) {
              return a.last_trading_day < b.last_trading_day;
            });
  if (futures_.empty()) {
    return Refused("no open " + std::string(kRoot) + " futures to trade");
  }
  if (futures_.size() > 2) futures_.resize(2);
  // A little contango: the later month trades a few cents higher.
  for (std::size_t i = 0; i < futures_.size(); ++i) {
    futures_[i].premium = (2 + 4 * static_cast<int64_t>(i)) * kTick;
  }
  const int64_t last = NextBusinessDay(futures_[0].last_trading_day);
  for (int64_t d = first;
       d <= last || (o_.days > 0 && static_cast<int>(days_.size()) < o_.days);
       d = NextBusinessDay(d)) {
    days_.push_back(d);
  }
  if (o_.days > 0 && days_.size() > static_cast<std::size_t>(o_.days)) {
    days_.resize(static_cast<std::size_t>(o_.days));
  }

  // Start from the latest fixing, else the grade's initial reference.
  w::Envelope grades;
  grades.mutable_grade_list_request();
  Result<w::Envelope> g =
      admin_->Ask(&grades, "grade list",
                  [](const w::Envelope& m) { return m.has_grade_list(); });
  if (!g.has_value()) return g.error();
  for (const w::Grade& x : g.value().grade_list().grades()) {
    if (x.name() == kGrade) level_ = x.initial_reference_price();
  }
  w::Envelope q;
  const uint64_t id = ++next_request_;
  q.mutable_index_query()->set_request_id(id);
  q.mutable_index_query()->set_grade(kGrade);
  Result<w::Envelope> latest =
      admin_->Ask(&q, "index query", [id](const w::Envelope& m) {
        return (m.has_index_print_list() &&
                m.index_print_list().request_id() == id &&
                !m.index_print_list().more()) ||
               (m.has_reference_ack() && m.reference_ack().request_id() == id);
      });
  if (!latest.has_value()) return latest.error();
  if (latest.value().has_index_print_list()) {
    for (const w::IndexPrint& p : latest.value().index_print_list().prints()) {
      // Micro-dollars to price units, on the tick.
      if (p.has_value())
        level_ = (p.value_micros() / 100 + kTick / 2) / kTick * kTick;
    }
  }
  if (level_ <= 0) level_ = 58'000;
  return Status::Ok();
}

// Each provider attests kNodes nodes, measured an hour ago and signed with
// the demo's attester key.
Status Demo::Attest() {
  ++attest_round_;
  const int64_t measured = (now_ - kHour) / kSecond * kSecond;
  for (std::size_t i = 0; i < kProviders.size(); ++i) {
    const std::string firm = kProviderFirms[i];
    for (int n = 0; n < kNodes; ++n) {
      char node[16];
      std::snprintf(node, sizeof node, "node-%02d", n);
      exchange::Attestation a;
      a.attestation_id = firm + "-" + node + "-" + run_id_ + "-" +
                         std::to_string(attest_round_);
      a.provider = firm;
      a.node_id = node;
      a.gpu_model = "NVIDIA B200";
      a.gpu_count = 8;
      for (int gpu = 0; gpu < 8; ++gpu) {
        a.gpu_uuids.push_back("GPU-" + firm + "-" + node + "-" +
                              std::to_string(gpu) + "-" + run_id_);
      }
      a.driver_version = "570.124.06";
      a.recipe = "ref-8k1k-i100";
      a.output_milli_tokens_per_s_per_gpu = kProviderTokens[i] * 1'000;
      a.measured_at = exchange::Timestamp{measured};
      a.nonce = "demo-" + a.attestation_id;
      a.attester_key_id = key_id_;
      Result<std::string> json =
          attest::SignAttestationJson(a, key_.private_key);
      if (!json.has_value()) return json.error();
      w::Envelope e;
      e.mutable_attestation_submit()->set_signed_attestation(json.value());
      Result<w::ReferenceAck> ack = AskReference(
          *providers_[i], std::move(e), std::string("attestation ") + node);
      if (!ack.has_value()) return ack.error();
    }
  }
  attested_at_ = now_;
  return Status::Ok();
}

Status Demo::Setup() {
  Result<attest::Ed25519KeyPair> k = attest::GenerateKeyPair();
  if (!k.has_value()) return k.error();
  key_ = std::move(k).value();
  w::Envelope reg;
  reg.mutable_attester_key_register()->set_public_key(key_.public_key);
  reg.mutable_attester_key_register()->set_attester("ATTEST");
  Result<w::ReferenceAck> ack =
      AskReference(*admin_, std::move(reg), "attester key register");
  if (!ack.has_value()) return ack.error();
  key_id_ = ack.value().key_id();
  // "ed25519:" + 16 hex digits: unique per run, so ids and nonces are too.
  run_id_ = key_id_.substr(key_id_.find(':') + 1);

  Result<SessionPtr> rater = Session::Open(o_, "rater");
  if (!rater.has_value()) return rater.error();
  for (std::size_t i = 0; i < kProviderFirms.size(); ++i) {
    w::Envelope e;
    w::RatingSet* r = e.mutable_rating_set();
    r->set_operator_firm(kProviderFirms[i]);
    r->set_tier(kProviderTiers[i]);
    r->set_expires_ns(now_ + 365 * kDay);
    r->set_reference("demo-" + run_id_ + "-" + kProviderFirms[i]);
    Result<w::ReferenceAck> rated =
        AskReference(*rater.value(), std::move(e),
                     std::string("rating of ") + kProviderFirms[i]);
    if (!rated.has_value()) return rated.error();
  }
  rater.value()->Close();
  CFX_RETURN_IF_ERROR(Attest());

  out_ << "cfx demo: " << days_.size() << " business days from "
       << FormatDay(days_.front()) << " to " << FormatDay(days_.back())
       << ", seed " << o_.seed << "\n";
  out_ << "setup: attester key " << key_id_ << "; rated PROV-A PLATINUM, "
       << "PROV-B GOLD, PROV-C GOLD; " << kNodes
       << " nodes attested each at 301, 292, 297 tokens/s/GPU\n";
  out_ << "futures:";
  for (const Future& f : futures_) {
    out_ << " " << f.symbol << " (last trading day "
         << FormatDay(f.last_trading_day) << ")";
  }
  out_ << "\n" << std::flush;
  return Status::Ok();
}

// Provider `seller` rests a DAY sell of next-day node-days; trader `buyer`
// takes it with an IOC buy over protobuf.
Status Demo::SpotTrade(std::size_t seller, std::size_t buyer, int64_t day,
                       int64_t price, int64_t lots) {
  w::NewOrder sell;
  sell.set_client_order_id(NextId());
  sell.set_symbol(SpotSymbol(kGrade, day + 1));
  sell.set_side(w::SIDE_SELL);
  sell.set_order_type(w::ORDER_TYPE_LIMIT);
  sell.set_time_in_force(w::TIME_IN_FORCE_DAY);
  sell.set_price(price);
  sell.set_quantity(lots);
  Result<w::ExecutionReport> ack = Order(*providers_[seller], sell, false);
  if (!ack.has_value()) return ack.error();
  w::NewOrder buy = sell;
  buy.set_client_order_id(NextId());
  buy.set_side(w::SIDE_BUY);
  buy.set_time_in_force(w::TIME_IN_FORCE_IOC);
  Result<w::ExecutionReport> done = Order(*traders_[buyer], buy, true);
  if (!done.has_value()) return done.error();
  if (done.value().cum_quantity() > 0) {
    ++spot_trades_;
    spot_lots_ += done.value().cum_quantity();
  }
  return Status::Ok();
}

// One futures trade of trader-a (FIX, TRADER_A) against trader-c
// (protobuf): the resting side enters a DAY limit, the other takes it IOC.
Status Demo::FuturesTrade(const Future& f, int64_t price, int64_t lots,
                          bool a_buys, bool a_rests) {
  const std::string fix_id = std::to_string(NextId());
  const FixFields fix_order = {
      {11, fix_id},
      {55, f.symbol},
      {54, a_buys ? "1" : "2"},
      {38, std::to_string(lots)},
      {40, "2"},
      {44, client::FormatPrice(exchange::Price{price})},
      {59, a_rests ? "0" : "3"},
      {60, FixInitiator::UtcNow()}};
  int64_t filled = 0;
  // Reads trader-a's reports of `fix_id` until `done` says so; counts fills.
  auto await_fix = [&](const std::function<bool(const FixMessage&)>& done)
      -> Result<FixMessage> {
    Result<FixMessage> m = fix_->ReceiveUntil(
        [&](const FixMessage& x) {
          if (x.type == "3" || (x.type == "j" && x.Get(379) == fix_id)) {
            return true;
          }
          if (x.type != "8" || x.Get(11) != fix_id) return false;
          if (x.Get(150) == "F") {
            const int64_t q = std::strtoll(x.Get(32).c_str(), nullptr, 10);
            filled += q;
            fix_position_[f.symbol] += a_buys ? q : -q;
            ++fix_fills_;
          }
          return x.Get(150) == "8" || done(x);
        },
        o_.timeout);
    if (!m.has_value()) {
      return Status(m.error().code(), "trader-a: FIX order " + f.symbol + ": " +
                                          std::string(m.error().message()));
    }
    if (m.value().type != "8" || m.value().Get(150) == "8") {
      return Refused("trader-a: FIX order " + f.symbol +
                     " rejected: " + m.value().Get(58));
    }
    return m;
  };
  auto terminal = [](const FixMessage& x) {
    const std::string s = x.Get(39);
    return s == "2" || s == "4" || s == "C";
  };
  w::NewOrder c;
  c.set_symbol(f.symbol);
  c.set_side(a_buys ? w::SIDE_SELL : w::SIDE_BUY);
  c.set_order_type(w::ORDER_TYPE_LIMIT);
  c.set_price(price);
  c.set_quantity(lots);
  if (a_rests) {
    CFX_RETURN_IF_ERROR(fix_->Send("D", fix_order));
    Result<FixMessage> ack =
        await_fix([](const FixMessage& x) { return x.Get(150) == "0"; });
    if (!ack.has_value()) return ack.error();
    c.set_client_order_id(NextId());
    c.set_time_in_force(w::TIME_IN_FORCE_IOC);
    Result<w::ExecutionReport> done = Order(*traders_[2], c, true);
    if (!done.has_value()) return done.error();
    if (done.value().cum_quantity() > 0 &&
        filled < done.value().cum_quantity()) {
      // The resting order's fill report follows the taker's.
      Result<FixMessage> fill = await_fix([&](const FixMessage&) {
        return filled >= done.value().cum_quantity();
      });
      if (!fill.has_value()) return fill.error();
    }
  } else {
    c.set_client_order_id(NextId());
    c.set_time_in_force(w::TIME_IN_FORCE_DAY);
    Result<w::ExecutionReport> ack = Order(*traders_[2], c, false);
    if (!ack.has_value()) return ack.error();
    CFX_RETURN_IF_ERROR(fix_->Send("D", fix_order));
    Result<FixMessage> done = await_fix(terminal);
    if (!done.has_value()) return done.error();
  }
  if (filled > 0) ++futures_trades_;
  return Status::Ok();
}

// One trade in each future still trading on `day`: trader-a leans long
// the front month and short the next, so the positions form a spread.
Status Demo::FuturesRound(int64_t day) {
  CFX_RETURN_IF_ERROR(FixSessionFor(day));
  for (std::size_t i = 0; i < futures_.size(); ++i) {
    const Future& f = futures_[i];
    if (day > f.last_trading_day) continue;
    const bool lean_long = i == 0;
    const bool a_buys = Draw(4) == 0 ? !lean_long : lean_long;
    const int64_t lots = 1 + Draw(kMaxFuturesLots);
    const int64_t price = level_ + f.premium + (Draw(3) - 1) * kTick;
    CFX_RETURN_IF_ERROR(FuturesTrade(f, price, lots, a_buys, Draw(2) == 0));
  }
  return Status::Ok();
}

// One business day: spot trades in each 4-hour partition still ahead,
// futures in two partitions and in the settlement window, then the clock
// passes 21:00 and the day fixes and settles.
Status Demo::RunDay(std::size_t k, int64_t day) {
  if (now_ - attested_at_ >= kReattestAfter) CFX_RETURN_IF_ERROR(Attest());
  // The day's level drifts by -2..+4 cents.
  if (k > 0) level_ += (Draw(7) - 2) * kTick;
  const int64_t open = (day - 1) * kDay + kFixing;
  for (int p = 0; p < kPartitions; ++p) {
    const int64_t start = open + p * kPartition;
    int64_t t = start + kIntoPartition;
    if (t <= now_) t = now_ + kMinute;
    if (t >= start + kPartition - kMinute) continue;  // already passed
    CFX_RETURN_IF_ERROR(SetClock(t));
    // Three trades: each provider sells once, to a buyer that rotates with
    // the partition, so the day has 3 sellers and 3 buyers.
    for (std::size_t s = 0; s < kProviders.size(); ++s) {
      const std::size_t b = (s + static_cast<std::size_t>(p)) % kTraders.size();
      const int64_t price = level_ + (Draw(5) - 2) * kTick;
      const int64_t lots = 2 + Draw(kMaxSpotLots - 1);
      CFX_RETURN_IF_ERROR(SpotTrade(s, b, DayOf(now_), price, lots));
    }
    if (p == kFuturesPartitions[0] || p == kFuturesPartitions[1]) {
      CFX_RETURN_IF_ERROR(FuturesRound(day));
    }
  }
  for (const int64_t at : kWindowTrades) {
    CFX_RETURN_IF_ERROR(SetClock(day * kDay + at));
    CFX_RETURN_IF_ERROR(FuturesRound(day));
  }
  CFX_RETURN_IF_ERROR(SetClock(day * kDay + kFixing + kSecond));
  return AwaitFixing(day);
}

// Waits for the day's B200-STD print, which every session is sent.
Status Demo::AwaitFixing(int64_t day) {
  const std::string date = FormatDay(day);
  if (prints_.count(date) != 0) return Status::Ok();
  Result<w::Envelope> r =
      admin_->Ask(nullptr, "the fixing of " + date, [&](const w::Envelope& m) {
        return m.has_index_print() && m.index_print().grade() == kGrade &&
               m.index_print().date() == date;
      });
  if (!r.has_value()) return r.error();
  prints_[date] = r.value().index_print();
  return Status::Ok();
}

void Demo::Progress(std::size_t k, int64_t day, bool last) {
  if (o_.progress == DemoProgress::kNone) return;
  const std::string date = FormatDay(day);
  std::string index = "-";
  auto it = prints_.find(date);
  if (it != prints_.end()) {
    index = (it->second.has_value() ? it->second.value() : "-") + " (" +
            it->second.level_name() + ")";
  }
  const std::size_t n = days_.size();
  if (o_.progress == DemoProgress::kLines) {
    err_ << "cfx demo: day " << k + 1 << "/" << n << " " << date
         << ": CFX-B200-STD " << index << ", " << spot_trades_ << " spot and "
         << futures_trades_ << " futures trades so far\n"
         << std::flush;
    return;
  }
  const auto filled = static_cast<int>((k + 1) * kProgressWidth / n);
  err_ << "\r[" << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(kProgressWidth - filled), '.')
       << "] day " << k + 1 << "/" << n << " " << date << "  CFX-B200-STD "
       << index << "   " << (last ? "\n" : "") << std::flush;
}

// Waits until settlement has run for `day` (it runs after the fixing).
// *available is false when the server keeps no settlement.
Status Demo::AwaitSettlement(int64_t day, bool* available) {
  *available = true;
  const std::string date = FormatDay(day);
  const SteadyClock::time_point deadline = SteadyClock::now() + o_.timeout;
  for (;;) {
    const uint64_t id = ++next_request_;
    w::Envelope e;
    e.mutable_settlement_status_request()->set_request_id(id);
    Result<w::Envelope> r =
        admin_->Ask(&e, "settlement status", [id](const w::Envelope& m) {
          return (m.has_settlement_status() &&
                  m.settlement_status().request_id() == id) ||
                 (m.has_reference_ack() &&
                  m.reference_ack().request_id() == id);
        });
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      if (ack.reason() == w::REJECT_REASON_SETTLEMENT_UNAVAILABLE) {
        *available = false;
        return Status::Ok();
      }
      if (ack.reason() != w::REJECT_REASON_NOT_SETTLED) {
        return Refused("settlement status refused: " +
                       ReasonText(EnumName(ack.reason()), ack.text()));
      }
    } else {
      const w::SettlementStatus& s = r.value().settlement_status();
      if (!s.ok()) return Refused("settlement stopped: " + s.error());
      if (s.latest_date() >= date) return Status::Ok();
    }
    if (SteadyClock::now() >= deadline) {
      return Status(StatusCode::kResourceExhausted,
                    "settlement of " + date + " did not run in time");
    }
    // Settlement has no push: ask again shortly.
    std::this_thread::sleep_for(milliseconds(20));
  }
}

Result<w::SettlementReport> Demo::Report(Session& s, const std::string& date) {
  const uint64_t id = ++next_request_;
  w::Envelope e;
  e.mutable_settlement_query()->set_request_id(id);
  e.mutable_settlement_query()->set_date(date);
  w::SettlementReport report;
  bool first = true;
  for (;;) {
    Result<w::Envelope> r =
        s.Ask(first ? &e : nullptr, "settlement report " + date,
              [id](const w::Envelope& m) {
                return (m.has_settlement_report() &&
                        m.settlement_report().request_id() == id) ||
                       (m.has_reference_ack() &&
                        m.reference_ack().request_id() == id);
              });
    first = false;
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      return Refused(s.user() + ": settlement report " + date + " refused: " +
                     ReasonText(EnumName(ack.reason()), ack.text()));
    }
    const w::SettlementReport& part = r.value().settlement_report();
    report.MergeFrom(part);  // appends every repeated field
    if (!part.more()) {
      report.set_more(false);
      return report;
    }
  }
}

Status Demo::Summary(bool settlement) {
  const int64_t first = days_.front();
  const int64_t last = days_.back();
  // The index history, weekends included (every calendar day has a print).
  const uint64_t id = ++next_request_;
  w::Envelope q;
  q.mutable_index_query()->set_request_id(id);
  q.mutable_index_query()->set_grade(kGrade);
  q.mutable_index_query()->set_from_date(FormatDay(first));
  q.mutable_index_query()->set_to_date(FormatDay(last));
  std::vector<w::IndexPrint> prints;
  bool sent = false;
  for (;;) {
    Result<w::Envelope> r = admin_->Ask(
        sent ? nullptr : &q, "index history", [id](const w::Envelope& m) {
          return (m.has_index_print_list() &&
                  m.index_print_list().request_id() == id) ||
                 (m.has_reference_ack() &&
                  m.reference_ack().request_id() == id);
        });
    sent = true;
    if (!r.has_value()) return r.error();
    if (r.value().has_reference_ack()) {
      const w::ReferenceAck& ack = r.value().reference_ack();
      return Refused("index history refused: " +
                     ReasonText(EnumName(ack.reason()), ack.text()));
    }
    for (const w::IndexPrint& p : r.value().index_print_list().prints()) {
      prints.push_back(p);
    }
    if (!r.value().index_print_list().more()) break;
  }
  out_ << "\nCFX-B200-STD index history\n" << IndexHistoryText(prints);

  out_ << "\ntrading: " << spot_trades_
       << " spot trades of B200-STD node-days (" << spot_lots_
       << " lots, protobuf); " << futures_trades_
       << " futures trades, trader-a over FIX against trader-c\n";
  out_ << "trader-a over FIX: " << fix_fills_ << " fills; net";
  for (const Future& f : futures_) {
    out_ << " " << f.symbol << " " << Signed(fix_position_[f.symbol]);
  }
  out_ << " lots\n";

  const Future& front = futures_.front();
  const std::string expiry = FormatDay(front.last_trading_day);
  if (!settlement) {
    out_ << "\nsettlement: this server runs no settlement\n" << std::flush;
    return Status::Ok();
  }
  std::vector<std::pair<std::string, std::vector<w::SettlementReport>>> members;
  for (const char* user : kClearers) {
    Result<SessionPtr> s = Session::Open(o_, user);
    if (!s.has_value()) return s.error();
    std::vector<w::SettlementReport> reports;
    Result<w::SettlementReport> latest = Report(*s.value(), "");
    if (!latest.has_value()) return latest.error();
    const bool expired = front.last_trading_day <= last;
    if (expired && latest.value().date() != expiry) {
      Result<w::SettlementReport> at = Report(*s.value(), expiry);
      if (!at.has_value()) return at.error();
      reports.push_back(std::move(at).value());
    }
    reports.push_back(std::move(latest).value());
    s.value()->Close();
    std::string member = user;
    if (!reports.back().accounts().empty()) {
      member = reports.back().accounts(0).clearing_member() + " (" + user + ")";
    }
    members.emplace_back(member, std::move(reports));
  }

  // The front month's final settlement, from the expiry day's report.
  out_ << "\nfinal settlement " << front.symbol << " (last trading day "
       << expiry << "): ";
  bool found = false;
  for (const w::SettlementReport& r : members.front().second) {
    for (const w::SettlementPrice& c : r.contracts()) {
      if (c.symbol() == front.symbol && c.final()) {
        out_ << "FSP " << c.price()
             << (c.disrupted() ? ", DISRUPTED" : ", not disrupted") << "\n";
        found = true;
      }
    }
  }
  if (!found) {
    out_ << "not yet: the demo stopped on " << FormatDay(last) << "\n";
  }
  // Each member's reports, showing only the contracts the demo traded or
  // with open interest (a report lists every listed contract).
  for (const auto& [member, reports] : members) {
    out_ << "\nclearing member " << member << "\n";
    for (const w::SettlementReport& r : reports) {
      w::SettlementReport shown = r;
      shown.clear_contracts();
      for (const w::SettlementPrice& c : r.contracts()) {
        const bool traded = std::any_of(
            futures_.begin(), futures_.end(),
            [&c](const Future& f) { return f.symbol == c.symbol(); });
        if (traded || c.open_interest() > 0) *shown.add_contracts() = c;
      }
      out_ << SettlementReportText(shown);
    }
  }
  out_ << std::flush;
  return Status::Ok();
}

Status Demo::Run() {
  next_id_ = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  CFX_RETURN_IF_ERROR(Connect());
  CFX_RETURN_IF_ERROR(LoadMarket());
  if (days_.empty()) return Refused("no business day to run");
  CFX_RETURN_IF_ERROR(Setup());
  for (std::size_t k = 0; k < days_.size(); ++k) {
    CFX_RETURN_IF_ERROR(RunDay(k, days_[k]));
    Progress(k, days_[k], k + 1 == days_.size());
  }
  bool settlement = true;
  CFX_RETURN_IF_ERROR(AwaitSettlement(days_.back(), &settlement));
  CFX_RETURN_IF_ERROR(Summary(settlement));
  if (fix_ != nullptr) fix_->Logout(kLogoutWait);
  return Status::Ok();
}

}  // namespace

int RunDemo(const DemoOptions& options, std::ostream& out, std::ostream& err) {
  Demo demo(options, out, err);
  const Status s = demo.Run();
  if (s.ok()) return kExitOk;
  out << std::flush;
  if (options.progress == DemoProgress::kBar) err << "\n";
  err << "cfx: " << OneLine(std::string(s.message())) << "\n" << std::flush;
  return ExitCodeOf(s);
}

void AddDemoCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::string host = "127.0.0.1";
    uint16_t port = 9879;
    uint16_t fix_port = 9878;
    int days = 0;
    uint64_t seed = 1;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* demo = app.add_subcommand(
      "demo",
      "Run a compressed month of market life against a server on the "
      "simulated clock");
  CLI::Option* root_host = app.get_option_no_throw("--host");
  CLI::Option* root_port = app.get_option_no_throw("--port");
  if (root_host == nullptr) {
    demo->add_option("--host", a->host, "Gateway host")->capture_default_str();
  }
  if (root_port == nullptr) {
    demo->add_option("--port", a->port, "Protobuf gateway port")
        ->capture_default_str();
  }
  demo->add_option("--fix-port", a->fix_port, "FIX acceptor port")
      ->capture_default_str();
  demo->add_option("--days", a->days,
                   "Business days to run (default: through the first "
                   "futures month's expiry and one business day more)")
      ->check(CLI::PositiveNumber);
  demo->add_option("--seed", a->seed, "Seed of prices, sizes and sides")
      ->capture_default_str();
  demo->add_flag("--quiet", a->quiet, "No progress on stderr");
  demo->callback([a, root_host, root_port, exit_code] {
    DemoOptions o;
    o.host = a->host;
    o.port = a->port;
    if (root_host != nullptr && root_host->count() > 0) {
      o.host = root_host->as<std::string>();
    }
    if (root_port != nullptr && root_port->count() > 0) {
      o.port = root_port->as<uint16_t>();
    }
    o.fix_port = a->fix_port;
    o.days = a->days;
    o.seed = a->seed;
    o.progress = a->quiet           ? DemoProgress::kNone
                 : ::isatty(2) == 1 ? DemoProgress::kBar
                                    : DemoProgress::kLines;
    *exit_code = RunDemo(o, std::cout, std::cerr);
  });
}

}  // namespace cfx::gateway::cli
