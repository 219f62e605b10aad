#include "settlement/settlement_service.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "settlement/service_state.h"
#include "settlement/settlement_report.h"

namespace cfx::settlement {
namespace {

using exchange::Event;
using exchange::EventType;
using internal::DayClose;
using internal::FutureState;
using internal::Int128;
using internal::PendingFill;
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

// FNV-1a over 64-bit words.
class Digest {
 public:
  void Add(int64_t v) {
    auto u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) {
      h_ ^= u & 0xff;
      h_ *= 0x100000001b3ULL;
      u >>= 8;
    }
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// What the ledger keeps with a run: the settlement prices and counts in
// full, and a digest of every account line, so that a re-run that differs
// in anything it reports is refused, without storing every line twice (the
// movements are the ledger's own).
std::string LedgerReport(const RunReport& r) {
  std::string out = "date " + exchange::FormatDay(r.date) + "\n";
  for (const ContractSettlement& c : r.contracts) {
    out += "contract " + std::to_string(c.instrument) + " " +
           std::to_string(c.price) + " " + TierName(c.tier) +
           (c.final ? " final" : "") + (c.disrupted ? " disrupted" : "") +
           " oi " + std::to_string(c.open_interest) + "\n";
  }
  Digest d;
  for (const AccountSettlement& a : r.accounts) {
    if (a.positions.empty() && a.spot_cash == 0 && a.initial_margin == 0 &&
        a.collateral == 0) {
      continue;
    }
    d.Add(a.account);
    d.Add(a.fills);
    d.Add(a.spot_cash);
    d.Add(a.initial_margin);
    d.Add(a.collateral);
    for (const AccountSettlement::Line& l : a.positions) {
      d.Add(l.instrument);
      // A closed line digests the quantity it closed (what `position` held
      // before closed lines showed 0), so ledgers booked earlier match.
      d.Add(l.closed ? l.final_quantity : l.position);
      d.Add(l.variation_margin);
    }
  }
  char buf[96];
  std::snprintf(buf, sizeof buf, "fills %llu spot %llu movements %llu ",
                static_cast<unsigned long long>(r.fills),
                static_cast<unsigned long long>(r.spot_trades_paid),
                static_cast<unsigned long long>(r.movements));
  out += buf;
  std::snprintf(buf, sizeof buf, "accounts %016llx\n",
                static_cast<unsigned long long>(d.value()));
  out += buf;
  return out;
}

}  // namespace

struct SettlementService::State : internal::LiveState {
  SettlementConfig config;
  std::unique_ptr<Ledger> ledger;
  bool persist = false;  // Open(): the live state is stored with each run
  FixingLookup fixings;
  std::function<void(const RunResult&)> on_run;
  Status store_status;  // the last failed store write, or OK
  uint64_t events_applied = 0;
  uint64_t resume_after = 0;  // the stored state's last_seq, from Load()

  std::map<int64_t, RunReport> reports;
  std::map<int64_t, RunResult> results;

  std::size_t accounts() const { return config.ledger.account_member.size(); }
  uint32_t MemberOf(uint32_t account) const {
    return account < accounts() ? config.ledger.account_member[account] : 0;
  }
  const ContractInfo* Contract(uint32_t id) const {
    return id < config.instruments.size() ? &config.instruments[id] : nullptr;
  }

  void Init() {
    const std::size_t n = config.instruments.size();
    futures.assign(n, FutureState{});
    spot_delivery_day.assign(n, 0);
    positions.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
      if (config.instruments[i].future) positions[i].assign(accounts(), 0);
    }
    cash.assign(accounts(), 0);
    transferred.assign(accounts(), 0);
    for (std::size_t a = 1; a < accounts(); ++a) {
      if (a < config.opening_collateral.size() && MemberOf(uint32_t(a)) != 0 &&
          config.opening_collateral[a] > 0) {
        cash[a] = config.opening_collateral[a];
        Movement m;
        m.kind = MovementKind::kDeposit;
        m.account = static_cast<uint32_t>(a);
        m.amount_micros = config.opening_collateral[a];
        transfers.push_back({m, MemberOf(m.account), ChainEnd(m.kind)});
      }
    }
  }

