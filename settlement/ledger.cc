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
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/rocksdb_status.h"

namespace cfx::settlement {

using exchange::FromRocks;
using exchange::RocksErrors;

namespace {

__extension__ typedef __int128 Int128;

// Store layout, format version 1. Every key starts with a one-byte kind;
// integers in keys are big-endian (dates with the sign bit flipped), so that
// movements iterate in (date, kind, account, ref) order.
//   'v'                            -> u32 format version
//   'm' date(8) kind(1) account(4) -> the account's movements of that date
//                                     and kind: n >= 1 pairs (u64 ref,
//                                     i64 amount), refs strictly ascending
//   'r' date(8)                    -> u64 count, u64 digest, report bytes
//   'x' key                        -> a record of the settlement service,
//                                     opaque here (Ledger::PutRecords)
// Grouping an account's movements of one kind under one key keeps a run of
// 100k accounts x 12 contracts at 100k keys, not 1.2M. A run record's count
// (of movements) and digest (of the group keys and values, in key order)
// cover the run's kinds (VM, final settlement, spot cash) of its date, so
// that Open can tell a run that lost or gained movements. Values are
// little-endian.
constexpr uint32_t kFormatVersion = 1;
constexpr char kVersionKey[] = "v";
constexpr char kMovementPrefix = 'm';
constexpr char kRunPrefix = 'r';
constexpr char kRecordPrefix = 'x';
constexpr std::size_t kDateKeySize = 1 + 8;
constexpr std::size_t kGroupKeySize = kDateKeySize + 1 + 4;
constexpr std::size_t kPairSize = 16;
constexpr std::size_t kRunHeaderSize = 16;
constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

void PutBigEndian(char* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    *out++ = static_cast<char>((v >> (8 * i)) & 0xffu);
  }
}
uint64_t GetBigEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
void PutLittleEndian(char* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    *out++ = static_cast<char>((v >> (8 * i)) & 0xffu);
  }
}
uint64_t GetLittleEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(in[i]);
  }
  return v;
}

uint64_t DateBits(int64_t date) {
  return static_cast<uint64_t>(date) ^ (uint64_t{1} << 63);
}
int64_t DateFromBits(uint64_t bits) {
  return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
}

void DatePrefix(char prefix, int64_t date, char* out) {
  out[0] = prefix;
  PutBigEndian(out + 1, DateBits(date), 8);
}

void EncodeGroupKey(int64_t date, MovementKind kind, uint32_t account,
                    char* out) {
  DatePrefix(kMovementPrefix, date, out);
  out[9] = static_cast<char>(kind);
  PutBigEndian(out + 10, account, 4);
}
// Fills date, kind and account; false unless `k` is a movement key of the
// right size (the kind is not checked here).
bool DecodeGroupKey(std::string_view k, Movement* m) {
  if (k.size() != kGroupKeySize || k[0] != kMovementPrefix) return false;
  m->date = DateFromBits(GetBigEndian(k.data() + 1, 8));
  m->kind = static_cast<MovementKind>(static_cast<uint8_t>(k[9]));
  m->account = static_cast<uint32_t>(GetBigEndian(k.data() + 10, 4));
  m->ref = 0;
  m->amount_micros = 0;
  return true;
}

void AppendPair(std::string* value, uint64_t ref, int64_t amount) {
  char buf[kPairSize];
  PutLittleEndian(buf, ref, 8);
  PutLittleEndian(buf + 8, static_cast<uint64_t>(amount), 8);
  value->append(buf, sizeof buf);
}
uint64_t PairRef(std::string_view value, std::size_t i) {
  return GetLittleEndian(value.data() + i * kPairSize, 8);
}
int64_t PairAmount(std::string_view value, std::size_t i) {
  return static_cast<int64_t>(
      GetLittleEndian(value.data() + i * kPairSize + 8, 8));
}
// Why a group value is malformed, or "" if it is not.
std::string GroupValueProblem(std::string_view value) {
  if (value.empty() || value.size() % kPairSize != 0) {
    return "value of " + std::to_string(value.size()) +
           " bytes, expected a positive multiple of " +
           std::to_string(kPairSize);
  }
  const std::size_t n = value.size() / kPairSize;
  for (std::size_t i = 1; i < n; ++i) {
    if (PairRef(value, i) <= PairRef(value, i - 1)) {
      return "refs not strictly ascending at ref " +
             std::to_string(PairRef(value, i));
    }
  }
  return "";
}

