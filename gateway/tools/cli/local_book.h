#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::cli {

// An L2 book kept from a BookSnapshot and the BookUpdates after it.
//
// Thread: one thread. Memory: one map node per price level.
class LocalBook {
 public:
  void Reset(const wire::v1::BookSnapshot& s);
  // Applies an update of this book's symbol with seq at or after the
  // snapshot's; returns false (and changes nothing) for any other.
  bool Apply(const wire::v1::BookUpdate& u);

  // A side-by-side ladder of the best `depth` levels a side (0 = all) under
  // a title line "SYMBOL  STATE  seq N".
  std::string Text(std::size_t depth) const;
  std::string Json(std::size_t depth) const;

  const std::string& symbol() const { return symbol_; }
  uint64_t seq() const { return seq_; }

 private:
  struct Level {
    int64_t quantity = 0;
    uint32_t orders = 0;
  };

  std::string symbol_;
  uint64_t seq_ = 0;           // of the newest change applied
  uint64_t snapshot_seq_ = 0;  // updates after this one apply
  wire::v1::InstrumentState state_ = wire::v1::INSTRUMENT_STATE_UNSPECIFIED;
  std::map<int64_t, Level, std::greater<>> bids_;  // best (highest) first
  std::map<int64_t, Level> asks_;                  // best (lowest) first
};

}  // namespace cfx::gateway::cli
