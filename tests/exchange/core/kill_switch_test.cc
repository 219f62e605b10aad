// The kill switch of an account (docs/matching.md, "Kill switch"): a kill
// cancels every resting order of the account (KILL_SWITCH) and refuses its
// new orders and replaces (ACCOUNT_KILLED) until a reinstate; the flag is
// in the state hash only while on, and in snapshots (version 6; version 5
// still loads).

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/core/engine_config.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/random_commands.h"

namespace cfx::exchange {
namespace {

using testing::Cents;
using testing::CountResults;
using testing::EngineDriver;
using testing::EventCollector;
using testing::OfType;
using testing::RandomCommands;
using testing::SmallMarketConfig;
using D = EngineDriver;

constexpr InstrumentId kFut{1};
constexpr InstrumentId kSpot{2};
constexpr AccountId kA{1};
constexpr AccountId kB{2};

EngineConfig KillConfig() {
  EngineConfig c;
  c.limits.max_orders = 64;
  c.limits.max_accounts = 4;
  c.limits.max_instruments = 3;
  c.limits.max_client_order_ids = 64;
  InstrumentConfig fut;
  fut.id = kFut;
  fut.kind = InstrumentKind::kFuture;
  fut.reference_price = Cents(580);
  fut.max_quantity = Quantity{100};
  InstrumentConfig spot = fut;
  spot.id = kSpot;
  spot.kind = InstrumentKind::kSpot;
  spot.gpu_hours_per_lot = 192;
  c.instruments = {fut, spot};
  c.accounts = {{kA, StpMode::kCancelNewest}, {kB, StpMode::kCancelNewest}};
  return c;
}

class KillSwitchTest : public ::testing::Test {
 protected:
  KillSwitchTest() : d_(KillConfig()) {}

  OrderId Rest(AccountId a, InstrumentId i, Side side, Price p, int64_t lots) {
    const auto acc =
        OfType(d_.Apply(D::Limit(a, i, side, p, lots)), EventType::kOrderAccepted);
    EXPECT_EQ(acc.size(), 1u);
    return acc.empty() ? OrderId{} : acc[0].order_id;
  }

  static Event ResultOf(const std::vector<Event>& events) {
    for (const Event& e : events) {
      if (IsResult(e.type)) return e;
    }
    ADD_FAILURE() << "no result";
    return Event{};
  }

  EngineDriver d_;
};

TEST_F(KillSwitchTest, KillCancelsEveryRestingOrderOfTheAccountInOrderIdOrder) {
  const OrderId a1 = Rest(kA, kFut, Side::kBuy, Cents(570), 3);
  const OrderId b1 = Rest(kB, kFut, Side::kBuy, Cents(570), 2);
  const OrderId a2 = Rest(kA, kSpot, Side::kSell, Cents(600), 4);
  const OrderId a3 = Rest(kA, kFut, Side::kSell, Cents(590), 1);

  const auto ev = d_.Apply(D::KillSwitch(kA, true, 77));
  ASSERT_EQ(CountResults(ev), 1);
  const auto cancelled = OfType(ev, EventType::kOrderCancelled);
  ASSERT_EQ(cancelled.size(), 3u);
  EXPECT_EQ(cancelled[0].order_id, a1);
  EXPECT_EQ(cancelled[1].order_id, a2);
  EXPECT_EQ(cancelled[2].order_id, a3);
  for (const Event& e : cancelled) {
    EXPECT_EQ(e.cancel_reason(), CancelReason::kKillSwitch);
    EXPECT_EQ(e.account, kA);
    EXPECT_EQ(e.leaves, Quantity{0});
  }
  EXPECT_EQ(cancelled[1].quantity, Quantity{4});
  const Event done = ResultOf(ev);
  EXPECT_EQ(done.type, EventType::kKillSwitchSet);
  EXPECT_EQ(done.account, kA);
  EXPECT_TRUE(done.killed());
  EXPECT_EQ(done.count, 3u);
  EXPECT_EQ(done.client_order_id, ClientOrderId{77});
  EXPECT_TRUE(d_.engine().killed(kA));
  EXPECT_FALSE(d_.engine().killed(kB));
  // The other account's order stays; the book shows only it.
  EXPECT_EQ(d_.engine().resting_orders(), 1u);
  EXPECT_EQ(d_.engine().level_quantity(kFut, Side::kBuy, Cents(570)),
            Quantity{2});
  EXPECT_EQ(d_.engine().best_price(kFut, Side::kSell), Price{0});
  // The result comes after the cancels and the book levels after the result,
  // as for a mass cancel.
  EXPECT_EQ(ev[3].type, EventType::kKillSwitchSet);
  EXPECT_FALSE(OfType(ev, EventType::kBookLevel).empty());
  (void)b1;
}

TEST_F(KillSwitchTest, KilledAccountsNewOrdersAreRefusedUntilReinstated) {
  ASSERT_EQ(ResultOf(d_.Apply(D::KillSwitch(kA, true))).type,
            EventType::kKillSwitchSet);
  for (const Command& c :
       {D::Limit(kA, kFut, Side::kBuy, Cents(570), 1),
        D::Market(kA, kFut, Side::kSell, 1),
        D::Limit(kA, kSpot, Side::kSell, Cents(580), 1, TimeInForce::kDay)}) {
    const auto ev = d_.Apply(c);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].type, EventType::kRejected);
    EXPECT_EQ(ev[0].reject_code(), RejectCode::kAccountKilled);
  }
  // Another account trades as before.
  Rest(kB, kFut, Side::kBuy, Cents(570), 1);

