#include "settlement/service_state.h"

#include <algorithm>
#include <string>
#include <utility>

#include "exchange/core/byte_codec.h"

namespace cfx::settlement::internal {

namespace {

using exchange::ByteReader;
using exchange::ByteWriter;

// Record format versions; a record of another version does not decode.
constexpr uint32_t kLiveVersion = 1;
constexpr uint32_t kDayVersion = 1;
// Bounds on counts read back, so a corrupt count cannot ask for a huge
// allocation: every element takes at least one byte.
bool Fits(const ByteReader& r, uint64_t n) { return n <= r.remaining(); }

__extension__ using UInt128 = unsigned __int128;

void PutI128(ByteWriter& w, Int128 v) {
  const auto u = static_cast<UInt128>(v);
  w.Put<uint64_t>(static_cast<uint64_t>(u));
  w.Put<uint64_t>(static_cast<uint64_t>(u >> 64));
}
Int128 GetI128(ByteReader& r) {
  const uint64_t lo = r.Get<uint64_t>();
  const uint64_t hi = r.Get<uint64_t>();
  return static_cast<Int128>((static_cast<UInt128>(hi) << 64) | lo);
}

void PutString(ByteWriter& w, const std::string& s) {
  w.Put<uint32_t>(static_cast<uint32_t>(s.size()));
  w.PutBytes(s);
}
bool GetString(ByteReader& r, std::string_view in, std::string* out) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, n)) return false;
  const std::size_t at = r.position();
  *out = std::string(in.substr(at, n));
  for (uint32_t i = 0; i < n; ++i) r.Get<uint8_t>();
  return r.ok();
}

void PutVector(ByteWriter& w, const std::vector<int64_t>& v) {
  w.Put<uint32_t>(static_cast<uint32_t>(v.size()));
  for (const int64_t x : v) w.Put<int64_t>(x);
}
bool GetVector(ByteReader& r, std::vector<int64_t>* v) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{n} * 8)) return false;
  v->resize(n);
  for (int64_t& x : *v) x = r.Get<int64_t>();
  return r.ok();
}
// Amounts as their micro-dollars, as PutVector / GetVector.
void PutAmounts(ByteWriter& w, const std::vector<exchange::Amount>& v) {
  w.Put<uint32_t>(static_cast<uint32_t>(v.size()));
  for (const exchange::Amount x : v) w.Put<int64_t>(x.micros);
}
bool GetAmounts(ByteReader& r, std::vector<exchange::Amount>* v) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{n} * 8)) return false;
  v->resize(n);
  for (exchange::Amount& x : *v) x.micros = r.Get<int64_t>();
  return r.ok();
}

void PutLevels(ByteWriter& w, const std::map<exchange::Price, int64_t>& m) {
  w.Put<uint32_t>(static_cast<uint32_t>(m.size()));
  for (const auto& [price, lots] : m) {
    w.Put<int64_t>(price.units);
    w.Put<int64_t>(lots);
  }
}
bool GetLevels(ByteReader& r, std::map<exchange::Price, int64_t>* m) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{n} * 16)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    const exchange::Price price{r.Get<int64_t>()};
    (*m)[price] = r.Get<int64_t>();
  }
  return r.ok();
}

void PutClose(ByteWriter& w, const DayClose& c) {
  w.Put<uint32_t>(static_cast<uint32_t>(c.books.size()));
  for (const DayClose::Book& b : c.books) {
    w.Put<uint32_t>(b.instrument);
    PutI128(w, b.window_notional);
    w.Put<int64_t>(b.window_lots);
    w.Put<int64_t>(b.last_trade.units);
    w.Put<int64_t>(b.best_bid.units);
    w.Put<int64_t>(b.best_ask.units);
  }
  PutAmounts(w, c.transferred);
  w.Put<uint64_t>(c.transfer_count);
}
bool GetClose(ByteReader& r, DayClose* c) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{n} * 52)) return false;
  c->books.resize(n);
  for (DayClose::Book& b : c->books) {
    b.instrument = r.Get<uint32_t>();
    b.window_notional = GetI128(r);
    b.window_lots = r.Get<int64_t>();
    b.last_trade.units = r.Get<int64_t>();
    b.best_bid.units = r.Get<int64_t>();
    b.best_ask.units = r.Get<int64_t>();
  }
  if (!GetAmounts(r, &c->transferred)) return false;
  c->transfer_count = r.Get<uint64_t>();
  return r.ok();
}

