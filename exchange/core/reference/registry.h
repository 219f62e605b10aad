#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/core/reject_code.h"
#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

namespace internal {
struct RegistryState;
}  // namespace internal

// What a grade requires of a provider (DESIGN.md §2-3), as the registry
// needs it. Grade indexes are positions in ReferenceConfig::grades.
struct ReferenceGrade {
  std::string name;       // "B200-STD"
  std::string gpu_model;  // "NVIDIA B200"
  uint32_t gpus_per_node = 8;
  Tier min_tier = Tier::kBronze;  // this tier or better qualifies
  uint64_t min_output_milli_tokens_per_s_per_gpu = 0;
  std::string recipe;  // "ref-8k1k-i100"
  int64_t max_attestation_age_ns = 0;
};

struct ReferenceProvider {
  std::string firm;   // "PROV-A"
  AccountId account;  // the firm's one trading account
};

struct ReferenceConfig {
  std::vector<ReferenceGrade> grades;  // at most kMaxGrades
  // Firms that may be rated and may submit attestations.
  std::vector<ReferenceProvider> providers;
  // The users a new exchange starts with (the config's); the journal's
  // admin commands change them, and a snapshot holds them as they are.
  // Names are distinct.
  std::vector<ReferenceUser> users;
};

inline constexpr uint32_t kMaxGrades = 8;

// Why a provider is not eligible for a grade, most basic first. Part of the
// journal and wire contract: append, never renumber.
enum class Eligibility : uint8_t {
  kEligible = 0,
  kNoRating = 1,               // no effective, unexpired, unrevoked rating
  kRatingBelowTier = 2,        // the current rating is below the grade's tier
  kNoAttestation = 3,          // no attested node for the grade's model/recipe
  kAttestationExpired = 4,     // attested nodes exist, all older than allowed
  kBelowPerformanceFloor = 5,  // fresh attested nodes, all below the floor
  kCapacityExceeded = 6,       // engine only: open sell lots > attested nodes
};

std::string_view EligibilityName(Eligibility e) noexcept;  // "NO_RATING", ...

// A provider's standing for one grade: eligible with `nodes` attested nodes
// that meet the grade, or not eligible for `status`.
struct EligibilityRow {
  Eligibility status = Eligibility::kNoRating;
  uint32_t nodes = 0;
  // The mean attested output tokens/s/GPU of those nodes, in thousandths,
  // rounded half-up (0 when not eligible). The index weighs it per trade.
  uint32_t milli_tokens = 0;
  friend bool operator==(const EligibilityRow&,
                         const EligibilityRow&) = default;
};

struct EligibilityChange {
  AccountId account;
  uint32_t grade = 0;
  EligibilityRow row;
};

