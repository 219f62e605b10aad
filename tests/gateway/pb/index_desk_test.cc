// The CFX index over the protobuf protocol (docs/protocol.md, "Index"):
// IndexQuery, IndexExplainRequest and the IndexPrint pushed to every
// session, against a pb::Gateway on loopback whose in-memory index service
// is fed sequenced events directly (index_gateway_fixture.h). What the
// gateway answers is compared with what the index service holds.
#include "gateway/pb/index_desk.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "tests/gateway/pb/index_gateway_fixture.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::index_test {
namespace {

namespace w = cfx::wire::v1;
using ClientPtr = std::unique_ptr<client::Client>;
using pb::internal::FormatMicros;
using server_test::kWait;

// The day every test fixes: 2026-12-05.
const int64_t kDay = ParseDay("2026-12-05").value();

ClientPtr MustLogOn(uint16_t port, std::string_view user) {
  auto c = server_test::LogOn(port, server_test::DemoLogonOptOut(user));
  EXPECT_TRUE(c.has_value()) << user << ": " << c.error().ToString();
  return c.has_value() ? std::move(c).value() : nullptr;
}

bool Printable(const std::string& s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// The answer to one request, its parts merged.
struct Answer {
  std::vector<w::IndexPrint> prints;  // IndexQuery
  w::IndexExplanation explanation;    // IndexExplainRequest
  int parts = 0;
  std::vector<std::size_t> part_bytes;
  std::optional<w::ReferenceAck> refusal;
  bool complete = false;
};

class IndexDeskTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(gw_.ok()); }

  // Receives the parts of request `id`'s answer (or its refusal) until the
  // one without `more`; other messages wait in pending_.
  Answer Collect(client::Client& c, uint64_t id) {
    Answer a;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!a.complete && std::chrono::steady_clock::now() < deadline) {
      auto r = c.Receive(kWait);
      if (!r.has_value()) {
        ADD_FAILURE() << r.error().ToString();
        return a;
      }
      const w::Envelope& m = r.value();
      if (m.has_reference_ack() && m.reference_ack().request_id() == id) {
        a.refusal = m.reference_ack();
        a.complete = true;
      } else if (m.has_index_print_list() &&
                 m.index_print_list().request_id() == id) {
        const w::IndexPrintList& l = m.index_print_list();
        ++a.parts;
        a.part_bytes.push_back(m.ByteSizeLong());
        a.prints.insert(a.prints.end(), l.prints().begin(), l.prints().end());
        a.complete = !l.more();
      } else if (m.has_index_explanation() &&
                 m.index_explanation().request_id() == id) {
        const w::IndexExplanation& x = m.index_explanation();
        ++a.parts;
        a.part_bytes.push_back(m.ByteSizeLong());
        if (a.parts == 1) {
          a.explanation = x;
        } else {
          EXPECT_FALSE(x.has_print()) << "only the first part has the print";
          a.explanation.mutable_trades()->MergeFrom(x.trades());
          a.explanation.mutable_excluded()->MergeFrom(x.excluded());
        }
        a.complete = !x.more();
      } else if (!m.has_heartbeat()) {
        pending_[&c].push_back(m);
      }
    }
    EXPECT_TRUE(a.complete) << "no complete answer to request " << id;
    return a;
  }

  Answer Query(client::Client& c, const std::string& grade,
               const std::string& from = "", const std::string& to = "",
               bool all_revisions = false) {
    w::Envelope e;
    w::IndexQuery* q = e.mutable_index_query();
    q->set_request_id(++next_request_);
    q->set_grade(grade);
    q->set_from_date(from);
    q->set_to_date(to);
    q->set_all_revisions(all_revisions);
    EXPECT_TRUE(c.Send(e).ok());
    return Collect(c, next_request_);
  }

  Answer Explain(client::Client& c, const std::string& grade,
                 const std::string& date = "") {
    w::Envelope e;
    w::IndexExplainRequest* r = e.mutable_index_explain_request();
    r->set_request_id(++next_request_);
    r->set_grade(grade);
    r->set_date(date);
    EXPECT_TRUE(c.Send(e).ok());
    return Collect(c, next_request_);
  }

  // The next IndexPrint of `grade` pushed to `c` (those received already
  // first).
  std::optional<w::IndexPrint> NextPush(client::Client& c,
                                        const std::string& grade) {
    std::vector<w::Envelope>& pending = pending_[&c];
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (it->has_index_print() && it->index_print().grade() == grade) {
        w::IndexPrint p = it->index_print();
        pending.erase(it);
        return p;
      }
    }
    auto r = c.ReceiveUntil(
        [&](const w::Envelope& m) {
          return m.has_index_print() && m.index_print().grade() == grade;
        },
        kWait,
        [&](const w::Envelope& m) {
          if (!m.has_heartbeat()) pending.push_back(m);
        });
    if (!r.has_value()) return std::nullopt;
    return r.value().index_print();
  }

  // Expects `p` to be the wire form of the service's print `want`.
  void ExpectWireForm(const w::IndexPrint& p, const index::Print& want) {
    const std::string& grade = gw_.config().grades.at(want.grade).name;
    EXPECT_EQ(p.grade(), grade);
    EXPECT_EQ(p.index(), "CFX-" + grade);
    EXPECT_EQ(p.date(), FormatDay(want.day));
    EXPECT_EQ(p.revision(), want.revision);
    EXPECT_EQ(p.restated(), want.revision > 0);
    EXPECT_EQ(p.computed_at_ns(), want.computed_at_ns);
    EXPECT_EQ(static_cast<int>(p.level()), static_cast<int>(want.level));
    EXPECT_EQ(p.disrupted(), want.level == index::Level::kDisrupted);
    EXPECT_EQ(p.has_value(), want.has_value);
    if (want.has_value) {
      EXPECT_EQ(p.value(), FormatMicros(want.value.micros, 3));
      EXPECT_EQ(p.value_micros(), want.value.micros);
      // The published precision: exactly 3 decimals.
      ASSERT_NE(p.value().find('.'), std::string::npos) << p.value();
      EXPECT_EQ(p.value().size() - p.value().find('.'), 4u) << p.value();
    } else {
      EXPECT_EQ(p.value(), "");
    }
    EXPECT_EQ(p.trade_count(), want.trade_count);
    EXPECT_EQ(p.distinct_sellers(), want.sellers);
    EXPECT_EQ(p.distinct_buyers(), want.buyers);
    EXPECT_EQ(p.gpu_hours(), want.gpu_hours);
    if (want.trade_count > 0) {
      EXPECT_EQ(p.p25(), FormatMicros(want.p25.micros, 3));
      EXPECT_EQ(p.p25_micros(), want.p25.micros);
      EXPECT_EQ(p.p75(), FormatMicros(want.p75.micros, 3));
      EXPECT_EQ(p.p75_micros(), want.p75.micros);
    } else {
      EXPECT_EQ(p.p25(), "");
      EXPECT_EQ(p.p75(), "");
    }
    uint32_t bits = 0;
    for (uint32_t k : p.partitions_used()) {
      ASSERT_GE(k, 1u);
      ASSERT_LE(k, 6u);
      bits |= 1u << (k - 1);
    }
    EXPECT_EQ(bits, want.partitions_used);
    EXPECT_EQ(p.usd_per_million_tokens(),
              want.has_upm ? FormatMicros(want.usd_per_million_tokens_micros, 3)
                           : "");
    EXPECT_EQ(p.usd_per_million_tokens_micros(),
              want.has_upm ? want.usd_per_million_tokens_micros : 0);
    EXPECT_EQ(p.attested_tokens_per_s_per_gpu().empty(),
              want.attested_milli_tokens == 0);
    EXPECT_EQ(std::vector<uint64_t>(p.trade_ids().begin(), p.trade_ids().end()),
              want.trade_ids);
  }

  IndexGateway gw_;
  uint64_t next_request_ = 0;
  // Messages received while waiting for something else, per client.
  std::map<client::Client*, std::vector<w::Envelope>> pending_;
};

