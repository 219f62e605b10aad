// Settlement invariants over 30 business days of random trading on the
// cfx-exchanged binary (DESIGN.md §5, docs/settlement.md), with kill -9 of
// the server right after the clock crosses 21:00 on about five of the days,
// i.e. while the day settles or just after. After every restart and at the
// end, for every settled date, the admin's report must show: positions that
// net to zero per contract and equal the tally of the fills the traders
// received; variation margin that sums to zero per contract and is what the
// rule gives at the report's prices; every fill counted once, in its business
// day; cash conserved (opening collateral + deposits - withdrawals); and the
// same bytes as before the restart, which recomputed every date. Each
// clearing member sees exactly its own accounts. Finally the ledger directory
// opens (re-checking every stored run) with the clearing house and members at
// zero and the settled dates as seen.
//
// The seed is printed on failure; CFX_SEED=<n> replays one.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/clock.h"
#include "gateway/config/server_config.h"
#include "gateway/config/settlement_config.h"
#include "settlement/ledger.h"
#include "tests/gateway/server/exchanged_process.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

#if defined(CFX_EXCHANGED) && defined(CFX_EXCHANGE_CONFIG)

constexpr int64_t kMinuteNs = 60'000'000'000;
constexpr int64_t kHourNs = 60 * kMinuteNs;
constexpr int64_t kDayNs = 24 * kHourNs;
constexpr int64_t kSettleNs = 21 * kHourNs;      // the fixing time, UTC
constexpr int64_t kUsd = 1'000'000;              // micro-dollars
constexpr int64_t kOpening = 10'000'000 * kUsd;  // per account, config
constexpr int64_t kGpuHours = 730;               // per contract
constexpr int64_t kMicrosPerUnitHour = 100;      // $0.0001 x 1 GPU-hour
constexpr int kBusinessDays = 30;
constexpr int kCrashDays = 5;
// Waits for a settlement run: generous, a passing run takes milliseconds.
constexpr Millis kSettleWait{30'000};

const std::vector<std::string> kTraders = {"trader-a", "trader-b", "trader-c"};
const std::vector<std::string> kAccounts = {"FIRM-A", "FIRM-B", "FIRM-C"};
const std::map<std::string, std::set<std::string>> kMemberAccounts = {
    {"clear-1", {"FIRM-A", "FIRM-B", "PROV-C"}},
    {"clear-2", {"FIRM-C", "PROV-A", "PROV-B"}}};
const std::set<std::string> kAllAccounts = {"FIRM-A", "FIRM-B", "FIRM-C",
                                            "PROV-A", "PROV-B", "PROV-C"};

// No business day: a Saturday, a Sunday or a holiday of the demo config's
// calendar (Christmas 2026 and New Year's Day 2027 fall in the test's
// thirty business days).
bool IsClosed(int64_t day) {
  static const std::vector<int64_t> holidays = DemoConfig().calendar.holidays();
  const int64_t weekday = ((day + 4) % 7 + 7) % 7;  // 0 = Sunday
  return weekday == 0 || weekday == 6 ||
         std::find(holidays.begin(), holidays.end(), day) != holidays.end();
}

int64_t NextBusinessDay(int64_t day) {
  do {
    ++day;
  } while (IsClosed(day));
  return day;
}

// The business day a futures fill stamped at `ns` belongs to: the first
// business day whose 21:00 is after it (docs/settlement.md §2).
int64_t BusinessDayOf(int64_t ns) {
  int64_t day = ns / kDayNs;
  if (ns - day * kDayNs >= kSettleNs) ++day;
  while (IsClosed(day)) ++day;
  return day;
}

int64_t At(int64_t day, int64_t hour, int64_t minute) {
  return day * kDayNs + hour * kHourNs + minute * kMinuteNs;
}

std::string DateText(int64_t day) {
  return exchange::FormatUtcTimestamp(exchange::Timestamp{day * kDayNs})
      .substr(0, 10);
}

// A signed decimal with at most `decimals` decimals ("-146.5", "5.90").
std::optional<int64_t> ParseSigned(std::string_view text, int decimals) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  const std::optional<int64_t> v = internal::ParseFixedDecimal(text, decimals);
  if (!v.has_value()) return std::nullopt;
  return negative ? -*v : *v;
}

