// Runs the cfx tool (gateway/tools/cli/) as a process: usage errors, connection
// errors, and each gateway command against a scripted fake server.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gateway/config/password.h"
#include "tests/gateway/tools/client/fake_server.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::cli {
namespace {

using ::cfx::testing::Contains;
using ::cfx::testing::Lines;
using ::cfx::testing::RunTool;
using ::cfx::testing::ToolResult;

namespace w = cfx::wire::v1;
using testing::AcceptLogon;
using testing::FakeConnection;
using testing::FakeServer;
using testing::TraderAck;

class CfxToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
  }

  // Runs `cfx <args>` with no CFX_* variables but `env` ("NAME=value ..."),
  // `input` on stdin; stdout and stderr are captured separately.
  ToolResult Run(const std::string& args, const std::string& input = "",
                 const std::string& env = "") const {
    const std::string in_file = tmp_.Sub("stdin");
    std::ofstream(in_file) << input;
    return RunTool(std::string(::cfx::testing::kWithoutCfxEnv) + env + " " +
                       CFX_TOOL + " " + args + " <" + in_file,
                   tmp_.Sub("stderr"));
  }

  // Runs `cfx --port <server> --api-key trader-a <args>`.
  ToolResult RunAgainst(const FakeServer& server, const std::string& args) {
    return Run("--port " + std::to_string(server.port()) +
               " --api-key trader-a " + args);
  }

  // Expects exit code 2 and one stderr line starting "cfx: " and holding
  // `reason`.
  void ExpectUsageError(const std::string& args, const std::string& reason) {
    SCOPED_TRACE(args);
    const ToolResult r = Run(args);
    ::cfx::testing::ExpectCfxError(r, 2, reason);
    if (HasFatalFailure()) return;
    EXPECT_EQ(r.out, "");
  }

  cfx::testing::TempDir tmp_;
};

const char kCreds[] = "--api-key trader-a ";
const char kOrder[] = "order new --symbol XB2SZ6 --side buy --qty 5 ";

// ---------------------------------------------------------------- usage

TEST_F(CfxToolTest, HelpExitsZero) {
  const ToolResult r = Run("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* cmd : {"order", "book", "trades", "instruments", "grades",
                          "watch", "admin", "journal"}) {
    EXPECT_TRUE(Contains(r.out, cmd)) << cmd;
  }
  EXPECT_EQ(Run("order new --help").exit_code, 0);
}

TEST_F(CfxToolTest, MissingOrUnknownSubcommandIsAUsageError) {
  ExpectUsageError("", "subcommand");
  ExpectUsageError("frobnicate", "frobnicate");
  ExpectUsageError("order", "subcommand");
  ExpectUsageError("order frobnicate", "frobnicate");
  ExpectUsageError("admin", "subcommand");
}

TEST_F(CfxToolTest, OrderNewArgumentErrorsAreUsageErrors) {
  const std::string o = std::string(kCreds) + kOrder;
  ExpectUsageError(std::string(kCreds) + "order new --side buy --qty 5",
                   "--symbol");
  ExpectUsageError(o, "--price is required for a limit order");
  ExpectUsageError(o + "--price 5.80001", "more than 4 decimals");
  ExpectUsageError(o + "--price -5.80", "invalid price");
  ExpectUsageError(o + "--price 5e2", "invalid price");
  ExpectUsageError(o + "--price abc", "invalid price \"abc\"");
  ExpectUsageError(o + "--price 922337203685477.5808", "too large");
  ExpectUsageError(
      std::string(kCreds) + "order new --symbol X --side up --qty 5 --price 5",
      "--side: expected buy or sell");
  ExpectUsageError(
      std::string(kCreds) + "order new --symbol X --side buy --qty 0 --price 5",
      "--qty: invalid quantity \"0\"");
  ExpectUsageError(std::string(kCreds) +
                       "order new --symbol X --side buy --qty 1.5 --price 5",
                   "--qty: invalid quantity");
  ExpectUsageError(o + "--price 5 --type stop",
                   "--type: expected limit or market");
  ExpectUsageError(o + "--price 5 --type market", "--price cannot be used");
  ExpectUsageError(o + "--price 5 --tif forever", "--tif: expected day");
  ExpectUsageError(o + "--price 5 --tif gtd", "--tif gtd needs --expire");
  ExpectUsageError(o + "--price 5 --tif day --expire 2026-12-02T00:00:00Z",
                   "--expire needs --tif gtd");
  ExpectUsageError(o + "--price 5 --expire tomorrow", "--expire: ");
  ExpectUsageError(o + "--price 5 --stp never", "--stp: expected");
  ExpectUsageError(o + "--price 5 --client-order-id 0", "must not be 0");
  ExpectUsageError(o + "--price 5 --client-order-id -3", "client-order-id");
  ExpectUsageError(o + "--price 5 --wait soon", "--wait: invalid duration");
  ExpectUsageError(o + "--price 5 --bogus", "--bogus");
}