void PutCashLine(ByteWriter& w, const CashLine& c) {
  w.Put<int64_t>(c.movement.date);
  w.Put<uint8_t>(static_cast<uint8_t>(c.movement.kind));
  w.Put<uint32_t>(c.movement.account);
  w.Put<uint64_t>(c.movement.ref);
  w.Put<int64_t>(c.movement.amount.micros);
  w.Put<uint32_t>(c.member);
  w.Put<uint8_t>(static_cast<uint8_t>(c.counterparty));
}
constexpr std::size_t kCashLineSize = 8 + 1 + 4 + 8 + 8 + 4 + 1;
void GetCashLine(ByteReader& r, CashLine* c) {
  c->movement.date = r.Get<int64_t>();
  c->movement.kind = static_cast<MovementKind>(r.Get<uint8_t>());
  c->movement.account = r.Get<uint32_t>();
  c->movement.ref = r.Get<uint64_t>();
  c->movement.amount.micros = r.Get<int64_t>();
  c->member = r.Get<uint32_t>();
  c->counterparty = static_cast<BookKind>(r.Get<uint8_t>());
}
void PutCashLines(ByteWriter& w, const std::vector<CashLine>& v) {
  w.Put<uint32_t>(static_cast<uint32_t>(v.size()));
  for (const CashLine& c : v) PutCashLine(w, c);
}
bool GetCashLines(ByteReader& r, std::vector<CashLine>* v) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{n} * kCashLineSize)) return false;
  v->resize(n);
  for (CashLine& c : *v) GetCashLine(r, &c);
  return r.ok();
}

void PutContract(ByteWriter& w, const ContractSettlement& c) {
  w.Put<uint32_t>(c.instrument);
  w.Put<int64_t>(c.price.units);
  w.Put<uint8_t>(static_cast<uint8_t>(c.tier));
  w.Put<uint8_t>(c.final ? 1 : 0);
  w.Put<uint8_t>(c.disrupted ? 1 : 0);
  w.Put<int64_t>(c.open_interest);
}
bool GetContract(ByteReader& r, ContractSettlement* c) {
  c->instrument = r.Get<uint32_t>();
  c->price.units = r.Get<int64_t>();
  const uint8_t tier = r.Get<uint8_t>();
  c->final = r.Get<uint8_t>() != 0;
  c->disrupted = r.Get<uint8_t>() != 0;
  c->open_interest = r.Get<int64_t>();
  if (tier > static_cast<uint8_t>(DspTier::kFinal)) return false;
  c->tier = static_cast<DspTier>(tier);
  return r.ok();
}

}  // namespace

std::string EncodeLive(const LiveState& s) {
  std::string out;
  ByteWriter w(&out);
  w.Put<uint32_t>(kLiveVersion);
  w.Put<uint64_t>(s.last_seq);
  w.Put<uint32_t>(static_cast<uint32_t>(s.futures.size()));
  for (const FutureState& f : s.futures) {
    PutLevels(w, f.bids);
    PutLevels(w, f.asks);
    w.Put<int64_t>(f.trade_day);
    PutI128(w, f.window_notional);
    w.Put<int64_t>(f.window_lots);
    w.Put<int64_t>(f.last_trade.units);
    w.Put<int64_t>(f.settle.units);
    w.Put<uint8_t>(f.closed ? 1 : 0);
  }
  PutVector(w, s.spot_delivery_day);
  w.Put<uint64_t>(s.pending.size());
  for (const PendingFill& p : s.pending) {
    w.Put<int64_t>(p.day);
    w.Put<uint32_t>(p.instrument);
    w.Put<uint32_t>(p.account);
    w.Put<int64_t>(p.lots);
    w.Put<int64_t>(p.price.units);
    w.Put<uint64_t>(p.trade_id);
    w.Put<int64_t>(p.ts);
  }
  // Positions sparsely: (instrument, account, position) of the nonzero
  // ones, after each instrument's account count.
  w.Put<uint32_t>(static_cast<uint32_t>(s.positions.size()));
  for (const std::vector<int64_t>& p : s.positions) {
    w.Put<uint32_t>(static_cast<uint32_t>(p.size()));
    uint32_t nonzero = 0;
    for (const int64_t x : p) nonzero += x != 0 ? 1 : 0;
    w.Put<uint32_t>(nonzero);
    for (std::size_t a = 0; a < p.size(); ++a) {
      if (p[a] == 0) continue;
      w.Put<uint32_t>(static_cast<uint32_t>(a));
      w.Put<int64_t>(p[a]);
    }
  }
  PutAmounts(w, s.cash);
  PutAmounts(w, s.transferred);
  PutCashLines(w, s.transfers);
  w.Put<uint64_t>(s.transfer_base);
  // Spot trades in id order, so that equal states encode equally.
  std::map<uint64_t, const SpotTrade*> trades;
  for (const auto& [id, t] : s.spot_trades) trades.emplace(id, &t);
  w.Put<uint64_t>(trades.size());
  for (const auto& [id, t] : trades) {
    w.Put<uint64_t>(id);
    w.Put<uint32_t>(t->instrument);
    w.Put<uint32_t>(t->buyer);
    w.Put<uint32_t>(t->seller);
    w.Put<int64_t>(t->price.units);
    w.Put<int64_t>(t->lots);
    w.Put<int64_t>(t->delivery_day);
    w.Put<int64_t>(t->match_time);
    w.Put<int64_t>(t->day);
    w.Put<uint8_t>(static_cast<uint8_t>(
        (t->busted ? 1 : 0) | (t->paid ? 2 : 0) | (t->reported ? 4 : 0)));
  }
  w.Put<uint32_t>(static_cast<uint32_t>(s.applied_dates.size()));
  for (const int64_t d : s.applied_dates) w.Put<int64_t>(d);
  w.Put<int32_t>(static_cast<int32_t>(s.status.code()));
  PutString(w, s.status.message());
  w.Put<int64_t>(s.refused_date);
  w.Put<uint32_t>(static_cast<uint32_t>(s.waiting.size()));
  for (const auto& [date, close] : s.waiting) {
    w.Put<int64_t>(date);
    PutClose(w, close);
  }
  return out;
}

