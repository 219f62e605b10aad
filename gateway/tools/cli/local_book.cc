#include "gateway/tools/cli/local_book.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "gateway/tools/client/decimal.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

void LocalBook::Reset(const w::BookSnapshot& s) {
  symbol_ = s.symbol();
  seq_ = s.seq();
  snapshot_seq_ = s.seq();
  state_ = s.state();
  bids_.clear();
  asks_.clear();
  for (const w::Level& l : s.bids()) {
    bids_[l.price()] = Level{l.quantity(), l.order_count()};
  }
  for (const w::Level& l : s.asks()) {
    asks_[l.price()] = Level{l.quantity(), l.order_count()};
  }
}

bool LocalBook::Apply(const w::BookUpdate& u) {
  if (u.symbol() != symbol_ || u.seq() <= snapshot_seq_) return false;
  const Level level{u.quantity(), u.order_count()};
  switch (u.side()) {
    case w::SIDE_BUY:
      if (u.quantity() == 0) {
        bids_.erase(u.price());
      } else {
        bids_[u.price()] = level;
      }
      break;
    case w::SIDE_SELL:
      if (u.quantity() == 0) {
        asks_.erase(u.price());
      } else {
        asks_[u.price()] = level;
      }
      break;
    default:
      return false;
  }
  seq_ = std::max(seq_, u.seq());
  return true;
}

std::string LocalBook::Text(std::size_t depth) const {
  std::string out = symbol_ + "  " + EnumName(state_) + "  seq " +
                    std::to_string(seq_) + "\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%6s %10s %10s | %-10s %-10s %-6s", "ORDERS",
                "BID_QTY", "BID", "ASK", "ASK_QTY", "ORDERS");
  out += TrimmedLine(buf);
  std::size_t rows = std::max(bids_.size(), asks_.size());
  if (depth != 0) rows = std::min(rows, depth);
  auto bid = bids_.begin();
  auto ask = asks_.begin();
  for (std::size_t i = 0; i < rows; ++i) {
    std::string left(6 + 1 + 10 + 1 + 10, ' ');
    std::string right;
    if (bid != bids_.end()) {
      std::snprintf(buf, sizeof buf, "%6u %10" PRId64 " %10s",
                    bid->second.orders, bid->second.quantity,
                    client::FormatPrice(exchange::Price{bid->first}).c_str());
      left = buf;
      ++bid;
    }
    if (ask != asks_.end()) {
      std::snprintf(buf, sizeof buf, "%-10s %-10" PRId64 " %-6u",
                    client::FormatPrice(exchange::Price{ask->first}).c_str(),
                    ask->second.quantity, ask->second.orders);
      right = buf;
      ++ask;
    }
    out += TrimmedLine(left + " | " + right);
  }
  if (rows == 0) out += "(empty book)\n";
  return out;
}

std::string LocalBook::Json(std::size_t depth) const {
  const auto levels = [depth](const auto& side) {
    std::string json = "[";
    std::size_t n = 0;
    for (const auto& [price, level] : side) {
      if (depth != 0 && n == depth) break;
      if (n++ > 0) json += ',';
      json += JsonObject()
                  .Str("price", client::FormatPrice(exchange::Price{price}))
                  .Int("quantity", level.quantity)
                  .Uint("orders", level.orders)
                  .str();
    }
    return json + "]";
  };
  return JsonObject()
      .Str("type", "book")
      .Str("symbol", symbol_)
      .Uint("seq", seq_)
      .Str("state", EnumName(state_))
      .Raw("bids", levels(bids_))
      .Raw("asks", levels(asks_))
      .str();
}

}  // namespace cfx::gateway::cli
