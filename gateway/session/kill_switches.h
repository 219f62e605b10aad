#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/types.h"

namespace cfx::gateway {

struct ServerConfig;
struct UserConfig;

// The kill switch requests of every protocol (docs/protocol.md, "Kill
// switch"): who may turn whose switch, a firm's accounts from the config,
// the reason text's rules, one kKillSwitch command per account (one token
// for the whole request), and the engine's durable answers gathered until
// the request is complete. The reasons of the requests in flight are what
// the protocols tell the accounts' sessions (protobuf KillSwitchStatus, FIX
// News).
//
// Who asks comes from the session's user only: the admin may name any firm
// or account; a clearing member only an account it clears (another
// member's account is refused as one that does not exist) and no firm;
// other roles nothing.
//
// Thread: the gateway thread. Memory: one entry per request in flight
// (cold path).
class KillSwitches {
 public:
  static constexpr std::size_t kMaxReasonBytes = 200;

  enum class Refusal : uint8_t {
    kNone,
    kNotAuthorized,
    kUnknownFirm,
    kUnknownAccount,
    kNoTradingAccount,  // a firm without trading accounts
    kInvalidReasonText,
  };

  struct Request {
    std::string firm;     // exactly one of firm and account
    std::string account;
    bool kill = true;     // false: reinstate
    std::string reason;
  };

  // What to submit (commands, one per account by account id, sharing one
  // token in client_order_id), or why not (refusal and its text).
  struct Plan {
    Refusal refusal = Refusal::kNone;
    std::string text;
    std::vector<exchange::Command> commands;
  };

  // The engine's answer for one account of a request.
  struct AccountResult {
    exchange::AccountId account;
    exchange::RejectCode code = exchange::RejectCode::kNone;  // kNone: set
    uint32_t orders_cancelled = 0;
    uint64_t seq = 0;
  };

  // A request every command of which is answered (durable).
  struct Done {
    uint64_t token = 0;  // the commands' client_order_id
    uint64_t owner = 0;
    std::vector<AccountResult> results;  // by account id
  };

  // `config` must outlive the object.
  explicit KillSwitches(const ServerConfig& config) : config_(config) {}

  // Checks `r` for `user` and plans its commands. REQUIRES: exactly one of
  // r.firm and r.account is not empty (the protocols refuse the others as
  // malformed messages).
  Plan Prepare(const UserConfig& user, const Request& r);

  // After every command of `plan` went onto the ring: remembers the
  // request for `owner` (the protocol's key of the asking session) with
  // the reason of `r`.
  void Submitted(const Plan& plan, const Request& r, uint64_t owner);

  // The reason of the request that caused `e` (a kKillSwitchSet event), or
  // nullptr when no request in flight did (e.g. one of an earlier run, or
  // one already complete: the protocols that read it see each event before
  // OnEvent() is called with it).
  const std::string* ReasonOf(const exchange::Event& e) const;

  // A durable engine event. Returns true when it answers an account of a
  // request in flight; *done is set (and the request forgotten) when it was
  // the request's last answer, *complete tells which.
  bool OnEvent(const exchange::Event& e, bool* complete, Done* done);

  std::size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    uint64_t owner = 0;
    std::string reason;
    std::size_t outstanding = 0;
    std::vector<AccountResult> results;
  };

  const ServerConfig& config_;
  uint64_t next_token_ = 1;
  std::unordered_map<uint64_t, Pending> pending_;  // by token
};

// True iff `text` is a valid reason of an operator's control (a kill
// switch, a halt): at most KillSwitches::kMaxReasonBytes bytes, each
// printable ASCII (0x20-0x7E).
bool ValidReasonText(const std::string& text);

}  // namespace cfx::gateway