Status DecodeLive(std::string_view in, LiveState* s) {
  ByteReader r(in);
  const auto bad = [](const std::string& what) {
    return DataLossError("settlement state: " + what + " does not decode");
  };
  const uint32_t version = r.Get<uint32_t>();
  if (!r.ok() || version != kLiveVersion) {
    return DataLossError("settlement state: format version " +
                         std::to_string(version) + ", expected " +
                         std::to_string(kLiveVersion));
  }
  s->last_seq = r.Get<uint64_t>();
  const uint32_t futures = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, futures)) return bad("the futures");
  s->futures.assign(futures, FutureState{});
  for (FutureState& f : s->futures) {
    if (!GetLevels(r, &f.bids) || !GetLevels(r, &f.asks)) {
      return bad("a book");
    }
    f.trade_day = r.Get<int64_t>();
    f.window_notional = GetI128(r);
    f.window_lots = r.Get<int64_t>();
    f.last_trade.units = r.Get<int64_t>();
    f.settle.units = r.Get<int64_t>();
    f.closed = r.Get<uint8_t>() != 0;
  }
  if (!GetVector(r, &s->spot_delivery_day)) return bad("the spot slots");
  const uint64_t pending = r.Get<uint64_t>();
  if (!r.ok() || !Fits(r, pending * 48)) return bad("the pending fills");
  s->pending.resize(pending);
  for (PendingFill& p : s->pending) {
    p.day = r.Get<int64_t>();
    p.instrument = r.Get<uint32_t>();
    p.account = r.Get<uint32_t>();
    p.lots = r.Get<int64_t>();
    p.price.units = r.Get<int64_t>();
    p.trade_id = r.Get<uint64_t>();
    p.ts = r.Get<int64_t>();
  }
  const uint32_t instruments = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{instruments} * 8)) {
    return bad("the positions");
  }
  s->positions.assign(instruments, {});
  for (std::vector<int64_t>& p : s->positions) {
    const uint32_t accounts = r.Get<uint32_t>();
    const uint32_t nonzero = r.Get<uint32_t>();
    if (!r.ok() || nonzero > accounts || !Fits(r, uint64_t{nonzero} * 12)) {
      return bad("the positions");
    }
    p.assign(accounts, 0);
    for (uint32_t k = 0; k < nonzero; ++k) {
      const uint32_t a = r.Get<uint32_t>();
      const int64_t v = r.Get<int64_t>();
      if (a >= accounts) return bad("a position");
      p[a] = v;
    }
  }
  if (!GetAmounts(r, &s->cash)) return bad("the cash");
  if (!GetAmounts(r, &s->transferred)) return bad("the transfers");
  if (!GetCashLines(r, &s->transfers)) return bad("the transfer lines");
  s->transfer_base = r.Get<uint64_t>();
  const uint64_t trades = r.Get<uint64_t>();
  if (!r.ok() || !Fits(r, trades * 61)) return bad("the spot trades");
  for (uint64_t k = 0; k < trades; ++k) {
    const uint64_t id = r.Get<uint64_t>();
    SpotTrade t;
    t.instrument = r.Get<uint32_t>();
    t.buyer = r.Get<uint32_t>();
    t.seller = r.Get<uint32_t>();
    t.price.units = r.Get<int64_t>();
    t.lots = r.Get<int64_t>();
    t.delivery_day = r.Get<int64_t>();
    t.match_time = r.Get<int64_t>();
    t.day = r.Get<int64_t>();
    const uint8_t flags = r.Get<uint8_t>();
    t.busted = (flags & 1) != 0;
    t.paid = (flags & 2) != 0;
    t.reported = (flags & 4) != 0;
    s->spot_trades.emplace(id, t);
  }
  const uint32_t applied = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{applied} * 8)) return bad("applied dates");
  for (uint32_t k = 0; k < applied; ++k) {
    s->applied_dates.insert(r.Get<int64_t>());
  }
  const int32_t code = r.Get<int32_t>();
  std::string message;
  if (!GetString(r, in, &message)) return bad("the status");
  s->status = Status(static_cast<StatusCode>(code), std::move(message));
  s->refused_date = r.Get<int64_t>();
  const uint32_t waiting = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{waiting} * 8)) return bad("waiting runs");
  for (uint32_t k = 0; k < waiting; ++k) {
    const int64_t date = r.Get<int64_t>();
    if (!GetClose(r, &s->waiting[date])) return bad("a waiting run");
  }
  if (!r.ok() || r.remaining() != 0) return bad("the end of the record");
  return Status::Ok();
}