TEST_F(CfxToolTest, MissingCredentialsAreUsageErrors) {
  ExpectUsageError(std::string(kOrder) + "--price 5.80",
                   "no API key: pass --api-key or set CFX_API_KEY");
  ExpectUsageError("--api-key desk-key instruments",
                   "no credentials for API key desk-key: pass --key FILE (env "
                   "CFX_API_KEY_FILE), or --secret (env CFX_API_SECRET) for an "
                   "hmac-sha256 key");
}

TEST_F(CfxToolTest, OtherCommandArgumentErrorsAreUsageErrors) {
  const std::string c = kCreds;
  ExpectUsageError(c + "order cancel", "ORDER_ID");
  ExpectUsageError(c + "order cancel abc", "abc");
  ExpectUsageError(c + "order status -1", "-1");
  ExpectUsageError(c + "order replace 5",
                   "replace needs --price, --qty or both");
  ExpectUsageError(c + "order replace 5 --price 1.23456",
                   "more than 4 decimals");
  ExpectUsageError(c + "order replace 5 --qty x", "invalid quantity");
  ExpectUsageError(c + "book", "SYMBOL");
  ExpectUsageError(c + "book XB2SZ6 --depth -1", "-1");
  ExpectUsageError(c + "trades XB2SZ6 --limit 0", "--limit");
  ExpectUsageError(c + "trades XB2SZ6 --limit 1001", "--limit");
  ExpectUsageError(c + "watch XB2SZ6 --updates x", "--updates");
  ExpectUsageError(c + "admin clock advance", "DURATION");
  ExpectUsageError(c + "admin clock advance 5x", "invalid duration \"5x\"");
  ExpectUsageError(c + "admin clock advance 0s", "more than 0");
  ExpectUsageError(c + "admin clock set 2026-13-01T00:00:00Z",
                   "not a UTC time");
  ExpectUsageError(c + "admin clock rewind", "rewind");
  ExpectUsageError(c + "--port 70000 instruments", "--port");
  ExpectUsageError(c + "--port x instruments", "--port");
  ExpectUsageError(c + "--timeout 0s instruments",
                   "--timeout: must be at least 1ms");
  ExpectUsageError(c + "--timeout 5 instruments",
                   "--timeout: invalid duration");
}

TEST_F(CfxToolTest, BadPortInTheEnvironmentIsAUsageError) {
  const ToolResult r =
      Run(std::string(kCreds) + "instruments", "", "CFX_PORT=x");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
}

// ----------------------------------------------------------- connection

