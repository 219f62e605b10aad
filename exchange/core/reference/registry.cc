// Registry's public calls: construction, applying a reference-data command,
// the passing of time, and the queries. The rules are in registry_state.cc;
// the hash, snapshot and load in registry_snapshot.cc.

#include "exchange/core/reference/registry.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "exchange/core/reference/registry_state.h"

namespace cfx::exchange {

std::string_view EligibilityName(Eligibility e) noexcept {
  switch (e) {
    case Eligibility::kEligible:
      return "ELIGIBLE";
    case Eligibility::kNoRating:
      return "NO_RATING";
    case Eligibility::kRatingBelowTier:
      return "RATING_BELOW_TIER";
    case Eligibility::kNoAttestation:
      return "NO_ATTESTATION";
    case Eligibility::kAttestationExpired:
      return "ATTESTATION_EXPIRED";
    case Eligibility::kBelowPerformanceFloor:
      return "BELOW_PERFORMANCE_FLOOR";
    case Eligibility::kCapacityExceeded:
      return "CAPACITY_EXCEEDED";
  }
  return "UNKNOWN";
}

Registry::Registry(const ReferenceConfig& config)
    : s_(std::make_unique<internal::RegistryState>(config)) {}

Registry::~Registry() = default;

Registry::Registry(const Registry& other)
    : s_(std::make_unique<internal::RegistryState>(*other.s_)) {}

Registry& Registry::operator=(const Registry& other) {
  if (this != &other) s_ = std::make_unique<internal::RegistryState>(*other.s_);
  return *this;
}

Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

RejectCode Registry::Apply(std::string_view payload, Timestamp now,
                           std::vector<EligibilityChange>* changes) {
  internal::RegistryState& s = *s_;
  Result<ReferenceMessage> decoded = DecodeReferencePayload(payload);
  if (!decoded.has_value()) return RejectCode::kMalformedReferenceData;
  // Time never runs backwards inside the registry.
  const Timestamp t = std::max(now, s.now);
  std::vector<bool> affected(s.providers.size(), false);

  RejectCode rc = std::visit(
      [&s, t, &affected](auto& m) -> RejectCode {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AttestationSubmit>) {
          Result<Attestation> a = ParseCanonicalAttestation(m.canonical);
          if (!a.has_value()) return RejectCode::kMalformedReferenceData;
          const RejectCode code = s.CheckAttestation(m, a.value(), t);
          if (code != RejectCode::kNone) return code;
          internal::AttestationRecord r;
          r.attestation = std::move(a).value();
          r.canonical = std::move(m.canonical);
          r.signature = std::move(m.signature);
          r.accepted_at = t;
          affected[s.AddAttestation(std::move(r))] = true;
          return RejectCode::kNone;
        } else {
          const RejectCode code = s.Check(m, t);
          if (code != RejectCode::kNone) return code;
          s.Commit(std::move(m), t, affected);
          return RejectCode::kNone;
        }
      },
      decoded.value());
  if (rc != RejectCode::kNone) return rc;

  // A time boundary passed since the last recompute (no AdvanceTime() call
  // in between): every row may have changed.
  if (s.next_change.nanos != 0 && t >= s.next_change) {
    affected.assign(affected.size(), true);
  }
  s.now = t;
  s.Recompute(affected, t, changes);
  s.next_change = s.NextChange(t);
  return RejectCode::kNone;
}

void Registry::AdvanceTime(Timestamp now,
                           std::vector<EligibilityChange>* changes) {
  internal::RegistryState& s = *s_;
  if (!(now > s.now)) return;
  s.now = now;
  if (s.next_change.nanos == 0 || now < s.next_change) return;
  s.RecomputeAll(now, changes);
  s.next_change = s.NextChange(now);
}

Timestamp Registry::next_change() const { return s_->next_change; }

EligibilityRow Registry::row(AccountId account, uint32_t grade) const {
  auto it = s_->provider_by_account.find(account.value);
  if (it == s_->provider_by_account.end() ||
      grade >= s_->config.grades.size()) {
    return EligibilityRow{};
  }
  return s_->providers[it->second].rows[grade];
}

std::vector<Registry::RatingView> Registry::ratings(
    std::string_view operator_firm) const {
  std::vector<RatingView> out;
  const uint32_t* pi = s_->FindProvider(operator_firm);
  if (pi == nullptr) return out;
  for (const internal::RatingRecord& r : s_->providers[*pi].ratings) {
    out.push_back({r.rating, r.revoked});
  }
  return out;
}

std::vector<Registry::AttestationView> Registry::attestations(
    std::string_view provider) const {
  std::vector<AttestationView> out;
  const uint32_t* pi = s_->FindProvider(provider);
  if (pi == nullptr) return out;
  for (std::size_t index : s_->providers[*pi].attestations) {
    const internal::AttestationRecord& r = s_->attestations[index];
    out.push_back({r.attestation, r.accepted_at});
  }
  return out;
}

bool Registry::key(std::string_view key_id, std::string* public_key,
                   std::string* attester, bool* revoked) const {
  auto it = s_->keys.find(key_id);
  if (it == s_->keys.end()) return false;
  if (public_key != nullptr) *public_key = it->second.public_key;
  if (attester != nullptr) *attester = it->second.attester;
  if (revoked != nullptr) *revoked = it->second.revoked;
  return true;
}

}  // namespace cfx::exchange
