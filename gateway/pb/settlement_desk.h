#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "gateway/config/server_config.h"
#include "settlement/settlement_service.h"

namespace cfx::gateway::pb {

// The protobuf gateway's clearing desk (DESIGN.md §5, docs/protocol.md
// "Clearing"): answers SettlementQuery, SettlementStatusRequest and
// MarginCallQuery from the settlement service, turns a clearing member's
// CollateralRequest into an engine kCollateral command and the admin's
// SettlementRerunRequest into a kSettlementRerun command, and matches the
// engine's durable answers to the requests.
//
// Who asks comes from the session's user only. A clearing member sees, and
// moves collateral of, the accounts it clears, with their fills and cash
// movements (never the other side of a trade); any other account is
// answered exactly as an account that does not exist. The admin sees every
// account. Settlement prices are shown to both. Amounts and prices are
// written by settlement/settlement_report.h, the one format of every
// settlement report and feed.
//
// Answers larger than one frame are split into several messages (`more`).
//
// Thread: the gateway thread, which also feeds the settlement service.
// Memory: allocates (cold path).
class SettlementDesk {
 public:
  // The serialized size an answer message is kept below, well inside the
  // 65,536-byte frame.
  static constexpr std::size_t kMaxMessageBytes = 60'000;
  // SettlementStatus lists at most this many dates, the latest.
  static constexpr std::size_t kMaxStatusDates = 400;

  // `settlement` may be null (a server without settlement): queries are
  // then refused SETTLEMENT_UNAVAILABLE; collateral requests still reach
  // the engine. `config` and `settlement` must remain live while the desk
  // is.
  SettlementDesk(const ServerConfig& config,
                 const settlement::SettlementService* settlement)
      : config_(config), settlement_(settlement) {}

  // The answer to `q` for `user`: one or more SettlementReport envelopes
  // (all but the last with more = true), or one ReferenceAck refusing it:
  // NOT_AUTHORIZED, INVALID_DATE, NOT_SETTLED, SETTLEMENT_UNAVAILABLE.
  std::vector<wire::v1::Envelope> Report(
      const UserConfig& user, const wire::v1::SettlementQuery& q) const;

  // The answer to `m` for `user`: a SettlementStatus envelope, or a
  // ReferenceAck refusing it (NOT_AUTHORIZED, SETTLEMENT_UNAVAILABLE).
  wire::v1::Envelope Status(const UserConfig& user,
                            const wire::v1::SettlementStatusRequest& m) const;

  // The answer to `q` for `user`: one or more MarginCallList envelopes
  // (all but the last with more = true), or one ReferenceAck refusing it:
  // NOT_AUTHORIZED, INVALID_DATE, NOT_SETTLED, SETTLEMENT_UNAVAILABLE.
  std::vector<wire::v1::Envelope> Calls(
      const UserConfig& user, const wire::v1::MarginCallQuery& q) const;

  // The outcome of a SettlementRerunRequest: a command to submit (`ack`
  // then holds the request's id and date), or an immediate refusal in
  // `ack`: NOT_AUTHORIZED (not the admin), SETTLEMENT_UNAVAILABLE,
  // INVALID_DATE, NOTHING_TO_RERUN (the date is not the refused run).
  struct Rerun {
    bool submit = false;
    exchange::Command cmd;
    wire::v1::SettlementRerunAck ack;
  };
  Rerun RerunRequest(const UserConfig& user,
                     const wire::v1::SettlementRerunRequest& m);
  // After the command of `r` went onto the ring: remember who asks.
  void Submitted(const Rerun& r, uint64_t session_id);
  // A durable engine event. For the answer to a submitted re-run (its
  // kSettlementRerun event, or a kRejected kSettlementRerun), returns true
  // with the asking session and its ack.
  bool OnRerunEvent(const exchange::Event& e, uint64_t* session_id,
                    wire::v1::SettlementRerunAck* ack);

  // The outcome of a CollateralRequest: a command to submit (`ack` then
  // holds the request's id, account and signed amount), or an immediate
  // refusal in `ack`.
  struct Request {
    bool submit = false;
    exchange::Command cmd;
    wire::v1::CollateralAck ack;
  };
  // Refuses NOT_AUTHORIZED (not a clearing member), UNKNOWN_ACCOUNT (no
  // such account, or another member's) or INVALID_AMOUNT; otherwise builds
  // the kCollateral command, with a token of its own as client_order_id.
  // REQUIRES: m.action() is DEPOSIT or WITHDRAW (the gateway rejects other
  // values as a malformed message).
  Request Collateral(const UserConfig& user,
                     const wire::v1::CollateralRequest& m);
  // After the command of `r` went onto the ring: remember who asks.
  void Submitted(const Request& r, uint64_t session_id);

  // A durable engine event. For the engine's answer to a submitted
  // request (kCollateralChanged of a deposit or withdrawal, or a kRejected
  // kCollateral), returns true with the asking session and its ack (the
  // session may be gone).
  bool OnEvent(const exchange::Event& e, uint64_t* session_id,
               wire::v1::CollateralAck* ack);

  std::size_t pending() const {
    return pending_.size() + pending_reruns_.size();
  }

 private:
  struct Pending {
    uint64_t session_id = 0;
    wire::v1::CollateralAck ack;  // request id, account, amount
    exchange::AccountId account;
  };

  // The run of `date` ("" = the latest settled) that `user` asks about in
  // request `id`, or nullptr with *refusal set: NOT_AUTHORIZED (`what` names
  // the subject), SETTLEMENT_UNAVAILABLE, INVALID_DATE, NOT_SETTLED.
  const settlement::RunReport* SettledRun(const UserConfig& user, uint64_t id,
                                          const std::string& date,
                                          const std::string& what,
                                          wire::v1::Envelope* refusal) const;
  // The settlement config's member index of a clearing member user (0 when
  // unknown); nullopt for the admin, who sees every member.
  std::optional<uint32_t> Scope(const UserConfig& user) const;

  const ServerConfig& config_;
  const settlement::SettlementService* settlement_;
  uint64_t next_token_ = 1;
  std::unordered_map<uint64_t, Pending> pending_;  // by command token
  struct PendingRerun {
    uint64_t session_id = 0;
    wire::v1::SettlementRerunAck ack;
  };
  std::unordered_map<uint64_t, PendingRerun> pending_reruns_;  // by token
};

namespace internal {

// Parses a positive USD amount: digits, optionally '.' and 1 to 6 more
// digits ("250000", "250000.00", "0.000001"), into micro-dollars. nullopt
// for anything else: empty, a sign, spaces, an exponent, a lone or
// trailing '.', a seventh decimal, zero, or more than INT64_MAX micros.
std::optional<int64_t> ParseAmountMicros(std::string_view text);

}  // namespace internal

}  // namespace cfx::gateway::pb
