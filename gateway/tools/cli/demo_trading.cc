#include "gateway/fix/fix_tags.h"
#include "gateway/tools/cli/demo_run.h"

namespace cfx::gateway::cli::internal {

namespace tag = fix::tag;
namespace msg_type = fix::msg_type;
namespace exec_type = fix::exec_type;

// Sends `o` and waits for its acknowledgement (NEW), or with `terminal`
// for its end (filled, cancelled, expired); a REJECTED report is refused.
Result<w::ExecutionReport> Demo::Order(Session& s, const w::NewOrder& o,
                                       bool terminal) {
  w::Envelope e;
  *e.mutable_new_order() = o;
  const uint64_t id = o.client_order_id();
  const std::string what = "order " + o.symbol();
  Result<w::Envelope> r = s.Ask(&e, what, [id, terminal](const w::Envelope& m) {
    if (!m.has_execution_report()) return false;
    const w::ExecutionReport& x = m.execution_report();
    if (x.client_order_id() != id) return false;
    if (x.exec_type() == w::EXEC_TYPE_REJECTED) return true;
    if (!terminal) return x.exec_type() == w::EXEC_TYPE_NEW;
    return x.order_status() == w::ORDER_STATUS_FILLED ||
           x.order_status() == w::ORDER_STATUS_CANCELED ||
           x.order_status() == w::ORDER_STATUS_EXPIRED;
  });
  if (!r.has_value()) return r.error();
  const w::ExecutionReport& x = r.value().execution_report();
  if (x.exec_type() == w::EXEC_TYPE_REJECTED) {
    return Refused(s.user() + ": " + what + " rejected: " +
                   ReasonText(EnumName(x.reject_reason()), x.text()));
  }
  return x;
}

// Provider `seller` rests a DAY sell of next-day node-days; trader `buyer`
// takes it with an IOC buy over protobuf.
Status Demo::SpotTrade(std::size_t seller, std::size_t buyer, int64_t day,
                       int64_t price, int64_t lots) {
  w::NewOrder sell;
  sell.set_client_order_id(NextId());
  sell.set_symbol(SpotSymbol(kGrade, day + 1));
  sell.set_side(w::SIDE_SELL);
  sell.set_order_type(w::ORDER_TYPE_LIMIT);
  sell.set_time_in_force(w::TIME_IN_FORCE_DAY);
  sell.set_price(price);
  sell.set_quantity(lots);
  Result<w::ExecutionReport> ack = Order(*providers_[seller], sell, false);
  if (!ack.has_value()) return ack.error();
  w::NewOrder buy = sell;
  buy.set_client_order_id(NextId());
  buy.set_side(w::SIDE_BUY);
  buy.set_time_in_force(w::TIME_IN_FORCE_IOC);
  Result<w::ExecutionReport> done = Order(*traders_[buyer], buy, true);
  if (!done.has_value()) return done.error();
  if (done.value().cum_quantity() > 0) {
    ++spot_trades_;
    spot_lots_ += done.value().cum_quantity();
  }
  return Status::Ok();
}

// One futures trade of trader-a (FIX, TRADER_A) against trader-c
// (protobuf): the resting side enters a DAY limit, the other takes it IOC.
Status Demo::FuturesTrade(const Future& f, int64_t price, int64_t lots,
                          bool a_buys, bool a_rests) {
  const std::string fix_id = std::to_string(NextId());
  const FixFields fix_order = {
      {tag::kClOrdID, fix_id},
      {tag::kSymbol, f.symbol},
      {tag::kSide, std::string(1, a_buys ? fix::side::kBuy : fix::side::kSell)},
      {tag::kOrderQty, std::to_string(lots)},
      {tag::kOrdType, std::string(1, fix::ord_type::kLimit)},
      {tag::kPrice, client::FormatPrice(exchange::Price{price})},
      {tag::kTimeInForce,
       std::string(1, a_rests ? fix::time_in_force::kDay
                              : fix::time_in_force::kImmediateOrCancel)},
      {tag::kTransactTime, FixInitiator::UtcNow()}};
  int64_t filled = 0;
  // Reads trader-a's reports of `fix_id` until `done` says so; counts fills.
  auto await_fix = [&](const std::function<bool(const FixMessage&)>& done)
      -> Result<FixMessage> {
    Result<FixMessage> m = fix_->ReceiveUntil(
        [&](const FixMessage& x) {
          if (x.type == msg_type::kReject ||
              (x.type == msg_type::kBusinessMessageReject &&
               x.Get(tag::kBusinessRejectRefID) == fix_id)) {
            return true;
          }
          if (x.type != msg_type::kExecutionReport ||
              x.Get(tag::kClOrdID) != fix_id) {
            return false;
          }
          if (x.Is(tag::kExecType, exec_type::kTrade)) {
            const int64_t q =
                std::strtoll(x.Get(tag::kLastQty).c_str(), nullptr, 10);
            filled += q;
            fix_position_[f.symbol] += a_buys ? q : -q;
            ++fix_fills_;
          }
          return x.Is(tag::kExecType, exec_type::kRejected) || done(x);
        },
        o_.timeout);
    if (!m.has_value()) {
      return Status(m.error().code(), "trader-a: FIX order " + f.symbol + ": " +
                                          std::string(m.error().message()));
    }
    if (m.value().type != msg_type::kExecutionReport ||
        m.value().Is(tag::kExecType, exec_type::kRejected)) {
      return Refused("trader-a: FIX order " + f.symbol +
                     " rejected: " + m.value().Get(tag::kText));
    }
    return m;
  };
  auto terminal = [](const FixMessage& x) {
    return x.Is(tag::kOrdStatus, fix::ord_status::kFilled) ||
           x.Is(tag::kOrdStatus, fix::ord_status::kCanceled) ||
           x.Is(tag::kOrdStatus, fix::ord_status::kExpired);
  };
  w::NewOrder c;
  c.set_symbol(f.symbol);
  c.set_side(a_buys ? w::SIDE_SELL : w::SIDE_BUY);
  c.set_order_type(w::ORDER_TYPE_LIMIT);
  c.set_price(price);
  c.set_quantity(lots);
  if (a_rests) {
    CFX_RETURN_IF_ERROR(fix_->Send(msg_type::kNewOrderSingle, fix_order));
    Result<FixMessage> ack = await_fix([](const FixMessage& x) {
      return x.Is(tag::kExecType, exec_type::kNew);
    });
    if (!ack.has_value()) return ack.error();
    c.set_client_order_id(NextId());
    c.set_time_in_force(w::TIME_IN_FORCE_IOC);
    Result<w::ExecutionReport> done = Order(*traders_[2], c, true);
    if (!done.has_value()) return done.error();
    if (done.value().cum_quantity() > 0 &&
        filled < done.value().cum_quantity()) {
      // The resting order's fill report follows the taker's.
      Result<FixMessage> fill = await_fix([&](const FixMessage&) {
        return filled >= done.value().cum_quantity();
      });
      if (!fill.has_value()) return fill.error();
    }
  } else {
    c.set_client_order_id(NextId());
    c.set_time_in_force(w::TIME_IN_FORCE_DAY);
    Result<w::ExecutionReport> ack = Order(*traders_[2], c, false);
    if (!ack.has_value()) return ack.error();
    CFX_RETURN_IF_ERROR(fix_->Send(msg_type::kNewOrderSingle, fix_order));
    Result<FixMessage> done = await_fix(terminal);
    if (!done.has_value()) return done.error();
  }
  if (filled > 0) ++futures_trades_;
  return Status::Ok();
}

// One trade in each future still trading on `day`: trader-a leans long
// the front month and short the next, so the positions form a spread.
Status Demo::FuturesRound(int64_t day) {
  CFX_RETURN_IF_ERROR(FixSessionFor(day));
  for (std::size_t i = 0; i < futures_.size(); ++i) {
    const Future& f = futures_[i];
    if (day > f.last_trading_day) continue;
    const bool lean_long = i == 0;
    const bool a_buys = Draw(4) == 0 ? !lean_long : lean_long;
    const int64_t lots = 1 + Draw(kMaxFuturesLots);
    const int64_t price = level_ + f.premium + (Draw(3) - 1) * kTick;
    CFX_RETURN_IF_ERROR(FuturesTrade(f, price, lots, a_buys, Draw(2) == 0));
  }
  return Status::Ok();
}

// One business day: spot trades in each 4-hour partition still ahead,
// futures in two partitions and in the settlement window, then the clock
// passes 21:00 and the day fixes and settles.
Status Demo::RunDay(std::size_t k, int64_t day) {
  if (now_ - attested_at_ >= kReattestAfter) CFX_RETURN_IF_ERROR(Attest());
  // The day's level drifts by -2..+4 cents.
  if (k > 0) level_ += (Draw(7) - 2) * kTick;
  const int64_t open = (day - 1) * kDay + kFixing;
  for (int p = 0; p < kPartitions; ++p) {
    const int64_t start = open + p * kPartition;
    int64_t t = start + kIntoPartition;
    if (t <= now_) t = now_ + kMinute;
    if (t >= start + kPartition - kMinute) continue;  // already passed
    CFX_RETURN_IF_ERROR(SetClock(t));
    // Three trades: each provider sells once, to a buyer that rotates with
    // the partition, so the day has 3 sellers and 3 buyers.
    for (std::size_t s = 0; s < kProviders.size(); ++s) {
      const std::size_t b = (s + static_cast<std::size_t>(p)) % kTraders.size();
      const int64_t price = level_ + (Draw(5) - 2) * kTick;
      const int64_t lots = 2 + Draw(kMaxSpotLots - 1);
      CFX_RETURN_IF_ERROR(SpotTrade(s, b, DayOf(now_), price, lots));
    }
    if (p == kFuturesPartitions[0] || p == kFuturesPartitions[1]) {
      CFX_RETURN_IF_ERROR(FuturesRound(day));
    }
  }
  for (const int64_t at : kWindowTrades) {
    CFX_RETURN_IF_ERROR(SetClock(day * kDay + at));
    CFX_RETURN_IF_ERROR(FuturesRound(day));
  }
  CFX_RETURN_IF_ERROR(SetClock(day * kDay + kFixing + kSecond));
  return AwaitFixing(day);
}
}  // namespace cfx::gateway::cli::internal
