// Bad input to the protobuf gateway (docs/protocol.md; DESIGN.md §7): each
// case gets its exact answer (a SessionReject naming reason, message type
// and field; a LogonReject; or, for a broken frame header, the connection
// closed at once) and changes no engine state. Per case, the commands the
// gateway hands to the sequencer must not move; at the end the server's
// state hash and last seq must equal those of a server that ran only the
// good commands.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gateway/pb/frame.h"
#include "tests/gateway/server/server_fixture.h"

namespace cfx::gateway::server_test {
namespace {

enum class As { kNobody, kTrader, kClearingMember, kAdmin };
enum class Answer { kSessionReject, kLogonReject, kClose };

struct BadInput {
  const char* name;
  As as;                   // the connection's session
  std::string (*bytes)();  // what it sends
  Answer answer;
  w::SessionRejectReason reason = w::SESSION_REJECT_REASON_UNSPECIFIED;
  const char* message_type = "";
  const char* field = "";
  uint64_t client_order_id = 0;
  w::LogonRejectReason logon_reason = w::LOGON_REJECT_REASON_UNSPECIFIED;
};

constexpr uint64_t kId = 5;  // client_order_id of the bad messages
constexpr uint32_t kMaxFrame = static_cast<uint32_t>(pb::kMaxFrameSize);

std::string ValidPayload() {
  return NewOrder(kId, w::SIDE_BUY, kPrice, 1).SerializeAsString();
}

// A NewOrder from NewOrder(kId, BUY, kPrice, 1) changed by `mutate`.
template <typename F>
std::string Order(F mutate) {
  w::Envelope e = NewOrder(kId, w::SIDE_BUY, kPrice, 1);
  mutate(e.mutable_new_order());
  return Frame(e);
}

template <typename F>
std::string Message(F fill) {
  w::Envelope e;
  fill(&e);
  return Frame(e);
}

template <typename F>
std::string Logon(F mutate) {
  w::Envelope e = LogonMessage(DemoLogon("trader-a"));
  mutate(e.mutable_logon());
  return Frame(e);
}

constexpr w::SessionRejectReason kMalformed =
    w::SESSION_REJECT_REASON_MALFORMED_MESSAGE;
constexpr w::SessionRejectReason kUnknownMessage =
    w::SESSION_REJECT_REASON_UNKNOWN_MESSAGE;
constexpr w::SessionRejectReason kUnexpected =
    w::SESSION_REJECT_REASON_UNEXPECTED_MESSAGE;
constexpr w::SessionRejectReason kMissing =
    w::SESSION_REJECT_REASON_MISSING_FIELD;
constexpr w::SessionRejectReason kInvalidEnum =
    w::SESSION_REJECT_REASON_INVALID_ENUM;
constexpr w::SessionRejectReason kOutOfRange =
    w::SESSION_REJECT_REASON_VALUE_OUT_OF_RANGE;
constexpr w::SessionRejectReason kWrongState =
    w::SESSION_REJECT_REASON_WRONG_SESSION_STATE;
constexpr w::SessionRejectReason kNotAuthorized =
    w::SESSION_REJECT_REASON_NOT_AUTHORIZED;
constexpr w::SessionRejectReason kUnknownSymbol =
    w::SESSION_REJECT_REASON_UNKNOWN_SYMBOL;

const BadInput kCases[] = {
    // ------------------------------------------------ frame header: close
    {"FrameLengthZero", As::kNobody,
     [] { return RawFrame(0, pb::kFrameMagic, ""); }, Answer::kClose},
    {"FrameLengthFive", As::kTrader,
     [] { return RawFrame(5, pb::kFrameMagic, ""); }, Answer::kClose},
    {"FrameLengthAboveMax", As::kNobody,
     [] { return RawFrame(kMaxFrame + 1, pb::kFrameMagic, ""); },
     Answer::kClose},
    {"FrameLengthAllOnes", As::kTrader,
     [] { return RawFrame(0xffffffffu, pb::kFrameMagic, ""); }, Answer::kClose},
    {"FrameBadMagic", As::kNobody,
     [] {
       const std::string p = ValidPayload();
       return RawFrame(static_cast<uint32_t>(p.size() + 6), 0x4701, p);
     },
     Answer::kClose},
    {"FrameMagicZeroAfterLogon", As::kTrader,
     [] {
       const std::string p = ValidPayload();
       return RawFrame(static_cast<uint32_t>(p.size() + 6), 0, p);
     },
     Answer::kClose},
    {"FrameMagicByteSwapped", As::kTrader,
     [] {
       const std::string p = ValidPayload();
       return RawFrame(static_cast<uint32_t>(p.size() + 6), 0x0047, p);
     },
     Answer::kClose},
    {"FrameAfterAGoodOneHasBadMagic", As::kTrader,
     [] {
       return Frame(StatusRequest(kBarrierOrderId)) + RawFrame(6, 0xffff, "");
     },
     Answer::kClose},

    // ------------------------------------------------ payload
    {"PayloadIsNotAnEnvelope", As::kTrader,
     [] { return Frame(std::string("\xff\xff\xff\xff", 4)); },
     Answer::kSessionReject, kMalformed},
    {"PayloadTruncatedInsideAField", As::kTrader,
     [] {
       const std::string p = ValidPayload();
       return Frame(std::string_view(p).substr(0, p.size() - 3));
     },
     Answer::kSessionReject, kMalformed},
    {"PayloadWithInvalidWireType", As::kNobody,
     [] { return Frame(std::string("\x0f\x01", 2)); }, Answer::kSessionReject,
     kMalformed},
    {"PayloadWithFieldNumberZero", As::kTrader,
     [] { return Frame(std::string("\x00\x01", 2)); }, Answer::kSessionReject,
     kMalformed},
    {"EmptyEnvelope", As::kTrader, [] { return Frame(std::string_view()); },
     Answer::kSessionReject, kUnknownMessage},
    {"EnvelopeWithUnknownBodyNumber", As::kTrader,
     [] { return Frame(std::string("\x98\x06\x01", 3)); },  // field 99
     Answer::kSessionReject, kUnknownMessage},
    {"ClientSendsExecutionReport", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_execution_report()->set_order_id(1);
       });
     },
     Answer::kSessionReject, kUnexpected, "execution_report"},
    {"ClientSendsLogonAck", As::kNobody,
     [] {
       return Message(
           [](w::Envelope* e) { e->mutable_logon_ack()->set_user("admin"); });
     },
     Answer::kSessionReject, kUnexpected, "logon_ack"},
    {"ClientSendsBookSnapshot", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_book_snapshot()->set_symbol(kSymbol);
       });
     },
     Answer::kSessionReject, kUnexpected, "book_snapshot"},

    // ------------------------------------------------ session state
    {"NewOrderBeforeLogon", As::kNobody,
     [] { return Frame(NewOrder(kId, w::SIDE_BUY, kPrice, 1)); },
     Answer::kSessionReject, kWrongState, "new_order"},
    {"CancelBeforeLogon", As::kNobody, [] { return Frame(Cancel(kId, 1)); },
     Answer::kSessionReject, kWrongState, "cancel_order"},
    {"LogoutBeforeLogon", As::kNobody,
     [] { return Message([](w::Envelope* e) { e->mutable_logout(); }); },
     Answer::kSessionReject, kWrongState, "logout"},
    {"SecondLogon", As::kTrader,
     [] { return Frame(LogonMessage(DemoLogon("trader-a"))); },
     Answer::kSessionReject, kWrongState, "logon"},

    // ------------------------------------------------ new order
    {"NewOrderWithoutClientOrderId", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->clear_client_order_id(); }); },
     Answer::kSessionReject, kMissing, "new_order", "client_order_id", 0},
    {"NewOrderWithoutSymbol", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->clear_symbol(); }); },
     Answer::kSessionReject, kMissing, "new_order", "symbol", kId},
    {"NewOrderUnknownSymbol", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->set_symbol("XB2SZ9"); }); },
     Answer::kSessionReject, kUnknownSymbol, "new_order", "symbol", kId},
    {"NewOrderOverlongSymbol", As::kTrader,
     [] {
       return Order(
           [](w::NewOrder* m) { m->set_symbol(std::string(70, 'X')); });
     },
     Answer::kSessionReject, kUnknownSymbol, "new_order", "symbol", kId},
    {"NewOrderSideUnspecified", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) { m->set_side(w::SIDE_UNSPECIFIED); });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "side", kId},
    {"NewOrderSideSeven", As::kTrader,
     [] {
       return Order(
           [](w::NewOrder* m) { m->set_side(static_cast<w::Side>(7)); });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "side", kId},
    {"NewOrderTypeUnspecified", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_order_type(w::ORDER_TYPE_UNSPECIFIED);
       });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "order_type", kId},
    {"NewOrderTypeNine", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_order_type(static_cast<w::OrderType>(9));
       });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "order_type", kId},
    {"NewOrderTimeInForceUnspecified", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_time_in_force(w::TIME_IN_FORCE_UNSPECIFIED);
       });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "time_in_force", kId},
    {"NewOrderTimeInForceSix", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_time_in_force(static_cast<w::TimeInForce>(6));
       });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "time_in_force", kId},
    {"NewOrderStpModeFive", As::kTrader,
     [] {
       return Order(
           [](w::NewOrder* m) { m->set_stp_mode(static_cast<w::StpMode>(5)); });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "stp_mode", kId},
    {"NewOrderStpModeNegative", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_stp_mode(static_cast<w::StpMode>(-1));
       });
     },
     Answer::kSessionReject, kInvalidEnum, "new_order", "stp_mode", kId},
    {"NewOrderQuantityZero", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->set_quantity(0); }); },
     Answer::kSessionReject, kMissing, "new_order", "quantity", kId},
    {"NewOrderQuantityNegative", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->set_quantity(-5); }); },
     Answer::kSessionReject, kOutOfRange, "new_order", "quantity", kId},
    {"NewOrderLimitWithoutPrice", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->clear_price(); }); },
     Answer::kSessionReject, kMissing, "new_order", "price", kId},
    {"NewOrderNegativePrice", As::kTrader,
     [] { return Order([](w::NewOrder* m) { m->set_price(-kPrice); }); },
     Answer::kSessionReject, kOutOfRange, "new_order", "price", kId},
    {"NewOrderMarketWithPrice", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_order_type(w::ORDER_TYPE_MARKET);
         m->set_time_in_force(w::TIME_IN_FORCE_IOC);
       });
     },
     Answer::kSessionReject, kOutOfRange, "new_order", "price", kId},
    {"NewOrderGtdWithoutExpireTime", As::kTrader,
     [] {
       return Order(
           [](w::NewOrder* m) { m->set_time_in_force(w::TIME_IN_FORCE_GTD); });
     },
     Answer::kSessionReject, kMissing, "new_order", "expire_time_ns", kId},
    {"NewOrderGtdWithNegativeExpireTime", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_time_in_force(w::TIME_IN_FORCE_GTD);
         m->set_expire_time_ns(-1);
       });
     },
     Answer::kSessionReject, kOutOfRange, "new_order", "expire_time_ns", kId},
    {"NewOrderDayWithExpireTime", As::kTrader,
     [] {
       return Order([](w::NewOrder* m) {
         m->set_time_in_force(w::TIME_IN_FORCE_DAY);
         m->set_expire_time_ns(kDefaultSimulatedStart.nanos);
       });
     },
     Answer::kSessionReject, kOutOfRange, "new_order", "expire_time_ns", kId},

    // ------------------------------------------------ cancel, replace, status
    {"CancelWithoutClientOrderId", As::kTrader,
     [] { return Frame(Cancel(0, 1)); }, Answer::kSessionReject, kMissing,
     "cancel_order", "client_order_id", 0},
    {"CancelWithoutOrderId", As::kTrader, [] { return Frame(Cancel(kId, 0)); },
     Answer::kSessionReject, kMissing, "cancel_order", "order_id", kId},
    {"ReplaceWithoutClientOrderId", As::kTrader,
     [] { return Frame(Replace(0, 1, kPrice, 1)); }, Answer::kSessionReject,
     kMissing, "replace_order", "client_order_id", 0},
    {"ReplaceWithoutOrderId", As::kTrader,
     [] { return Frame(Replace(kId, 0, kPrice, 1)); }, Answer::kSessionReject,
     kMissing, "replace_order", "order_id", kId},
    {"ReplaceWithoutPrice", As::kTrader,
     [] { return Frame(Replace(kId, 1, 0, 1)); }, Answer::kSessionReject,
     kMissing, "replace_order", "price", kId},
    {"ReplaceNegativePrice", As::kTrader,
     [] { return Frame(Replace(kId, 1, -kPrice, 1)); }, Answer::kSessionReject,
     kOutOfRange, "replace_order", "price", kId},
    {"ReplaceWithoutQuantity", As::kTrader,
     [] { return Frame(Replace(kId, 1, kPrice, 0)); }, Answer::kSessionReject,
     kMissing, "replace_order", "quantity", kId},
    {"ReplaceNegativeQuantity", As::kTrader,
     [] { return Frame(Replace(kId, 1, kPrice, -1)); }, Answer::kSessionReject,
     kOutOfRange, "replace_order", "quantity", kId},
    {"MassCancelUnknownSymbol", As::kTrader,
     [] { return Frame(MassCancel(kId, "NOPE")); }, Answer::kSessionReject,
     kUnknownSymbol, "mass_cancel", "symbol", kId},
    {"StatusWithoutOrderId", As::kTrader,
     [] { return Frame(StatusRequest(0)); }, Answer::kSessionReject, kMissing,
     "order_status_request", "order_id"},

    // ------------------------------------------------ market data
    {"SubscribeWithoutSymbol", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_market_data_subscribe()->set_depth(true);
       });
     },
     Answer::kSessionReject, kMissing, "market_data_subscribe", "symbol"},
    {"SubscribeUnknownSymbol", As::kClearingMember,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_market_data_subscribe()->set_symbol("XB2SZ9");
         e->mutable_market_data_subscribe()->set_depth(true);
       });
     },
     Answer::kSessionReject, kUnknownSymbol, "market_data_subscribe", "symbol"},
    {"SubscribeToNothing", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_market_data_subscribe()->set_symbol(kSymbol);
       });
     },
     Answer::kSessionReject, kMissing, "market_data_subscribe", "depth"},
    {"SubscribeTooManyRecentTrades", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         auto* m = e->mutable_market_data_subscribe();
         m->set_symbol(kSymbol);
         m->set_trades(true);
         m->set_recent_trades(5000);
       });
     },
     Answer::kSessionReject, kOutOfRange, "market_data_subscribe",
     "recent_trades"},
    {"SubscribeRecentTradesWithoutTrades", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         auto* m = e->mutable_market_data_subscribe();
         m->set_symbol(kSymbol);
         m->set_depth(true);
         m->set_recent_trades(10);
       });
     },
     Answer::kSessionReject, kOutOfRange, "market_data_subscribe",
     "recent_trades"},
    {"UnsubscribeWhatWasNotSubscribed", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_market_data_unsubscribe()->set_symbol(kSymbol);
       });
     },
     Answer::kSessionReject, kWrongState, "market_data_unsubscribe", "symbol"},
    {"UnsubscribeWithoutSymbol", As::kTrader,
     [] {
       return Message(
           [](w::Envelope* e) { e->mutable_market_data_unsubscribe(); });
     },
     Answer::kSessionReject, kMissing, "market_data_unsubscribe", "symbol"},

    // ------------------------------------------------ roles
    {"ClearingMemberEntersOrder", As::kClearingMember,
     [] { return Frame(NewOrder(kId, w::SIDE_BUY, kPrice, 1)); },
     Answer::kSessionReject, kNotAuthorized, "new_order", "", kId},
    {"ClearingMemberCancels", As::kClearingMember,
     [] { return Frame(Cancel(kId, 1)); }, Answer::kSessionReject,
     kNotAuthorized, "cancel_order", "", kId},
    {"AdminMassCancels", As::kAdmin, [] { return Frame(MassCancel(kId, "")); },
     Answer::kSessionReject, kNotAuthorized, "mass_cancel", "", kId},
    {"TraderMovesTheClock", As::kTrader,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_clock_request()->set_advance_ns(1'000'000'000);
       });
     },
     Answer::kSessionReject, kNotAuthorized, "clock_request"},
    {"AdminClockRequestWithoutAction", As::kAdmin,
     [] { return Message([](w::Envelope* e) { e->mutable_clock_request(); }); },
     Answer::kSessionReject, kMissing, "clock_request", "action"},
    {"AdminAdvancesClockByZero", As::kAdmin,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_clock_request()->set_advance_ns(0);
       });
     },
     Answer::kSessionReject, kOutOfRange, "clock_request", "advance_ns"},
    {"AdminSetsClockBackwards", As::kAdmin,
     [] {
       return Message([](w::Envelope* e) {
         e->mutable_clock_request()->set_set_time_ns(
             kDefaultSimulatedStart.nanos - 1);
       });
     },
     Answer::kSessionReject, kOutOfRange, "clock_request", "set_time_ns"},

    // ------------------------------------------------ logon
    {"LogonWithoutApiKey",
     As::kNobody,
     [] { return Logon([](w::Logon* m) { m->clear_api_key(); }); },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_INVALID_LOGON},
    {"LogonNonceTooShort",
     As::kNobody,
     [] { return Logon([](w::Logon* m) { m->set_nonce("short"); }); },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_INVALID_LOGON},
    {"LogonSignatureNot32Bytes",
     As::kNobody,
     [] { return Logon([](w::Logon* m) { m->set_signature("sig"); }); },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_INVALID_LOGON},
    {"LogonHeartbeatTooShort",
     As::kNobody,
     [] {
       return Logon([](w::Logon* m) { m->set_heartbeat_interval_ms(50); });
     },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_INVALID_LOGON},
    {"LogonWrongSignature",
     As::kNobody,
     [] {
       // An unknown key, not trader-a: a failed check backs its key off at
       // this address (docs/protocol.md), and later cases log on as
       // trader-a.
       return Logon([](w::Logon* m) {
         m->set_api_key("trader-z");
         m->set_signature(std::string(32, 'x'));
       });
     },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_AUTHENTICATION_FAILED},
    {"LogonStaleTimestamp",
     As::kNobody,
     [] {
       client::LogonParams p = DemoLogon("trader-a");
       p.timestamp_ns = WallNowNs() - 3'600'000'000'000;  // an hour ago
       return Frame(LogonMessage(p));
     },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_STALE_TIMESTAMP},
    {"LogonResumeBeyondTheLastSeq",
     As::kNobody,
     [] {
       client::LogonParams p = DemoLogon("trader-a");
       p.resume_after_seq = 1'000'000;
       return Frame(LogonMessage(p));
     },
     Answer::kLogonReject,
     {},
     "",
     "",
     0,
     w::LOGON_REJECT_REASON_RETRANSMISSION_UNAVAILABLE},
};

