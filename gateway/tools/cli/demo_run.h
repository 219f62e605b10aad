#pragma once

// The internals of `cfx demo` (demo.h), shared by its files: the demo's
// market calendar and cast, the protobuf session of one demo user, and the
// Demo run itself. demo_setup.cc sets the market up (users, ratings,
// attestations), demo_trading.cc trades one business day, demo.cc runs the
// days and reports.

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
#include "gateway/config/demo_identities.h"
#include "gateway/config/instrument_table.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/attest/measurement_json.h"
#include "gateway/tools/cli/commands.h"
#include "gateway/tools/cli/demo.h"
#include "gateway/tools/cli/fix_initiator.h"
#include "gateway/tools/cli/index_render.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/settlement_render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/client.h"
#include "gateway/tools/client/decimal.h"
#include "settlement/rules.h"

namespace cfx::gateway::cli::internal {

namespace w = cfx::wire::v1;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kMinute = 60 * kSecond;
inline constexpr int64_t kHour = 60 * kMinute;
inline constexpr int64_t kDay = 24 * kHour;
// The daily index fixing and settlement (DESIGN.md §4, §5).
inline constexpr int64_t kFixing = 21 * kHour;
// The futures settlement window [20:45, 21:00): its trades set Tier 1 DSPs.
inline constexpr int64_t kWindowTrades[] = {20 * kHour + 50 * kMinute,
                                            20 * kHour + 55 * kMinute};
// Index partitions are 4 h from 21:00; the demo trades 2.5 h into each.
inline constexpr int64_t kPartition = 4 * kHour;
inline constexpr int64_t kIntoPartition = 2 * kHour + 30 * kMinute;
inline constexpr int kPartitions = 6;
// Partitions (0-based) in which the futures also trade, beside the window.
inline constexpr int kFuturesPartitions[] = {1, 3};
// $0.01, the tick of every instrument, in price units (1/10,000 USD).
inline constexpr int64_t kTick = 100;
inline constexpr const char* kGrade = "B200-STD";
inline constexpr const char* kRoot = "XB2S";
// Each provider attests this many nodes: what it may sell per delivery day
// (6 partitions x at most 3 lots fit).
inline constexpr int kNodes = 20;
inline constexpr int64_t kMaxSpotLots = 3;
inline constexpr int64_t kMaxFuturesLots = 8;
// Providers re-attest their nodes weekly (B200-STD accepts 30 days).
inline constexpr int64_t kReattestAfter = 7 * kDay;
inline constexpr milliseconds kLogoutWait{1'000};
inline constexpr int kProgressWidth = 24;

inline constexpr std::array<const char*, 3> kProviders = {
    "provider-a", "provider-b", "provider-c"};
inline constexpr std::array<const char*, 3> kProviderFirms = {
    "PROV-A", "PROV-B", "PROV-C"};
inline constexpr std::array<w::RatingTier, 3> kProviderTiers = {
    w::RATING_TIER_PLATINUM, w::RATING_TIER_GOLD, w::RATING_TIER_GOLD};
// Attested output tokens/s per GPU: above both grades' floors.
inline constexpr std::array<uint64_t, 3> kProviderTokens = {301, 292, 297};
inline constexpr std::array<const char*, 3> kTraders = {"trader-a", "trader-b",
                                                        "trader-c"};
inline constexpr std::array<const char*, 2> kClearers = {"clear-1", "clear-2"};

// Days since the epoch of the UTC date of `t`.
inline int64_t DayOf(int64_t t) {
  return t >= 0 ? t / kDay : (t - kDay + 1) / kDay;
}

// The index day of `t`: the date of the next 21:00 fixing at or after it
// (a trade at exactly 21:00 belongs to the next day).
inline int64_t IndexDayOf(int64_t t) {
  const int64_t day = DayOf(t);
  return t - day * kDay >= kFixing ? day + 1 : day;
}

// Status codes to the exit codes of commands.h.
inline int ExitCodeOf(const Status& s) {
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

inline Status Refused(const std::string& m) {
  return FailedPreconditionError(m);
}

inline std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

// "+12", "-3", "0".
inline std::string Signed(int64_t v) {
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
    auto c = client::Client::Connect(o.host, o.port, o.timeout, "",
                                     o.tls ? &*o.tls : nullptr);
    if (!c.has_value()) return c.error();
    client::LogonParams p;
    p.api_key = user;
    p.private_key = DemoPrivateKey(user);
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
  ~Demo() { crypto::Wipe(key_.private_key); }

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
  crypto::Ed25519KeyPair key_;
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

}  // namespace cfx::gateway::cli::internal
