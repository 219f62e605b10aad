#include "index/index_service.h"

#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/core/money.h"
#include "exchange/rocksdb_status.h"
#include "exchange/text_format.h"
#include "index/index_records.h"

namespace cfx::index {

using exchange::ByteReader;
using exchange::ByteWriter;
using exchange::Event;
using exchange::EventType;
using exchange::FromRocks;
using exchange::RocksErrors;
using exchange::Seq;
using exchange::ToHex;
using internal::DecodePrint;
using internal::DecodeTrade;
using internal::EncodePrint;
using internal::EncodeTrade;
using internal::GetBigEndian;
using internal::kFormatVersion;
using internal::kSeqKey;
using internal::kVersionKey;
using internal::PrintKey;
using internal::TradeKey;

struct IndexService::State {
  IndexConfig config;
  std::unique_ptr<rocksdb::DB> db;  // null: in memory
  bool read_only = false;
  Seq last_seq;
  std::function<void(const Print&)> on_print;

  // Per grade: the trades of each index day, in the order they matched.
  struct Grade {
    std::map<int64_t, std::vector<IndexTrade>> days;
    // Every revision of each day's print, oldest first.
    std::map<int64_t, std::vector<Print>> prints;
  };
  std::vector<Grade> grades;
  struct Where {
    uint32_t grade = 0;
    int64_t day = 0;
    std::size_t index = 0;
  };
  std::unordered_map<uint64_t, Where> trade_by_id;
  std::set<int64_t> never_restated;

  // Written by the next Flush().
  std::vector<std::pair<uint32_t, uint64_t>> dirty_trades;  // grade, id
  std::vector<std::pair<uint32_t, std::pair<int64_t, uint32_t>>> dirty_prints;
  bool dirty = false;

  const MethodologyConfig& m() const { return config.methodology; }
  // The methodology with grade g's GPU-hours per lot.
  MethodologyConfig For(uint32_t g) const {
    MethodologyConfig c = config.methodology;
    if (g < config.gpu_hours_per_lot.size()) {
      c.gpu_hours_per_lot = config.gpu_hours_per_lot[g];
    }
    return c;
  }

  IndexTrade* FindTrade(uint64_t id) {
    auto it = trade_by_id.find(id);
    if (it == trade_by_id.end()) return nullptr;
    return &grades[it->second.grade].days[it->second.day][it->second.index];
  }

  void AddTrade(uint32_t grade, const IndexTrade& t) {
    const int64_t day = m().DayOf(t.ts_ns);
    std::vector<IndexTrade>& v = grades[grade].days[day];
    trade_by_id[t.trade_id] = Where{grade, day, v.size()};
    v.push_back(t);
  }

  const Print* Latest(uint32_t grade, int64_t day) const {
    if (grade >= grades.size()) return nullptr;
    const auto& prints = grades[grade].prints;
    auto it = prints.find(day);
    return it == prints.end() || it->second.empty() ? nullptr
                                                    : &it->second.back();
  }

  // The latest revision of (grade, day) computed at or before `at`.
  const Print* AsOf(uint32_t grade, int64_t day, int64_t at) const {
    if (grade >= grades.size()) return nullptr;
    const auto& prints = grades[grade].prints;
    auto it = prints.find(day);
    if (it == prints.end()) return nullptr;
    const Print* best = nullptr;
    for (const Print& p : it->second) {
      if (p.computed_at_ns <= at) best = &p;
    }
    return best;
  }

