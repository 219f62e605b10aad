#include "tests/bench/settle_bench.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service.h"
#include "tests/bench/cpu_sample.h"
#include "tests/bench/rng.h"
#include "tests/bench/text.h"

namespace cfx::bench {
namespace {

using exchange::Event;
using exchange::EventType;
using Clock = std::chrono::steady_clock;

constexpr int64_t kSecond = settlement::kNanosPerSecond;
constexpr int64_t kDay1 = 20'788;  // 2026-12-01, a Tuesday
constexpr uint32_t kMembers = 50;
constexpr int64_t kCenter = 58'000;  // $5.80 in price units
constexpr int64_t kTick = 100;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

settlement::SettlementConfig MakeConfig(uint32_t accounts, uint32_t contracts) {
  settlement::SettlementConfig c;
  c.instruments.resize(contracts + 1);
  for (uint32_t k = 1; k <= contracts; ++k) {
    settlement::ContractInfo& i = c.instruments[k];
    i.future = true;
    i.symbol = "XB2S-" + std::to_string(k);
    i.root = 1;
    i.month = 2026 * 12 + 11 + static_cast<int32_t>(k - 1);
    i.tick = exchange::Price{kTick};
    i.initial_reference = exchange::Price{kCenter};
    i.last_trading_day = kDay1 + 400;  // none expires in the benchmark
  }
  c.ledger.account_member.assign(accounts + 1, 0);
  c.account_names.assign(accounts + 1, "");
  c.opening_collateral.assign(accounts + 1, exchange::Amount{});
  for (uint32_t a = 1; a <= accounts; ++a) {
    c.ledger.account_member[a] = 1 + a % kMembers;
    c.account_names[a] = "ACC-" + std::to_string(a);
    c.opening_collateral[a] = exchange::Amount{int64_t{10'000'000} * 1'000'000};
  }
  c.member_names.push_back("");
  for (uint32_t m = 1; m <= kMembers; ++m) {
    c.member_names.push_back("CM-" + std::to_string(m));
  }
  return c;
}

// Feeds one day's events: each contract, `share` of the accounts paired at
// random trade 1-5 lots around $5.80; `window` puts the last trades in the
// Tier 1 window; then the books close and the day's fixing event runs.
class Feeder {
 public:
  Feeder(settlement::SettlementService& svc, uint32_t accounts,
         uint32_t contracts, uint64_t seed)
      : svc_(svc), accounts_(accounts), contracts_(contracts), rng_(seed) {}

