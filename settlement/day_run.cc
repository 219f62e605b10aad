// Running one business day of settlement (SettlementService::State::Run):
// settlement prices, variation margin and final settlement, spot cash,
// margin and collateral, booked in the ledger; and the refusal and re-run
// of a day (docs/settlement.md).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/core/margin.h"
#include "settlement/settlement_report.h"
#include "settlement/settlement_service_state.h"

namespace cfx::settlement {
namespace {

using internal::DayClose;
using internal::FutureState;
using internal::PendingFill;

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
           std::to_string(c.price.units) + " " + TierName(c.tier) +
           (c.final ? " final" : "") + (c.disrupted ? " disrupted" : "") +
           " oi " + std::to_string(c.open_interest) + "\n";
  }
  Digest d;
  for (const AccountSettlement& a : r.accounts) {
    if (a.positions.empty() && a.spot_cash.micros == 0 &&
        a.initial_margin.micros == 0 && a.collateral.micros == 0) {
      continue;
    }
    d.Add(a.account);
    d.Add(a.fills);
    d.Add(a.spot_cash.micros);
    d.Add(a.initial_margin.micros);
    d.Add(a.collateral.micros);
    for (const AccountSettlement::Line& l : a.positions) {
      d.Add(l.instrument);
      // A closed line digests the quantity it closed (what `position` held
      // before closed lines showed 0), so ledgers booked earlier match.
      d.Add(l.closed ? l.final_quantity : l.position);
      d.Add(l.variation_margin.micros);
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

// The refusal of the run of `date` for the broken invariant `why`.
Status Refused(int64_t date, const std::string& why) {
  return FailedPreconditionError("settlement of " + exchange::FormatDay(date) +
                                 " refused: " + why);
}

}  // namespace

void SettlementService::State::Settle(int64_t date, DayClose close) {
  Status st = Run(date, close);
  if (st.ok()) return;
  status = std::move(st);
  refused_date = date;
  waiting[date] = std::move(close);
  Persist(nullptr);
}

void SettlementService::State::Rerun(int64_t date) {
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

Fsp SettlementService::State::FinalPrice(const ContractInfo& c) const {
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
      f.value = v->value;
      f.from_trades = v->from_trades;
    }
    month.push_back(f);
  }
  exchange::IndexPrice carried;
  if (!days.empty()) {
    for (int64_t d = days.front() - 1; d >= days.front() - 31; --d) {
      auto v = fixings(c.grade, d);
      if (v.has_value() && v->has_value) {
        carried = v->value;
        break;
      }
    }
  }
  return FinalSettlementPrice(month, carried);
}

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

std::vector<ContractSettlement> SettlementService::State::PriceContracts(
    int64_t date, const DayClose& close) const {
  std::vector<ContractSettlement> out;
  std::map<uint32_t, std::vector<uint32_t>> roots;
  for (uint32_t i = 1; i < config.instruments.size(); ++i) {
    const ContractInfo& c = config.instruments[i];
    if (!c.future || futures[i].closed || c.last_trading_day < date) continue;
    roots[c.root].push_back(i);
  }
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
      d.prior = f.settle.units != 0 ? f.settle : c.initial_reference;
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
      }
      out.push_back(cs);
    }
  }
  return out;
}

Status SettlementService::State::CheckFillsCountedOnce(
    int64_t date, const std::vector<PendingFill>& today,
    const std::vector<ContractSettlement>& contracts, std::size_t instruments) {
  std::vector<exchange::Price> price(instruments);
  for (const ContractSettlement& cs : contracts)
    price[cs.instrument] = cs.price;
  struct Side {
    uint32_t instrument;
    uint64_t trade_id;
    int64_t lots;
  };
  std::vector<Side> sides;
  sides.reserve(today.size());
  for (const PendingFill& f : today) {
    if (price[f.instrument].units == 0) {
      return Refused(date, "every fill is counted exactly once (trade " +
                               std::to_string(f.trade_id) +
                               " of an unsettled contract)");
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
    while (end < sides.size() && sides[end].instrument == sides[k].instrument &&
           sides[end].trade_id == sides[k].trade_id) {
      sum += sides[end].lots;
      ++end;
    }
    if (end - k != 2 || sum != 0) {
      return Refused(date, "every fill is counted exactly once (trade " +
                               std::to_string(sides[k].trade_id) + " has " +
                               std::to_string(end - k) + " sides netting to " +
                               std::to_string(sum) + ")");
    }
    k = end;
  }
  return Status::Ok();
}

Status SettlementService::State::SettlePositions(
    int64_t date, const std::vector<PendingFill>& today, RunReport* report,
    std::vector<AccountSettlement>* account_lines,
    std::vector<std::vector<int64_t>>* new_positions,
    std::vector<Movement>* movements) const {
  std::vector<AccountSettlement>& lines = *account_lines;
  std::size_t next = 0;
  for (const ContractSettlement& cs : report->contracts) {
    const uint32_t i = cs.instrument;
    const ContractInfo& c = config.instruments[i];
    const exchange::Price prev_settle = futures[i].settle;
    std::vector<int64_t>& pos = (*new_positions)[i];
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
      const exchange::Amount vm =
          VariationMargin(c.gpu_hours, before, prev_settle, cs.price, fills);
      int64_t after = before;
      for (const Fill& f : fills) after += f.lots;
      pos[a] = after;
      lines[a].fills += static_cast<int64_t>(fills.size());
      lines[a].variation_margin.micros += vm.micros;
      if (lines[a].positions.empty()) {
        lines[a].positions.reserve(report->contracts.size());
      }
      AccountSettlement::Line line{i, after, vm};
      if (cs.final) {  // closed at the FSP: the report shows position 0
        line.closed = true;
        line.final_quantity = after;
        line.position = 0;
      }
      lines[a].positions.push_back(line);
      if (vm.micros != 0) {
        Movement m;
        m.date = date;
        m.kind = cs.final ? MovementKind::kFinalSettlement
                          : MovementKind::kVariationMargin;
        m.account = a;
        m.ref = i;
        m.amount = vm;
        movements->push_back(m);
      }
    }
    // Fills of unknown accounts would be skipped above: refuse instead.
    if (j < today.size() && today[j].instrument == i) {
      return Refused(date, "every fill is counted exactly once (account " +
                               std::to_string(today[j].account) +
                               " is unknown)");
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
      return Refused(date, "positions net to zero per contract (" + c.symbol +
                               " nets to " + std::to_string(sum) + ")");
    }
    for (ContractSettlement& out : report->contracts) {
      if (out.instrument == i) out.open_interest = open;
    }
  }
  return Status::Ok();
}