  // The input of a computation of (grade, day) as of `as_of`, with the
  // reference grade's print of the day when it is at 1a-2 (`with_other`).
  FixingInput Input(uint32_t grade, int64_t day, int64_t as_of,
                    bool with_other) const {
    FixingInput in;
    in.grade = grade;
    in.day = day;
    in.as_of_ns = as_of;
    const uint32_t n = std::max<uint32_t>(m().level2_days, 1);
    const Grade& g = grades[grade];
    for (uint32_t a = 0; a < n; ++a) {
      auto it = g.days.find(day - a);
      if (it == g.days.end()) {
        in.days.emplace_back();
      } else {
        in.days.emplace_back(it->second.data(), it->second.size());
      }
      in.prev.push_back(AsOf(grade, day - 1 - a, as_of));
    }
    const int32_t ref = grade < config.reference_grade.size()
                            ? config.reference_grade[grade]
                            : -1;
    if (with_other && ref >= 0 &&
        static_cast<std::size_t>(ref) < grades.size()) {
      const uint32_t r = static_cast<uint32_t>(ref);
      const Print* today = AsOf(r, day, as_of);
      if (today != nullptr && FromTrades(today->level) && today->has_value) {
        in.other_today = today;
      }
      in.other_prev = AsOf(r, day - 1, as_of);
    }
    return in;
  }

  void Publish(Print p) {
    const uint32_t g = p.grade;
    auto& revisions = grades[g].prints[p.day];
    revisions.push_back(std::move(p));
    const Print& stored = revisions.back();
    dirty_prints.push_back({g, {stored.day, stored.revision}});
    dirty = true;
    if (on_print) on_print(stored);
  }

  void Fix(int64_t day) {
    const int64_t at = m().FixingNs(day);
    const uint32_t n = static_cast<uint32_t>(grades.size());
    std::vector<Print> prints(n);
    std::vector<bool> unfixed(n, false);
    for (uint32_t g = 0; g < n; ++g) {
      if (Latest(g, day) != nullptr) continue;  // fixed already (replay)
      unfixed[g] = true;
      prints[g] = ComputeFixing(For(g), Input(g, day, at, /*with_other=*/false),
                                nullptr);
    }
    // Level 3 looks at the reference grade's print of the same day, so the
    // grades that fell below Level 2 are computed again once every grade's
    // own-trade levels are known.
    for (uint32_t g = 0; g < n; ++g) {
      if (!unfixed[g] || FromTrades(prints[g].level)) continue;
      const int32_t ref =
          g < config.reference_grade.size() ? config.reference_grade[g] : -1;
      if (ref < 0 || static_cast<uint32_t>(ref) >= n) continue;
      const uint32_t r = static_cast<uint32_t>(ref);
      const Print* other = unfixed[r] ? &prints[r] : Latest(r, day);
      if (other == nullptr || !FromTrades(other->level) || !other->has_value) {
        continue;
      }
      FixingInput in = Input(g, day, at, /*with_other=*/true);
      in.other_today = other;
      prints[g] = ComputeFixing(For(g), in, nullptr);
    }
    for (uint32_t g = 0; g < n; ++g) {
      if (!unfixed[g]) continue;
      prints[g].grade = g;
      prints[g].day = day;
      prints[g].revision = 0;
      prints[g].computed_at_ns = at;
      Publish(std::move(prints[g]));
    }
  }

  // A bust at `t` of a trade of `grade`: restates the day whose fixing
  // window it falls in, when the value moves more than the threshold.
  void MaybeRestate(uint32_t grade, int64_t t) {
    const int64_t day = t >= 0 ? t / kNanosPerDay : -1;
    if (day < 0 || never_restated.count(day) != 0) return;
    const int64_t until =
        day * kNanosPerDay + m().restate_until_seconds * kNanosPerSecond;
    if (t < m().FixingNs(day) || t >= until) return;
    const Print* old = Latest(grade, day);
    if (old == nullptr) return;
    Print p =
        ComputeFixing(For(grade), Input(grade, day, t + 1, true), nullptr);
    bool moved;
    if (old->has_value != p.has_value) {
      moved = true;
    } else if (!old->has_value) {
      moved = false;
    } else {
      // |new - old| / old > threshold, exactly.
      const Int128 now = p.value.micros;
      const Int128 before = old->value.micros;
      const Int128 diff = now > before ? now - before : before - now;
      moved = diff * 10'000 >
              static_cast<Int128>(m().restate_threshold_bp) * before;
    }
    if (!moved) return;
    p.grade = grade;
    p.day = day;
    p.revision = old->revision + 1;
    p.computed_at_ns = t;
    Publish(std::move(p));
  }