  Status BookOpeningCollateral() {
    for (std::size_t a = 1; a < config.opening_collateral.size(); ++a) {
      const int64_t amount = config.opening_collateral[a];
      if (amount <= 0 || MemberOf(static_cast<uint32_t>(a)) == 0) continue;
      Movement m;
      m.date = 0;
      m.kind = MovementKind::kDeposit;
      m.account = static_cast<uint32_t>(a);
      m.ref = 0;
      m.amount_micros = amount;
      Status st = ledger->PostTransfer(m);
      if (!st.ok()) return st;
    }
    return Status();
  }

  void OnTrade(const Event& e) {
    const uint32_t inst = e.instrument.value;
    const ContractInfo* c = Contract(inst);
    if (c == nullptr) return;
    const bool aggressor_buys = e.side == exchange::Side::kBuy;
    const uint32_t buyer =
        aggressor_buys ? e.account.value : e.counter_account.value;
    const uint32_t seller =
        aggressor_buys ? e.counter_account.value : e.account.value;
    const int64_t price = e.price.units;
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
      f.last_trade = 0;
    }
    f.last_trade = price;
    const int64_t settle_at =
        day * kNanosPerDay + config.settle_seconds * kNanosPerSecond;
    if (ts >= settle_at - config.window_seconds * kNanosPerSecond &&
        ts < settle_at) {
      f.window_notional += static_cast<Int128>(price) * lots;
      f.window_lots += lots;
    }
  }

  void OnBookLevel(const Event& e) {
    const ContractInfo* c = Contract(e.instrument.value);
    if (c == nullptr || !c->future) return;
    FutureState& f = futures[e.instrument.value];
    auto& side = e.side == exchange::Side::kBuy ? f.bids : f.asks;
    if (e.quantity.lots == 0) {
      side.erase(e.price.units);
    } else {
      side[e.price.units] = e.quantity.lots;
    }
  }

  void OnTransfer(const Event& e) {
    // A member's deposit or withdrawal (count 0); settlement bookings are
    // the ledger's already.
    if (e.count != 0) {
      applied_dates.insert(e.count);
      return;
    }
    if (e.quantity.lots == 0) return;
    Movement m;
    m.date = e.ts.nanos / kNanosPerDay;
    m.kind = e.quantity.lots > 0 ? MovementKind::kDeposit
                                 : MovementKind::kWithdrawal;
    m.account = e.account.value;
    m.ref = e.seq.value;
    m.amount_micros = e.quantity.lots;
    if (m.account < cash.size()) {
      cash[m.account] += m.amount_micros;
      transferred[m.account] += m.amount_micros;
    }
    const Status st = ledger->PostTransfer(m);
    if (!st.ok() && status.ok()) status = st;
    if (st.ok())
      transfers.push_back({m, MemberOf(m.account), ChainEnd(m.kind)});
  }

  // The FSP of `c` for the month of its last trading day.
  Fsp FinalPrice(const ContractInfo& c) const {
    Fsp none;
    if (!fixings) return none;
    const exchange::CivilDate ltd = exchange::CivilFromDays(c.last_trading_day);
    const std::vector<int64_t> days = config.calendar.DaysOfMonth(
        static_cast<int>(ltd.year), static_cast<int>(ltd.month));
    std::vector<MonthFixing> month;
    for (const int64_t d : days) {
      MonthFixing f;
      f.day = d;
      if (auto v = fixings(c.grade, d); v.has_value() && v->has_value) {
        f.has_value = true;
        f.value_micros = v->value_micros;
        f.from_trades = v->from_trades;
      }
      month.push_back(f);
    }
    int64_t carried = 0;
    if (!days.empty()) {
      for (int64_t d = days.front() - 1; d >= days.front() - 31; --d) {
        auto v = fixings(c.grade, d);
        if (v.has_value() && v->has_value) {
          carried = v->value_micros;
          break;
        }
      }
    }
    return FinalSettlementPrice(month, carried);
  }

