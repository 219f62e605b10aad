#include "gateway/fix/fix_gateway.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/text_format.h"
#include "gateway/config/instrument_table.h"
#include "gateway/config/password.h"
#include "gateway/config/server_config.h"
#include "gateway/config/token_bucket.h"
#include "gateway/fix/collateral_inquiry.h"
#include "gateway/fix/dictionary.h"
#include "gateway/fix/fix_tags.h"
#include "gateway/http/index_page.h"
#include "gateway/http/metrics.h"
#include "gateway/md/market_data.h"
#include "index/index_service.h"
#include "index/print_reading.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway::fix {

using exchange::AccountId;
using exchange::CancelReason;
using exchange::Command;
using exchange::CommandType;
using exchange::Event;
using exchange::EventType;
using exchange::InstrumentId;
using exchange::InstrumentState;
using exchange::OrderId;
using exchange::OrderType;
using exchange::Price;
using exchange::Quantity;
using exchange::RejectCode;
using exchange::Side;
using exchange::TimeInForce;
using tcp = asio::ip::tcp;

namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr std::size_t kMaxClOrdIdLength = 20;
constexpr std::size_t kMaxSubscriptionsPerSession = 256;
constexpr std::size_t kMaxHeldPerSession = 1024;
constexpr std::size_t kSnapshotTrades = 20;
const char* const kNone = "NONE";

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double WallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "HH:MM:SS" of `seconds` after 00:00 UTC (0 <= seconds < 2 days).
std::string TimeOfDay(int64_t seconds) {
  return exchange::FormatUtcTimestamp(
             exchange::Timestamp{seconds * kNanosPerSecond})
      .substr(11, 8);
}

std::string Str(int64_t v) { return std::to_string(v); }
std::string Str(uint64_t v) { return std::to_string(v); }

char SideChar(Side s) { return s == Side::kBuy ? '1' : '2'; }

char TifChar(TimeInForce t) {
  switch (t) {
    case TimeInForce::kGtc:
      return '1';
    case TimeInForce::kIoc:
      return '3';
    case TimeInForce::kFok:
      return '4';
    case TimeInForce::kGtd:
      return '6';
    default:
      return '0';
  }
}

std::optional<TimeInForce> TifOf(const std::string* v) {
  if (v == nullptr) return TimeInForce::kDay;
  if (v->size() != 1) return std::nullopt;
  switch ((*v)[0]) {
    case '0':
      return TimeInForce::kDay;
    case '1':
      return TimeInForce::kGtc;
    case '3':
      return TimeInForce::kIoc;
    case '4':
      return TimeInForce::kFok;
    case '6':
      return TimeInForce::kGtd;
    default:
      return std::nullopt;
  }
}

const char* TradingStatus(InstrumentState s) {
  switch (s) {
    case InstrumentState::kPreOpen:
      return "21";
    case InstrumentState::kOpen:
      return "17";
    case InstrumentState::kHalted:
      return "2";
    case InstrumentState::kClosed:
      return "18";
    case InstrumentState::kExpired:
      return "4";
    default:
      return "20";
  }
}

int OrdRejReason(RejectCode c) {
  switch (c) {
    case RejectCode::kUnknownInstrument:
      return ord_rej_reason::kUnknownSymbol;
    case RejectCode::kInstrumentNotOpen:
    case RejectCode::kInstrumentExpired:
      return ord_rej_reason::kExchangeClosed;
    case RejectCode::kQuantityAboveMaximum:
    case RejectCode::kPositionLimitExceeded:
    case RejectCode::kInsufficientMargin:
    case RejectCode::kNotionalOverflow:
      return ord_rej_reason::kOrderExceedsLimit;
    case RejectCode::kDuplicateClientOrderId:
      return ord_rej_reason::kDuplicateOrder;
    case RejectCode::kQuantityBelowMinimum:
      return ord_rej_reason::kIncorrectQuantity;
    case RejectCode::kUnknownAccount:
      return ord_rej_reason::kUnknownAccount;
    case RejectCode::kPriceOutsideBand:
      return ord_rej_reason::kPriceExceedsCurrentPriceBand;
    case RejectCode::kPostOnlyWouldCross:
    case RejectCode::kMarketOrderNeedsIocOrFok:
    case RejectCode::kPostOnlyNotAllowed:
      return ord_rej_reason::kUnsupportedOrderCharacteristic;
    default:
      return ord_rej_reason::kOther;
  }
}

int CxlRejReason(RejectCode c) {
  switch (c) {
    case RejectCode::kUnknownOrder:
      return cxl_rej_reason::kUnknownOrder;
    case RejectCode::kDuplicateClientOrderId:
      return cxl_rej_reason::kDuplicateClOrdIDReceived;
    case RejectCode::kInstrumentNotOpen:
      return cxl_rej_reason::kBrokerExchangeOption;
    default:
      return cxl_rej_reason::kOther;
  }
}

