#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::settlement {

// The clearing ledger (DESIGN.md §5, docs/settlement.md): double entry, in
// integer micro-dollars, kept in RocksDB.
//
// Callers record *movements*: money to (amount > 0) or from (amount < 0)
// one trading account, keyed by (business date, kind, account, ref). The
// ledger books each as entries along the chain the rules prescribe:
//   VM, final settlement, spot cash:  account <-> its CM <-> clearing house
//   deposit, withdrawal:              account <-> its CM <-> bank (outside)
// so that a CM, and the clearing house, end every settlement run at zero.
//
// Thread: one thread at a time (the gateway thread in the server).

enum class MovementKind : uint8_t {
  kDeposit = 1,
  kWithdrawal = 2,
  kVariationMargin = 3,  // ref = the contract's instrument id
  kFinalSettlement = 4,  // ref = the contract's instrument id
  kSpotCash = 5,         // ref = the trade id
};
// "DEPOSIT", "WITHDRAWAL", "VARIATION_MARGIN", "FINAL_SETTLEMENT",
// "SPOT_CASH"; "" for anything else.
std::string_view MovementKindName(MovementKind kind);

struct Movement {
  int64_t date = 0;  // business date, days since 1970-01-01
  MovementKind kind = MovementKind::kVariationMargin;
  uint32_t account = 0;     // trading account id (>= 1)
  uint64_t ref = 0;         // see MovementKind; deposits/withdrawals: a unique
                            // reference (the command's sequence number)
  exchange::Amount amount;  // to the account (> 0) or from it (< 0)

  friend bool operator==(const Movement&, const Movement&) = default;
};

// The books entries move money between.
enum class BookKind : uint8_t {
  kAccount = 1,
  kMember = 2,
  kHouse = 3,
  kBank = 4
};
struct BookId {
  BookKind kind = BookKind::kAccount;
  uint32_t id = 0;  // account id, clearing member index; 0 for house, bank
  friend bool operator==(const BookId&, const BookId&) = default;
};

// The book at the far end of the chain a movement of `kind` goes along:
// kHouse for VM, final settlement and spot cash, kBank for deposits and
// withdrawals. A report names it as the movement's counterparty, never the
// other account of a payment (docs/settlement.md, "Reports").
BookKind ChainEnd(MovementKind kind);

// One double-entry line: `amount` (> 0) moves from `from` to `to`.
struct Entry {
  Movement movement;  // the movement it books
  uint32_t leg = 0;   // 0, 1 along the chain
  BookId from;
  BookId to;
  exchange::Amount amount;
};

struct LedgerConfig {
  // account_member[a] = clearing member index (>= 1) of trading account a;
  // 0 = no such account. Movements of unknown accounts are refused.
  std::vector<uint32_t> account_member;
};

// What PostRun did.
struct RunOutcome {
  bool already_settled = false;  // the same run was there: nothing changed
  std::string report;            // the stored report of the date
};

class Ledger {
 public:
  // Opens (creating when absent) the ledger in directory `dir`.
  static Result<std::unique_ptr<Ledger>> Open(const LedgerConfig& config,
                                              const std::string& dir);
  // A ledger in memory (tests, benchmarks).
  static std::unique_ptr<Ledger> InMemory(const LedgerConfig& config);
  ~Ledger();

  // Books the settlement run of business date `date`: its movements (any
  // order; kinds VM, final settlement, spot cash; every date == `date`) and
  // an opaque report stored with it. Atomic and durable (one synced write).
  // Before writing, checks the run's invariants and refuses the whole run
  // (kFailedPrecondition, naming the broken invariant) if any fails:
  //   "keys unique", "variation margin sums to zero per contract",
  //   "cash conserved" (the run's movements sum to zero),
  //   "members and clearing house at zero".
  // If `date` was settled before: when the movements (as a set) and the
  // report are equal, nothing changes and already_settled = true; otherwise
  // kFailedPrecondition "date YYYY-MM-DD already settled differently: ..."
  // naming the first difference, and nothing changes.
  Result<RunOutcome> PostRun(int64_t date, std::vector<Movement> movements,
                             std::string report);

  // Books one deposit or withdrawal (kind kDeposit with amount > 0, or
  // kWithdrawal with amount < 0) at once, durably. Posting the same key
  // again with the same amount is a no-op; with another amount, refused.
  Status PostTransfer(const Movement& m);

  // Records of the settlement service, opaque to the ledger, kept in its
  // database: `records` (key, value) written in one synced batch, replacing
  // records of the same keys. Records() returns them all in key order.
  Status PutRecords(
      const std::vector<std::pair<std::string, std::string>>& records);
  Result<std::vector<std::pair<std::string, std::string>>> Records() const;

  // Σ of the account's movements (its collateral): deposits, withdrawals,
  // VM, final settlement and spot cash. 0 for an unknown account.
  int64_t Balance(uint32_t account) const;
  // A clearing member's and the clearing house's balances (always 0 after
  // a run; transfers pass through the member to the bank).
  int64_t MemberBalance(uint32_t member) const;
  int64_t HouseBalance() const;

  bool IsSettled(int64_t date) const;
  std::vector<int64_t> SettledDates() const;  // ascending
  // The report stored with the run of `date`; nullopt if none.
  std::optional<std::string> Report(int64_t date) const;
  // The movements of `date` (runs and transfers), sorted by (kind,
  // account, ref); member != 0 keeps only that clearing member's accounts.
  std::vector<Movement> Movements(int64_t date, uint32_t member = 0) const;
  // The double-entry lines of `date`, in the same order, legs ascending.
  std::vector<Entry> Entries(int64_t date, uint32_t member = 0) const;

 private:
  struct State;
  explicit Ledger(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace cfx::settlement