  void OnTrade(const Event& e) {
    const uint32_t inst = e.instrument.value;
    if (inst >= config.instrument_grade.size()) return;
    const uint32_t g1 = config.instrument_grade[inst];
    if (g1 == 0 || g1 > grades.size()) return;
    if (trade_by_id.count(e.trade_id.value) != 0) return;  // seen (replay)
    const bool aggressor_buys = e.side == exchange::Side::kBuy;
    const exchange::AccountId seller =
        aggressor_buys ? e.counter_account : e.account;
    const exchange::AccountId buyer =
        aggressor_buys ? e.account : e.counter_account;
    IndexTrade t;
    t.trade_id = e.trade_id.value;
    t.ts_ns = e.ts.nanos;
    t.price = exchange::ToIndexPrice(e.price);
    t.lots = e.quantity.lots;
    t.seller = Firm(seller);
    t.buyer = Firm(buyer);
    t.seller_group = Group(seller);
    t.buyer_group = Group(buyer);
    t.seller_milli_tokens = e.seller_milli_tokens();
    AddTrade(g1 - 1, t);
    dirty_trades.push_back({g1 - 1, t.trade_id});
    dirty = true;
  }

  // An account outside the table is a participant of its own.
  uint32_t Firm(exchange::AccountId a) const {
    if (a.value < config.account_firm.size() &&
        config.account_firm[a.value] != 0) {
      return config.account_firm[a.value];
    }
    return 0x8000'0000u | a.value;
  }
  uint32_t Group(exchange::AccountId a) const {
    if (a.value < config.account_group.size() &&
        config.account_group[a.value] != 0) {
      return config.account_group[a.value];
    }
    return 0x8000'0000u | a.value;
  }

  void OnBust(const Event& e) {
    auto it = trade_by_id.find(e.trade_id.value);
    if (it == trade_by_id.end()) return;  // not an index trade
    IndexTrade& t =
        grades[it->second.grade].days[it->second.day][it->second.index];
    if (t.busted_at_ns != 0) return;  // applied already (replay)
    t.busted_at_ns = std::max<int64_t>(e.ts.nanos, 1);
    dirty_trades.push_back({it->second.grade, t.trade_id});
    dirty = true;
    MaybeRestate(it->second.grade, e.ts.nanos);
  }

  Status Load() {
    std::unique_ptr<rocksdb::Iterator> it(
        db->NewIterator(rocksdb::ReadOptions()));
    std::vector<IndexTrade> trades;
    std::vector<uint32_t> trade_grades;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view k(it->key().data(), it->key().size());
      const std::string_view v(it->value().data(), it->value().size());
      if (k == kVersionKey) continue;
      if (k == kSeqKey) {
        ByteReader r(v);
        last_seq = Seq{r.Get<uint64_t>()};
        if (!r.ok() || r.remaining() != 0) {
          return DataLossError("index store: bad last seq record");
        }
        continue;
      }
      if (k.size() == 10 && k[0] == 't') {
        const uint32_t g = static_cast<uint8_t>(k[1]);
        IndexTrade t;
        if (g >= grades.size() || !DecodeTrade(v, &t) ||
            t.trade_id != GetBigEndian(k, 2, 8)) {
          return DataLossError("index store: bad trade record at key " +
                               ToHex(k));
        }
        trades.push_back(t);
        trade_grades.push_back(g);
        continue;
      }
      if (k.size() == 14 && k[0] == 'p') {
        const uint32_t g = static_cast<uint8_t>(k[1]);
        Print p;
        if (g >= grades.size() || !DecodePrint(v, &p) || p.grade != g ||
            PrintKey(g, p.day, p.revision) != k) {
          return DataLossError("index store: bad print record at key " +
                               ToHex(k));
        }
        auto& revs = grades[g].prints[p.day];
        if (p.revision != revs.size()) {
          return DataLossError("index store: revision gap at key " + ToHex(k));
        }
        revs.push_back(std::move(p));
        continue;
      }
      return DataLossError("index store: unknown key " + ToHex(k));
    }
    if (!it->status().ok())
      return FromRocks(it->status(), "index store",
                       RocksErrors::kCorruptionOrInternal);
    // Trades were stored by id; the methodology does not depend on their
    // order, but keep the match order for explain.
    std::vector<std::size_t> order(trades.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return trades[a].trade_id < trades[b].trade_id;
    });
    for (std::size_t i : order) AddTrade(trade_grades[i], trades[i]);
    return Status::Ok();
  }
};

