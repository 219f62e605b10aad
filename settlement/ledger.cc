#include "settlement/ledger.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/rocksdb_status.h"
#include "exchange/text_format.h"
#include "settlement/ledger_format.h"
#include "settlement/ledger_state.h"

namespace cfx::settlement {

using exchange::FromRocks;
using exchange::RocksErrors;
using exchange::ToHex;
using internal::AppendPair;
using internal::DatePrefix;
using internal::DecodeGroupKey;
using internal::EncodeGroupKey;
using internal::Fnv;
using internal::FormatDate;
using internal::FullKeyText;
using internal::GroupValueProblem;
using internal::IsTransferKind;
using internal::kDateKeySize;
using internal::KeyLess;
using internal::KeyText;
using internal::kFnvOffset;
using internal::kGroupKeySize;
using internal::kMovementPrefix;
using internal::kPairSize;
using internal::kRecordPrefix;
using internal::kRunHeaderSize;
using internal::kRunPrefix;
using internal::PairAmount;
using internal::PairRef;
using internal::PutLittleEndian;
using internal::SameKey;

BookKind ChainEnd(MovementKind kind) {
  return IsTransferKind(kind) ? BookKind::kBank : BookKind::kHouse;
}

std::string_view MovementKindName(MovementKind kind) {
  switch (kind) {
    case MovementKind::kDeposit:
      return "DEPOSIT";
    case MovementKind::kWithdrawal:
      return "WITHDRAWAL";
    case MovementKind::kVariationMargin:
      return "VARIATION_MARGIN";
    case MovementKind::kFinalSettlement:
      return "FINAL_SETTLEMENT";
    case MovementKind::kSpotCash:
      return "SPOT_CASH";
  }
  return "";
}

template <typename F>
Status Ledger::State::ScanDate(int64_t date, MovementKind min_kind,
                               F&& f) const {
  char start[kDateKeySize + 1];
  DatePrefix(kMovementPrefix, date, start);
  start[kDateKeySize] = static_cast<char>(min_kind);
  const std::string_view prefix(start, kDateKeySize);
  std::unique_ptr<rocksdb::Iterator> it(
      db->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(rocksdb::Slice(start, sizeof start)); it->Valid(); it->Next()) {
    const std::string_view k(it->key().data(), it->key().size());
    if (k.substr(0, kDateKeySize) != prefix) break;
    const std::string_view v(it->value().data(), it->value().size());
    Movement m;
    if (!DecodeGroupKey(k, &m) || !GroupValueProblem(v).empty()) {
      return DataLossError(Prefix() + "bad movements at key " + ToHex(k));
    }
    for (std::size_t i = 0; i < v.size() / kPairSize; ++i) {
      m.ref = PairRef(v, i);
      m.amount.micros = PairAmount(v, i);
      f(m);
    }
  }
  return FromRocks(it->status(), Prefix() + "scan",
                   RocksErrors::kCorruptionOrInternal);
}

namespace {

Result<std::unique_ptr<rocksdb::DB>> OpenDb(const std::string& dir,
                                            rocksdb::Env* env) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.paranoid_checks = true;
  // A settlement run of ~1M movements fits one memtable.
  options.write_buffer_size = 128 << 20;
  if (env != nullptr) options.env = env;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = rocksdb::DB::Open(options, dir, &raw);
  if (!rs.ok())
    return FromRocks(rs, "ledger " + dir, RocksErrors::kCorruptionOrInternal);
  return std::unique_ptr<rocksdb::DB>(raw);
}

}  // namespace

Ledger::Ledger(std::unique_ptr<State> s) : s_(std::move(s)) {}
Ledger::~Ledger() = default;

Result<std::unique_ptr<Ledger>> Ledger::Open(const LedgerConfig& config,
                                             const std::string& dir) {
  auto s = std::make_unique<State>(config);
  s->name = dir;
  Result<std::unique_ptr<rocksdb::DB>> db = OpenDb(dir, nullptr);
  if (!db.has_value()) return db.error();
  s->db = std::move(db).value();
  CFX_RETURN_IF_ERROR(s->Load());
  return std::unique_ptr<Ledger>(new Ledger(std::move(s)));
}