bool IsDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<uint64_t> ParseU64(std::string_view s) {
  if (!IsDigits(s) || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "YYYYMMDD-HH:MM:SS" with an optional fraction of 1 to 9 digits.
std::optional<int64_t> ParseFixTime(std::string_view s) {
  if (s.size() < 17 || s[8] != '-' || s[11] != ':' || s[14] != ':') {
    return std::nullopt;
  }
  auto num = [&](std::size_t at, std::size_t n) -> int {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  std::tm tm{};
  const int year = num(0, 4), mon = num(4, 2), day = num(6, 2);
  const int h = num(9, 2), m = num(12, 2), sec = num(15, 2);
  if (year < 1970 || mon < 1 || mon > 12 || day < 1 || day > 31 || h < 0 ||
      h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) {
    return std::nullopt;
  }
  int64_t frac = 0;
  if (s.size() > 17) {
    if (s[17] != '.' || s.size() == 18 || s.size() > 27) return std::nullopt;
    std::size_t digits = s.size() - 18;
    for (std::size_t i = 18; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      frac = frac * 10 + (s[i] - '0');
    }
    for (; digits < 9; ++digits) frac *= 10;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  const time_t t = timegm(&tm);
  return int64_t{t} * kNanosPerSecond + frac;
}

// OrderMassCancelReport (r). A refusal has response "0", a reject reason
// (532) and a text; an answer has the affected count.
Message MassCancelReport(const std::string& clordid, const std::string& type,
                         const std::string& symbol, const std::string& response,
                         int reject_reason, const std::string& text,
                         uint64_t affected, exchange::Timestamp ts) {
  Message r;
  r.type = msg_type::kOrderMassCancelReport;
  r.Add(tag::kClOrdID, clordid);
  r.Add(tag::kOrderID, clordid);
  r.Add(tag::kMassCancelRequestType, type);
  r.Add(tag::kMassCancelResponse, response);
  if (response == "0") {
    r.Add(tag::kMassCancelRejectReason, std::to_string(reject_reason));
  } else {
    r.Add(tag::kTotalAffectedOrders, std::to_string(affected));
  }
  if (!symbol.empty()) r.Add(tag::kSymbol, symbol);
  if (!text.empty()) r.Add(tag::kText, text);
  r.Add(tag::kTransactTime, FormatFixTime(ts));
  return r;
}

std::string ClOrdIdProblem() {
  return "ClOrdID(11) must be 1 to 20 printable ASCII characters without "
         "spaces";
}

}  // namespace

uint64_t ClientOrderIdForClOrdId(std::string_view text) {
  if (text.empty() || text.size() > kMaxClOrdIdLength) return 0;
  for (char c : text) {
    if (c <= ' ' || c > '~') return 0;
  }
  if (text.size() <= 18 && IsDigits(text) && text[0] != '0') {
    return *ParseU64(text);
  }
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h | (uint64_t{1} << 63);
}

std::optional<int64_t> ParseFixPrice(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (!IsDigits(whole) || whole.size() > 14) return std::nullopt;
  std::string_view frac;
  if (dot != std::string_view::npos) {
    frac = text.substr(dot + 1);
    if (!IsDigits(frac)) return std::nullopt;
    // Trailing zeros beyond 4 places carry no value ("5.800000").
    while (frac.size() > 4 && frac.back() == '0') frac.remove_suffix(1);
    if (frac.size() > 4) return std::nullopt;
  }
  int64_t v =
      static_cast<int64_t>(*ParseU64(whole)) * exchange::kPriceUnitsPerUsd;
  int64_t scale = exchange::kPriceUnitsPerUsd / 10;
  for (char c : frac) {
    v += (c - '0') * scale;
    scale /= 10;
  }
  return v;
}

std::optional<int64_t> ParseFixQuantity(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (dot != std::string_view::npos) {
    const std::string_view frac = text.substr(dot + 1);
    if (frac.empty() || !std::all_of(frac.begin(), frac.end(),
                                     [](char c) { return c == '0'; })) {
      return std::nullopt;
    }
  }
  const auto v = ParseU64(whole);
  if (!v || *v == 0 || *v > static_cast<uint64_t>(INT64_MAX)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(*v);
}

std::string FormatAvgPx(Int128 notional, int64_t lots) {
  if (lots <= 0) return "0";
  // Engine units are 1e-4 USD; six places are 1e-6: scale by 100.
  const Int128 num = notional * 100;
  Int128 q = num / lots;
  const Int128 r = num % lots;
  if (2 * r > lots || (2 * r == lots && (q & 1) != 0)) ++q;
  const int64_t micros = static_cast<int64_t>(q);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld.%06lld",
                static_cast<long long>(micros / 1'000'000),
                static_cast<long long>(micros % 1'000'000));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string FormatFixTime(exchange::Timestamp t) {
  const time_t secs = static_cast<time_t>(t.nanos / kNanosPerSecond);
  const int millis = static_cast<int>((t.nanos % kNanosPerSecond) / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d-%02d:%02d:%02d.%03d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, millis);
  return buf;
}

std::vector<Field> IndexEntry(const index::Print& p, int64_t fixing_ns) {
  const index::PrintReading r = index::ReadingOf(p);
  std::vector<Field> e;
  e.push_back({tag::kMDEntryType, "3"});
  // A field the print does not have is left out.
  if (r.value.has_value()) e.push_back({tag::kMDEntryPx, *r.value});
  const std::string fixing = FormatFixTime(exchange::Timestamp{fixing_ns});
  e.push_back({tag::kMDEntryDate, fixing.substr(0, 8)});  // YYYYMMDD
  e.push_back({tag::kMDEntryTime, fixing.substr(9)});     // HH:MM:SS.sss
  e.push_back({tag::kCfxIndexLevel, std::string(r.level)});
  e.push_back({tag::kCfxIndexDisrupted, r.disrupted ? "Y" : "N"});
  e.push_back({tag::kCfxIndexRevision, Str(uint64_t{p.revision})});
  e.push_back({tag::kCfxIndexComputedAt,
               FormatFixTime(exchange::Timestamp{p.computed_at_ns})});
  e.push_back({tag::kCfxIndexTradeCount, Str(uint64_t{p.trade_count})});
  e.push_back({tag::kCfxIndexDistinctSellers, Str(uint64_t{p.sellers})});
  e.push_back({tag::kCfxIndexDistinctBuyers, Str(uint64_t{p.buyers})});
  e.push_back({tag::kCfxIndexGPUHours, Str(p.gpu_hours)});
  if (r.p25.has_value()) e.push_back({tag::kCfxIndexP25, *r.p25});
  if (r.p75.has_value()) e.push_back({tag::kCfxIndexP75, *r.p75});
  std::string partitions;
  for (const uint32_t k : r.partitions_used) {
    if (!partitions.empty()) partitions += ' ';
    partitions += Str(uint64_t{k});
  }
  if (!partitions.empty())
    e.push_back({tag::kCfxIndexPartitionsUsed, partitions});
  if (r.usd_per_million_tokens.has_value()) {
    e.push_back({tag::kCfxIndexUSDPerMillionTokens, *r.usd_per_million_tokens});
  }
  if (r.attested_tokens_per_s_per_gpu.has_value()) {
    e.push_back(
        {tag::kCfxIndexAttestedTokensPerGPU, *r.attested_tokens_per_s_per_gpu});
  }
  std::string ids;
  for (const uint64_t id : p.trade_ids) {
    if (!ids.empty()) ids += ' ';
    ids += Str(id);
  }
  if (!ids.empty()) e.push_back({tag::kCfxIndexTradeIDs, std::move(ids)});
  return e;
}

// ------------------------------------------------------------------ state

struct FixGateway::Pending {
  int session = -1;
  char kind = 0;  // D, F, G or q
  std::string clordid;
  std::string orig_clordid;  // F, G: the order's ClOrdID when requested
  uint64_t order_id = 0;     // F, G
  char mass_type = 0;        // q: MassCancelRequestType(530)
  std::string symbol;        // q
  int64_t received_ns = 0;   // D: arrival (steady clock), for order-to-ack
};

struct FixGateway::SessionState {
  int index = 0;
  const UserConfig* user = nullptr;
  std::string comp_id;
  AccountId account;
  std::string account_name;
  const char* trade_denied = nullptr;  // why this session may not trade
  bool logged_on = false;
  // Gets the account's reports, also while logged off (stored for resend):
  // logged on since the start, or holding messages of the current window
  // in its store. A user who never uses FIX costs the gateway nothing.
  bool active = false;
  TokenBucket throttle;
  std::size_t held = 0;
  // Authenticate(): the salted digest of the last password that passed, and
  // when a check last failed.
  bool password_known = false;
  std::array<unsigned char, 32> password_digest{};
  int64_t last_failed_check_ns = 0;
  struct Subscription {
    std::string req_id;
    uint32_t instrument = 0;
    bool book = false;
    bool trades = false;
    // >= 0: the CFX index of this grade (MDEntryType 3); instrument is 0.
    int32_t index_grade = -1;
  };
  std::vector<Subscription> md;
  struct StatusSubscription {
    std::string req_id;
    uint32_t instrument = 0;
  };
  std::vector<StatusSubscription> status;
};

struct FixGateway::Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)) {}
  uint64_t id = 0;
  tcp::socket socket;
  std::array<char, 16 * 1024> in{};
  std::string out;
  std::string writing;
  bool write_in_flight = false;
  bool dirty = false;
  bool closing = false;
  bool dead = false;
};

// ------------------------------------------------------------------ setup

FixGateway::FixGateway(asio::io_context& io, const FixGatewayDeps& deps)
    : io_(io),
      deps_(deps),
      config_(*deps.config),
      instruments_(*deps.instruments),
      acceptor_(io) {}

FixGateway::~FixGateway() {
  if (clordid_fd_ >= 0) ::close(clordid_fd_);
}

Result<std::unique_ptr<FixGateway>> FixGateway::Create(
    asio::io_context& io, const FixGatewayDeps& deps) {
  std::unique_ptr<FixGateway> g(new FixGateway(io, deps));
  std::error_code fec;
  std::filesystem::create_directories(deps.dir, fec);
  if (fec) {
    return Status(StatusCode::kUnavailable,
                  "fix: cannot create " + deps.dir + ": " + fec.message());
  }
  const ServerConfig& config = *deps.config;
  EngineOptions options;
  options.store_dir = deps.dir + "/store";
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
    auto s = std::make_unique<SessionState>();
    s->index = static_cast<int>(g->sessions_.size());
    s->user = &u;
    s->comp_id = u.fix_sender_comp_id;
    s->account = u.account;
    if (u.role != Role::kTrader && u.role != Role::kProvider) {
      s->trade_denied = "this user's role may not enter orders";
    } else if (u.account.value == 0) {
      s->trade_denied = "this user has no trading account";
    }
    if (const AccountInfo* a = config.account(u.account)) {
      s->account_name = a->name;
      g->by_account_[u.account.value].push_back(s->index);
    }
    if (u.role == Role::kClearingMember && !u.clearing_member.empty()) {
      g->by_clearing_member_[u.clearing_member].push_back(s->index);
    }
    options.sessions.push_back(u.fix_sender_comp_id);
    g->sessions_.push_back(std::move(s));
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
  unsigned char salt[16];
  if (RAND_bytes(salt, sizeof salt) != 1) {
    return Status(StatusCode::kUnavailable, "fix: no randomness for a salt");
  }
  g->password_salt_.assign(reinterpret_cast<const char*>(salt), sizeof salt);
  g->reject_exec_prefix_ =
      "R" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()) +
      "-";
  return g;
}

Status FixGateway::Listen(const std::string& address, uint16_t port) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (ec) {
    return Status(
        StatusCode::kInvalidArgument,
        "fix gateway: bad bind address \"" + address + "\": " + ec.message());
  }
  const tcp::endpoint ep(ip, port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "fix gateway: cannot listen on " + address + ":" +
                      std::to_string(port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  Accept();
  return Status();
}

Status FixGateway::GoLive() {
  // Keep the texts still referenced by a known order; drop the rest.
  const std::string tmp = clordid_path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& [id, o] : orders_) {
      auto it = clordid_text_.find({o.account.value, o.clordid});
      if (it != clordid_text_.end()) {
        out << o.account.value << ' ' << o.clordid << ' ' << it->second << '\n';
      }
    }
    out.flush();
    if (!out) {
      return Status(StatusCode::kUnavailable, "fix: cannot write " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, clordid_path_, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable,
                  "fix: cannot replace " + clordid_path_ + ": " + ec.message());
  }
  clordid_fd_ = ::open(clordid_path_.c_str(),
                       O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (clordid_fd_ < 0) {
    return Status(
        StatusCode::kUnavailable,
        "fix: cannot open " + clordid_path_ + ": " + std::strerror(errno));
  }
  live_ = true;
  return Status();
}

void FixGateway::Stop() {
  if (stopped_) return;
  stopped_ = true;
  boost::system::error_code ec;
  acceptor_.close(ec);
  engine_->LogoutAll("the exchange is shutting down");
  Poll();
}

// -------------------------------------------------------------- transport

void FixGateway::Accept() {
  acceptor_.async_accept(
      [this](boost::system::error_code ec, tcp::socket socket) {
        if (stopped_) return;
        if (ec) {
          if (ec != asio::error::operation_aborted) Accept();
          return;
        }
        if (conns_.size() >= 2 * std::size_t{config_.session.max_sessions}) {
          boost::system::error_code ignored;
          socket.close(ignored);
          Accept();
          return;
        }
        boost::system::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        auto c = std::make_shared<Connection>(std::move(socket));
        c->id = next_conn_++;
        conns_[c->id] = c;
        engine_->Connected(c->id, WallSeconds());
        StartRead(c);
        Accept();
      });
}

void FixGateway::StartRead(const std::shared_ptr<Connection>& c) {
  c->socket.async_read_some(
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
      boost::system::error_code ignored;
      c->socket.shutdown(tcp::socket::shutdown_both, ignored);
      c->socket.close(ignored);
      Gone(c);
    }
    return;
  }
  c->writing.clear();
  std::swap(c->out, c->writing);
  c->write_in_flight = true;
  asio::async_write(c->socket, asio::buffer(c->writing),
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
  boost::system::error_code ignored;
  c->socket.close(ignored);
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
      if (sessions_[s]->held > 0) --sessions_[s]->held;
      if (m.type == msg_type::kOrderCancelRequest) OnCancel(s, m, false);
      if (m.type == msg_type::kOrderCancelReplaceRequest) OnCancel(s, m, true);
    }
    work += static_cast<int>(released.size());
  }
  FlushMarketData();
  const int64_t now = SteadyNs();
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

// PBKDF2 costs tens of milliseconds of the gateway thread, which every
// session shares. A password that passed it once is remembered as a salted
// SHA-256 (salt random per process), so a reconnect costs microseconds; and
// after a failed check the session's next check waits a second (attempts in
// between are refused unchecked), so wrong passwords cannot stall the thread.
std::string FixGateway::Authenticate(int session, const std::string& username,
                                     const std::string& password) {
  SessionState& s = *sessions_[static_cast<std::size_t>(session)];
  const UserConfig& u = *s.user;
  static const std::string kInvalid = "invalid username or password";
  auto refuse = [&](const char* why) {
    if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(false);
    Log("fix " + s.comp_id + ": logon refused: " + why);
    return kInvalid;
  };
  if (username != u.name || u.password_hash.empty()) {
    return refuse("invalid username or password");
  }
  std::string salted = password_salt_ + password;
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(salted.data()), salted.size(),
         digest.data());
  OPENSSL_cleanse(salted.data(), salted.size());
  if (s.password_known && CRYPTO_memcmp(digest.data(), s.password_digest.data(),
                                        digest.size()) == 0) {
    if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(true);
    return std::string();
  }
  const int64_t now = SteadyNs();
  if (s.last_failed_check_ns != 0 &&
      now - s.last_failed_check_ns < kNanosPerSecond) {
    return refuse("invalid username or password (checks paused for 1 s)");
  }
  if (!VerifyPassword(u.password_hash, password)) {
    s.last_failed_check_ns = now;
    return refuse("invalid username or password");
  }
  s.password_known = true;
  s.password_digest = digest;
  if (deps_.metrics != nullptr) deps_.metrics->FixLogonResult(true);
  return std::string();
}

