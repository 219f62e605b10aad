// Runs the cfx tool (gateway/tools/cli/journal_commands.h) as a process
// against journals written here.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exchange/clock.h"
#include "exchange/core/engine.h"
#include "exchange/journal.h"
#include "exchange/journal_record.h"
#include "exchange/recovery.h"
#include "gateway/config/server_config.h"
#include "gateway/config/user_directory.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::exchange {
namespace {

using ::cfx::testing::Contains;
using ::cfx::testing::Lines;
using ::cfx::testing::RunTool;
using ::cfx::testing::ToolResult;

void DiscardEvents(void*, const Event*, std::size_t) {}

class JournalToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
  }

  std::string dir() const { return tmp_.Sub("journal"); }

  // Runs `cfx <args>`; stdout and stderr are captured separately.
  ToolResult Run(const std::string& args) const {
    return RunTool(std::string(CFX_TOOL) + " " + args, tmp_.Sub("stderr"));
  }

  // Journals `cmds` (seqs and times stamped here, one second apart from
  // 2026-12-01T00:00:00Z) through an engine on the default config (its
  // users seeded, as cfx-exchanged seeds them), with a
  // snapshot after seq `snapshot_at` (0 = none). Returns the final hash.
  uint64_t Write(std::vector<Command> cmds, uint64_t snapshot_at = 0) {
    auto j = Journal::Open(dir(), JournalOptions{});
    EXPECT_TRUE(j.has_value());
    if (!j.has_value()) return 0;
    // Seeded with the default config's users, as cfx-exchanged starts.
    auto config = cfx::gateway::DefaultServerConfig();
    EXPECT_TRUE(config.has_value());
    if (!config.has_value()) return 0;
    auto engine = Engine::Create(cfx::gateway::SeededEngineConfig(config.value()));
    EXPECT_TRUE(engine.has_value());
    if (!engine.has_value()) return 0;
    EXPECT_TRUE(SeedEngine(*j.value(), *engine.value()).ok());
    Event buffer[64];
    EventSink sink(buffer, 64, &DiscardEvents, nullptr);
    const Timestamp start = ParseUtcTimestamp("2026-12-01T00:00:00Z").value();
    for (std::size_t i = 0; i < cmds.size(); ++i) {
      cmds[i].seq = Seq{i + 1};
      cmds[i].ts =
          Timestamp{start.nanos + static_cast<int64_t>(i) * 1'000'000'000};
      EXPECT_TRUE(j.value()->Append(&cmds[i], 1).ok());
      engine.value()->Apply(cmds[i], sink);
      if (cmds[i].seq.value == snapshot_at) {
        EXPECT_TRUE(
            j.value()
                ->WriteSnapshot(cmds[i].seq, engine.value()->SaveSnapshot())
                .ok());
      }
    }
    sink.Flush();
    return engine.value()->StateHash();
  }

  static Command NewOrder(uint32_t account, uint32_t instrument, Side side,
                          int64_t lots, int64_t price_units, uint64_t cl) {
    Command c;
    c.type = CommandType::kNewOrder;
    c.account = AccountId{account};
    c.instrument = InstrumentId{instrument};
    c.side = side;
    c.order_type = OrderType::kLimit;
    c.tif = TimeInForce::kGtc;
    c.quantity = Quantity{lots};
    c.price = Price{price_units};
    c.client_order_id = ClientOrderId{cl};
    return c;
  }

  // A small session: resting orders on both sides, a trade, a cancel, a
  // replace, admin commands.
  static std::vector<Command> Session() {
    std::vector<Command> cmds;
    for (int k = 0; k < 20; ++k) {
      cmds.push_back(NewOrder(1 + static_cast<uint32_t>(k % 6), 3,
                              k % 2 ? Side::kSell : Side::kBuy, 1 + k % 5,
                              58'000 + (k % 2 ? 300 : -300) + 100 * (k % 3),
                              100 + static_cast<uint64_t>(k)));
    }
    cmds.push_back(NewOrder(2, 3, Side::kBuy, 3, 58'500, 200));  // crosses
    Command cancel;
    cancel.type = CommandType::kCancel;
    cancel.account = AccountId{1};
    cancel.set_order_id(OrderId{1});
    cancel.client_order_id = ClientOrderId{201};
    cmds.push_back(cancel);
    return cmds;
  }

  cfx::testing::TempDir tmp_;
};

std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

TEST_F(JournalToolTest, VerifyChecksEveryRecordAndComparesHashes) {
  const uint64_t hash = Write(Session(), /*snapshot_at=*/15);
  const ToolResult r = Run("journal verify --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "records checked   22 (seq 1 to 22)")) << r.out;
  EXPECT_TRUE(Contains(r.out, "snapshot at seq 15 + 7 commands replayed"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "state hash        " + Hex16(hash))) << r.out;
  EXPECT_TRUE(Contains(r.out, "full replay hash  " + Hex16(hash))) << r.out;
  EXPECT_EQ(Lines(r.out).back(), "OK");
  EXPECT_EQ(r.err, "");
}

TEST_F(JournalToolTest, VerifyJsonIsOneObject) {
  const uint64_t hash = Write(Session(), /*snapshot_at=*/15);
  const ToolResult r = Run("journal verify --json --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 1u) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"ok\":true")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"records_checked\":22,")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"snapshot_seq\":15,\"replayed\":7,")) << r.out;
  EXPECT_TRUE(Contains(r.out, "\"state_hash\":\"" + Hex16(hash) + "\""))
      << r.out;
}

