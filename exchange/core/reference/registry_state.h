// Internal to exchange_core: the state behind Registry (registry.h) and the
// rules over it: the eligibility of each provider per grade, and the check
// and commit of each reference-data command (registry_state.cc). Registry's
// public calls are in registry.cc; its hash, snapshot and load in
// registry_snapshot.cc.
//
// Thread: owned by the engine's thread. Memory: allocates (cold path).

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/core/reference/registry.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/types.h"

namespace cfx::exchange {
namespace internal {

// Rating references and agencies, attester key ids and attesters.
inline constexpr std::size_t kMaxNameBytes = 128;

// Whether `k` is a key the registry may hold: an id of 1-128 printable
// characters, no space; an ed25519 key of 32 bytes or an hmac-sha256 key
// without public key (registry_users.cc).
bool ApiKeyOk(const ReferenceApiKey& k);

inline bool ValidName(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNameBytes;
}

struct RatingRecord {
  RatingSet rating;
  bool revoked = false;
};

struct KeyRecord {
  std::string public_key;
  std::string attester;
  bool revoked = false;
};

struct AttestationRecord {
  Attestation attestation;
  std::string canonical;  // the signed bytes, as submitted
  std::string signature;
  Timestamp accepted_at;
  uint32_t provider = 0;  // index into RegistryState::providers
};

struct ProviderState {
  std::vector<RatingRecord> ratings;  // acceptance order
  // Indexes into RegistryState::attestations, acceptance order.
  std::vector<std::size_t> attestations;
  // node_id -> the attestation that counts for the node (highest
  // measured_at; ties: accepted later).
  std::map<std::string, std::size_t, std::less<>> nodes;
  std::vector<EligibilityRow> rows;  // per grade
};

struct RegistryState {
  ReferenceConfig config;
  std::vector<ProviderState> providers;  // parallel to config.providers
  std::vector<uint32_t> by_account;      // provider indexes, account order
  std::map<std::string, uint32_t, std::less<>> provider_by_firm;
  std::map<uint32_t, uint32_t> provider_by_account;
  std::map<std::string, KeyRecord, std::less<>> keys;
  std::vector<AttestationRecord> attestations;  // acceptance order
  std::set<std::string, std::less<>> nonces;
  std::set<std::string, std::less<>> attestation_ids;
  // Users by name (registry_users.cc).
  std::map<std::string, ReferenceUser, std::less<>> users;
  // The latest time seen by Apply() (accepted) or AdvanceTime(). Rows are
  // the eligibility at `now`; invariant: next_change is 0 or after `now`.
  Timestamp now;
  Timestamp next_change;

  explicit RegistryState(const ReferenceConfig& c);

  const uint32_t* FindProvider(std::string_view firm) const {
    auto it = provider_by_firm.find(firm);
    return it == provider_by_firm.end() ? nullptr : &it->second;
  }

  bool KeyRevoked(const std::string& key_id) const {
    auto it = keys.find(key_id);
    return it == keys.end() || it->second.revoked;
  }

  // ---- eligibility ----
  // Whether `a` is an attestation of the grade's kind: signed with a live
  // key, of its GPU model, recipe and GPU count. Age and floor aside.
  bool OfGrade(const Attestation& a, const ReferenceGrade& g) const;
  // The rating in force for provider `p` at `t`, or nullptr.
  const RatingSet* CurrentRating(const ProviderState& p, Timestamp t) const;
  EligibilityRow ComputeRow(const ProviderState& p, const RatingSet* rating,
                            const ReferenceGrade& g, Timestamp t) const;
  // Recomputes the rows of the providers with affected[p] at `t`, in
  // (account, grade) order, appending the changed ones.
  void Recompute(const std::vector<bool>& affected, Timestamp t,
                 std::vector<EligibilityChange>* changes);
  void RecomputeAll(Timestamp t, std::vector<EligibilityChange>* changes);
  // The earliest instant after `t` at which a rating starts or ends or a
  // counting attestation ages out of a grade; 0 if none.
  Timestamp NextChange(Timestamp t) const;

  // ---- commands ----
  // Each Check*() decides whether a command is accepted and changes nothing;
  // the matching Commit*() applies an accepted one and names the providers
  // whose rows it can change.
  RejectCode Check(const RatingSet& m, Timestamp t) const;
  void Commit(RatingSet m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const RatingRevoke& m, Timestamp t) const;
  void Commit(const RatingRevoke& m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const AttesterKeyRegister& m, Timestamp t) const;
  void Commit(AttesterKeyRegister m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const AttesterKeyRevoke& m, Timestamp t) const;
  void Commit(const AttesterKeyRevoke& m, Timestamp t,
              std::vector<bool>& affected);
  RejectCode Check(const UserAdd& m, Timestamp t) const;
  void Commit(UserAdd m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const UserSetEnabled& m, Timestamp t) const;
  void Commit(const UserSetEnabled& m, Timestamp t,
              std::vector<bool>& affected);
  RejectCode Check(const UserSetPassword& m, Timestamp t) const;
  void Commit(UserSetPassword m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const ApiKeyAdd& m, Timestamp t) const;
  void Commit(ApiKeyAdd m, Timestamp t, std::vector<bool>& affected);
  RejectCode Check(const ApiKeyRevoke& m, Timestamp t) const;
  void Commit(const ApiKeyRevoke& m, Timestamp t, std::vector<bool>& affected);
  // Whether any user has (or had: revoked keys count) API key `key_id`.
  bool ApiKeyTaken(std::string_view key_id) const;
  // Whether another user than `name` has FIX SenderCompID `comp_id`.
  bool CompIdTaken(std::string_view comp_id, std::string_view name) const;
  // AttestationSubmit is checked on its parsed attestation.
  RejectCode CheckAttestation(const AttestationSubmit& m, const Attestation& a,
                              Timestamp t) const;
  // Adds an accepted (or loaded) attestation; returns its provider.
  uint32_t AddAttestation(AttestationRecord r);

  // The live rating a revoke names, as (provider, index into its ratings);
  // false when unknown, revoked or set by another agency.
  bool FindRating(const RatingRevoke& m, uint32_t* provider,
                  std::size_t* index) const;
};

}  // namespace internal
}  // namespace cfx::exchange
