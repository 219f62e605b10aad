#include "gateway/config/instrument_table.h"

namespace cfx::gateway {

std::string SpotSymbol(std::string_view grade, int64_t day) {
  std::string s(grade);
  s += '-';
  s += exchange::FormatCompactDay(day);
  return s;
}

InstrumentTable::InstrumentTable(const ServerConfig& config)
    : instruments_(config.instruments) {
  by_symbol_.reserve(instruments_.size());
  for (InstrumentInfo& info : instruments_) {
    if (info.spot_slot) {
      // Named only by its listings.
      info.symbol.clear();
      continue;
    }
    if (!info.symbol.empty()) by_symbol_.emplace(info.symbol, info.id.value);
  }
}

void InstrumentTable::OnEvent(const exchange::Event& e) {
  if (e.type != exchange::EventType::kInstrumentListed) return;
  const uint32_t id = e.instrument.value;
  if (id == 0 || id > instruments_.size()) return;
  InstrumentInfo& info = instruments_[id - 1];
  if (!info.spot_slot || info.id != e.instrument) return;
  if (!info.symbol.empty()) {
    const auto it = by_symbol_.find(info.symbol);
    if (it != by_symbol_.end() && it->second == id) by_symbol_.erase(it);
  }
  const int64_t day = e.delivery_day();
  info.symbol = SpotSymbol(info.grade, day);
  info.delivery_date = FormatDay(day);
  // Trading stops at 00:00 UTC of the delivery day.
  info.last_trading_day = FormatDay(day - 1);
  // A future's symbol wins a (misconfigured) clash; a slot still holding the
  // symbol cannot be current, as one day lives in one slot per grade.
  const auto [it, added] = by_symbol_.try_emplace(info.symbol, id);
  if (!added && instruments_[it->second - 1].spot_slot) it->second = id;
}

const InstrumentInfo* InstrumentTable::Find(std::string_view symbol) const {
  const auto it = by_symbol_.find(symbol);
  return it == by_symbol_.end() ? nullptr : &instruments_[it->second - 1];
}

const InstrumentInfo* InstrumentTable::Get(exchange::InstrumentId id) const {
  if (id.value == 0 || id.value > instruments_.size()) return nullptr;
  const InstrumentInfo& info = instruments_[id.value - 1];
  return info.id != id || info.symbol.empty() ? nullptr : &info;
}

}  // namespace cfx::gateway