int64_t Money(std::string_view text) {
  const std::optional<int64_t> v = ParseSigned(text, 6);
  EXPECT_TRUE(v.has_value()) << "not an amount: " << text;
  return v.value_or(0);
}

int64_t PriceUnits(std::string_view text) {
  const std::optional<int64_t> v = ParseSigned(text, 4);
  EXPECT_TRUE(v.has_value()) << "not a price: " << text;
  return v.value_or(0);
}

// One fill as an account's TRADE ExecutionReport showed it.
struct Fill {
  std::string account;
  std::string symbol;
  int64_t lots = 0;  // bought > 0, sold < 0
  int64_t price = 0;
  int64_t day = 0;  // its business day
  uint64_t trade_id = 0;
};

// A deposit (> 0) or withdrawal (< 0) the engine accepted.
struct Transfer {
  std::string account;
  int64_t micros = 0;
  int64_t day = 0;  // the first business day whose run includes it
};

// One settled date's admin report, merged over its frames.
struct DayReport {
  std::string bytes;  // the frames, request ids cleared, serialized
  std::map<std::string, w::SettlementPrice> contracts;   // by symbol
  std::map<std::string, w::AccountSettlement> accounts;  // by account
};

class SettlementCrashTest : public ::testing::Test {
 protected:
  static uint64_t Seed() {
    if (const char* s = std::getenv("CFX_SEED")) {
      return std::strtoull(s, nullptr, 10);
    }
    return std::random_device{}();
  }

  // ------------------------------------------------------------ sessions

  void LogOnAll() {
    for (const std::string user :
         {"trader-a", "trader-b", "trader-c", "admin", "clear-1", "clear-2"}) {
      client::LogonParams p = DemoLogon(user);
      p.heartbeat_interval_ms = 60'000;  // sessions idle for whole days
      clients_[user] = server_.LogOnWithRetry(p);
      ASSERT_NE(clients_[user], nullptr) << user;
    }
  }

  // Sends `e` as `user` and receives until `pred`, noting every fill.
  w::Envelope Ask(const std::string& user, const w::Envelope& e,
                  const std::function<bool(const w::Envelope&)>& pred,
                  Millis timeout = kWait) {
    client::Client& c = *clients_.at(user);
    EXPECT_TRUE(c.Send(e).ok()) << user << ": " << Describe(e);
    auto r = c.ReceiveUntil(
        [&](const w::Envelope& x) {
          Note(user, x);
          return pred(x);
        },
        timeout);
    EXPECT_TRUE(r.has_value())
        << user << ": no answer to " << Describe(e) << ": "
        << r.error().ToString() << "\ncfx-exchanged log:\n"
        << server_.log();
    return r.has_value() ? std::move(r).value() : w::Envelope();
  }

  void Note(const std::string& user, const w::Envelope& e) {
    if (!e.has_execution_report()) return;
    const w::ExecutionReport& r = e.execution_report();
    if (r.exec_type() == w::EXEC_TYPE_REJECTED) {
      ADD_FAILURE() << user << ": order rejected: " << Describe(e);
    }
    if (r.exec_type() != w::EXEC_TYPE_TRADE) return;
    const std::size_t i = static_cast<std::size_t>(
        std::find(kTraders.begin(), kTraders.end(), user) - kTraders.begin());
    ASSERT_LT(i, kTraders.size()) << user;
    Fill f;
    f.account = kAccounts[i];
    f.symbol = r.symbol();
    f.lots = r.side() == w::SIDE_BUY ? r.last_quantity() : -r.last_quantity();
    f.price = r.last_price();
    f.day = BusinessDayOf(r.transact_time_ns());
    f.trade_id = r.trade_id();
    fills_.push_back(f);
  }

  // ------------------------------------------------------------ clock

