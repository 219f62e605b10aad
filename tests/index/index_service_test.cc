#include "index/index_service.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace cfx::index {
namespace {

using exchange::Event;
using exchange::EventType;

constexpr int64_t kHour = 3600 * kNanosPerSecond;
constexpr int64_t kDay0 = 20'788;  // 2026-12-01
constexpr uint32_t kStd = 1;       // spot instrument of B200-STD
constexpr uint32_t kPrm = 2;       // spot instrument of B200-PRM
constexpr uint32_t kFuture = 3;

IndexConfig TestConfig() {
  IndexConfig c;
  c.grades = {"B200-STD", "B200-PRM"};
  c.gpu_hours_per_lot = {192, 192};
  c.reference_grade = {1, 0};
  c.instrument_grade = {0, 1, 2, 0};
  // Accounts 1-8 belong to firms 1-8; firms 7 and 8 are affiliated.
  c.account_firm = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  c.account_group = {0, 1, 2, 3, 4, 5, 6, 7, 7};
  c.firm_names = {"", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8"};
  return c;
}

// Builds the event stream a live engine would emit.
class Stream {
 public:
  // A spot trade: the buyer's order aggressed against the seller's.
  const Event& Trade(uint32_t instrument, int64_t ts, int64_t price_cents,
                     int64_t lots, uint32_t seller, uint32_t buyer,
                     uint32_t milli_tokens = 250'000) {
    Event e = Next(EventType::kTrade, ts);
    e.instrument = exchange::InstrumentId{instrument};
    e.trade_id = exchange::TradeId{++trade_id_};
    e.side = exchange::Side::kBuy;
    e.account = exchange::AccountId{buyer};
    e.counter_account = exchange::AccountId{seller};
    e.price = exchange::Price{price_cents * 100};
    e.quantity = exchange::Quantity{lots};
    e.count = milli_tokens;
    return Push(e);
  }
  const Event& Bust(uint64_t trade_id, int64_t ts) {
    Event e = Next(EventType::kTradeBusted, ts);
    e.trade_id = exchange::TradeId{trade_id};
    e.instrument = exchange::InstrumentId{kStd};
    return Push(e);
  }
  const Event& Fixing(int64_t day, int64_t ts) {
    Event e = Next(EventType::kIndexFixing, ts);
    e.count = static_cast<uint32_t>(day);
    return Push(e);
  }
  const Event& Other(EventType type, int64_t ts) {
    Event e = Next(type, ts);
    e.instrument = exchange::InstrumentId{kStd};
    e.price = exchange::Price{580 * 100};
    e.quantity = exchange::Quantity{5};
    e.account = exchange::AccountId{1};
    e.side = exchange::Side::kSell;
    return Push(e);
  }
  const std::vector<Event>& events() const { return events_; }
  uint64_t last_trade_id() const { return trade_id_; }

 private:
  Event Next(EventType type, int64_t ts) {
    Event e;
    e.type = type;
    e.seq = exchange::Seq{++seq_};
    e.ts = exchange::Timestamp{ts};
    return e;
  }
  const Event& Push(const Event& e) {
    events_.push_back(e);
    return events_.back();
  }
  std::vector<Event> events_;
  uint64_t seq_ = 0;
  uint64_t trade_id_ = 0;
};

int64_t DayStart(int64_t day) { return (day - 1) * kNanosPerDay + 21 * kHour; }
int64_t FixingAt(int64_t day) { return day * kNanosPerDay + 21 * kHour; }

// Twelve trades of B200-STD in day `day`, two in each 4 h partition,
// among three sellers (firms 1-3) and three buyers (firms 4-6), 2 lots
// each (4,608 GPU-hours): Level 1a.
void LevelOneDay(Stream& s, int64_t day, int64_t base_cents,
                 uint32_t instrument = kStd) {
  for (int k = 0; k < 12; ++k) {
    const int64_t ts = DayStart(day) + (k / 2) * 4 * kHour + (k % 2) * kHour;
    s.Trade(instrument, ts, base_cents + (k % 5), 2,
            static_cast<uint32_t>(1 + k % 3), static_cast<uint32_t>(4 + k % 3));
  }
}

std::vector<Print> Feed(IndexService& svc, const std::vector<Event>& events) {
  std::vector<Print> printed;
  svc.set_on_print([&](const Print& p) { printed.push_back(p); });
  for (const Event& e : events) svc.OnEvent(e);
  svc.set_on_print(nullptr);
  return printed;
}

TEST(IndexServiceTest, FixingEventFixesEveryGradeFromItsSpotTrades) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  auto svc = IndexService::InMemory(TestConfig());
  const std::vector<Print> printed = Feed(*svc, s.events());
  ASSERT_EQ(printed.size(), 2u);  // both grades print every day
  const Print* std_print = svc->Find(0, kDay0);
  ASSERT_NE(std_print, nullptr);
  EXPECT_EQ(std_print->level, Level::k1a);
  EXPECT_EQ(std_print->trade_count, 12u);
  EXPECT_EQ(std_print->sellers, 3u);
  EXPECT_EQ(std_print->buyers, 3u);
  EXPECT_EQ(std_print->gpu_hours, 12 * 2 * 192);
  EXPECT_EQ(std_print->computed_at_ns, FixingAt(kDay0));
  EXPECT_EQ(std_print->revision, 0u);
  // The PRM grade had no trades and no history: nothing to carry.
  const Print* prm = svc->Find(1, kDay0);
  ASSERT_NE(prm, nullptr);
  EXPECT_EQ(prm->level, Level::kDisrupted);
  EXPECT_FALSE(prm->has_value);

  // The same as the methodology computes directly from the trades.
  std::vector<IndexTrade> trades;
  for (const Event& e : s.events()) {
    if (e.type != EventType::kTrade) continue;
    IndexTrade t;
    t.trade_id = e.trade_id.value;
    t.ts_ns = e.ts.nanos;
    t.price.micros = e.price.units * 100;
    t.lots = e.quantity.lots;
    t.seller = e.counter_account.value;
    t.buyer = e.account.value;
    t.seller_group = t.seller;
    t.buyer_group = t.buyer;
    t.seller_milli_tokens = e.count;
    trades.push_back(t);
  }
  FixingInput in;
  in.grade = 0;
  in.day = kDay0;
  in.as_of_ns = FixingAt(kDay0);
  in.days = {std::span<const IndexTrade>(trades), {}, {}};
  in.prev = {nullptr, nullptr, nullptr};
  Print expected = ComputeFixing(TestConfig().methodology, in, nullptr);
  expected.grade = 0;
  expected.day = kDay0;
  expected.computed_at_ns = FixingAt(kDay0);
  EXPECT_EQ(*std_print, expected);
}

TEST(IndexServiceTest, FixingsReadTheLatestPrintOfTheDay) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  auto svc = IndexService::InMemory(TestConfig());
  Feed(*svc, s.events());
  const FixingLookup fixings = svc->Fixings();
  const std::optional<Fixing> std_fixing = fixings(0, kDay0);
  ASSERT_TRUE(std_fixing.has_value());
  EXPECT_TRUE(std_fixing->has_value);
  EXPECT_EQ(std_fixing->value.micros, svc->Find(0, kDay0)->value.micros);
  EXPECT_TRUE(std_fixing->from_trades);  // Level 1a
  const std::optional<Fixing> prm = fixings(1, kDay0);  // DISRUPTED
  ASSERT_TRUE(prm.has_value());
  EXPECT_FALSE(prm->has_value);
  EXPECT_FALSE(prm->from_trades);
  EXPECT_FALSE(fixings(0, kDay0 + 1).has_value());  // no print yet
}

