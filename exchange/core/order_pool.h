// Internal to exchange_core: the order pool of EngineState (preallocated
// slots on a free list, the order id index, each account's list of resting
// orders) and the GTD heap of the orders that expire at a time.
//
// A slot's life: AllocSlot() takes it off the free list, the caller fills in
// its fields, RegisterOrder() enters it in the index, its account's list and
// (GTD) the heap; the book links it into a level (OrderBook::Rest). Once the
// book has unlinked it, FreeSlot() undoes the registration and returns it.
//
// Thread: the matching thread. Memory: never allocates (the pool, index and
// heap are sized in Engine::Create()).

#pragma once

#include <cstdint>

#include "exchange/core/engine_state.h"

namespace cfx::exchange {
namespace internal {

// ---- GTD heap: a 1-based min-heap of slots keyed by (expire time, order
// id); each order's heap_pos is its position, 0 when not in the heap ----

inline bool GtdHeapLess(const EngineState& s, uint32_t a, uint32_t b) {
  const Order& x = s.orders[a];
  const Order& y = s.orders[b];
  if (x.expire_time != y.expire_time) return x.expire_time < y.expire_time;
  return x.id < y.id;
}

inline void GtdHeapSet(EngineState& s, uint32_t pos, uint32_t k) {
  s.heap[pos] = k;
  s.orders[k].heap_pos = pos;
}

inline void GtdHeapSiftUp(EngineState& s, uint32_t pos) {
  const uint32_t k = s.heap[pos];
  while (pos > 1 && GtdHeapLess(s, k, s.heap[pos / 2])) {
    GtdHeapSet(s, pos, s.heap[pos / 2]);
    pos /= 2;
  }
  GtdHeapSet(s, pos, k);
}

inline void GtdHeapSiftDown(EngineState& s, uint32_t pos) {
  const uint32_t k = s.heap[pos];
  while (true) {
    uint32_t c = pos * 2;
    if (c > s.heap_size) break;
    if (c + 1 <= s.heap_size && GtdHeapLess(s, s.heap[c + 1], s.heap[c])) ++c;
    if (!GtdHeapLess(s, s.heap[c], k)) break;
    GtdHeapSet(s, pos, s.heap[c]);
    pos = c;
  }
  GtdHeapSet(s, pos, k);
}

inline void GtdHeapPush(EngineState& s, uint32_t k) {
  s.heap[++s.heap_size] = k;
  GtdHeapSiftUp(s, s.heap_size);
}

// Removes the slot at heap position `pos` (1-based).
inline void GtdHeapRemove(EngineState& s, uint32_t pos) {
  s.orders[s.heap[pos]].heap_pos = 0;
  const uint32_t last = s.heap[s.heap_size--];
  if (pos > s.heap_size) return;
  s.heap[pos] = last;
  GtdHeapSiftUp(s, pos);
  GtdHeapSiftDown(s, s.orders[last].heap_pos);
}

// ---- slots ----

// Takes a slot off the free list. REQUIRES: s.free_head != 0.
inline uint32_t AllocSlot(EngineState& s) {
  const uint32_t k = s.free_head;
  s.free_head = s.orders[k].next;
  ++s.resting;
  return k;
}

// Registers a freshly filled slot: id index, account list, GTD heap.
inline void RegisterOrder(EngineState& s, uint32_t k) {
  Order& o = s.orders[k];
  s.index.Insert(o.id.value, k);
  AccountRow& a = s.accounts[o.account.value];
  o.account_prev = a.tail;
  o.account_next = 0;
  if (a.tail != 0)
    s.orders[a.tail].account_next = k;
  else
    a.head = k;
  a.tail = k;
  if (o.tif == TimeInForce::kGtd) GtdHeapPush(s, k);
}

// Releases a slot that is no longer in any level. Forced inline: GCC 12
// stopped inlining it when NewOrder() grew by the client order id check,
// which cost ~25 instructions per command in `cfx-bench engine`.
[[gnu::always_inline]] inline void FreeSlot(EngineState& s, uint32_t k) {
  Order& o = s.orders[k];
  s.index.Erase(o.id.value);
  AccountRow& a = s.accounts[o.account.value];
  if (o.account_prev != 0)
    s.orders[o.account_prev].account_next = o.account_next;
  else
    a.head = o.account_next;
  if (o.account_next != 0)
    s.orders[o.account_next].account_prev = o.account_prev;
  else
    a.tail = o.account_prev;
  if (o.heap_pos != 0) GtdHeapRemove(s, o.heap_pos);
  // The other fields are dead until the slot is filled again (a new resting
  // order or a snapshot load); heap_pos is already 0.
  o.id = OrderId{};
  o.next = s.free_head;
  s.free_head = k;
  --s.resting;
}

}  // namespace internal
}  // namespace cfx::exchange