  int64_t Clock(std::optional<int64_t> set_to) {
    w::Envelope e;
    if (set_to.has_value()) {
      e.mutable_clock_request()->set_set_time_ns(*set_to);
    } else {
      e.mutable_clock_request()->set_read(true);
    }
    const w::Envelope r = Ask(
        "admin", e, [](const w::Envelope& x) { return x.has_clock_report(); });
    return r.clock_report().now_ns();
  }

  void SetClock(int64_t t) {
    EXPECT_EQ(Clock(t), t);
    now_ = t;
  }

  // ------------------------------------------------------------ trading

  uint64_t NextId() { return ++next_client_order_id_; }

  // Sends a limit order as `trader` and waits for its acknowledgement.
  void Order(std::size_t trader, const std::string& symbol, w::Side side,
             int64_t price, int64_t lots) {
    const uint64_t id = NextId();
    Ask(kTraders[trader], NewOrder(id, side, price, lots, symbol),
        [&](const w::Envelope& x) {
          return IsReport(x, w::EXEC_TYPE_NEW, id) ||
                 IsReport(x, w::EXEC_TYPE_REJECTED, id);
        });
  }

  // One random crossing: one to three resting orders on one side from two
  // traders, then the third trader takes some of them. Every trader then
  // mass-cancels the symbol; the report of that (sequenced after the
  // crossing) comes after every fill the crossing gave that trader, so the
  // book is empty again and every fill has been seen.
  void Cross(const std::string& symbol) {
    const int64_t ref = refs_.count(symbol) ? refs_[symbol] : kPrice;
    const std::size_t taker = Uniform(0, 2);
    const bool resting_sells = Uniform(0, 1) == 1;
    const w::Side resting_side = resting_sells ? w::SIDE_SELL : w::SIDE_BUY;
    const w::Side taking_side = resting_sells ? w::SIDE_BUY : w::SIDE_SELL;
    std::vector<int64_t> prices;
    const std::size_t resting = Uniform(1, 3);
    for (std::size_t i = 0; i < resting; ++i) {
      const std::size_t maker = (taker + Uniform(1, 2)) % kTraders.size();
      const int64_t price =
          ref + kTick * static_cast<int64_t>(Uniform(0, 30)) - 15 * kTick;
      prices.push_back(price);
      Order(maker, symbol, resting_side, price,
            static_cast<int64_t>(Uniform(1, 8)));
    }
    // At least the best resting price, so that something trades.
    std::sort(prices.begin(), prices.end());
    const int64_t best = resting_sells ? prices.front() : prices.back();
    const int64_t through =
        kTick * static_cast<int64_t>(Uniform(0, 10)) * (resting_sells ? 1 : -1);
    Order(taker, symbol, taking_side, best + through,
          static_cast<int64_t>(Uniform(1, 12)));
    for (std::size_t t = 0; t < kTraders.size(); ++t) {
      const uint64_t id = NextId();
      Ask(kTraders[t], MassCancel(id, symbol), [&](const w::Envelope& x) {
        return x.has_mass_cancel_report() &&
               x.mass_cancel_report().client_order_id() == id;
      });
    }
  }

  // The futures that still trade at the current clock (XB2SZ6 stops after
  // its last trading day, 2026-12-31).
  std::string RandomSymbol() {
    std::vector<std::string> live = {"XB2SF7", "XB2SG7"};
    if (BusinessDayOf(now_) <= z6_last_day_) live.push_back("XB2SZ6");
    return live[Uniform(0, live.size() - 1)];
  }