void FixGateway::OnLogon(int session) {
  SessionState& s = *sessions_[static_cast<std::size_t>(session)];
  s.logged_on = true;
  s.active = true;
  if (s.user->role == Role::kClearingMember) drop_copy_active_ = true;
  SetSessionsMetric();
  s.throttle.Reset(config_.session.max_messages_per_second, SteadyNs());
  Log("fix " + s.comp_id + ": " + s.user->name + " logged on");
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
  if (m.type == msg_type::kRequestForPositions)
    return OnRequestForPositions(session, m);
  if (m.type == msg_type::kCollateralInquiry)
    return OnCollateralInquiry(session, m);
  if (m.type == msg_type::kMarketDataRequest)
    return OnMarketDataRequest(session, m);
  if (m.type == msg_type::kSecurityListRequest)
    return OnSecurityList(session, m);
  if (m.type == msg_type::kSecurityStatusRequest)
    return OnSecurityStatus(session, m);
  BusinessReject(session, m, business_reject_reason::kUnsupportedMessageType,
                 "", "MsgType " + m.type + " is not accepted by the exchange");
}

bool FixGateway::Submit(int s, const Command& c, const Message& m,
                        const std::string& ref_id) {
  if (!deps_.ring->TryPush(c)) {
    BusinessReject(s, m, business_reject_reason::kApplicationNotAvailable,
                   ref_id,
                   "the exchange is busy; nothing was accepted, try again");
    return false;
  }
  ++commands_submitted_;
  return true;
}

void FixGateway::Send(int s, const Message& m) {
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

namespace {

const std::string& Get(const Message& m, int tag) {
  static const std::string kEmpty;
  const std::string* v = m.Find(tag);
  return v == nullptr ? kEmpty : *v;
}

}  // namespace

void FixGateway::RejectNew(int s, const Message& m, int reason,
                           const std::string& text) {
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  Message r;
  r.type = msg_type::kExecutionReport;
  r.Add(tag::kOrderID, kNone);
  r.Add(tag::kClOrdID, Get(m, tag::kClOrdID));
  r.Add(tag::kExecID, reject_exec_prefix_ + Str(++reject_exec_count_));
  r.Add(tag::kExecType, std::string(1, exec_type::kRejected));
  r.Add(tag::kOrdStatus, std::string(1, ord_status::kRejected));
  if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
  for (int tag : {tag::kSymbol, tag::kSide, tag::kOrderQty, tag::kOrdType,
                  tag::kPrice, tag::kTimeInForce}) {
    if (const std::string* v = m.Find(tag)) r.Add(tag, *v);
  }
  r.Add(tag::kLeavesQty, "0");
  r.Add(tag::kCumQty, "0");
  r.Add(tag::kAvgPx, "0");
  r.Add(tag::kOrdRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, r);
}

void FixGateway::RejectCancel(int s, const Message& m, bool replace,
                              const Order* o, int reason,
                              const std::string& text) {
  Message r;
  r.type = msg_type::kOrderCancelReject;
  r.Add(tag::kOrderID, o != nullptr ? Str(o->id.value) : std::string(kNone));
  r.Add(tag::kClOrdID, Get(m, tag::kClOrdID));
  r.Add(tag::kOrigClOrdID, Get(m, tag::kOrigClOrdID));
  r.Add(tag::kOrdStatus, o != nullptr ? std::string(1, o->status)
                                      : std::string(1, ord_status::kRejected));
  r.Add(tag::kCxlRejResponseTo, replace ? "2" : "1");
  r.Add(tag::kCxlRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  const SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
  r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, r);
}

// --------------------------------------------------------------- requests

void FixGateway::OnNewOrder(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (ss.trade_denied != nullptr) {
    return BusinessReject(s, m, business_reject_reason::kNotAuthorized, clordid,
                          ss.trade_denied);
  }
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0) return RejectNew(s, m, ord_rej_reason::kOther, ClOrdIdProblem());
  if (const std::string* a = m.Find(tag::kAccount);
      a != nullptr && *a != ss.account_name) {
    return RejectNew(s, m, ord_rej_reason::kUnknownAccount,
                     "Account(1) " + *a + " is not this session's account");
  }
  const InstrumentInfo* info = instruments_.Find(Get(m, tag::kSymbol));
  if (info == nullptr) {
    return RejectNew(s, m, ord_rej_reason::kUnknownSymbol,
                     "unknown Symbol(55) " + Get(m, tag::kSymbol));
  }
  const std::string& side = Get(m, tag::kSide);
  if (side != "1" && side != "2") {
    return RejectNew(s, m, ord_rej_reason::kOther,
                     "Side(54) must be 1 (buy) or 2 (sell)");
  }
  const auto qty = ParseFixQuantity(Get(m, tag::kOrderQty));
  if (!qty) {
    return RejectNew(s, m, ord_rej_reason::kIncorrectQuantity,
                     "OrderQty(38) " + Get(m, tag::kOrderQty) +
                         " is not a positive whole number of lots");
  }
  const std::string& ord_type = Get(m, tag::kOrdType);
  if (ord_type != "1" && ord_type != "2") {
    return RejectNew(s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
                     "OrdType(40) must be 1 (market) or 2 (limit)");
  }
  const bool market = ord_type == "1";
  const std::string* price_text = m.Find(tag::kPrice);
  int64_t price = 0;
  if (market) {
    if (price_text != nullptr) {
      return RejectNew(s, m, ord_rej_reason::kOther,
                       "a market order carries no Price(44)");
    }
  } else {
    if (price_text == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          clordid, "Price(44) is required on a limit order");
    }
    const auto p = ParseFixPrice(*price_text);
    if (!p || *p <= 0) {
      return RejectNew(s, m, ord_rej_reason::kOther,
                       "Price(44) " + *price_text +
                           " is not a positive decimal with at most 4 "
                           "decimal places");
    }
    price = *p;
  }
  const auto tif = TifOf(m.Find(tag::kTimeInForce));
  if (!tif) {
    return RejectNew(s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
                     "TimeInForce(59) must be 0 (day), 1 (GTC), 3 (IOC), 4 "
                     "(FOK) or 6 (GTD)");
  }
  const std::string* expire = m.Find(tag::kExpireTime);
  int64_t expire_ns = 0;
  if (*tif == TimeInForce::kGtd) {
    if (expire == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          clordid,
          "ExpireTime(126) is required with TimeInForce 6 "
          "(GTD)");
    }
    const auto t = ParseFixTime(*expire);
    if (!t) {
      return RejectNew(s, m, ord_rej_reason::kOther,
                       "ExpireTime(126) " + *expire +
                           " is not a UTC timestamp YYYYMMDD-HH:MM:SS[.sss]");
    }
    expire_ns = *t;
  } else if (expire != nullptr) {
    return RejectNew(s, m, ord_rej_reason::kOther,
                     "ExpireTime(126) is only for TimeInForce 6 (GTD)");
  }
  uint8_t flags = 0;
  if (const std::string* inst = m.Find(tag::kExecInst)) {
    if (*inst != "6") {
      return RejectNew(
          s, m, ord_rej_reason::kUnsupportedOrderCharacteristic,
          "ExecInst(18) " + *inst + " is not supported; 6 (post-only) is");
    }
    flags = exchange::kFlagPostOnly;
  }
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0) {
    return RejectNew(s, m, ord_rej_reason::kDuplicateOrder,
                     "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid +
                         " is already in flight");
  }
  Command c;
  c.type = CommandType::kNewOrder;
  c.account = ss.account;
  c.instrument = info->id;
  c.side = side == "1" ? Side::kBuy : Side::kSell;
  c.order_type = market ? OrderType::kMarket : OrderType::kLimit;
  c.tif = *tif;
  c.flags = flags;
  c.client_order_id = exchange::ClientOrderId{id};
  c.price = Price{price};
  c.quantity = Quantity{*qty};
  if (*tif == TimeInForce::kGtd)
    c.set_expire_time(exchange::Timestamp{expire_ns});
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = 'D';
  p->clordid = clordid;
  p->received_ns = SteadyNs();
  pending_[key] = std::move(p);
  if ((id >> 63) != 0 && clordid_text_.emplace(key, clordid).second && live_) {
    clordid_buffer_ +=
        Str(uint64_t{ss.account.value}) + ' ' + Str(id) + ' ' + clordid + '\n';
  }
}

