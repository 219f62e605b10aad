#include "tests/bench/index_bench.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "index/index_service.h"
#include "tests/bench/cpu_sample.h"
#include "tests/bench/engine_runner.h"
#include "tests/bench/rng.h"
#include "tests/bench/text.h"

namespace cfx::bench {
namespace {

using exchange::Event;
using exchange::EventType;
using index::FixingInput;
using index::IndexConfig;
using index::IndexService;
using index::IndexTrade;
using index::Level;
using index::Print;
using Clock = std::chrono::steady_clock;

// The fixed day: 2027-01-16, so its trades run from 2027-01-15 21:00 UTC.
constexpr int64_t kDay = 20'834;
constexpr uint32_t kSpotInstrument = 1;
constexpr uint32_t kSellerFirms = 50;    // firms and accounts 1-50
constexpr uint32_t kBuyerFirms = 200;    // firms and accounts 51-250
constexpr uint32_t kSameFirmSeller = 3;  // its second account is 251
constexpr uint32_t kSameFirmBuyerAccount = 251;
constexpr uint32_t kAffiliatedSeller = 4;  // affiliated with firm 251
constexpr uint32_t kAffiliatedBuyerAccount = 252;
constexpr uint32_t kAffiliatedBuyerFirm = 251;
constexpr uint32_t kAccounts = 253;  // ids 0-252; 0 unused
constexpr uint64_t kPreviousDayTrades = 5'000;
constexpr int64_t kPriceUnitsPerCent = exchange::kPriceUnitsPerUsd / 100;
constexpr int64_t kMicrosPerPriceUnit =
    exchange::kMicrosPerUsd / exchange::kPriceUnitsPerUsd;
constexpr int64_t kCenterCents = 580;
// Outside [I/1.5, I*1.5] for any previous print near $5.80.
constexpr int64_t kErroneousCents[2] = {250, 1'200};
constexpr int64_t kSecond = index::kNanosPerSecond;
// Added to the price in each 4-hour partition of the day.
constexpr int64_t kDriftCents[6] = {0, 1, 2, 1, 0, -1};

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void Progress(const IndexBenchOptions& o, const std::string& line) {
  if (!o.quiet) std::fprintf(stderr, "cfx-bench index: %s\n", line.c_str());
}

// Draws ranks 1..n with probability proportional to 1 / rank^1.5. The
// weights are integers (sqrt is correctly rounded), so a seed gives the
// same draws everywhere.
class SkewedRanks {
 public:
  explicit SkewedRanks(uint32_t n) {
    uint64_t total = 0;
    for (uint32_t r = 1; r <= n; ++r) {
      const double rank = static_cast<double>(r);
      total +=
          static_cast<uint64_t>(std::llround(1e9 / (rank * std::sqrt(rank))));
      cumulative_.push_back(total);
    }
  }
  uint32_t Draw(Rng& rng) const {
    const uint64_t x = rng.Uniform(cumulative_.back());
    return static_cast<uint32_t>(
               std::upper_bound(cumulative_.begin(), cumulative_.end(), x) -
               cumulative_.begin()) +
           1;
  }

 private:
  std::vector<uint64_t> cumulative_;
};

enum class Kind : uint8_t {
  kOrdinary,
  kErroneous,
  kSameFirm,
  kAffiliated,
  kBusted,
};

// One generated trade, before it becomes an event.
struct GenTrade {
  int64_t ts_ns = 0;
  int64_t price_units = 0;
  int64_t lots = 0;
  uint32_t seller_account = 0;
  uint32_t buyer_account = 0;
  bool aggressor_buys = false;
  int64_t bust_ns = 0;  // 0 = not busted
  Kind kind = Kind::kOrdinary;
};

// The seller's attested output, thousandths of tokens/s/GPU: 1,800 to 2,170
// tokens/s/GPU depending on the firm.
uint32_t MilliTokens(uint32_t seller_firm) {
  return 1'800'000 + 37'000 * (seller_firm % 11);
}

struct IndexWorkload {
  IndexConfig config;
  // The previous day's trade events, then its kIndexFixing event.
  std::vector<Event> previous_events;
  // The day's trade and bust events in seq order, then its kIndexFixing.
  std::vector<Event> day_events;
  Event fixing;
  // The same trades as the service should see them, in match order.
  std::vector<IndexTrade> previous_trades;
  std::vector<IndexTrade> day_trades;
  uint64_t busts = 0;
  uint64_t erroneous = 0;
  uint64_t same_firm = 0;
  uint64_t affiliated = 0;
  double top_seller_share = 0;
  double top_buyer_share = 0;
};

IndexConfig MakeConfig() {
  IndexConfig c;
  c.grades = {"B200-STD"};
  c.gpu_hours_per_lot = {c.methodology.gpu_hours_per_lot};
  c.reference_grade = {-1};
  c.instrument_grade.assign(kSpotInstrument + 1, 0);
  c.instrument_grade[kSpotInstrument] = 1;  // grade 0
  c.account_firm.assign(kAccounts, 0);
  c.account_group.assign(kAccounts, 0);
  c.firm_names.assign(kAffiliatedBuyerFirm + 1, "");
  for (uint32_t f = 1; f <= kSellerFirms + kBuyerFirms; ++f) {
    c.account_firm[f] = f;
    c.account_group[f] = f;
    c.firm_names[f] = "FIRM-" + std::to_string(f);
  }
  c.account_firm[kSameFirmBuyerAccount] = kSameFirmSeller;
  c.account_group[kSameFirmBuyerAccount] = kSameFirmSeller;
  c.account_firm[kAffiliatedBuyerAccount] = kAffiliatedBuyerFirm;
  c.account_group[kAffiliatedBuyerAccount] = kAffiliatedSeller;
  c.firm_names[kAffiliatedBuyerFirm] =
      "FIRM-" + std::to_string(kAffiliatedBuyerFirm);
  return c;
}

// `n` trades of `day`, sorted by match time; with `specials`, `per_kind`
// of each excluded kind among them.
std::vector<GenTrade> GenerateDay(const index::MethodologyConfig& m,
                                  int64_t day, uint64_t n, bool specials,
                                  uint64_t per_kind, Rng& rng) {
  static const SkewedRanks kSellers(kSellerFirms);
  static const SkewedRanks kBuyers(kBuyerFirms);
  const int64_t start = m.FixingNs(day - 1);
  const int64_t length = m.FixingNs(day) - start;
  const int64_t partition = length / static_cast<int64_t>(m.partitions);
  std::vector<int64_t> times(n);
  for (int64_t& t : times) {
    t = start +
        static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(length)));
  }
  std::sort(times.begin(), times.end());
  std::vector<GenTrade> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    GenTrade& t = out[i];
    t.ts_ns = times[i];
    t.seller_account = kSellers.Draw(rng);
    t.buyer_account = kSellerFirms + kBuyers.Draw(rng);
    t.aggressor_buys = rng.Coin();
    // A drift of a few cents over the day, so the partitions' medians
    // differ and their mean is not on the cent.
    const auto k = static_cast<std::size_t>((t.ts_ns - start) / partition);
    const int64_t cents =
        kCenterCents + kDriftCents[k % 6] + rng.Between(-10, 10);
    t.price_units = cents * kPriceUnitsPerCent;
    t.lots = rng.Between(1, 8);
  }
  if (!specials) return out;
  // Busts come between 00:00 and 21:00 UTC of the day, before the fixing
  // and outside any restatement window, so they never trigger one.
  const int64_t bust_from = day * index::kNanosPerDay;
  const int64_t bust_until = m.FixingNs(day) - 3'600 * kSecond;
  for (Kind kind :
       {Kind::kErroneous, Kind::kSameFirm, Kind::kAffiliated, Kind::kBusted}) {
    uint64_t made = 0;
    while (made < per_kind) {
      GenTrade& t = out[rng.Uniform(n)];
      if (t.kind != Kind::kOrdinary) continue;
      if (kind == Kind::kBusted &&
          (t.ts_ns < bust_from || t.ts_ns >= bust_until)) {
        continue;
      }
      t.kind = kind;
      switch (kind) {
        case Kind::kErroneous:
          t.price_units = kErroneousCents[made % 2] * kPriceUnitsPerCent;
          break;
        case Kind::kSameFirm:
          t.seller_account = kSameFirmSeller;
          t.buyer_account = kSameFirmBuyerAccount;
          break;
        case Kind::kAffiliated:
          t.seller_account = kAffiliatedSeller;
          t.buyer_account = kAffiliatedBuyerAccount;
          break;
        case Kind::kBusted:
          t.bust_ns = t.ts_ns + rng.Between(1, 3'600) * kSecond;
          break;
        case Kind::kOrdinary:
          break;
      }
      ++made;
    }
  }
  return out;
}

Event TradeEvent(const GenTrade& t, uint64_t trade_id) {
  Event e;
  e.type = EventType::kTrade;
  e.ts = exchange::Timestamp{t.ts_ns};
  e.instrument = exchange::InstrumentId{kSpotInstrument};
  e.trade_id = exchange::TradeId{trade_id};
  e.price = exchange::Price{t.price_units};
  e.quantity = exchange::Quantity{t.lots};
  e.count = MilliTokens(t.seller_account);
  // The aggressor is account/order; a spot seller is the provider.
  e.side = t.aggressor_buys ? exchange::Side::kBuy : exchange::Side::kSell;
  const uint32_t aggressor =
      t.aggressor_buys ? t.buyer_account : t.seller_account;
  const uint32_t resting =
      t.aggressor_buys ? t.seller_account : t.buyer_account;
  e.account = exchange::AccountId{aggressor};
  e.counter_account = exchange::AccountId{resting};
  return e;
}

Event BustEvent(const GenTrade& t, uint64_t trade_id, int64_t day) {
  Event e;
  e.type = EventType::kTradeBusted;
  e.command = exchange::CommandType::kReportFailure;
  e.ts = exchange::Timestamp{t.bust_ns};
  e.instrument = exchange::InstrumentId{kSpotInstrument};
  e.trade_id = exchange::TradeId{trade_id};
  e.price = exchange::Price{t.price_units};
  e.quantity = exchange::Quantity{t.lots};
  e.account = exchange::AccountId{t.buyer_account};
  e.counter_account = exchange::AccountId{t.seller_account};
  e.side = exchange::Side::kBuy;             // the buyer reports the failure
  e.count = static_cast<uint32_t>(day + 1);  // delivery day
  return e;
}

Event FixingEvent(const index::MethodologyConfig& m, int64_t day) {
  Event e;
  e.type = EventType::kIndexFixing;
  e.command = exchange::CommandType::kIndexFixing;
  e.ts = exchange::Timestamp{m.FixingNs(day)};
  e.count = static_cast<uint32_t>(day);
  return e;
}

// The trade as the index service is specified to record it, from the
// config's tables: an independent reading of the event mapping.
IndexTrade ReferenceTrade(const IndexConfig& c, const GenTrade& t,
                          uint64_t trade_id) {
  IndexTrade r;
  r.trade_id = trade_id;
  r.ts_ns = t.ts_ns;
  r.price.micros = t.price_units * kMicrosPerPriceUnit;
  r.lots = t.lots;
  r.seller = c.account_firm[t.seller_account];
  r.buyer = c.account_firm[t.buyer_account];
  r.seller_group = c.account_group[t.seller_account];
  r.buyer_group = c.account_group[t.buyer_account];
  r.seller_milli_tokens = MilliTokens(t.seller_account);
  r.busted_at_ns = t.bust_ns;
  return r;
}

IndexWorkload MakeIndexWorkload(uint64_t trades, uint64_t seed) {
  IndexWorkload w;
  w.config = MakeConfig();
  const index::MethodologyConfig& m = w.config.methodology;
  Rng rng(seed);
  const uint64_t per_kind = std::max<uint64_t>(3, trades / 10'000);
  const std::vector<GenTrade> previous =
      GenerateDay(m, kDay - 1, kPreviousDayTrades, false, 0, rng);
  const std::vector<GenTrade> today =
      GenerateDay(m, kDay, trades, true, per_kind, rng);
  w.erroneous = w.same_firm = w.affiliated = per_kind;
  w.busts = per_kind;

  uint64_t seq = 0;
  uint64_t trade_id = 0;
  w.previous_events.reserve(previous.size() + 1);
  for (const GenTrade& t : previous) {
    w.previous_events.push_back(TradeEvent(t, ++trade_id));
    w.previous_events.back().seq = exchange::Seq{++seq};
    w.previous_trades.push_back(ReferenceTrade(w.config, t, trade_id));
  }
  w.previous_events.push_back(FixingEvent(m, kDay - 1));
  w.previous_events.back().seq = exchange::Seq{++seq};

  // The day's trades in match order, each bust at its time among them.
  const uint64_t first_id = trade_id + 1;
  std::vector<std::size_t> busted;
  for (std::size_t i = 0; i < today.size(); ++i) {
    if (today[i].bust_ns != 0) busted.push_back(i);
  }
  std::sort(busted.begin(), busted.end(), [&](std::size_t a, std::size_t b) {
    return today[a].bust_ns < today[b].bust_ns;
  });
  w.day_events.reserve(today.size() + busted.size());
  w.day_trades.reserve(today.size());
  std::size_t next_bust = 0;
  for (const GenTrade& t : today) {
    while (next_bust < busted.size() &&
           today[busted[next_bust]].bust_ns < t.ts_ns) {
      const std::size_t b = busted[next_bust++];
      w.day_events.push_back(BustEvent(today[b], first_id + b, kDay));
      w.day_events.back().seq = exchange::Seq{++seq};
    }
    w.day_events.push_back(TradeEvent(t, ++trade_id));
    w.day_events.back().seq = exchange::Seq{++seq};
    w.day_trades.push_back(ReferenceTrade(w.config, t, trade_id));
  }
  for (; next_bust < busted.size(); ++next_bust) {
    const std::size_t b = busted[next_bust];
    w.day_events.push_back(BustEvent(today[b], first_id + b, kDay));
    w.day_events.back().seq = exchange::Seq{++seq};
  }
  w.fixing = FixingEvent(m, kDay);
  w.fixing.seq = exchange::Seq{++seq};

  // The largest participants' shares of the eligible GPU-hours (Q_x over
  // both sides, as the cap counts them).
  std::vector<int64_t> q(kAffiliatedBuyerFirm + 1, 0);
  int64_t total = 0;
  for (const GenTrade& t : today) {
    if (t.kind != Kind::kOrdinary) continue;
    q[w.config.account_firm[t.seller_account]] += t.lots;
    q[w.config.account_firm[t.buyer_account]] += t.lots;
    total += t.lots;
  }
  const auto seller_end = q.begin() + kSellerFirms + 1;
  const auto buyer_end = seller_end + kBuyerFirms;
  w.top_seller_share =
      static_cast<double>(*std::max_element(q.begin() + 1, seller_end)) /
      static_cast<double>(total);
  w.top_buyer_share =
      static_cast<double>(*std::max_element(seller_end, buyer_end)) /
      static_cast<double>(total);
  return w;
}

// ComputeFixing()'s print of `day` over the workload's trades, as the
// service would store it.
Print Compute(const IndexWorkload& w, int64_t day, const Print* previous) {
  const index::MethodologyConfig& m = w.config.methodology;
  FixingInput in;
  in.grade = 0;
  in.day = day;
  in.as_of_ns = m.FixingNs(day);
  for (uint32_t a = 0; a < std::max<uint32_t>(m.level2_days, 1); ++a) {
    const std::vector<IndexTrade>* trades = nullptr;
    if (day - a == kDay) trades = &w.day_trades;
    if (day - a == kDay - 1) trades = &w.previous_trades;
    in.days.push_back(trades == nullptr ? std::span<const IndexTrade>()
                                        : std::span<const IndexTrade>(*trades));
    in.prev.push_back(a == 0 ? previous : nullptr);
  }
  Print p = index::ComputeFixing(m, in, nullptr);
  p.grade = 0;
  p.day = day;
  p.revision = 0;
  p.computed_at_ns = m.FixingNs(day);
  return p;
}

IndexBenchRun RunOnce(const IndexWorkload& w) {
  IndexBenchRun r;
  std::unique_ptr<IndexService> svc = IndexService::InMemory(w.config);
  // The callback only notes where the stored print is, so the timing is the
  // service's and not a copy of a million trade ids.
  const Print* published = nullptr;
  svc->set_on_print([&published](const Print& p) { published = &p; });
  for (const Event& e : w.previous_events) svc->OnEvent(e);
  if (published != nullptr) r.previous = *published;
  published = nullptr;

  auto t0 = Clock::now();
  double c0 = ThreadCpuSeconds();
  for (const Event& e : w.day_events) svc->OnEvent(e);
  r.ingest_seconds = SecondsSince(t0);
  r.ingest_cpu_seconds = ThreadCpuSeconds() - c0;

  t0 = Clock::now();
  c0 = ThreadCpuSeconds();
  svc->OnEvent(w.fixing);
  r.fixing_seconds = SecondsSince(t0);
  r.fixing_cpu_seconds = ThreadCpuSeconds() - c0;
  if (published != nullptr) r.print = *published;

  r.previous_computed = Compute(w, kDay - 1, nullptr);
  t0 = Clock::now();
  r.computed = Compute(w, kDay, &r.previous_computed);
  r.compute_seconds = SecondsSince(t0);
  return r;
}

double Max(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}
double Min(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

template <typename F>
std::vector<double> Each(const IndexBenchResult& r, F f) {
  std::vector<double> out;
  for (const IndexBenchRun& run : r.runs) out.push_back(f(run));
  return out;
}

std::vector<double> IngestNanosPerTrade(const IndexBenchResult& r) {
  return Each(r, [&](const IndexBenchRun& run) {
    return run.ingest_seconds * 1e9 / static_cast<double>(r.trades);
  });
}
std::vector<double> IngestCpuNanosPerTrade(const IndexBenchResult& r) {
  return Each(r, [&](const IndexBenchRun& run) {
    return run.ingest_cpu_seconds * 1e9 / static_cast<double>(r.trades);
  });
}
std::vector<double> FixingSeconds(const IndexBenchResult& r) {
  return Each(r, [](const IndexBenchRun& run) { return run.fixing_seconds; });
}
std::vector<double> FixingCpuSeconds(const IndexBenchResult& r) {
  return Each(r,
              [](const IndexBenchRun& run) { return run.fixing_cpu_seconds; });
}
std::vector<double> ComputeSeconds(const IndexBenchResult& r) {
  return Each(r, [](const IndexBenchRun& run) { return run.compute_seconds; });
}

std::string List(const std::vector<double>& v, double scale, const char* fmt,
                 const char* sep) {
  std::string out;
  char buf[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, fmt, v[i] * scale);
    if (i != 0) out += sep;
    out += buf;
  }
  return out;
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

std::string Date(int64_t day) {
  const std::chrono::year_month_day ymd{
      std::chrono::sys_days{std::chrono::days{day}}};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return buf;
}

std::string Dollars(int64_t micros) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%lld.%06lld",
                static_cast<long long>(micros / exchange::kMicrosPerUsd),
                static_cast<long long>(micros % exchange::kMicrosPerUsd));
  // Trailing zeros past the cents are noise.
  std::string s = buf;
  while (s.size() > s.find('.') + 3 && s.back() == '0') s.pop_back();
  return s;
}

// Everything the verification checks, for one run.
void Check(const IndexBenchResult& r, std::size_t i,
           std::vector<std::string>& problems) {
  const IndexBenchRun& run = r.runs[i];
  const std::string label = "run " + std::to_string(i + 1) + ": ";
  const Print& p = run.print;
  if (p.level != Level::k1a || !p.has_value) {
    problems.push_back(label + "the print is at level '" +
                       std::string(index::LevelName(p.level)) + "', not 1a");
  }
  if (p.trade_count != r.expected_trade_count ||
      p.trade_ids.size() != r.expected_trade_count) {
    problems.push_back(label + "the print counts " +
                       std::to_string(p.trade_count) + " trades (" +
                       std::to_string(p.trade_ids.size()) + " ids), not " +
                       std::to_string(r.expected_trade_count));
  }
  if (p.partitions_used != 0x3f) {
    problems.push_back(label + "not all six partitions were used");
  }
  if (!(p == run.computed)) {
    problems.push_back(label + "the service's print differs from " +
                       "ComputeFixing()'s on the same trades");
  }
  if (i != 0 && !(p == r.runs[0].print)) {
    problems.push_back(label + "the print differs from run 1's");
  }
  if (!run.previous.has_value || !index::FromTrades(run.previous.level)) {
    problems.push_back(label +
                       "no previous-day print from trades: the erroneous-" +
                       "print filter is off");
  }
  if (!(run.previous == run.previous_computed)) {
    problems.push_back(label + "the previous day's print differs from " +
                       "ComputeFixing()'s");
  }
}

}  // namespace