  // A clearing member moves collateral of one of its accounts.
  void MoveCollateral() {
    const std::string cm = Uniform(0, 1) == 0 ? "clear-1" : "clear-2";
    const std::set<std::string>& accounts = kMemberAccounts.at(cm);
    auto it = accounts.begin();
    std::advance(it, static_cast<long>(Uniform(0, accounts.size() - 1)));
    const bool deposit = Uniform(0, 3) != 0;
    const int64_t cents = static_cast<int64_t>(Uniform(1, 5'000'000));
    w::Envelope e;
    w::CollateralRequest* q = e.mutable_collateral_request();
    q->set_request_id(++request_id_);
    q->set_account(*it);
    q->set_action(deposit ? w::COLLATERAL_ACTION_DEPOSIT
                          : w::COLLATERAL_ACTION_WITHDRAW);
    q->set_amount(std::to_string(cents / 100) + "." +
                  std::to_string(cents % 100 / 10) +
                  std::to_string(cents % 10));
    const uint64_t id = request_id_;
    const w::Envelope r = Ask(cm, e, [&](const w::Envelope& x) {
      return x.has_collateral_ack() && x.collateral_ack().request_id() == id;
    });
    const w::CollateralAck& ack = r.collateral_ack();
    ASSERT_TRUE(ack.accepted()) << Describe(r);
    const int64_t micros = cents * (kUsd / 100) * (deposit ? 1 : -1);
    EXPECT_EQ(Money(ack.amount()), micros) << Describe(r);
    transfers_.push_back({*it, micros, BusinessDayOf(now_)});
  }

  // ------------------------------------------------------------ settlement

  w::SettlementStatus StatusOf(const std::string& user) {
    w::Envelope e;
    e.mutable_settlement_status_request()->set_request_id(++request_id_);
    const uint64_t id = request_id_;
    return Ask(user, e,
               [&](const w::Envelope& x) {
                 return x.has_settlement_status() &&
                        x.settlement_status().request_id() == id;
               })
        .settlement_status();
  }

  // Waits until `day` is settled; takes the new prices as the references
  // the next orders are placed around.
  void AwaitSettled(int64_t day) {
    const std::string date = DateText(day);
    const auto deadline = SteadyClock::now() + kSettleWait;
    for (;;) {
      const w::SettlementStatus s = StatusOf("admin");
      ASSERT_TRUE(s.ok()) << s.error();
      const auto& dates = s.settled_dates();
      if (std::find(dates.begin(), dates.end(), date) != dates.end()) {
        ASSERT_EQ(s.latest_date(), date);
        for (const w::SettlementPrice& p : s.contracts()) {
          refs_[p.symbol()] = PriceUnits(p.price());
        }
        return;
      }
      ASSERT_LT(SteadyClock::now(), deadline)
          << date << " not settled; settled: " << s.DebugString()
          << "\ncfx-exchanged log:\n"
          << server_.log();
      if (HasFailure()) return;
    }
  }

  std::vector<w::SettlementReport> Query(const std::string& user,
                                         const std::string& date) {
    w::Envelope e;
    e.mutable_settlement_query()->set_request_id(++request_id_);
    e.mutable_settlement_query()->set_date(date);
    const uint64_t id = request_id_;
    std::vector<w::SettlementReport> frames;
    bool done = false;
    Ask(user, e, [&](const w::Envelope& x) {
      if (x.has_reference_ack()) {
        ADD_FAILURE() << user << " " << date << ": " << Describe(x);
        return true;
      }
      if (!x.has_settlement_report() ||
          x.settlement_report().request_id() != id) {
        return false;
      }
      frames.push_back(x.settlement_report());
      done = !x.settlement_report().more();
      return done;
    });
    EXPECT_TRUE(done) << user << " " << date;
    return frames;
  }

  static DayReport Merge(std::vector<w::SettlementReport> frames) {
    DayReport d;
    for (w::SettlementReport& f : frames) {
      f.set_request_id(0);
      d.bytes += f.SerializeAsString();
      for (const w::SettlementPrice& p : f.contracts()) {
        d.contracts[p.symbol()] = p;
      }
      for (const w::AccountSettlement& a : f.accounts()) {
        d.accounts[a.account()] = a;
      }
    }
    return d;
  }

  // Queries every settled date as the admin and checks it; a date seen
  // before must come back byte for byte.
  void CheckAllDates(const std::string& when) {
    SCOPED_TRACE(when);
    const w::SettlementStatus s = StatusOf("admin");
    ASSERT_TRUE(s.ok()) << s.error();
    std::vector<std::string> expected;
    for (int64_t day : settled_) expected.push_back(DateText(day));
    ASSERT_EQ(std::vector<std::string>(s.settled_dates().begin(),
                                       s.settled_dates().end()),
              expected);
    for (int64_t day : settled_) {
      const std::string date = DateText(day);
      SCOPED_TRACE(date);
      DayReport d = Merge(Query("admin", date));
      ASSERT_FALSE(d.bytes.empty());
      auto [it, fresh] = reports_.emplace(day, d);
      if (!fresh) {
        EXPECT_TRUE(it->second.bytes == d.bytes)
            << "the report changed:\nbefore: " << it->second.bytes.size()
            << " bytes\nafter: " << d.bytes.size() << " bytes";
      }
      CheckDay(day, d);
    }
  }

