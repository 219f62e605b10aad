#include "settlement/settlement_service.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "settlement/service_state.h"
#include "settlement/settlement_service_state.h"

namespace cfx::settlement {
namespace {

using exchange::Event;
using exchange::EventType;
using internal::DayClose;
using internal::FutureState;
using internal::Int128;
using internal::SpotTrade;

// Store record keys (Ledger::PutRecords): the live state, and one record
// per settled date ("d" + the date, big-endian with the sign bit flipped,
// so the records iterate in date order).
constexpr char kLiveKey[] = "s";
constexpr char kDayPrefix = 'd';

std::string DayKey(int64_t date) {
  std::string k(1, kDayPrefix);
  const uint64_t bits = static_cast<uint64_t>(date) ^ (uint64_t{1} << 63);
  for (int i = 7; i >= 0; --i) {
    k.push_back(static_cast<char>((bits >> (8 * i)) & 0xffu));
  }
  return k;
}

}  // namespace

void SettlementService::State::Init() {
  const std::size_t n = config.instruments.size();
  futures.assign(n, FutureState{});
  spot_delivery_day.assign(n, 0);
  positions.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    if (config.instruments[i].future) positions[i].assign(accounts(), 0);
  }
  cash.assign(accounts(), exchange::Amount{});
  transferred.assign(accounts(), exchange::Amount{});
  for (std::size_t a = 1; a < accounts(); ++a) {
    if (a < config.opening_collateral.size() && MemberOf(uint32_t(a)) != 0 &&
        config.opening_collateral[a].micros > 0) {
      cash[a] = config.opening_collateral[a];
      Movement m;
      m.kind = MovementKind::kDeposit;
      m.account = static_cast<uint32_t>(a);
      m.amount.micros = config.opening_collateral[a].micros;
      transfers.push_back({m, MemberOf(m.account), ChainEnd(m.kind)});
    }
  }
}

Status SettlementService::State::BookOpeningCollateral() {
  for (std::size_t a = 1; a < config.opening_collateral.size(); ++a) {
    const int64_t amount = config.opening_collateral[a].micros;
    if (amount <= 0 || MemberOf(static_cast<uint32_t>(a)) == 0) continue;
    Movement m;
    m.date = 0;
    m.kind = MovementKind::kDeposit;
    m.account = static_cast<uint32_t>(a);
    m.ref = 0;
    m.amount.micros = amount;
    Status st = ledger->PostTransfer(m);
    if (!st.ok()) return st;
  }
  return Status();
}

void SettlementService::State::OnTrade(const Event& e) {
  const uint32_t inst = e.instrument.value;
  const ContractInfo* c = Contract(inst);
  if (c == nullptr) return;
  const bool aggressor_buys = e.side == exchange::Side::kBuy;
  const uint32_t buyer =
      aggressor_buys ? e.account.value : e.counter_account.value;
  const uint32_t seller =
      aggressor_buys ? e.counter_account.value : e.account.value;
  const exchange::Price price = e.price;
  const int64_t lots = e.quantity.lots;
  if (c->spot) {
    SpotTrade t;
    t.instrument = inst;
    t.buyer = buyer;
    t.seller = seller;
    t.price = price;
    t.lots = lots;
    t.delivery_day = spot_delivery_day[inst];
    t.match_time = e.ts.nanos;
    t.day = config.calendar.DayOfFill(e.ts.nanos, config.settle_seconds);
    spot_trades.emplace(e.trade_id.value, t);
    return;
  }
  if (!c->future) return;
  const int64_t ts = e.ts.nanos;
  const int64_t day = config.calendar.DayOfFill(ts, config.settle_seconds);
  pending.push_back({day, inst, buyer, lots, price, e.trade_id.value, ts});
  pending.push_back({day, inst, seller, -lots, price, e.trade_id.value, ts});
  FutureState& f = futures[inst];
  if (f.trade_day != day) {
    f.trade_day = day;
    f.window_notional = 0;
    f.window_lots = 0;
    f.last_trade = exchange::Price{};
  }
  f.last_trade = price;
  const int64_t settle_at =
      day * kNanosPerDay + config.settle_seconds * kNanosPerSecond;
  if (ts >= settle_at - config.window_seconds * kNanosPerSecond &&
      ts < settle_at) {
    f.window_notional += static_cast<Int128>(price.units) * lots;
    f.window_lots += lots;
  }
}

