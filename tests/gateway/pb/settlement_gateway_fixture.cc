#include "tests/gateway/pb/settlement_gateway_fixture.h"

#include <chrono>
#include <future>
#include <utility>

#include "gateway/config/settlement_config.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/engine_fixture.h"

namespace cfx::gateway::settlement_test {

namespace {

constexpr std::size_t kRingCapacity = 1024;
constexpr std::chrono::milliseconds kPollWait{2};
// 2026-12-01T00:00:00Z.
constexpr int64_t kClockStart = kDec1 * kDayNs;

}  // namespace

SettlementGateway::SettlementGateway()
    : config_(server_test::DemoConfig()),
      ring_(kRingCapacity),
      arena_(16, 1024),
      clock_(exchange::Timestamp{kClockStart}) {
  instruments_ = std::make_unique<InstrumentTable>(config_);
  market_data_ = std::make_unique<MarketDataStore>(config_);
  auto engine = exchange::Engine::Create(config_.engine);
  if (!engine.has_value()) return;
  engine_ = std::move(engine).value();
  settlement_ =
      settlement::SettlementService::InMemory(BuildSettlementConfig(config_));
  pb::GatewayDeps deps;
  deps.config = &config_;
  deps.instruments = instruments_.get();
  deps.ring = &ring_;
  deps.market_data = market_data_.get();
  deps.clock = &clock_;
  deps.payload_arena = &arena_;
  deps.settlement = settlement_.get();
  gateway_ = std::make_unique<pb::Gateway>(io_, deps);
  if (!gateway_->Listen("127.0.0.1", 0).ok()) return;
  thread_ = std::thread([this] {
    while (!stop_.load(std::memory_order_acquire)) {
      io_.run_one_for(kPollWait);
      ApplyCommands();
      gateway_->Poll();
    }
  });
  ok_ = true;
}

SettlementGateway::~SettlementGateway() {
  if (thread_.joinable()) {
    RunOnGatewayThread([this] { gateway_->Stop(); });
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  gateway_.reset();
}

// The engine applies what the gateway submitted, in order, as the
// sequencer and a matching shard would; its events are "durable" at once.
void SettlementGateway::ApplyCommands() {
  exchange::testing::EventCollector events;
  exchange::Command c;
  while (ring_.TryPop(&c)) {
    c.seq = exchange::Seq{next_seq_++};
    c.ts = clock_.Now();
    engine_->Apply(c, events.sink());
    ++applied_;
    for (const exchange::Event& e : events.Take()) {
      instruments_->OnEvent(e);  // first, as the exchange server does
      gateway_->OnEvent(e);
      settlement_->OnEvent(e);
    }
  }
}

bool SettlementGateway::RunOnGatewayThread(const std::function<void()>& fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  asio::post(io_, [fn, done] {
    fn();
    done->set_value();
  });
  return f.wait_for(server_test::kWait) == std::future_status::ready;
}

int64_t SettlementGateway::Collateral(std::string_view account) {
  const AccountInfo* a = config_.FindAccount(account);
  if (a == nullptr) return -1;
  int64_t out = -1;
  if (!RunOnGatewayThread([&] { out = engine_->collateral(a->id).micros; })) {
    return -1;
  }
  return out;
}

uint64_t SettlementGateway::CommandsApplied() {
  uint64_t out = 0;
  RunOnGatewayThread([&] { out = applied_; });
  return out;
}

bool SettlementGateway::Feed(exchange::Event e) {
  return RunOnGatewayThread([this, e]() mutable {
    e.seq = exchange::Seq{next_seq_++};
    settlement_->OnEvent(e);
  });
}

bool SettlementGateway::Trade(std::string_view symbol, int64_t ts_ns,
                              int64_t price_units, int64_t lots,
                              std::string_view buyer, std::string_view seller) {
  const InstrumentInfo* i = config_.FindInstrument(symbol);
  const AccountInfo* b = config_.FindAccount(buyer);
  const AccountInfo* s = config_.FindAccount(seller);
  if (i == nullptr || b == nullptr || s == nullptr) return false;
  exchange::Event e;
  e.type = exchange::EventType::kTrade;
  e.ts = exchange::Timestamp{ts_ns};
  e.trade_id = exchange::TradeId{next_trade_id_++};
  e.instrument = i->id;
  e.side = exchange::Side::kBuy;
  e.account = b->id;
  e.counter_account = s->id;
  e.price = exchange::Price{price_units};
  e.quantity = exchange::Quantity{lots};
  return Feed(e);
}

bool SettlementGateway::Fix(int64_t day) {
  exchange::Event e;
  e.type = exchange::EventType::kIndexFixing;
  e.ts = exchange::Timestamp{SettleNs(day)};
  e.count = static_cast<uint32_t>(day);
  return Feed(e);
}

int64_t SettlementGateway::SettleNs(int64_t day) const {
  return day * kDayNs + config_.index.fixing_utc_seconds * kSecond;
}

}  // namespace cfx::gateway::settlement_test