using ClientPtr = std::unique_ptr<client::Client>;

// The good command sent after case `i`: trader-b rests a small sell, away
// from anything it could trade with.
w::Envelope GoodOrder(std::size_t i) {
  return NewOrder(1000 + i, w::SIDE_SELL,
                  kPrice + static_cast<int64_t>(1 + i % 20) * kTick, 1);
}

struct Final {
  uint64_t state_hash = 0;
  uint64_t last_seq = 0;
};

// A server that runs only the good commands.
Final RunGoodCommandsOnly() {
  TestServer server;
  EXPECT_TRUE(server.Start().ok());
  {
    auto b = LogOn(server.port(), DemoLogonOptOut("trader-b"));
    EXPECT_TRUE(b.has_value()) << b.error().ToString();
    if (!b.has_value()) return {};
    for (std::size_t i = 0; i < std::size(kCases); ++i) {
      auto ack = SendOrder(*b.value(), GoodOrder(i));
      EXPECT_TRUE(ack.has_value() &&
                  ack.value().exec_type() == w::EXEC_TYPE_NEW);
    }
  }
  EXPECT_TRUE(server.Stop().ok());
  return {server.state_hash(), server.last_seq()};
}

const char* UserOf(As as) {
  switch (as) {
    case As::kTrader:
      return "trader-a";
    case As::kClearingMember:
      return "clear-1";
    case As::kAdmin:
      return "admin";
    case As::kNobody:
      break;
  }
  return nullptr;
}