TEST_F(CfxToolTest, CannotConnectExitsThree) {
  const std::string port = std::to_string(testing::UnusedPort());
  const ToolResult r =
      Run(std::string(kCreds) + "--port " + port + " instruments");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "cfx: cannot connect to 127.0.0.1:" + port +
                       ": Connection refused\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(CfxToolTest, EnvironmentSuppliesTheConnectionAndFlagsWin) {
  const std::string env_port = std::to_string(testing::UnusedPort());
  const std::string flag_port = std::to_string(testing::UnusedPort());
  const std::string env = "CFX_HOST=127.0.0.1 CFX_PORT=" + env_port +
                          " CFX_API_KEY=trader-a";
  ToolResult r = Run("instruments", "", env);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(Contains(r.err, "127.0.0.1:" + env_port + ":")) << r.err;
  r = Run("instruments --port " + flag_port, "", env);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(Contains(r.err, "127.0.0.1:" + flag_port + ":")) << r.err;
}

TEST_F(CfxToolTest, LogonRejectExitsThree) {
  FakeServer server([](FakeConnection& c) {
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_logon());
    EXPECT_EQ(e->logon().api_key(), "trader-a");
    EXPECT_TRUE(e->logon().cancel_on_disconnect_opt_out());
    w::Envelope rej;
    rej.mutable_logon_reject()->set_reason(
        w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED);
    rej.mutable_logon_reject()->set_text("unknown API key or bad signature");
    c.Write(rej);
    c.Close();
  });
  const ToolResult r = RunAgainst(server, "instruments");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "cfx: logon rejected: AUTHENTICATION_FAILED: unknown API key or "
            "bad signature\n");
}

TEST_F(CfxToolTest, ConnectionClosedAfterLogonExitsThree) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    ASSERT_TRUE(c.Read().has_value());  // the request
    c.Close();
  });
  const ToolResult r = RunAgainst(server, "grades");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "cfx: connection closed by server\n");
}

TEST_F(CfxToolTest, NoAnswerExitsFour) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(
      server, "--timeout 200ms " + std::string(kOrder) + "--price 5.80");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(
      r.err,
      "cfx: timed out after 200ms waiting for the order acknowledgement\n");
}

TEST_F(CfxToolTest, NoLogonAnswerExitsFour) {
  FakeServer server([](FakeConnection& c) { c.WaitForClose(); });
  const ToolResult r = RunAgainst(server, "--timeout 100ms instruments");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(Contains(r.err, "no answer to the logon")) << r.err;
}

// ---------------------------------------------------------------- orders

w::ExecutionReport ReportFor(const w::NewOrder& o, w::ExecType type,
                             w::OrderStatus status) {
  w::ExecutionReport r;
  r.set_seq(100);
  r.set_exec_type(type);
  r.set_order_status(status);
  r.set_order_id(4242);
  r.set_client_order_id(o.client_order_id());
  r.set_symbol(o.symbol());
  r.set_side(o.side());
  r.set_price(o.price());
  r.set_quantity(o.quantity());
  r.set_leaves_quantity(o.quantity());
  return r;
}

w::Envelope Heartbeat() {
  w::Envelope e;
  e.mutable_heartbeat();
  return e;
}

w::Envelope Wrap(const w::ExecutionReport& r) {
  w::Envelope e;
  *e.mutable_execution_report() = r;
  return e;
}

TEST_F(CfxToolTest, OrderNewSendsTheOrderAndPrintsItsAck) {
  std::optional<w::NewOrder> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_new_order());
    seen = e->new_order();
    c.Write(Wrap(ReportFor(*seen, w::EXEC_TYPE_NEW, w::ORDER_STATUS_NEW)));
    EXPECT_TRUE(c.FinishSession());
  });
  const ToolResult r =
      RunAgainst(server, std::string(kOrder) +
                             "--price 5.80 --client-order-id 77 --wait 10ms");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("EXEC ", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(lines[1], "NEW")) << r.out;
  EXPECT_TRUE(Contains(lines[1], "4242")) << r.out;
  EXPECT_TRUE(Contains(lines[1], " 5.80")) << r.out;
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->client_order_id(), 77u);
  EXPECT_EQ(seen->symbol(), "XB2SZ6");
  EXPECT_EQ(seen->side(), w::SIDE_BUY);
  EXPECT_EQ(seen->order_type(), w::ORDER_TYPE_LIMIT);
  EXPECT_EQ(seen->time_in_force(), w::TIME_IN_FORCE_DAY);
  EXPECT_EQ(seen->price(), 58'000);
  EXPECT_EQ(seen->quantity(), 5);
  EXPECT_FALSE(seen->post_only());
  EXPECT_EQ(seen->stp_mode(), w::STP_MODE_ACCOUNT_DEFAULT);
}

