// The registry's rules over its state (registry_state.h): each provider's
// eligibility per grade, and the check and commit of each reference-data
// command. Rules: docs/attestations.md.

#include "exchange/core/reference/registry_state.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace cfx::exchange {
namespace internal {

namespace {

// Lower tier numbers are better; kNone never qualifies.
bool TierMeets(Tier tier, Tier min_tier) {
  return tier != Tier::kNone &&
         static_cast<uint8_t>(tier) <= static_cast<uint8_t>(min_tier);
}

// a + b, saturated at the int64 limits; *overflow tells whether it was.
int64_t AddSaturated(int64_t a, int64_t b, bool* overflow) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    *overflow = true;
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  *overflow = false;
  return sum;
}

// First instant at which `a` is too old for `g`.
int64_t StaleAt(const Attestation& a, const ReferenceGrade& g,
                bool* never = nullptr) {
  bool overflow = false;
  const int64_t at =
      AddSaturated(a.measured_at.nanos, g.max_attestation_age_ns, &overflow);
  if (never != nullptr) *never = overflow && g.max_attestation_age_ns > 0;
  return at;
}

}  // namespace

RegistryState::RegistryState(const ReferenceConfig& c) : config(c) {
  providers.resize(config.providers.size());
  for (uint32_t p = 0; p < providers.size(); ++p) {
    providers[p].rows.assign(config.grades.size(), EligibilityRow{});
    provider_by_firm.emplace(config.providers[p].firm, p);
    provider_by_account.emplace(config.providers[p].account.value, p);
    by_account.push_back(p);
  }
  std::sort(by_account.begin(), by_account.end(),
            [this](uint32_t a, uint32_t b) {
              return config.providers[a].account < config.providers[b].account;
            });
  for (const ReferenceUser& u : config.users) users.emplace(u.name, u);
}

bool RegistryState::OfGrade(const Attestation& a,
                            const ReferenceGrade& g) const {
  return a.gpu_model == g.gpu_model && a.recipe == g.recipe &&
         a.gpu_count == g.gpus_per_node && !KeyRevoked(a.attester_key_id);
}

const RatingSet* RegistryState::CurrentRating(const ProviderState& p,
                                              Timestamp t) const {
  const RatingSet* best = nullptr;
  for (const RatingRecord& r : p.ratings) {
    if (r.revoked || t < r.rating.effective || !(t < r.rating.expires)) {
      continue;
    }
    if (best == nullptr || r.rating.effective >= best->effective) {
      best = &r.rating;
    }
  }
  return best;
}

EligibilityRow RegistryState::ComputeRow(const ProviderState& p,
                                         const RatingSet* rating,
                                         const ReferenceGrade& g,
                                         Timestamp t) const {
  if (rating == nullptr) return {Eligibility::kNoRating, 0};
  if (!TierMeets(rating->tier, g.min_tier)) {
    return {Eligibility::kRatingBelowTier, 0};
  }
  uint32_t nodes = 0;
  uint64_t milli_sum = 0;
  bool any = false;
  bool any_fresh = false;
  for (const auto& [node_id, index] : p.nodes) {
    const Attestation& a = attestations[index].attestation;
    if (!OfGrade(a, g)) continue;
    any = true;
    if (!(t.nanos < StaleAt(a, g))) continue;
    any_fresh = true;
    if (a.output_milli_tokens_per_s_per_gpu >=
        g.min_output_milli_tokens_per_s_per_gpu) {
      ++nodes;
      milli_sum += a.output_milli_tokens_per_s_per_gpu;
    }
  }
  if (nodes > 0) {
    const uint64_t mean = (milli_sum + nodes / 2) / nodes;
    return {Eligibility::kEligible, nodes,
            static_cast<uint32_t>(std::min<uint64_t>(mean, UINT32_MAX))};
  }
  if (!any) return {Eligibility::kNoAttestation, 0};
  if (!any_fresh) return {Eligibility::kAttestationExpired, 0};
  return {Eligibility::kBelowPerformanceFloor, 0};
}

