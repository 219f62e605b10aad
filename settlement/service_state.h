#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exchange/core/status.h"
#include "exchange/core/types.h"
#include "settlement/settlement_service.h"

namespace cfx::settlement::internal {

__extension__ using Int128 = __int128;

// A futures fill of one side, not yet settled.
struct PendingFill {
  int64_t day = 0;  // business day it belongs to
  uint32_t instrument = 0;
  uint32_t account = 0;
  int64_t lots = 0;  // signed
  exchange::Price price;
  uint64_t trade_id = 0;
  int64_t ts = 0;  // match time
};

struct SpotTrade {
  uint32_t instrument = 0;
  uint32_t buyer = 0;
  uint32_t seller = 0;
  exchange::Price price;
  int64_t lots = 0;
  int64_t delivery_day = 0;
  int64_t match_time = 0;
  int64_t day = 0;  // the business day it belongs to (as a fill)
  bool busted = false;
  bool paid = false;
  bool reported = false;  // listed among the fills of a run
};

// A futures book's aggregate levels and the day's trading.
struct FutureState {
  std::map<exchange::Price, int64_t> bids;  // price -> lots
  std::map<exchange::Price, int64_t> asks;
  int64_t trade_day = 0;  // the business day the fields below describe
  Int128 window_notional = 0;
  int64_t window_lots = 0;
  exchange::Price last_trade;
  exchange::Price settle;  // last settlement price; 0 = none
  bool closed = false;     // finally settled
};

// What a run of one business day reads of the market at its settlement
// instant, taken when its fixing event arrives: so that a run refused then
// and re-run later (SettlementService, "operator recovery") computes what
// it would have computed at that instant.
struct DayClose {
  struct Book {
    uint32_t instrument = 0;
    Int128 window_notional = 0;  // the day's Tier 1 window, if it traded
    int64_t window_lots = 0;
    exchange::Price last_trade;  // 0 = no trade that day
    exchange::Price best_bid;    // 0 = side empty
    exchange::Price best_ask;
  };
  std::vector<Book> books;  // the futures, by instrument id ascending
  // Each account's deposits and withdrawals so far (by account id), and
  // how many transfers were booked in all: the ones after the instant count
  // neither in the run's collateral nor among its cash lines.
  std::vector<exchange::Amount> transferred;
  uint64_t transfer_count = 0;
};

// Everything the settlement service derives from the event stream, up to
// and including the event of seq `last_seq`. Stored with every run (and
// with a refusal), so a restart loads it and feeds only the later events.
struct LiveState {
  uint64_t last_seq = 0;
  std::vector<FutureState> futures;        // by instrument id
  std::vector<int64_t> spot_delivery_day;  // by instrument id
  std::vector<PendingFill> pending;
  // positions[instrument][account] as of the last run (futures only; empty
  // for other instruments).
  std::vector<std::vector<int64_t>> positions;
  // Each account's cash as this stream has seen it: opening collateral,
  // transfers and runs (the ledger balance once the stream is complete).
  std::vector<exchange::Amount> cash;
  // Each account's deposits and withdrawals, summed.
  std::vector<exchange::Amount> transferred;
  // Deposits and withdrawals booked since the last run (the first run: the
  // opening collateral too), for the next run's report; transfer_base
  // counts the ones before them (reported by earlier runs).
  std::vector<CashLine> transfers;
  uint64_t transfer_base = 0;
  std::unordered_map<uint64_t, SpotTrade> spot_trades;
  // Dates whose bookings reached the engine (kCollateralChanged events).
  std::set<int64_t> applied_dates;
  // OK, or why settlement stopped; refused_date = the business date whose
  // run was refused (0 when it stopped for another reason, or runs).
  Status status;
  int64_t refused_date = 0;
  // The runs waiting for an operator's re-run: the refused date and every
  // business day whose settlement instant came since, with their closes.
  std::map<int64_t, DayClose> waiting;
};

// Store records (kept in the ledger's database, Ledger::PutRecords): the
// live state, and one record per settled date with its report and result.
std::string EncodeLive(const LiveState& s);
// kDataLoss naming what does not decode.
Status DecodeLive(std::string_view in, LiveState* s);
// Takes `stored` (decoded from the store) into `current`, which Init() has
// sized for today's config: the config may have grown since (accounts,
// instruments appended), and what is beyond the stored sizes keeps its
// initial values. kInvalidArgument when the config lost some (a stored
// vector is longer than the config's).
Status Adopt(LiveState stored, LiveState* current);
std::string EncodeDay(const RunReport& report, const RunResult& result);
Status DecodeDay(std::string_view in, RunReport* report, RunResult* result);

}  // namespace cfx::settlement::internal