TEST_F(CfxToolTest, OrderNewMapsEveryOption) {
  std::optional<w::NewOrder> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_new_order());
    seen = e->new_order();
    c.Write(Wrap(ReportFor(*seen, w::EXEC_TYPE_NEW, w::ORDER_STATUS_NEW)));
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(
      server,
      "order new --symbol XB2SZ6 --side SELL --qty 3 --price 6.1 --tif GTD "
      "--expire 2026-12-02T00:00:00Z --post-only --stp decrement --wait 1ms");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_NE(seen->client_order_id(), 0u);
  EXPECT_EQ(seen->side(), w::SIDE_SELL);
  EXPECT_EQ(seen->price(), 61'000);
  EXPECT_EQ(seen->time_in_force(), w::TIME_IN_FORCE_GTD);
  EXPECT_EQ(seen->expire_time_ns(), 1'796'169'600'000'000'000);
  EXPECT_TRUE(seen->post_only());
  EXPECT_EQ(seen->stp_mode(), w::STP_MODE_DECREMENT);
}

TEST_F(CfxToolTest, MarketOrderPrintsReportsUntilItEnds) {
  std::optional<w::NewOrder> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_new_order());
    seen = e->new_order();
    w::ExecutionReport r =
        ReportFor(*seen, w::EXEC_TYPE_NEW, w::ORDER_STATUS_NEW);
    c.Write(Wrap(r));
    c.Write(Heartbeat());
    r.set_exec_type(w::EXEC_TYPE_TRADE);
    r.set_order_status(w::ORDER_STATUS_PARTIALLY_FILLED);
    r.set_last_price(58'125);
    r.set_last_quantity(2);
    r.set_trade_id(9);
    r.set_aggressor(true);
    r.set_leaves_quantity(3);
    r.set_cum_quantity(2);
    c.Write(Wrap(r));
    r.set_exec_type(w::EXEC_TYPE_CANCELED);
    r.set_order_status(w::ORDER_STATUS_CANCELED);
    r.set_cancel_reason(w::CANCEL_REASON_IOC_REMAINDER);
    r.set_leaves_quantity(0);
    c.Write(Wrap(r));
    c.FinishSession();
  });
  // A long --wait would not matter: an IOC order ends with its reports.
  const ToolResult r = RunAgainst(
      server, std::string(kOrder) + "--type market --wait 1h --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_TRUE(Contains(lines[0], "\"exec_type\":\"NEW\"")) << lines[0];
  EXPECT_TRUE(Contains(lines[1], "\"exec_type\":\"TRADE\"")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], "\"last_price\":\"5.8125\"")) << lines[1];
  EXPECT_TRUE(Contains(lines[1], "\"last_quantity\":2")) << lines[1];
  EXPECT_TRUE(Contains(lines[2], "\"cancel_reason\":\"IOC_REMAINDER\""))
      << lines[2];
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->order_type(), w::ORDER_TYPE_MARKET);
  EXPECT_EQ(seen->time_in_force(), w::TIME_IN_FORCE_IOC);
  EXPECT_EQ(seen->price(), 0);
}

TEST_F(CfxToolTest, RejectedOrderExitsOneWithOneLine) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_new_order());
    w::ExecutionReport r = ReportFor(e->new_order(), w::EXEC_TYPE_REJECTED,
                                     w::ORDER_STATUS_REJECTED);
    r.set_order_id(0);
    r.set_reject_reason(w::REJECT_REASON_PRICE_NOT_ON_TICK);
    r.set_text("PRICE_NOT_ON_TICK");
    c.Write(Wrap(r));
    c.FinishSession();
  });
  const ToolResult r =
      RunAgainst(server, std::string(kOrder) + "--price 5.8125");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cfx: order rejected: PRICE_NOT_ON_TICK\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(CfxToolTest, SessionRejectExitsOne) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    ASSERT_TRUE(c.Read().has_value());
    w::Envelope e;
    e.mutable_session_reject()->set_reason(
        w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL);
    e.mutable_session_reject()->set_text("no instrument NOPE");
    c.Write(e);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "book NOPE");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "cfx: book request rejected: UNKNOWN_SYMBOL: no instrument NOPE\n");
}

