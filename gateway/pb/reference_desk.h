#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/command.h"
#include "exchange/core/event.h"
#include "exchange/core/reference/registry.h"
#include "exchange/core/status.h"
#include "exchange/payload_arena.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway::pb {

// The user a user or API key command's payload names; "" for any other
// payload.
std::string UserNamed(std::string_view payload);

// The protobuf gateway's desk for grade-eligibility reference data and spot
// failure reports (DESIGN.md §3, docs/attestations.md, docs/protocol.md):
// checks a request against the caller's role and, for attestations, the
// signature against the registered attester key; builds the engine command
// (with its payload in the arena); matches the engine's durable answer to
// the request; and answers rating and attestation queries from its own copy
// of the registry, fed with exactly the payloads the engine accepted.
//
// Identity comes from the session's user only: the acting firm is the
// user's firm, never a field of the request.
//
// Thread: the gateway thread. Memory: allocates (cold path).
class ReferenceDesk {
 public:
  ReferenceDesk(const ServerConfig& config, exchange::PayloadArena* arena);

  // Starts from the engine's registry as recovered (before any session).
  Status Seed(const exchange::Registry& recovered);

  // The outcome of a request: a command to submit (`ack` then holds only the
  // request id), or an immediate answer in `ack`.
  struct Request {
    bool submit = false;
    exchange::Command cmd;
    wire::v1::ReferenceAck ack;
  };

  // Each returns a command, or an ack refusing the request. `now` is the
  // exchange clock (a RatingSet with effective_ns 0 takes it).
  Request RatingSet(const UserConfig& user, const wire::v1::RatingSet& m,
                    exchange::Timestamp now);
  Request RatingRevoke(const UserConfig& user, const wire::v1::RatingRevoke& m);
  Request KeyRegister(const UserConfig& user,
                      const wire::v1::AttesterKeyRegister& m);
  Request KeyRevoke(const UserConfig& user,
                    const wire::v1::AttesterKeyRevoke& m);
  Request AttestationSubmit(const UserConfig& user,
                            const wire::v1::AttestationSubmit& m);
  Request SpotFailure(const UserConfig& user,
                      const wire::v1::SpotFailureReport& m);

  // Users (reference_desk_users.cc; docs/protocol.md, "Users"), ADMIN only.
  // Refuses a user command that cannot be accepted, before any password is
  // hashed; returns true and `*refusal` then.
  bool RefuseUserCommand(const UserConfig& user, const wire::v1::Envelope& m,
                         Request* refusal) const;
  // Each builds the command; the password was hashed into `password_hash`
  // off the gateway thread. REQUIRES: RefuseUserCommand() returned false.
  Request UserAdd(const UserConfig& user, const wire::v1::UserAdd& m,
                  std::string password_hash);
  Request UserSetEnabled(const UserConfig& user,
                         const wire::v1::UserSetEnabled& m);
  Request UserSetPassword(const UserConfig& user,
                          const wire::v1::UserSetPassword& m,
                          std::string password_hash);
  // Every user as the journal has it; false (and a refusing `ack`) for a
  // caller who is not the admin.
  bool Users(const UserConfig& user, uint64_t request_id,
             wire::v1::UserList* list, wire::v1::ReferenceAck* ack) const;
  // API keys (reference_desk_keys.cc; docs/protocol.md, "API keys"): the
  // admin's for any user, anyone's for its own. Each returns a command, or
  // an ack refusing it with a specific reason.
  Request ApiKeyAdd(const UserConfig& caller, const wire::v1::ApiKeyAdd& m);
  Request ApiKeyRevoke(const UserConfig& caller,
                       const wire::v1::ApiKeyRevoke& m);
  // The keys of the user `q` names (the caller's own when empty); false
  // (and a refusing `ack`) for a user the caller may not see.
  bool ApiKeys(const UserConfig& caller, const wire::v1::ApiKeyListRequest& q,
               wire::v1::ApiKeyList* list, wire::v1::ReferenceAck* ack) const;
  // After OnEvent() returned an accepted user or API key command: the user
  // as it is now; nullptr for any other event.
  const exchange::ReferenceUser* changed_user() const;

  // After the command of `r` went onto the ring: remember who asks.
  void Submitted(const Request& r, uint64_t session_id);
  // The command of `r` could not be submitted: frees its payload slot.
  void Abandon(const Request& r);

  // A durable engine event. For the answer to a submitted request, returns
  // true with the asking session and its ack (the session may be gone).
  bool OnEvent(const exchange::Event& e, uint64_t* session_id,
               wire::v1::ReferenceAck* ack);

  // Queries, answered at exchange time `now`.
  wire::v1::RatingReport Ratings(const UserConfig& user,
                                 const wire::v1::RatingQuery& q,
                                 exchange::Timestamp now) const;
  wire::v1::AttestationList Attestations(const UserConfig& user,
                                         uint64_t request_id,
                                         exchange::Timestamp now) const;

  std::size_t pending() const { return pending_.size(); }

 private:
  struct Pending {
    uint64_t session_id = 0;
    uint64_t request_id = 0;
    std::string payload;  // empty for a failure report
    std::string key_id;   // AttesterKeyRegister
    uint64_t trade_id = 0;
  };

  Request Refuse(uint64_t request_id, wire::v1::RejectReason reason,
                 std::string text) const;
  // A kReferenceData command for `payload`, or SYSTEM_BUSY when no payload
  // slot is free.
  Request Command(uint64_t request_id, const UserConfig& user,
                  std::string payload);
  // The user `name` for `caller`: any user for the admin, only itself for
  // anyone else; nullptr otherwise, as for a user that does not exist.
  const exchange::ReferenceUser* KeyOwner(const UserConfig& caller,
                                          const std::string& name) const;
  // The command of an API key `payload` if the registry's rules accept it
  // on a copy of the view, else the refusal with its reason.
  Request SubmitKeyCommand(uint64_t request_id, const UserConfig& caller,
                           const std::string& user, const std::string& key_id,
                           std::string payload);
  // Standing per grade of provider `firm` at `now`, on a copy of the view.
  void Standing(
      const std::string& firm, exchange::Timestamp now,
      google::protobuf::RepeatedPtrField<wire::v1::GradeStanding>* out) const;

  const ServerConfig& config_;
  exchange::PayloadArena* arena_;
  exchange::Registry view_;
  uint64_t next_token_ = 1;
  std::unordered_map<uint64_t, Pending> pending_;  // by command token
  // The request behind the last Request built, until Submitted().
  Pending building_;
  // The user the last accepted event changed; empty: none.
  std::string changed_user_;
};

}  // namespace cfx::gateway::pb