  void Trades(int64_t day, uint32_t every) {
    std::vector<uint32_t> ids(accounts_);
    std::iota(ids.begin(), ids.end(), 1u);
    for (uint32_t k = 1; k <= contracts_; ++k) {
      // Fisher-Yates with the benchmark's own generator.
      for (std::size_t i = ids.size(); i > 1; --i) {
        std::swap(ids[i - 1], ids[rng_.Uniform(i)]);
      }
      const std::size_t pairs = ids.size() / 2 / every;
      const int64_t start = (day - 1) * settlement::kNanosPerDay +
                            21 * 3'600 * kSecond;  // previous 21:00
      for (std::size_t p = 0; p < pairs; ++p) {
        Event e = Next(EventType::kTrade);
        // Spread over the day, the last ones inside 20:45-21:00.
        e.ts = exchange::Timestamp{
            start +
            static_cast<int64_t>(p) * (86'000 * kSecond) /
                static_cast<int64_t>(pairs) +
            static_cast<int64_t>(rng_.Uniform(300)) * kSecond};
        e.instrument = exchange::InstrumentId{k};
        e.trade_id = exchange::TradeId{++trade_id_};
        e.side = rng_.Coin() ? exchange::Side::kBuy : exchange::Side::kSell;
        e.account = exchange::AccountId{ids[2 * p]};
        e.counter_account = exchange::AccountId{ids[2 * p + 1]};
        e.price = exchange::Price{kCenter + kTick * rng_.Between(-20, 20)};
        e.quantity = exchange::Quantity{rng_.Between(1, 5)};
        svc_.OnEvent(e);
      }
      Event bid = Next(EventType::kBookLevel);
      bid.instrument = exchange::InstrumentId{k};
      bid.side = exchange::Side::kBuy;
      bid.price = exchange::Price{kCenter - 5 * kTick};
      bid.quantity = exchange::Quantity{10};
      svc_.OnEvent(bid);
      Event ask = bid;
      ask.seq = exchange::Seq{++seq_};
      ask.side = exchange::Side::kSell;
      ask.price = exchange::Price{kCenter + 5 * kTick};
      svc_.OnEvent(ask);
    }
  }

  void Fixing(int64_t day) {
    Event e = Next(EventType::kIndexFixing);
    e.ts = exchange::Timestamp{day * settlement::kNanosPerDay +
                               21 * 3'600 * kSecond};
    e.count = static_cast<uint32_t>(day);
    svc_.OnEvent(e);
  }

 private:
  Event Next(EventType type) {
    Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq_};
    return e;
  }

  settlement::SettlementService& svc_;
  uint32_t accounts_;
  uint32_t contracts_;
  Rng rng_;
  uint64_t seq_ = 0;
  uint64_t trade_id_ = 0;
};

SettleBenchRun RunOnce(const settlement::SettlementConfig& config,
                       const SettleBenchOptions& o, uint32_t accounts,
                       std::vector<std::string>& problems) {
  SettleBenchRun r;
  auto svc = settlement::SettlementService::InMemory(config);
  Feeder feed(*svc, accounts, o.contracts, o.seed);
  feed.Trades(kDay1, 1);
  auto t0 = Clock::now();
  feed.Fixing(kDay1);
  r.day1_seconds = SecondsSince(t0);
  feed.Trades(kDay1 + 1, 10);
  t0 = Clock::now();
  const double c0 = ThreadCpuSeconds();
  feed.Fixing(kDay1 + 1);
  r.settle_seconds = SecondsSince(t0);
  r.settle_cpu_seconds = ThreadCpuSeconds() - c0;
  if (!svc->status().ok()) {
    problems.push_back("settlement failed: " + svc->status().ToString());
    return r;
  }
  const settlement::RunReport* day2 = svc->Report(kDay1 + 1);
  if (day2 == nullptr) {
    problems.push_back("day 2 was not settled");
    return r;
  }
  r.movements = day2->movements;
  r.fills = day2->fills;
  for (const settlement::AccountSettlement& a : day2->accounts) {
    for (const auto& line : a.positions) r.positions += line.position != 0;
  }
  if (svc->ledger().HouseBalance() != 0) {
    problems.push_back("the clearing house does not end at zero");
  }
  r.digest = std::to_string(
      std::hash<std::string>{}(settlement::ReportJson(config, *day2)));
  return r;
}

std::vector<double> Settle(const SettleBenchResult& r) {
  std::vector<double> v;
  for (const SettleBenchRun& run : r.runs) v.push_back(run.settle_seconds);
  return v;
}

std::string List(const std::vector<double>& v) {
  std::string out;
  char buf[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.3f", i == 0 ? "" : " ", v[i]);
    out += buf;
  }
  return out;
}

}  // namespace

Result<SettleBenchResult> RunSettleBench(const SettleBenchOptions& o) {
  if (o.runs == 0) return InvalidArgumentError("settle: at least one run");
  if (o.contracts == 0 || o.contracts > 24) {
    return InvalidArgumentError("settle: 1 to 24 contracts");
  }
  const uint32_t accounts =
      o.smoke && o.accounts == 100'000 ? 2'000 : o.accounts;
  if (accounts < 2) return InvalidArgumentError("settle: at least 2 accounts");
  SettleBenchResult r;
  r.accounts = accounts;
  r.contracts = o.contracts;
  r.cpus = static_cast<uint32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  r.cpu_model = CpuModel();
  r.load_average = LoadAverage();
  const settlement::SettlementConfig config = MakeConfig(accounts, o.contracts);
  for (uint32_t i = 0; i < o.runs; ++i) {
    r.runs.push_back(RunOnce(config, o, accounts, r.problems));
    if (!o.quiet) {
      std::fprintf(
          stderr, "cfx-bench settle: run %u: day 1 %.3f s, day 2 %.3f s\n",
          i + 1, r.runs.back().day1_seconds, r.runs.back().settle_seconds);
    }
    if (r.runs.back().digest != r.runs.front().digest) {
      r.problems.push_back("run " + std::to_string(i + 1) +
                           "'s report differs from run 1's");
    }
  }
  return r;
}

void PrintSettleHuman(std::FILE* out, const SettleBenchOptions&,
                      const SettleBenchResult& r) {
  if (r.runs.empty()) return;
  const std::vector<double> s = Settle(r);
  std::vector<double> cpu;
  for (const SettleBenchRun& run : r.runs)
    cpu.push_back(run.settle_cpu_seconds);
  const double worst = *std::max_element(s.begin(), s.end());
  const SettleBenchRun& first = r.runs.front();
  std::fprintf(out,
               "settle: one business day of %s accounts x %u contracts "
               "(in-memory SettlementService and ledger)\n",
               WithCommas(r.accounts).c_str(), r.contracts);
  std::fprintf(
      out, "  day 2          %s positions, %s fills, %s movements booked\n",
      WithCommas(first.positions).c_str(), WithCommas(first.fills).c_str(),
      WithCommas(first.movements).c_str());
  std::fprintf(out,
               "  settlement     %.3f s median (runs: %s); on-CPU %.3f s\n"
               "                 target <= %.1f s: %s\n",
               Median(s), List(s).c_str(), Median(cpu), kSettleTargetSeconds,
               worst <= kSettleTargetSeconds ? "met by every run"
                                             : "NOT met by every run");
  std::vector<double> day1;
  for (const SettleBenchRun& run : r.runs) day1.push_back(run.day1_seconds);
  std::fprintf(out,
               "  day 1          %.3f s median (opening every position: %s "
               "fills)\n",
               Median(day1),
               WithCommas(2 * uint64_t{r.accounts} / 2 * r.contracts).c_str());
  std::fprintf(out, "  machine        %u CPUs (%s), load average %s\n", r.cpus,
               r.cpu_model.empty() ? "unknown" : r.cpu_model.c_str(),
               r.load_average.c_str());
  if (r.problems.empty()) {
    std::fprintf(out,
                 "  verified       every run settled both days, invariants "
                 "held, reports equal across runs\n");
  }
  for (const std::string& p : r.problems) {
    std::fprintf(out, "  FAILED         %s\n", p.c_str());
  }
}

void PrintSettleJson(std::FILE* out, const SettleBenchOptions& o,
                     const SettleBenchResult& r) {
  if (r.runs.empty()) return;
  const std::vector<double> s = Settle(r);
  std::string runs;
  std::string cpu;
  std::string day1;
  char buf[48];
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    const char* sep = i == 0 ? "" : ",";
    std::snprintf(buf, sizeof buf, "%s%.6f", sep, r.runs[i].settle_seconds);
    runs += buf;
    std::snprintf(buf, sizeof buf, "%s%.6f", sep, r.runs[i].settle_cpu_seconds);
    cpu += buf;
    std::snprintf(buf, sizeof buf, "%s%.6f", sep, r.runs[i].day1_seconds);
    day1 += buf;
  }
  std::string problems;
  for (const std::string& p : r.problems) {
    if (!problems.empty()) problems += ',';
    problems += '"';
    for (const char ch : p) {
      if (ch == '"' || ch == '\\') problems += '\\';
      problems += ch;
    }
    problems += '"';
  }
  std::fprintf(
      out,
      "{\"bench\":\"settle\",\"accounts\":%u,\"contracts\":%u,\"runs\":%zu,"
      "\"seed\":%llu,\"positions\":%llu,\"fills\":%llu,\"movements\":%llu,"
      "\"settle_seconds\":{\"median\":%.6f},\"settle_seconds_runs\":[%s],"
      "\"settle_cpu_seconds_runs\":[%s],\"day1_seconds_runs\":[%s],"
      "\"target_seconds\":%.1f,\"target_met\":%s,\"machine\":{\"cpus\":%u,"
      "\"cpu_model\":\"%s\",\"load_average\":\"%s\"},\"problems\":[%s],"
      "\"verified\":%s}\n",
      r.accounts, r.contracts, r.runs.size(),
      static_cast<unsigned long long>(o.seed),
      static_cast<unsigned long long>(r.runs.front().positions),
      static_cast<unsigned long long>(r.runs.front().fills),
      static_cast<unsigned long long>(r.runs.front().movements), Median(s),
      runs.c_str(), cpu.c_str(), day1.c_str(), kSettleTargetSeconds,
      *std::max_element(s.begin(), s.end()) <= kSettleTargetSeconds ? "true"
                                                                    : "false",
      r.cpus, r.cpu_model.c_str(), r.load_average.c_str(), problems.c_str(),
      r.problems.empty() ? "true" : "false");
}

}  // namespace cfx::bench
