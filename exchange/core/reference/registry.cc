#include "exchange/core/reference/registry.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/core/state_hash.h"

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

namespace {

// Rating references and agencies, attester key ids and attesters.
constexpr std::size_t kMaxNameBytes = 128;

// Registry::Save() format version (the u32 in front of everything).
constexpr uint32_t kSnapshotVersion = 1;

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
  uint32_t provider = 0;  // index into State::providers
};

struct ProviderState {
  std::vector<RatingRecord> ratings;  // acceptance order
  // Indexes into State::attestations, acceptance order.
  std::vector<std::size_t> attestations;
  // node_id -> the attestation that counts for the node (highest
  // measured_at; ties: accepted later).
  std::map<std::string, std::size_t, std::less<>> nodes;
  std::vector<EligibilityRow> rows;  // per grade
};

bool ValidName(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNameBytes;
}

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

// Feeds a string as its length, then its bytes in 8-byte little-endian
// chunks (the last one zero-padded).
void HashString(StateHasher& h, std::string_view s) {
  h.Add(static_cast<uint64_t>(s.size()));
  for (std::size_t i = 0; i < s.size(); i += 8) {
    uint64_t chunk = 0;
    for (std::size_t j = 0; j < 8 && i + j < s.size(); ++j) {
      chunk |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + j])) << (8 * j);
    }
    h.Add(chunk);
  }
}

}  // namespace

struct Registry::State {
  ReferenceConfig config;
  std::vector<ProviderState> providers;  // parallel to config.providers
  std::vector<uint32_t> by_account;      // provider indexes, account order
  std::map<std::string, uint32_t, std::less<>> provider_by_firm;
  std::map<uint32_t, uint32_t> provider_by_account;
  std::map<std::string, KeyRecord, std::less<>> keys;
  std::vector<AttestationRecord> attestations;  // acceptance order
  std::set<std::string, std::less<>> nonces;
  std::set<std::string, std::less<>> attestation_ids;
  // The latest time seen by Apply() (accepted) or AdvanceTime(). Rows are
  // the eligibility at `now`; invariant: next_change is 0 or after `now`.
  Timestamp now;
  Timestamp next_change;

  explicit State(const ReferenceConfig& c) : config(c) {
    providers.resize(config.providers.size());
    for (uint32_t p = 0; p < providers.size(); ++p) {
      providers[p].rows.assign(config.grades.size(), EligibilityRow{});
      provider_by_firm.emplace(config.providers[p].firm, p);
      provider_by_account.emplace(config.providers[p].account.value, p);
      by_account.push_back(p);
    }
    std::sort(
        by_account.begin(), by_account.end(), [this](uint32_t a, uint32_t b) {
          return config.providers[a].account < config.providers[b].account;
        });
  }

  const uint32_t* FindProvider(std::string_view firm) const {
    auto it = provider_by_firm.find(firm);
    return it == provider_by_firm.end() ? nullptr : &it->second;
  }

  bool KeyRevoked(const std::string& key_id) const {
    auto it = keys.find(key_id);
    return it == keys.end() || it->second.revoked;
  }

  // Whether `a` is an attestation of the grade's kind: signed with a live
  // key, of its GPU model, recipe and GPU count. Age and floor aside.
  bool OfGrade(const Attestation& a, const ReferenceGrade& g) const {
    return a.gpu_model == g.gpu_model && a.recipe == g.recipe &&
           a.gpu_count == g.gpus_per_node && !KeyRevoked(a.attester_key_id);
  }

