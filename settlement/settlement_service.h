#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/margin.h"
#include "exchange/core/status.h"
#include "index/fixing_source.h"
#include "settlement/ledger.h"
#include "settlement/rules.h"

namespace cfx::settlement {

// One instrument as clearing sees it (indexed by instrument id).
struct ContractInfo {
  bool future = false;
  bool spot = false;
  std::string symbol;
  // Futures.
  uint32_t root = 0;  // margin group: 1 + the root's index
  int32_t month = 0;  // maturity: year x 12 + month - 1
  int64_t gpu_hours = 730;
  exchange::Price tick{100};
  exchange::Price initial_reference;
  int64_t last_trading_day = 0;  // days since 1970-01-01
  uint32_t grade = 0;            // index grade of the underlying
  // Spot slots.
  int64_t gpu_hours_per_lot = 192;
};

// What the settlement service needs to know of the market, by number; the
// gateway builds it from the server config (gateway/config/
// settlement_config.h).
struct SettlementConfig {
  BusinessCalendar calendar;
  int64_t settle_seconds = 21 * 3600;  // the DSP instant, after 00:00 UTC
  int64_t window_seconds = 15 * 60;    // Tier 1 window before it
  exchange::MarginParams margin;
  std::vector<ContractInfo> instruments;  // by instrument id; [0] unused
  LedgerConfig ledger;  // account -> clearing member index (1-based)
  std::vector<std::string> account_names;  // by account id
  std::vector<std::string> member_names;   // by member index; [0] unused
  // Opening collateral by account id, micro-dollars: booked once as a
  // deposit dated 1970-01-01 (ref 0) when the ledger does not have it.
  std::vector<exchange::Amount> opening_collateral;
};

// The index print a final settlement reads, and where it reads it: the
// index's interface (index/fixing_source.h).
using FixingValue = index::Fixing;
using FixingLookup = index::FixingLookup;

// One contract's settlement price of a run.
struct ContractSettlement {
  uint32_t instrument = 0;
  exchange::Price price;  // the DSP, or the FSP on the last day
  DspTier tier = DspTier::kNone;
  bool final = false;         // last trading day: FSP, positions closed
  bool disrupted = false;     // FSP flagged DISRUPTED
  int64_t open_interest = 0;  // long lots after the day's fills
};

// One account's line of a run.
struct AccountSettlement {
  uint32_t account = 0;
  uint32_t member = 0;
  // Per contract with a position or a fill today: the position after the
  // run (0 for a contract closed by final settlement) and that contract's
  // VM (or final settlement), micro-dollars.
  struct Line {
    uint32_t instrument = 0;
    int64_t position = 0;
    exchange::Amount variation_margin;
    // Closed by final settlement today: `final_quantity` lots (signed) were
    // settled at the FSP and `position` is 0.
    bool closed = false;
    int64_t final_quantity = 0;
  };
  std::vector<Line> positions;
  int64_t fills = 0;                  // fills counted today
  exchange::Amount variation_margin;  // Σ of the lines
  exchange::Amount spot_cash;         // received (> 0) or paid (< 0)
  exchange::Amount initial_margin;    // after the run, at the new prices
  exchange::Amount collateral;        // ledger balance after the run
  // The margin call the run issues: initial_margin - collateral when the
  // collateral is below the initial margin, else 0 (margin_call.h).
  exchange::Amount margin_call;
};

// One fill of the business day: one side of a futures or spot trade.
struct TradeLine {
  uint64_t trade_id = 0;
  int64_t match_time = 0;  // ns since 1970-01-01 UTC
  uint32_t account = 0;
  uint32_t member = 0;
  uint32_t instrument = 0;
  int64_t lots = 0;  // signed: bought > 0, sold < 0
  exchange::Price price;
  bool busted = false;  // a spot trade busted before the run
};

// One cash movement of an account: a movement of the run, or a deposit or
// withdrawal booked since the previous run (the first run: since the
// ledger opened, the opening collateral included).
struct CashLine {
  Movement movement;
  uint32_t member = 0;
  BookKind counterparty = BookKind::kHouse;  // ChainEnd(movement.kind)
};

struct RunReport {
  int64_t date = 0;
  std::vector<ContractSettlement> contracts;
  std::vector<AccountSettlement> accounts;  // by account id
  uint64_t fills = 0;
  uint64_t spot_trades_paid = 0;
  uint64_t movements = 0;
  // The day's fills by (match time, trade id, account); the cash
  // movements: deposits and withdrawals in the order they were booked,
  // then the run's by (kind, account, ref). So each account's collateral
  // is the previous report's plus the sum of its lines here.
  std::vector<TradeLine> trades;
  std::vector<CashLine> cash;
};

// What the exchange must be told after a run: each account's net booking
// and each contract's new settlement price (engine margin and bands).
struct RunResult {
  int64_t date = 0;
  std::vector<std::pair<uint32_t, exchange::Amount>> bookings;  // account
  std::vector<ContractSettlement> contracts;
};

// Clearing and settlement (DESIGN.md §5, docs/settlement.md): consumes the
// durable engine events, keeps positions and the day's fills, the closing
// books of the futures, the spot trades and their busts, and at each
// business day's settlement instant (the sequenced kIndexFixing event, at
// the fixing time) runs the day: DSPs, variation margin, final settlement
// on last trading days, spot cash; books it in the ledger and checks the
// invariants. After each run, an account whose collateral is below its
// initial margin gets a margin call (AccountSettlement::margin_call).
//
// Store (Open): with every run the service stores what it derived from the
// event stream (positions, the day's fills, books, spot trades, reports)
// and the seq of the last event applied, in the ledger's database, so a
// restart loads it and applies only the events after last_applied_seq():
// feeding the whole journal is safe, earlier events are skipped. A run of
// a date the ledger already has (after a crash between the ledger's write
// and the state's) is recomputed and must match exactly.
//
// Recovery: a refused run stops settlement at its date (refused_date(),
// status() names the broken invariant); every business day whose
// settlement instant comes meanwhile waits with the market as it was at
// that instant (WaitingDates()). A sequenced kSettlementRerun of the
// refused date (the admin's `cfx settle rerun`) runs it again and then the
// waiting dates in order; a re-run of any other date changes nothing.
//
// Thread: one thread calls everything: in cfx-exchanged the owning thread
// during the start-up replay, then the service thread "cfx-services"
// (gateway/server/service_feed.h), which applies the events holding the
// feed's mutex; the gateways read through const pointers only holding it
// (gateway/session/service_reads.h).
class SettlementService {
 public:
  static Result<std::unique_ptr<SettlementService>> Open(
      const SettlementConfig& config, const std::string& dir);
  static std::unique_ptr<SettlementService> InMemory(
      const SettlementConfig& config);
  ~SettlementService();
  SettlementService(const SettlementService&) = delete;
  SettlementService& operator=(const SettlementService&) = delete;