void FixGateway::OnCancel(int s, const Message& m, bool replace) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (ss.trade_denied != nullptr) {
    return BusinessReject(s, m, business_reject_reason::kNotAuthorized, clordid,
                          ss.trade_denied);
  }
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0)
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kOther,
                        ClOrdIdProblem());
  if (const std::string* a = m.Find(tag::kAccount);
      a != nullptr && *a != ss.account_name) {
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER");
  }
  Order* o = nullptr;
  const std::string* order_id_text = m.Find(tag::kOrderID);
  if (order_id_text != nullptr) {
    const auto oid = ParseU64(*order_id_text);
    auto it = oid ? orders_.find(*oid) : orders_.end();
    if (it != orders_.end() && it->second.account == ss.account) {
      o = &it->second;
    }
  } else {
    const uint64_t orig = ClientOrderIdForClOrdId(Get(m, tag::kOrigClOrdID));
    const Key okey{ss.account.value, orig};
    auto it = order_by_clordid_.find(okey);
    if (it != order_by_clordid_.end()) {
      auto oit = orders_.find(it->second);
      if (oit != orders_.end()) o = &oit->second;
    }
    if (o == nullptr && orig != 0) {
      auto pit = pending_.find(okey);
      if (pit != pending_.end() && pit->second->kind == 'D') {
        if (ss.held >= kMaxHeldPerSession) {
          return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kOther,
                              "too many requests waiting for their order's "
                              "acknowledgement");
        }
        ++ss.held;
        held_[okey].emplace_back(s, m);
        return;
      }
    }
  }
  if (o == nullptr)
    return RejectCancel(s, m, replace, nullptr, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER");
  if (o->done()) {
    return RejectCancel(s, m, replace, o, cxl_rej_reason::kUnknownOrder,
                        "UNKNOWN_ORDER: the order is already done");
  }
  const InstrumentInfo* info = instruments_.Get(o->instrument);
  if (info == nullptr || Get(m, tag::kSymbol) != info->symbol) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kOther,
        "Symbol(55) " + Get(m, tag::kSymbol) + " is not the order's");
  }
  if (Get(m, tag::kSide) != std::string(1, SideChar(o->side))) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kOther,
        "Side(54) " + Get(m, tag::kSide) + " is not the order's");
  }
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0 || order_by_clordid_.count(key) != 0) {
    return RejectCancel(
        s, m, replace, o, cxl_rej_reason::kDuplicateClOrdIDReceived,
        "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid + " is already in use");
  }
  Command c;
  c.account = ss.account;
  c.client_order_id = exchange::ClientOrderId{id};
  c.set_order_id(o->id);
  if (replace) {
    if (Get(m, tag::kOrdType) != "2") {
      return RejectCancel(s, m, true, o, cxl_rej_reason::kOther,
                          "OrdType(40) must be 2: a resting order is a limit "
                          "order");
    }
    const std::string* price_text = m.Find(tag::kPrice);
    if (price_text == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          clordid, "Price(44) is required on a replace");
    }
    const auto p = ParseFixPrice(*price_text);
    if (!p || *p <= 0) {
      return RejectCancel(s, m, true, o, cxl_rej_reason::kOther,
                          "Price(44) " + *price_text +
                              " is not a positive decimal with at most 4 "
                              "decimal places");
    }
    const auto qty = ParseFixQuantity(Get(m, tag::kOrderQty));
    if (!qty) {
      return RejectCancel(s, m, true, o, cxl_rej_reason::kOther,
                          "OrderQty(38) " + Get(m, tag::kOrderQty) +
                              " is not a positive whole number of lots");
    }
    if (const std::string* t = m.Find(tag::kTimeInForce);
        t != nullptr && *t != std::string(1, TifChar(o->tif))) {
      return RejectCancel(s, m, true, o, cxl_rej_reason::kOther,
                          "TimeInForce(59) cannot be changed by a replace");
    }
    c.type = CommandType::kReplace;
    c.price = Price{*p};
    c.quantity = Quantity{*qty};
  } else {
    c.type = CommandType::kCancel;
  }
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = replace ? 'G' : 'F';
  p->clordid = clordid;
  p->orig_clordid = ClOrdIdText(ss.account, o->clordid);
  p->order_id = o->id.value;
  pending_[key] = std::move(p);
  if (!replace) pending_cancel_by_order_[o->id.value] = key;
  if (replace && (id >> 63) != 0 &&
      clordid_text_.emplace(key, clordid).second && live_) {
    clordid_buffer_ +=
        Str(uint64_t{ss.account.value}) + ' ' + Str(id) + ' ' + clordid + '\n';
  }
}

void FixGateway::OnMassCancel(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (ss.trade_denied != nullptr) {
    return BusinessReject(s, m, business_reject_reason::kNotAuthorized, clordid,
                          ss.trade_denied);
  }
  const std::string& type = Get(m, tag::kMassCancelRequestType);
  auto refuse = [&](int reason, const std::string& text) {
    Send(s, MassCancelReport(clordid, type, Get(m, tag::kSymbol), "0", reason,
                             text, 0, deps_.clock->Now()));
  };
  const uint64_t id = ClientOrderIdForClOrdId(clordid);
  if (id == 0)
    return refuse(mass_cancel_reject_reason::kOther, ClOrdIdProblem());
  InstrumentId instrument;
  if (type == "1") {
    const std::string* sym = m.Find(tag::kSymbol);
    if (sym == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          clordid,
          "Symbol(55) is required with "
          "MassCancelRequestType 1");
    }
    const InstrumentInfo* info = instruments_.Find(*sym);
    if (info == nullptr)
      return refuse(mass_cancel_reject_reason::kInvalidOrUnknownSecurity,
                    "unknown Symbol(55) " + *sym);
    instrument = info->id;
  } else if (type != "7") {
    return refuse(mass_cancel_reject_reason::kMassCancelNotSupported,
                  "MassCancelRequestType(530) must be 1 (security) or 7 (all)");
  }
  const Key key{ss.account.value, id};
  if (pending_.count(key) != 0) {
    return refuse(mass_cancel_reject_reason::kOther,
                  "DUPLICATE_CLIENT_ORDER_ID: ClOrdID " + clordid +
                      " is already in flight");
  }
  Command c;
  c.type = CommandType::kMassCancel;
  c.account = ss.account;
  c.instrument = instrument;
  c.client_order_id = exchange::ClientOrderId{id};
  if (!Submit(s, c, m, clordid)) return;
  auto p = std::make_unique<Pending>();
  p->session = s;
  p->kind = 'q';
  p->clordid = clordid;
  p->mass_type = type[0];
  if (type == "1") p->symbol = Get(m, tag::kSymbol);
  pending_[key] = std::move(p);
}

void FixGateway::OnOrderStatus(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& clordid = Get(m, tag::kClOrdID);
  if (ss.trade_denied != nullptr) {
    return BusinessReject(s, m, business_reject_reason::kNotAuthorized, clordid,
                          ss.trade_denied);
  }
  const Order* o = nullptr;
  bool pending_new = false;
  if (const std::string* oid_text = m.Find(tag::kOrderID)) {
    const auto oid = ParseU64(*oid_text);
    auto it = oid ? orders_.find(*oid) : orders_.end();
    if (it != orders_.end() && it->second.account == ss.account) {
      o = &it->second;
    }
  } else {
    const Key key{ss.account.value, ClientOrderIdForClOrdId(clordid)};
    auto it = order_by_clordid_.find(key);
    if (it != order_by_clordid_.end()) {
      auto oit = orders_.find(it->second);
      if (oit != orders_.end()) o = &oit->second;
    }
    if (o == nullptr) {
      auto pit = pending_.find(key);
      pending_new = pit != pending_.end() && pit->second->kind == 'D';
    }
  }
  Message r;
  r.type = msg_type::kExecutionReport;
  if (o != nullptr) {
    Event none;
    none.ts = deps_.clock->Now();
    r = ExecReport(*o, exec_type::kOrderStatus, none);
  } else {
    r.Add(tag::kOrderID, kNone);
    r.Add(tag::kClOrdID, clordid);
    r.Add(tag::kExecID, reject_exec_prefix_ + Str(++reject_exec_count_));
    r.Add(tag::kExecType, "I");
    r.Add(tag::kOrdStatus, std::string(1, pending_new ? ord_status::kPendingNew
                                                      : ord_status::kRejected));
    if (!ss.account_name.empty()) r.Add(tag::kAccount, ss.account_name);
    for (int tag : {tag::kSymbol, tag::kSide}) {
      if (const std::string* v = m.Find(tag)) r.Add(tag, *v);
    }
    r.Add(tag::kLeavesQty, "0");
    r.Add(tag::kCumQty, "0");
    r.Add(tag::kAvgPx, "0");
    if (!pending_new) {
      r.Add(tag::kOrdRejReason, Str(int64_t{ord_rej_reason::kUnknownOrder}));
      r.Add(tag::kText, "UNKNOWN_ORDER");
    }
    r.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  }
  if (const std::string* req = m.Find(tag::kOrdStatusReqID))
    r.Add(tag::kOrdStatusReqID, *req);
  Send(s, r);
}