void RegistryState::Recompute(const std::vector<bool>& affected, Timestamp t,
                              std::vector<EligibilityChange>* changes) {
  for (uint32_t pi : by_account) {
    if (!affected[pi]) continue;
    ProviderState& p = providers[pi];
    const RatingSet* rating = CurrentRating(p, t);
    for (uint32_t g = 0; g < config.grades.size(); ++g) {
      const EligibilityRow row = ComputeRow(p, rating, config.grades[g], t);
      if (row == p.rows[g]) continue;
      p.rows[g] = row;
      if (changes != nullptr) {
        changes->push_back({config.providers[pi].account, g, row});
      }
    }
  }
}

void RegistryState::RecomputeAll(Timestamp t,
                                 std::vector<EligibilityChange>* changes) {
  Recompute(std::vector<bool>(providers.size(), true), t, changes);
}

Timestamp RegistryState::NextChange(Timestamp t) const {
  int64_t next = 0;
  auto consider = [&next, t](int64_t at) {
    if (at > t.nanos && (next == 0 || at < next)) next = at;
  };
  for (const ProviderState& p : providers) {
    for (const RatingRecord& r : p.ratings) {
      if (r.revoked) continue;
      consider(r.rating.effective.nanos);
      consider(r.rating.expires.nanos);
    }
    for (const auto& [node_id, index] : p.nodes) {
      const Attestation& a = attestations[index].attestation;
      for (const ReferenceGrade& g : config.grades) {
        if (!OfGrade(a, g)) continue;
        bool never = false;
        const int64_t at = StaleAt(a, g, &never);
        if (!never) consider(at);
      }
    }
  }
  return Timestamp{next};
}

RejectCode RegistryState::Check(const RatingSet& m, Timestamp t) const {
  const uint32_t* pi = FindProvider(m.operator_firm);
  if (pi == nullptr) return RejectCode::kUnknownOperator;
  if (m.tier == Tier::kNone ||
      static_cast<uint8_t>(m.tier) >
          static_cast<uint8_t>(Tier::kUnderperform) ||
      !(m.expires > m.effective)) {
    return RejectCode::kInvalidRating;
  }
  if (!(m.expires > t)) return RejectCode::kRatingExpired;
  for (const RatingRecord& r : providers[*pi].ratings) {
    if (r.rating.reference == m.reference) {
      return RejectCode::kDuplicateRatingReference;
    }
  }
  if (!ValidName(m.reference) || !ValidName(m.agency)) {
    return RejectCode::kInvalidRating;
  }
  return RejectCode::kNone;
}

void RegistryState::Commit(RatingSet m, Timestamp /*t*/,
                           std::vector<bool>& affected) {
  const uint32_t pi = *FindProvider(m.operator_firm);
  providers[pi].ratings.push_back({std::move(m), false});
  affected[pi] = true;
}

bool RegistryState::FindRating(const RatingRevoke& m, uint32_t* provider,
                               std::size_t* index) const {
  const uint32_t* pi = FindProvider(m.operator_firm);
  if (pi == nullptr) return false;
  const std::vector<RatingRecord>& ratings = providers[*pi].ratings;
  for (std::size_t i = 0; i < ratings.size(); ++i) {
    const RatingRecord& r = ratings[i];
    if (r.rating.reference != m.reference) continue;
    if (r.revoked || r.rating.agency != m.agency) return false;
    *provider = *pi;
    *index = i;
    return true;
  }
  return false;
}

RejectCode RegistryState::Check(const RatingRevoke& m, Timestamp /*t*/) const {
  uint32_t pi = 0;
  std::size_t i = 0;
  return FindRating(m, &pi, &i) ? RejectCode::kNone
                                : RejectCode::kUnknownRating;
}

void RegistryState::Commit(const RatingRevoke& m, Timestamp /*t*/,
                           std::vector<bool>& affected) {
  uint32_t pi = 0;
  std::size_t i = 0;
  if (!FindRating(m, &pi, &i)) return;  // checked before
  providers[pi].ratings[i].revoked = true;
  affected[pi] = true;
}

