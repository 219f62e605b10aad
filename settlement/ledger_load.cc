// Loading the ledger's store (Ledger::Open): every key and value checked,
// the transfers booked in key order, each date's run movements checked as
// a run and against its run record's count and digest.
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/rocksdb_status.h"
#include "exchange/text_format.h"
#include "settlement/ledger_state.h"

namespace cfx::settlement {

using exchange::FromRocks;
using exchange::RocksErrors;
using exchange::ToHex;
using internal::BookNets;
using internal::DateFromBits;
using internal::FormatDate;
using internal::GetBigEndian;
using internal::GetLittleEndian;
using internal::IsRunKind;
using internal::IsTransferKind;
using internal::kDateKeySize;
using internal::kFnvOffset;
using internal::kFormatVersion;
using internal::KindText;
using internal::kMovementPrefix;
using internal::kPairSize;
using internal::kRecordPrefix;
using internal::kRunHeaderSize;
using internal::kRunPrefix;
using internal::kVersionKey;

Status Ledger::State::FinishLoadedDate(LoadCursor* at) {
  if (at->run.empty()) return Status::Ok();
  std::vector<int64_t> next;
  BookNets nets;
  Status st = CheckRun(at->current, at->run, &next, &nets);
  if (!st.ok()) {
    return DataLossError(Prefix() + "stored run of " + FormatDate(at->current) +
                         " is inconsistent: " + st.message());
  }
  Commit(next, nets);
  at->digests[at->current] = {at->run.size(), at->run_digest};
  at->run.clear();
  return Status::Ok();
}

Status Ledger::State::LoadFormatVersion(bool* fresh) {
  *fresh = false;
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
    internal::PutLittleEndian(v, kFormatVersion, 4);
    rocksdb::WriteOptions wo;
    wo.sync = true;
    *fresh = true;
    return FromRocks(db->Put(wo, kVersionKey, rocksdb::Slice(v, sizeof v)),
                     Prefix() + "write format version",
                     RocksErrors::kCorruptionOrInternal);
  }
  CFX_RETURN_IF_ERROR(FromRocks(rs, Prefix() + "read format version",
                                RocksErrors::kCorruptionOrInternal));
  if (version.size() != 4 ||
      GetLittleEndian(version.data(), 4) != kFormatVersion) {
    return DataLossError(Prefix() + "format version " + ToHex(version) +
                         ", expected " + std::to_string(kFormatVersion) +
                         " (4 bytes, little-endian)");
  }
  return Status::Ok();
}

Status Ledger::State::LoadGroup(std::string_view k, std::string_view v,
                                LoadCursor* at) {
  Movement m;
  if (!internal::DecodeGroupKey(k, &m)) {
    return DataLossError(Prefix() + "malformed movement key " + ToHex(k));
  }
  // Built only for a message: this runs once per stored group.
  auto what = [&k, &m] {
    return "movement key " + ToHex(k) + " (date " + FormatDate(m.date) +
           " account " + std::to_string(m.account) + " " + KindText(m.kind) +
           ")";
  };
  if (!IsRunKind(m.kind) && !IsTransferKind(m.kind)) {
    return DataLossError(Prefix() + what() + ": unknown kind");
  }
  if (std::string problem = internal::GroupValueProblem(v); !problem.empty()) {
    return DataLossError(Prefix() + what() + ": " + problem);
  }
  if (!Known(m.account)) {
    return FailedPreconditionError(Prefix() + what() + ": account " +
                                   std::to_string(m.account) +
                                   " is not in the configuration");
  }
  if (!at->have_current || m.date != at->current) {
    if (at->have_current) CFX_RETURN_IF_ERROR(FinishLoadedDate(at));
    at->current = m.date;
    at->have_current = true;
    at->run_digest = kFnvOffset;
  }
  if (IsRunKind(m.kind)) {
    at->run_digest = internal::Fnv(
        internal::Fnv(at->run_digest, k.data(), k.size()), v.data(), v.size());
  }
  for (std::size_t i = 0; i < v.size() / kPairSize; ++i) {
    m.ref = internal::PairRef(v, i);
    m.amount.micros = internal::PairAmount(v, i);
    if (m.amount.micros == 0 ||
        m.amount.micros == std::numeric_limits<int64_t>::min() ||
        (m.kind == MovementKind::kDeposit && m.amount.micros < 0) ||
        (m.kind == MovementKind::kWithdrawal && m.amount.micros > 0)) {
      return DataLossError(Prefix() + what() + ": ref " +
                           std::to_string(m.ref) + ": invalid amount " +
                           std::to_string(m.amount.micros));
    }
    if (IsRunKind(m.kind)) {
      at->run.push_back(m);
    } else if (__builtin_add_overflow(balances[m.account], m.amount.micros,
                                      &balances[m.account]) ||
               __builtin_sub_overflow(bank_balance, m.amount.micros,
                                      &bank_balance)) {
      // Transfers sort before the run kinds of their date, so booking
      // them here keeps the balances in key order.
      return DataLossError(Prefix() + what() + ": balance overflow");
    }
  }
  return Status::Ok();
}