std::vector<uint64_t> SettlementService::State::PaySpotCash(
    int64_t date, std::vector<AccountSettlement>* lines,
    std::vector<Movement>* movements) const {
  std::vector<uint64_t> paid;
  for (const auto& [id, t] : spot_trades) {
    if (t.paid || t.busted || t.delivery_day == 0) continue;
    if (SpotCashDay(config.calendar, t.delivery_day) > date) continue;
    const ContractInfo* c = Contract(t.instrument);
    const int64_t n =
        SpotNotional(t.price, c->gpu_hours_per_lot, t.lots).micros;
    if (n == 0 || t.buyer == t.seller) continue;
    movements->push_back(
        {date, MovementKind::kSpotCash, t.buyer, id, exchange::Amount{-n}});
    movements->push_back(
        {date, MovementKind::kSpotCash, t.seller, id, exchange::Amount{n}});
    if (t.buyer < lines->size()) (*lines)[t.buyer].spot_cash.micros -= n;
    if (t.seller < lines->size()) (*lines)[t.seller].spot_cash.micros += n;
    paid.push_back(id);
  }
  return paid;
}

void SettlementService::State::MarginLines(
    const DayClose& close, const std::vector<ContractSettlement>& contracts,
    const std::vector<std::vector<int64_t>>& new_positions,
    const std::vector<int64_t>& net,
    std::vector<AccountSettlement>* lines) const {
  std::vector<int64_t> settle(config.instruments.size(), 0);
  for (std::size_t i = 0; i < futures.size(); ++i)
    settle[i] = futures[i].settle.units;
  for (const ContractSettlement& cs : contracts)
    settle[cs.instrument] = cs.price.units;
  // Initial margin at the new prices, collateral after the run (the cash
  // this stream has seen at the settlement instant, so a re-run reports
  // what the first run did), and the margin call when it falls short.
  std::vector<exchange::MarginLeg> legs;
  for (AccountSettlement& line : *lines) {
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
    line.initial_margin = exchange::Amount{
        legs.empty() ? 0 : exchange::InitialMargin(legs, config.margin)};
    line.collateral.micros = cash[line.account].micros -
                             (transferred[line.account].micros -
                              (line.account < close.transferred.size()
                                   ? close.transferred[line.account].micros
                                   : 0)) +
                             net[line.account];
    line.margin_call.micros =
        line.initial_margin > line.collateral
            ? line.initial_margin.micros - line.collateral.micros
            : 0;
  }
}

Status SettlementService::State::Run(int64_t date, const DayClose& close) {
  RunReport report;
  report.date = date;
  report.contracts = PriceContracts(date, close);

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
  CFX_RETURN_IF_ERROR(CheckFillsCountedOnce(date, today, report.contracts,
                                            config.instruments.size()));
  std::vector<std::vector<int64_t>> new_positions = positions;
  std::vector<Movement> movements;
  CFX_RETURN_IF_ERROR(SettlePositions(date, today, &report, &lines,
                                      &new_positions, &movements));
  report.fills = today.size();

  // ---- Spot cash ----
  const std::vector<uint64_t> paid = PaySpotCash(date, &lines, &movements);
  report.spot_trades_paid = paid.size();
  report.movements = movements.size();
  // The transfers booked by the settlement instant (all of them, unless
  // this is a re-run of a date that waited).
  const std::size_t transfer_lines = std::min<std::size_t>(
      transfers.size(), close.transfer_count > transfer_base
                            ? close.transfer_count - transfer_base
                            : 0);
  ListTradesAndCash(date, today, movements, transfer_lines, &report);

  // ---- Margin: the positions after the run ----
  for (const ContractSettlement& cs : report.contracts) {
    if (cs.final) {
      std::fill(new_positions[cs.instrument].begin(),
                new_positions[cs.instrument].end(), 0);
    }
  }
  std::vector<int64_t> net(accounts(), 0);
  for (const Movement& m : movements) net[m.account] += m.amount.micros;
  MarginLines(close, report.contracts, new_positions, net, &lines);
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
  for (std::size_t a = 0; a < net.size(); ++a) cash[a].micros += net[a];
  for (const ContractSettlement& cs : report.contracts) {
    FutureState& f = futures[cs.instrument];
    f.settle = cs.price;
    f.closed = f.closed || cs.final;
  }

  RunResult result;
  result.date = date;
  for (std::size_t a = 0; a < net.size(); ++a) {
    if (net[a] != 0)
      result.bookings.emplace_back(static_cast<uint32_t>(a),
                                   exchange::Amount{net[a]});
  }
  result.contracts = report.contracts;
  results[date] = result;
  const RunReport& stored = reports[date] = std::move(report);
  Persist(&stored);
  if (on_run && !outcome.value().already_settled) on_run(result);
  return Status::Ok();
}

}  // namespace cfx::settlement