  // The report's fills (today's futures fills, the spot trades of the
  // day not listed before) and cash lines (the transfers since the last
  // run, then the run's movements).
  void ListTradesAndCash(int64_t date, const std::vector<PendingFill>& today,
                         const std::vector<Movement>& movements,
                         std::size_t transfer_lines, RunReport* report) const;

  // What the run of `date` reads of the market now, at its settlement
  // instant.
  DayClose Close(int64_t date) const {
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
      b.best_bid = f.bids.empty() ? 0 : f.bids.rbegin()->first;
      b.best_ask = f.asks.empty() ? 0 : f.asks.begin()->first;
      close.books.push_back(b);
    }
    close.transferred = transferred;
    close.transfer_count = transfer_base + transfers.size();
    return close;
  }

  // Runs `date` from `close`; a refusal stops settlement at that date,
  // keeping the close for a re-run.
  void Settle(int64_t date, DayClose close) {
    Status st = Run(date, close);
    if (st.ok()) return;
    status = std::move(st);
    refused_date = date;
    waiting[date] = std::move(close);
    Persist(nullptr);
  }

  // The operator's re-run of the refused `date` (a sequenced
  // kSettlementRerun): runs it and every date waiting behind it, in order,
  // until one is refused again. Anything else changes nothing.
  void Rerun(int64_t date) {
    if (status.ok() || refused_date != date || waiting.empty()) return;
    status = Status::Ok();
    refused_date = 0;
    std::map<int64_t, DayClose> queue = std::move(waiting);
    waiting.clear();
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (!status.ok()) {
        waiting.insert(it, queue.end());
        break;
      }
      Settle(it->first, std::move(it->second));
    }
    Persist(nullptr);
  }

  // Stores the live state (and the report of `day`, when given) with
  // last_seq, so that a restart resumes after it. A failed write is kept in
  // store_status: the journal still has the events, a restart feeds more.
  void Persist(const RunReport* day) {
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

  Status Load();
  Status Run(int64_t date, const DayClose& close);
};

void SettlementService::State::ListTradesAndCash(
    int64_t date, const std::vector<PendingFill>& today,
    const std::vector<Movement>& movements, std::size_t transfer_lines,
    RunReport* report) const {
  std::vector<TradeLine>& trades = report->trades;
  trades.reserve(today.size());
  for (const PendingFill& f : today) {
    trades.push_back({f.trade_id, f.ts, f.account, MemberOf(f.account),
                      f.instrument, f.lots, f.price, false});
  }
  for (const auto& [id, t] : spot_trades) {
    if (t.reported || t.day > date) continue;
    trades.push_back({id, t.match_time, t.buyer, MemberOf(t.buyer),
                      t.instrument, t.lots, t.price, t.busted});
    trades.push_back({id, t.match_time, t.seller, MemberOf(t.seller),
                      t.instrument, -t.lots, t.price, t.busted});
  }
  std::sort(
      trades.begin(), trades.end(), [](const TradeLine& x, const TradeLine& y) {
        return std::tie(x.match_time, x.trade_id, x.instrument, x.account,
                        x.lots) < std::tie(y.match_time, y.trade_id,
                                           y.instrument, y.account, y.lots);
      });
  report->cash.assign(
      transfers.begin(),
      transfers.begin() + static_cast<std::ptrdiff_t>(transfer_lines));
  const std::size_t first_run = report->cash.size();
  for (const Movement& m : movements) {
    report->cash.push_back({m, MemberOf(m.account), ChainEnd(m.kind)});
  }
  std::sort(
      report->cash.begin() + static_cast<std::ptrdiff_t>(first_run),
      report->cash.end(), [](const CashLine& x, const CashLine& y) {
        return std::tie(x.movement.kind, x.movement.account, x.movement.ref) <
               std::tie(y.movement.kind, y.movement.account, y.movement.ref);
      });
}