  // The index prints final settlement reads. Without one, a last trading
  // day settles at its DSP and is flagged DISRUPTED.
  void set_fixings(FixingLookup lookup);
  // Called after each run that booked something new.
  void set_on_run(std::function<void(const RunResult&)> fn);

  // Applies one durable event, in seq order; events with seq <=
  // last_applied_seq() are skipped.
  void OnEvent(const exchange::Event& e);
  // The event types OnEvent() applies; of any other it only counts the
  // event and notes the seq. The service feed hands over only these.
  static bool Uses(exchange::EventType type) {
    switch (type) {
      case exchange::EventType::kTrade:
      case exchange::EventType::kBookLevel:
      case exchange::EventType::kInstrumentListed:
      case exchange::EventType::kTradeBusted:
      case exchange::EventType::kCollateralChanged:
      case exchange::EventType::kIndexFixing:
      case exchange::EventType::kSettlementRerun:
        return true;
      default:
        return false;
    }
  }
  // Whether OnEvent() of an event of this type may run a settlement day
  // (and so derive engine commands): the day's fixing, or an admin's
  // re-run.
  static bool MayRun(exchange::EventType type) {
    return type == exchange::EventType::kIndexFixing ||
           type == exchange::EventType::kSettlementRerun;
  }

  // OK, or the error that stopped settlement (a refused run names the
  // broken invariant); once stopped, no further run is attempted until
  // the refused date is re-run.
  const Status& status() const;
  // The business date whose run was refused; 0 when none is.
  int64_t refused_date() const;
  // The refused date and the dates waiting behind it, ascending.
  std::vector<int64_t> WaitingDates() const;
  // OK, or the last failed write of the stored state (not fatal: a restart
  // then applies more of the journal).
  const Status& store_status() const;
  // The seq of the last event applied (loaded from the store by Open).
  uint64_t last_applied_seq() const;
  // Events applied (not skipped) by this process.
  uint64_t events_applied() const;

  const SettlementConfig& config() const;
  const Ledger& ledger() const;
  // The report of a settled date (stored, replayed or run); nullptr if
  // none.
  const RunReport* Report(int64_t date) const;
  std::vector<int64_t> SettledDates() const;
  // The contract's last settlement price (0 = none yet).
  exchange::Price LastSettlementPrice(uint32_t instrument) const;
  // The position of `account` in `instrument` as of the last run.
  int64_t Position(uint32_t account, uint32_t instrument) const;
  // The results of the settled dates whose bookings the engine has not
  // applied yet (no kCollateralChanged event of that date seen), oldest
  // first: after a restart they are submitted again. The engine refuses a
  // date it has applied, so a duplicate is harmless.
  std::vector<RunResult> UnappliedResults() const;
  // The newest run's result (nullptr before the first run).
  const RunResult* LatestResult() const;

  struct State;

 private:
  explicit SettlementService(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace cfx::settlement