std::unique_ptr<IndexService> IndexService::InMemory(
    const IndexConfig& config) {
  auto s = std::make_unique<State>();
  s->config = config;
  s->grades.resize(config.grades.size());
  s->never_restated.insert(config.never_restated_days.begin(),
                           config.never_restated_days.end());
  return std::unique_ptr<IndexService>(new IndexService(config, std::move(s)));
}

Result<std::unique_ptr<IndexService>> IndexService::Open(
    const IndexConfig& config, const std::string& dir, bool read_only) {
  if (config.grades.size() > 255) {
    return InvalidArgumentError("index: at most 255 grades");
  }
  std::unique_ptr<IndexService> svc = InMemory(config);
  State& s = *svc->s_;
  rocksdb::Options options;
  options.create_if_missing = !read_only;
  options.paranoid_checks = true;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = read_only
                           ? rocksdb::DB::OpenForReadOnly(options, dir, &raw)
                           : rocksdb::DB::Open(options, dir, &raw);
  if (!rs.ok())
    return FromRocks(rs, "index store " + dir,
                     RocksErrors::kCorruptionOrInternal);
  s.db.reset(raw);
  s.read_only = read_only;
  std::string version;
  rs = s.db->Get(rocksdb::ReadOptions(), kVersionKey, &version);
  if (rs.IsNotFound()) {
    if (!read_only) {
      std::string v;
      ByteWriter(&v).Put<uint32_t>(kFormatVersion);
      CFX_RETURN_IF_ERROR(
          FromRocks(s.db->Put(rocksdb::WriteOptions(), kVersionKey, v),
                    "index store", RocksErrors::kCorruptionOrInternal));
    }
  } else if (!rs.ok()) {
    return FromRocks(rs, "index store " + dir,
                     RocksErrors::kCorruptionOrInternal);
  } else {
    ByteReader r(version);
    const uint32_t v = r.Get<uint32_t>();
    if (!r.ok() || v != kFormatVersion) {
      return InvalidArgumentError("index store " + dir + ": format version " +
                                  std::to_string(v) + ", expected " +
                                  std::to_string(kFormatVersion));
    }
  }
  CFX_RETURN_IF_ERROR(s.Load());
  return svc;
}

IndexService::IndexService(const IndexConfig& config,
                           std::unique_ptr<State> state)
    : s_(std::move(state)) {
  (void)config;
}

IndexService::~IndexService() = default;

void IndexService::OnEvent(const Event& e) {
  State& s = *s_;
  if (e.seq < s.last_seq) return;
  switch (e.type) {
    case EventType::kTrade:
      s.OnTrade(e);
      break;
    case EventType::kTradeBusted:
      s.OnBust(e);
      break;
    case EventType::kIndexFixing:
      s.Fix(e.fixing_day());
      break;
    default:
      break;
  }
  s.last_seq = e.seq;
}

