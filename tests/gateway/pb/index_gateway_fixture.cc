#include "tests/gateway/pb/index_gateway_fixture.h"

#include <chrono>
#include <future>
#include <utility>

#include "gateway/config/index_config.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::index_test {

namespace {

constexpr std::size_t kRingCapacity = 1024;
constexpr std::chrono::milliseconds kPollWait{2};
// 2026-12-01T00:00:00Z.
constexpr int64_t kClockStart = int64_t{1'796'083'200} * kSecond;

}  // namespace

IndexGateway::IndexGateway()
    : config_(server_test::DemoConfig()),
      ring_(kRingCapacity),
      arena_(16, 1024),
      clock_(exchange::Timestamp{kClockStart}) {
  instruments_ = std::make_unique<InstrumentTable>(config_);
  market_data_ = std::make_unique<MarketDataStore>(config_);
  index_ = index::IndexService::InMemory(BuildIndexConfig(config_));
  pb::GatewayDeps deps;
  deps.config = &config_;
  deps.instruments = instruments_.get();
  deps.ring = &ring_;
  deps.market_data = market_data_.get();
  deps.clock = &clock_;
  deps.payload_arena = &arena_;
  deps.index = index_.get();
  gateway_ = std::make_unique<pb::Gateway>(io_, deps);
  index_->set_on_print(
      [this](const index::Print& p) { gateway_->OnIndexPrint(p); });
  if (!gateway_->Listen("127.0.0.1", 0).ok()) return;
  thread_ = std::thread([this] {
    exchange::Command c;
    while (!stop_.load(std::memory_order_acquire)) {
      io_.run_one_for(kPollWait);
      gateway_->Poll();
      // No engine: the commands the gateway submits go nowhere.
      while (ring_.TryPop(&c)) {
      }
    }
  });
  ok_ = true;
}

IndexGateway::~IndexGateway() {
  if (thread_.joinable()) {
    RunOnGatewayThread([this] { gateway_->Stop(); });
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  gateway_.reset();
}

bool IndexGateway::RunOnGatewayThread(const std::function<void()>& fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> f = done->get_future();
  asio::post(io_, [fn, done] {
    fn();
    done->set_value();
  });
  return f.wait_for(server_test::kWait) == std::future_status::ready;
}

bool IndexGateway::Feed(exchange::Event e) {
  e.seq = exchange::Seq{next_seq_++};
  return RunOnGatewayThread([this, e] { index_->OnEvent(e); });
}

bool IndexGateway::Trade(uint64_t trade_id, int64_t ts_ns, uint32_t grade,
                         exchange::AccountId seller, exchange::AccountId buyer,
                         int64_t price_units, int64_t lots,
                         uint32_t seller_milli_tokens) {
  exchange::Event e;
  e.type = exchange::EventType::kTrade;
  e.ts = exchange::Timestamp{ts_ns};
  e.trade_id = exchange::TradeId{trade_id};
  e.instrument = config_.spot.first_slot.at(grade);
  // The buyer is the aggressor; the seller's order rested.
  e.side = exchange::Side::kBuy;
  e.account = buyer;
  e.counter_account = seller;
  e.price = exchange::Price{price_units};
  e.quantity = exchange::Quantity{lots};
  e.count = seller_milli_tokens;
  return Feed(e);
}

bool IndexGateway::Bust(uint64_t trade_id, int64_t ts_ns) {
  exchange::Event e;
  e.type = exchange::EventType::kTradeBusted;
  e.ts = exchange::Timestamp{ts_ns};
  e.trade_id = exchange::TradeId{trade_id};
  return Feed(e);
}

bool IndexGateway::Fix(int64_t day) {
  exchange::Event e;
  e.type = exchange::EventType::kIndexFixing;
  e.ts = exchange::Timestamp{FixingNs(day)};
  e.count = static_cast<uint32_t>(day);
  return Feed(e);
}

int64_t IndexGateway::FixingNs(int64_t day) const {
  return day * kDayNs + config_.index.fixing_utc_seconds * kSecond;
}

bool TradeADay(IndexGateway& gw, int64_t day, uint32_t grade,
               int64_t price_units, uint64_t first_id) {
  static constexpr exchange::AccountId kSellers[] = {kProvA, kProvB, kProvC};
  static constexpr exchange::AccountId kBuyers[] = {kFirmA, kFirmB, kFirmC};
  // Day `day` starts at the previous day's fixing.
  const int64_t start = gw.FixingNs(day - 1);
  for (int i = 0; i < 12; ++i) {
    const int64_t ts = start + (i / 2) * 4 * kHour + (i % 2 + 1) * kHour;
    // Prices spread by up to ±$0.02 on the cent grid.
    const int64_t price = price_units + (i % 5 - 2) * 100;
    if (!gw.Trade(first_id + static_cast<uint64_t>(i), ts, grade,
                  kSellers[i % 3], kBuyers[(i / 3) % 3], price, 2)) {
      return false;
    }
  }
  return true;
}

bool TwiceRestatedDay(IndexGateway& gw, int64_t day, uint64_t first_id) {
  constexpr int64_t kBase = 60'000;
  const int64_t fixing = gw.FixingNs(day);
  return TradeADay(gw, day, kStd, kBase, first_id) &&
         gw.Trade(first_id + 12, fixing - kHour / 2, kStd, kProvA, kFirmB,
                  kBase + 6'000, 20) &&
         gw.Trade(first_id + 13, fixing - kHour / 4, kStd, kProvB, kFirmC,
                  kBase + 12'000, 20) &&
         gw.Fix(day) && gw.Bust(first_id + 12, fixing + kHour / 2) &&
         gw.Bust(first_id + 13, fixing + kHour);
}

}  // namespace cfx::gateway::index_test