void SettlementService::State::OnBookLevel(const Event& e) {
  const ContractInfo* c = Contract(e.instrument.value);
  if (c == nullptr || !c->future) return;
  FutureState& f = futures[e.instrument.value];
  auto& side = e.side == exchange::Side::kBuy ? f.bids : f.asks;
  if (e.quantity.lots == 0) {
    side.erase(e.price);
  } else {
    side[e.price] = e.quantity.lots;
  }
}

void SettlementService::State::OnTransfer(const Event& e) {
  // A member's deposit or withdrawal (settlement date 0); settlement
  // bookings are the ledger's already.
  if (e.settlement_date() != 0) {
    applied_dates.insert(e.settlement_date());
    return;
  }
  const exchange::Amount amount = e.amount();
  if (amount.micros == 0) return;
  Movement m;
  m.date = e.ts.nanos / kNanosPerDay;
  m.kind =
      amount.micros > 0 ? MovementKind::kDeposit : MovementKind::kWithdrawal;
  m.account = e.account.value;
  m.ref = e.seq.value;
  m.amount = amount;
  if (m.account < cash.size()) {
    cash[m.account].micros += m.amount.micros;
    transferred[m.account].micros += m.amount.micros;
  }
  const Status st = ledger->PostTransfer(m);
  if (!st.ok() && status.ok()) status = st;
  if (st.ok()) transfers.push_back({m, MemberOf(m.account), ChainEnd(m.kind)});
}

DayClose SettlementService::State::Close(int64_t date) const {
  DayClose close;
  for (uint32_t i = 1; i < config.instruments.size(); ++i) {
    if (!config.instruments[i].future) continue;
    const FutureState& f = futures[i];
    DayClose::Book b;
    b.instrument = i;
    if (f.trade_day == date) {
      b.window_notional = f.window_notional;
      b.window_lots = f.window_lots;
      b.last_trade = f.last_trade;
    }
    b.best_bid = f.bids.empty() ? exchange::Price{} : f.bids.rbegin()->first;
    b.best_ask = f.asks.empty() ? exchange::Price{} : f.asks.begin()->first;
    close.books.push_back(b);
  }
  close.transferred = transferred;
  close.transfer_count = transfer_base + transfers.size();
  return close;
}

void SettlementService::State::Persist(const RunReport* day) {
  if (!persist) return;
  std::vector<std::pair<std::string, std::string>> records;
  if (day != nullptr) {
    records.emplace_back(DayKey(day->date),
                         internal::EncodeDay(*day, results[day->date]));
  }
  records.emplace_back(kLiveKey, internal::EncodeLive(*this));
  Status st = ledger->PutRecords(records);
  if (!st.ok()) store_status = std::move(st);
}

Status SettlementService::State::Load() {
  auto records = ledger->Records();
  if (!records.has_value()) return records.error();
  const std::vector<std::pair<std::string, std::string>>& all = records.value();
  const auto live = std::find_if(all.begin(), all.end(), [](const auto& r) {
    return r.first == kLiveKey;
  });
  if (live == all.end()) return Status::Ok();
  internal::LiveState stored;
  CFX_RETURN_IF_ERROR(internal::DecodeLive(live->second, &stored));
  CFX_RETURN_IF_ERROR(internal::Adopt(std::move(stored), this));
  resume_after = last_seq;
  for (const auto& [key, value] : all) {
    if (key.empty() || key[0] != kDayPrefix) continue;
    RunReport report;
    RunResult result;
    Status st = internal::DecodeDay(value, &report, &result);
    if (!st.ok())
      return DataLossError(st.message() + " (" + key.substr(1) + ")");
    if (DayKey(report.date) != key || !ledger->IsSettled(report.date)) {
      return DataLossError("settlement state: the report of " +
                           exchange::FormatDay(report.date) +
                           " is not a date the ledger settled");
    }
    report.accounts.resize(accounts());
    for (uint32_t a = 0; a < report.accounts.size(); ++a) {
      report.accounts[a].account = a;
      report.accounts[a].member = MemberOf(a);
    }
    results[report.date] = std::move(result);
    reports[report.date] = std::move(report);
  }
  return Status::Ok();
}

SettlementService::SettlementService(std::unique_ptr<State> s)
    : s_(std::move(s)) {}
SettlementService::~SettlementService() = default;

Result<std::unique_ptr<SettlementService>> SettlementService::Open(
    const SettlementConfig& config, const std::string& dir) {
  auto ledger = Ledger::Open(config.ledger, dir);
  if (!ledger.has_value()) return ledger.error();
  auto s = std::make_unique<State>();
  s->config = config;
  s->ledger = std::move(ledger).value();
  s->persist = true;
  s->Init();
  CFX_RETURN_IF_ERROR(s->Load());
  Status st = s->BookOpeningCollateral();
  if (!st.ok()) return st;
  return std::unique_ptr<SettlementService>(
      new SettlementService(std::move(s)));
}