TEST_F(CfxToolTest, CancelRejectExitsOne) {
  std::optional<w::CancelOrder> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_cancel_order());
    seen = e->cancel_order();
    w::Envelope rej;
    rej.mutable_cancel_reject()->set_client_order_id(seen->client_order_id());
    rej.mutable_cancel_reject()->set_order_id(seen->order_id());
    rej.mutable_cancel_reject()->set_reason(w::REJECT_REASON_UNKNOWN_ORDER);
    rej.mutable_cancel_reject()->set_text("UNKNOWN_ORDER");
    c.Write(rej);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "order cancel 31");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cfx: cancel rejected: UNKNOWN_ORDER\n");
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->order_id(), 31u);
  EXPECT_NE(seen->client_order_id(), 0u);
}

TEST_F(CfxToolTest, CancelPrintsTheCanceledReport) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_cancel_order());
    w::ExecutionReport r;
    r.set_exec_type(w::EXEC_TYPE_CANCELED);
    r.set_order_status(w::ORDER_STATUS_CANCELED);
    r.set_order_id(e->cancel_order().order_id());
    r.set_cancel_reason(w::CANCEL_REASON_USER_REQUEST);
    c.Write(Wrap(r));
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "order cancel 31");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 2u) << r.out;
  EXPECT_TRUE(Contains(Lines(r.out)[1], "USER_REQUEST")) << r.out;
}

TEST_F(CfxToolTest, ReplaceWithOnlyAPriceKeepsTheQuantity) {
  std::optional<w::ReplaceOrder> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_order_status_request());
    w::ExecutionReport status;
    status.set_exec_type(w::EXEC_TYPE_ORDER_STATUS);
    status.set_order_status(w::ORDER_STATUS_NEW);
    status.set_order_id(e->order_status_request().order_id());
    status.set_price(58'000);
    status.set_quantity(5);
    c.Write(Wrap(status));
    e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_replace_order());
    seen = e->replace_order();
    w::ExecutionReport r = status;
    r.set_exec_type(w::EXEC_TYPE_REPLACED);
    r.set_price(seen->price());
    c.Write(Wrap(r));
    c.FinishSession();
  });
  const ToolResult r =
      RunAgainst(server, "order replace 8 --price 5.81 --wait 1ms");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 2u) << r.out;
  EXPECT_TRUE(Contains(Lines(r.out)[1], "REPLACED")) << r.out;
  EXPECT_TRUE(Contains(Lines(r.out)[1], "5.81")) << r.out;
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->order_id(), 8u);
  EXPECT_EQ(seen->price(), 58'100);
  EXPECT_EQ(seen->quantity(), 5);
}

TEST_F(CfxToolTest, StatusOfAnUnknownOrderExitsOne) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_order_status_request());
    w::ExecutionReport r;
    r.set_exec_type(w::EXEC_TYPE_ORDER_STATUS);
    r.set_order_status(w::ORDER_STATUS_UNKNOWN);
    r.set_order_id(e->order_status_request().order_id());
    r.set_reject_reason(w::REJECT_REASON_UNKNOWN_ORDER);
    r.set_text("UNKNOWN_ORDER");
    c.Write(Wrap(r));
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "order status 99");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "cfx: order 99: UNKNOWN_ORDER\n");
}