  const Event back = ResultOf(d_.Apply(D::KillSwitch(kA, false, 5)));
  EXPECT_EQ(back.type, EventType::kKillSwitchSet);
  EXPECT_FALSE(back.killed());
  EXPECT_EQ(back.count, 0u);
  EXPECT_EQ(back.client_order_id, ClientOrderId{5});
  EXPECT_FALSE(d_.engine().killed(kA));
  const auto ev = d_.Apply(D::Limit(kA, kFut, Side::kSell, Cents(570), 1));
  EXPECT_EQ(OfType(ev, EventType::kTrade).size(), 1u);
}

TEST_F(KillSwitchTest, CancelAndReplaceOfAKilledAccountAnswerUnknownOrder) {
  const OrderId id = Rest(kA, kFut, Side::kBuy, Cents(570), 3);
  d_.Apply(D::KillSwitch(kA, true));
  // Nothing of the account rests any more: its cancel and replace name an
  // order that is gone, answered as usual.
  auto ev = d_.Apply(D::Cancel(kA, id));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kUnknownOrder);
  ev = d_.Apply(D::Replace(kA, id, Cents(571), 3));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kUnknownOrder);
  // Mass cancel still answers, with nothing to cancel.
  ev = d_.Apply(D::MassCancel(kA, InstrumentId{}));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, EventType::kMassCancelDone);
  EXPECT_EQ(ev[0].count, 0u);
}

TEST_F(KillSwitchTest, DuplicateClientOrderIdIsAnsweredBeforeTheKill) {
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.client_order_id = ClientOrderId{9};
  ASSERT_EQ(ResultOf(d_.Apply(c)).type, EventType::kOrderAccepted);
  d_.Apply(D::KillSwitch(kA, true));
  // A resend is a duplicate whatever changed since (docs/matching.md).
  EXPECT_EQ(ResultOf(d_.Apply(c)).reject_code(),
            RejectCode::kDuplicateClientOrderId);
  c.client_order_id = ClientOrderId{10};
  EXPECT_EQ(ResultOf(d_.Apply(c)).reject_code(), RejectCode::kAccountKilled);
}

TEST_F(KillSwitchTest, KillAndReinstateAreIdempotent) {
  Rest(kA, kFut, Side::kBuy, Cents(570), 3);
  EXPECT_EQ(ResultOf(d_.Apply(D::KillSwitch(kA, true))).count, 1u);
  const uint64_t killed_hash = d_.engine().StateHash();
  const Event again = ResultOf(d_.Apply(D::KillSwitch(kA, true)));
  EXPECT_EQ(again.type, EventType::kKillSwitchSet);
  EXPECT_TRUE(again.killed());
  EXPECT_EQ(again.count, 0u);
  EXPECT_EQ(d_.engine().StateHash(), killed_hash);
  d_.Apply(D::KillSwitch(kA, false));
  const uint64_t live_hash = d_.engine().StateHash();
  const Event twice = ResultOf(d_.Apply(D::KillSwitch(kA, false)));
  EXPECT_EQ(twice.type, EventType::kKillSwitchSet);
  EXPECT_FALSE(twice.killed());
  EXPECT_EQ(d_.engine().StateHash(), live_hash);
}

TEST_F(KillSwitchTest, UnknownAccountAndUnknownFlagsAreRejected) {
  const uint64_t before = d_.engine().StateHash();
  for (const AccountId a : {AccountId{0}, AccountId{3}, AccountId{99}}) {
    const auto ev = d_.Apply(D::KillSwitch(a, true));
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].reject_code(), RejectCode::kUnknownAccount);
    EXPECT_EQ(ev[0].command, CommandType::kKillSwitch);
  }
  Command c = D::KillSwitch(kA, true);
  c.flags = 0x3;
  auto ev = d_.Apply(c);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].reject_code(), RejectCode::kInvalidFlags);
  EXPECT_FALSE(d_.engine().killed(kA));
  EXPECT_EQ(d_.engine().StateHash(), before);
}

TEST_F(KillSwitchTest, StateHashCountsTheFlagOnlyWhileOn) {
  Rest(kB, kFut, Side::kBuy, Cents(570), 1);
  const uint64_t live = d_.engine().StateHash();
  d_.Apply(D::KillSwitch(kA, true));  // kA holds nothing: only the flag moves
  const uint64_t killed = d_.engine().StateHash();
  EXPECT_NE(killed, live);
  d_.Apply(D::KillSwitch(kA, false));
  EXPECT_EQ(d_.engine().StateHash(), live);
}

