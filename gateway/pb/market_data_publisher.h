#pragma once

#include <cstdint>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/event.h"

namespace cfx::gateway {
class InstrumentTable;
class MarketDataStore;
class StatusReasons;
struct InstrumentInfo;
}  // namespace cfx::gateway

namespace cfx::gateway::pb {

class OrderEntryAdapter;
class Outbox;
class Session;

inline wire::v1::InstrumentState WireState(exchange::InstrumentState s) {
  return static_cast<wire::v1::InstrumentState>(s);
}

// The protobuf gateway's market-data publisher (docs/protocol.md): answers
// MarketDataSubscribe with a BookSnapshot and recent TradePrints from the
// market-data store, keeps the subscribers of each instrument, and sends
// them a BookUpdate or TradePrint for each durable book-level or trade
// event. A spot slot listed again ends its subscriptions (they named the
// old symbol).
//
// Thread: the gateway thread. Memory: two subscriber lists per instrument,
// sized from the config; one reusable Envelope.
class MarketDataPublisher {
 public:
  // Every argument must outlive the publisher; `instrument_count` is the
  // config's number of instruments.
  MarketDataPublisher(std::size_t instrument_count,
                      const InstrumentTable& instruments,
                      const OrderEntryAdapter& symbols,
                      const MarketDataStore& market_data,
                      const StatusReasons& reasons, Outbox& outbox);

  // A subscription request of `s`: the snapshot and the subscription, or a
  // SessionReject.
  void OnSubscribe(Session& s, const wire::v1::MarketDataSubscribe& m);
  void OnUnsubscribe(Session& s, const wire::v1::MarketDataUnsubscribe& m);

  // One durable event, in seq order: public market data to subscribers.
  void OnEvent(const exchange::Event& e);

  // Drops the subscriptions of a closing session.
  void Remove(Session& s);

 private:
  void EndSubscriptions(uint32_t id);
  // InstrumentStatus to every subscriber of the instrument (depth or
  // trades) for a change of state or an opening auction.
  void PublishStatus(const exchange::Event& e, const InstrumentInfo& info);
  void SetIndicative(const std::string& symbol, exchange::Seq seq,
                     exchange::Price price, exchange::Quantity quantity,
                     exchange::Side side, exchange::Quantity surplus);

  const InstrumentTable& instruments_;
  const OrderEntryAdapter& symbols_;
  const MarketDataStore& market_data_;
  const StatusReasons& reasons_;
  Outbox& outbox_;
  std::vector<std::vector<Session*>> depth_subscribers_;  // instrument id
  std::vector<std::vector<Session*>> trade_subscribers_;  // instrument id
  wire::v1::Envelope out_;
};

}  // namespace cfx::gateway::pb