// ---------------------------------------------------------------- queries

TEST_F(IndexDeskTest, QueryWithoutDatesAnswersTheLatestPrint) {
  ASSERT_TRUE(TradeADay(gw_, kDay - 1, kStd, 60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay - 1));
  ASSERT_TRUE(TradeADay(gw_, kDay, kStd, 61'000, 101));
  ASSERT_TRUE(gw_.Fix(kDay));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);

  const Answer a = Query(*trader, "B200-STD");
  ASSERT_FALSE(a.refusal.has_value()) << a.refusal->text();
  ASSERT_EQ(a.prints.size(), 1u);
  const index::Print* latest = gw_.index().Latest(kStd);
  ASSERT_NE(latest, nullptr);
  ExpectWireForm(a.prints[0], *latest);
  const w::IndexPrint& p = a.prints[0];
  EXPECT_EQ(p.date(), "2026-12-05");
  EXPECT_EQ(p.computed_at_ns(), gw_.FixingNs(kDay));
  // Twelve trades among three sellers and three buyers: Level 1.
  EXPECT_TRUE(p.level() == w::INDEX_LEVEL_1A || p.level() == w::INDEX_LEVEL_1B)
      << w::IndexLevel_Name(p.level());
  EXPECT_EQ(p.trade_count(), 12u);
  EXPECT_EQ(p.distinct_sellers(), 3u);
  EXPECT_EQ(p.distinct_buyers(), 3u);
  ASSERT_EQ(p.trade_ids_size(), 12);
  EXPECT_EQ(p.trade_ids(0), 101u);
  EXPECT_EQ(p.trade_ids(11), 112u);

  // The other grade had no trades and no earlier value: DISRUPTED, empty.
  const Answer prm = Query(*trader, "B200-PRM");
  ASSERT_FALSE(prm.refusal.has_value());
  ASSERT_EQ(prm.prints.size(), 1u);
  ASSERT_NE(gw_.index().Latest(kPrm), nullptr);
  ExpectWireForm(prm.prints[0], *gw_.index().Latest(kPrm));
  EXPECT_TRUE(prm.prints[0].disrupted());
  EXPECT_FALSE(prm.prints[0].has_value());
}

TEST_F(IndexDeskTest, QueryBeforeAnyFixingAnswersAnEmptyList) {
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const Answer a = Query(*trader, "B200-STD");
  ASSERT_FALSE(a.refusal.has_value());
  EXPECT_EQ(a.parts, 1);
  EXPECT_TRUE(a.prints.empty());
  // A history from some day on is empty too, not an error.
  EXPECT_TRUE(Query(*trader, "B200-STD", "2026-12-01").prints.empty());
}

TEST_F(IndexDeskTest, HistoryListsEachDaysLatestRevisionOldestFirst) {
  for (int64_t d = kDay - 2; d <= kDay; ++d) {
    ASSERT_TRUE(TradeADay(gw_, d, kStd, d == kDay ? 60'000 : 50'000,
                          static_cast<uint64_t>(100 * (d - kDay + 3))));
    ASSERT_TRUE(gw_.Fix(d));
  }
  // Three of day d's trades busted before 23:00: below Level 1, pooled with
  // the cheaper earlier days at Level 2, the value moves: restated.
  for (uint64_t id : {300u, 301u, 302u}) {
    ASSERT_TRUE(gw_.Bust(id, gw_.FixingNs(kDay) + 30 * 60 * kSecond));
  }
  const index::Print* restated = gw_.index().Find(kStd, kDay);
  ASSERT_NE(restated, nullptr);
  ASSERT_GT(restated->revision, 0u) << "the bust did not restate the day";

  ClientPtr trader = MustLogOn(gw_.port(), "provider-a");
  ASSERT_NE(trader, nullptr);
  const Answer all = Query(*trader, "B200-STD", "2026-12-03", "2026-12-05");
  ASSERT_FALSE(all.refusal.has_value()) << all.refusal->text();
  ASSERT_EQ(all.prints.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    ExpectWireForm(all.prints[static_cast<std::size_t>(i)],
                   *gw_.index().Find(kStd, kDay - 2 + i));
  }
  EXPECT_EQ(all.prints[0].date(), "2026-12-03");
  EXPECT_EQ(all.prints[2].date(), "2026-12-05");
  EXPECT_FALSE(all.prints[1].restated());
  EXPECT_TRUE(all.prints[2].restated());
  EXPECT_EQ(all.prints[2].revision(), restated->revision);

  // from_date alone runs to the latest print; to_date alone ends there.
  const Answer from = Query(*trader, "B200-STD", "2026-12-04");
  ASSERT_EQ(from.prints.size(), 2u);
  EXPECT_EQ(from.prints[0].date(), "2026-12-04");
  EXPECT_EQ(from.prints[1].date(), "2026-12-05");
  const Answer to = Query(*trader, "B200-STD", "", "2026-12-04");
  ASSERT_EQ(to.prints.size(), 2u);
  EXPECT_EQ(to.prints[0].date(), "2026-12-03");
  EXPECT_EQ(to.prints[1].date(), "2026-12-04");
  // Days without a print are simply absent.
  const Answer wide = Query(*trader, "B200-STD", "2026-11-01", "2026-12-31");
  EXPECT_EQ(wide.prints.size(), 3u);
  EXPECT_TRUE(Query(*trader, "B200-STD", "2026-12-06").prints.empty());
}

TEST_F(IndexDeskTest, AllRevisionsListsTheFixingAndEachRestatement) {
  ASSERT_TRUE(TradeADay(gw_, kDay - 1, kStd, 60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay - 1));
  ASSERT_TRUE(TwiceRestatedDay(gw_, kDay, 101));
  const std::vector<index::Print> day = gw_.index().Revisions(kStd, kDay);
  ASSERT_EQ(day.size(), 3u) << "the busts did not restate the day twice";
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);

  const Answer all =
      Query(*trader, "B200-STD", "2026-12-04", "2026-12-05", true);
  ASSERT_FALSE(all.refusal.has_value()) << all.refusal->text();
  ASSERT_EQ(all.prints.size(), 4u);
  ExpectWireForm(all.prints[0], *gw_.index().Find(kStd, kDay - 1));
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const w::IndexPrint& p = all.prints[i + 1];
    ExpectWireForm(p, day[i]);
    EXPECT_EQ(p.date(), "2026-12-05");
    EXPECT_EQ(p.revision(), i);
    EXPECT_EQ(p.restated(), i > 0);
    EXPECT_EQ(p.level_name(), index::LevelName(day[i].level));
  }
  EXPECT_EQ(all.prints[1].computed_at_ns(), gw_.FixingNs(kDay));
  EXPECT_EQ(all.prints[2].computed_at_ns(), gw_.FixingNs(kDay) + kHour / 2);
  EXPECT_EQ(all.prints[3].computed_at_ns(), gw_.FixingNs(kDay) + kHour);
  EXPECT_NE(all.prints[1].value(), all.prints[3].value());

  // Without dates: every revision of the latest print's day.
  const Answer latest_day = Query(*trader, "B200-STD", "", "", true);
  ASSERT_EQ(latest_day.prints.size(), 3u);
  EXPECT_EQ(latest_day.prints[0].revision(), 0u);
  EXPECT_EQ(latest_day.prints[2].revision(), 2u);
  // The default still answers the latest revision of each day.
  const Answer latest = Query(*trader, "B200-STD", "2026-12-04", "2026-12-05");
  ASSERT_EQ(latest.prints.size(), 2u);
  ExpectWireForm(latest.prints[1], day.back());
  const Answer one = Query(*trader, "B200-STD");
  ASSERT_EQ(one.prints.size(), 1u);
  EXPECT_EQ(one.prints[0].revision(), 2u);
}

