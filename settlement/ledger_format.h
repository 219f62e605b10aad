#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "settlement/ledger.h"

// The ledger's store layout (Ledger, ledger.h): how movements and run
// records become RocksDB keys and values, the digest a run record keeps of
// its movements, the key order of a run, and the texts that name a key in
// messages. Pure functions: no I/O.
namespace cfx::settlement::internal {

__extension__ using Int128 = __int128;

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
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr char kVersionKey[] = "v";
inline constexpr char kMovementPrefix = 'm';
inline constexpr char kRunPrefix = 'r';
inline constexpr char kRecordPrefix = 'x';
inline constexpr std::size_t kDateKeySize = 1 + 8;
inline constexpr std::size_t kGroupKeySize = kDateKeySize + 1 + 4;
inline constexpr std::size_t kPairSize = 16;
inline constexpr std::size_t kRunHeaderSize = 16;
inline constexpr uint64_t kFnvOffset = 1469598103934665603ull;
inline constexpr uint64_t kFnvPrime = 1099511628211ull;

inline void PutBigEndian(char* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    *out++ = static_cast<char>((v >> (8 * i)) & 0xffu);
  }
}
inline uint64_t GetBigEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
inline void PutLittleEndian(char* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    *out++ = static_cast<char>((v >> (8 * i)) & 0xffu);
  }
}
inline uint64_t GetLittleEndian(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(in[i]);
  }
  return v;
}

inline uint64_t DateBits(int64_t date) {
  return static_cast<uint64_t>(date) ^ (uint64_t{1} << 63);
}
inline int64_t DateFromBits(uint64_t bits) {
  return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
}

// `prefix` and the date: kDateKeySize bytes at `out`.
inline void DatePrefix(char prefix, int64_t date, char* out) {
  out[0] = prefix;
  PutBigEndian(out + 1, DateBits(date), 8);
}

// The group key of (date, kind, account): kGroupKeySize bytes at `out`.
inline void EncodeGroupKey(int64_t date, MovementKind kind, uint32_t account,
                           char* out) {
  DatePrefix(kMovementPrefix, date, out);
  out[9] = static_cast<char>(kind);
  PutBigEndian(out + 10, account, 4);
}
// Fills date, kind and account; false unless `k` is a movement key of the
// right size (the kind is not checked here).
bool DecodeGroupKey(std::string_view k, Movement* m);

inline void AppendPair(std::string* value, uint64_t ref, int64_t amount) {
  char buf[kPairSize];
  PutLittleEndian(buf, ref, 8);
  PutLittleEndian(buf + 8, static_cast<uint64_t>(amount), 8);
  value->append(buf, sizeof buf);
}
inline uint64_t PairRef(std::string_view value, std::size_t i) {
  return GetLittleEndian(value.data() + i * kPairSize, 8);
}
inline int64_t PairAmount(std::string_view value, std::size_t i) {
  return static_cast<int64_t>(
      GetLittleEndian(value.data() + i * kPairSize + 8, 8));
}
// Why a group value is malformed, or "" if it is not.
std::string GroupValueProblem(std::string_view value);

// FNV-1a over 8-byte little-endian words, then the remaining bytes.
uint64_t Fnv(uint64_t h, const char* p, std::size_t n);

inline bool IsRunKind(MovementKind k) {
  return k == MovementKind::kVariationMargin ||
         k == MovementKind::kFinalSettlement || k == MovementKind::kSpotCash;
}
inline bool IsTransferKind(MovementKind k) {
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
inline bool SameKey(const Movement& a, const Movement& b) {
  return a.kind == b.kind && a.account == b.account && a.ref == b.ref;
}
// Sorts a run's movements by key: a stable counting sort by (kind,
// account), then each (kind, account) group by ref. O(n + accounts) rather
// than a comparison sort of the whole run. REQUIRES: every movement has a
// run kind and an account < `accounts`.
void SortRun(std::vector<Movement>& run, std::size_t accounts);

// ---- Texts for messages ----

// "YYYY-MM-DD" of days since 1970-01-01 (exchange::FormatDay), or "day N"
// for a stored day too far out to be a date.
std::string FormatDate(int64_t days);
// MovementKindName, or "kind N" for a value that names no kind.
std::string KindText(MovementKind k);
// "account 3 VARIATION_MARGIN ref 7".
std::string KeyText(const Movement& m);
// "date 2026-12-04 account 3 VARIATION_MARGIN ref 7".
std::string FullKeyText(const Movement& m);
// The decimal digits of `v`, exact for every value.
std::string Int128Text(Int128 v);

}  // namespace cfx::settlement::internal