// RequestForPositions (AN) -> RequestForPositionsAck (AO), then one
// PositionReport (AP) per account and contract of the business date's
// settlement. A clearing member sees its own accounts, the admin every
// account, anyone else the session's account; an Account(1) outside that
// set is answered like one without positions.
void FixGateway::OnRequestForPositions(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kPosReqID);
  const auto ack = [&](int result, int status, const std::string& text,
                       std::size_t total) {
    Message a;
    a.type = msg_type::kRequestForPositionsAck;
    a.Add(tag::kPosMaintRptID, "AO-" + req_id);
    a.Add(tag::kPosReqID, req_id);
    a.Add(tag::kTotalNumPosReports, Str(static_cast<int64_t>(total)));
    a.Add(tag::kPosReqResult, Str(int64_t{result}));
    a.Add(tag::kPosReqStatus, Str(int64_t{status}));
    if (const std::string* acct = m.Find(tag::kAccount))
      a.Add(tag::kAccount, *acct);
    if (!text.empty()) a.Add(tag::kText, text);
    Send(s, a);
  };
  if (deps_.settlement == nullptr) {
    return ack(4, 2, "positions are not available on this server", 0);
  }
  if (Get(m, tag::kPosReqType) != "0") {
    return ack(1, 2, "PosReqType(724) must be 0 (positions)", 0);
  }
  const settlement::SettlementService& svc = *deps_.settlement;
  int64_t date = 0;
  if (const std::string* d = m.Find(tag::kClearingBusinessDate)) {
    const std::optional<int64_t> day = exchange::ParseCompactDay(*d);
    if (!day.has_value()) {
      return ack(1, 2, "ClearingBusinessDate(715) must be YYYYMMDD", 0);
    }
    date = *day;
  } else {
    const std::vector<int64_t> dates = svc.SettledDates();
    if (dates.empty()) return ack(2, 0, "no business date is settled yet", 0);
    date = dates.back();
  }
  const settlement::RunReport* report = svc.Report(date);
  if (report == nullptr) {
    return ack(2, 0, exchange::FormatCompactDay(date) + " is not settled", 0);
  }
  // Whose accounts this session may see.
  const settlement::SettlementConfig& sc = svc.config();
  uint32_t member = 0;
  bool all = false;
  if (ss.user->role == Role::kAdmin) {
    all = true;
  } else if (ss.user->role == Role::kClearingMember) {
    for (std::size_t i = 1; i < sc.member_names.size(); ++i) {
      if (sc.member_names[i] == ss.user->clearing_member) {
        member = static_cast<uint32_t>(i);
      }
    }
    if (member == 0) return ack(3, 2, "not a clearing member's session", 0);
  }
  const std::string* only = m.Find(tag::kAccount);
  const auto visible = [&](const settlement::AccountSettlement& a) {
    const std::string& name = a.account < sc.account_names.size()
                                  ? sc.account_names[a.account]
                                  : std::string();
    if (only != nullptr && *only != name) return false;
    if (all) return true;
    if (member != 0) return a.member == member;
    return a.account == ss.account.value;
  };
  // The previous business date's prices, for PriorSettlPrice(734).
  const settlement::RunReport* prior = nullptr;
  for (const int64_t d : svc.SettledDates()) {
    if (d < date) prior = svc.Report(d);
  }
  const auto price_of =
      [](const settlement::RunReport* r,
         uint32_t inst) -> const settlement::ContractSettlement* {
    if (r == nullptr) return nullptr;
    for (const settlement::ContractSettlement& c : r->contracts) {
      if (c.instrument == inst) return &c;
    }
    return nullptr;
  };
  std::vector<Message> reports;
  for (const settlement::AccountSettlement& a : report->accounts) {
    if (a.member == 0 || !visible(a)) continue;
    for (const settlement::AccountSettlement::Line& l : a.positions) {
      const settlement::ContractSettlement* c = price_of(report, l.instrument);
      if (c == nullptr) continue;
      const settlement::ContractSettlement* before =
          price_of(prior, l.instrument);
      const std::string prior_price =
          before != nullptr
              ? settlement::SettlementPriceText(sc, *before)
              : settlement::TickPriceText(
                    sc, l.instrument,
                    sc.instruments[l.instrument].initial_reference);
      Message r;
      r.type = msg_type::kPositionReport;
      r.Add(
          tag::kPosMaintRptID,
          "AP-" + req_id + "-" + Str(static_cast<int64_t>(reports.size() + 1)));
      r.Add(tag::kPosReqID, req_id);
      r.Add(tag::kPosReqType, "0");
      r.Add(tag::kPosReqResult, "0");
      r.Add(tag::kClearingBusinessDate, exchange::FormatCompactDay(date));
      r.Add(tag::kAccount, sc.account_names[a.account]);
      r.Add(tag::kAccountType, "1");
      r.Add(tag::kSymbol, sc.instruments[l.instrument].symbol);
      r.Add(tag::kSettlPrice, settlement::SettlementPriceText(sc, *c));
      r.Add(tag::kSettlPriceType, c->final ? "1" : "2");
      r.Add(tag::kPriorSettlPrice, prior_price);
      r.Add(tag::kCfxSettlementTier, settlement::TierName(c->tier));
      if (c->final)
        r.Add(tag::kCfxFinalSettlementDisrupted, c->disrupted ? "Y" : "N");
      r.Add(tag::kCfxInitialMargin, settlement::AmountText(a.initial_margin));
      r.Add(tag::kCfxCollateral, settlement::AmountText(a.collateral));
      Group pos;
      pos.count_tag = tag::kNoPositions;
      pos.delimiter = tag::kPosType;
      const auto quantity = [&pos](const char* type, int64_t lots) {
        pos.entries.push_back(
            {{tag::kPosType, type},
             {tag::kLongQty, Str(std::max<int64_t>(lots, 0))},
             {tag::kShortQty, Str(std::max<int64_t>(-lots, 0))}});
      };
      // A contract closed by final settlement: 0 at the end of the day and
      // the quantity settled at the FSP as its delivery quantity.
      quantity("FIN", l.position);
      if (l.closed) quantity("DLV", l.final_quantity);
      r.groups.push_back(std::move(pos));
      Group amt;
      amt.count_tag = tag::kNoPosAmt;
      amt.delimiter = tag::kPosAmtType;
      amt.entries.push_back(
          {{tag::kPosAmtType, c->final ? "FMTM" : "IMTM"},
           {tag::kPosAmt, settlement::AmountText(l.variation_margin)}});
      r.groups.push_back(std::move(amt));
      reports.push_back(std::move(r));
    }
  }
  if (reports.empty()) {
    return ack(2, 0, "no positions for " + exchange::FormatCompactDay(date), 0);
  }
  ack(0, 0, "", reports.size());
  for (Message& r : reports) {
    r.Add(tag::kTotalNumPosReports, Str(static_cast<int64_t>(reports.size())));
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

void FixGateway::MarketDataReject(int s, const std::string& req_id, int reason,
                                  const std::string& text) {
  Message r;
  r.type = msg_type::kMarketDataRequestReject;
  r.Add(tag::kMDReqID, req_id);
  if (reason >= 0) r.Add(tag::kMDReqRejReason, Str(int64_t{reason}));
  r.Add(tag::kText, text);
  Send(s, r);
}

void FixGateway::OnMarketDataRequest(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kMDReqID);
  const std::string& sub_type = Get(m, tag::kSubscriptionRequestType);
  if (sub_type == "2") {
    const auto before = ss.md.size();
    ss.md.erase(std::remove_if(ss.md.begin(), ss.md.end(),
                               [&](const SessionState::Subscription& x) {
                                 return x.req_id == req_id;
                               }),
                ss.md.end());
    if (ss.md.size() == before) {
      MarketDataReject(s, req_id, -1,
                       "no live subscription has MDReqID " + req_id);
    }
    return;
  }
  if (sub_type != "0" && sub_type != "1") {
    return MarketDataReject(
        s, req_id, md_req_rej_reason::kUnsupportedSubscriptionRequestType,
        "SubscriptionRequestType(263) must be 0, 1 or 2");
  }
  const bool subscribe = sub_type == "1";
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t != nullptr && *t == "3") return OnIndexRequest(s, m, subscribe);
    }
  }
  const auto depth = ParseU64(Get(m, tag::kMarketDepth));
  if (!depth || *depth > 1'000'000) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "MarketDepth(264) must be 0 (full book) or N");
  }
  if (subscribe && *depth != 0) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "a subscription carries the full book: "
                            "MarketDepth(264) must be 0");
  }
  if (const std::string* t = m.Find(tag::kMDUpdateType);
      subscribe && t != nullptr && *t != "1") {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMDUpdateType,
                            "MDUpdateType(265) must be 1 (incremental)");
  }
  bool book = false, trades = false;
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t != nullptr && (*t == "0" || *t == "1")) {
        book = true;
      } else if (t != nullptr && *t == "2") {
        trades = true;
      } else {
        return MarketDataReject(
            s, req_id, md_req_rej_reason::kUnsupportedMDEntryType,
            "MDEntryType(269) " + (t ? *t : std::string()) +
                " is not published; 0 (bid), 1 (offer), 2 (trade) and, for "
                "CFX-<grade> index symbols, 3 (index value) are");
      }
    }
  }
  if (!book && !trades) {
    return BusinessReject(
        s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
        req_id, "NoMDEntryTypes(267) must name at least one type");
  }
  std::vector<const InstrumentInfo*> symbols;
  if (const Group* g = m.FindGroup(tag::kNoRelatedSym)) {
    for (const auto& entry : g->entries) {
      const std::string* sym = FindIn(entry, tag::kSymbol);
      const InstrumentInfo* info =
          sym == nullptr ? nullptr : instruments_.Find(*sym);
      if (info == nullptr && sym != nullptr && IndexGradeOf(*sym) >= 0) {
        return MarketDataReject(s, req_id,
                                md_req_rej_reason::kUnsupportedMDEntryType,
                                *sym +
                                    " is an index: its one MDEntryType(269) "
                                    "is 3 (index value), requested alone");
      }
      if (info == nullptr) {
        return MarketDataReject(s, req_id, md_req_rej_reason::kUnknownSymbol,
                                "unknown Symbol(55) " + (sym ? *sym : ""));
      }
      symbols.push_back(info);
    }
  }
  if (symbols.empty()) {
    return BusinessReject(
        s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
        req_id, "NoRelatedSym(146) must name at least one symbol");
  }
  if (subscribe) {
    for (const auto& x : ss.md) {
      if (x.req_id == req_id) {
        return MarketDataReject(s, req_id, md_req_rej_reason::kDuplicateMDReqID,
                                "MDReqID " + req_id + " is already live");
      }
    }
    if (ss.md.size() + symbols.size() > kMaxSubscriptionsPerSession) {
      return MarketDataReject(
          s, req_id, md_req_rej_reason::kInsufficientBandwidth,
          "at most " + Str(uint64_t{kMaxSubscriptionsPerSession}) +
              " subscriptions per session");
    }
  }
  // Entries built per command are not yet sent: flush them first, so the
  // snapshot and the updates after it line up.
  FlushMarketData();
  const MarketDataStore& md = *deps_.market_data;
  std::vector<BookLevel> levels;
  std::vector<TradeRecord> recent;
  for (const InstrumentInfo* info : symbols) {
    Message w;
    w.type = msg_type::kMarketDataSnapshotFullRefresh;
    w.Add(tag::kMDReqID, req_id);
    w.Add(tag::kSymbol, info->symbol);
    Group g;
    g.count_tag = tag::kNoMDEntries;
    g.delimiter = tag::kMDEntryType;
    if (book) {
      for (Side side : {Side::kBuy, Side::kSell}) {
        md.Levels(info->id, side, *depth, &levels);
        for (const BookLevel& l : levels) {
          g.entries.push_back(
              {{tag::kMDEntryType, side == Side::kBuy ? "0" : "1"},
               {tag::kMDEntryPx, exchange::FormatPrice(l.price)},
               {tag::kMDEntrySize, Str(l.quantity.lots)},
               {tag::kNumberOfOrders, Str(uint64_t{l.order_count})}});
        }
      }
    }
    if (trades) {
      md.RecentTrades(info->id, kSnapshotTrades, &recent);
      for (const TradeRecord& t : recent) {
        g.entries.push_back({{tag::kMDEntryType, "2"},
                             {tag::kMDEntryPx, exchange::FormatPrice(t.price)},
                             {tag::kMDEntrySize, Str(t.quantity.lots)},
                             {tag::kTradeID, Str(t.id.value)}});
      }
    }
    if (g.entries.empty()) {
      w.Add(tag::kNoMDEntries, "0");
    } else {
      w.groups.push_back(std::move(g));
    }
    Send(s, w);
    if (subscribe) {
      ss.md.push_back({req_id, info->id.value, book, trades});
    }
  }
}

