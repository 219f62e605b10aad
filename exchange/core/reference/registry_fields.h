// Internal to exchange_core: the one walk over the registry's state that
// feeds both its hash (Registry::Hash()) and its snapshot
// (Registry::Save()), as exchange/core/state_fields.h does for the engine,
// so that a field added to the walk reaches both unless it is marked as
// belonging to one only (docs/journal.md "Snapshot").

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/reference/registry_state.h"

namespace cfx::exchange {
namespace internal {

// The registry's fields, in walk order.
enum class RegistryField : uint8_t {
  kNow,
  kNextChange,  // hashed, not saved: Load() recomputes it at `now`
  kGradeCount,  // saved, not hashed: the config's, checked by Load()
  kProviderCount,
  kProviderAccount,
  kProviderFirm,
  kRatingCount,
  kRatingTier,
  kRatingEffective,
  kRatingExpires,
  kRatingAgency,
  kRatingReference,
  kRatingRevoked,
  kKeyCount,
  kKeyId,
  kKeyPublicKey,
  kKeyAttester,
  kKeyRevoked,
  kAttestationCount,
  kAttestationProvider,  // hashed, not saved: the canonical bytes name it
  kAttestationCanonical,
  kAttestationSignature,
  kAttestationAcceptedAt,
  kUserCount,
  kUserName,
  kUserFirm,
  kUserRole,
  kUserAccount,
  kUserFixCompId,
  kUserPasswordHash,
  kUserEnabled,
  kUserKeyCount,
  kUserKeyId,
  kUserKeyKind,
  kUserKeyPublicKey,
  kUserKeyRevoked,
  kRowStatus,  // the rows: hashed, not saved (Load() recomputes them)
  kRowNodes,
  kRowMilliTokens,
};
inline constexpr int kRegistryFieldCount =
    static_cast<int>(RegistryField::kRowMilliTokens) + 1;

// Whether Registry::Hash() covers `f`.
constexpr bool HashedField(RegistryField f) {
  return f != RegistryField::kGradeCount;
}

// Whether Registry::Save() stores `f`.
constexpr bool SavedField(RegistryField f) {
  switch (f) {
    case RegistryField::kNextChange:
    case RegistryField::kAttestationProvider:
    case RegistryField::kRowStatus:
    case RegistryField::kRowNodes:
    case RegistryField::kRowMilliTokens:
      return false;
    default:
      return true;
  }
}

// The number of items that follow in the walk.
struct FieldCount {
  uint32_t n = 0;
};

// Calls v(RegistryField, value) for each field of `s` in walk order; value
// is an int64_t (a time in ns), uint32_t, uint8_t (an enum), bool,
// std::string_view or FieldCount.
//
// Order: now, next_change, grade count; the providers in account order,
// each with its account, firm and ratings (acceptance order); the keys in
// id order; the attestations in acceptance order (provider account,
// canonical bytes, signature, accepted_at); the users in name order (name,
// firm, role, account, FIX SenderCompID, password hash, enabled, then the
// API keys in the order added: id, kind, public key, revoked); the rows in
// (account, grade) order.
template <typename Visitor>
void VisitRegistryFields(const RegistryState& s, Visitor&& v) {
  using F = RegistryField;
  const auto count = [](std::size_t n) {
    return FieldCount{static_cast<uint32_t>(n)};
  };
  v(F::kNow, s.now.nanos);
  v(F::kNextChange, s.next_change.nanos);
  v(F::kGradeCount, count(s.config.grades.size()));
  v(F::kProviderCount, count(s.providers.size()));
  for (uint32_t pi : s.by_account) {
    v(F::kProviderAccount, s.config.providers[pi].account.value);
    v(F::kProviderFirm, std::string_view(s.config.providers[pi].firm));
    const ProviderState& p = s.providers[pi];
    v(F::kRatingCount, count(p.ratings.size()));
    for (const RatingRecord& r : p.ratings) {
      v(F::kRatingTier, static_cast<uint8_t>(r.rating.tier));
      v(F::kRatingEffective, r.rating.effective.nanos);
      v(F::kRatingExpires, r.rating.expires.nanos);
      v(F::kRatingAgency, std::string_view(r.rating.agency));
      v(F::kRatingReference, std::string_view(r.rating.reference));
      v(F::kRatingRevoked, r.revoked);
    }
  }
  v(F::kKeyCount, count(s.keys.size()));
  for (const auto& [id, k] : s.keys) {
    v(F::kKeyId, std::string_view(id));
    v(F::kKeyPublicKey, std::string_view(k.public_key));
    v(F::kKeyAttester, std::string_view(k.attester));
    v(F::kKeyRevoked, k.revoked);
  }
  v(F::kAttestationCount, count(s.attestations.size()));
  for (const AttestationRecord& r : s.attestations) {
    v(F::kAttestationProvider, s.config.providers[r.provider].account.value);
    v(F::kAttestationCanonical, std::string_view(r.canonical));
    v(F::kAttestationSignature, std::string_view(r.signature));
    v(F::kAttestationAcceptedAt, r.accepted_at.nanos);
  }
  v(F::kUserCount, count(s.users.size()));
  for (const auto& [name, u] : s.users) {
    v(F::kUserName, std::string_view(name));
    v(F::kUserFirm, std::string_view(u.firm));
    v(F::kUserRole, u.role);
    v(F::kUserAccount, static_cast<int64_t>(u.account));
    v(F::kUserFixCompId, std::string_view(u.fix_sender_comp_id));
    v(F::kUserPasswordHash, std::string_view(u.password_hash));
    v(F::kUserEnabled, u.enabled);
    v(F::kUserKeyCount, count(u.api_keys.size()));
    for (const ReferenceApiKey& k : u.api_keys) {
      v(F::kUserKeyId, std::string_view(k.id));
      v(F::kUserKeyKind, k.kind);
      v(F::kUserKeyPublicKey, std::string_view(k.public_key));
      v(F::kUserKeyRevoked, k.revoked);
    }
  }
  for (uint32_t pi : s.by_account) {
    for (const EligibilityRow& row : s.providers[pi].rows) {
      v(F::kRowStatus, static_cast<uint8_t>(row.status));
      v(F::kRowNodes, row.nodes);
      v(F::kRowMilliTokens, row.milli_tokens);
    }
  }
}

// Registry::Hash() and the body of Registry::Save() (without its version
// and length header) of `s`, both from VisitRegistryFields.
uint64_t HashRegistry(const RegistryState& s);
std::string SaveRegistryBody(const RegistryState& s);

}  // namespace internal
}  // namespace cfx::exchange
