#include "exchange/default_market.h"

namespace cfx::exchange {

DefaultMarket MakeDefaultMarket() {
  DefaultMarket m;
  m.engine.limits.max_orders = 1u << 20;
  m.engine.limits.max_accounts = 64;
  m.engine.limits.max_instruments = 64;
  m.symbols.push_back("");
  static constexpr char kMonthCodes[] = "FGHJKMNQUVXZ";
  struct Root {
    const char* name;
    int64_t reference_units;
  };
  const Root roots[] = {{"XB2S", 58'000}, {"XB2P", 64'000}};  // $5.80, $6.40
  uint32_t id = 1;
  for (const Root& root : roots) {
    int year = 2026;
    int month = 12;
    for (int k = 0; k < 12; ++k) {
      InstrumentConfig ic;
      ic.id = InstrumentId{id++};
      ic.kind = InstrumentKind::kFuture;
      ic.tick = Price{100};
      ic.max_price = Price{100 * kPriceUnitsPerUsd};
      ic.reference_price = Price{root.reference_units};
      ic.min_quantity = Quantity{1};
      ic.max_quantity = Quantity{1'000};
      ic.gpu_hours_per_lot = 730;
      m.engine.instruments.push_back(ic);
      m.symbols.push_back(std::string(root.name) + kMonthCodes[month - 1] +
                          std::to_string(year % 10));
      if (++month > 12) {
        month = 1;
        ++year;
      }
    }
  }
  m.accounts = {"", "FIRM-A", "FIRM-B", "FIRM-C", "PROV-A", "PROV-B", "PROV-C"};
  for (uint32_t a = 1; a < m.accounts.size(); ++a) {
    m.engine.accounts.push_back({AccountId{a}, StpMode::kCancelNewest});
  }
  return m;
}

}  // namespace cfx::exchange
