#include "gateway/session/client_order_index.h"

#include <utility>

namespace cfx::gateway {

ClientOrderIndex::ClientOrderIndex(const exchange::SipKey& key) : key_(key) {}

std::size_t ClientOrderIndex::Home(uint32_t account, uint64_t id) const {
  const uint64_t block = exchange::SipHash13(key_, id >> 4, account);
  return static_cast<std::size_t>((block << 4) | (id & 15)) & mask_;
}

std::size_t ClientOrderIndex::Probe(uint32_t account, uint64_t id) const {
  std::size_t i = Home(account, id);
  // At most half full: the run ends at a free slot.
  while (slots_[i].order_id != 0 &&
         (slots_[i].id != id || slots_[i].account != account)) {
    i = (i + 1) & mask_;
  }
  return i;
}

void ClientOrderIndex::Put(uint32_t account, uint64_t id, uint64_t order_id) {
  if (order_id == 0) return;
  if (2 * (size_ + 1) > slots_.size()) Grow();
  Slot& s = slots_[Probe(account, id)];
  if (s.order_id == 0) ++size_;
  s = Slot{id, order_id, account};
}

uint64_t ClientOrderIndex::Find(uint32_t account, uint64_t id) const {
  if (size_ == 0) return 0;
  return slots_[Probe(account, id)].order_id;
}

std::size_t ClientOrderIndex::Displacement(uint32_t account,
                                           uint64_t id) const {
  if (size_ == 0) return slots_.size();
  const std::size_t i = Probe(account, id);
  if (slots_[i].order_id == 0) return slots_.size();
  return (i - Home(account, id)) & mask_;
}

void ClientOrderIndex::Clear() {
  std::vector<Slot>().swap(slots_);
  mask_ = 0;
  size_ = 0;
}

void ClientOrderIndex::Grow() {
  std::vector<Slot> old(slots_.empty() ? kMinSlots : 2 * slots_.size());
  old.swap(slots_);
  mask_ = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.order_id != 0) slots_[Probe(s.account, s.id)] = s;
  }
}

}  // namespace cfx::gateway
