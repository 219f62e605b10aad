// The read-only views of an Engine's state (tests, tools and the gateway's
// start-up read them between commands).

#include <cstddef>
#include <cstdint>

#include "exchange/core/engine.h"
#include "exchange/core/engine_state.h"

namespace cfx::exchange {

using internal::Book;

Seq Engine::last_seq() const noexcept { return s_->last_seq; }

std::size_t Engine::resting_orders() const noexcept { return s_->resting; }

Price Engine::best_price(InstrumentId instrument, Side side) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return {};
  const Book& b = s_->books[instrument.value];
  if (!b.listed) return {};
  const uint32_t i = side == Side::kBuy ? b.best_bid : b.best_ask;
  return Price{static_cast<int64_t>(i) * b.config.tick.units};
}

Quantity Engine::level_quantity(InstrumentId instrument, Side side,
                                Price price) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return {};
  const Book& b = s_->books[instrument.value];
  if (!b.listed || price.units <= 0 || price.units % b.config.tick.units != 0 ||
      price > b.config.max_price) {
    return {};
  }
  const auto i = static_cast<uint32_t>(price.units / b.config.tick.units);
  return Quantity{b.ladder(side).at(i).lots};
}

int64_t Engine::position(AccountId account,
                         InstrumentId instrument) const noexcept {
  if (account.value >= s_->accounts.size() ||
      instrument.value >= s_->limits.max_instruments) {
    return 0;
  }
  return s_
      ->positions[static_cast<std::size_t>(account.value) *
                      s_->limits.max_instruments +
                  instrument.value]
      .position;
}

Timestamp Engine::next_expiry() const noexcept {
  int64_t t = s_->next_reference_change;
  if (s_->heap_size != 0) {
    const int64_t gtd = s_->orders[s_->heap[1]].expire_time.nanos;
    if (t == 0 || gtd < t) t = gtd;
  }
  if (s_->next_open != 0 && (t == 0 || s_->next_open < t)) t = s_->next_open;
  return Timestamp{t};
}

int64_t Engine::delivery_day(InstrumentId instrument) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) return 0;
  return s_->books[instrument.value].delivery_day;
}

EligibilityRow Engine::eligibility(AccountId account,
                                   uint32_t grade) const noexcept {
  if (account.value >= s_->accounts.size() || grade >= kMaxGrades) return {};
  return s_->eligibility[static_cast<std::size_t>(account.value) * kMaxGrades +
                         grade];
}

const Registry& Engine::registry() const noexcept { return *s_->registry; }

Amount Engine::collateral(AccountId account) const noexcept {
  if (account.value >= s_->accounts.size()) return {};
  return Amount{s_->accounts[account.value].collateral};
}

int64_t Engine::settled_date(AccountId account) const noexcept {
  if (account.value >= s_->accounts.size()) return 0;
  return s_->accounts[account.value].settled_date;
}

bool Engine::killed(AccountId account) const noexcept {
  if (account.value >= s_->accounts.size()) return false;
  return s_->accounts[account.value].killed;
}

InstrumentState Engine::state(InstrumentId instrument) const noexcept {
  if (instrument.value == 0 || instrument.value >= s_->books.size()) {
    return InstrumentState::kNone;
  }
  return s_->books[instrument.value].state;
}

}  // namespace cfx::exchange