TEST(IndexServiceTest, OrdersQuotesAndFuturesTradesMoveNoPrint) {
  Stream a;
  LevelOneDay(a, kDay0, 580);
  a.Fixing(kDay0, FixingAt(kDay0));
  Stream b;
  const int64_t t0 = DayStart(kDay0) + kHour / 2;
  b.Other(EventType::kOrderAccepted, t0);
  b.Other(EventType::kBookLevel, t0);
  LevelOneDay(b, kDay0, 580);
  b.Other(EventType::kOrderCancelled, t0 + 5 * kHour);
  b.Other(EventType::kBookLevel, t0 + 5 * kHour);
  b.Trade(kFuture, t0 + 6 * kHour, 990, 50, 1, 4);  // a futures trade
  b.Fixing(kDay0, FixingAt(kDay0));
  auto x = IndexService::InMemory(TestConfig());
  auto y = IndexService::InMemory(TestConfig());
  Feed(*x, a.events());
  Feed(*y, b.events());
  ASSERT_NE(x->Find(0, kDay0), nullptr);
  ASSERT_NE(y->Find(0, kDay0), nullptr);
  // Trade ids differ by the futures trade's; everything else is equal.
  Print px = *x->Find(0, kDay0);
  Print py = *y->Find(0, kDay0);
  EXPECT_EQ(px.value.micros, py.value.micros);
  EXPECT_EQ(px.level, py.level);
  EXPECT_EQ(px.trade_count, py.trade_count);
  EXPECT_EQ(px.gpu_hours, py.gpu_hours);
  EXPECT_EQ(px.p25.micros, py.p25.micros);
  EXPECT_EQ(px.p75.micros, py.p75.micros);
}

