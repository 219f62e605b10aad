// The checks of a settlement run: every movement valid, then the
// invariants a run is refused on (ledger.h, PostRun), booked along each
// movement's chain of books.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "settlement/ledger_state.h"

namespace cfx::settlement {

using internal::BookNets;
using internal::FormatDate;
using internal::FullKeyText;
using internal::Int128;
using internal::Int128Text;
using internal::IsRunKind;
using internal::KeyText;
using internal::KindText;
using internal::Legs;
using internal::SameKey;

namespace internal {

void Legs(const Movement& m, uint32_t member, Entry out[2]) {
  const BookId account{BookKind::kAccount, m.account};
  const BookId cm{BookKind::kMember, member};
  const BookId outside{ChainEnd(m.kind), 0};
  const int64_t a = m.amount.micros;
  if (a > 0) {
    out[0] = Entry{m, 0, outside, cm, exchange::Amount{a}};
    out[1] = Entry{m, 1, cm, account, exchange::Amount{a}};
  } else {
    out[0] = Entry{m, 0, account, cm, exchange::Amount{-a}};
    out[1] = Entry{m, 1, cm, outside, exchange::Amount{-a}};
  }
}

}  // namespace internal

Ledger::State::State(const LedgerConfig& c) : config(c) {
  for (uint32_t m : config.account_member) {
    if (m != 0) members.push_back(m);
  }
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  member_slot.assign(config.account_member.size(), internal::kNoSlot);
  // Account 0 is never an account, whatever the table says.
  for (std::size_t a = 1; a < config.account_member.size(); ++a) {
    const uint32_t m = config.account_member[a];
    if (m == 0) continue;
    member_slot[a] = static_cast<uint32_t>(
        std::lower_bound(members.begin(), members.end(), m) - members.begin());
  }
  balances.assign(config.account_member.size(), 0);
  member_balances.assign(members.size(), 0);
}

bool Ledger::State::Book(const Movement& m, std::vector<int64_t>& accounts,
                         BookNets& nets) const {
  Entry legs[2];
  const uint32_t slot = member_slot[m.account];
  Legs(m, config.account_member[m.account], legs);
  for (const Entry& e : legs) {
    for (int side = 0; side < 2; ++side) {
      const BookId& b = side == 0 ? e.from : e.to;
      const int64_t delta = side == 0 ? -e.amount.micros : e.amount.micros;
      switch (b.kind) {
        case BookKind::kAccount:
          if (__builtin_add_overflow(accounts[b.id], delta, &accounts[b.id])) {
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

Status Ledger::State::ValidateRunMovement(int64_t date,
                                          const Movement& m) const {
  if (!IsRunKind(m.kind)) {
    return InvalidArgumentError(
        "movement " + FullKeyText(m) +
        ": not a settlement run kind (VARIATION_MARGIN, FINAL_SETTLEMENT, "
        "SPOT_CASH)");
  }
  if (m.date != date) {
    return InvalidArgumentError("movement " + FullKeyText(m) +
                                ": not of the run's date " + FormatDate(date));
  }
  if (!Known(m.account)) {
    return InvalidArgumentError("movement " + FullKeyText(m) +
                                ": unknown account " +
                                std::to_string(m.account));
  }
  if (m.amount.micros == 0) {
    return InvalidArgumentError("zero amount: movement " + FullKeyText(m));
  }
  if (m.amount.micros == std::numeric_limits<int64_t>::min()) {
    return InvalidArgumentError("movement " + FullKeyText(m) +
                                ": amount out of range");
  }
  return Status::Ok();
}

Status Ledger::State::CheckRun(int64_t date, const std::vector<Movement>& run,
                               std::vector<int64_t>* new_balances,
                               BookNets* nets) const {
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
      sums[it->ref] += it->amount.micros;
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
  for (const Movement& m : run) total += m.amount.micros;
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
          std::to_string(members[i]) + " nets " + Int128Text(nets->members[i]) +
          of);
    }
  }
  if (nets->house != 0) {
    return FailedPreconditionError(
        "members and clearing house at zero: clearing house nets " +
        Int128Text(nets->house) + of);
  }
  return Status::Ok();
}

void Ledger::State::Commit(std::vector<int64_t>& new_balances,
                           const BookNets& nets) {
  balances.swap(new_balances);
  for (std::size_t i = 0; i < members.size(); ++i) {
    member_balances[i] += static_cast<int64_t>(nets.members[i]);
  }
  house_balance += static_cast<int64_t>(nets.house);
}

}  // namespace cfx::settlement
