#include "gateway/config/instrument_table.h"

#include <cstdio>

namespace cfx::gateway {

namespace {

// The proleptic Gregorian date of `day` days since 1970-01-01 (H. Hinnant's
// civil_from_days).
void CivilFromDays(int64_t day, int64_t* y, int64_t* m, int64_t* d) {
  const int64_t z = day + 719'468;
  const int64_t era = (z >= 0 ? z : z - 146'096) / 146'097;
  const int64_t doe = z - era * 146'097;
  const int64_t yoe = (doe - doe / 1'460 + doe / 36'524 - doe / 146'096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

// "YYYY" `sep` "MM" `sep` "DD"; no separator when `sep` is 0.
std::string FormatDate(int64_t day, char sep) {
  int64_t y = 0, m = 0, d = 0;
  CivilFromDays(day, &y, &m, &d);
  char buf[80];  // room for any int64 fields, so GCC sees no truncation
  if (sep == 0) {
    std::snprintf(buf, sizeof buf, "%04lld%02lld%02lld",
                  static_cast<long long>(y), static_cast<long long>(m),
                  static_cast<long long>(d));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld%c%02lld%c%02lld",
                  static_cast<long long>(y), sep, static_cast<long long>(m),
                  sep, static_cast<long long>(d));
  }
  return buf;
}

}  // namespace

std::string FormatDay(int64_t day) { return FormatDate(day, '-'); }

std::optional<int64_t> ParseDay(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') {
    return std::nullopt;
  }
  int64_t parts[3] = {0, 0, 0};
  const std::size_t starts[3] = {0, 5, 8};
  const std::size_t lens[3] = {4, 2, 2};
  for (int i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < lens[i]; ++j) {
      const char c = date[starts[i] + j];
      if (c < '0' || c > '9') return std::nullopt;
      parts[i] = parts[i] * 10 + (c - '0');
    }
  }
  const int64_t y = parts[0], m = parts[1], d = parts[2];
  if (y < 1970 || m < 1 || m > 12 || d < 1) return std::nullopt;
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30,
                                    31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int64_t max_d = kDays[m - 1] + (m == 2 && leap ? 1 : 0);
  if (d > max_d) return std::nullopt;
  return internal::DaysFromCivil(y, m, d);
}

std::string SpotSymbol(std::string_view grade, int64_t day) {
  std::string s(grade);
  s += '-';
  s += FormatDate(day, 0);
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
  const int64_t day = e.count;
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