// FNV-1a over 8-byte little-endian words, then the remaining bytes.
uint64_t Fnv(uint64_t h, const char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) h = (h ^ GetLittleEndian(p + i, 8)) * kFnvPrime;
  for (; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * kFnvPrime;
  return h;
}

bool IsRunKind(MovementKind k) {
  return k == MovementKind::kVariationMargin ||
         k == MovementKind::kFinalSettlement || k == MovementKind::kSpotCash;
}
bool IsTransferKind(MovementKind k) {
  return k == MovementKind::kDeposit || k == MovementKind::kWithdrawal;
}

// Key order within a date: (kind, account, ref).
inline uint64_t KindAccount(const Movement& m) {
  return (uint64_t{static_cast<uint8_t>(m.kind)} << 32) | m.account;
}
inline bool KeyLess(const Movement& a, const Movement& b) {
  const uint64_t ka = KindAccount(a);
  const uint64_t kb = KindAccount(b);
  return ka != kb ? ka < kb : a.ref < b.ref;
}
// Sorts a run's movements by key: a stable counting sort by (kind,
// account), then each (kind, account) group by ref. O(n + accounts) rather
// than a comparison sort of the whole run. REQUIRES: every movement has a
// run kind and an account < `accounts`.
void SortRun(std::vector<Movement>& run, std::size_t accounts) {
  const auto lower = [](const Movement& a, const Movement& b) {
    return KeyLess(a, b);
  };
  if (std::is_sorted(run.begin(), run.end(), lower)) return;
  const std::size_t first_kind =
      static_cast<uint8_t>(MovementKind::kVariationMargin);
  auto bucket = [&](const Movement& m) {
    return (static_cast<uint8_t>(m.kind) - first_kind) * accounts + m.account;
  };
  std::vector<uint32_t> start(3 * accounts + 1, 0);
  for (const Movement& m : run) ++start[bucket(m) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<Movement> sorted(run.size());
  for (const Movement& m : run) sorted[start[bucket(m)]++] = m;
  run.swap(sorted);
  for (std::size_t i = 0; i < run.size();) {
    std::size_t j = i + 1;
    while (j < run.size() && KindAccount(run[j]) == KindAccount(run[i])) ++j;
    if (j - i > 1)
      std::sort(run.begin() + static_cast<std::ptrdiff_t>(i),
                run.begin() + static_cast<std::ptrdiff_t>(j), lower);
    i = j;
  }
}

bool SameKey(const Movement& a, const Movement& b) {
  return a.kind == b.kind && a.account == b.account && a.ref == b.ref;
}

// "YYYY-MM-DD" of days since 1970-01-01 (exchange::FormatDay), or "day N"
// for a stored day too far out to be a date.
std::string FormatDate(int64_t days) {
  constexpr int64_t kLimit = 1'000'000'000;  // keeps the arithmetic exact
  if (days > kLimit || days < -kLimit) return "day " + std::to_string(days);
  return exchange::FormatDay(days);
}

std::string KindText(MovementKind k) {
  std::string_view name = MovementKindName(k);
  if (!name.empty()) return std::string(name);
  return "kind " + std::to_string(static_cast<unsigned>(k));
}

// "account 3 VARIATION_MARGIN ref 7".
std::string KeyText(const Movement& m) {
  return "account " + std::to_string(m.account) + " " + KindText(m.kind) +
         " ref " + std::to_string(m.ref);
}
// "date 2026-12-04 account 3 VARIATION_MARGIN ref 7".
std::string FullKeyText(const Movement& m) {
  return "date " + FormatDate(m.date) + " " + KeyText(m);
}

std::string Int128Text(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  // Negate through unsigned so the most negative value is exact.
  __extension__ unsigned __int128 u = negative
                                          ? -static_cast<unsigned __int128>(v)
                                          : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (char c : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<uint8_t>(c));
    out += buf;
  }
  return out;
}