TEST(IndexServiceTest, TradeAtTheFixingInstantBelongsToTheNextDay) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  s.Trade(kStd, FixingAt(kDay0), 700, 3, 1, 4);
  s.Fixing(kDay0 + 1, FixingAt(kDay0 + 1));
  auto svc = IndexService::InMemory(TestConfig());
  Feed(*svc, s.events());
  ASSERT_NE(svc->Find(0, kDay0), nullptr);
  EXPECT_EQ(svc->Find(0, kDay0)->trade_count, 12u);
  const Print* next = svc->Find(0, kDay0 + 1);
  ASSERT_NE(next, nullptr);
  // Day d+1 has one trade: not Level 1; Level 2 pools it with day d.
  EXPECT_EQ(next->level, Level::k2);
  EXPECT_EQ(next->trade_count, 13u);
}

TEST(IndexServiceTest, FeedingEventsTwiceChangesNothing) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  s.Bust(3, FixingAt(kDay0) + kHour);
  LevelOneDay(s, kDay0 + 1, 590);
  s.Fixing(kDay0 + 1, FixingAt(kDay0 + 1));
  auto once = IndexService::InMemory(TestConfig());
  const std::vector<Print> first = Feed(*once, s.events());
  // Feeding every event again (a restart that replays the whole journal)
  // publishes nothing and keeps every print.
  const std::vector<Print> again = Feed(*once, s.events());
  EXPECT_TRUE(again.empty());
  auto fresh = IndexService::InMemory(TestConfig());
  EXPECT_EQ(Feed(*fresh, s.events()), first);
  for (int64_t d : {kDay0, kDay0 + 1}) {
    EXPECT_EQ(once->Revisions(0, d), fresh->Revisions(0, d));
  }
}

class IndexStoreTest : public ::testing::Test {
 protected:
  cfx::testing::TempDir dir_;
  std::string path() const { return dir_.path() + "/index"; }
};

