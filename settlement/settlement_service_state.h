#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "exchange/core/event.h"
#include "exchange/core/status.h"
#include "settlement/ledger.h"
#include "settlement/service_state.h"
#include "settlement/settlement_service.h"

namespace cfx::settlement {

// The settlement service's state behind its interface (SettlementService,
// settlement_service.h): the live state it derives from the event stream
// (service_state.h) with the config, the ledger, the settled dates'
// reports and results. Taking in events and storing the state is in
// settlement_service.cc; running a business day in day_run.cc.
//
// Thread: the service's one thread.
struct SettlementService::State : internal::LiveState {
  SettlementConfig config;
  std::unique_ptr<Ledger> ledger;
  bool persist = false;  // Open(): the live state is stored with each run
  FixingLookup fixings;
  std::function<void(const RunResult&)> on_run;
  Status store_status;  // the last failed store write, or OK
  uint64_t events_applied = 0;
  uint64_t resume_after = 0;  // the stored state's last_seq, from Load()

  std::map<int64_t, RunReport> reports;
  std::map<int64_t, RunResult> results;

  std::size_t accounts() const { return config.ledger.account_member.size(); }
  uint32_t MemberOf(uint32_t account) const {
    return account < accounts() ? config.ledger.account_member[account] : 0;
  }
  const ContractInfo* Contract(uint32_t id) const {
    return id < config.instruments.size() ? &config.instruments[id] : nullptr;
  }

  // ---- The event stream and the store (settlement_service.cc) ----

  // Sizes the live state for the config, with the opening collateral as
  // the first run's transfers.
  void Init();
  // Books each account's opening collateral in the ledger (once: the
  // ledger refuses nothing it has already).
  Status BookOpeningCollateral();
  void OnTrade(const exchange::Event& e);
  void OnBookLevel(const exchange::Event& e);
  void OnTransfer(const exchange::Event& e);
  // What the run of `date` reads of the market now, at its settlement
  // instant.
  internal::DayClose Close(int64_t date) const;
  // Stores the live state (and the report of `day`, when given) with
  // last_seq, so that a restart resumes after it. A failed write is kept in
  // store_status: the journal still has the events, a restart feeds more.
  void Persist(const RunReport* day);
  // Loads the stored live state and the settled dates' reports (none
  // stored: the whole journal is fed again, as before they were kept), over
  // what Init() set up for the config (internal::Adopt).
  Status Load();

  // ---- Running a business day (day_run.cc) ----

  // Runs `date` from `close`; a refusal stops settlement at that date,
  // keeping the close for a re-run.
  void Settle(int64_t date, internal::DayClose close);
  // The operator's re-run of the refused `date` (a sequenced
  // kSettlementRerun): runs it and every date waiting behind it, in order,
  // until one is refused again. Anything else changes nothing.
  void Rerun(int64_t date);
  // One run: prices, variation margin and final settlement, spot cash,
  // margin; booked in the ledger, then the state advances. A refusal
  // (kFailedPrecondition naming the invariant) changes nothing.
  Status Run(int64_t date, const internal::DayClose& close);

  // The steps of Run, in order.
  //
  // Each contract's settlement price of `date`, per root in maturity
  // order: the DSP from `close`, the FSP on its last trading day.
  std::vector<ContractSettlement> PriceContracts(
      int64_t date, const internal::DayClose& close) const;
  // The FSP of `c` for the month of its last trading day.
  Fsp FinalPrice(const ContractInfo& c) const;
  // Every fill of `today` counted once: each trade id of a contract
  // appears as one buy and one sell of equal size, of a contract priced in
  // `contracts`.
  static Status CheckFillsCountedOnce(
      int64_t date, const std::vector<internal::PendingFill>& today,
      const std::vector<ContractSettlement>& contracts,
      std::size_t instruments);
  // The variation margin (or final settlement) of every position and fill
  // of `today` (grouped by instrument, account): the accounts' lines, the
  // positions after the run, the movements; each contract's open
  // interest.
  Status SettlePositions(int64_t date,
                         const std::vector<internal::PendingFill>& today,
                         RunReport* report,
                         std::vector<AccountSettlement>* lines,
                         std::vector<std::vector<int64_t>>* new_positions,
                         std::vector<Movement>* movements) const;
  // The spot trades whose cash is due by `date`: their movements and lines;
  // returns their ids.
  std::vector<uint64_t> PaySpotCash(int64_t date,
                                    std::vector<AccountSettlement>* lines,
                                    std::vector<Movement>* movements) const;
  // Each line's initial margin at the run's prices, its collateral after
  // the run (`net`: the run's movements by account) and its margin call.
  void MarginLines(const internal::DayClose& close,
                   const std::vector<ContractSettlement>& contracts,
                   const std::vector<std::vector<int64_t>>& new_positions,
                   const std::vector<int64_t>& net,
                   std::vector<AccountSettlement>* lines) const;
  // The report's fills (today's futures fills, the spot trades of the
  // day not listed before) and cash lines (the transfers since the last
  // run, then the run's movements).
  void ListTradesAndCash(int64_t date,
                         const std::vector<internal::PendingFill>& today,
                         const std::vector<Movement>& movements,
                         std::size_t transfer_lines, RunReport* report) const;
};

}  // namespace cfx::settlement