// The two legs booking `m` for an account of clearing member `member`:
// along account <-> member <-> house (run kinds) or bank (transfers).
// REQUIRES: m.amount_micros != INT64_MIN.
void Legs(const Movement& m, uint32_t member, Entry out[2]) {
  const BookId account{BookKind::kAccount, m.account};
  const BookId cm{BookKind::kMember, member};
  const BookId outside{ChainEnd(m.kind), 0};
  const int64_t a = m.amount_micros;
  if (a > 0) {
    out[0] = Entry{m, 0, outside, cm, a};
    out[1] = Entry{m, 1, cm, account, a};
  } else {
    out[0] = Entry{m, 0, account, cm, -a};
    out[1] = Entry{m, 1, cm, outside, -a};
  }
}

// Net positions of the books a set of entries moved money between.
struct BookNets {
  std::vector<Int128> members;  // by member slot
  Int128 house = 0;
  Int128 bank = 0;
};

}  // namespace

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

struct Ledger::State {
  LedgerConfig config;
  std::string name;  // for messages: the directory, or "in memory"
  // Distinct clearing member ids, ascending, and each account's index
  // into it (kNoSlot for unknown accounts).
  std::vector<uint32_t> members;
  std::vector<uint32_t> member_slot;

  std::unique_ptr<rocksdb::Env> env;  // in memory only; outlives db
  std::unique_ptr<rocksdb::DB> db;

  std::vector<int64_t> balances;         // by account
  std::vector<int64_t> member_balances;  // by member slot
  int64_t house_balance = 0;
  int64_t bank_balance = 0;  // Σ withdrawals - Σ deposits
  std::set<int64_t> settled;

  explicit State(const LedgerConfig& c) : config(c) {
    for (uint32_t m : config.account_member) {
      if (m != 0) members.push_back(m);
    }
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    member_slot.assign(config.account_member.size(), kNoSlot);
    // Account 0 is never an account, whatever the table says.
    for (std::size_t a = 1; a < config.account_member.size(); ++a) {
      const uint32_t m = config.account_member[a];
      if (m == 0) continue;
      member_slot[a] = static_cast<uint32_t>(
          std::lower_bound(members.begin(), members.end(), m) -
          members.begin());
    }
    balances.assign(config.account_member.size(), 0);
    member_balances.assign(members.size(), 0);
  }

  bool Known(uint32_t account) const {
    return account < member_slot.size() && member_slot[account] != kNoSlot;
  }
  uint32_t MemberOf(uint32_t account) const {
    return Known(account) ? config.account_member[account] : 0;
  }

  std::string Prefix() const { return "ledger " + name + ": "; }

  // Applies `m`'s legs to the balances in `accounts` (by account) and
  // `nets`. False if an account balance would overflow int64.
  bool Book(const Movement& m, std::vector<int64_t>& accounts,
            BookNets& nets) const {
    Entry legs[2];
    const uint32_t slot = member_slot[m.account];
    Legs(m, config.account_member[m.account], legs);
    for (const Entry& e : legs) {
      for (int side = 0; side < 2; ++side) {
        const BookId& b = side == 0 ? e.from : e.to;
        const int64_t delta = side == 0 ? -e.amount_micros : e.amount_micros;
        switch (b.kind) {
          case BookKind::kAccount:
            if (__builtin_add_overflow(accounts[b.id], delta,
                                       &accounts[b.id])) {
              return false;
            }
            break;
          case BookKind::kMember:
            nets.members[slot] += delta;
            break;
          case BookKind::kHouse:
            nets.house += delta;
            break;
          case BookKind::kBank:
            nets.bank += delta;
            break;
        }
      }
    }
    return true;
  }