Status Ledger::State::LoadRunRecord(std::string_view k, std::string_view v,
                                    LoadCursor* at) {
  if (at->have_current) {
    CFX_RETURN_IF_ERROR(FinishLoadedDate(at));
    at->have_current = false;
  }
  if (k.size() != kDateKeySize) {
    return DataLossError(Prefix() + "malformed run key " + ToHex(k));
  }
  const int64_t date = DateFromBits(GetBigEndian(k.data() + 1, 8));
  const std::string what =
      "run key " + ToHex(k) + " (date " + FormatDate(date) + ")";
  if (v.size() < kRunHeaderSize) {
    return DataLossError(Prefix() + what + ": value of " +
                         std::to_string(v.size()) + " bytes, expected " +
                         std::to_string(kRunHeaderSize) + " or more");
  }
  const uint64_t count = GetLittleEndian(v.data(), 8);
  const uint64_t digest = GetLittleEndian(v.data() + 8, 8);
  std::pair<uint64_t, uint64_t> found{0, kFnvOffset};
  if (auto d = at->digests.find(date); d != at->digests.end()) {
    found = d->second;
    at->digests.erase(d);
  }
  if (found.first != count || found.second != digest) {
    return DataLossError(Prefix() + what + ": records " +
                         std::to_string(count) + " movements, found " +
                         std::to_string(found.first) +
                         (found.first == count ? " with another digest" : ""));
  }
  settled.insert(date);
  return Status::Ok();
}

Status Ledger::State::Load() {
  bool fresh = false;
  CFX_RETURN_IF_ERROR(LoadFormatVersion(&fresh));
  if (fresh) return Status::Ok();
  LoadCursor at;
  std::unique_ptr<rocksdb::Iterator> it(
      db->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view k(it->key().data(), it->key().size());
    const std::string_view v(it->value().data(), it->value().size());
    if (k.empty()) return DataLossError(Prefix() + "empty key");
    if (k[0] == kMovementPrefix) {
      CFX_RETURN_IF_ERROR(LoadGroup(k, v, &at));
    } else if (k[0] == kRunPrefix) {
      CFX_RETURN_IF_ERROR(LoadRunRecord(k, v, &at));
    } else if (k[0] == kRecordPrefix) {
      continue;  // the service's records: it decodes them itself
    } else if (k != kVersionKey) {
      return DataLossError(Prefix() + "unknown key " + ToHex(k));
    }
  }
  CFX_RETURN_IF_ERROR(FromRocks(it->status(), Prefix() + "load",
                                RocksErrors::kCorruptionOrInternal));
  if (at.have_current) CFX_RETURN_IF_ERROR(FinishLoadedDate(&at));
  if (!at.digests.empty()) {
    return DataLossError(Prefix() + "run movements of " +
                         FormatDate(at.digests.begin()->first) +
                         " without a run record");
  }
  return Status::Ok();
}

}  // namespace cfx::settlement
