#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"
#include "index/fixing_source.h"
#include "index/methodology.h"

namespace cfx::index {

// What the index service needs to know of the market, by number: the
// gateway builds it from the server config (gateway/config/index_config.h).
struct IndexConfig {
  MethodologyConfig methodology;
  std::vector<std::string> grades;  // grade index -> "B200-STD"
  // GPU-hours per lot of each grade (gpus_per_node x 24); overrides
  // methodology.gpu_hours_per_lot when present.
  std::vector<int64_t> gpu_hours_per_lot;
  // Level 3 reference grade per grade index (-1 = none). Default with two
  // grades: each other.
  std::vector<int32_t> reference_grade;
  // Instrument id -> grade index + 1 for spot instruments (0 = not spot).
  std::vector<uint32_t> instrument_grade;
  // Account id -> participant (firm) id and affiliation group id; a firm
  // without a group has a group of its own. 0 = unknown account.
  std::vector<uint32_t> account_firm;
  std::vector<uint32_t> account_group;
  // Firm id -> name (for explain); index 0 unused.
  std::vector<std::string> firm_names;
  // Days (since 1970-01-01) whose fixing is never restated: the last
  // trading day of each futures month, whose fixing enters a final
  // settlement price.
  std::vector<int64_t> never_restated_days;
};

// The CFX index service (DESIGN.md §4): consumes the sequenced engine
// events, keeps the completed spot trades and the published prints, fixes
// every grade when the sequenced kIndexFixing event arrives and restates
// on busts inside the restatement window.
//
// State and last_applied_seq() are kept in RocksDB (directory `dir`) and
// written in one WriteBatch per Flush(), so the store always holds the
// state after some whole prefix of the event stream. A restart resumes
// there: the caller feeds the journal's events again (exchange::
// ReplayEvents); events with seq < last_applied_seq() are skipped and
// applying an event twice changes nothing (trades are keyed by id, a bust
// applies once, a day is fixed once), so feeding the whole journal is safe.
//
// Thread: one thread calls everything: in cfx-exchanged the owning thread
// during the start-up replay, then the service thread "cfx-services"
// (gateway/server/service_feed.h), which applies the events holding the
// feed's mutex; the gateways read through const pointers only holding it
// (gateway/session/service_reads.h).
class IndexService {
 public:
  // Opens (creating when absent, unless read_only) the store in `dir` and
  // loads it. kDataLoss names the key of a record that does not decode;
  // kInvalidArgument if `dir` holds a store of another format version.
  // A read-only service (operator tools) may be opened while the server
  // runs; its Flush() fails.
  static Result<std::unique_ptr<IndexService>> Open(const IndexConfig& config,
                                                    const std::string& dir,
                                                    bool read_only = false);
  // An in-memory service with no store (recompute, tests, benchmarks).
  static std::unique_ptr<IndexService> InMemory(const IndexConfig& config);
  ~IndexService();
  IndexService(const IndexService&) = delete;
  IndexService& operator=(const IndexService&) = delete;

  // Applies one durable event in seq order. Relevant: kTrade on spot
  // instruments (its price in exchange Price units, 1/10,000 USD, becomes
  // IndexTrade::price; its count is the seller's attested
  // milli-tokens), kTradeBusted, kIndexFixing (count = the day); others
  // only advance the seq.
  void OnEvent(const exchange::Event& e);
  // The event types OnEvent() applies (trades, busts, fixings); of any
  // other it only notes the seq. The service feed hands over only these.
  static bool Uses(exchange::EventType type) {
    return type == exchange::EventType::kTrade ||
           type == exchange::EventType::kTradeBusted ||
           type == exchange::EventType::kIndexFixing;
  }
  // Whether OnEvent() of an event of this type may publish a print (a
  // fixing, or a bust's restatement): the only events after which the
  // index has something to tell anyone.
  static bool MayPublish(exchange::EventType type) {
    return type == exchange::EventType::kIndexFixing ||
           type == exchange::EventType::kTradeBusted;
  }
  // Writes what changed since the last Flush() and last_applied_seq() in
  // one WriteBatch. No-op when nothing relevant changed.
  Status Flush();

  exchange::Seq last_applied_seq() const;
  const IndexConfig& config() const;

  // Called for every new print and restatement, after it is stored in
  // memory (before Flush()).
  void set_on_print(std::function<void(const Print&)> fn);

  // The latest revision of the newest print of `grade`; nullptr if none.
  const Print* Latest(uint32_t grade) const;
  // The latest revision of the print of (grade, day); nullptr if none.
  const Print* Find(uint32_t grade, int64_t day) const;
  // The fixings final settlement reads: Find() as a FixingLookup. Reads
  // this service, which must outlive the lookup, on the caller's thread.
  FixingLookup Fixings() const;
  // Every revision of (grade, day), oldest first.
  std::vector<Print> Revisions(uint32_t grade, int64_t day) const;
  // Which revisions of each day a history holds.
  enum class HistoryRevisions {
    kLatest,  // the latest revision of each day (what the day reads now)
    kAll,     // the fixing (revision 0) and each restatement, oldest first
  };
  // The prints of the days in [from_day, to_day], oldest day first; days
  // without a print are absent. Empty when from_day > to_day.
  std::vector<Print> History(
      uint32_t grade, int64_t from_day, int64_t to_day,
      HistoryRevisions revisions = HistoryRevisions::kLatest) const;
  // The most prints one request for every revision may return (HTTP,
  // protobuf): a day's restatements are bounded only by its busts, so the
  // bound on days alone does not bound such a request.
  static constexpr std::size_t kMaxRevisionsPerRequest = 2'000;
  // How many prints History(grade, from_day, to_day, kAll) holds, without
  // copying them: what a request for every revision is checked against.
  std::size_t RevisionCount(uint32_t grade, int64_t from_day,
                            int64_t to_day) const;
  // Recomputes the latest revision of (grade, day) with its explanation.
  // kNotFound when there is no such print.
  Result<std::pair<Print, Explanation>> Explain(uint32_t grade,
                                                int64_t day) const;
  // -1 if unknown.
  int32_t FindGrade(std::string_view name) const;

  struct State;

 private:
  IndexService(const IndexConfig& config, std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace cfx::index