// The deterministic state machine of reference data: operator ratings,
// attester keys, attestations and used nonces, and from them each
// provider's eligibility per grade (DESIGN.md §3). Lives inside the engine
// and sees the same sequenced commands and timestamps, so a replay rebuilds
// it exactly. Rules: docs/attestations.md.
//
// Eligibility for (provider, grade) at time t:
//  - rating: among the operator's ratings with effective <= t < expires and
//    not revoked, the one with the latest `effective` (ties: the one
//    accepted later) counts; none -> kNoRating; tier worse than min_tier ->
//    kRatingBelowTier.
//  - nodes: for each node_id of the provider, the attestation accepted last
//    (highest measured_at; ties: accepted later) counts. It meets the grade
//    when its key is not revoked, gpu_model and recipe equal the grade's,
//    gpu_count == gpus_per_node, tokens >= the floor and
//    t < measured_at + max_attestation_age. nodes = the count meeting it.
//    When nodes == 0: kNoAttestation if no node's counting attestation is
//    of the grade's kind (live key, model, recipe, GPU count),
//    kAttestationExpired if all such are too old, else
//    kBelowPerformanceFloor.
//  - eligible iff the rating qualifies and nodes > 0. A row that is not
//    eligible has nodes = 0.
//
// Time never runs backwards inside the registry: Apply() and AdvanceTime()
// work at max(now, the latest time seen so far).
//
// Thread: owned by the engine's thread. Memory: allocates (reference data is
// rare and never on the order path).
class Registry {
 public:
  // REQUIRES: provider firms and accounts are distinct; at most kMaxGrades
  // grades.
  explicit Registry(const ReferenceConfig& config);
  ~Registry();
  // Copies are independent (deep) copies.
  Registry(const Registry& other);
  Registry& operator=(const Registry& other);
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  // Applies one kReferenceData command at time `now` (its sequenced time).
  // Returns RejectCode::kNone when accepted; otherwise a specific 5xxx code
  // (reject_code.h) or kMalformedReferenceData, and nothing changes. An
  // accepted command appends the eligibility rows it changed to `changes`
  // (only rows whose value differs, in (account, grade) order). If `now`
  // reached next_change() without an AdvanceTime(), an accepted command
  // also brings every other row up to `now`, in the same list. `changes`
  // may be null.
  RejectCode Apply(std::string_view payload, Timestamp now,
                   std::vector<EligibilityChange>* changes);

  // Time passes: ratings take effect or expire, attestations age out.
  // Appends changed rows to `changes` (may be null). Idempotent; O(1) when
  // now < next_change() or next_change() is 0, else recomputes every row.
  void AdvanceTime(Timestamp now, std::vector<EligibilityChange>* changes);

  // The earliest instant after the latest time seen at which a rating (not
  // revoked) starts or ends, or a node's counting attestation with a live
  // key ages out of a grade of its kind; Timestamp{0} when none. Such an
  // instant may leave every row as it is.
  Timestamp next_change() const;

  EligibilityRow row(AccountId account, uint32_t grade) const;

  // Queries for the gateways' views (a copy of the registry fed with the same
  // accepted payloads answers them).
  struct RatingView {
    RatingSet rating;
    bool revoked = false;
  };
  std::vector<RatingView> ratings(std::string_view operator_firm) const;
  struct AttestationView {
    Attestation attestation;
    Timestamp accepted_at;
  };
  // Accepted attestations of `provider`, in acceptance order.
  std::vector<AttestationView> attestations(std::string_view provider) const;
  // The key's public key and attester; false if unknown. *revoked tells.
  bool key(std::string_view key_id, std::string* public_key,
           std::string* attester, bool* revoked) const;
  // Every user, in name order.
  std::vector<ReferenceUser> users() const;
  // The user named `name`, or nullptr. Valid until the next change.
  const ReferenceUser* user(std::string_view name) const;
  // The user that has (or had: revoked keys count) API key `key_id`, or
  // nullptr. Valid until the next change.
  const ReferenceUser* user_of_api_key(std::string_view key_id) const;

  // Canonical hash of the whole state, the latest time seen included
  // (StateHasher; strings as their length, then 8-byte little-endian
  // chunks). Equal states hash equal whatever their history of copies,
  // snapshots and loads. Hash() and Save() walk the same fields
  // (reference/registry_fields.h).
  uint64_t Hash() const;
  // Appends the whole state to `out`: a u32 format version, a u32 body
  // length, the body (format: registry_snapshot.cc above
  // SaveRegistryBody(); docs/journal.md, "Snapshot"). Rows are not stored:
  // Load() recomputes them.
  void Save(std::string* out) const;
  // Replaces the state with what Save() wrote at the front of `in` and
  // advances `in` past it. The snapshot must come from a registry with the
  // same config (providers, their accounts, number of grades). Returns
  // kDataLoss naming what is wrong and its byte offset; then nothing
  // changes and `in` is not advanced.
  Status Load(std::string_view* in);

 private:
  std::unique_ptr<internal::RegistryState> s_;
};

}  // namespace cfx::exchange