RejectCode RegistryState::Check(const AttesterKeyRegister& m,
                                Timestamp /*t*/) const {
  if (!ValidName(m.key_id) || m.public_key.size() != kEd25519PublicKeyBytes ||
      !ValidName(m.attester)) {
    return RejectCode::kMalformedReferenceData;
  }
  if (keys.count(m.key_id) != 0) return RejectCode::kDuplicateAttesterKey;
  return RejectCode::kNone;
}

void RegistryState::Commit(AttesterKeyRegister m, Timestamp /*t*/,
                           std::vector<bool>& /*affected*/) {
  // No attestation can name a key before it is registered: no row changes.
  keys.emplace(std::move(m.key_id), KeyRecord{std::move(m.public_key),
                                              std::move(m.attester), false});
}

RejectCode RegistryState::Check(const AttesterKeyRevoke& m,
                                Timestamp /*t*/) const {
  auto it = keys.find(m.key_id);
  if (it == keys.end()) return RejectCode::kUnknownAttesterKey;
  if (it->second.revoked) return RejectCode::kAttesterKeyRevoked;
  return RejectCode::kNone;
}

void RegistryState::Commit(const AttesterKeyRevoke& m, Timestamp /*t*/,
                           std::vector<bool>& affected) {
  keys.find(m.key_id)->second.revoked = true;
  affected.assign(affected.size(), true);
}

RejectCode RegistryState::CheckAttestation(const AttestationSubmit& m,
                                           const Attestation& a,
                                           Timestamp t) const {
  if (m.signature.size() != kEd25519SignatureBytes) {
    return RejectCode::kMalformedReferenceData;
  }
  if (a.provider != m.submitter) return RejectCode::kProviderMismatch;
  if (FindProvider(m.submitter) == nullptr) {
    return RejectCode::kUnknownOperator;
  }
  auto key = keys.find(a.attester_key_id);
  if (key == keys.end()) return RejectCode::kUnknownAttesterKey;
  if (key->second.revoked) return RejectCode::kAttesterKeyRevoked;
  bool model = false;
  bool recipe = false;
  bool count = false;
  int64_t max_age = std::numeric_limits<int64_t>::min();
  for (const ReferenceGrade& g : config.grades) {
    if (g.gpu_model != a.gpu_model) continue;
    model = true;
    if (g.recipe != a.recipe) continue;
    recipe = true;
    max_age = std::max(max_age, g.max_attestation_age_ns);
    if (g.gpus_per_node == a.gpu_count) count = true;
  }
  if (!model) return RejectCode::kWrongGpuModel;
  if (!recipe) return RejectCode::kUnknownRecipe;
  if (!count) return RejectCode::kWrongGpuCount;
  if (a.measured_at > t) return RejectCode::kAttestationInFuture;
  // t - measured_at < max_age, without overflow: both are >= 0 here.
  bool overflow = false;
  const int64_t stale_at =
      AddSaturated(a.measured_at.nanos, max_age, &overflow);
  if (!(t.nanos < stale_at)) return RejectCode::kAttestationStale;
  if (nonces.count(a.nonce) != 0) return RejectCode::kNonceReused;
  if (attestation_ids.count(a.attestation_id) != 0) {
    return RejectCode::kDuplicateAttestationId;
  }
  return RejectCode::kNone;
}

uint32_t RegistryState::AddAttestation(AttestationRecord r) {
  const uint32_t pi = *FindProvider(r.attestation.provider);
  r.provider = pi;
  const std::size_t index = attestations.size();
  nonces.insert(r.attestation.nonce);
  attestation_ids.insert(r.attestation.attestation_id);
  ProviderState& p = providers[pi];
  p.attestations.push_back(index);
  auto node = p.nodes.find(r.attestation.node_id);
  if (node == p.nodes.end()) {
    p.nodes.emplace(r.attestation.node_id, index);
  } else if (r.attestation.measured_at >=
             attestations[node->second].attestation.measured_at) {
    node->second = index;
  }
  attestations.push_back(std::move(r));
  return pi;
}

}  // namespace internal
}  // namespace cfx::exchange