std::unique_ptr<Ledger> Ledger::InMemory(const LedgerConfig& config) {
  auto s = std::make_unique<State>(config);
  s->name = "in memory";
  s->env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
  Result<std::unique_ptr<rocksdb::DB>> db = OpenDb("/cfx-ledger", s->env.get());
  Status st = db.has_value() ? Status::Ok() : db.error();
  if (st.ok()) {
    s->db = std::move(db).value();
    st = s->Load();
  }
  if (!st.ok()) {
    // Only a failing allocation can get here: there is no file to be bad.
    std::fprintf(stderr, "ledger in memory: %s\n", st.ToString().c_str());
    std::abort();
  }
  return std::unique_ptr<Ledger>(new Ledger(std::move(s)));
}

Result<RunOutcome> Ledger::PostRun(int64_t date,
                                   std::vector<Movement> movements,
                                   std::string report) {
  State& s = *s_;
  for (const Movement& m : movements) {
    CFX_RETURN_IF_ERROR(s.ValidateRunMovement(date, m));
  }
  internal::SortRun(movements, s.config.account_member.size());
  for (std::size_t i = 1; i < movements.size(); ++i) {
    if (SameKey(movements[i - 1], movements[i])) {
      return FailedPreconditionError("keys unique: " + KeyText(movements[i]) +
                                     " appears more than once in the run of " +
                                     FormatDate(date));
    }
  }

  char run_key[kDateKeySize];
  DatePrefix(kRunPrefix, date, run_key);
  if (s.settled.count(date) != 0) {
    std::string stored_value;
    CFX_RETURN_IF_ERROR(FromRocks(
        s.db->Get(rocksdb::ReadOptions(),
                  rocksdb::Slice(run_key, sizeof run_key), &stored_value),
        s.Prefix() + "read run of " + FormatDate(date),
        RocksErrors::kCorruptionOrInternal));
    if (stored_value.size() < kRunHeaderSize) {
      return DataLossError(s.Prefix() + "run record of " + FormatDate(date) +
                           " is truncated");
    }
    std::string difference;
    std::size_t i = 0;
    CFX_RETURN_IF_ERROR(s.ScanDate(
        date, MovementKind::kVariationMargin, [&](const Movement& stored) {
          if (!difference.empty()) return;
          if (i < movements.size() && SameKey(movements[i], stored)) {
            const Movement& now = movements[i++];
            if (now.amount.micros != stored.amount.micros) {
              difference = KeyText(stored) + ": stored " +
                           std::to_string(stored.amount.micros) + ", now " +
                           std::to_string(now.amount.micros);
            }
          } else if (i < movements.size() && KeyLess(movements[i], stored)) {
            difference = KeyText(movements[i]) + ": stored none, now " +
                         std::to_string(movements[i].amount.micros);
          } else {
            difference = KeyText(stored) + ": stored " +
                         std::to_string(stored.amount.micros) + ", now none";
          }
        }));
    if (difference.empty() && i < movements.size()) {
      difference = KeyText(movements[i]) + ": stored none, now " +
                   std::to_string(movements[i].amount.micros);
    }
    const std::string_view stored_report =
        std::string_view(stored_value).substr(kRunHeaderSize);
    if (difference.empty() && stored_report != report) {
      difference = "report: stored " + std::to_string(stored_report.size()) +
                   " bytes, now " + std::to_string(report.size()) +
                   " bytes, first differing at byte " +
                   std::to_string(static_cast<std::size_t>(
                       std::mismatch(stored_report.begin(), stored_report.end(),
                                     report.begin(), report.end())
                           .first -
                       stored_report.begin()));
    }
    if (!difference.empty()) {
      return FailedPreconditionError(
          "date " + FormatDate(date) +
          " already settled differently: " + difference);
    }
    return RunOutcome{true, std::string(stored_report)};
  }

  std::vector<int64_t> next;
  internal::BookNets nets;
  CFX_RETURN_IF_ERROR(s.CheckRun(date, movements, &next, &nets));

  // One batch: every movement and the run record, written and synced at once.
  rocksdb::WriteBatch batch(movements.size() * kPairSize + report.size() + 64);
  uint64_t digest = kFnvOffset;
  char key[kGroupKeySize];
  std::string value;
  for (std::size_t i = 0; i < movements.size();) {
    const Movement& first = movements[i];
    value.clear();
    for (; i < movements.size() && movements[i].kind == first.kind &&
           movements[i].account == first.account;
         ++i) {
      AppendPair(&value, movements[i].ref, movements[i].amount.micros);
    }
    EncodeGroupKey(date, first.kind, first.account, key);
    digest = Fnv(Fnv(digest, key, sizeof key), value.data(), value.size());
    CFX_RETURN_IF_ERROR(
        FromRocks(batch.Put(rocksdb::Slice(key, sizeof key), value),
                  s.Prefix() + "batch", RocksErrors::kCorruptionOrInternal));
  }
  std::string run_value(kRunHeaderSize, '\0');
  PutLittleEndian(run_value.data(), movements.size(), 8);
  PutLittleEndian(run_value.data() + 8, digest, 8);
  run_value += report;
  CFX_RETURN_IF_ERROR(
      FromRocks(batch.Put(rocksdb::Slice(run_key, sizeof run_key), run_value),
                s.Prefix() + "batch", RocksErrors::kCorruptionOrInternal));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  CFX_RETURN_IF_ERROR(FromRocks(s.db->Write(wo, &batch),
                                s.Prefix() + "write run of " + FormatDate(date),
                                RocksErrors::kCorruptionOrInternal));
  s.Commit(next, nets);
  s.settled.insert(date);
  return RunOutcome{false, std::move(report)};
}