  // The rating in force for provider `p` at `t`, or nullptr.
  const RatingSet* CurrentRating(const ProviderState& p, Timestamp t) const {
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

  EligibilityRow ComputeRow(const ProviderState& p, const RatingSet* rating,
                            const ReferenceGrade& g, Timestamp t) const {
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

  // Recomputes the rows of the providers with affected[p] at `t`, in
  // (account, grade) order, appending the changed ones.
  void Recompute(const std::vector<bool>& affected, Timestamp t,
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

  void RecomputeAll(Timestamp t, std::vector<EligibilityChange>* changes) {
    Recompute(std::vector<bool>(providers.size(), true), t, changes);
  }

  // The earliest instant after `t` at which a rating starts or ends or a
  // counting attestation ages out of a grade; 0 if none.
  Timestamp NextChange(Timestamp t) const {
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

  // Each Check*() decides whether a command is accepted and changes nothing;
  // the matching Commit*() applies an accepted one and names the providers
  // whose rows it can change.
  RejectCode Check(const RatingSet& m, Timestamp t) const {
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

  void Commit(RatingSet m, Timestamp /*t*/, std::vector<bool>& affected) {
    const uint32_t pi = *FindProvider(m.operator_firm);
    providers[pi].ratings.push_back({std::move(m), false});
    affected[pi] = true;
  }

  // The live rating a revoke names, as (provider, index into its ratings);
  // false when unknown, revoked or set by another agency.
  bool FindRating(const RatingRevoke& m, uint32_t* provider,
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

  RejectCode Check(const RatingRevoke& m, Timestamp /*t*/) const {
    uint32_t pi = 0;
    std::size_t i = 0;
    return FindRating(m, &pi, &i) ? RejectCode::kNone
                                  : RejectCode::kUnknownRating;
  }

  void Commit(const RatingRevoke& m, Timestamp /*t*/,
              std::vector<bool>& affected) {
    uint32_t pi = 0;
    std::size_t i = 0;
    if (!FindRating(m, &pi, &i)) return;  // checked before
    providers[pi].ratings[i].revoked = true;
    affected[pi] = true;
  }

  RejectCode Check(const AttesterKeyRegister& m, Timestamp /*t*/) const {
    if (!ValidName(m.key_id) || m.public_key.size() != kEd25519PublicKeyBytes ||
        !ValidName(m.attester)) {
      return RejectCode::kMalformedReferenceData;
    }
    if (keys.count(m.key_id) != 0) return RejectCode::kDuplicateAttesterKey;
    return RejectCode::kNone;
  }

  void Commit(AttesterKeyRegister m, Timestamp /*t*/,
              std::vector<bool>& /*affected*/) {
    // No attestation can name a key before it is registered: no row changes.
    keys.emplace(std::move(m.key_id), KeyRecord{std::move(m.public_key),
                                                std::move(m.attester), false});
  }

  RejectCode Check(const AttesterKeyRevoke& m, Timestamp /*t*/) const {
    auto it = keys.find(m.key_id);
    if (it == keys.end()) return RejectCode::kUnknownAttesterKey;
    if (it->second.revoked) return RejectCode::kAttesterKeyRevoked;
    return RejectCode::kNone;
  }

  void Commit(const AttesterKeyRevoke& m, Timestamp /*t*/,
              std::vector<bool>& affected) {
    keys.find(m.key_id)->second.revoked = true;
    affected.assign(affected.size(), true);
  }

  // AttestationSubmit is checked on its parsed attestation.
  RejectCode CheckAttestation(const AttestationSubmit& m, const Attestation& a,
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

  // Adds an accepted (or loaded) attestation; returns its provider.
  uint32_t AddAttestation(AttestationRecord r) {
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
};

Registry::Registry(const ReferenceConfig& config)
    : s_(std::make_unique<State>(config)) {}

Registry::~Registry() = default;

Registry::Registry(const Registry& other)
    : s_(std::make_unique<State>(*other.s_)) {}

Registry& Registry::operator=(const Registry& other) {
  if (this != &other) s_ = std::make_unique<State>(*other.s_);
  return *this;
}

Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

RejectCode Registry::Apply(std::string_view payload, Timestamp now,
                           std::vector<EligibilityChange>* changes) {
  State& s = *s_;
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
          AttestationRecord r;
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
  State& s = *s_;
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
  for (const RatingRecord& r : s_->providers[*pi].ratings) {
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
    const AttestationRecord& r = s_->attestations[index];
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

// The hash covers, in this order: now, next_change; per provider in account
// order its account, firm and ratings (acceptance order); the keys in id
// order; the attestations in acceptance order (provider account, canonical
// bytes, signature, accepted_at); the rows in (account, grade) order.
uint64_t Registry::Hash() const {
  const State& s = *s_;
  StateHasher h;
  h.Add(s.now.nanos);
  h.Add(s.next_change.nanos);
  h.Add(static_cast<uint64_t>(s.providers.size()));
  for (uint32_t pi : s.by_account) {
    h.Add(s.config.providers[pi].account.value);
    HashString(h, s.config.providers[pi].firm);
    const ProviderState& p = s.providers[pi];
    h.Add(static_cast<uint64_t>(p.ratings.size()));
    for (const RatingRecord& r : p.ratings) {
      h.Add(static_cast<uint64_t>(r.rating.tier));
      h.Add(r.rating.effective.nanos);
      h.Add(r.rating.expires.nanos);
      HashString(h, r.rating.agency);
      HashString(h, r.rating.reference);
      h.Add(static_cast<uint64_t>(r.revoked));
    }
  }
  h.Add(static_cast<uint64_t>(s.keys.size()));
  for (const auto& [id, k] : s.keys) {
    HashString(h, id);
    HashString(h, k.public_key);
    HashString(h, k.attester);
    h.Add(static_cast<uint64_t>(k.revoked));
  }
  h.Add(static_cast<uint64_t>(s.attestations.size()));
  for (const AttestationRecord& r : s.attestations) {
    h.Add(s.config.providers[r.provider].account.value);
    HashString(h, r.canonical);
    HashString(h, r.signature);
    h.Add(r.accepted_at.nanos);
  }
  for (uint32_t pi : s.by_account) {
    for (const EligibilityRow& row : s.providers[pi].rows) {
      h.Add(static_cast<uint64_t>(row.status));
      h.Add(row.nodes);
      h.Add(row.milli_tokens);
    }
  }
  return h.value();
}

// Snapshot format, little-endian; strings are u32 length + bytes:
//
//   u32 format version (1)
//   u32 length of what follows (the body)
//   body:
//     i64 now (ns)
//     u32 grade count (must equal the config's)
//     u32 provider count (must equal the config's)
//     per provider in account order:
//       u32 account, str firm (must equal the config's, in that order)
//       u32 rating count, then per rating in acceptance order:
//         u8 tier (1..5), i64 effective, i64 expires, str agency,
//         str reference, u8 revoked (0/1)
//     u32 key count, then per key in id order (bytewise ascending):
//       str key id, str public key (32 bytes), str attester, u8 revoked
//     u32 attestation count, then per attestation in acceptance order:
//       str canonical encoding, str signature (64 bytes), i64 accepted_at
//
// The rows and next_change are not stored: they are recomputed at `now`,
// which reproduces them exactly (rows always equal the eligibility at the
// last time seen, and no boundary lies between the last recompute and it).
void Registry::Save(std::string* out) const {
  const State& s = *s_;
  std::string body;
  ByteWriter w(&body);
  auto str = [&w](std::string_view v) {
    w.Put(static_cast<uint32_t>(v.size()));
    w.PutBytes(v);
  };
  w.Put(s.now.nanos);
  w.Put(static_cast<uint32_t>(s.config.grades.size()));
  w.Put(static_cast<uint32_t>(s.providers.size()));
  for (uint32_t pi : s.by_account) {
    w.Put(s.config.providers[pi].account.value);
    str(s.config.providers[pi].firm);
    const ProviderState& p = s.providers[pi];
    w.Put(static_cast<uint32_t>(p.ratings.size()));
    for (const RatingRecord& r : p.ratings) {
      w.Put(static_cast<uint8_t>(r.rating.tier));
      w.Put(r.rating.effective.nanos);
      w.Put(r.rating.expires.nanos);
      str(r.rating.agency);
      str(r.rating.reference);
      w.Put(static_cast<uint8_t>(r.revoked ? 1 : 0));
    }
  }
  w.Put(static_cast<uint32_t>(s.keys.size()));
  for (const auto& [id, k] : s.keys) {
    str(id);
    str(k.public_key);
    str(k.attester);
    w.Put(static_cast<uint8_t>(k.revoked ? 1 : 0));
  }
  w.Put(static_cast<uint32_t>(s.attestations.size()));
  for (const AttestationRecord& r : s.attestations) {
    str(r.canonical);
    str(r.signature);
    w.Put(r.accepted_at.nanos);
  }

  ByteWriter header(out);
  header.Put(kSnapshotVersion);
  header.Put(static_cast<uint32_t>(body.size()));
  out->append(body);
}

namespace {

// Reads the snapshot body; the first failure names the field and its byte
// offset from the start of the registry snapshot.
class SnapshotReader {
 public:
  SnapshotReader(std::string_view body, std::size_t base)
      : body_(body), base_(base) {}

  template <typename T>
  T Get(const char* field) {
    if (!status_.ok()) return T{};
    ByteReader r(body_.substr(pos_));
    T v = r.template Get<T>();
    if (!r.ok()) {
      Fail(std::string("truncated ") + field);
      return T{};
    }
    pos_ += sizeof(T);
    return v;
  }

  std::string Str(const char* field) {
    const uint32_t n = Get<uint32_t>(field);
    if (!status_.ok()) return {};
    if (body_.size() - pos_ < n) {
      Fail(std::string("truncated ") + field + " (length " + std::to_string(n) +
           ")");
      return {};
    }
    std::string v(body_.substr(pos_, n));
    pos_ += n;
    return v;
  }

  bool Bool(const char* field) {
    const uint8_t v = Get<uint8_t>(field);
    if (v > 1) Fail(std::string("bad ") + field + " flag");
    return v == 1;
  }

  // A count of items each at least `min_bytes` long: refused when the rest
  // cannot hold that many, so a corrupt count cannot make Load allocate.
  uint32_t Count(const char* field, std::size_t min_bytes) {
    const uint32_t n = Get<uint32_t>(field);
    if (status_.ok() && n > (body_.size() - pos_) / min_bytes) {
      Fail(std::string("bad ") + field + " " + std::to_string(n));
      return 0;
    }
    return n;
  }

  void Fail(const std::string& what) {
    if (!status_.ok()) return;
    status_ = DataLossError("registry snapshot: " + what + " at byte " +
                            std::to_string(base_ + pos_));
  }
  // Fails at the position where the current item started.
  void FailAt(std::size_t pos, const std::string& what) {
    pos_ = pos;
    Fail(what);
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return body_.size() - pos_; }

 private:
  std::string_view body_;
  std::size_t base_;
  std::size_t pos_ = 0;
  Status status_;
};

}  // namespace

Status Registry::Load(std::string_view* in) {
  constexpr std::size_t kHeaderBytes = 8;
  ByteReader header(*in);
  const uint32_t version = header.Get<uint32_t>();
  const uint32_t length = header.Get<uint32_t>();
  if (!header.ok()) {
    return DataLossError("registry snapshot: truncated header (" +
                         std::to_string(in->size()) + " bytes)");
  }
  if (version != kSnapshotVersion) {
    return DataLossError("registry snapshot: unsupported format version " +
                         std::to_string(version));
  }
  if (in->size() - kHeaderBytes < length) {
    return DataLossError("registry snapshot: body of " +
                         std::to_string(length) + " bytes, only " +
                         std::to_string(in->size() - kHeaderBytes) + " left");
  }
  SnapshotReader r(in->substr(kHeaderBytes, length), kHeaderBytes);
  auto s = std::make_unique<State>(s_->config);

  s->now = Timestamp{r.Get<int64_t>("now")};
  const uint32_t grades = r.Get<uint32_t>("grade count");
  if (r.ok() && grades != s->config.grades.size()) {
    r.Fail("grade count " + std::to_string(grades) + " != configured " +
           std::to_string(s->config.grades.size()));
  }
  const uint32_t providers = r.Get<uint32_t>("provider count");
  if (r.ok() && providers != s->providers.size()) {
    r.Fail("provider count " + std::to_string(providers) + " != configured " +
           std::to_string(s->providers.size()));
  }

  for (std::size_t i = 0; r.ok() && i < s->by_account.size(); ++i) {
    const uint32_t pi = s->by_account[i];
    const ReferenceProvider& cp = s->config.providers[pi];
    const std::size_t at = r.position();
    const uint32_t account = r.Get<uint32_t>("provider account");
    const std::string firm = r.Str("provider firm");
    if (r.ok() && (account != cp.account.value || firm != cp.firm)) {
      r.FailAt(at, "provider " + std::to_string(i) + " is not account " +
                       std::to_string(cp.account.value) + " " + cp.firm);
    }
    // tier, 2 times, 2 strings, revoked.
    const uint32_t count = r.Count("rating count", 1 + 8 + 8 + 4 + 4 + 1);
    for (uint32_t k = 0; r.ok() && k < count; ++k) {
      const std::size_t rat = r.position();
      RatingRecord rec;
      rec.rating.operator_firm = cp.firm;
      const uint8_t tier = r.Get<uint8_t>("rating tier");
      rec.rating.effective = Timestamp{r.Get<int64_t>("rating effective")};
      rec.rating.expires = Timestamp{r.Get<int64_t>("rating expires")};
      rec.rating.agency = r.Str("rating agency");
      rec.rating.reference = r.Str("rating reference");
      rec.revoked = r.Bool("rating revoked");
      if (!r.ok()) break;
      rec.rating.tier = static_cast<Tier>(tier);
      const std::string which = cp.firm + " rating " + std::to_string(k);
      if (tier < static_cast<uint8_t>(Tier::kPlatinum) ||
          tier > static_cast<uint8_t>(Tier::kUnderperform)) {
        r.FailAt(rat, which + ": bad tier " + std::to_string(tier));
      } else if (!(rec.rating.expires > rec.rating.effective)) {
        r.FailAt(rat, which + ": expires not after effective");
      } else if (!ValidName(rec.rating.agency) ||
                 !ValidName(rec.rating.reference)) {
        r.FailAt(rat, which + ": bad agency or reference");
      } else {
        for (const RatingRecord& other : s->providers[pi].ratings) {
          if (other.rating.reference == rec.rating.reference) {
            r.FailAt(rat, which + ": duplicate reference");
          }
        }
      }
      s->providers[pi].ratings.push_back(std::move(rec));
    }
  }

  // 3 strings, revoked.
  const uint32_t keys = r.Count("key count", 4 + 4 + 4 + 1);
  for (uint32_t k = 0; r.ok() && k < keys; ++k) {
    const std::size_t at = r.position();
    std::string id = r.Str("key id");
    KeyRecord rec;
    rec.public_key = r.Str("key public key");
    rec.attester = r.Str("key attester");
    rec.revoked = r.Bool("key revoked");
    if (!r.ok()) break;
    const std::string which = "key " + std::to_string(k);
    if (!ValidName(id) || rec.public_key.size() != kEd25519PublicKeyBytes ||
        !ValidName(rec.attester)) {
      r.FailAt(at, which + ": bad id, public key or attester");
    } else if (!s->keys.empty() && !(s->keys.rbegin()->first < id)) {
      r.FailAt(at, which + ": ids not strictly ascending");
    } else {
      s->keys.emplace_hint(s->keys.end(), std::move(id), std::move(rec));
    }
  }

  // 2 strings, accepted_at.
  const uint32_t count = r.Count("attestation count", 4 + 4 + 8);
  for (uint32_t k = 0; r.ok() && k < count; ++k) {
    const std::size_t at = r.position();
    AttestationRecord rec;
    rec.canonical = r.Str("attestation canonical");
    rec.signature = r.Str("attestation signature");
    rec.accepted_at = Timestamp{r.Get<int64_t>("attestation accepted_at")};
    if (!r.ok()) break;
    const std::string which = "attestation " + std::to_string(k);
    Result<Attestation> a = ParseCanonicalAttestation(rec.canonical);
    if (!a.has_value()) {
      r.FailAt(at, which + ": " + a.error().message());
      break;
    }
    rec.attestation = std::move(a).value();
    const Attestation& att = rec.attestation;
    if (rec.signature.size() != kEd25519SignatureBytes) {
      r.FailAt(at, which + ": signature not 64 bytes");
    } else if (s->FindProvider(att.provider) == nullptr) {
      r.FailAt(at, which + ": unknown provider " + att.provider);
    } else if (s->keys.count(att.attester_key_id) == 0) {
      r.FailAt(at, which + ": unknown key " + att.attester_key_id);
    } else if (att.measured_at > rec.accepted_at || rec.accepted_at > s->now ||
               (!s->attestations.empty() &&
                rec.accepted_at < s->attestations.back().accepted_at)) {
      r.FailAt(at, which + ": times out of order");
    } else if (s->nonces.count(att.nonce) != 0) {
      r.FailAt(at, which + ": nonce used twice");
    } else if (s->attestation_ids.count(att.attestation_id) != 0) {
      r.FailAt(at, which + ": duplicate attestation_id");
    } else {
      s->AddAttestation(std::move(rec));
    }
  }

  if (r.ok() && r.remaining() != 0) {
    r.Fail(std::to_string(r.remaining()) + " trailing bytes");
  }
  if (!r.ok()) return r.status();

  s->RecomputeAll(s->now, nullptr);
  s->next_change = s->NextChange(s->now);
  s_ = std::move(s);
  in->remove_prefix(kHeaderBytes + length);
  return Status::Ok();
}

}  // namespace cfx::exchange
