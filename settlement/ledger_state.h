#pragma once

#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/status.h"
#include "settlement/ledger.h"
#include "settlement/ledger_format.h"

// The ledger's state behind its interface (Ledger, ledger.h): the balances
// in memory, the store they are loaded from, and the checks of a run. The
// checks are in ledger_checks.cc, loading the store in ledger_load.cc, the
// public operations in ledger.cc.
namespace cfx::settlement {
namespace internal {

inline constexpr uint32_t kNoSlot = std::numeric_limits<uint32_t>::max();

// The two legs booking `m` for an account of clearing member `member`:
// along account <-> member <-> house (run kinds) or bank (transfers).
// REQUIRES: m.amount.micros != INT64_MIN.
void Legs(const Movement& m, uint32_t member, Entry out[2]);

// Net positions of the books a set of entries moved money between.
struct BookNets {
  std::vector<Int128> members;  // by member slot
  Int128 house = 0;
  Int128 bank = 0;
};

}  // namespace internal

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

  explicit State(const LedgerConfig& c);

  bool Known(uint32_t account) const {
    return account < member_slot.size() &&
           member_slot[account] != internal::kNoSlot;
  }
  uint32_t MemberOf(uint32_t account) const {
    return Known(account) ? config.account_member[account] : 0;
  }

  std::string Prefix() const { return "ledger " + name + ": "; }

  // ---- The checks of a run (ledger_checks.cc) ----

  // Applies `m`'s legs to the balances in `accounts` (by account) and
  // `nets`. False if an account balance would overflow int64.
  bool Book(const Movement& m, std::vector<int64_t>& accounts,
            internal::BookNets& nets) const;
  // Checks one movement of a run of `date` given by a caller.
  Status ValidateRunMovement(int64_t date, const Movement& m) const;
  // Checks the invariants of a run of `date` whose movements are valid
  // (ValidateRunMovement) and sorted by key; on success `new_balances` are
  // the account balances after the run (starting from `balances`) and
  // `nets` what the run's entries moved through members and the house.
  Status CheckRun(int64_t date, const std::vector<Movement>& run,
                  std::vector<int64_t>* new_balances,
                  internal::BookNets* nets) const;
  // Adds a checked run's nets (zero for members and house) to the books.
  void Commit(std::vector<int64_t>& new_balances,
              const internal::BookNets& nets);

  // Calls f(const Movement&) for the stored movements of `date` with kind
  // >= min_kind, in key order (ledger.cc).
  template <typename F>
  Status ScanDate(int64_t date, MovementKind min_kind, F&& f) const;

  // ---- Loading the store (ledger_load.cc) ----

  // Per settled date: the count and digest of its stored run movements.
  using Digests = std::map<int64_t, std::pair<uint64_t, uint64_t>>;
  // Where Load() is in the store: the run movements of the current date
  // and their digest so far, and the dates whose runs await their record.
  struct LoadCursor {
    Digests digests;
    std::vector<Movement> run;
    uint64_t run_digest = internal::kFnvOffset;
    int64_t current = 0;
    bool have_current = false;
  };
  // Rebuilds the in-memory state from the store, checking every key and
  // value.
  Status Load();
  // Checks the format version record; writes it into an empty store and
  // sets *fresh.
  Status LoadFormatVersion(bool* fresh);
  // One movement group ('m' key `k`, value `v`): its transfers booked, its
  // run movements added to the cursor's date.
  Status LoadGroup(std::string_view k, std::string_view v, LoadCursor* at);
  // One run record ('r' key `k`, value `v`), checked against the digest of
  // the movements loaded for its date.
  Status LoadRunRecord(std::string_view k, std::string_view v, LoadCursor* at);
  // Checks the stored run movements of the cursor's date and records their
  // count and digest for the run record.
  Status FinishLoadedDate(LoadCursor* at);
};

}  // namespace cfx::settlement