Status Ledger::PostTransfer(const Movement& m) {
  State& s = *s_;
  if (!IsTransferKind(m.kind)) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": kind must be DEPOSIT or WITHDRAWAL");
  }
  if (m.kind == MovementKind::kDeposit && m.amount.micros <= 0) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": a deposit's amount must be > 0, got " +
                                std::to_string(m.amount.micros));
  }
  if (m.kind == MovementKind::kWithdrawal &&
      (m.amount.micros >= 0 ||
       m.amount.micros == std::numeric_limits<int64_t>::min())) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": a withdrawal's amount must be < 0, got " +
                                std::to_string(m.amount.micros));
  }
  if (!s.Known(m.account)) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": unknown account " +
                                std::to_string(m.account));
  }
  char key[kGroupKeySize];
  EncodeGroupKey(m.date, m.kind, m.account, key);
  std::string stored;
  rocksdb::Status rs = s.db->Get(rocksdb::ReadOptions(),
                                 rocksdb::Slice(key, sizeof key), &stored);
  if (!rs.ok() && !rs.IsNotFound()) {
    return FromRocks(rs, s.Prefix() + "read transfers",
                     RocksErrors::kCorruptionOrInternal);
  }
  if (rs.IsNotFound()) stored.clear();
  if (!stored.empty()) {
    if (std::string problem = GroupValueProblem(stored); !problem.empty()) {
      return DataLossError(s.Prefix() + "movement key " +
                           ToHex(std::string_view(key, sizeof key)) + ": " +
                           problem);
    }
  }
  // The pairs are sorted by ref: find the key's place.
  const std::size_t n = stored.size() / kPairSize;
  std::size_t at = 0;
  while (at < n && PairRef(stored, at) < m.ref) ++at;
  if (at < n && PairRef(stored, at) == m.ref) {
    const int64_t amount = PairAmount(stored, at);
    if (amount == m.amount.micros) return Status::Ok();
    return FailedPreconditionError(
        "transfer " + FullKeyText(m) + " already booked: stored " +
        std::to_string(amount) + ", now " + std::to_string(m.amount.micros));
  }

  int64_t balance = 0;
  int64_t bank = 0;
  if (__builtin_add_overflow(s.balances[m.account], m.amount.micros,
                             &balance) ||
      __builtin_sub_overflow(s.bank_balance, m.amount.micros, &bank)) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": balance would overflow");
  }
  if (balance < 0) {
    return FailedPreconditionError(
        "withdrawal exceeds balance: account " + std::to_string(m.account) +
        " has " + std::to_string(s.balances[m.account]) + ", withdrawal " +
        std::to_string(-m.amount.micros));
  }
  std::string pair;
  AppendPair(&pair, m.ref, m.amount.micros);
  stored.insert(at * kPairSize, pair);
  rocksdb::WriteBatch batch;
  CFX_RETURN_IF_ERROR(
      FromRocks(batch.Put(rocksdb::Slice(key, sizeof key), stored),
                s.Prefix() + "batch", RocksErrors::kCorruptionOrInternal));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  CFX_RETURN_IF_ERROR(FromRocks(s.db->Write(wo, &batch),
                                s.Prefix() + "write transfer",
                                RocksErrors::kCorruptionOrInternal));
  // The member leg nets to zero: in and out of the member in one movement.
  s.balances[m.account] = balance;
  s.bank_balance = bank;
  return Status::Ok();
}