  // Checks one movement of a run of `date` given by a caller.
  Status ValidateRunMovement(int64_t date, const Movement& m) const {
    if (!IsRunKind(m.kind)) {
      return InvalidArgumentError(
          "movement " + FullKeyText(m) +
          ": not a settlement run kind (VARIATION_MARGIN, FINAL_SETTLEMENT, "
          "SPOT_CASH)");
    }
    if (m.date != date) {
      return InvalidArgumentError("movement " + FullKeyText(m) +
                                  ": not of the run's date " +
                                  FormatDate(date));
    }
    if (!Known(m.account)) {
      return InvalidArgumentError("movement " + FullKeyText(m) +
                                  ": unknown account " +
                                  std::to_string(m.account));
    }
    if (m.amount_micros == 0) {
      return InvalidArgumentError("zero amount: movement " + FullKeyText(m));
    }
    if (m.amount_micros == std::numeric_limits<int64_t>::min()) {
      return InvalidArgumentError("movement " + FullKeyText(m) +
                                  ": amount out of range");
    }
    return Status::Ok();
  }

  // Checks the invariants of a run of `date` whose movements are valid
  // (ValidateRunMovement) and sorted by key; on success `new_balances` are
  // the account balances after the run (starting from `balances`) and
  // `nets` what the run's entries moved through members and the house.
  Status CheckRun(int64_t date, const std::vector<Movement>& run,
                  std::vector<int64_t>* new_balances, BookNets* nets) const {
    const std::string of = " in the run of " + FormatDate(date);
    for (std::size_t i = 1; i < run.size(); ++i) {
      if (SameKey(run[i - 1], run[i])) {
        return FailedPreconditionError("keys unique: " + KeyText(run[i]) +
                                       " appears more than once" + of);
      }
    }
    // Per contract sums, VM first, then final settlement.
    for (MovementKind kind :
         {MovementKind::kVariationMargin, MovementKind::kFinalSettlement}) {
      std::unordered_map<uint64_t, Int128> sums;
      auto first = std::lower_bound(
          run.begin(), run.end(), kind,
          [](const Movement& m, MovementKind k) { return m.kind < k; });
      for (auto it = first; it != run.end() && it->kind == kind; ++it) {
        sums[it->ref] += it->amount_micros;
      }
      bool broken = false;
      uint64_t ref = 0;
      Int128 sum = 0;
      for (const auto& [r, s] : sums) {
        if (s != 0 && (!broken || r < ref)) {
          broken = true;
          ref = r;
          sum = s;
        }
      }
      if (broken) {
        return FailedPreconditionError(
            "variation margin sums to zero per contract: contract " +
            std::to_string(ref) + " (" + KindText(kind) + ") sums to " +
            Int128Text(sum) + of);
      }
    }
    Int128 total = 0;
    for (const Movement& m : run) total += m.amount_micros;
    if (total != 0) {
      return FailedPreconditionError("cash conserved: the movements sum to " +
                                     Int128Text(total) + of);
    }
    nets->members.assign(members.size(), 0);
    nets->house = 0;
    nets->bank = 0;
    *new_balances = balances;
    for (const Movement& m : run) {
      if (!Book(m, *new_balances, *nets)) {
        return InvalidArgumentError("balance of account " +
                                    std::to_string(m.account) +
                                    " would overflow" + of);
      }
    }
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (nets->members[i] != 0) {
        return FailedPreconditionError(
            "members and clearing house at zero: member " +
            std::to_string(members[i]) + " nets " +
            Int128Text(nets->members[i]) + of);
      }
    }
    if (nets->house != 0) {
      return FailedPreconditionError(
          "members and clearing house at zero: clearing house nets " +
          Int128Text(nets->house) + of);
    }
    return Status::Ok();
  }

  // Calls f(const Movement&) for the stored movements of `date` with kind
  // >= min_kind, in key order.
  template <typename F>
  Status ScanDate(int64_t date, MovementKind min_kind, F&& f) const {
    char start[kDateKeySize + 1];
    DatePrefix(kMovementPrefix, date, start);
    start[kDateKeySize] = static_cast<char>(min_kind);
    const std::string_view prefix(start, kDateKeySize);
    std::unique_ptr<rocksdb::Iterator> it(
        db->NewIterator(rocksdb::ReadOptions()));
    for (it->Seek(rocksdb::Slice(start, sizeof start)); it->Valid();
         it->Next()) {
      const std::string_view k(it->key().data(), it->key().size());
      if (k.substr(0, kDateKeySize) != prefix) break;
      const std::string_view v(it->value().data(), it->value().size());
      Movement m;
      if (!DecodeGroupKey(k, &m) || !GroupValueProblem(v).empty()) {
        return DataLossError(Prefix() + "bad movements at key " + Hex(k));
      }
      for (std::size_t i = 0; i < v.size() / kPairSize; ++i) {
        m.ref = PairRef(v, i);
        m.amount_micros = PairAmount(v, i);
        f(m);
      }
    }
    return FromRocks(it->status(), Prefix() + "scan",
                     RocksErrors::kCorruptionOrInternal);
  }

  // Adds a checked run's nets (zero for members and house) to the books.
  void Commit(std::vector<int64_t>& new_balances, const BookNets& nets) {
    balances.swap(new_balances);
    for (std::size_t i = 0; i < members.size(); ++i) {
      member_balances[i] += static_cast<int64_t>(nets.members[i]);
    }
    house_balance += static_cast<int64_t>(nets.house);
  }

  // Per settled date: the count and digest of its stored run movements.
  using Digests = std::map<int64_t, std::pair<uint64_t, uint64_t>>;
  Status Load();
  Status FinishLoadedDate(int64_t date, std::vector<Movement>& run,
                          uint64_t digest, Digests* digests);
};