// Runs one case on a new connection; `observer` is trader-b's session.
void RunCase(TestServer& server, client::Client& observer, const BadInput& c) {
  const uint64_t before = server.commands_submitted();
  ClientPtr victim;
  if (const char* user = UserOf(c.as)) {
    auto v = LogOn(server.port(), DemoLogonOptOut(user));
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    victim = std::move(v).value();
  } else {
    auto v = Connect(server.port());
    ASSERT_TRUE(v.has_value()) << v.error().ToString();
    victim = std::move(v).value();
  }
  ASSERT_TRUE(victim->SendRaw(c.bytes()).ok());

  bool alive = false;
  switch (c.answer) {
    case Answer::kSessionReject: {
      auto r = Next(*victim);
      ASSERT_TRUE(r.has_value()) << r.error().ToString();
      ASSERT_TRUE(r.value().has_session_reject()) << Describe(r.value());
      const w::SessionReject& rej = r.value().session_reject();
      EXPECT_EQ(rej.reason(), c.reason)
          << w::SessionRejectReason_Name(rej.reason()) << ": " << rej.text();
      EXPECT_EQ(rej.message_type(), c.message_type);
      EXPECT_EQ(rej.field(), c.field);
      EXPECT_EQ(rej.client_order_id(), c.client_order_id);
      EXPECT_FALSE(rej.text().empty());
      // The session lives on: it answers the barrier, and nothing else
      // came for the bad message.
      std::vector<w::Envelope> more;
      const Status st = Barrier(*victim, &more);
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_TRUE(more.empty()) << Describe(more.front());
      alive = true;
      break;
    }
    case Answer::kLogonReject: {
      auto r = Next(*victim);
      ASSERT_TRUE(r.has_value()) << r.error().ToString();
      ASSERT_TRUE(r.value().has_logon_reject()) << Describe(r.value());
      EXPECT_EQ(r.value().logon_reject().reason(), c.logon_reason)
          << r.value().logon_reject().text();
      std::vector<w::Envelope> after;
      const Status closed = AwaitClose(*victim, &after);
      ASSERT_TRUE(closed.ok()) << closed.ToString();
      EXPECT_TRUE(after.empty()) << Describe(after.front());
      break;
    }
    case Answer::kClose: {
      std::vector<w::Envelope> before_close;
      const Status closed = AwaitClose(*victim, &before_close);
      ASSERT_TRUE(closed.ok()) << closed.ToString();
      for (const w::Envelope& e : before_close) {
        // Only the answer to a good frame ahead of the bad one.
        EXPECT_TRUE(e.has_execution_report() &&
                    e.execution_report().order_id() == kBarrierOrderId)
            << Describe(e);
      }
      break;
    }
  }
  if (!alive) {
    const Status st = Barrier(observer);
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  EXPECT_EQ(server.commands_submitted(), before) << "reached the engine";

  // Leave no session behind (the next case may log on as the same user).
  if (alive && c.as != As::kNobody) {
    w::Envelope logout;
    logout.mutable_logout();
    ASSERT_TRUE(victim->Send(logout).ok());
    const Status closed = AwaitClose(*victim);
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
}

TEST(PbBadInput, EachCaseGetsItsExactAnswerAndChangesNoState) {
  static_assert(std::size(kCases) >= 30);
  TestServer server;
  ASSERT_TRUE(server.Start().ok());
  auto b = LogOn(server.port(), DemoLogonOptOut("trader-b"));
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  client::Client& observer = *b.value();
  // The seqs of the first and the last good command. The server sequences
  // commands of its own first (the spot listings of its first cycle).
  uint64_t first_good = 0;
  uint64_t last_good = 0;
  for (std::size_t i = 0; i < std::size(kCases); ++i) {
    const BadInput& c = kCases[i];
    SCOPED_TRACE(std::string("case ") + c.name);
    RunCase(server, observer, c);
    auto ack = SendOrder(observer, GoodOrder(i));
    ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
    ASSERT_EQ(ack.value().exec_type(), w::EXEC_TYPE_NEW);
    if (i == 0) first_good = ack.value().seq();
    last_good = ack.value().seq();
  }
  b.value().reset();
  ASSERT_TRUE(server.Stop().ok());

  // Equal to a server that ran only the good commands (the same server
  // commands first): no bad case added a seq before the first good command.
  const Final good = RunGoodCommandsOnly();
  EXPECT_EQ(server.state_hash(), good.state_hash);
  EXPECT_EQ(server.last_seq(), good.last_seq);
  // Nor between or after the good commands: one seq each, the last one last.
  EXPECT_EQ(last_good - first_good + 1, std::size(kCases));
  EXPECT_EQ(server.last_seq(), last_good);
}

}  // namespace
}  // namespace cfx::gateway::server_test