  // The invariants of one date's report against the fills and transfers.
  void CheckDay(int64_t day, const DayReport& d) {
    std::set<std::string> names;
    for (const auto& [name, a] : d.accounts) names.insert(name);
    EXPECT_EQ(names, kAllAccounts);
    // The tally from the fills: positions after the day (a contract that
    // settled finally on or before the day is closed: position 0), fills
    // of the day.
    std::map<std::pair<std::string, std::string>, int64_t> tally;
    std::map<std::string, int64_t> fills_today;
    std::set<uint64_t> trades_today;
    std::map<std::pair<std::string, std::string>, std::vector<const Fill*>>
        todays;
    for (const Fill& f : fills_) {
      if (f.day > day) continue;
      const bool closed = f.symbol == "XB2SZ6" && day >= z6_last_day_;
      if (!closed) tally[{f.account, f.symbol}] += f.lots;
      if (f.day == day) {
        ++fills_today[f.account];
        trades_today.insert(f.trade_id);
        todays[{f.account, f.symbol}].push_back(&f);
      }
    }
    EXPECT_GT(trades_today.size(), 0u) << "no trade on a trading day";
    std::map<std::pair<std::string, std::string>, int64_t> positions;
    std::map<std::string, int64_t> net, vm_sum;
    int64_t fill_count = 0;
    int64_t collateral = 0;
    for (const auto& [name, a] : d.accounts) {
      SCOPED_TRACE(name);
      fill_count += a.fills();
      EXPECT_EQ(a.fills(), fills_today[name]);
      int64_t vm_lines = 0;
      for (const w::PositionLine& l : a.positions()) {
        if (l.position() != 0) positions[{name, l.symbol()}] = l.position();
        net[l.symbol()] += l.position();
        const int64_t vm = Money(l.variation_margin());
        vm_sum[l.symbol()] += vm;
        vm_lines += vm;
        EXPECT_EQ(vm, ExpectedVm(day, name, l.symbol(), d, todays))
            << l.symbol();
      }
      EXPECT_EQ(Money(a.variation_margin()), vm_lines);
      EXPECT_EQ(Money(a.spot_cash()), 0);
      // Collateral: the previous day's, the transfers since, today's VM.
      int64_t expected = kOpening;
      for (const Transfer& t : transfers_) {
        if (t.account == name && t.day <= day) expected += t.micros;
      }
      for (const auto& [d2, r2] : reports_) {
        if (d2 > day) break;
        const auto it = r2.accounts.find(name);
        if (it != r2.accounts.end()) {
          expected += Money(it->second.variation_margin());
        }
      }
      EXPECT_EQ(Money(a.collateral()), expected);
      collateral += Money(a.collateral());
    }
    std::erase_if(tally, [](const auto& kv) { return kv.second == 0; });
    EXPECT_EQ(positions, tally) << "positions differ from the fills";
    for (const auto& [symbol, n] : net) EXPECT_EQ(n, 0) << symbol;
    for (const auto& [symbol, vm] : vm_sum) EXPECT_EQ(vm, 0) << symbol;
    EXPECT_EQ(fill_count, 2 * static_cast<int64_t>(trades_today.size()));
    int64_t cash = static_cast<int64_t>(kAllAccounts.size()) * kOpening;
    for (const Transfer& t : transfers_) {
      if (t.day <= day) cash += t.micros;
    }
    EXPECT_EQ(collateral, cash) << "cash is not conserved";
    // XB2SZ6's last trading day settles it finally.
    if (day == z6_last_day_) {
      const auto z6 = d.contracts.find("XB2SZ6");
      ASSERT_NE(z6, d.contracts.end());
      EXPECT_TRUE(z6->second.final());
      EXPECT_EQ(z6->second.tier(), "FINAL");
    }
  }