// Three days of trading with busts, fed to a store that is closed at a
// random point (as after a kill -9 the store holds what was flushed) and
// reopened; feeding the whole stream again must end in the same prints as
// one uninterrupted run.
TEST_F(IndexStoreTest, ReopenAtAnyCutThenReplayEqualsOneRun) {
  Stream s;
  for (int64_t d = kDay0; d < kDay0 + 3; ++d) {
    LevelOneDay(s, d, 580 + 3 * (d - kDay0));
    LevelOneDay(s, d, 640 + 3 * (d - kDay0), kPrm);
    s.Fixing(d, FixingAt(d));
    s.Bust(s.last_trade_id() - 20, FixingAt(d) + kHour);
  }
  auto reference = IndexService::InMemory(TestConfig());
  Feed(*reference, s.events());
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<Event>& ev = s.events();
  for (int iter = 0; iter < 8; ++iter) {
    std::filesystem::remove_all(path());
    const std::size_t cut = rng() % (ev.size() + 1);
    {
      auto opened = IndexService::Open(TestConfig(), path());
      ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
      IndexService& svc = *opened.value();
      for (std::size_t i = 0; i < cut; ++i) {
        svc.OnEvent(ev[i]);
        if (rng() % 3 == 0) {
          ASSERT_TRUE(svc.Flush().ok());
        }
      }
      ASSERT_TRUE(svc.Flush().ok());
      // Events applied after the last flush are lost with the process.
      for (std::size_t i = cut; i < std::min(ev.size(), cut + 5); ++i) {
        svc.OnEvent(ev[i]);
      }
    }
    auto reopened = IndexService::Open(TestConfig(), path());
    ASSERT_TRUE(reopened.has_value()) << reopened.error().ToString();
    IndexService& svc = *reopened.value();
    EXPECT_EQ(svc.last_applied_seq().value,
              cut == 0 ? 0 : ev[cut - 1].seq.value);
    Feed(svc, ev);
    ASSERT_TRUE(svc.Flush().ok());
    for (uint32_t g = 0; g < 2; ++g) {
      for (int64_t d = kDay0; d < kDay0 + 3; ++d) {
        EXPECT_EQ(svc.Revisions(g, d), reference->Revisions(g, d))
            << "cut " << cut << " grade " << g << " day " << d;
      }
    }
  }
}

// Day d at Level 1a with two large trades far above the rest in partition
// 6 ($6.40 and $7.00): busting the first moves that partition's median to
// $7.00, busting the second back down, so day d is restated twice. Day d+1
// fixes without trades.
Stream TwiceRestatedDay(uint64_t* first_big) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Trade(kStd, FixingAt(kDay0) - kHour / 2, 640, 20, 1, 4);
  *first_big = s.last_trade_id();
  s.Trade(kStd, FixingAt(kDay0) - kHour / 4, 700, 20, 2, 5);
  s.Fixing(kDay0, FixingAt(kDay0));
  s.Bust(*first_big, FixingAt(kDay0) + kHour / 2);
  s.Bust(*first_big + 1, FixingAt(kDay0) + kHour);
  s.Fixing(kDay0 + 1, FixingAt(kDay0 + 1));
  return s;
}