Status IndexService::Flush() {
  State& s = *s_;
  if (!s.dirty || s.db == nullptr) {
    s.dirty_trades.clear();
    s.dirty_prints.clear();
    s.dirty = false;
    return Status::Ok();
  }
  if (s.read_only) return FailedPreconditionError("index store is read-only");
  rocksdb::WriteBatch batch;
  for (const auto& [g, id] : s.dirty_trades) {
    const IndexTrade* t = s.FindTrade(id);
    if (t != nullptr) batch.Put(TradeKey(g, id), EncodeTrade(*t));
  }
  for (const auto& [g, key] : s.dirty_prints) {
    const auto& revs = s.grades[g].prints[key.first];
    batch.Put(PrintKey(g, key.first, key.second),
              EncodePrint(revs[key.second]));
  }
  std::string seq;
  ByteWriter(&seq).Put<uint64_t>(s.last_seq.value);
  batch.Put(kSeqKey, seq);
  // Not synced: the journal is the durable record, and a restart feeds its
  // events again from last_applied_seq().
  const Status st =
      FromRocks(s.db->Write(rocksdb::WriteOptions(), &batch), "index store",
                RocksErrors::kCorruptionOrInternal);
  if (!st.ok()) return st;
  s.dirty_trades.clear();
  s.dirty_prints.clear();
  s.dirty = false;
  return Status::Ok();
}

Seq IndexService::last_applied_seq() const { return s_->last_seq; }
const IndexConfig& IndexService::config() const { return s_->config; }

void IndexService::set_on_print(std::function<void(const Print&)> fn) {
  s_->on_print = std::move(fn);
}

const Print* IndexService::Latest(uint32_t grade) const {
  if (grade >= s_->grades.size()) return nullptr;
  const auto& prints = s_->grades[grade].prints;
  if (prints.empty()) return nullptr;
  return &prints.rbegin()->second.back();
}

const Print* IndexService::Find(uint32_t grade, int64_t day) const {
  return s_->Latest(grade, day);
}

FixingLookup IndexService::Fixings() const {
  return [this](uint32_t grade, int64_t day) -> std::optional<Fixing> {
    const Print* p = Find(grade, day);
    if (p == nullptr) return std::nullopt;
    return Fixing{p->has_value, p->value, FromTrades(p->level)};
  };
}

std::vector<Print> IndexService::Revisions(uint32_t grade, int64_t day) const {
  if (grade >= s_->grades.size()) return {};
  const auto& prints = s_->grades[grade].prints;
  auto it = prints.find(day);
  return it == prints.end() ? std::vector<Print>{} : it->second;
}

std::vector<Print> IndexService::History(uint32_t grade, int64_t from_day,
                                         int64_t to_day,
                                         HistoryRevisions revisions) const {
  std::vector<Print> out;
  if (grade >= s_->grades.size() || from_day > to_day) return out;
  const auto& prints = s_->grades[grade].prints;
  for (auto it = prints.lower_bound(from_day);
       it != prints.end() && it->first <= to_day; ++it) {
    if (revisions == HistoryRevisions::kAll) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    } else {
      out.push_back(it->second.back());
    }
  }
  return out;
}

std::size_t IndexService::RevisionCount(uint32_t grade, int64_t from_day,
                                        int64_t to_day) const {
  std::size_t n = 0;
  if (grade >= s_->grades.size() || from_day > to_day) return n;
  const auto& prints = s_->grades[grade].prints;
  for (auto it = prints.lower_bound(from_day);
       it != prints.end() && it->first <= to_day; ++it) {
    n += it->second.size();
  }
  return n;
}

Result<std::pair<Print, Explanation>> IndexService::Explain(uint32_t grade,
                                                            int64_t day) const {
  const Print* p = s_->Latest(grade, day);
  if (p == nullptr) return NotFoundError("no print for that grade and day");
  const int64_t as_of =
      p->revision == 0 ? p->computed_at_ns : p->computed_at_ns + 1;
  FixingInput in = s_->Input(grade, day, as_of, /*with_other=*/true);
  Explanation ex;
  Print q = ComputeFixing(s_->For(grade), in, &ex);
  q.grade = p->grade;
  q.day = p->day;
  q.revision = p->revision;
  q.computed_at_ns = p->computed_at_ns;
  return std::make_pair(std::move(q), std::move(ex));
}

int32_t IndexService::FindGrade(std::string_view name) const {
  const auto& g = s_->config.grades;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g[i] == name) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace cfx::index
