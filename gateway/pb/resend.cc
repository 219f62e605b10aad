#include "gateway/pb/resend.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "gateway/pb/report_builder.h"
#include "gateway/session/metrics.h"
#include "gateway/session/order_view.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;
using exchange::AccountId;

namespace {

// The position of a sequenced order-entry message; seq 0 for the others.
MessagePosition PositionOf(const w::Envelope& env) {
  if (env.has_execution_report()) {
    return {env.execution_report().seq(), env.execution_report().index()};
  }
  if (env.has_cancel_reject()) {
    return {env.cancel_reject().seq(), env.cancel_reject().index()};
  }
  if (env.has_mass_cancel_report()) {
    return {env.mass_cancel_report().seq(), env.mass_cancel_report().index()};
  }
  return {};
}

bool Terminal(w::OrderStatus s) {
  return s == w::ORDER_STATUS_FILLED || s == w::ORDER_STATUS_CANCELED ||
         s == w::ORDER_STATUS_REJECTED || s == w::ORDER_STATUS_EXPIRED;
}

}  // namespace

Resender::Resender(uint32_t max_accounts, uint32_t capacity, Outbox& outbox)
    : capacity_(std::max<uint32_t>(capacity, 1)),
      outbox_(outbox),
      by_account_(std::size_t{max_accounts} + 1) {}

Resender::History* Resender::Find(AccountId account) const {
  return account.value < by_account_.size() ? by_account_[account.value].get()
                                            : nullptr;
}

void Resender::Record(AccountId account, const w::Envelope& env,
                      std::string_view frame) {
  const MessagePosition pos = PositionOf(env);
  if (pos.seq == 0 || account.value == 0 ||
      account.value >= by_account_.size()) {
    return;
  }
  auto& slot = by_account_[account.value];
  if (slot == nullptr) slot = std::make_unique<History>();
  History& h = *slot;
  Keep(h, capacity_, pos, static_cast<int>(env.body_case()), frame);
  if (env.has_execution_report() && env.execution_report().order_id() != 0) {
    TrackOrder(h, env.execution_report());
  }
}

// Appends the message, or once `capacity` are kept, overwrites the oldest.
void Resender::Keep(History& h, uint32_t capacity, MessagePosition pos,
                    int type, std::string_view frame) {
  const bool full = h.ring.size() >= capacity;
  const std::size_t skip = full ? 1 : 0;  // the oldest's bytes are free
  std::size_t offset = 0;
  if (!h.Place(skip, frame.size(), &offset)) {
    offset = h.Grow(skip, frame.size());
  }
  std::copy(frame.begin(), frame.end(), h.bytes.get() + offset);
  const Entry e{pos, static_cast<int32_t>(type),
                static_cast<uint32_t>(frame.size()), offset};
  if (!full) {
    if (h.ring.size() == h.ring.capacity()) {  // grows to `capacity`, no more
      h.ring.reserve(std::min<std::size_t>(
          capacity, std::max<std::size_t>(16, 2 * h.ring.size())));
    }
    h.ring.push_back(e);
    return;
  }
  Entry& oldest = h.ring[h.head];
  h.evicted = true;
  h.last_evicted = oldest.pos;
  oldest = e;
  if (++h.head == h.ring.size()) h.head = 0;
  ++h.first;
}

bool Resender::History::Place(std::size_t skip, std::size_t length,
                              std::size_t* offset) const {
  if (skip >= size()) {  // none kept
    if (length > bytes_size) return false;
    *offset = 0;
    return true;
  }
  const Entry& oldest = at(skip);
  const Entry& newest = at(size() - 1);
  const std::size_t begin = oldest.offset;
  const std::size_t end = newest.offset + newest.length;
  if (begin < end) {  // kept in [begin, end): room after it, or before it
    if (length <= bytes_size - end) {
      *offset = end;
    } else if (length <= begin) {
      *offset = 0;
    } else {
      return false;
    }
    return true;
  }
  // Kept in [begin, the end of the frames there) and [0, end).
  if (length > begin - end) return false;
  *offset = end;
  return true;
}

std::size_t Resender::History::Grow(std::size_t skip, std::size_t length) {
  std::size_t kept = 0;
  for (std::size_t i = skip; i < size(); ++i) kept += at(i).length;
  const std::size_t grown_size = 2 * (kept + length);
  auto grown = std::make_unique_for_overwrite<char[]>(grown_size);
  std::size_t at_byte = 0;
  for (std::size_t i = skip; i < size(); ++i) {
    Entry& e = ring[slot(i)];
    std::copy_n(bytes.get() + e.offset, e.length, grown.get() + at_byte);
    e.offset = at_byte;
    at_byte += e.length;
  }
  bytes = std::move(grown);
  bytes_size = grown_size;
  return at_byte;
}

