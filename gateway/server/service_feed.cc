#include "gateway/server/service_feed.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "exchange/core/money.h"
#include "gateway/config/index_config.h"
#include "gateway/config/settlement_config.h"
#include "settlement/engine_commands.h"

namespace cfx::gateway {

Result<std::unique_ptr<ServiceFeed>> ServiceFeed::Open(
    const ServerConfig& config, const std::string& data_dir, LogFn log) {
  auto index_service =
      index::IndexService::Open(BuildIndexConfig(config), data_dir + "/index");
  if (!index_service.has_value()) return index_service.error();
  auto settlement_service = settlement::SettlementService::Open(
      BuildSettlementConfig(config), data_dir + "/settlement");
  if (!settlement_service.has_value()) return settlement_service.error();
  return std::unique_ptr<ServiceFeed>(
      new ServiceFeed(std::move(index_service).value(),
                      std::move(settlement_service).value(), std::move(log)));
}

ServiceFeed::ServiceFeed(
    std::unique_ptr<index::IndexService> index,
    std::unique_ptr<settlement::SettlementService> settlement, LogFn log)
    : index_(std::move(index)),
      settlement_(std::move(settlement)),
      log_(std::move(log)),
      settlement_from_(settlement_->last_applied_seq()) {
  settlement_->set_fixings(index_->Fixings());
}

void ServiceFeed::GoLive(
    std::function<void(const index::Print&)> publish_print) {
  char buf[160];
  std::snprintf(
      buf, sizeof buf, "index: %zu grades, applied through seq %llu",
      index_->config().grades.size(),
      static_cast<unsigned long long>(index_->last_applied_seq().value));
  Log(buf);
  std::snprintf(buf, sizeof buf,
                "settlement: stored state through seq %llu, %llu events "
                "applied after it",
                static_cast<unsigned long long>(settlement_from_),
                static_cast<unsigned long long>(settlement_->events_applied()));
  Log(buf);
  // The spot references follow the latest prints; queued again at every
  // start, for a print whose reference command a stop overtook.
  for (uint32_t g = 0; g < index_->config().grades.size(); ++g) {
    if (const index::Print* latest = index_->Latest(g)) {
      QueueSpotReference(*latest);
    }
  }
  index_->set_on_print(
      [this, publish = std::move(publish_print)](const index::Print& print) {
        publish(print);
        QueueSpotReference(print);
      });
  // Settlement: what the journal's replay settled but the engine has not
  // applied yet goes to the engine first, then every new run as it comes.
  CheckSettlement();
  for (const settlement::RunResult& r : settlement_->UnappliedResults()) {
    QueueSettlement(r, /*prices=*/false);
  }
  if (const settlement::RunResult* latest = settlement_->LatestResult()) {
    settlement::RunResult prices = *latest;
    prices.bookings.clear();
    QueueSettlement(prices, /*prices=*/true);
  }
  settlement_->set_on_run([this](const settlement::RunResult& r) {
    QueueSettlement(r, /*prices=*/true);
  });
}

void ServiceFeed::AfterBatch(bool check_settlement) {
  const Status st = index_->Flush();
  if (st.ok()) {
    index_flush_failed_ = false;
  } else if (!index_flush_failed_) {
    index_flush_failed_ = true;
    Log("warning: index store write failed: " + st.ToString());
  }
  if (check_settlement) CheckSettlement();
}

int ServiceFeed::SubmitEngineCommands(
    exchange::SpscRing<exchange::Command>& ring) {
  int n = 0;
  while (!engine_commands_.empty() && ring.TryPush(engine_commands_.front())) {
    engine_commands_.pop_front();
    ++n;
  }
  return n;
}

// The engine learns a run's outcome through sequenced commands: each
// contract's new settlement price (the reference of its bands and its
// margin), the expiry of finally settled contracts and each account's net
// booking, dated, so that the engine applies a date once.
void ServiceFeed::QueueSettlement(const settlement::RunResult& r, bool prices) {
  for (const exchange::Command& cmd : settlement::EngineCommands(r, prices)) {
    engine_commands_.push_back(cmd);
  }
}

// After each fixing (or restatement) the grade's spot node-days take the
// print's value as the reference of their bands (DESIGN.md §2): every slot
// of the grade, listed or not, so that a slot listed later starts from it.
// Sequenced, so that a replay of the journal reproduces it.
void ServiceFeed::QueueSpotReference(const index::Print& print) {
  if (!print.has_value || print.value_micros <= 0) return;
  const std::vector<uint32_t>& grade_of = index_->config().instrument_grade;
  for (uint32_t id = 1; id < grade_of.size(); ++id) {
    if (grade_of[id] != print.grade + 1) continue;
    exchange::Command cmd;
    cmd.type = exchange::CommandType::kSetReferencePrice;
    cmd.instrument = exchange::InstrumentId{id};
    cmd.price = exchange::PriceFromMicros(print.value_micros);
    engine_commands_.push_back(cmd);
  }
}

// A refused run stops settlement; it is logged once, naming the broken
// invariant, until an admin's re-run resumes settlement. A failed write of
// the settlement state is logged once too (a restart then applies more of
// the journal).
void ServiceFeed::CheckSettlement() {
  if (!settlement_store_failed_ && !settlement_->store_status().ok()) {
    settlement_store_failed_ = true;
    Log("warning: settlement state store write failed: " +
        settlement_->store_status().ToString());
  }
  if (settlement_->status().ok()) {
    if (settlement_failed_) Log("settlement resumed");
    settlement_failed_ = false;
    return;
  }
  if (settlement_failed_) return;
  settlement_failed_ = true;
  Log("error: settlement stopped: " + settlement_->status().ToString());
}

}  // namespace cfx::gateway