int32_t FixGateway::IndexGradeOf(const std::string& symbol) const {
  static constexpr std::string_view kPrefix = "CFX-";
  if (deps_.index == nullptr || symbol.size() <= kPrefix.size() ||
      std::string_view(symbol).substr(0, kPrefix.size()) != kPrefix) {
    return -1;
  }
  return deps_.index->FindGrade(
      std::string_view(symbol).substr(kPrefix.size()));
}

Message FixGateway::IndexSnapshot(const std::string& req_id, uint32_t grade,
                                  const index::Print* print) const {
  Message w;
  w.type = msg_type::kMarketDataSnapshotFullRefresh;
  w.Add(tag::kMDReqID, req_id);
  w.Add(tag::kSymbol, IndexName(deps_.index->config().grades[grade]));
  if (print == nullptr) {
    w.Add(tag::kNoMDEntries, "0");
    return w;
  }
  Group g;
  g.count_tag = tag::kNoMDEntries;
  g.delimiter = tag::kMDEntryType;
  g.entries.push_back(IndexEntry(
      *print, deps_.index->config().methodology.FixingNs(print->day)));
  w.groups.push_back(std::move(g));
  return w;
}

void FixGateway::OnIndexRequest(int s, const Message& m, bool subscribe) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kMDReqID);
  if (const Group* g = m.FindGroup(tag::kNoMDEntryTypes)) {
    for (const auto& entry : g->entries) {
      const std::string* t = FindIn(entry, tag::kMDEntryType);
      if (t == nullptr || *t != "3") {
        return MarketDataReject(s, req_id,
                                md_req_rej_reason::kUnsupportedMDEntryType,
                                "MDEntryType(269) 3 (index value) cannot be "
                                "combined with other entry types: request it "
                                "alone, for CFX-<grade> symbols");
      }
    }
  }
  const auto depth = ParseU64(Get(m, tag::kMarketDepth));
  if (!depth || *depth > 1) {
    return MarketDataReject(s, req_id,
                            md_req_rej_reason::kUnsupportedMarketDepth,
                            "MarketDepth(264) must be 0 or 1 for an index: "
                            "it has one value");
  }
  std::vector<uint32_t> grades;
  if (const Group* g = m.FindGroup(tag::kNoRelatedSym)) {
    for (const auto& entry : g->entries) {
      const std::string* sym = FindIn(entry, tag::kSymbol);
      const std::string name = sym == nullptr ? std::string() : *sym;
      const int32_t grade = IndexGradeOf(name);
      if (grade >= 0) {
        grades.push_back(static_cast<uint32_t>(grade));
      } else if (instruments_.Find(name) != nullptr) {
        return MarketDataReject(s, req_id,
                                md_req_rej_reason::kUnsupportedMDEntryType,
                                "MDEntryType(269) 3 (index value) is "
                                "published for CFX-<grade> index symbols "
                                "only; " +
                                    name + " is an instrument");
      } else {
        return MarketDataReject(s, req_id, md_req_rej_reason::kUnknownSymbol,
                                "unknown index Symbol(55) " + name);
      }
    }
  }
  if (grades.empty()) {
    return BusinessReject(
        s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
        req_id, "NoRelatedSym(146) must name at least one symbol");
  }
  if (subscribe) {
    for (const auto& x : ss.md) {
      if (x.req_id == req_id) {
        return MarketDataReject(s, req_id, md_req_rej_reason::kDuplicateMDReqID,
                                "MDReqID " + req_id + " is already live");
      }
    }
    if (ss.md.size() + grades.size() > kMaxSubscriptionsPerSession) {
      return MarketDataReject(
          s, req_id, md_req_rej_reason::kInsufficientBandwidth,
          "at most " + Str(uint64_t{kMaxSubscriptionsPerSession}) +
              " subscriptions per session");
    }
  }
  // Book and trade entries built for the current command go out first, so
  // every session sees the updates in one order.
  FlushMarketData();
  for (const uint32_t grade : grades) {
    Send(s, IndexSnapshot(req_id, grade, deps_.index->Latest(grade)));
    if (subscribe) {
      SessionState::Subscription sub;
      sub.req_id = req_id;
      sub.index_grade = static_cast<int32_t>(grade);
      ss.md.push_back(std::move(sub));
    }
  }
}

void FixGateway::OnIndexPrint(const index::Print& print) {
  if (!live_ || deps_.index == nullptr) return;
  FlushMarketData();
  for (const auto& s : sessions_) {
    if (!s->logged_on) continue;
    for (const auto& sub : s->md) {
      if (sub.index_grade < 0 ||
          static_cast<uint32_t>(sub.index_grade) != print.grade) {
        continue;
      }
      Send(s->index, IndexSnapshot(sub.req_id, print.grade, &print));
    }
  }
}

void FixGateway::OnSecurityList(int s, const Message& m) {
  const std::string& req_id = Get(m, tag::kSecurityReqID);
  const std::string& type = Get(m, tag::kSecurityListRequestType);
  std::vector<const InstrumentInfo*> list;
  if (type == "4") {
    instruments_.ForEach(
        [&list](const InstrumentInfo& i) { list.push_back(&i); });
  } else if (type == "0") {
    const std::string* sym = m.Find(tag::kSymbol);
    if (sym == nullptr) {
      return BusinessReject(
          s, m, business_reject_reason::kConditionallyRequiredFieldMissing,
          req_id,
          "Symbol(55) is required with "
          "SecurityListRequestType 0");
    }
    if (const InstrumentInfo* i = instruments_.Find(*sym)) {
      list.push_back(i);
    }
  } else {
    return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                          "SecurityListRequestType(559) must be 0 (symbol) "
                          "or 4 (all)");
  }
  Message y;
  y.type = msg_type::kSecurityList;
  y.Add(tag::kSecurityReqID, req_id);
  y.Add(tag::kSecurityResponseID, req_id);
  y.Add(tag::kSecurityRequestResult, list.empty() ? "2" : "0");
  if (list.empty()) {
    y.Add(tag::kText, "no instrument matches");
    Send(s, y);
    return;
  }
  Group g;
  g.count_tag = tag::kNoRelatedSym;
  g.delimiter = tag::kSymbol;
  for (const InstrumentInfo* i : list) {
    std::vector<Field> e;
    e.push_back({tag::kSymbol, i->symbol});
    const bool future = i->kind == exchange::InstrumentKind::kFuture;
    e.push_back({tag::kSecurityType, future ? "FUT" : "SPOT"});
    if (future && i->maturity.size() == 7) {
      e.push_back({tag::kMaturityMonthYear,
                   i->maturity.substr(0, 4) + i->maturity.substr(5, 2)});
    }
    // MaturityDate: a future's last trading day, a spot's delivery day.
    const std::string& d = future ? i->last_trading_day : i->delivery_date;
    if (d.size() == 10) {
      e.push_back({tag::kMaturityDate,
                   d.substr(0, 4) + d.substr(5, 2) + d.substr(8, 2)});
    }
    e.push_back({tag::kCurrency, "USD"});
    const std::size_t idx = i->id.value - 1;
    if (idx < config_.engine.instruments.size()) {
      e.push_back(
          {tag::kMinPriceIncrement,
           exchange::FormatPrice(config_.engine.instruments[idx].tick)});
    }
    e.push_back({tag::kContractMultiplier, Str(i->contract_gpu_hours)});
    e.push_back({tag::kCfxGrade, i->grade});
    e.push_back({tag::kCfxContractUnit, "GPU-HOUR"});
    e.push_back({tag::kSecurityTradingStatus,
                 TradingStatus(deps_.market_data->state(i->id))});
    g.entries.push_back(std::move(e));
  }
  y.groups.push_back(std::move(g));
  Send(s, y);
}

void FixGateway::OnSecurityStatus(int s, const Message& m) {
  SessionState& ss = *sessions_[static_cast<std::size_t>(s)];
  const std::string& req_id = Get(m, tag::kSecurityStatusReqID);
  const std::string& type = Get(m, tag::kSubscriptionRequestType);
  const InstrumentInfo* info = instruments_.Find(Get(m, tag::kSymbol));
  if (type == "2") {
    ss.status.erase(
        std::remove_if(ss.status.begin(), ss.status.end(),
                       [&](const SessionState::StatusSubscription& x) {
                         return x.req_id == req_id;
                       }),
        ss.status.end());
    return;
  }
  if (info == nullptr) {
    return BusinessReject(s, m, business_reject_reason::kUnknownSecurity,
                          req_id, "unknown Symbol(55) " + Get(m, tag::kSymbol));
  }
  if (type != "0" && type != "1") {
    return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                          "SubscriptionRequestType(263) must be 0, 1 or 2");
  }
  if (type == "1") {
    if (ss.status.size() >= kMaxSubscriptionsPerSession) {
      return BusinessReject(s, m, business_reject_reason::kOther, req_id,
                            "too many security status subscriptions");
    }
    ss.status.push_back({req_id, info->id.value});
  }
  Message f;
  f.type = msg_type::kSecurityStatus;
  f.Add(tag::kSecurityStatusReqID, req_id);
  f.Add(tag::kSymbol, info->symbol);
  f.Add(tag::kSecurityTradingStatus,
        TradingStatus(deps_.market_data->state(info->id)));
  f.Add(tag::kTransactTime, FormatFixTime(deps_.clock->Now()));
  Send(s, f);
}

// ---------------------------------------------------------------- clordids

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

// ------------------------------------------------------------------ events

std::string FixGateway::NextExecId(exchange::Seq seq) {
  if (seq != exec_seq_) {
    exec_seq_ = seq;
    exec_index_ = 0;
  }
  return Str(seq.value) + "-" + Str(uint64_t{exec_index_++});
}