namespace {

// Copies `from` over the front of `into`; false if it is longer.
template <typename T>
bool Overlay(std::vector<T>& from, std::vector<T>& into) {
  if (from.size() > into.size()) return false;
  std::move(from.begin(), from.end(), into.begin());
  return true;
}

}  // namespace

Status Adopt(LiveState stored, LiveState* current) {
  bool fits = Overlay(stored.futures, current->futures) &&
              Overlay(stored.spot_delivery_day, current->spot_delivery_day) &&
              Overlay(stored.cash, current->cash) &&
              Overlay(stored.transferred, current->transferred) &&
              stored.positions.size() <= current->positions.size();
  for (std::size_t i = 0; fits && i < stored.positions.size(); ++i) {
    fits = Overlay(stored.positions[i], current->positions[i]);
  }
  if (!fits) {
    return InvalidArgumentError(
        "settlement state: stored for more instruments or accounts than the "
        "config has");
  }
  // The opening collateral of accounts the config gained is reported with
  // the next run to be made (a waiting one too), after the opening lines
  // still unreported, as a first run reports everyone's in account order.
  const std::size_t known = stored.cash.size();
  std::vector<CashLine> transfers = std::move(stored.transfers);
  std::size_t at = 0;
  while (at < transfers.size() &&
         transfers[at].movement.kind == MovementKind::kDeposit &&
         transfers[at].movement.ref == 0) {
    ++at;
  }
  std::vector<CashLine> opening;
  for (const CashLine& c : current->transfers) {
    if (c.movement.kind == MovementKind::kDeposit && c.movement.ref == 0 &&
        c.movement.account >= known) {
      opening.push_back(c);
    }
  }
  transfers.insert(transfers.begin() + static_cast<std::ptrdiff_t>(at),
                   opening.begin(), opening.end());
  for (auto& [date, close] : stored.waiting) {
    close.transfer_count += opening.size();
  }
  current->transfers = std::move(transfers);
  current->transfer_base = stored.transfer_base;
  current->last_seq = stored.last_seq;
  current->pending = std::move(stored.pending);
  current->spot_trades = std::move(stored.spot_trades);
  current->applied_dates = std::move(stored.applied_dates);
  current->status = std::move(stored.status);
  current->refused_date = stored.refused_date;
  current->waiting = std::move(stored.waiting);
  return Status::Ok();
}