// The fixing of a restated day stays readable beside each restatement,
// with its own computed_at, in memory and from the store after a restart;
// the default history still reads the latest revision of each day.
TEST_F(IndexStoreTest, EveryRevisionStaysReadableAfterARestart) {
  using Revisions = IndexService::HistoryRevisions;
  uint64_t big = 0;
  const Stream s = TwiceRestatedDay(&big);
  std::vector<Print> published;
  {
    auto opened = IndexService::Open(TestConfig(), path());
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    published = Feed(*opened.value(), s.events());
    ASSERT_TRUE(opened.value()->Flush().ok());
  }
  std::vector<Print> std_published;
  for (const Print& p : published) {
    if (p.grade == 0) std_published.push_back(p);
  }
  // The fixing, two restatements, the next day's fixing.
  ASSERT_EQ(std_published.size(), 4u);
  ASSERT_EQ(std_published[2].revision, 2u);

  auto reopened = IndexService::Open(TestConfig(), path());
  ASSERT_TRUE(reopened.has_value()) << reopened.error().ToString();
  const IndexService& svc = *reopened.value();
  const std::vector<Print> all =
      svc.History(0, kDay0, kDay0 + 1, Revisions::kAll);
  EXPECT_EQ(all, std_published);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].revision, 0u);
  EXPECT_EQ(all[0].computed_at_ns, FixingAt(kDay0));
  EXPECT_EQ(all[1].revision, 1u);
  EXPECT_EQ(all[1].computed_at_ns, FixingAt(kDay0) + kHour / 2);
  EXPECT_EQ(all[2].revision, 2u);
  EXPECT_EQ(all[2].computed_at_ns, FixingAt(kDay0) + kHour);
  EXPECT_EQ(all[3].day, kDay0 + 1);
  // The original fixing had both big trades; the restatements do not.
  EXPECT_NE(std::find(all[0].trade_ids.begin(), all[0].trade_ids.end(), big),
            all[0].trade_ids.end());
  EXPECT_EQ(std::find(all[2].trade_ids.begin(), all[2].trade_ids.end(), big),
            all[2].trade_ids.end());
  EXPECT_EQ(svc.RevisionCount(0, kDay0, kDay0 + 1), 4u);
  EXPECT_EQ(svc.RevisionCount(0, kDay0 + 1, kDay0 + 1), 1u);
  EXPECT_EQ(svc.RevisionCount(0, kDay0 + 1, kDay0), 0u);

  // Latest only, as before.
  const std::vector<Print> latest = svc.History(0, kDay0, kDay0 + 1);
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0], std_published[2]);
  EXPECT_EQ(latest[1], std_published[3]);
  EXPECT_EQ(svc.History(0, kDay0, kDay0 + 1, Revisions::kLatest), latest);
  // A range without prints, or upside down, is empty either way.
  EXPECT_TRUE(svc.History(0, kDay0 + 2, kDay0 + 9, Revisions::kAll).empty());
  EXPECT_TRUE(svc.History(0, kDay0 + 1, kDay0, Revisions::kAll).empty());
  EXPECT_TRUE(svc.History(7, kDay0, kDay0 + 1, Revisions::kAll).empty());
}

TEST_F(IndexStoreTest, CorruptRecordStopsOpenNamingTheKey) {
  {
    auto opened = IndexService::Open(TestConfig(), path());
    ASSERT_TRUE(opened.has_value());
    Stream s;
    LevelOneDay(s, kDay0, 580);
    s.Fixing(kDay0, FixingAt(kDay0));
    Feed(*opened.value(), s.events());
    ASSERT_TRUE(opened.value()->Flush().ok());
  }
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string key = "t";
    key.push_back('\0');
    key.append("\0\0\0\0\0\0\0\x05", 8);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, "short").ok());
  }
  auto opened = IndexService::Open(TestConfig(), path());
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code(), StatusCode::kDataLoss);
  EXPECT_NE(opened.error().message().find("74000000000000000005"),
            std::string::npos)
      << opened.error().message();
}

