#include "gateway/pb/resend.h"

#include <algorithm>

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
  if (h.entries.size() >= capacity_) {
    h.evicted = true;
    h.last_evicted = h.entries.front().pos;
    h.entries.pop_front();
    ++h.first;
  }
  h.entries.push_back(
      Entry{pos, static_cast<int>(env.body_case()), std::string(frame)});
  if (env.has_execution_report() && env.execution_report().order_id() != 0) {
    const w::ExecutionReport& r = env.execution_report();
    if (Terminal(r.order_status())) {
      h.open_orders.erase(r.order_id());
    } else {
      h.open_orders.insert(r.order_id());
    }
  }
}

void Resender::Start(Session& s, MessagePosition after, uint64_t through) {
  ++started_;
  s.replaying = true;
  s.live_after_seq = through;
  s.resend = Session::ResendCursor{};
  const History* h = Find(s.account);
  if (h != nullptr) {
    if (h->evicted && after < h->last_evicted) {
      // A message after `after` is gone: the snapshot instead.
      StartSnapshot(s, h);
    } else {
      const auto it = std::upper_bound(
          h->entries.begin(), h->entries.end(), after,
          [](const MessagePosition& p, const Entry& e) { return p < e.pos; });
      s.resend.next = h->first + static_cast<uint64_t>(it - h->entries.begin());
      s.resend.end = h->first + h->entries.size();
    }
  }
  active_.push_back(s.id);
}

void Resender::StartSnapshot(Session& s, const History* h) {
  s.resend.snapshot = true;
  s.resend.next = 0;
  s.resend.end = h->open_orders.empty() ? 0 : *h->open_orders.rbegin();
}

int Resender::Serve(const SessionMap& sessions,
                    const InstrumentTable& instruments,
                    const OrderView& orders, std::size_t max_held,
                    std::vector<Session*>* slow) {
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
  const History* h = Find(s.account);
  Session::ResendCursor& c = s.resend;
  if (h == nullptr) return true;
  if (!c.snapshot && c.next < h->first) {
    // New messages pushed the rest out while this one waited.
    StartSnapshot(s, h);
  }
  Metrics* metrics = outbox_.metrics();
  if (!c.snapshot) {
    for (; quota > 0 && c.next < c.end; --quota, ++c.next, ++c.sent) {
      const Entry& e = h->entries[c.next - h->first];
      if (metrics != nullptr) metrics->MessageSent(e.type);
      outbox_.SendBytes(s, e.frame, false, 0);
      --*budget;
    }
    return c.next >= c.end;
  }
  auto it = h->open_orders.upper_bound(c.next);
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
