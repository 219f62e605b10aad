#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exchange/civil_date.h"
#include "exchange/core/event.h"
#include "exchange/core/types.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {

// The instruments as the gateways name them right now: the futures of the
// config, and each spot slot under the symbol of its current listing
// (DESIGN.md §2). A slot is listed for one UTC delivery day by a
// kInstrumentListed event and then answers to "<grade>-<YYYYMMDD>"; when it
// is listed again for a later day, the old symbol no longer resolves. An
// expired listing keeps its symbol until then, so late reports and queries
// about it answer "expired" (the engine's and the market data's state), not
// "unknown symbol".
//
// Feed it every durable event in seq order, before the consumers that look
// symbols up for the same event. The live gateway thread has one (owned by
// the ExchangeServer); a retransmission worker builds its own from the
// events it replays.
//
// Thread: owned by one thread; no locking. Memory: a copy of the config's
// instruments and a symbol index; Find() and Get() never allocate, OnEvent()
// allocates only for a listing.
class InstrumentTable {
 public:
  // Every future of `config` is known at once; spot slots only once listed.
  // `config` is only read in the constructor.
  explicit InstrumentTable(const ServerConfig& config);
  InstrumentTable(const InstrumentTable&) = delete;
  InstrumentTable& operator=(const InstrumentTable&) = delete;

  // Applies one durable event: kInstrumentListed of a spot slot gives it the
  // listing's symbol, delivery date and last trading day (the day before
  // delivery); every other event is ignored. REQUIRES: seq order.
  void OnEvent(const exchange::Event& e);

  // The instrument trading under `symbol`: a future, or a spot slot whose
  // current (live or expired) listing has that symbol. nullptr otherwise.
  // O(1).
  const InstrumentInfo* Find(std::string_view symbol) const;

  // The instrument `id` as currently listed. nullptr for an id the config
  // does not have and for a spot slot never listed (a slot has no symbol
  // before its first listing). The pointer stays valid while the table
  // lives; a slot's fields change when it is listed again. O(1).
  const InstrumentInfo* Get(exchange::InstrumentId id) const;

  // Calls f(info) for every instrument with a symbol (futures, and spot
  // slots listed at least once), in instrument id order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const InstrumentInfo& info : instruments_) {
      if (!info.symbol.empty()) f(info);
    }
  }

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  std::vector<InstrumentInfo> instruments_;  // [id - 1]
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>
      by_symbol_;  // symbol -> instrument id
};

// "<grade>-<YYYYMMDD>" of UTC delivery day `day` (days since 1970-01-01),
// e.g. SpotSymbol("B200-STD", 20'792) == "B200-STD-20261205".
std::string SpotSymbol(std::string_view grade, int64_t day);

// "YYYY-MM-DD" dates (days since 1970-01-01) of the one civil-date module.
using exchange::FormatDay;
using exchange::ParseDay;

}  // namespace cfx::gateway