TEST_F(KillSwitchTest, SnapshotKeepsTheKillSwitch) {
  Rest(kA, kFut, Side::kBuy, Cents(570), 1);
  d_.Apply(D::KillSwitch(kA, true));
  const std::string snap = d_.engine().SaveSnapshot();
  ASSERT_GE(snap[4], 6);  // u16 version after the u32 magic
  EngineDriver restored(KillConfig());
  ASSERT_TRUE(restored.engine().LoadSnapshot(snap).ok());
  EXPECT_TRUE(restored.engine().killed(kA));
  EXPECT_FALSE(restored.engine().killed(kB));
  EXPECT_EQ(restored.engine().StateHash(), d_.engine().StateHash());
  EXPECT_EQ(restored.engine().SaveSnapshot(), snap);
  Command c = D::Limit(kA, kFut, Side::kBuy, Cents(570), 1);
  c.seq = Seq{d_.engine().last_seq().value + 1};
  c.ts = Timestamp{d_.time().nanos + 1'000};
  EXPECT_EQ(ResultOf(restored.Apply(c)).reject_code(),
            RejectCode::kAccountKilled);
}

// Bytes each book entry of a snapshot holds beyond version 5's (id u32,
// state u8, reference i64, delivery day i64, then the order count u32):
// the scheduled open i64 (version 7), after the delivery day.
constexpr std::size_t kBookExtra = 8;
constexpr std::size_t kBookV5 = 25;
constexpr std::size_t kHeader = 46;

// A version 5 snapshot of a state with empty books: the current one without
// the bytes later versions added to each book and without the kill switch
// byte that ends each account entry (account u32, collateral i64, settled
// date i64). The registry follows the accounts: its bytes are what a fresh
// engine's snapshot ends with after its fixed-size part.
std::string AsVersion5(const std::string& now, std::size_t books,
                       std::size_t registry_bytes, std::size_t accounts) {
  std::string v5 = now;
  const std::size_t end = v5.size() - registry_bytes;
  for (std::size_t j = 0; j < accounts; ++j) {
    v5.erase(end - 1 - j * 21, 1);
  }
  for (std::size_t b = books; b-- > 0;) {
    v5.erase(kHeader + 4 + b * (kBookV5 + kBookExtra) + 21, kBookExtra);
  }
  v5[4] = 5;
  return v5;
}

// Fixed part of a fresh SmallMarketConfig() snapshot: header, book count,
// two books, positions, client order ids and spot trades counts, account
// count and eight accounts of 21.
constexpr std::size_t kFixed =
    kHeader + 4 + 2 * (kBookV5 + kBookExtra) + 3 * 4 + 4 + 8 * 21;

TEST(KillSwitchSnapshot, Version5SnapshotsStillLoadWithNoAccountKilled) {
  auto make = [] {
    auto r = Engine::Create(SmallMarketConfig());
    EXPECT_TRUE(r.has_value());
    return std::move(r).value();
  };
  auto fresh = make();
  const std::size_t registry = fresh->SaveSnapshot().size() - kFixed;

  // Collateral and kill switches only, so the books stay empty (their
  // entries fixed-size); no kill switch on at the cut: a version 5 engine
  // had none.
  auto e = make();
  EventCollector events;
  uint64_t seq = 0;
  for (const Command& r : RandomCommands(21, 2'000)) {
    if (r.type != CommandType::kCollateral &&
        r.type != CommandType::kKillSwitch) {
      continue;
    }
    Command c = r;
    c.seq = Seq{++seq};
    if (c.type == CommandType::kKillSwitch) c.flags = 0;
    e->Apply(c, events.sink());
  }
  ASSERT_GT(seq, 10u);
  const std::string v5 = AsVersion5(e->SaveSnapshot(), 2, registry, 8);
  auto loaded = make();
  const Status st = loaded->LoadSnapshot(v5);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(loaded->StateHash(), e->StateHash());
  EXPECT_EQ(loaded->SaveSnapshot(), e->SaveSnapshot());
  for (uint32_t a = 1; a <= 8; ++a) EXPECT_FALSE(loaded->killed(AccountId{a}));
}

TEST(KillSwitchSnapshot, BadKillSwitchByteIsDataLoss) {
  auto r = Engine::Create(SmallMarketConfig());
  ASSERT_TRUE(r.has_value());
  auto e = std::move(r).value();
  auto fresh = Engine::Create(SmallMarketConfig()).value();
  const std::size_t registry = fresh->SaveSnapshot().size() - kFixed;
  std::string snap = e->SaveSnapshot();
  snap[snap.size() - registry - 1] = 2;  // the last account's kill byte
  auto loaded = Engine::Create(SmallMarketConfig()).value();
  const Status st = loaded->LoadSnapshot(snap);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("bad account entry"), std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace cfx::exchange
