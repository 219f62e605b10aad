#pragma once

#include <cstdint>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/event.h"
#include "gateway/pb/report_builder.h"
#include "gateway/pb/resend.h"
#include "gateway/pb/session.h"

namespace cfx::gateway {
struct ServerConfig;
class InstrumentTable;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

// The protobuf gateway's egress publisher (docs/protocol.md): turns each
// durable engine event into the order messages of the accounts it concerns
// (ReportBuilder) and queues them, sequenced, for the logged-on sessions of
// those accounts, and keeps them in the resend history; measures
// order-to-ack latency; answers
// OrderStatusRequest from the order view; and tells both sides' sessions
// (and their clearing members') of a trade bust.
//
// Thread: the gateway thread. Memory: one session list per account, sized
// from the config.
class ExecutionReportPublisher {
 public:
  // `config`, `instruments`, `orders` (both fed each event before
  // OnEvent()), `outbox` and `history` (every account's messages go to its
  // Record()) must outlive the publisher.
  ExecutionReportPublisher(const ServerConfig& config,
                           const InstrumentTable& instruments,
                           const OrderView& orders, Outbox& outbox,
                           Resender& history);

  // From logon on, the reports of `s.account` reach `s`.
  void Add(Session& s);
  // Drops a closing session. REQUIRES: s.user is set if Add(s) was called.
  void Remove(Session& s);

  // Remembers an order `s` submitted, for the order-to-ack latency.
  void ExpectAck(Session& s, uint64_t client_order_id, int64_t now_ns) {
    // Bounded: a session that never gets its acks cannot grow this.
    if (s.acks.size() >= kMaxPendingAcks) s.acks.pop_front();
    s.acks.emplace_back(client_order_id, now_ns);
  }

  // One durable event, in seq order: the order messages it causes.
  void OnEvent(const exchange::Event& e);

  // A kTradeBusted event: a TradeBust to each active session in `sessions`
  // on either side of the trade (a clearing member's on its members'
  // sides); each sees only its own side's account.
  void OnTradeBust(const exchange::Event& e, const SessionMap& sessions);

  // The answer to `s`'s OrderStatusRequest, or a SessionReject.
  void OnOrderStatus(Session& s, const wire::v1::OrderStatusRequest& m);

  // The order view the reports are built from.
  const OrderView& orders() const { return builder_.orders(); }

 private:
  static constexpr std::size_t kMaxPendingAcks = 1 << 16;

  void Publish(exchange::AccountId account, const wire::v1::Envelope& env);

  const ServerConfig& config_;
  const InstrumentTable& instruments_;
  Outbox& outbox_;
  Resender& history_;
  ReportBuilder builder_;
  std::vector<std::vector<Session*>> by_account_;  // account id
  uint64_t seq_ = 0;
  wire::v1::Envelope out_;
};

}  // namespace cfx::gateway::pb