Status SettlementService::State::Run(int64_t date, const DayClose& close) {
  RunReport report;
  report.date = date;
  std::vector<Movement> movements;

  // ---- Settlement prices, per root in maturity order ----
  std::map<uint32_t, std::vector<uint32_t>> roots;
  for (uint32_t i = 1; i < config.instruments.size(); ++i) {
    const ContractInfo& c = config.instruments[i];
    if (!c.future || futures[i].closed || c.last_trading_day < date) continue;
    roots[c.root].push_back(i);
  }
  std::vector<int64_t> price(config.instruments.size(), 0);
  std::vector<uint8_t> is_final(config.instruments.size(), 0);
  for (auto& [root, ids] : roots) {
    std::sort(ids.begin(), ids.end(), [this](uint32_t a, uint32_t b) {
      return config.instruments[a].month < config.instruments[b].month;
    });
    std::vector<DspInput> in;
    for (const uint32_t i : ids) {
      const ContractInfo& c = config.instruments[i];
      const FutureState& f = futures[i];
      DspInput d;
      d.tick = c.tick;
      d.prior = f.settle != 0 ? f.settle : c.initial_reference;
      const auto b = std::lower_bound(close.books.begin(), close.books.end(), i,
                                      [](const DayClose::Book& x, uint32_t id) {
                                        return x.instrument < id;
                                      });
      if (b != close.books.end() && b->instrument == i) {
        d.window_notional = b->window_notional;
        d.window_lots = b->window_lots;
        d.last_trade = b->last_trade;
        d.best_bid = b->best_bid;
        d.best_ask = b->best_ask;
      }
      d.expiring = c.last_trading_day == date;
      in.push_back(d);
    }
    const std::vector<Dsp> dsps = SettleRoot(in);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const uint32_t i = ids[k];
      const ContractInfo& c = config.instruments[i];
      ContractSettlement cs;
      cs.instrument = i;
      cs.price = dsps[k].price;
      cs.tier = dsps[k].tier;
      if (c.last_trading_day == date) {
        const Fsp fsp = FinalPrice(c);
        cs.final = true;
        cs.tier = DspTier::kFinal;
        if (fsp.ok) {
          cs.price = fsp.price;
          cs.disrupted = fsp.disrupted;
        } else {
          // No index value at all for the month: settled at the DSP and
          // flagged.
          cs.disrupted = true;
        }
        is_final[i] = 1;
      }
      price[i] = cs.price;
      report.contracts.push_back(cs);
    }
  }

  // ---- Variation margin and final settlement ----
  std::vector<AccountSettlement> lines(accounts());
  for (uint32_t a = 0; a < lines.size(); ++a) {
    lines[a].account = a;
    lines[a].member = MemberOf(a);
  }
  // The fills settled today, grouped by (instrument, account).
  std::vector<PendingFill> today;
  std::vector<PendingFill> later;
  for (const PendingFill& f : pending) {
    (f.day <= date ? today : later).push_back(f);
  }
  std::sort(today.begin(), today.end(),
            [](const PendingFill& x, const PendingFill& y) {
              return std::tie(x.instrument, x.account, x.trade_id, x.lots) <
                     std::tie(y.instrument, y.account, y.trade_id, y.lots);
            });
  // Every fill counted once: each trade id of a contract appears as one
  // buy and one sell of equal size.
  {
    struct Side {
      uint32_t instrument;
      uint64_t trade_id;
      int64_t lots;
    };
    std::vector<Side> sides;
    sides.reserve(today.size());
    for (const PendingFill& f : today) {
      if (price[f.instrument] == 0) {
        return FailedPreconditionError(
            "settlement of " + exchange::FormatDay(date) +
            " refused: every fill is counted exactly once (trade " +
            std::to_string(f.trade_id) + " of an unsettled contract)");
      }
      sides.push_back({f.instrument, f.trade_id, f.lots});
    }
    std::sort(sides.begin(), sides.end(), [](const Side& x, const Side& y) {
      return std::tie(x.instrument, x.trade_id) <
             std::tie(y.instrument, y.trade_id);
    });
    for (std::size_t k = 0; k < sides.size();) {
      std::size_t end = k;
      int64_t sum = 0;
      while (end < sides.size() &&
             sides[end].instrument == sides[k].instrument &&
             sides[end].trade_id == sides[k].trade_id) {
        sum += sides[end].lots;
        ++end;
      }
      if (end - k != 2 || sum != 0) {
        return FailedPreconditionError(
            "settlement of " + exchange::FormatDay(date) +
            " refused: every fill is counted exactly once (trade " +
            std::to_string(sides[k].trade_id) + " has " +
            std::to_string(end - k) + " sides netting to " +
            std::to_string(sum) + ")");
      }
      k = end;
    }
  }
  std::vector<std::vector<int64_t>> new_positions = positions;
  std::size_t next = 0;
  for (const ContractSettlement& cs : report.contracts) {
    const uint32_t i = cs.instrument;
    const ContractInfo& c = config.instruments[i];
    const int64_t prev_settle = futures[i].settle;
    std::vector<int64_t>& pos = new_positions[i];
    // The fills of contract i are contiguous in `today`.
    while (next < today.size() && today[next].instrument < i) ++next;
    std::size_t j = next;
    std::vector<Fill> fills;
    for (uint32_t a = 1; a < accounts(); ++a) {
      fills.clear();
      while (j < today.size() && today[j].instrument == i &&
             today[j].account == a) {
        fills.push_back({today[j].lots, today[j].price});
        ++j;
      }
      const int64_t before = positions[i][a];
      if (before == 0 && fills.empty()) continue;
      const int64_t vm =
          VariationMargin(c.gpu_hours, before, prev_settle, cs.price, fills);
      int64_t after = before;
      for (const Fill& f : fills) after += f.lots;
      pos[a] = after;
      lines[a].fills += static_cast<int64_t>(fills.size());
      lines[a].variation_margin += vm;
      if (lines[a].positions.empty()) {
        lines[a].positions.reserve(report.contracts.size());
      }
      AccountSettlement::Line line{i, after, vm};
      if (cs.final) {  // closed at the FSP: the report shows position 0
        line.closed = true;
        line.final_quantity = after;
        line.position = 0;
      }
      lines[a].positions.push_back(line);
      if (vm != 0) {
        Movement m;
        m.date = date;
        m.kind = cs.final ? MovementKind::kFinalSettlement
                          : MovementKind::kVariationMargin;
        m.account = a;
        m.ref = i;
        m.amount_micros = vm;
        movements.push_back(m);
      }
    }
    // Fills of unknown accounts would be skipped above: refuse instead.
    if (j < today.size() && today[j].instrument == i) {
      return FailedPreconditionError(
          "settlement of " + exchange::FormatDay(date) +
          " refused: every fill is counted exactly once (account " +
          std::to_string(today[j].account) + " is unknown)");
    }
    next = j;
    // Positions net to zero per contract.
    int64_t sum = 0;
    int64_t open = 0;
    for (const int64_t p : pos) {
      sum += p;
      open += std::max<int64_t>(p, 0);
    }
    if (sum != 0) {
      return FailedPreconditionError(
          "settlement of " + exchange::FormatDay(date) +
          " refused: positions net to zero per contract (" + c.symbol +
          " nets to " + std::to_string(sum) + ")");
    }
    for (ContractSettlement& out : report.contracts) {
      if (out.instrument == i) out.open_interest = open;
    }
  }
  report.fills = today.size();

  // ---- Spot cash ----
  std::vector<uint64_t> paid;
  for (const auto& [id, t] : spot_trades) {
    if (t.paid || t.busted || t.delivery_day == 0) continue;
    if (SpotCashDay(config.calendar, t.delivery_day) > date) continue;
    const ContractInfo* c = Contract(t.instrument);
    const int64_t n = SpotNotional(t.price, c->gpu_hours_per_lot, t.lots);
    if (n == 0 || t.buyer == t.seller) continue;
    movements.push_back({date, MovementKind::kSpotCash, t.buyer, id, -n});
    movements.push_back({date, MovementKind::kSpotCash, t.seller, id, n});
    if (t.buyer < lines.size()) lines[t.buyer].spot_cash -= n;
    if (t.seller < lines.size()) lines[t.seller].spot_cash += n;
    paid.push_back(id);
  }
  report.spot_trades_paid = paid.size();
  report.movements = movements.size();
  // The transfers booked by the settlement instant (all of them, unless
  // this is a re-run of a date that waited).
  const std::size_t transfer_lines = std::min<std::size_t>(
      transfers.size(), close.transfer_count > transfer_base
                            ? close.transfer_count - transfer_base
                            : 0);
  ListTradesAndCash(date, today, movements, transfer_lines, &report);

  // The prices and positions after the run.
  std::vector<int64_t> settle(config.instruments.size(), 0);
  for (std::size_t i = 0; i < futures.size(); ++i)
    settle[i] = futures[i].settle;
  for (const ContractSettlement& cs : report.contracts) {
    settle[cs.instrument] = cs.price;
    if (cs.final) {
      std::fill(new_positions[cs.instrument].begin(),
                new_positions[cs.instrument].end(), 0);
    }
  }
  std::vector<int64_t> net(accounts(), 0);
  for (const Movement& m : movements) net[m.account] += m.amount_micros;
  // Initial margin at the new prices, collateral after the run (the cash
  // this stream has seen at the settlement instant, so a re-run reports
  // what the first run did), and the margin call when it falls short.
  std::vector<exchange::MarginLeg> legs;
  for (AccountSettlement& line : lines) {
    if (line.member == 0) continue;
    legs.clear();
    for (uint32_t i = 1; i < new_positions.size(); ++i) {
      if (new_positions[i].empty() || new_positions[i][line.account] == 0) {
        continue;
      }
      const ContractInfo& c = config.instruments[i];
      legs.push_back({c.root, c.month, new_positions[i][line.account],
                      settle[i], c.gpu_hours});
      if (legs.size() == exchange::kMaxMarginLegs) break;
    }
    line.initial_margin =
        legs.empty() ? 0 : exchange::InitialMargin(legs, config.margin);
    line.collateral =
        cash[line.account] -
        (transferred[line.account] - (line.account < close.transferred.size()
                                          ? close.transferred[line.account]
                                          : 0)) +
        net[line.account];
    line.margin_call = line.initial_margin > line.collateral
                           ? line.initial_margin - line.collateral
                           : 0;
  }
  report.accounts = std::move(lines);

  // ---- Book it ----
  auto outcome =
      ledger->PostRun(date, std::move(movements), LedgerReport(report));
  if (!outcome.has_value()) return outcome.error();
  // Committed: advance the state.
  positions = std::move(new_positions);
  pending = std::move(later);
  for (const uint64_t id : paid) spot_trades[id].paid = true;
  for (const TradeLine& t : report.trades) {
    if (auto it = spot_trades.find(t.trade_id);
        it != spot_trades.end() && it->second.instrument == t.instrument) {
      it->second.reported = true;
    }
  }
  transfers.erase(
      transfers.begin(),
      transfers.begin() + static_cast<std::ptrdiff_t>(transfer_lines));
  transfer_base += transfer_lines;
  for (std::size_t a = 0; a < net.size(); ++a) cash[a] += net[a];
  for (const ContractSettlement& cs : report.contracts) {
    FutureState& f = futures[cs.instrument];
    f.settle = cs.price;
    f.closed = f.closed || cs.final;
  }

  RunResult result;
  result.date = date;
  for (std::size_t a = 0; a < net.size(); ++a) {
    if (net[a] != 0)
      result.bookings.emplace_back(static_cast<uint32_t>(a), net[a]);
  }
  result.contracts = report.contracts;
  results[date] = result;
  const RunReport& stored = reports[date] = std::move(report);
  Persist(&stored);
  if (on_run && !outcome.value().already_settled) on_run(result);
  return Status::Ok();
}

// Loads the stored live state and the settled dates' reports (none stored:
// the whole journal is fed again, as before they were kept), over what
// Init() set up for the config (internal::Adopt).
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
        s.spot_delivery_day[e.instrument.value] = e.count;
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
      const int64_t day = e.count;
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
      s.Rerun(static_cast<int64_t>(e.count));
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

int64_t SettlementService::LastSettlementPrice(uint32_t instrument) const {
  return instrument < s_->futures.size() ? s_->futures[instrument].settle : 0;
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