Result<IndexBenchResult> RunIndexBench(const IndexBenchOptions& o) {
  const uint64_t n = o.trades != 0 ? o.trades : (o.smoke ? 20'000 : 1'000'000);
  if (n < 1'000) {
    return InvalidArgumentError("index: at least 1,000 trades");
  }
  if (o.runs == 0) return InvalidArgumentError("index: at least one run");
  IndexBenchResult r;
  r.cpus = static_cast<uint32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  r.cpu_model = CpuModel();
  r.clock_overhead_ns = MeasureClockOverheadNanos();

  Progress(o, "generating " + WithCommas(n) + " trades");
  const auto g0 = Clock::now();
  const IndexWorkload w = MakeIndexWorkload(n, o.seed);
  char line[160];
  std::snprintf(line, sizeof line, "generated in %.2f s", SecondsSince(g0));
  Progress(o, line);
  r.trades = n;
  r.busts = w.busts;
  r.previous_trades = w.previous_trades.size();
  r.day = kDay;
  r.erroneous = w.erroneous;
  r.same_firm = w.same_firm;
  r.affiliated = w.affiliated;
  r.expected_trade_count =
      n - w.erroneous - w.same_firm - w.affiliated - w.busts;
  r.top_seller_share = w.top_seller_share;
  r.top_buyer_share = w.top_buyer_share;

  r.load_average = LoadAverage();
  for (uint32_t i = 0; i < o.runs; ++i) {
    r.runs.push_back(RunOnce(w));
    const IndexBenchRun& run = r.runs.back();
    std::snprintf(line, sizeof line,
                  "run %u: ingest %.1f ns/trade, fixing %.3f s, "
                  "ComputeFixing %.3f s",
                  i + 1, run.ingest_seconds * 1e9 / static_cast<double>(n),
                  run.fixing_seconds, run.compute_seconds);
    Progress(o, line);
  }
  for (std::size_t i = 0; i < r.runs.size(); ++i) Check(r, i, r.problems);
  return r;
}

void PrintIndexHuman(std::FILE* out, const IndexBenchOptions&,
                     const IndexBenchResult& r) {
  if (r.runs.empty()) return;
  const std::size_t runs = r.runs.size();
  const std::vector<double> ingest = IngestNanosPerTrade(r);
  const std::vector<double> fixing = FixingSeconds(r);
  const std::vector<double> compute = ComputeSeconds(r);
  const Print& p = r.runs.front().print;
  std::fprintf(out,
               "index: CFX-B200-STD fixing of %s over %s spot trades "
               "(in-memory IndexService)\n",
               Date(r.day).c_str(), WithCommas(r.trades).c_str());
  std::fprintf(out,
               "  trades         %s in 24 h, %u sellers x %u buyers (largest "
               "%.0f %% / %.0f %% of GPU-hours, cap 30 %%)\n",
               WithCommas(r.trades).c_str(), kSellerFirms, kBuyerFirms,
               100 * r.top_seller_share, 100 * r.top_buyer_share);
  std::fprintf(out,
               "  excluded       %s erroneous print, %s same firm, %s "
               "affiliated, %s busted; previous day %s trades\n",
               WithCommas(r.erroneous).c_str(), WithCommas(r.same_firm).c_str(),
               WithCommas(r.affiliated).c_str(), WithCommas(r.busts).c_str(),
               WithCommas(r.previous_trades).c_str());
  std::fprintf(out,
               "  ingest         %.1f ns per trade (median of %zu run%s: %s); "
               "on-CPU %.1f ns\n",
               Median(ingest), runs, runs == 1 ? "" : "s",
               List(ingest, 1, "%.1f", " ").c_str(),
               Median(IngestCpuNanosPerTrade(r)));
  const double fmax = Max(fixing);
  std::fprintf(out,
               "  fixing         %.3f s median, %.3f min, %.3f max (runs: %s); "
               "on-CPU %.3f s\n"
               "                 target <= %.1f s: %s\n",
               Median(fixing), Min(fixing), fmax,
               List(fixing, 1, "%.3f", " ").c_str(),
               Median(FixingCpuSeconds(r)), kIndexFixingTargetSeconds,
               fmax <= kIndexFixingTargetSeconds ? "met by every run"
                                                 : "NOT met by every run");
  std::fprintf(out,
               "  ComputeFixing  %.3f s median, %.3f max alone on the same "
               "trades (runs: %s)\n",
               Median(compute), Max(compute),
               List(compute, 1, "%.3f", " ").c_str());
  std::fprintf(out,
               "  print          %s %s, %s trades, %u sellers, %u buyers, %s "
               "GPU-hours, p25 %s, p75 %s\n",
               std::string(index::LevelName(p.level)).c_str(),
               Dollars(p.value.micros).c_str(),
               WithCommas(p.trade_count).c_str(), p.sellers, p.buyers,
               WithCommas(static_cast<uint64_t>(p.gpu_hours)).c_str(),
               Dollars(p.p25.micros).c_str(), Dollars(p.p75.micros).c_str());
  std::fprintf(out,
               "  machine        %u CPUs (%s), load average %s before the "
               "runs; steady_clock read %llu ns\n",
               r.cpus, r.cpu_model.empty() ? "unknown" : r.cpu_model.c_str(),
               r.load_average.c_str(),
               static_cast<unsigned long long>(r.clock_overhead_ns));
  if (r.problems.empty()) {
    std::fprintf(out,
                 "  verified       every run: Level 1a over 6 partitions with "
                 "%s trades, equal across runs and to ComputeFixing()\n",
                 WithCommas(r.expected_trade_count).c_str());
  } else {
    for (const std::string& problem : r.problems) {
      std::fprintf(out, "  FAILED         %s\n", problem.c_str());
    }
  }
}

void PrintIndexJson(std::FILE* out, const IndexBenchOptions& o,
                    const IndexBenchResult& r) {
  if (r.runs.empty()) return;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  auto ll = [](int64_t v) { return static_cast<long long>(v); };
  const std::vector<double> ingest = IngestNanosPerTrade(r);
  const std::vector<double> ingest_cpu = IngestCpuNanosPerTrade(r);
  const std::vector<double> fixing = FixingSeconds(r);
  const std::vector<double> fixing_cpu = FixingCpuSeconds(r);
  const std::vector<double> compute = ComputeSeconds(r);
  const Print& p = r.runs.front().print;
  std::fprintf(
      out,
      "{\"workload\":\"index\",\"trades\":%llu,\"runs\":%zu,\"seed\":%llu,"
      "\"day\":\"%s\",\"previous_day_trades\":%llu,"
      "\"excluded\":{\"erroneous_print\":%llu,\"same_firm\":%llu,"
      "\"affiliated\":%llu,\"busted\":%llu},\"expected_trade_count\":%llu,"
      "\"top_seller_share\":%.3f,\"top_buyer_share\":%.3f,",
      u(r.trades), r.runs.size(), u(o.seed), Date(r.day).c_str(),
      u(r.previous_trades), u(r.erroneous), u(r.same_firm), u(r.affiliated),
      u(r.busts), u(r.expected_trade_count), r.top_seller_share,
      r.top_buyer_share);
  std::fprintf(out,
               "\"ingest_ns_per_trade\":%.1f,\"ingest_ns_per_trade_runs\":[%s],"
               "\"ingest_cpu_ns_per_trade_runs\":[%s],",
               Median(ingest), List(ingest, 1, "%.1f", ",").c_str(),
               List(ingest_cpu, 1, "%.1f", ",").c_str());
  std::fprintf(out,
               "\"fixing_seconds\":{\"median\":%.6f,\"min\":%.6f,\"max\":%.6f},"
               "\"fixing_seconds_runs\":[%s],\"fixing_cpu_seconds_runs\":[%s],"
               "\"compute_seconds\":{\"median\":%.6f,\"min\":%.6f,"
               "\"max\":%.6f},\"compute_seconds_runs\":[%s],"
               "\"target_seconds\":%.1f,\"target_met\":%s,",
               Median(fixing), Min(fixing), Max(fixing),
               List(fixing, 1, "%.6f", ",").c_str(),
               List(fixing_cpu, 1, "%.6f", ",").c_str(), Median(compute),
               Min(compute), Max(compute),
               List(compute, 1, "%.6f", ",").c_str(), kIndexFixingTargetSeconds,
               Max(fixing) <= kIndexFixingTargetSeconds ? "true" : "false");
  std::fprintf(out,
               "\"print\":{\"level\":\"%s\",\"value_micros\":%lld,"
               "\"trade_count\":%u,\"sellers\":%u,\"buyers\":%u,"
               "\"gpu_hours\":%lld,\"p25_micros\":%lld,\"p75_micros\":%lld,"
               "\"partitions_used\":%u},",
               std::string(index::LevelName(p.level)).c_str(),
               ll(p.value.micros), p.trade_count, p.sellers, p.buyers,
               ll(p.gpu_hours), ll(p.p25.micros), ll(p.p75.micros),
               p.partitions_used);
  std::fprintf(out,
               "\"machine\":{\"cpus\":%u,\"cpu_model\":\"%s\","
               "\"load_average\":\"%s\"},\"timer_overhead_ns\":%llu,"
               "\"problems\":[",
               r.cpus, JsonEscape(r.cpu_model).c_str(), r.load_average.c_str(),
               u(r.clock_overhead_ns));
  for (std::size_t i = 0; i < r.problems.size(); ++i) {
    std::fprintf(out, "%s\"%s\"", i == 0 ? "" : ",",
                 JsonEscape(r.problems[i]).c_str());
  }
  std::fprintf(out, "],\"verified\":%s}\n",
               r.problems.empty() ? "true" : "false");
}

}  // namespace cfx::bench