Message FixGateway::ExecReport(const Order& o, char type, const Event& e) {
  Message r;
  r.type = msg_type::kExecutionReport;
  r.Add(tag::kOrderID, Str(o.id.value));
  r.Add(tag::kClOrdID, ClOrdIdText(o.account, o.clordid));
  r.Add(tag::kExecID, type == exec_type::kOrderStatus
                          ? reject_exec_prefix_ + Str(++reject_exec_count_)
                          : NextExecId(e.seq));
  r.Add(tag::kExecType, std::string(1, type));
  r.Add(tag::kOrdStatus, std::string(1, o.status));
  if (const AccountInfo* a = config_.account(o.account))
    r.Add(tag::kAccount, a->name);
  if (const InstrumentInfo* i = instruments_.Get(o.instrument)) {
    r.Add(tag::kSymbol, i->symbol);
  }
  r.Add(tag::kSide, std::string(1, SideChar(o.side)));
  r.Add(tag::kOrderQty, Str(o.quantity.lots));
  r.Add(tag::kOrdType, o.type == OrderType::kMarket ? "1" : "2");
  if (o.type != OrderType::kMarket)
    r.Add(tag::kPrice, exchange::FormatPrice(o.price));
  r.Add(tag::kTimeInForce, std::string(1, TifChar(o.tif)));
  r.Add(tag::kLeavesQty, Str(o.leaves.lots));
  r.Add(tag::kCumQty, Str(o.filled.lots));
  r.Add(tag::kAvgPx, FormatAvgPx(o.notional, o.filled.lots));
  r.Add(tag::kTransactTime, FormatFixTime(e.ts));
  return r;
}

bool FixGateway::Watched(AccountId account) const {
  if (account.value >= by_account_.size()) return false;
  for (int s : by_account_[account.value]) {
    if (sessions_[static_cast<std::size_t>(s)]->active) return true;
  }
  return false;
}

void FixGateway::SendToAccount(AccountId account, const Message& m) {
  if (account.value >= by_account_.size()) return;
  for (int s : by_account_[account.value]) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, m);
  }
}

void FixGateway::SendDropCopy(const Order& o, const Message& r) {
  if (!drop_copy_active_) return;
  const AccountInfo* a = config_.account(o.account);
  if (a == nullptr) return;
  auto cm = by_clearing_member_.find(a->clearing_member);
  if (cm == by_clearing_member_.end()) return;
  Message copy = r;
  copy.Add(tag::kCopyMsgIndicator, "Y");
  for (int s : cm->second) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, copy);
  }
}

void FixGateway::TradeBust(const Event& e) {
  auto it = spot_fills_.find(e.trade_id.value);
  if (it == spot_fills_.end()) return;
  const SpotFill f = it->second;
  spot_fills_.erase(it);
  if (!live_) return;
  const std::string text =
      std::string("trade busted: delivery failure reported by the ") +
      (e.side == exchange::Side::kBuy ? "buyer" : "seller");
  for (const Order* o : {&f.buy, &f.sell}) {
    Message r = ExecReport(*o, exec_type::kTradeCancel, e);
    r.Add(tag::kLastQty, Str(f.quantity.lots));
    r.Add(tag::kLastPx, exchange::FormatPrice(f.price));
    r.Add(tag::kTrdMatchID, Str(e.trade_id.value));
    r.Add(tag::kText, text);
    if (Watched(o->account)) SendToAccount(o->account, r);
    SendDropCopy(*o, r);
  }
}

void FixGateway::DropCopy(const Event& e, bool counter) {
  if (!drop_copy_active_) return;
  const OrderId id = counter ? e.counter_order_id : e.order_id;
  auto it = orders_.find(id.value);
  if (it == orders_.end()) return;
  const AccountInfo* a = config_.account(it->second.account);
  if (a == nullptr) return;
  auto cm = by_clearing_member_.find(a->clearing_member);
  if (cm == by_clearing_member_.end()) return;
  if (std::none_of(cm->second.begin(), cm->second.end(), [this](int s) {
        return sessions_[static_cast<std::size_t>(s)]->active;
      })) {
    return;
  }
  Message r = ExecReport(it->second, exec_type::kTrade, e);
  r.Add(tag::kLastQty, Str(e.quantity.lots));
  r.Add(tag::kLastPx, exchange::FormatPrice(e.price));
  r.Add(tag::kTrdMatchID, Str(e.trade_id.value));
  r.Add(tag::kCopyMsgIndicator, "Y");
  for (int s : cm->second) {
    if (sessions_[static_cast<std::size_t>(s)]->active) Send(s, r);
  }
}

namespace {

void Fill(FixGateway::Order* o, Quantity leaves, Quantity filled,
          const Event& e) {
  o->leaves = leaves;
  o->filled = filled;
  o->notional += static_cast<Int128>(e.price.units) * e.quantity.lots;
  o->status =
      leaves.lots == 0 ? ord_status::kFilled : ord_status::kPartiallyFilled;
}

}  // namespace

