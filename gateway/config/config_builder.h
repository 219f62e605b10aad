// The config builder: turns a parsed ExchangeConfig into a ServerConfig,
// checking every field and naming the culprit's line in each error. Private
// to gateway/config; one file per section (config_network.cc,
// config_schedule.cc, config_accounts.cc, config_futures.cc, config_spot.cc)
// and config_validator.cc for the order of sections and the shared checks.
#pragma once

#include <google/protobuf/text_format.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cfx/config/v1/config.pb.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway::config_internal {

namespace pb = ::cfx::config::v1;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::TextFormat;

constexpr uint32_t kDefaultMaxOrders = 1u << 20;
constexpr uint32_t kDefaultMaxAccounts = 1'024;
constexpr uint32_t kDefaultMaxInstruments = 256;
constexpr uint32_t kDefaultMonths = 12;
constexpr uint32_t kMaxMonths = 36;
constexpr uint32_t kDefaultContractGpuHours = 730;
constexpr int64_t kDefaultTickUnits = 100;  // $0.01
constexpr int64_t kDefaultMaxPriceUnits = 100 * exchange::kPriceUnitsPerUsd;
constexpr uint32_t kDefaultMinQuantity = 1;
constexpr uint32_t kDefaultMaxQuantity = 1'000;
constexpr uint32_t kDefaultBandBps = 1'000;
constexpr uint32_t kDefaultMarketBandBps = 500;
constexpr uint32_t kDefaultGpusPerNode = 8;
constexpr size_t kMinApiSecretBytes = 32;
constexpr int kPriceDecimals = 4;   // 1/10,000 USD grid
constexpr int kAmountDecimals = 6;  // micro-dollars
constexpr std::string_view kExchangeCompId = "CFX";
constexpr char kMonthCodes[] = "FGHJKMNQUVXZ";

// A field from the root message, e.g. users[3].account: printed in errors and
// looked up in the parser's ParseInfoTree for its line.
class FieldPath {
 public:
  FieldPath Field(std::string_view name) const { return With(name, -1); }
  FieldPath Field(std::string_view name, size_t index) const {
    return With(name, static_cast<int>(index));
  }

  std::string ToString() const {
    std::string out;
    for (const Step& s : steps_) {
      if (!out.empty()) out += '.';
      out += s.name;
      if (s.index >= 0) {
        out += '[';
        out += std::to_string(s.index);
        out += ']';
      }
    }
    return out;
  }

  // 1-based line of the deepest step found in `tree`; 0 if none is.
  int Line(const TextFormat::ParseInfoTree& root) const {
    const Descriptor* desc = pb::ExchangeConfig::descriptor();
    const TextFormat::ParseInfoTree* tree = &root;
    int line = -1;
    for (const Step& s : steps_) {
      const FieldDescriptor* fd =
          desc == nullptr ? nullptr : desc->FindFieldByName(s.name);
      if (fd == nullptr || tree == nullptr) break;
      if (fd->is_repeated() != (s.index >= 0)) break;
      const TextFormat::ParseLocation loc = tree->GetLocation(fd, s.index);
      if (loc.line < 0) break;
      line = loc.line;
      if (fd->message_type() == nullptr) break;
      tree = tree->GetTreeForNested(fd, s.index);
      desc = fd->message_type();
    }
    return line + 1;
  }

 private:
  struct Step {
    std::string name;
    int index;  // -1 for a singular field
  };
  FieldPath With(std::string_view name, int index) const {
    FieldPath p = *this;
    p.steps_.push_back(Step{std::string(name), index});
    return p;
  }
  std::vector<Step> steps_;
};

// `s` in double quotes, for error messages.
std::string Quote(std::string_view s);

// Names of firms, users, accounts, ...: 1-64 printable ASCII bytes, no blank.
bool IsName(std::string_view s);

// Futures roots: 1-8 upper-case letters or digits.
bool IsRoot(std::string_view s);

// "YYYY-MM", years 2000-2199.
bool ParseYearMonth(std::string_view s, int* year, int* month);

// "HH:MM", 00:00-23:59, as seconds after midnight.
bool ParseHourMinute(std::string_view s, int64_t* seconds);

// Builds a ServerConfig from a parsed ExchangeConfig, checking everything.
class Builder {
 public:
  Builder(const pb::ExchangeConfig& in, const TextFormat::ParseInfoTree& tree,
          std::string_view filename)
      : in_(in), tree_(tree), filename_(filename) {}

  Result<ServerConfig> Build();

 private:
  static FieldPath Root() { return FieldPath(); }

