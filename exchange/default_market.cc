#include "exchange/default_market.h"

namespace cfx::exchange {

std::vector<ReferenceGrade> DesignGrades() {
  ReferenceGrade std_grade;
  std_grade.name = "B200-STD";
  std_grade.gpu_model = "NVIDIA B200";
  std_grade.gpus_per_node = 8;
  std_grade.min_tier = Tier::kBronze;
  std_grade.min_output_milli_tokens_per_s_per_gpu = 200'000;
  std_grade.recipe = "ref-8k1k-i100";
  std_grade.max_attestation_age_ns = int64_t{30} * 86'400 * 1'000'000'000;
  ReferenceGrade prm_grade = std_grade;
  prm_grade.name = "B200-PRM";
  prm_grade.min_tier = Tier::kGold;
  prm_grade.min_output_milli_tokens_per_s_per_gpu = 285'000;
  prm_grade.max_attestation_age_ns = int64_t{7} * 86'400 * 1'000'000'000;
  return {std_grade, prm_grade};
}

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
      ic.grade = static_cast<uint32_t>(&root - roots);
      // Initial margin: one group per root; maturity year x 12 + month - 1.
      ic.margin_group = static_cast<uint32_t>(&root - roots) + 1;
      ic.maturity_month = year * 12 + month - 1;
      m.engine.instruments.push_back(ic);
      m.symbols.push_back(std::string(root.name) + kMonthCodes[month - 1] +
                          std::to_string(year % 10));
      if (++month > 12) {
        month = 1;
        ++year;
      }
    }
  }
  // Spot slots (DESIGN.md §2): 8 per grade (7 listing days + the delivery
  // day), listed by the sequencer's calendar; symbols come with each listing.
  for (uint32_t g = 0; g < 2; ++g) {
    for (int k = 0; k < 8; ++k) {
      InstrumentConfig ic;
      ic.id = InstrumentId{id++};
      ic.kind = InstrumentKind::kSpot;
      ic.tick = Price{100};
      ic.max_price = Price{100 * kPriceUnitsPerUsd};
      ic.reference_price = Price{roots[g].reference_units};
      ic.min_quantity = Quantity{1};
      ic.max_quantity = Quantity{1'000};
      ic.gpu_hours_per_lot = 192;
      ic.initial_state = InstrumentState::kNone;
      ic.grade = g;
      m.engine.instruments.push_back(ic);
      m.symbols.push_back("");
    }
  }
  m.engine.reference.grades = DesignGrades();
  m.engine.reference.providers = {{"PROV-A", AccountId{4}},
                                  {"PROV-B", AccountId{5}},
                                  {"PROV-C", AccountId{6}}};
  m.accounts = {"", "FIRM-A", "FIRM-B", "FIRM-C", "PROV-A", "PROV-B", "PROV-C"};
  for (uint32_t a = 1; a < m.accounts.size(); ++a) {
    // $10,000,000 of collateral each, as in deploy/config.
    m.engine.accounts.push_back({AccountId{a}, StpMode::kCancelNewest,
                                 Amount{10'000'000 * kMicrosPerUsd}});
  }
  return m;
}

}  // namespace cfx::exchange