TEST_F(CfxToolTest, MassCancelPrintsTheCount) {
  std::optional<w::MassCancel> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_mass_cancel());
    seen = e->mass_cancel();
    w::Envelope rep;
    rep.mutable_mass_cancel_report()->set_client_order_id(
        seen->client_order_id());
    rep.mutable_mass_cancel_report()->set_symbol(seen->symbol());
    rep.mutable_mass_cancel_report()->set_cancelled(3);
    c.Write(rep);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "order mass-cancel --symbol XB2SZ6");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "mass cancel (XB2SZ6): 3 orders cancelled\n");
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->symbol(), "XB2SZ6");
}

// ----------------------------------------------------------- market data

w::Envelope Snapshot() {
  w::Envelope e;
  w::BookSnapshot* s = e.mutable_book_snapshot();
  s->set_symbol("XB2SZ6");
  s->set_seq(50);
  s->set_state(w::INSTRUMENT_STATE_OPEN);
  for (int i = 0; i < 3; ++i) {
    w::Level* b = s->add_bids();
    b->set_price(58'000 - 100 * i);
    b->set_quantity(10 + i);
    b->set_order_count(static_cast<uint32_t>(i + 1));
    w::Level* a = s->add_asks();
    a->set_price(58'100 + 100 * i);
    a->set_quantity(20 + i);
    a->set_order_count(1);
  }
  return e;
}

TEST_F(CfxToolTest, BookPrintsTheSnapshot) {
  std::optional<w::MarketDataSubscribe> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_market_data_subscribe());
    seen = e->market_data_subscribe();
    c.Write(Snapshot());
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "book XB2SZ6 --depth 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0], "XB2SZ6  OPEN  seq 50");
  EXPECT_TRUE(Contains(lines[2], "10       5.80 | 5.81       20")) << r.out;
  EXPECT_TRUE(Contains(lines[3], "5.79 | 5.82")) << r.out;
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->symbol(), "XB2SZ6");
  EXPECT_TRUE(seen->depth());
  EXPECT_FALSE(seen->trades());
}

TEST_F(CfxToolTest, BookJsonHasDecimalPrices) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    ASSERT_TRUE(c.Read().has_value());
    c.Write(Snapshot());
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "book XB2SZ6 --depth 1 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"type\":\"book\",\"symbol\":\"XB2SZ6\",\"seq\":50,\"state\":"
            "\"OPEN\",\"bids\":[{\"price\":\"5.80\",\"quantity\":10,"
            "\"orders\":1}],\"asks\":[{\"price\":\"5.81\",\"quantity\":20,"
            "\"orders\":1}]}\n");
}

TEST_F(CfxToolTest, TradesPrintsTheRecentTrades) {
  std::optional<w::MarketDataSubscribe> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_market_data_subscribe());
    seen = e->market_data_subscribe();
    for (uint64_t i = 1; i <= 2; ++i) {
      w::Envelope t;
      t.mutable_trade_print()->set_symbol("XB2SZ6");
      t.mutable_trade_print()->set_trade_id(i);
      t.mutable_trade_print()->set_price(58'000);
      t.mutable_trade_print()->set_quantity(static_cast<int64_t>(i));
      t.mutable_trade_print()->set_aggressor_side(w::SIDE_BUY);
      c.Write(t);
    }
    e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_grade_list_request());
    w::Envelope grades;
    grades.mutable_grade_list();
    c.Write(grades);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "trades XB2SZ6 --limit 5");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0].rfind("TIME", 0), 0u);
  EXPECT_TRUE(Contains(lines[2], "XB2SZ6")) << r.out;
  EXPECT_TRUE(Contains(lines[2], "BUY")) << r.out;
  EXPECT_TRUE(Contains(lines[2], "5.80")) << r.out;
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_TRUE(seen->trades());
  EXPECT_EQ(seen->recent_trades(), 5u);
}