  // config_validator.cc: errors and the checks every section shares.
  // "<file>:<line>: <path>: <message>"; line 1 if the path is not in the file.
  Status ErrorAtLine(int line, const FieldPath& path,
                     std::string_view message) const;
  Status Error(const FieldPath& path, std::string_view message) const;
  // Requires `name`, field `field` of entry `index` of repeated field `list`,
  // to be a well-formed name of a `what` not in `seen`; adds it to `seen`.
  Status CheckNewName(std::unordered_map<std::string, size_t>& seen,
                      std::string_view list, size_t index,
                      std::string_view name, std::string_view what,
                      std::string_view field = "name") const;
  // Where a capacity error goes: the limit's line if the file sets it, else
  // the line of the entry that exceeds the default.
  int LimitLine(bool limit_set, std::string_view limit,
                const FieldPath& entry) const;
  // `firm` must name a configured firm.
  Status CheckFirm(const FieldPath& path, std::string_view firm) const;
  // A positive USD price on the 1/10,000 grid.
  Result<exchange::Price> ParsePrice(const FieldPath& path,
                                     std::string_view text) const;
  // Runs exchange::ValidateEngineConfig and points its error at the config.
  Status CheckEngine() const;

  // config_network.cc
  Status BuildNetwork();
  void BuildLimitsAndSession();

  // config_schedule.cc
  Status BuildClock();
  Status BuildIndex();
  // Each holiday a weekday date, listed once.
  Status BuildCalendar();

  // config_accounts.cc
  Status BuildFirms();
  Status BuildClearingMembers();
  Status BuildAccounts();
  Status BuildUsers();
  // One of the user's api_keys (path `kp`): its kind and key material.
  Result<ApiKey> BuildApiKey(const FieldPath& kp, const pb::User& u,
                             const pb::ApiKey& key) const;

  // config_futures.cc
  Status BuildGrades();
  Status BuildFutures();
  // ic->max_price from `text` (empty = $100.00), a multiple of ic->tick.
  Status MaxPrice(const FieldPath& path, const std::string& text,
                  exchange::InstrumentConfig* ic) const;
  // Quantity bounds and price bands of a FuturesRoot or the Spot section
  // (the same field names in both).
  template <typename M>
  Status OrderBounds(const FieldPath& path, const M& m,
                     exchange::InstrumentConfig* ic) const;

  // config_spot.cc
  // listing_days + 1 spot slots per grade, after the futures.
  Status BuildSpot();
  // The engine's view of grades and providers (ratings, attestations).
  Status BuildReference();

  const pb::ExchangeConfig& in_;
  const TextFormat::ParseInfoTree& tree_;
  std::string filename_;
  ServerConfig out_;
  // Name -> index of the entry, for references and duplicates.
  std::unordered_map<std::string, size_t> firms_;
  std::unordered_map<std::string, size_t> clearing_members_;
  std::unordered_map<std::string, size_t> grades_;
  std::unordered_map<std::string, size_t> accounts_;
  std::unordered_map<std::string, std::string> cm_by_firm_;  // firm -> member
  std::vector<size_t> root_of_instrument_;  // instrument id - 1 -> futures[i]
};

template <typename M>
Status Builder::OrderBounds(const FieldPath& path, const M& m,
                            exchange::InstrumentConfig* ic) const {
  const uint32_t min_q =
      m.has_min_quantity() ? m.min_quantity() : kDefaultMinQuantity;
  const uint32_t max_q =
      m.has_max_quantity() ? m.max_quantity() : kDefaultMaxQuantity;
  if (min_q == 0) return Error(path.Field("min_quantity"), "must be >= 1");
  if (max_q < min_q) {
    return Error(
        path.Field(m.has_max_quantity() ? "max_quantity" : "min_quantity"),
        "need min_quantity " + std::to_string(min_q) + " <= max_quantity " +
            std::to_string(max_q));
  }
  ic->min_quantity = exchange::Quantity{min_q};
  ic->max_quantity = exchange::Quantity{max_q};
  const uint32_t band =
      m.has_price_band_bps() ? m.price_band_bps() : kDefaultBandBps;
  if (band == 0 || band >= 10'000) {
    return Error(path.Field("price_band_bps"), "must be in 1-9999");
  }
  const uint32_t market_band =
      m.has_market_band_bps() ? m.market_band_bps() : kDefaultMarketBandBps;
  if (market_band == 0 || market_band >= 10'000) {
    return Error(path.Field("market_band_bps"), "must be in 1-9999");
  }
  ic->band_bps = static_cast<int32_t>(band);
  ic->market_band_bps = static_cast<int32_t>(market_band);
  return Status::Ok();
}

}  // namespace cfx::gateway::config_internal
