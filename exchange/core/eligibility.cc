// The eligibility of spot sellers (DESIGN.md §3): the reference data's
// rows per account and grade, the check of a spot sell against them, and the
// cancels of resting sells an account may no longer keep; the reference-data
// command that changes them.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "exchange/core/engine_apply.h"
#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

void Apply::AdvanceReference() {
  s_.changes.clear();
  s_.registry->AdvanceTime(s_.cmd->ts, &s_.changes);
  s_.next_reference_change = s_.registry->next_change().nanos;
  ApplyEligibilityChanges();
}

int64_t Apply::Committed(AccountId a, uint32_t id) {
  const PositionRow& r = Row(a, InstrumentId{id});
  return r.open_sell + std::max<int64_t>(0, -r.position);
}

int64_t Apply::CommittedOnDay(AccountId a, int64_t day) {
  int64_t n = 0;
  for (uint32_t id : s_.spot_books) {
    const Book& b = s_.books[id];
    if (b.delivery_day == day && b.state != InstrumentState::kNone) {
      n += Committed(a, id);
    }
  }
  return n;
}

int64_t Apply::MaxNodes(AccountId a) {
  int64_t n = 0;
  for (uint32_t g = 0; g < s_.grades; ++g) {
    const EligibilityRow& r = RowOf(a, g);
    if (r.status == Eligibility::kEligible) n = std::max<int64_t>(n, r.nodes);
  }
  return n;
}

RejectCode Apply::CheckSpotSellEligibility(const Book& b, AccountId a,
                                           int64_t extra, uint32_t* detail) {
  const EligibilityRow& r = RowOf(a, b.config.grade);
  if (r.status != Eligibility::kEligible) {
    *detail = static_cast<uint32_t>(r.status);
    return RejectCode::kGradeNotEligible;
  }
  const uint32_t id = static_cast<uint32_t>(&b - s_.books.data());
  if (Committed(a, id) + extra > r.nodes ||
      CommittedOnDay(a, b.delivery_day) + extra > MaxNodes(a)) {
    *detail = static_cast<uint32_t>(Eligibility::kCapacityExceeded);
    return RejectCode::kGradeNotEligible;
  }
  return RejectCode::kNone;
}

void Apply::RejectNotEligible(uint32_t detail) {
  RejectEvent(RejectCode::kGradeNotEligible)
      .set_missing_eligibility(static_cast<Eligibility>(detail));
}

void Apply::ApplyEligibilityChanges() {
  for (const EligibilityChange& ch : s_.changes) {
    if (ch.account.value >= s_.accounts.size() || ch.grade >= kMaxGrades) {
      continue;
    }
    RowOf(ch.account, ch.grade) = ch.row;
    Event& e = Base(EventType::kEligibilityChanged);
    e.account = ch.account;
    e.set_grade(ch.grade);
    e.set_eligibility(ch.row.status);
    e.set_attested_nodes(ch.row.nodes);
  }
  for (std::size_t i = 0; i < s_.changes.size(); ++i) {
    const AccountId a = s_.changes[i].account;
    if (i > 0 && s_.changes[i - 1].account == a) continue;
    if (a.value >= s_.accounts.size()) continue;
    EnforceEligibility(a);
  }
  s_.changes.clear();
}

template <typename Accepts>
uint32_t Apply::NewestSell(AccountId a, Accepts match) {
  for (uint32_t k = s_.accounts[a.value].tail; k != 0;
       k = s_.orders[k].account_prev) {
    const Order& o = s_.orders[k];
    if (o.side == Side::kSell && match(o.instrument.value)) return k;
  }
  return 0;
}

void Apply::CancelLost(uint32_t k) {
  CancelResting(s_.books[s_.orders[k].instrument.value], k,
                EventType::kOrderCancelled,
                CancelReason::kGradeEligibilityLost);
}

void Apply::EnforceEligibility(AccountId a) {
  for (uint32_t id : s_.spot_books) {
    Book& b = s_.books[id];
    if (b.state == InstrumentState::kNone ||
        b.state == InstrumentState::kExpired) {
      continue;
    }
    const EligibilityRow& r = RowOf(a, b.config.grade);
    auto here = [id](uint32_t inst) { return inst == id; };
    while (Row(a, InstrumentId{id}).open_sell > 0 &&
           (r.status != Eligibility::kEligible || Committed(a, id) > r.nodes)) {
      const uint32_t k = NewestSell(a, here);
      if (k == 0) break;
      CancelLost(k);
    }
  }
  const int64_t max_nodes = MaxNodes(a);
  for (uint32_t id : s_.spot_books) {
    const Book& b = s_.books[id];
    if (b.state == InstrumentState::kNone ||
        b.state == InstrumentState::kExpired) {
      continue;
    }
    const int64_t day = b.delivery_day;
    auto same_day = [this, day](uint32_t inst) {
      const Book& x = s_.books[inst];
      return x.config.kind == InstrumentKind::kSpot && x.delivery_day == day &&
             x.state != InstrumentState::kNone;
    };
    while (CommittedOnDay(a, day) > max_nodes) {
      const uint32_t k = NewestSell(a, same_day);
      if (k == 0) break;
      CancelLost(k);
    }
  }
}

void Apply::ReferenceData() {
  const Command& c = *s_.cmd;
  s_.changes.clear();
  const RejectCode r = s_.registry->Apply(s_.payload, c.ts, &s_.changes);
  s_.next_reference_change = s_.registry->next_change().nanos;
  if (r != RejectCode::kNone) {
    s_.changes.clear();
    return Reject(r);
  }
  Event& e = Base(EventType::kReferenceAccepted);
  e.account = c.account;
  e.client_order_id = c.client_order_id;
  ApplyEligibilityChanges();
}

}  // namespace internal
}  // namespace cfx::exchange