TEST_F(CfxToolTest, WatchRedrawsUntilTheUpdateCount) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_market_data_subscribe());
    EXPECT_TRUE(e->market_data_subscribe().depth());
    c.Write(Snapshot());
    for (int i = 0; i < 3; ++i) {
      w::Envelope u;
      u.mutable_book_update()->set_symbol("XB2SZ6");
      u.mutable_book_update()->set_seq(51 + static_cast<uint64_t>(i));
      u.mutable_book_update()->set_side(w::SIDE_BUY);
      u.mutable_book_update()->set_price(58'000);
      u.mutable_book_update()->set_quantity(0);
      c.Write(u);
    }
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "watch XB2SZ6 --updates 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::size_t clears = 0;
  for (std::size_t at = 0;
       (at = r.out.find("\x1b[H\x1b[2J", at)) != std::string::npos; ++at) {
    ++clears;
  }
  EXPECT_EQ(clears, 3u) << r.out;  // the snapshot and two updates
  EXPECT_TRUE(Contains(r.out, "updates: 2 of 2")) << r.out;
}

// ------------------------------------------------------ reference, admin

TEST_F(CfxToolTest, InstrumentsPrintsATable) {
  FakeServer server([](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_instrument_list_request());
    w::Envelope list;
    w::Instrument* i = list.mutable_instrument_list()->add_instruments();
    i->set_symbol("XB2SZ6");
    i->set_kind(w::INSTRUMENT_KIND_FUTURE);
    i->set_grade("B200-STD");
    i->set_tick(100);
    i->set_reference_price(58'000);
    i->set_state(w::INSTRUMENT_STATE_OPEN);
    c.Write(list);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "instruments");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("SYMBOL  KIND    GRADE     STATE", 0), 0u) << r.out;
  EXPECT_EQ(lines[1].rfind("XB2SZ6  FUTURE  B200-STD  OPEN", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(lines[1], "0.01       5.80")) << r.out;
}

TEST_F(CfxToolTest, ClockAdvanceSendsTheDuration) {
  std::optional<w::ClockRequest> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_clock_request());
    seen = e->clock_request();
    w::Envelope rep;
    rep.mutable_clock_report()->set_now_ns(1'796'104'800'000'000'000);
    rep.mutable_clock_report()->set_simulated(true);
    c.Write(rep);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "admin clock advance 6h");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "2026-12-01T06:00:00.000000000Z  simulated\n");
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->advance_ns(), int64_t{6} * 3600 * 1'000'000'000);
}

TEST_F(CfxToolTest, ClockWithoutActionReadsIt) {
  std::optional<w::ClockRequest> seen;
  FakeServer server([&](FakeConnection& c) {
    ASSERT_TRUE(AcceptLogon(c, TraderAck()).has_value());
    std::optional<w::Envelope> e = c.Read();
    ASSERT_TRUE(e.has_value() && e->has_clock_request());
    seen = e->clock_request();
    w::Envelope rep;
    rep.mutable_clock_report()->set_now_ns(0);
    c.Write(rep);
    c.FinishSession();
  });
  const ToolResult r = RunAgainst(server, "admin clock --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"type\":\"clock\",\"now\":\"1970-01-01T00:00:00.000000000Z\","
            "\"now_ns\":0,\"simulated\":false}\n");
  server.Join();
  ASSERT_TRUE(seen.has_value());
  EXPECT_TRUE(seen->read());
}

TEST_F(CfxToolTest, HashPasswordPrintsAVerifiableHash) {
  const ToolResult r = Run("admin hash-password --iterations 1000", "s3cret\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Lines(r.out).size(), 1u) << r.out;
  const std::string hash = Lines(r.out)[0];
  EXPECT_TRUE(IsWellFormedPasswordHash(hash)) << hash;
  EXPECT_EQ(hash.rfind("pbkdf2-sha256$1000$", 0), 0u) << hash;
  EXPECT_TRUE(VerifyPassword(hash, "s3cret"));
  EXPECT_FALSE(VerifyPassword(hash, "s3cret\n"));
}

TEST_F(CfxToolTest, HashPasswordNeedsAPassword) {
  const ToolResult r = Run("admin hash-password", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cfx: no password on stdin\n");
}

}  // namespace
}  // namespace cfx::gateway::cli