Status Ledger::PutRecords(
    const std::vector<std::pair<std::string, std::string>>& records) {
  rocksdb::WriteBatch batch;
  for (const auto& [key, value] : records) {
    CFX_RETURN_IF_ERROR(
        FromRocks(batch.Put(std::string(1, kRecordPrefix) + key, value),
                  s_->Prefix() + "batch", RocksErrors::kCorruptionOrInternal));
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(s_->db->Write(wo, &batch), s_->Prefix() + "write records",
                   RocksErrors::kCorruptionOrInternal);
}

Result<std::vector<std::pair<std::string, std::string>>> Ledger::Records()
    const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unique_ptr<rocksdb::Iterator> it(
      s_->db->NewIterator(rocksdb::ReadOptions()));
  const std::string prefix(1, kRecordPrefix);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
       it->Next()) {
    out.emplace_back(std::string(it->key().data() + 1, it->key().size() - 1),
                     it->value().ToString());
  }
  CFX_RETURN_IF_ERROR(FromRocks(it->status(), s_->Prefix() + "read records",
                                RocksErrors::kCorruptionOrInternal));
  return out;
}

int64_t Ledger::Balance(uint32_t account) const {
  return account < s_->balances.size() ? s_->balances[account] : 0;
}

int64_t Ledger::MemberBalance(uint32_t member) const {
  const auto& members = s_->members;
  auto it = std::lower_bound(members.begin(), members.end(), member);
  if (it == members.end() || *it != member) return 0;
  return s_->member_balances[static_cast<std::size_t>(it - members.begin())];
}

int64_t Ledger::HouseBalance() const { return s_->house_balance; }

bool Ledger::IsSettled(int64_t date) const {
  return s_->settled.count(date) != 0;
}

std::vector<int64_t> Ledger::SettledDates() const {
  return std::vector<int64_t>(s_->settled.begin(), s_->settled.end());
}

std::optional<std::string> Ledger::Report(int64_t date) const {
  if (!IsSettled(date)) return std::nullopt;
  char run_key[kDateKeySize];
  DatePrefix(kRunPrefix, date, run_key);
  std::string value;
  rocksdb::Status rs = s_->db->Get(
      rocksdb::ReadOptions(), rocksdb::Slice(run_key, sizeof run_key), &value);
  if (!rs.ok() || value.size() < kRunHeaderSize) return std::nullopt;
  return value.substr(kRunHeaderSize);
}

std::vector<Movement> Ledger::Movements(int64_t date, uint32_t member) const {
  std::vector<Movement> out;
  // Key order is (kind, account, ref) within the date. A read error leaves
  // what was read so far; Open has already checked every stored value.
  (void)s_->ScanDate(date, MovementKind{0}, [&](const Movement& m) {
    if (member == 0 || s_->MemberOf(m.account) == member) out.push_back(m);
  });
  return out;
}

std::vector<Entry> Ledger::Entries(int64_t date, uint32_t member) const {
  std::vector<Movement> movements = Movements(date, member);
  std::vector<Entry> out;
  out.reserve(movements.size() * 2);
  Entry legs[2];
  for (const Movement& m : movements) {
    if (m.amount.micros == std::numeric_limits<int64_t>::min()) continue;
    internal::Legs(m, s_->MemberOf(m.account), legs);
    out.push_back(legs[0]);
    out.push_back(legs[1]);
  }
  return out;
}

}  // namespace cfx::settlement
