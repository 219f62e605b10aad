// The registry's one field walk (exchange/core/reference/registry_fields.h)
// feeds both its hash and its snapshot: a change to any field the snapshot
// stores changes the hash, and the only fields one of them leaves out are
// the documented ones.
#include "exchange/core/reference/registry_fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "exchange/default_market.h"

namespace cfx::exchange::internal {
namespace {

using F = RegistryField;

// A state with one of everything: two providers, a rating, a key, an
// attestation and a user with an API key, so that the walk reaches every field.
RegistryState Populated() {
  ReferenceConfig c;
  c.grades = DesignGrades();
  c.providers = {{"PROV-B", AccountId{5}}, {"PROV-A", AccountId{4}}};
  RegistryState s(c);
  s.now = Timestamp{1'000};
  s.next_change = Timestamp{2'000};
  RatingRecord r;
  r.rating.operator_firm = "PROV-A";
  r.rating.tier = Tier::kPlatinum;
  r.rating.effective = Timestamp{10};
  r.rating.expires = Timestamp{20};
  r.rating.agency = "AGENCY";
  r.rating.reference = "R-1";
  s.providers[1].ratings.push_back(r);
  s.keys["ed25519:01"] = KeyRecord{std::string(32, 'k'), "ATTESTER", false};
  AttestationRecord a;
  a.canonical = "canonical";
  a.signature = std::string(64, 's');
  a.accepted_at = Timestamp{900};
  a.provider = 1;
  s.attestations.push_back(a);
  s.providers[1].rows[0] = EligibilityRow{Eligibility::kEligible, 3, 1'500};
  s.users["trader-a"] = ReferenceUser{
      "trader-a", "FIRM-A", 1, 4, "TRADER_A", "pbkdf2-sha256$1$00$00",
      true,       {}};
  s.users["trader-a"].api_keys = {ReferenceApiKey{"trader-a-1", kApiKeyEd25519,
                                                  std::string(32, 'p'), false}};
  return s;
}

std::set<F> Visited(const RegistryState& s) {
  std::set<F> out;
  VisitRegistryFields(s, [&out](F f, const auto&) { out.insert(f); });
  return out;
}

TEST(RegistryFields, ThePopulatedStateReachesEveryField) {
  const std::set<F> seen = Visited(Populated());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kRegistryFieldCount));
}

TEST(RegistryFields, OnlyTheDocumentedFieldsAreLeftOutOfOneSide) {
  std::vector<F> not_hashed;
  std::vector<F> not_saved;
  for (int i = 0; i < kRegistryFieldCount; ++i) {
    const auto f = static_cast<F>(i);
    if (!HashedField(f)) not_hashed.push_back(f);
    if (!SavedField(f)) not_saved.push_back(f);
  }
  EXPECT_EQ(not_hashed, std::vector<F>{F::kGradeCount});
  EXPECT_EQ(not_saved,
            (std::vector<F>{F::kNextChange, F::kAttestationProvider,
                            F::kRowStatus, F::kRowNodes, F::kRowMilliTokens}));
}

struct Change {
  F field;
  std::function<void(RegistryState&)> apply;
};

// One change per field; a field added to the walk needs one here
// (EveryFieldHasAChange).
std::vector<Change> Changes() {
  return {
      {F::kNow, [](RegistryState& s) { s.now.nanos += 1; }},
      {F::kNextChange, [](RegistryState& s) { s.next_change.nanos += 1; }},
      {F::kGradeCount,
       [](RegistryState& s) {
         s.config.grades.push_back(s.config.grades.front());
       }},
      {F::kProviderCount, [](RegistryState& s) { s.providers.emplace_back(); }},
      {F::kProviderAccount,
       [](RegistryState& s) { s.config.providers[0].account = AccountId{9}; }},
      {F::kProviderFirm,
       [](RegistryState& s) { s.config.providers[0].firm = "PROV-Z"; }},
      {F::kRatingCount,
       [](RegistryState& s) {
         s.providers[0].ratings.push_back(s.providers[1].ratings[0]);
       }},
      {F::kRatingTier,
       [](RegistryState& s) {
         s.providers[1].ratings[0].rating.tier = Tier::kGold;
       }},
      {F::kRatingEffective,
       [](RegistryState& s) {
         s.providers[1].ratings[0].rating.effective.nanos += 1;
       }},
      {F::kRatingExpires,
       [](RegistryState& s) {
         s.providers[1].ratings[0].rating.expires.nanos += 1;
       }},
      {F::kRatingAgency,
       [](RegistryState& s) {
         s.providers[1].ratings[0].rating.agency += "X";
       }},
      {F::kRatingReference,
       [](RegistryState& s) {
         s.providers[1].ratings[0].rating.reference += "X";
       }},
      {F::kRatingRevoked,
       [](RegistryState& s) { s.providers[1].ratings[0].revoked = true; }},
      {F::kKeyCount,
       [](RegistryState& s) { s.keys["ed25519:02"] = KeyRecord{}; }},
      {F::kKeyId,
       [](RegistryState& s) {
         KeyRecord k = s.keys.begin()->second;
         s.keys.clear();
         s.keys["ed25519:03"] = k;
       }},
      {F::kKeyPublicKey,
       [](RegistryState& s) { s.keys.begin()->second.public_key[0] = 'j'; }},
      {F::kKeyAttester,
       [](RegistryState& s) { s.keys.begin()->second.attester += "X"; }},
      {F::kKeyRevoked,
       [](RegistryState& s) { s.keys.begin()->second.revoked = true; }},
      {F::kAttestationCount,
       [](RegistryState& s) { s.attestations.push_back(s.attestations[0]); }},
      {F::kAttestationProvider,
       [](RegistryState& s) { s.attestations[0].provider = 0; }},
      {F::kAttestationCanonical,
       [](RegistryState& s) { s.attestations[0].canonical += "X"; }},
      {F::kAttestationSignature,
       [](RegistryState& s) { s.attestations[0].signature[0] = 't'; }},
      {F::kAttestationAcceptedAt,
       [](RegistryState& s) { s.attestations[0].accepted_at.nanos += 1; }},
      {F::kUserCount,
       [](RegistryState& s) {
         ReferenceUser u = s.users.begin()->second;
         u.name = "trader-z";
         u.fix_sender_comp_id.clear();
         s.users[u.name] = u;
       }},
      {F::kUserName,
       [](RegistryState& s) {
         ReferenceUser u = s.users.begin()->second;
         s.users.clear();
         s.users["trader-b"] = u;
       }},
      {F::kUserFirm,
       [](RegistryState& s) { s.users.begin()->second.firm += "X"; }},
      {F::kUserRole,
       [](RegistryState& s) { s.users.begin()->second.role = 2; }},
      {F::kUserAccount,
       [](RegistryState& s) { s.users.begin()->second.account = 7; }},
      {F::kUserFixCompId,
       [](RegistryState& s) {
         s.users.begin()->second.fix_sender_comp_id += "X";
       }},
      {F::kUserPasswordHash,
       [](RegistryState& s) { s.users.begin()->second.password_hash += "0"; }},
      {F::kUserEnabled,
       [](RegistryState& s) { s.users.begin()->second.enabled = false; }},
      {F::kUserKeyCount,
       [](RegistryState& s) {
         s.users.begin()->second.api_keys.push_back(
             ReferenceApiKey{"trader-a-2", kApiKeyHmacSha256, "", false});
       }},
      {F::kUserKeyId,
       [](RegistryState& s) { s.users.begin()->second.api_keys[0].id += "X"; }},
      {F::kUserKeyKind,
       [](RegistryState& s) {
         s.users.begin()->second.api_keys[0].kind = kApiKeyHmacSha256;
       }},
      {F::kUserKeyPublicKey,
       [](RegistryState& s) {
         s.users.begin()->second.api_keys[0].public_key[0] = 'q';
       }},
      {F::kUserKeyRevoked,
       [](RegistryState& s) {
         s.users.begin()->second.api_keys[0].revoked = true;
       }},
      {F::kRowStatus,
       [](RegistryState& s) {
         s.providers[1].rows[0].status = Eligibility::kNoRating;
       }},
      {F::kRowNodes, [](RegistryState& s) { s.providers[1].rows[0].nodes++; }},
      {F::kRowMilliTokens,
       [](RegistryState& s) { s.providers[1].rows[0].milli_tokens++; }},
  };
}

TEST(RegistryFields, EveryFieldHasAChange) {
  std::set<F> changed;
  for (const Change& c : Changes()) changed.insert(c.field);
  EXPECT_EQ(changed.size(), static_cast<std::size_t>(kRegistryFieldCount));
}

// A change to a field reaches the hash if the field is hashed and the
// snapshot if it is saved, and leaves the other side as it was otherwise.
TEST(RegistryFields, AChangedFieldReachesHashAndSnapshotAsMarked) {
  const RegistryState base = Populated();
  const uint64_t hash = HashRegistry(base);
  const std::string body = SaveRegistryBody(base);
  for (const Change& c : Changes()) {
    RegistryState s = base;
    c.apply(s);
    const int field = static_cast<int>(c.field);
    EXPECT_EQ(HashRegistry(s) != hash, HashedField(c.field))
        << "field " << field;
    EXPECT_EQ(SaveRegistryBody(s) != body, SavedField(c.field))
        << "field " << field;
  }
}

}  // namespace
}  // namespace cfx::exchange::internal