void FixGateway::OnEvent(const Event& e) {
  if (live_) {
    FlushClOrdIdFile();
    if (e.seq != md_seq_) FlushMarketData();
    md_seq_ = e.seq;
    MarketData(e);
  }
  auto find = [&](OrderId id) -> Order* {
    auto it = orders_.find(id.value);
    return it == orders_.end() ? nullptr : &it->second;
  };
  auto take = [&](AccountId a, exchange::ClientOrderId c,
                  char kind) -> std::unique_ptr<Pending> {
    if (pending_.empty()) return nullptr;
    auto it = pending_.find({a.value, c.value});
    if (it == pending_.end() || it->second->kind != kind) return nullptr;
    auto p = std::move(it->second);
    pending_.erase(it);
    return p;
  };
  auto release = [&](AccountId a, exchange::ClientOrderId c) {
    if (held_.empty()) return;
    auto it = held_.find({a.value, c.value});
    if (it == held_.end()) return;
    for (auto& h : it->second) released_.push_back(std::move(h));
    held_.erase(it);
  };
  switch (e.type) {
    case EventType::kOrderAccepted: {
      Order& ref = orders_[e.order_id.value];
      ref = Order{};
      ref.id = e.order_id;
      ref.account = e.account;
      ref.instrument = e.instrument;
      ref.side = e.side;
      ref.type = e.order_type;
      ref.tif = e.tif;
      ref.price = e.price;
      ref.quantity = e.quantity;
      ref.leaves = e.leaves;
      ref.filled = e.filled;
      ref.clordid = e.client_order_id.value;
      ref.status = ord_status::kNew;
      order_by_clordid_[{e.account.value, e.client_order_id.value}] =
          e.order_id.value;
      auto p = take(e.account, e.client_order_id, 'D');
      if (p != nullptr && deps_.metrics != nullptr) {
        deps_.metrics->ObserveOrderToAck(
            static_cast<double>(SteadyNs() - p->received_ns) * 1e-9);
      }
      if (live_ && Watched(e.account)) {
        SendToAccount(e.account, ExecReport(ref, exec_type::kNew, e));
      }
      release(e.account, e.client_order_id);
      break;
    }
    case EventType::kTrade: {
      Order* a = find(e.order_id);
      Order* c = find(e.counter_order_id);
      if (a != nullptr) Fill(a, e.leaves, e.filled, e);
      if (c != nullptr) Fill(c, e.counter_leaves, e.counter_filled, e);
      if (!live_) break;
      for (Order* o : {a, c}) {
        if (o == nullptr || !Watched(o->account)) continue;
        Message r = ExecReport(*o, exec_type::kTrade, e);
        r.Add(tag::kLastQty, Str(e.quantity.lots));
        r.Add(tag::kLastPx, exchange::FormatPrice(e.price));
        r.Add(tag::kTrdMatchID, Str(e.trade_id.value));
        SendToAccount(o->account, r);
      }
      DropCopy(e, false);
      DropCopy(e, true);
      if (a != nullptr && c != nullptr) {
        const InstrumentInfo* info = instruments_.Get(e.instrument);
        if (info != nullptr && info->spot_slot) {
          const bool a_buys = e.side == exchange::Side::kBuy;
          spot_fills_[e.trade_id.value] =
              SpotFill{a_buys ? *a : *c, a_buys ? *c : *a, e.price, e.quantity};
        }
      }
      break;
    }
    case EventType::kTradeBusted:
      TradeBust(e);
      break;
    case EventType::kCancelAccepted:
    case EventType::kOrderCancelled: {
      Order* o = find(e.order_id);
      if (o == nullptr) break;
      const bool expired = e.type == EventType::kOrderCancelled &&
                           e.cancel_reason() == CancelReason::kExpired;
      o->leaves = Quantity{0};
      o->filled = e.filled;
      o->status = expired ? ord_status::kExpired : ord_status::kCanceled;
      std::unique_ptr<Pending> p;
      if (e.type == EventType::kCancelAccepted) {
        auto it = pending_cancel_by_order_.find(e.order_id.value);
        if (it != pending_cancel_by_order_.end()) {
          auto pit = pending_.find(it->second);
          if (pit != pending_.end()) {
            p = std::move(pit->second);
            pending_.erase(pit);
          }
          pending_cancel_by_order_.erase(it);
        }
      }
      if (!live_ || !Watched(o->account)) break;
      Message r = ExecReport(
          *o, expired ? exec_type::kExpired : exec_type::kCanceled, e);
      if (p != nullptr) {
        for (Field& f : r.fields) {
          if (f.tag == tag::kClOrdID) f.value = p->clordid;
        }
        r.Add(tag::kOrigClOrdID, p->orig_clordid);
      }
      if (e.type == EventType::kOrderCancelled) {
        r.Add(tag::kText,
              std::string(exchange::CancelReasonName(e.cancel_reason())));
      }
      SendToAccount(o->account, r);
      break;
    }
    case EventType::kOrderReplaced: {
      Order* o = find(e.order_id);
      if (o == nullptr) break;
      const uint64_t old = o->clordid;
      o->clordid = e.client_order_id.value;
      o->price = e.price;
      o->quantity = e.quantity;
      o->leaves = e.leaves;
      o->filled = e.filled;
      o->status =
          e.filled.lots > 0 ? ord_status::kPartiallyFilled : ord_status::kNew;
      order_by_clordid_[{e.account.value, e.client_order_id.value}] =
          e.order_id.value;
      auto p = take(e.account, e.client_order_id, 'G');
      if (!live_ || !Watched(o->account)) break;
      Message r = ExecReport(*o, exec_type::kReplaced, e);
      r.Add(tag::kOrigClOrdID,
            p != nullptr ? p->orig_clordid : ClOrdIdText(o->account, old));
      SendToAccount(o->account, r);
      break;
    }
    case EventType::kOrderRestated: {
      Order* o = find(e.order_id);
      if (o == nullptr) break;
      o->leaves = e.leaves;
      if (!live_ || !Watched(o->account)) break;
      Message r = ExecReport(*o, exec_type::kRestated, e);
      r.Add(tag::kExecRestatementReason, "8");
      r.Add(tag::kText,
            std::string(exchange::CancelReasonName(e.cancel_reason())));
      SendToAccount(o->account, r);
      break;
    }
    case EventType::kMassCancelDone: {
      auto p = take(e.account, e.client_order_id, 'q');
      if (!live_ || p == nullptr) break;
      const std::string type(1, p->mass_type);
      Send(p->session, MassCancelReport(p->clordid, type, p->symbol, type, 0,
                                        "", e.count, e.ts));
      break;
    }
    case EventType::kRejected: {
      std::string reason(exchange::RejectCodeName(e.reject_code()));
      // Name the requirement a spot sell misses (docs/matching.md).
      if (e.reject_code() == exchange::RejectCode::kGradeNotEligible) {
        reason += ": ";
        reason += exchange::EligibilityName(
            static_cast<exchange::Eligibility>(e.count));
      }
      if (e.command == CommandType::kNewOrder) {
        auto p = take(e.account, e.client_order_id, 'D');
        release(e.account, e.client_order_id);
        if (!live_ || !Watched(e.account)) break;
        Message r;
        r.type = msg_type::kExecutionReport;
        r.Add(tag::kOrderID, kNone);
        r.Add(tag::kClOrdID,
              p != nullptr ? p->clordid
                           : ClOrdIdText(e.account, e.client_order_id.value));
        r.Add(tag::kExecID, NextExecId(e.seq));
        r.Add(tag::kExecType, std::string(1, exec_type::kRejected));
        r.Add(tag::kOrdStatus, std::string(1, ord_status::kRejected));
        if (const AccountInfo* a = config_.account(e.account))
          r.Add(tag::kAccount, a->name);
        if (const InstrumentInfo* i = instruments_.Get(e.instrument)) {
          r.Add(tag::kSymbol, i->symbol);
        }
        if (e.side != Side::kNone)
          r.Add(tag::kSide, std::string(1, SideChar(e.side)));
        r.Add(tag::kOrderQty, Str(e.quantity.lots));
        if (e.price.units != 0)
          r.Add(tag::kPrice, exchange::FormatPrice(e.price));
        r.Add(tag::kLeavesQty, "0");
        r.Add(tag::kCumQty, "0");
        r.Add(tag::kAvgPx, "0");
        r.Add(tag::kOrdRejReason, Str(int64_t{OrdRejReason(e.reject_code())}));
        r.Add(tag::kText, reason);
        r.Add(tag::kTransactTime, FormatFixTime(e.ts));
        SendToAccount(e.account, r);
      } else if (e.command == CommandType::kCancel ||
                 e.command == CommandType::kReplace) {
        const bool replace = e.command == CommandType::kReplace;
        auto p = take(e.account, e.client_order_id, replace ? 'G' : 'F');
        if (!replace) pending_cancel_by_order_.erase(e.order_id.value);
        if (!live_ || (p == nullptr && !Watched(e.account))) break;
        Order* o = find(e.order_id);
        if (o != nullptr && o->account != e.account) o = nullptr;
        Message r;
        r.type = msg_type::kOrderCancelReject;
        r.Add(tag::kOrderID,
              o != nullptr ? Str(o->id.value) : std::string(kNone));
        r.Add(tag::kClOrdID,
              p != nullptr ? p->clordid
                           : ClOrdIdText(e.account, e.client_order_id.value));
        r.Add(tag::kOrigClOrdID, p != nullptr ? p->orig_clordid
                                 : o != nullptr
                                     ? ClOrdIdText(o->account, o->clordid)
                                     : std::string(kNone));
        r.Add(tag::kOrdStatus, o != nullptr
                                   ? std::string(1, o->status)
                                   : std::string(1, ord_status::kRejected));
        r.Add(tag::kCxlRejResponseTo, replace ? "2" : "1");
        r.Add(tag::kCxlRejReason, Str(int64_t{CxlRejReason(e.reject_code())}));
        r.Add(tag::kText, reason);
        if (const AccountInfo* a = config_.account(e.account))
          r.Add(tag::kAccount, a->name);
        r.Add(tag::kTransactTime, FormatFixTime(e.ts));
        if (p != nullptr) {
          Send(p->session, r);
        } else {
          SendToAccount(e.account, r);
        }
      } else if (e.command == CommandType::kMassCancel) {
        auto p = take(e.account, e.client_order_id, 'q');
        if (!live_ || p == nullptr) break;
        const int why =
            e.reject_code() == RejectCode::kUnknownInstrument
                ? mass_cancel_reject_reason::kInvalidOrUnknownSecurity
                : mass_cancel_reject_reason::kOther;
        Send(p->session,
             MassCancelReport(p->clordid, std::string(1, p->mass_type),
                              p->symbol, "0", why, reason, 0, e.ts));
      }
      break;
    }
    case EventType::kInstrumentListed:
      // Its previous listing's trades can no longer be busted.
      std::erase_if(spot_fills_, [&e](const auto& kv) {
        return kv.second.buy.instrument == e.instrument;
      });
      // A spot slot listed again is a new instrument: subscriptions to its
      // previous listing end (they named the old symbol).
      for (const auto& s : sessions_) {
        std::erase_if(s->md, [&](const SessionState::Subscription& x) {
          return x.instrument == e.instrument.value;
        });
        std::erase_if(s->status,
                      [&](const SessionState::StatusSubscription& x) {
                        return x.instrument == e.instrument.value;
                      });
      }
      break;
    case EventType::kInstrumentStateChanged: {
      if (!live_) break;
      const InstrumentInfo* info = instruments_.Get(e.instrument);
      if (info == nullptr) break;
      for (const auto& s : sessions_) {
        if (!s->logged_on) continue;
        for (const auto& sub : s->status) {
          if (sub.instrument != e.instrument.value) continue;
          Message f;
          f.type = msg_type::kSecurityStatus;
          f.Add(tag::kSecurityStatusReqID, sub.req_id);
          f.Add(tag::kSymbol, info->symbol);
          f.Add(tag::kSecurityTradingStatus, TradingStatus(e.state));
          f.Add(tag::kTransactTime, FormatFixTime(e.ts));
          Send(s->index, f);
        }
      }
      break;
    }
    case EventType::kSessionEnded:
      if (e.instrument.value != 0) break;
      // The trading day is over: forget finished orders and their ClOrdIDs
      // (client order ids are unique per day).
      for (auto it = orders_.begin(); it != orders_.end();) {
        it = it->second.done() ? orders_.erase(it) : std::next(it);
      }
      for (auto it = order_by_clordid_.begin();
           it != order_by_clordid_.end();) {
        auto o = orders_.find(it->second);
        const bool keep =
            o != orders_.end() && o->second.clordid == it->first.second;
        it = keep ? std::next(it) : order_by_clordid_.erase(it);
      }
      for (auto it = clordid_text_.begin(); it != clordid_text_.end();) {
        const bool keep = order_by_clordid_.count(it->first) != 0 ||
                          pending_.count(it->first) != 0;
        it = keep ? std::next(it) : clordid_text_.erase(it);
      }
      break;
    default:
      break;
  }
}

void FixGateway::MarketData(const Event& e) {
  if (e.type != EventType::kBookLevel && e.type != EventType::kTrade) return;
  const InstrumentInfo* info = instruments_.Get(e.instrument);
  if (info == nullptr) return;
  bool wanted = false;
  for (const auto& s : sessions_) {
    for (const auto& sub : s->md) {
      if (sub.instrument == e.instrument.value &&
          (e.type == EventType::kTrade ? sub.trades : sub.book)) {
        wanted = true;
      }
    }
  }
  if (!wanted) return;
  std::vector<Field> entry;
  if (e.type == EventType::kBookLevel) {
    const bool gone = e.quantity.lots <= 0;
    const char* action =
        gone                                                         ? "2"
        : deps_.market_data->HasLevel(e.instrument, e.side, e.price) ? "1"
                                                                     : "0";
    entry.push_back({tag::kMDUpdateAction, action});
    entry.push_back({tag::kMDEntryType, e.side == Side::kBuy ? "0" : "1"});
    entry.push_back({tag::kSymbol, info->symbol});
    entry.push_back({tag::kMDEntryPx, exchange::FormatPrice(e.price)});
    if (!gone) {
      entry.push_back({tag::kMDEntrySize, Str(e.quantity.lots)});
      entry.push_back({tag::kNumberOfOrders, Str(uint64_t{e.count})});
    }
  } else {
    entry.push_back({tag::kMDUpdateAction, "0"});
    entry.push_back({tag::kMDEntryType, "2"});
    entry.push_back({tag::kSymbol, info->symbol});
    entry.push_back({tag::kMDEntryPx, exchange::FormatPrice(e.price)});
    entry.push_back({tag::kMDEntrySize, Str(e.quantity.lots)});
    entry.push_back({tag::kTradeID, Str(e.trade_id.value)});
  }
  md_entries_.emplace_back(e.instrument.value, std::move(entry));
}

void FixGateway::FlushMarketData() {
  if (md_entries_.empty()) return;
  for (const auto& s : sessions_) {
    if (!s->logged_on) continue;
    for (const auto& sub : s->md) {
      if (sub.index_grade >= 0) continue;
      Group g;
      g.count_tag = tag::kNoMDEntries;
      g.delimiter = tag::kMDUpdateAction;
      for (const auto& [instrument, entry] : md_entries_) {
        if (instrument != sub.instrument) continue;
        const bool trade = entry[1].value == "2";
        if (trade ? !sub.trades : !sub.book) continue;
        g.entries.push_back(entry);
      }
      if (g.entries.empty()) continue;
      Message x;
      x.type = msg_type::kMarketDataIncrementalRefresh;
      x.Add(tag::kMDReqID, sub.req_id);
      x.groups.push_back(std::move(g));
      Send(s->index, x);
    }
  }
  md_entries_.clear();
}

}  // namespace cfx::gateway::fix