// Checks the stored run movements of one date and records their count and
// digest for the run record.
Status Ledger::State::FinishLoadedDate(int64_t date, std::vector<Movement>& run,
                                       uint64_t digest, Digests* digests) {
  if (run.empty()) return Status::Ok();
  std::vector<int64_t> next;
  BookNets nets;
  Status st = CheckRun(date, run, &next, &nets);
  if (!st.ok()) {
    return DataLossError(Prefix() + "stored run of " + FormatDate(date) +
                         " is inconsistent: " + st.message());
  }
  Commit(next, nets);
  (*digests)[date] = {run.size(), digest};
  run.clear();
  return Status::Ok();
}

// Rebuilds the in-memory state from the store, checking every key and value.
Status Ledger::State::Load() {
  std::string version;
  rocksdb::Status rs = db->Get(rocksdb::ReadOptions(), kVersionKey, &version);
  if (rs.IsNotFound()) {
    std::unique_ptr<rocksdb::Iterator> any(
        db->NewIterator(rocksdb::ReadOptions()));
    any->SeekToFirst();
    if (any->Valid()) {
      return DataLossError(Prefix() + "no format version record");
    }
    CFX_RETURN_IF_ERROR(FromRocks(any->status(), Prefix() + "load",
                                  RocksErrors::kCorruptionOrInternal));
    char v[4];
    PutLittleEndian(v, kFormatVersion, 4);
    rocksdb::WriteOptions wo;
    wo.sync = true;
    return FromRocks(db->Put(wo, kVersionKey, rocksdb::Slice(v, sizeof v)),
                     Prefix() + "write format version",
                     RocksErrors::kCorruptionOrInternal);
  }
  CFX_RETURN_IF_ERROR(FromRocks(rs, Prefix() + "read format version",
                                RocksErrors::kCorruptionOrInternal));
  if (version.size() != 4 ||
      GetLittleEndian(version.data(), 4) != kFormatVersion) {
    return DataLossError(Prefix() + "format version " + Hex(version) +
                         ", expected " + std::to_string(kFormatVersion) +
                         " (4 bytes, little-endian)");
  }

  Digests digests;
  std::vector<Movement> run;  // the run movements of the current date
  uint64_t run_digest = kFnvOffset;
  int64_t current = 0;
  bool have_current = false;
  std::unique_ptr<rocksdb::Iterator> it(
      db->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view k(it->key().data(), it->key().size());
    const std::string_view v(it->value().data(), it->value().size());
    if (k.empty()) return DataLossError(Prefix() + "empty key");
    if (k[0] == kMovementPrefix) {
      Movement m;
      if (!DecodeGroupKey(k, &m)) {
        return DataLossError(Prefix() + "malformed movement key " + Hex(k));
      }
      // Built only for a message: this loop runs once per stored group.
      auto what = [&k, &m] {
        return "movement key " + Hex(k) + " (date " + FormatDate(m.date) +
               " account " + std::to_string(m.account) + " " +
               KindText(m.kind) + ")";
      };
      if (!IsRunKind(m.kind) && !IsTransferKind(m.kind)) {
        return DataLossError(Prefix() + what() + ": unknown kind");
      }
      if (std::string problem = GroupValueProblem(v); !problem.empty()) {
        return DataLossError(Prefix() + what() + ": " + problem);
      }
      if (!Known(m.account)) {
        return FailedPreconditionError(Prefix() + what() + ": account " +
                                       std::to_string(m.account) +
                                       " is not in the configuration");
      }
      if (!have_current || m.date != current) {
        if (have_current) {
          CFX_RETURN_IF_ERROR(
              FinishLoadedDate(current, run, run_digest, &digests));
        }
        current = m.date;
        have_current = true;
        run_digest = kFnvOffset;
      }
      if (IsRunKind(m.kind)) {
        run_digest =
            Fnv(Fnv(run_digest, k.data(), k.size()), v.data(), v.size());
      }
      for (std::size_t i = 0; i < v.size() / kPairSize; ++i) {
        m.ref = PairRef(v, i);
        m.amount_micros = PairAmount(v, i);
        if (m.amount_micros == 0 ||
            m.amount_micros == std::numeric_limits<int64_t>::min() ||
            (m.kind == MovementKind::kDeposit && m.amount_micros < 0) ||
            (m.kind == MovementKind::kWithdrawal && m.amount_micros > 0)) {
          return DataLossError(Prefix() + what() + ": ref " +
                               std::to_string(m.ref) + ": invalid amount " +
                               std::to_string(m.amount_micros));
        }
        if (IsRunKind(m.kind)) {
          run.push_back(m);
        } else if (__builtin_add_overflow(balances[m.account], m.amount_micros,
                                          &balances[m.account]) ||
                   __builtin_sub_overflow(bank_balance, m.amount_micros,
                                          &bank_balance)) {
          // Transfers sort before the run kinds of their date, so booking
          // them here keeps the balances in key order.
          return DataLossError(Prefix() + what() + ": balance overflow");
        }
      }
    } else if (k[0] == kRunPrefix) {
      if (have_current) {
        CFX_RETURN_IF_ERROR(
            FinishLoadedDate(current, run, run_digest, &digests));
        have_current = false;
      }
      if (k.size() != kDateKeySize) {
        return DataLossError(Prefix() + "malformed run key " + Hex(k));
      }
      const int64_t date = DateFromBits(GetBigEndian(k.data() + 1, 8));
      const std::string what =
          "run key " + Hex(k) + " (date " + FormatDate(date) + ")";
      if (v.size() < kRunHeaderSize) {
        return DataLossError(Prefix() + what + ": value of " +
                             std::to_string(v.size()) + " bytes, expected " +
                             std::to_string(kRunHeaderSize) + " or more");
      }
      const uint64_t count = GetLittleEndian(v.data(), 8);
      const uint64_t digest = GetLittleEndian(v.data() + 8, 8);
      std::pair<uint64_t, uint64_t> found{0, kFnvOffset};
      if (auto d = digests.find(date); d != digests.end()) {
        found = d->second;
        digests.erase(d);
      }
      if (found.first != count || found.second != digest) {
        return DataLossError(
            Prefix() + what + ": records " + std::to_string(count) +
            " movements, found " + std::to_string(found.first) +
            (found.first == count ? " with another digest" : ""));
      }
      settled.insert(date);
    } else if (k[0] == kRecordPrefix) {
      continue;  // the service's records: it decodes them itself
    } else if (k != kVersionKey) {
      return DataLossError(Prefix() + "unknown key " + Hex(k));
    }
  }
  CFX_RETURN_IF_ERROR(FromRocks(it->status(), Prefix() + "load",
                                RocksErrors::kCorruptionOrInternal));
  if (have_current) {
    CFX_RETURN_IF_ERROR(FinishLoadedDate(current, run, run_digest, &digests));
  }
  if (!digests.empty()) {
    return DataLossError(Prefix() + "run movements of " +
                         FormatDate(digests.begin()->first) +
                         " without a run record");
  }
  return Status::Ok();
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
  SortRun(movements, s.config.account_member.size());
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
            if (now.amount_micros != stored.amount_micros) {
              difference = KeyText(stored) + ": stored " +
                           std::to_string(stored.amount_micros) + ", now " +
                           std::to_string(now.amount_micros);
            }
          } else if (i < movements.size() && KeyLess(movements[i], stored)) {
            difference = KeyText(movements[i]) + ": stored none, now " +
                         std::to_string(movements[i].amount_micros);
          } else {
            difference = KeyText(stored) + ": stored " +
                         std::to_string(stored.amount_micros) + ", now none";
          }
        }));
    if (difference.empty() && i < movements.size()) {
      difference = KeyText(movements[i]) + ": stored none, now " +
                   std::to_string(movements[i].amount_micros);
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
  BookNets nets;
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
      AppendPair(&value, movements[i].ref, movements[i].amount_micros);
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
  if (m.kind == MovementKind::kDeposit && m.amount_micros <= 0) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": a deposit's amount must be > 0, got " +
                                std::to_string(m.amount_micros));
  }
  if (m.kind == MovementKind::kWithdrawal &&
      (m.amount_micros >= 0 ||
       m.amount_micros == std::numeric_limits<int64_t>::min())) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": a withdrawal's amount must be < 0, got " +
                                std::to_string(m.amount_micros));
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
                           Hex(std::string_view(key, sizeof key)) + ": " +
                           problem);
    }
  }
  // The pairs are sorted by ref: find the key's place.
  const std::size_t n = stored.size() / kPairSize;
  std::size_t at = 0;
  while (at < n && PairRef(stored, at) < m.ref) ++at;
  if (at < n && PairRef(stored, at) == m.ref) {
    const int64_t amount = PairAmount(stored, at);
    if (amount == m.amount_micros) return Status::Ok();
    return FailedPreconditionError(
        "transfer " + FullKeyText(m) + " already booked: stored " +
        std::to_string(amount) + ", now " + std::to_string(m.amount_micros));
  }

  int64_t balance = 0;
  int64_t bank = 0;
  if (__builtin_add_overflow(s.balances[m.account], m.amount_micros,
                             &balance) ||
      __builtin_sub_overflow(s.bank_balance, m.amount_micros, &bank)) {
    return InvalidArgumentError("transfer " + FullKeyText(m) +
                                ": balance would overflow");
  }
  if (balance < 0) {
    return FailedPreconditionError(
        "withdrawal exceeds balance: account " + std::to_string(m.account) +
        " has " + std::to_string(s.balances[m.account]) + ", withdrawal " +
        std::to_string(-m.amount_micros));
  }
  std::string pair;
  AppendPair(&pair, m.ref, m.amount_micros);
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
    if (m.amount_micros == std::numeric_limits<int64_t>::min()) continue;
    Legs(m, s_->MemberOf(m.account), legs);
    out.push_back(legs[0]);
    out.push_back(legs[1]);
  }
  return out;
}

}  // namespace cfx::settlement