// LevelOneDay with sellers 1-3 attested at 250.001, 250.000 and 250.003
// tokens/s/GPU: equal weights, so T = 750,004 / 3 thousandths, not a whole
// thousandth.
void FractionalTDay(Stream& s, int64_t day) {
  const uint32_t milli[] = {250'001, 250'000, 250'003};
  for (int k = 0; k < 12; ++k) {
    const int64_t ts = DayStart(day) + (k / 2) * 4 * kHour + (k % 2) * kHour;
    s.Trade(kStd, ts, 580 + (k % 5), 2, static_cast<uint32_t>(1 + k % 3),
            static_cast<uint32_t>(4 + k % 3), milli[k % 3]);
  }
}

// Fixes FractionalTDay's day in a new store at `path` and returns the print.
Print StoreFractionalTDay(const std::string& path) {
  auto opened = IndexService::Open(TestConfig(), path);
  EXPECT_TRUE(opened.has_value());
  if (!opened.has_value()) return {};
  Stream s;
  FractionalTDay(s, kDay0);
  s.Fixing(kDay0, FixingAt(kDay0));
  Feed(*opened.value(), s.events());
  EXPECT_TRUE(opened.value()->Flush().ok());
  return *opened.value()->Find(0, kDay0);
}

// Rewrites the store's first print record with `edit` (the store closed).
template <typename Edit>
void EditFirstPrintRecord(const std::string& path, Edit edit) {
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(
      db->NewIterator(rocksdb::ReadOptions()));
  it->Seek("p");
  ASSERT_TRUE(it->Valid() && it->key().starts_with("p"));
  const std::string key = it->key().ToString();
  std::string value = it->value().ToString();
  it.reset();
  edit(value);
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
}

TEST_F(IndexStoreTest, StoredPrintKeepsTheExactT) {
  // Day 0 at Level 1a; days 1 and 2 pool it at Level 2 (the same T).
  Stream s;
  FractionalTDay(s, kDay0);
  for (int64_t d = kDay0; d < kDay0 + 3; ++d) s.Fixing(d, FixingAt(d));
  {
    auto opened = IndexService::Open(TestConfig(), path());
    ASSERT_TRUE(opened.has_value());
    Feed(*opened.value(), s.events());
    ASSERT_TRUE(opened.value()->Flush().ok());
  }
  auto reopened = IndexService::Open(TestConfig(), path());
  ASSERT_TRUE(reopened.has_value()) << reopened.error().ToString();
  for (int64_t d = kDay0; d < kDay0 + 3; ++d) {
    const Print* p = reopened.value()->Find(0, d);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->attested_tokens, ReducedRatio(WideUint(750'004), WideUint(3)));
    EXPECT_EQ(p->attested_milli_tokens, 250'001u);
  }
  // Day 3 pools no trade: Level 4 carries T from the stored day-2 print,
  // exactly, as an uninterrupted run does.
  s.Fixing(kDay0 + 3, FixingAt(kDay0 + 3));
  Feed(*reopened.value(), {s.events().back()});
  auto reference = IndexService::InMemory(TestConfig());
  Feed(*reference, s.events());
  const Print* carried = reopened.value()->Find(0, kDay0 + 3);
  ASSERT_NE(carried, nullptr);
  EXPECT_EQ(carried->level, Level::k4);
  EXPECT_EQ(carried->attested_tokens,
            ReducedRatio(WideUint(750'004), WideUint(3)));
  EXPECT_EQ(*carried, *reference->Find(0, kDay0 + 3));
}

TEST_F(IndexStoreTest, PrintRecordWithoutTheExactTReadsItsPublishedT) {
  const Print stored = StoreFractionalTDay(path());
  // Cut the exact T off the record: a record written before T was kept
  // exactly ends after its trade ids.
  EditFirstPrintRecord(path(), [&stored](std::string& value) {
    const std::size_t suffix =
        8 + 8 * (stored.attested_tokens.num.limbs().size() +
                 stored.attested_tokens.den.limbs().size());
    ASSERT_GT(value.size(), suffix);
    value.resize(value.size() - suffix);
  });
  auto reopened = IndexService::Open(TestConfig(), path());
  ASSERT_TRUE(reopened.has_value()) << reopened.error().ToString();
  const Print* p = reopened.value()->Find(0, kDay0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->attested_tokens, ReducedRatio(WideUint(250'001), WideUint(1)));
  Print want = stored;
  want.attested_tokens = p->attested_tokens;
  EXPECT_EQ(*p, want);
}

TEST_F(IndexStoreTest, PrintRecordWithABadExactTStopsOpen) {
  StoreFractionalTDay(path());
  // The denominator's limb count claims more limbs than the record holds.
  EditFirstPrintRecord(path(), [](std::string& value) {
    value[value.size() - 12] = '\x7f';  // den: 1 limb -> 127 limbs
  });
  auto opened = IndexService::Open(TestConfig(), path());
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code(), StatusCode::kDataLoss);
}

TEST_F(IndexStoreTest, PrintRecordWithTNotInLowestTermsStopsOpen) {
  StoreFractionalTDay(path());
  // T = 750,004 / 3 stored as 750,004 / 6, not in lowest terms (the
  // denominator's one limb ends the record).
  EditFirstPrintRecord(path(), [](std::string& value) {
    ASSERT_EQ(static_cast<uint8_t>(value[value.size() - 8]), 3);
    value[value.size() - 8] = 6;
  });
  auto opened = IndexService::Open(TestConfig(), path());
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code(), StatusCode::kDataLoss);
}

TEST_F(IndexStoreTest, ReadOnlyStoreSeesWhatWasFlushedAndRefusesWrites) {
  auto opened = IndexService::Open(TestConfig(), path());
  ASSERT_TRUE(opened.has_value());
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  Feed(*opened.value(), s.events());
  ASSERT_TRUE(opened.value()->Flush().ok());
  auto ro = IndexService::Open(TestConfig(), path(), /*read_only=*/true);
  ASSERT_TRUE(ro.has_value()) << ro.error().ToString();
  ASSERT_NE(ro.value()->Find(0, kDay0), nullptr);
  EXPECT_EQ(*ro.value()->Find(0, kDay0), *opened.value()->Find(0, kDay0));
  s.Fixing(kDay0 + 5, FixingAt(kDay0 + 5));
  Feed(*ro.value(), {s.events().back()});
  ASSERT_NE(ro.value()->Find(0, kDay0 + 5), nullptr);
  EXPECT_FALSE(ro.value()->Flush().ok());
}

// Day d at Level 1a with one large trade far above the rest: a bust at
// fixing + 1 h (before 23:00) moves the value by more than 0.25 % and
// republishes; a second bust after 23:00 does not, but the trade leaves
// the next day's Level 2 pool.
TEST(IndexServiceTest, BustInsideTheWindowRestatesWhenTheValueMoves) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  // Partition 6 gets a third trade far above: it is that partition's VWM.
  s.Trade(kStd, DayStart(kDay0) + 21 * kHour, 640, 20, 1, 4);
  const uint64_t big = s.last_trade_id();
  s.Fixing(kDay0, FixingAt(kDay0));
  auto svc = IndexService::InMemory(TestConfig());
  Feed(*svc, s.events());
  const Print before = *svc->Find(0, kDay0);
  ASSERT_EQ(before.level, Level::k1a);

  Stream t = s;
  t.Bust(big, FixingAt(kDay0) + kHour);
  std::vector<Print> printed;
  svc->set_on_print([&](const Print& p) { printed.push_back(p); });
  svc->OnEvent(t.events().back());
  ASSERT_EQ(printed.size(), 1u);
  const Print& after = printed[0];
  EXPECT_EQ(after.revision, 1u);
  EXPECT_EQ(after.computed_at_ns, FixingAt(kDay0) + kHour);
  EXPECT_LT(after.value.micros, before.value.micros);
  EXPECT_EQ(after.trade_count, 12u);
  EXPECT_EQ(svc->Revisions(0, kDay0).size(), 2u);
  EXPECT_EQ(*svc->Find(0, kDay0), after);
  // The explanation reproduces the restated print.
  auto ex = svc->Explain(0, kDay0);
  ASSERT_TRUE(ex.has_value());
  EXPECT_EQ(ex.value().first, after);
}

TEST(IndexServiceTest, SmallMoveOrLateBustIsNotRestated) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Fixing(kDay0, FixingAt(kDay0));
  // Trade 2 is one of twelve near-equal prices: busting it moves the value
  // by less than 0.25 %.
  s.Bust(2, FixingAt(kDay0) + kHour);
  // Trade 5 busts after 23:00: never restated.
  s.Bust(5, kDay0 * kNanosPerDay + 23 * kHour);
  auto svc = IndexService::InMemory(TestConfig());
  const std::vector<Print> printed = Feed(*svc, s.events());
  EXPECT_EQ(printed.size(), 2u);  // the two fixings only
  EXPECT_EQ(svc->Revisions(0, kDay0).size(), 1u);

  // The next day has too few trades for Level 1: Level 2 pools day d
  // without the two busted trades.
  Stream n = s;
  n.Trade(kStd, FixingAt(kDay0) + 2 * kHour, 581, 2, 1, 4);
  n.Fixing(kDay0 + 1, FixingAt(kDay0 + 1));
  auto svc2 = IndexService::InMemory(TestConfig());
  Feed(*svc2, n.events());
  const Print* next = svc2->Find(0, kDay0 + 1);
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->level, Level::k2);
  EXPECT_EQ(next->trade_count, 11u);  // 12 - 2 busted + 1
  EXPECT_TRUE(std::find(next->trade_ids.begin(), next->trade_ids.end(), 5u) ==
              next->trade_ids.end());
}

TEST(IndexServiceTest, LastTradingDayFixingIsNeverRestated) {
  Stream s;
  LevelOneDay(s, kDay0, 580);
  s.Trade(kStd, DayStart(kDay0) + 21 * kHour, 640, 20, 1, 4);
  const uint64_t big = s.last_trade_id();
  s.Fixing(kDay0, FixingAt(kDay0));
  s.Bust(big, FixingAt(kDay0) + kHour);
  IndexConfig c = TestConfig();
  c.never_restated_days = {kDay0};
  auto svc = IndexService::InMemory(c);
  Feed(*svc, s.events());
  EXPECT_EQ(svc->Revisions(0, kDay0).size(), 1u);
}

TEST(IndexServiceTest, GradeWithoutTradesFixesAtLevelThreeOffTheOther) {
  Stream s;
  // Day d: both grades at Level 1a.
  LevelOneDay(s, kDay0, 580);
  LevelOneDay(s, kDay0, 640, kPrm);
  s.Fixing(kDay0, FixingAt(kDay0));
  // Day d + 3: only STD trades (PRM's Level 2 pool is days d+1..d+3:
  // empty).
  for (int64_t d = kDay0 + 1; d <= kDay0 + 2; ++d) {
    LevelOneDay(s, d, 580 + 10 * (d - kDay0));
    LevelOneDay(s, d, 640 + 10 * (d - kDay0), kPrm);
    s.Fixing(d, FixingAt(d));
  }
  LevelOneDay(s, kDay0 + 5, 610);
  for (int64_t d = kDay0 + 3; d <= kDay0 + 5; ++d) s.Fixing(d, FixingAt(d));
  auto svc = IndexService::InMemory(TestConfig());
  Feed(*svc, s.events());
  const Print* prm = svc->Find(1, kDay0 + 5);
  const Print* std_today = svc->Find(0, kDay0 + 5);
  const Print* prm_prev = svc->Find(1, kDay0 + 4);
  const Print* std_prev = svc->Find(0, kDay0 + 4);
  ASSERT_TRUE(prm && std_today && prm_prev && std_prev);
  ASSERT_EQ(std_today->level, Level::k1a);
  EXPECT_EQ(prm->level, Level::k3);
  // I_d = I_{d-1} x R_d / R_{d-1}, rounded half-up to $0.001.
  const Int128 num =
      static_cast<Int128>(prm_prev->value.micros) * std_today->value.micros;
  EXPECT_EQ(prm->value.micros, RoundHalfUp(num, std_prev->value.micros, 1'000));
}

}  // namespace
}  // namespace cfx::index
