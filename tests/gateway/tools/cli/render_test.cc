#include "gateway/tools/cli/render.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gateway/tools/cli/local_book.h"

namespace cfx::gateway::cli {
namespace {

namespace w = cfx::wire::v1;

w::BookSnapshot Snapshot() {
  w::BookSnapshot s;
  s.set_symbol("XB2SZ6");
  s.set_seq(10);
  s.set_state(w::INSTRUMENT_STATE_OPEN);
  w::Level* b = s.add_bids();
  b->set_price(58'000);
  b->set_quantity(5);
  b->set_order_count(2);
  w::Level* a = s.add_asks();
  a->set_price(58'100);
  a->set_quantity(7);
  a->set_order_count(1);
  return s;
}

w::BookUpdate Update(uint64_t seq, w::Side side, int64_t price,
                     int64_t quantity) {
  w::BookUpdate u;
  u.set_symbol("XB2SZ6");
  u.set_seq(seq);
  u.set_side(side);
  u.set_price(price);
  u.set_quantity(quantity);
  u.set_order_count(quantity == 0 ? 0 : 1);
  return u;
}

TEST(LocalBook, AppliesUpdatesAfterTheSnapshotInPriceOrder) {
  LocalBook book;
  book.Reset(Snapshot());
  EXPECT_TRUE(book.Apply(Update(11, w::SIDE_BUY, 58'100 - 200, 3)));
  EXPECT_TRUE(book.Apply(Update(11, w::SIDE_BUY, 58'050, 1)));
  EXPECT_TRUE(book.Apply(Update(12, w::SIDE_SELL, 58'100, 0)));
  EXPECT_EQ(book.seq(), 12u);
  EXPECT_EQ(book.Json(0),
            "{\"type\":\"book\",\"symbol\":\"XB2SZ6\",\"seq\":12,\"state\":"
            "\"OPEN\",\"bids\":[{\"price\":\"5.8050\",\"quantity\":1,"
            "\"orders\":1},{\"price\":\"5.80\",\"quantity\":5,\"orders\":2},"
            "{\"price\":\"5.79\",\"quantity\":3,\"orders\":1}],\"asks\":[]}");
}

TEST(LocalBook, IgnoresStaleUpdatesOtherSymbolsAndBadSides) {
  LocalBook book;
  book.Reset(Snapshot());
  const std::string before = book.Json(0);
  EXPECT_FALSE(book.Apply(Update(10, w::SIDE_BUY, 58'000, 0)));  // not newer
  w::BookUpdate other = Update(11, w::SIDE_BUY, 58'000, 0);
  other.set_symbol("XB2PZ6");
  EXPECT_FALSE(book.Apply(other));
  EXPECT_FALSE(book.Apply(Update(11, w::SIDE_UNSPECIFIED, 58'000, 0)));
  EXPECT_EQ(book.Json(0), before);
}

TEST(LocalBook, TextIsASideBySideLadder) {
  LocalBook book;
  book.Reset(Snapshot());
  EXPECT_TRUE(book.Apply(Update(11, w::SIDE_BUY, 57'900, 4)));
  EXPECT_EQ(book.Text(0),
            "XB2SZ6  OPEN  seq 11\n"
            "ORDERS    BID_QTY        BID | ASK        ASK_QTY    ORDERS\n"
            "     2          5       5.80 | 5.81       7          1\n"
            "     1          4       5.79 |\n");
  // --depth 1
  EXPECT_EQ(book.Text(1).find("5.79"), std::string::npos);
  LocalBook empty;
  w::BookSnapshot s;
  s.set_symbol("XB2SZ6");
  empty.Reset(s);
  EXPECT_NE(empty.Text(10).find("(empty book)"), std::string::npos);
}

TEST(FormatTable, PadsColumnsAndAlignsNumbersRight) {
  EXPECT_EQ(FormatTable({{"A", "NUM", "Z"}, {"long", "5", ""}}, {1}),
            "A     NUM  Z\n"
            "long    5\n");
}

TEST(ExecutionReportRow, ShowsTradeDetail) {
  w::ExecutionReport r;
  r.set_exec_type(w::EXEC_TYPE_TRADE);
  r.set_order_status(w::ORDER_STATUS_FILLED);
  r.set_order_id(42);
  r.set_client_order_id(7);
  r.set_symbol("XB2SZ6");
  r.set_side(w::SIDE_SELL);
  r.set_price(58'000);
  r.set_quantity(5);
  r.set_cum_quantity(5);
  r.set_last_price(58'125);
  r.set_last_quantity(5);
  r.set_trade_id(3);
  const std::string row = ExecutionReportRow(r);
  EXPECT_EQ(row.back(), '\n');
  EXPECT_NE(row.find("TRADE"), std::string::npos) << row;
  EXPECT_NE(row.find("FILLED"), std::string::npos) << row;
  EXPECT_NE(row.find("5 @ 5.8125 trade 3 maker"), std::string::npos) << row;
  // Columns line up with the header.
  EXPECT_EQ(row.find("XB2SZ6"), ExecutionReportHeader().find("SYMBOL"));
}

TEST(ExecutionReportJson, PricesAreDecimalStrings) {
  w::ExecutionReport r;
  r.set_exec_type(w::EXEC_TYPE_REJECTED);
  r.set_price(58'000);
  r.set_reject_reason(w::REJECT_REASON_PRICE_OUTSIDE_BAND);
  const std::string json = ExecutionReportJson(r);
  EXPECT_NE(json.find("\"price\":\"5.80\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"reject_reason\":\"PRICE_OUTSIDE_BAND\""),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("last_price"), std::string::npos) << json;
}

TEST(ReasonText, DropsTextThatRepeatsTheName) {
  EXPECT_EQ(ReasonText("UNKNOWN_ORDER", "UNKNOWN_ORDER"), "UNKNOWN_ORDER");
  EXPECT_EQ(ReasonText("UNKNOWN_ORDER", ""), "UNKNOWN_ORDER");
  EXPECT_EQ(ReasonText("UNKNOWN_ORDER", "no order 5"),
            "UNKNOWN_ORDER: no order 5");
}

}  // namespace
}  // namespace cfx::gateway::cli