std::unique_ptr<SettlementService> SettlementService::InMemory(
    const SettlementConfig& config) {
  auto s = std::make_unique<State>();
  s->config = config;
  s->ledger = Ledger::InMemory(config.ledger);
  s->Init();
  s->status = s->BookOpeningCollateral();
  return std::unique_ptr<SettlementService>(
      new SettlementService(std::move(s)));
}

void SettlementService::set_fixings(FixingLookup lookup) {
  s_->fixings = std::move(lookup);
}
void SettlementService::set_on_run(std::function<void(const RunResult&)> fn) {
  s_->on_run = std::move(fn);
}

void SettlementService::OnEvent(const Event& e) {
  State& s = *s_;
  // The stored state holds every event through resume_after already: it is
  // stored while applying an INDEX_FIXING or SETTLEMENT_RERUN event, and
  // each of those commands has that one event. (The events of one command
  // share its seq: only whole commands are skipped.)
  if (e.seq.value <= s.resume_after) return;
  s.last_seq = e.seq.value;
  ++s.events_applied;
  switch (e.type) {
    case EventType::kTrade:
      s.OnTrade(e);
      break;
    case EventType::kBookLevel:
      s.OnBookLevel(e);
      break;
    case EventType::kInstrumentListed:
      if (e.instrument.value < s.spot_delivery_day.size()) {
        s.spot_delivery_day[e.instrument.value] = e.delivery_day();
      }
      break;
    case EventType::kTradeBusted: {
      auto it = s.spot_trades.find(e.trade_id.value);
      if (it != s.spot_trades.end() && !it->second.paid) {
        it->second.busted = true;
      }
      break;
    }
    case EventType::kCollateralChanged:
      s.OnTransfer(e);
      break;
    case EventType::kIndexFixing: {
      const int64_t day = e.fixing_day();
      if (!s.config.calendar.IsBusinessDay(day) || s.reports.count(day) != 0 ||
          s.waiting.count(day) != 0) {
        break;
      }
      if (s.status.ok()) {
        s.Settle(day, s.Close(day));
      } else if (s.refused_date != 0) {
        // Stopped by a refused run: the day waits for the operator's
        // re-run with its close.
        s.waiting[day] = s.Close(day);
        s.Persist(nullptr);
      }
      // Stopped otherwise (a transfer the ledger could not book): nothing
      // is stored, so a restart retries from the last stored state.
      break;
    }
    case EventType::kSettlementRerun:
      s.Rerun(e.settlement_date());
      break;
    default:
      break;
  }
}

const Status& SettlementService::status() const { return s_->status; }
int64_t SettlementService::refused_date() const { return s_->refused_date; }
std::vector<int64_t> SettlementService::WaitingDates() const {
  std::vector<int64_t> out;
  for (const auto& [d, close] : s_->waiting) out.push_back(d);
  return out;
}
const Status& SettlementService::store_status() const {
  return s_->store_status;
}
uint64_t SettlementService::last_applied_seq() const { return s_->last_seq; }
uint64_t SettlementService::events_applied() const {
  return s_->events_applied;
}
const SettlementConfig& SettlementService::config() const { return s_->config; }
const Ledger& SettlementService::ledger() const { return *s_->ledger; }

const RunReport* SettlementService::Report(int64_t date) const {
  auto it = s_->reports.find(date);
  return it == s_->reports.end() ? nullptr : &it->second;
}

std::vector<int64_t> SettlementService::SettledDates() const {
  std::vector<int64_t> out;
  for (const auto& [d, r] : s_->reports) out.push_back(d);
  return out;
}

exchange::Price SettlementService::LastSettlementPrice(
    uint32_t instrument) const {
  return instrument < s_->futures.size() ? s_->futures[instrument].settle
                                         : exchange::Price{};
}

int64_t SettlementService::Position(uint32_t account,
                                    uint32_t instrument) const {
  if (instrument >= s_->positions.size()) return 0;
  const auto& p = s_->positions[instrument];
  return account < p.size() ? p[account] : 0;
}

std::vector<RunResult> SettlementService::UnappliedResults() const {
  std::vector<RunResult> out;
  for (const auto& [d, r] : s_->results) {
    if (!r.bookings.empty() && s_->applied_dates.count(d) == 0) {
      out.push_back(r);
    }
  }
  return out;
}

const RunResult* SettlementService::LatestResult() const {
  return s_->results.empty() ? nullptr : &s_->results.rbegin()->second;
}

}  // namespace cfx::settlement