  // VM = 730 x [position before x (S - S before) + Σ today's lots x (S -
  // price)], at the report's prices (docs/settlement.md §4).
  int64_t ExpectedVm(int64_t day, const std::string& account,
                     const std::string& symbol, const DayReport& d,
                     const std::map<std::pair<std::string, std::string>,
                                    std::vector<const Fill*>>& todays) {
    const auto price = d.contracts.find(symbol);
    if (price == d.contracts.end()) {
      ADD_FAILURE() << symbol << " has no settlement price";
      return 0;
    }
    const int64_t s = PriceUnits(price->second.price());
    int64_t units = 0;
    int64_t before = 0;
    for (const Fill& f : fills_) {
      if (f.account == account && f.symbol == symbol && f.day < day) {
        before += f.lots;
      }
    }
    if (before != 0) {
      auto prior = reports_.find(day);
      if (prior == reports_.begin() || prior == reports_.end()) {
        ADD_FAILURE() << "no earlier report";
        return 0;
      }
      --prior;
      const int64_t s_before =
          PriceUnits(prior->second.contracts.at(symbol).price());
      units += before * (s - s_before);
    }
    const auto it = todays.find({account, symbol});
    if (it != todays.end()) {
      for (const Fill* f : it->second) units += f->lots * (s - f->price);
    }
    return units * kGpuHours * kMicrosPerUnitHour;
  }

  // Each clearing member's report of every date holds exactly its accounts,
  // each line as the admin sees it.
  void CheckMembers() {
    for (const auto& [cm, accounts] : kMemberAccounts) {
      SCOPED_TRACE(cm);
      for (int64_t day : settled_) {
        SCOPED_TRACE(DateText(day));
        const DayReport mine = Merge(Query(cm, DateText(day)));
        const DayReport& all = reports_.at(day);
        std::set<std::string> names;
        for (const auto& [name, a] : mine.accounts) {
          names.insert(name);
          const auto it = all.accounts.find(name);
          ASSERT_NE(it, all.accounts.end()) << name;
          EXPECT_EQ(a.SerializeAsString(), it->second.SerializeAsString());
        }
        EXPECT_EQ(names, accounts);
        EXPECT_EQ(mine.contracts.size(), all.contracts.size());
      }
    }
  }

  // ------------------------------------------------------------ crash

  void KillAndRestart(int64_t day, int64_t settle_at) {
    const int status = server_.Kill(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status)) << server_.log();
    ++restarts_;
    clients_.clear();
    ASSERT_TRUE(server_.Start(data_dir_));
    ASSERT_NO_FATAL_FAILURE(LogOnAll());
    // The simulated clock resumes from the journal's last time, at most
    // where the test was: move it there (a fixing passed while down fires
    // then).
    const int64_t restarted = Clock(std::nullopt);
    ASSERT_LE(restarted, settle_at);
    SetClock(settle_at);
    ASSERT_NO_FATAL_FAILURE(AwaitSettled(day));
  }

  std::size_t Uniform(std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_);
  }

  std::mt19937_64 rng_;
  cfx::testing::TempDir dir_;
  std::string data_dir_ = dir_.Sub("data");
  Exchanged server_;
  std::map<std::string, ClientPtr> clients_;
  uint64_t next_client_order_id_ = 0;
  uint64_t request_id_ = 0;
  int64_t now_ = 0;
  const int64_t z6_last_day_ = internal::DaysFromCivil(2026, 12, 31);
  std::map<std::string, int64_t> refs_;  // price units, by symbol
  std::vector<Fill> fills_;
  std::vector<Transfer> transfers_;
  std::vector<int64_t> settled_;
  int restarts_ = 0;
  std::map<int64_t, DayReport> reports_;  // by business day
};