std::string EncodeDay(const RunReport& report, const RunResult& result) {
  std::string out;
  ByteWriter w(&out);
  w.Put<uint32_t>(kDayVersion);
  w.Put<int64_t>(report.date);
  w.Put<uint32_t>(static_cast<uint32_t>(report.contracts.size()));
  for (const ContractSettlement& c : report.contracts) PutContract(w, c);
  w.Put<uint32_t>(static_cast<uint32_t>(report.accounts.size()));
  for (const AccountSettlement& a : report.accounts) {
    w.Put<uint32_t>(a.account);
    w.Put<uint32_t>(a.member);
    w.Put<uint32_t>(static_cast<uint32_t>(a.positions.size()));
    for (const AccountSettlement::Line& l : a.positions) {
      w.Put<uint32_t>(l.instrument);
      w.Put<int64_t>(l.position);
      w.Put<int64_t>(l.variation_margin.micros);
      w.Put<uint8_t>(l.closed ? 1 : 0);
      w.Put<int64_t>(l.final_quantity);
    }
    w.Put<int64_t>(a.fills);
    w.Put<int64_t>(a.variation_margin.micros);
    w.Put<int64_t>(a.spot_cash.micros);
    w.Put<int64_t>(a.initial_margin.micros);
    w.Put<int64_t>(a.collateral.micros);
    w.Put<int64_t>(a.margin_call.micros);
  }
  w.Put<uint64_t>(report.fills);
  w.Put<uint64_t>(report.spot_trades_paid);
  w.Put<uint64_t>(report.movements);
  w.Put<uint32_t>(static_cast<uint32_t>(report.trades.size()));
  for (const TradeLine& t : report.trades) {
    w.Put<uint64_t>(t.trade_id);
    w.Put<int64_t>(t.match_time);
    w.Put<uint32_t>(t.account);
    w.Put<uint32_t>(t.member);
    w.Put<uint32_t>(t.instrument);
    w.Put<int64_t>(t.lots);
    w.Put<int64_t>(t.price.units);
    w.Put<uint8_t>(t.busted ? 1 : 0);
  }
  PutCashLines(w, report.cash);
  w.Put<uint32_t>(static_cast<uint32_t>(result.bookings.size()));
  for (const auto& [account, amount] : result.bookings) {
    w.Put<uint32_t>(account);
    w.Put<int64_t>(amount.micros);
  }
  return out;
}

Status DecodeDay(std::string_view in, RunReport* report, RunResult* result) {
  ByteReader r(in);
  const auto bad = [](const std::string& what) {
    return DataLossError("settlement day record: " + what + " does not decode");
  };
  const uint32_t version = r.Get<uint32_t>();
  if (!r.ok() || version != kDayVersion) return bad("the format version");
  report->date = r.Get<int64_t>();
  const uint32_t contracts = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{contracts} * 27)) return bad("contracts");
  report->contracts.resize(contracts);
  for (ContractSettlement& c : report->contracts) {
    if (!GetContract(r, &c)) return bad("a contract");
  }
  const uint32_t accounts = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{accounts} * 60)) return bad("accounts");
  report->accounts.resize(accounts);
  for (AccountSettlement& a : report->accounts) {
    a.account = r.Get<uint32_t>();
    a.member = r.Get<uint32_t>();
    const uint32_t lines = r.Get<uint32_t>();
    if (!r.ok() || !Fits(r, uint64_t{lines} * 29)) return bad("a position");
    a.positions.resize(lines);
    for (AccountSettlement::Line& l : a.positions) {
      l.instrument = r.Get<uint32_t>();
      l.position = r.Get<int64_t>();
      l.variation_margin.micros = r.Get<int64_t>();
      l.closed = r.Get<uint8_t>() != 0;
      l.final_quantity = r.Get<int64_t>();
    }
    a.fills = r.Get<int64_t>();
    a.variation_margin.micros = r.Get<int64_t>();
    a.spot_cash.micros = r.Get<int64_t>();
    a.initial_margin.micros = r.Get<int64_t>();
    a.collateral.micros = r.Get<int64_t>();
    a.margin_call.micros = r.Get<int64_t>();
  }
  report->fills = r.Get<uint64_t>();
  report->spot_trades_paid = r.Get<uint64_t>();
  report->movements = r.Get<uint64_t>();
  const uint32_t trades = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{trades} * 45)) return bad("the fills");
  report->trades.resize(trades);
  for (TradeLine& t : report->trades) {
    t.trade_id = r.Get<uint64_t>();
    t.match_time = r.Get<int64_t>();
    t.account = r.Get<uint32_t>();
    t.member = r.Get<uint32_t>();
    t.instrument = r.Get<uint32_t>();
    t.lots = r.Get<int64_t>();
    t.price.units = r.Get<int64_t>();
    t.busted = r.Get<uint8_t>() != 0;
  }
  if (!GetCashLines(r, &report->cash)) return bad("the cash movements");
  result->date = report->date;
  result->contracts = report->contracts;
  const uint32_t bookings = r.Get<uint32_t>();
  if (!r.ok() || !Fits(r, uint64_t{bookings} * 12)) return bad("bookings");
  result->bookings.resize(bookings);
  for (auto& [account, amount] : result->bookings) {
    account = r.Get<uint32_t>();
    amount = exchange::Amount{r.Get<int64_t>()};
  }
  if (!r.ok() || r.remaining() != 0) return bad("the end of the record");
  return Status::Ok();
}

}  // namespace cfx::settlement::internal