// 667 days restated twice each hold 2,001 prints: more than one request for
// every revision may ask for, though the days are within the range bound.
TEST_F(IndexDeskTest, AllRevisionsOfTooManyPrintsAreRefused) {
  constexpr int64_t kDays = 667;
  const int64_t first = kDay - (kDays - 1);
  for (int64_t d = first; d <= kDay; ++d) {
    ASSERT_TRUE(
        TwiceRestatedDay(gw_, d, static_cast<uint64_t>(20 * (d - first) + 1)));
  }
  ASSERT_EQ(gw_.index().RevisionCount(kStd, first, kDay), 2'001u);
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const Answer refused =
      Query(*trader, "B200-STD", FormatDay(first), "2026-12-05", true);
  ASSERT_TRUE(refused.refusal.has_value());
  EXPECT_EQ(refused.refusal->reason(), w::REJECT_REASON_DATE_RANGE_TOO_LONG)
      << w::RejectReason_Name(refused.refusal->reason());
  EXPECT_EQ(refused.refusal->text(),
            FormatDay(first) +
                " to 2026-12-05 holds 2001 revisions; at most 2000 per "
                "request with all_revisions");
  // A day fewer fits, in several lists; the latest revisions always do.
  const Answer fewer =
      Query(*trader, "B200-STD", FormatDay(first + 1), "2026-12-05", true);
  ASSERT_FALSE(fewer.refusal.has_value()) << fewer.refusal->text();
  EXPECT_EQ(fewer.prints.size(), 1'998u);
  EXPECT_GT(fewer.parts, 1);
  const Answer latest =
      Query(*trader, "B200-STD", FormatDay(first), "2026-12-05");
  ASSERT_FALSE(latest.refusal.has_value()) << latest.refusal->text();
  EXPECT_EQ(latest.prints.size(), 667u);
}

TEST_F(IndexDeskTest, AThousandDaysComeInSeveralListsInOrder) {
  const int64_t first = kDay - 999;
  ASSERT_TRUE(TradeADay(gw_, first, kStd, 60'000, 1));
  for (int64_t d = first; d <= kDay; ++d) ASSERT_TRUE(gw_.Fix(d));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-b");
  ASSERT_NE(trader, nullptr);

  const Answer a = Query(*trader, "B200-STD", FormatDay(first), "2026-12-05");
  ASSERT_FALSE(a.refusal.has_value()) << a.refusal->text();
  ASSERT_EQ(a.prints.size(), 1'000u);
  EXPECT_GE(a.parts, 2) << "1,000 prints do not fit one frame";
  for (std::size_t b : a.part_bytes) {
    EXPECT_LE(b, pb::IndexDesk::kMaxMessageBytes + 64);
  }
  for (std::size_t i = 0; i < a.prints.size(); ++i) {
    ASSERT_EQ(a.prints[i].date(), FormatDay(first + static_cast<int64_t>(i)))
        << i;
  }
  // Only the first days had trades to use: the last is DISRUPTED and
  // carries the last value.
  EXPECT_TRUE(a.prints.back().disrupted());
  EXPECT_TRUE(a.prints.back().has_value());
  EXPECT_EQ(a.prints.back().value(), a.prints[998].value());

  // to_date alone: the 1,000 days up to it.
  EXPECT_EQ(Query(*trader, "B200-STD", "", "2026-12-05").prints.size(), 1'000u);
  // One day more is too many.
  const Answer long_range =
      Query(*trader, "B200-STD", FormatDay(first - 1), "2026-12-05");
  ASSERT_TRUE(long_range.refusal.has_value());
  EXPECT_EQ(long_range.refusal->reason(), w::REJECT_REASON_DATE_RANGE_TOO_LONG);
  const Answer long_from = Query(*trader, "B200-STD", FormatDay(first - 1));
  ASSERT_TRUE(long_from.refusal.has_value());
  EXPECT_EQ(long_from.refusal->reason(), w::REJECT_REASON_DATE_RANGE_TOO_LONG);
}

// ---------------------------------------------------------------- explain

TEST_F(IndexDeskTest, ExplainMarksOnlyTheAskersOwnSidesAndNamesFirmsToTheAdmin) {
  ASSERT_TRUE(TradeADay(gw_, kDay, kStd, 60'000, 1));
  // PROV-A also buys.
  ASSERT_TRUE(gw_.Trade(50, gw_.FixingNs(kDay) - kHour, kStd, kProvB, kProvA,
                        60'000, 2));
  ASSERT_TRUE(gw_.Fix(kDay));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ClientPtr admin = MustLogOn(gw_.port(), "admin");
  ASSERT_NE(trader, nullptr);
  ASSERT_NE(admin, nullptr);

  const Answer t = Explain(*trader, "B200-STD");  // the latest print
  const Answer a = Explain(*admin, "B200-STD", "2026-12-05");
  ASSERT_FALSE(t.refusal.has_value()) << t.refusal->text();
  ASSERT_FALSE(a.refusal.has_value()) << a.refusal->text();
  const w::IndexExplanation& tx = t.explanation;
  const w::IndexExplanation& ax = a.explanation;

  auto svc = gw_.index().Explain(kStd, kDay);
  ASSERT_TRUE(svc.has_value());
  const index::Print& print = svc.value().first;
  const index::Explanation& ex = svc.value().second;
  ExpectWireForm(tx.print(), print);
  EXPECT_EQ(tx.print().SerializeAsString(), ax.print().SerializeAsString());
  EXPECT_EQ(tx.level_name(), std::string(index::LevelName(print.level)));
  ASSERT_EQ(tx.notes_size(), static_cast<int>(ex.notes.size()));
  for (int i = 0; i < tx.notes_size(); ++i) {
    EXPECT_EQ(tx.notes(i), ex.notes[static_cast<std::size_t>(i)]);
  }
  ASSERT_EQ(tx.partitions_size(), static_cast<int>(ex.partitions.size()));
  for (int i = 0; i < tx.partitions_size(); ++i) {
    const index::PartitionValue& pv =
        ex.partitions[static_cast<std::size_t>(i)];
    EXPECT_EQ(tx.partitions(i).partition(), pv.partition);
    EXPECT_EQ(tx.partitions(i).trade_count(), pv.trades);
    EXPECT_EQ(tx.partitions(i).vwm(), FormatMicros(pv.vwm.micros, 3));
  }
  ASSERT_EQ(tx.trades_size(), static_cast<int>(ex.trades.size()));
  ASSERT_EQ(ax.trades_size(), tx.trades_size());
  EXPECT_EQ(tx.trades_size(), 13);

  // The trader (FIRM-A, a buyer): "YOU" on exactly the sides FIRM-A took,
  // nothing on any other side, and no firm name anywhere.
  std::set<std::string> seller_names;
  std::set<std::string> buyer_names;
  int own = 0;
  for (int i = 0; i < tx.trades_size(); ++i) {
    SCOPED_TRACE(i);
    const w::IndexContributingTrade& tt = tx.trades(i);
    const w::IndexContributingTrade& at = ax.trades(i);
    const index::ContributingTrade& st = ex.trades[static_cast<std::size_t>(i)];
    EXPECT_EQ(tt.trade_id(), st.trade.trade_id);
    EXPECT_EQ(at.trade_id(), tt.trade_id());
    EXPECT_EQ(tt.price(), FormatMicros(st.trade.price.micros, 3));
    EXPECT_EQ(tt.gpu_hours(), st.gpu_hours);
    EXPECT_EQ(tt.weight_micros(), st.weight);
    EXPECT_EQ(tt.partition(), st.partition);
    EXPECT_EQ(tt.seller(), at.seller() == "FIRM-A" ? "YOU" : "");
    EXPECT_EQ(tt.buyer(), at.buyer() == "FIRM-A" ? "YOU" : "");
    own += at.buyer() == "FIRM-A" ? 1 : 0;
    seller_names.insert(at.seller());
    buyer_names.insert(at.buyer());
  }
  EXPECT_EQ(own, 6);
  EXPECT_EQ(seller_names,
            (std::set<std::string>{"PROV-A", "PROV-B", "PROV-C"}));
  EXPECT_EQ(buyer_names,
            (std::set<std::string>{"FIRM-A", "FIRM-B", "FIRM-C", "PROV-A"}));
  const std::string text = tx.DebugString();
  for (const char* firm :
       {"FIRM-A", "FIRM-B", "FIRM-C", "PROV-A", "PROV-B", "PROV-C"}) {
    EXPECT_EQ(text.find(firm), std::string::npos) << firm;
  }
}

// A firm that knows its own trades must not be able to follow another
// firm's trades through the day: over a day in which FIRM-B and FIRM-C
// (and the three providers) trade several times each, no value of FIRM-A's
// explanation outside the trades' own numbers repeats across the trades of
// any one other firm, while FIRM-A's own trades, and PROV-B's for PROV-B,
// are marked.
TEST_F(IndexDeskTest, ExplainGivesNoTokenThatFollowsAnotherFirmsTrades) {
  ASSERT_TRUE(TradeADay(gw_, kDay, kStd, 60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay));
  std::map<std::string, Answer> answers;
  for (const char* user : {"trader-a", "provider-b", "admin"}) {
    ClientPtr c = MustLogOn(gw_.port(), user);
    ASSERT_NE(c, nullptr) << user;
    answers[user] = Explain(*c, "B200-STD");
  }
  const Answer& t = answers["trader-a"];
  const Answer& p = answers["provider-b"];
  const Answer& a = answers["admin"];
  for (const Answer* x : {&t, &p, &a}) {
    ASSERT_FALSE(x->refusal.has_value()) << x->refusal->text();
  }
  const auto& tt = t.explanation.trades();
  const auto& pt = p.explanation.trades();
  const auto& at = a.explanation.trades();
  ASSERT_EQ(tt.size(), 12);
  ASSERT_EQ(pt.size(), at.size());
  ASSERT_EQ(tt.size(), at.size());

  // Per firm (the admin's names), the side values the participant sees on
  // that firm's trades; FIRM-B and FIRM-C buy 3 trades each (FIRM-A 6), the
  // providers sell 4 each.
  std::map<std::string, std::map<std::string, int>> seen;
  std::map<std::string, int> trades_of;
  for (int i = 0; i < at.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(tt[i].trade_id(), at[i].trade_id());
    ASSERT_EQ(pt[i].trade_id(), at[i].trade_id());
    const bool a_bought = at[i].buyer() == "FIRM-A";
    EXPECT_EQ(tt[i].buyer(), a_bought ? "YOU" : "");
    EXPECT_EQ(tt[i].seller(), "");
    EXPECT_EQ(pt[i].seller(), at[i].seller() == "PROV-B" ? "YOU" : "");
    EXPECT_EQ(pt[i].buyer(), "");
    for (const auto& [firm, value] :
         {std::pair{at[i].seller(), tt[i].seller()},
          std::pair{at[i].buyer(), tt[i].buyer()}}) {
      if (firm == "FIRM-A") continue;
      ++trades_of[firm];
      if (!value.empty()) ++seen[firm][value];
    }
  }
  for (const char* firm : {"FIRM-B", "FIRM-C", "PROV-A", "PROV-B", "PROV-C"}) {
    EXPECT_EQ(trades_of[firm], firm[0] == 'F' ? 3 : 4) << firm;
    for (const auto& [value, n] : seen[firm]) {
      EXPECT_LE(n, 1) << firm << "'s trades all carry " << value;
    }
  }
}

TEST_F(IndexDeskTest, KeptWeightsOfATrimmedMeanAddUpToHalfTheWeight) {
  // Day d below Level 1 after three busts, pooled with d-1 and d-2: a
  // Level 2 print, whose trimmed mean keeps the central half of the weight.
  for (int64_t d = kDay - 2; d <= kDay; ++d) {
    ASSERT_TRUE(TradeADay(gw_, d, kStd, d == kDay ? 60'000 : 50'000,
                          static_cast<uint64_t>(100 * (d - kDay + 3))));
    ASSERT_TRUE(gw_.Fix(d));
  }
  for (uint64_t id : {300u, 301u, 302u}) {
    ASSERT_TRUE(gw_.Bust(id, gw_.FixingNs(kDay) + 30 * 60 * kSecond));
  }
  ASSERT_EQ(gw_.index().Find(kStd, kDay)->level, index::Level::k2);
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const Answer a = Explain(*trader, "B200-STD", "2026-12-05");
  ASSERT_FALSE(a.refusal.has_value()) << a.refusal->text();
  int64_t weight = 0;
  int64_t kept = 0;
  for (const w::IndexContributingTrade& t : a.explanation.trades()) {
    weight += t.weight_micros();
    kept += t.kept_weight_micros();
    EXPECT_LE(t.kept_weight_micros(), t.weight_micros()) << t.trade_id();
    EXPECT_EQ(t.kept_weight(), FormatMicros(t.kept_weight_micros(), 3));
  }
  ASSERT_GT(weight, 0);
  // Each shown weight is rounded to the micro-GPU-hour once.
  const int64_t slack = a.explanation.trades_size();
  EXPECT_LE(std::abs(2 * kept - weight), 2 * slack)
      << "kept " << kept << " of " << weight;
}

TEST_F(IndexDeskTest, ExcludedTradesAreListedWithTheirReason) {
  ASSERT_TRUE(TradeADay(gw_, kDay, kStd, 60'000, 1));
  // Both sides in one firm: excluded, and named only to the admin.
  ASSERT_TRUE(gw_.Trade(90, gw_.FixingNs(kDay) - kHour, kStd, kProvA, kProvA,
                        60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-c");
  ASSERT_NE(trader, nullptr);
  const Answer t = Explain(*trader, "B200-STD", "2026-12-05");
  ASSERT_FALSE(t.refusal.has_value()) << t.refusal->text();
  ASSERT_EQ(t.explanation.excluded_size(), 1);
  const w::IndexExcludedTrade& x = t.explanation.excluded(0);
  EXPECT_EQ(x.trade_id(), 90u);
  EXPECT_EQ(x.reason(), "SAME_FIRM");
  EXPECT_EQ(x.price(), FormatMicros(x.price_micros(), 3));
  for (const w::IndexContributingTrade& c : t.explanation.trades()) {
    EXPECT_NE(c.trade_id(), 90u);
  }
}

TEST_F(IndexDeskTest, ALongExplanationComesInSeveralParts) {
  // 1,500 trades in one day, spread over the six partitions.
  static constexpr exchange::AccountId kSellers[] = {kProvA, kProvB, kProvC};
  static constexpr exchange::AccountId kBuyers[] = {kFirmA, kFirmB, kFirmC};
  const int64_t start = gw_.FixingNs(kDay - 1);
  for (int i = 0; i < 1'500; ++i) {
    ASSERT_TRUE(gw_.Trade(
        static_cast<uint64_t>(i + 1), start + int64_t{i} * 57 * kSecond, kStd,
        kSellers[i % 3], kBuyers[(i / 3) % 3], 60'000 + (i % 7) * 100, 1));
  }
  ASSERT_TRUE(gw_.Fix(kDay));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const Answer t = Explain(*trader, "B200-STD");
  ASSERT_FALSE(t.refusal.has_value()) << t.refusal->text();
  EXPECT_GE(t.parts, 2);
  for (std::size_t b : t.part_bytes) {
    EXPECT_LE(b, pb::IndexDesk::kMaxMessageBytes + 64);
  }
  EXPECT_EQ(t.explanation.print().trade_count(), 1'500u);
  ASSERT_EQ(t.explanation.trades_size(), 1'500);
  // Across the parts: FIRM-A's own buys marked, nothing else.
  std::set<std::string> sellers;
  std::map<std::string, int> buyers;
  for (const w::IndexContributingTrade& c : t.explanation.trades()) {
    sellers.insert(c.seller());
    ++buyers[c.buyer()];
  }
  EXPECT_EQ(sellers, (std::set<std::string>{""}));
  EXPECT_EQ(buyers, (std::map<std::string, int>{{"", 999}, {"YOU", 501}}));
}

// ---------------------------------------------------------------- refusals

TEST_F(IndexDeskTest, BadRequestsAreRefusedWithASpecificReason) {
  ASSERT_TRUE(TradeADay(gw_, kDay, kStd, 60'000, 1));
  ASSERT_TRUE(gw_.Fix(kDay));
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const index::Print before = *gw_.index().Latest(kStd);

  struct Case {
    const char* grade;
    const char* from;
    const char* to;
    w::RejectReason reason;
  };
  const Case kQueries[] = {
      {"", "", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"B200-XXX", "", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"b200-std", "", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"CFX-B200-STD", "", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"B200-STD", "2026-02-30", "", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "20261205", "", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "2026-12-5", "", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "", "tomorrow", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "1969-12-31", "", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "2026-12-05", "2026-12-04",
       w::REJECT_REASON_INVALID_DATE_RANGE},
      {"B200-STD", "2020-01-01", "2026-12-05",
       w::REJECT_REASON_DATE_RANGE_TOO_LONG},
  };
  for (const Case& c : kQueries) {
    SCOPED_TRACE(std::string(c.grade) + " " + c.from + " " + c.to);
    const Answer a = Query(*trader, c.grade, c.from, c.to);
    ASSERT_TRUE(a.refusal.has_value());
    EXPECT_FALSE(a.refusal->accepted());
    EXPECT_EQ(a.refusal->reason(), c.reason)
        << w::RejectReason_Name(a.refusal->reason());
    EXPECT_FALSE(a.refusal->text().empty());
    EXPECT_TRUE(Printable(a.refusal->text())) << a.refusal->text();
  }
  const Case kExplains[] = {
      {"", "", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"H100", "2026-12-05", "", w::REJECT_REASON_UNKNOWN_GRADE},
      {"B200-STD", "2026-13-01", "", w::REJECT_REASON_INVALID_DATE},
      {"B200-STD", "2026-12-04", "", w::REJECT_REASON_NO_INDEX_PRINT},
  };
  for (const Case& c : kExplains) {
    SCOPED_TRACE(std::string(c.grade) + " " + c.from);
    const Answer a = Explain(*trader, c.grade, c.from);
    ASSERT_TRUE(a.refusal.has_value());
    EXPECT_EQ(a.refusal->reason(), c.reason)
        << w::RejectReason_Name(a.refusal->reason());
    EXPECT_TRUE(Printable(a.refusal->text())) << a.refusal->text();
  }
  // Characters that are no plain text are quoted harmlessly.
  const Answer junk = Query(*trader, "\x01\n\"\xc3\xa9");
  ASSERT_TRUE(junk.refusal.has_value());
  EXPECT_EQ(junk.refusal->reason(), w::REJECT_REASON_UNKNOWN_GRADE);
  EXPECT_TRUE(Printable(junk.refusal->text())) << junk.refusal->text();
  EXPECT_NE(junk.refusal->text().find("B200-STD"), std::string::npos)
      << "names the grades there are: " << junk.refusal->text();

  // Nothing changed, and the session still answers.
  EXPECT_EQ(*gw_.index().Latest(kStd), before);
  const Answer a = Query(*trader, "B200-STD");
  ASSERT_EQ(a.prints.size(), 1u);
  ExpectWireForm(a.prints[0], before);
}

TEST_F(IndexDeskTest, ExplainBeforeAnyPrintIsRefused) {
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  const Answer a = Explain(*trader, "B200-STD");
  ASSERT_TRUE(a.refusal.has_value());
  EXPECT_EQ(a.refusal->reason(), w::REJECT_REASON_NO_INDEX_PRINT);
  EXPECT_NE(a.refusal->text().find("CFX-B200-STD"), std::string::npos)
      << a.refusal->text();
}

TEST_F(IndexDeskTest, IndexRequestsNeedALogonAndServerMessagesAreRejected) {
  auto c = server_test::Connect(gw_.port());
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  w::Envelope q;
  q.mutable_index_query()->set_grade("B200-STD");
  ASSERT_TRUE(c.value()->Send(q).ok());
  auto r = server_test::Next(*c.value());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r.value().has_session_reject()) << r.value().ShortDebugString();
  EXPECT_EQ(r.value().session_reject().reason(),
            w::SESSION_REJECT_REASON_WRONG_SESSION_STATE);
  EXPECT_EQ(r.value().session_reject().message_type(), "index_query");

  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ASSERT_NE(trader, nullptr);
  for (int body : {w::Envelope::kIndexPrint, w::Envelope::kIndexPrintList,
                   w::Envelope::kIndexExplanation}) {
    w::Envelope e;
    if (body == w::Envelope::kIndexPrint) e.mutable_index_print();
    if (body == w::Envelope::kIndexPrintList) e.mutable_index_print_list();
    if (body == w::Envelope::kIndexExplanation) e.mutable_index_explanation();
    ASSERT_TRUE(trader->Send(e).ok());
    auto rej = server_test::Next(*trader);
    ASSERT_TRUE(rej.has_value()) << rej.error().ToString();
    ASSERT_TRUE(rej.value().has_session_reject());
    EXPECT_EQ(rej.value().session_reject().reason(),
              w::SESSION_REJECT_REASON_UNEXPECTED_MESSAGE)
        << body;
  }
}

// ---------------------------------------------------------------- push

TEST_F(IndexDeskTest, EveryLoggedOnSessionGetsEachNewPrintAndRestatement) {
  ClientPtr trader = MustLogOn(gw_.port(), "trader-a");
  ClientPtr provider = MustLogOn(gw_.port(), "provider-b");
  ClientPtr rater = MustLogOn(gw_.port(), "rater");
  ASSERT_NE(trader, nullptr);
  ASSERT_NE(provider, nullptr);
  ASSERT_NE(rater, nullptr);
  for (int64_t d = kDay - 2; d <= kDay; ++d) {
    ASSERT_TRUE(TradeADay(gw_, d, kStd, d == kDay ? 60'000 : 50'000,
                          static_cast<uint64_t>(100 * (d - kDay + 3))));
    ASSERT_TRUE(gw_.Fix(d));
  }
  for (client::Client* c : {trader.get(), provider.get(), rater.get()}) {
    for (int64_t d = kDay - 2; d <= kDay; ++d) {
      SCOPED_TRACE(d);
      const std::optional<w::IndexPrint> p = NextPush(*c, "B200-STD");
      ASSERT_TRUE(p.has_value());
      ExpectWireForm(*p, *gw_.index().Find(kStd, d));
      // Both grades fix at once.
      const std::optional<w::IndexPrint> prm = NextPush(*c, "B200-PRM");
      ASSERT_TRUE(prm.has_value());
      EXPECT_EQ(prm->date(), FormatDay(d));
    }
  }
  // A restatement is pushed too.
  for (uint64_t id : {300u, 301u, 302u}) {
    ASSERT_TRUE(gw_.Bust(id, gw_.FixingNs(kDay) + 30 * 60 * kSecond));
  }
  const index::Print* restated = gw_.index().Find(kStd, kDay);
  ASSERT_GT(restated->revision, 0u);
  for (client::Client* c : {trader.get(), provider.get(), rater.get()}) {
    std::optional<w::IndexPrint> p = NextPush(*c, "B200-STD");
    while (p.has_value() && p->revision() < restated->revision) {
      p = NextPush(*c, "B200-STD");
    }
    ASSERT_TRUE(p.has_value());
    EXPECT_TRUE(p->restated());
    ExpectWireForm(*p, *restated);
  }
  // What was pushed is what a query answers.
  const Answer a = Query(*provider, "B200-STD");
  ASSERT_EQ(a.prints.size(), 1u);
  ExpectWireForm(a.prints[0], *restated);
}

// ---------------------------------------------------------------- format

TEST(IndexDeskFormat, MicrosHaveThePublishedDecimalsAndNoFewer) {
  EXPECT_EQ(FormatMicros(6'125'000, 3), "6.125");
  EXPECT_EQ(FormatMicros(6'000'000, 3), "6.000");
  EXPECT_EQ(FormatMicros(6'262'500, 3), "6.2625");
  EXPECT_EQ(FormatMicros(6'262'550, 3), "6.26255");
  EXPECT_EQ(FormatMicros(1, 3), "0.000001");
  EXPECT_EQ(FormatMicros(0, 3), "0.000");
  EXPECT_EQ(FormatMicros(192'000'000, 0), "192");
  EXPECT_EQ(FormatMicros(-5, 3), "-0.000005");
  EXPECT_EQ(FormatMicros(INT64_MIN, 3), "-9223372036854.775808");
  EXPECT_EQ(FormatMicros(INT64_MAX, 6), "9223372036854.775807");
}

}  // namespace
}  // namespace cfx::gateway::index_test