TEST_F(JournalToolTest, VerifyReplaysWithTheConfigFileGiven) {
  const uint64_t hash = Write(Session(), /*snapshot_at=*/15);
  const ToolResult r = Run("journal verify --config " CFX_SOURCE_DIR
                           "/deploy/config/exchange.textproto --data-dir " +
                           dir());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "full replay hash  " + Hex16(hash))) << r.out;
}

TEST_F(JournalToolTest, VerifyWithAConfigThatDoesNotLoadExitsTwo) {
  Write(Session());
  const ToolResult r = Run("journal verify --config " + dir() +
                           "/missing.textproto --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(Contains(r.err, "cfx journal verify: ")) << r.err;
  EXPECT_TRUE(Contains(r.err, "missing.textproto")) << r.err;
}

TEST_F(JournalToolTest, VerifyNamesSeqAndFileOfACorruptRecord) {
  std::vector<Command> cmds = Session();
  Write(cmds);
  {
    auto j = Journal::Open(dir(), JournalOptions{});
    ASSERT_TRUE(j.has_value());
    Command c = cmds[9];
    c.seq = Seq{10};
    std::string record;
    EncodeCommandRecord(c, &record);
    record.back() = static_cast<char>(record.back() ^ 0x01);
    ASSERT_TRUE(j.value()->PutRawRecordForTest(Seq{10}, record).ok());
  }
  const ToolResult r = Run("journal verify --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  // The reopen above moved the log into a table file; either way the line
  // names the file.
  EXPECT_TRUE(Contains(r.err, "seq 10: checksum mismatch in ")) << r.err;
  EXPECT_TRUE(Contains(r.err, ".sst") || Contains(r.err, "write-ahead log"))
      << r.err;
  EXPECT_FALSE(Contains(r.out, "OK")) << r.out;
}

TEST_F(JournalToolTest, DumpPrintsOneReadableLinePerCommand) {
  std::vector<Command> cmds;
  cmds.push_back(NewOrder(1, 3, Side::kBuy, 5, 58'300, 17));
  Command market = NewOrder(2, 3, Side::kSell, 2, 0, 18);
  market.order_type = OrderType::kMarket;
  market.tif = TimeInForce::kIoc;
  cmds.push_back(market);
  Command gtd = NewOrder(4, 14, Side::kSell, 10, 64'100, 19);
  gtd.tif = TimeInForce::kGtd;
  gtd.flags = kFlagPostOnly;
  gtd.stp = StpMode::kCancelOldest;
  gtd.set_expire_time(ParseUtcTimestamp("2026-12-02T00:00:00Z").value());
  cmds.push_back(gtd);
  Command replace;
  replace.type = CommandType::kReplace;
  replace.account = AccountId{1};
  replace.set_order_id(OrderId{1});
  replace.quantity = Quantity{8};
  replace.price = Price{58'200};
  replace.client_order_id = ClientOrderId{20};
  cmds.push_back(replace);
  Command cancel;
  cancel.type = CommandType::kCancel;
  cancel.account = AccountId{1};
  cancel.set_order_id(OrderId{1});
  cancel.client_order_id = ClientOrderId{21};
  cmds.push_back(cancel);
  Command mass;
  mass.type = CommandType::kMassCancel;
  mass.account = AccountId{4};
  cmds.push_back(mass);
  Command state;
  state.type = CommandType::kSetInstrumentState;
  state.instrument = InstrumentId{3};
  state.state = InstrumentState::kHalted;
  cmds.push_back(state);
  Command ref;
  ref.type = CommandType::kSetReferencePrice;
  ref.instrument = InstrumentId{3};
  ref.price = Price{58'450};
  cmds.push_back(ref);
  Command timer;
  timer.type = CommandType::kTimer;
  cmds.push_back(timer);
  Command odd;  // fields its type does not use are shown, not hidden
  odd.type = CommandType::kCancel;
  odd.account = AccountId{2};
  odd.set_order_id(OrderId{9});
  odd.side = Side::kBuy;
  odd.quantity = Quantity{3};
  cmds.push_back(odd);
  Write(cmds);

  const ToolResult r = Run("journal dump --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> expected = {
      "1 2026-12-01T00:00:00.000000000Z NEW_ORDER acct=1 inst=3 BUY LIMIT GTC "
      "5 @ 5.8300 cl=17",
      "2 2026-12-01T00:00:01.000000000Z NEW_ORDER acct=2 inst=3 SELL MARKET "
      "IOC 2 cl=18",
      "3 2026-12-01T00:00:02.000000000Z NEW_ORDER acct=4 inst=14 SELL LIMIT "
      "GTD 10 @ 6.4100 "
      "cl=19 stp=CANCEL_OLDEST POST_ONLY expire=2026-12-02T00:00:00.000000000Z",
      "4 2026-12-01T00:00:03.000000000Z REPLACE acct=1 order=1 8 @ 5.8200 "
      "cl=20",
      "5 2026-12-01T00:00:04.000000000Z CANCEL acct=1 order=1 cl=21",
      "6 2026-12-01T00:00:05.000000000Z MASS_CANCEL acct=4 inst=all",
      "7 2026-12-01T00:00:06.000000000Z SET_INSTRUMENT_STATE inst=3 HALTED",
      "8 2026-12-01T00:00:07.000000000Z SET_REFERENCE_PRICE inst=3 @ 5.8450",
      "9 2026-12-01T00:00:08.000000000Z TIMER",
      "10 2026-12-01T00:00:09.000000000Z CANCEL acct=2 order=9 cl=0 side=BUY "
      "quantity=3",
  };
  EXPECT_EQ(Lines(r.out), expected);

  const ToolResult range =
      Run("journal dump --from 4 --to 5 --data-dir " + dir());
  EXPECT_EQ(range.exit_code, 0) << range.err;
  EXPECT_EQ(Lines(range.out),
            (std::vector<std::string>{expected[3], expected[4]}));
}

TEST_F(JournalToolTest, DumpJsonHasEveryField) {
  Write({NewOrder(1, 3, Side::kBuy, 5, 58'300, 17)});
  const ToolResult r = Run("journal dump --json --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"seq\":1,\"ts\":\"2026-12-01T00:00:00.000000000Z\",\"ts_ns\":"
            "1796083200000000000,\"type\":\"NEW_ORDER\",\"account\":1,"
            "\"instrument\":3,"
            "\"side\":\"BUY\",\"order_type\":\"LIMIT\",\"tif\":\"GTC\",\"stp\":"
            "\"ACCOUNT_DEFAULT\",\"flags\":0,\"state\":\"NONE\",\"reserved\":0,"
            "\"client_order_id\":17,\"target\":0,\"price\":\"5.8300\",\"price_"
            "units\":"
            "58300,\"quantity\":5}\n");
}

TEST_F(JournalToolTest, StatsReportsSeqsAndSnapshots) {
  Write(Session(), /*snapshot_at=*/15);
  const ToolResult r = Run("journal stats --data-dir " + dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "first seq            1\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "last seq             22\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "commands             22\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "snapshots            1\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "latest snapshot seq  15\n")) << r.out;
  const ToolResult json = Run("journal stats --json --data-dir " + dir());
  EXPECT_TRUE(Contains(json.out,
                       "\"first_seq\":1,\"last_seq\":22,\"commands\":22,"
                       "\"snapshots\":1,\"latest_snapshot_seq\":15,"))
      << json.out;
}

TEST_F(JournalToolTest, MissingDataDirExitsTwoWithOneLine) {
  for (const char* cmd : {"stats", "dump", "verify"}) {
    const ToolResult r =
        Run(std::string("journal ") + cmd + " --data-dir " + dir());
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_EQ(r.err, std::string("cfx journal ") + cmd + ": data dir " + dir() +
                         ": no such directory\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(JournalToolTest, BadArgumentsExitTwo) {
  Write(Session());
  EXPECT_EQ(Run("journal stats").exit_code, 2);  // --data-dir is required
  EXPECT_EQ(Run("journal dump --from x --data-dir " + dir()).exit_code, 2);
  EXPECT_EQ(Run("journal dump --from 9 --to 3 --data-dir " + dir()).exit_code,
            2);
  EXPECT_EQ(Run("journal frobnicate --data-dir " + dir()).exit_code, 2);
  EXPECT_EQ(Run("journal").exit_code, 2);
  EXPECT_EQ(Run("").exit_code, 2);
  EXPECT_EQ(Run("--help").exit_code, 0);
}

}  // namespace
}  // namespace cfx::exchange