// An order opens with its first non-terminal report (order ids grow, so
// appending keeps the list sorted) and closes with its terminal one.
void Resender::TrackOrder(History& h, const w::ExecutionReport& r) {
  const uint64_t id = r.order_id();
  if (!Terminal(r.order_status())) {
    if (h.open_orders.empty() || id > h.open_orders.back()) {
      h.open_orders.push_back(id);
    }
    return;
  }
  h.closed.push_back(id);
  // Amortized: a prune costs the list's length and comes after at least
  // half that many closes.
  if (h.closed.size() >= std::max<std::size_t>(64, h.open_orders.size() / 2)) {
    h.Prune();
  }
}

void Resender::History::Prune() {
  if (closed.empty()) return;
  std::sort(closed.begin(), closed.end());
  const auto gone = [this](uint64_t id) {
    return std::binary_search(closed.begin(), closed.end(), id);
  };
  open_orders.erase(
      std::remove_if(open_orders.begin(), open_orders.end(), gone),
      open_orders.end());
  closed.clear();
}

void Resender::Start(Session& s, MessagePosition after, uint64_t through) {
  ++started_;
  s.replaying = true;
  s.live_after_seq = through;
  s.resend = Session::ResendCursor{};
  History* h = Find(s.account);
  if (h != nullptr) {
    if (h->evicted && after < h->last_evicted) {
      // A message after `after` is gone: the snapshot instead.
      StartSnapshot(s, h);
    } else {
      // The first kept message after `after` (positions ascend).
      std::size_t lo = 0;
      std::size_t hi = h->size();
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (after < h->at(mid).pos) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      s.resend.next = h->first + lo;
      s.resend.end = h->first + h->size();
    }
  }
  active_.push_back(s.id);
}

void Resender::StartSnapshot(Session& s, History* h) {
  h->Prune();
  s.resend.snapshot = true;
  s.resend.next = 0;
  s.resend.end = h->open_orders.empty() ? 0 : h->open_orders.back();
}

int Resender::Serve(const SessionMap& sessions,
                    const InstrumentTable& instruments, const OrderView& orders,
                    std::size_t max_held, std::vector<Session*>* slow) {
  if (active_.empty()) return 0;
  int budget = kPerPoll;
  // The sessions the budget did not reach go first next time.
  std::vector<uint64_t> waiting;
  std::vector<uint64_t> served;
  for (const uint64_t id : active_) {
    const auto it = sessions.find(id);
    if (it == sessions.end()) continue;
    Session& s = *it->second;
    if (s.state == Session::State::kClosed || !s.replaying) continue;
    if (s.held.size() > max_held) {
      slow->push_back(&s);
      continue;
    }
    if (budget <= 0) {
      waiting.push_back(id);
    } else if (s.out.size() >= kBackPressureBytes ||
               !ServeOne(s, instruments, orders, &budget)) {
      served.push_back(id);
    } else {
      Finish(s);
    }
  }
  waiting.insert(waiting.end(), served.begin(), served.end());
  active_.swap(waiting);
  return kPerPoll - budget;
}

bool Resender::ServeOne(Session& s, const InstrumentTable& instruments,
                        const OrderView& orders, int* budget) {
  int quota = std::min(*budget, kPerSession);
  History* h = Find(s.account);
  Session::ResendCursor& c = s.resend;
  if (h == nullptr) return true;
  if (!c.snapshot && c.next < h->first) {
    // New messages pushed the rest out while this one waited.
    StartSnapshot(s, h);
  }
  Metrics* metrics = outbox_.metrics();
  if (!c.snapshot) {
    for (; quota > 0 && c.next < c.end; --quota, ++c.next, ++c.sent) {
      const Entry& e = h->at(c.next - h->first);
      if (metrics != nullptr) metrics->MessageSent(e.type);
      outbox_.SendBytes(s, h->frame(e), false, 0);
      --*budget;
    }
    return c.next >= c.end;
  }
  auto it =
      std::upper_bound(h->open_orders.begin(), h->open_orders.end(), c.next);
  for (; quota > 0 && it != h->open_orders.end() && *it <= c.end; ++it) {
    c.next = *it;
    const OrderRecord* o = orders.Find(exchange::OrderId{*it});
    if (o == nullptr || o->done() || o->account != s.account) continue;
    out_.Clear();
    BuildOrderStatus(instruments, o, s.account, o->id,
                     out_.mutable_execution_report());
    outbox_.Send(s, out_);
    --quota;
    --*budget;
    ++c.sent;
  }
  return it == h->open_orders.end() || *it > c.end;
}

void Resender::Finish(Session& s) {
  s.replaying = false;
  out_.Clear();
  w::RetransmissionComplete* done = out_.mutable_retransmission_complete();
  done->set_messages(s.resend.sent);
  done->set_through_seq(s.live_after_seq);
  done->set_snapshot(s.resend.snapshot);
  outbox_.Send(s, out_);
  std::string held = std::move(s.held);
  s.held.clear();
  outbox_.SendBytes(s, held, false, 0);
}

}  // namespace cfx::gateway::pb
