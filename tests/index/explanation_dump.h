#pragma once

#include <sstream>
#include <string>

#include "index/methodology.h"

namespace cfx::index {

// An explanation as text, one line per contributing trade (T), excluded
// trade (X), partition (P) and note (N): equal texts, equal explanations.
inline std::string Dump(const Explanation& ex) {
  std::ostringstream out;
  for (const auto& t : ex.trades) {
    out << "T " << t.trade.trade_id << ' ' << t.age << ' ' << t.gpu_hours << ' '
        << t.weight << ' ' << t.kept_weight << ' ' << t.partition << '\n';
  }
  for (const auto& e : ex.excluded) {
    out << "X " << e.trade.trade_id << ' ' << e.age << ' ' << e.reason << '\n';
  }
  for (const auto& p : ex.partitions) {
    out << "P " << p.partition << ' ' << p.trades << ' ' << p.vwm.micros
        << '\n';
  }
  for (const auto& n : ex.notes) out << "N " << n << '\n';
  return out.str();
}

}  // namespace cfx::index