TEST_F(SettlementCrashTest, InvariantsHoldOverThirtyDaysWithKillDashNine) {
  const uint64_t seed = Seed();
  rng_.seed(seed);
  SCOPED_TRACE("seed " + std::to_string(seed) + " (CFX_SEED replays it)");
  ASSERT_TRUE(server_.Start(data_dir_));
  ASSERT_NO_FATAL_FAILURE(LogOnAll());
  const int64_t first_day = internal::DaysFromCivil(2026, 12, 1);
  ASSERT_EQ(Clock(std::nullopt), first_day * kDayNs);
  now_ = first_day * kDayNs;

  std::vector<int> order(kBusinessDays);
  for (int i = 0; i < kBusinessDays; ++i)
    order[static_cast<std::size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), rng_);
  const std::set<int> crash_days(order.begin(), order.begin() + kCrashDays);

  int64_t day = first_day;
  for (int i = 0; i < kBusinessDays; ++i, day = NextBusinessDay(day)) {
    SCOPED_TRACE("business day " + DateText(day));
    // The day: two crossings in the session, sometimes a collateral
    // movement, then one or two inside the settlement window.
    SetClock(std::max(now_ + 1, At(day, 10, 0)));
    Cross(RandomSymbol());
    SetClock(At(day, 15, 0));
    Cross(RandomSymbol());
    if (Uniform(0, 2) == 0) {
      ASSERT_NO_FATAL_FAILURE(MoveCollateral());
    }
    SetClock(At(day, 20, 50));
    for (std::size_t n = Uniform(1, 2); n > 0; --n) Cross(RandomSymbol());
    ASSERT_FALSE(HasFailure());

    // 21:00 passes: the day settles.
    const int64_t settle_at = At(day, 21, 5);
    settled_.push_back(day);
    if (crash_days.count(i) != 0) {
      SetClock(settle_at);
      ASSERT_NO_FATAL_FAILURE(KillAndRestart(day, settle_at));
      ASSERT_NO_FATAL_FAILURE(CheckAllDates("after a restart"));
    } else {
      SetClock(settle_at);
      ASSERT_NO_FATAL_FAILURE(AwaitSettled(day));
      // Kept to compare with what every later restart recomputes.
      const DayReport d = Merge(Query("admin", DateText(day)));
      reports_.emplace(day, d);
      CheckDay(day, d);
    }

    // After 21:00 and over a weekend: fills of the next business day.
    if (Uniform(0, 1) == 0) {
      SetClock(At(day, 21, 30));
      Cross(RandomSymbol());
    }
    if (IsClosed(day + 1) && Uniform(0, 1) == 0) {
      SetClock(At(day + 1, 12, 0));
      Cross(RandomSymbol());
    }
    ASSERT_FALSE(HasFailure());
  }
  EXPECT_EQ(restarts_, kCrashDays);
  ASSERT_NO_FATAL_FAILURE(CheckAllDates("at the end"));
  ASSERT_NO_FATAL_FAILURE(CheckMembers());

  // The ledger on disk, after a clean stop.
  clients_.clear();
  const int status = server_.Kill(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server_.log();
  auto ledger = settlement::Ledger::Open(
      BuildSettlementConfig(DemoConfig()).ledger, data_dir_ + "/settlement");
  ASSERT_TRUE(ledger.has_value()) << ledger.error().ToString();
  const settlement::Ledger& l = *ledger.value();
  EXPECT_EQ(l.HouseBalance(), 0);
  EXPECT_EQ(l.MemberBalance(1), 0);
  EXPECT_EQ(l.MemberBalance(2), 0);
  EXPECT_EQ(l.SettledDates(), settled_);
  int64_t cash = static_cast<int64_t>(kAllAccounts.size()) * kOpening;
  for (const Transfer& t : transfers_) cash += t.micros;
  int64_t balances = 0;
  for (uint32_t a = 1; a <= kAllAccounts.size(); ++a) balances += l.Balance(a);
  EXPECT_EQ(balances, cash);
}

#else

TEST(SettlementCrashTest, InvariantsHoldOverThirtyDaysWithKillDashNine) {
  GTEST_SKIP() << "built without cfx-exchanged";
}

#endif

}  // namespace
}  // namespace cfx::gateway::server_test
