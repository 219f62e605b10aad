#include "exchange/core/reference/registry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/reference/reference_payload.h"
#include "exchange/default_market.h"

namespace cfx::exchange {
namespace {

constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kHour = 3'600 * kSec;
constexpr int64_t kDay = 86'400 * kSec;
constexpr Timestamp kT0{1'767'225'600 * kSec};  // 2026-01-01T00:00:00Z

constexpr AccountId kA{4};
constexpr AccountId kB{5};
constexpr AccountId kC{6};
constexpr uint32_t kStd = 0;
constexpr uint32_t kPrm = 1;

const std::string kKey1 = "ed25519:00000000000000a1";
const std::string kKey2 = "ed25519:00000000000000a2";

Timestamp At(int64_t offset) { return Timestamp{kT0.nanos + offset}; }

// The DESIGN.md §2 defaults.
ReferenceConfig DefaultConfig() {
  ReferenceConfig c;
  c.grades = DesignGrades();
  // Not in account order, so the (account, grade) order of changes shows.
  c.providers = {{"PROV-C", kC}, {"PROV-A", kA}, {"PROV-B", kB}};
  return c;
}

std::string Describe(const std::vector<EligibilityChange>& changes) {
  std::string out;
  for (const EligibilityChange& c : changes) {
    if (!out.empty()) out += "; ";
    out += std::to_string(c.account.value) + "/" + std::to_string(c.grade) +
           " " + std::string(EligibilityName(c.row.status)) + " " +
           std::to_string(c.row.nodes);
  }
  return out;
}

std::string SaveOf(const Registry& r) {
  std::string out;
  r.Save(&out);
  return out;
}

class RegistryTest : public ::testing::Test {
 protected:
  RegistryTest() : reg_(DefaultConfig()) {}

  RejectCode Apply(const ReferenceMessage& m, Timestamp t) {
    return ApplyBytes(EncodeReferencePayload(m), t);
  }
  RejectCode ApplyBytes(std::string_view payload, Timestamp t) {
    changes_.clear();
    return reg_.Apply(payload, t, &changes_);
  }
  void Advance(Timestamp t) {
    changes_.clear();
    reg_.AdvanceTime(t, &changes_);
  }

  static RatingSet Rating(std::string firm, Tier tier, Timestamp effective,
                          Timestamp expires, std::string reference,
                          std::string agency = "RATER") {
    RatingSet m;
    m.operator_firm = std::move(firm);
    m.tier = tier;
    m.effective = effective;
    m.expires = expires;
    m.agency = std::move(agency);
    m.reference = std::move(reference);
    return m;
  }

  // Rates `firm` `tier` from `t` for a year.
  void Rate(const std::string& firm, Tier tier, Timestamp t,
            const std::string& reference) {
    ASSERT_EQ(
        Apply(Rating(firm, tier, t, Timestamp{t.nanos + 365 * kDay}, reference),
              t),
        RejectCode::kNone);
  }

  void AddKey(const std::string& key_id, Timestamp t = kT0) {
    ASSERT_EQ(
        Apply(AttesterKeyRegister{key_id, std::string(32, 'k'), "ATTEST"}, t),
        RejectCode::kNone);
  }

  // A valid attestation of an 8-GPU B200 node on the grades' recipe, with a
  // fresh id and nonce.
  Attestation Att(const std::string& provider, const std::string& node,
                  uint64_t milli_tokens, Timestamp measured_at,
                  const std::string& key = kKey1) {
    ++serial_;
    Attestation a;
    a.attestation_id = "att-" + std::to_string(serial_);
    a.provider = provider;
    a.node_id = node;
    a.gpu_model = "NVIDIA B200";
    a.gpu_count = 8;
    for (int i = 0; i < 8; ++i) {
      a.gpu_uuids.push_back("GPU-" + node + "-" + std::to_string(i));
    }
    a.driver_version = "570.124.06";
    a.recipe = "ref-8k1k-i100";
    a.output_milli_tokens_per_s_per_gpu = milli_tokens;
    a.measured_at = measured_at;
    a.nonce = "nonce-" + std::to_string(serial_);
    a.attester_key_id = key;
    return a;
  }

  static AttestationSubmit SubmitOf(const Attestation& a,
                                    std::string submitter = "") {
    AttestationSubmit m;
    m.submitter = submitter.empty() ? a.provider : submitter;
    m.canonical = EncodeCanonicalAttestation(a);
    m.signature = std::string(kEd25519SignatureBytes, 's');
    return m;
  }

  RejectCode Submit(const Attestation& a, Timestamp t) {
    return Apply(SubmitOf(a), t);
  }

  void Accept(const Attestation& a, Timestamp t) {
    ASSERT_EQ(Submit(a, t), RejectCode::kNone);
  }

  // Applies `payload` and expects `code` with nothing changed.
  void ExpectRejectedBytes(std::string_view payload, Timestamp t,
                           RejectCode code) {
    const uint64_t hash = reg_.Hash();
    const std::string saved = SaveOf(reg_);
    const Timestamp next = reg_.next_change();
    changes_ = {{kA, 9, {}}};  // Apply must not touch it
    const RejectCode got = reg_.Apply(payload, t, &changes_);
    EXPECT_EQ(got, code) << RejectCodeName(got);
    EXPECT_EQ(changes_.size(), 1u);
    EXPECT_EQ(reg_.Hash(), hash);
    EXPECT_EQ(SaveOf(reg_), saved);
    EXPECT_EQ(reg_.next_change(), next);
  }
  void ExpectRejected(const ReferenceMessage& m, Timestamp t, RejectCode code) {
    const std::string payload = EncodeReferencePayload(m);
    ASSERT_FALSE(payload.empty());
    ExpectRejectedBytes(payload, t, code);
  }

  // The row without its mean attested speed (checked on its own below).
  EligibilityRow Row(AccountId a, uint32_t grade) const {
    EligibilityRow r = reg_.row(a, grade);
    r.milli_tokens = 0;
    return r;
  }

  Registry reg_;
  std::vector<EligibilityChange> changes_;
  int serial_ = 0;
};

const EligibilityRow kNoRatingRow{Eligibility::kNoRating, 0};
const EligibilityRow kBelowTier{Eligibility::kRatingBelowTier, 0};
const EligibilityRow kNoAttestation{Eligibility::kNoAttestation, 0};
const EligibilityRow kExpired{Eligibility::kAttestationExpired, 0};
const EligibilityRow kBelowFloor{Eligibility::kBelowPerformanceFloor, 0};
EligibilityRow Eligible(uint32_t nodes) {
  return {Eligibility::kEligible, nodes};
}

TEST(RegistryNames, EligibilityNames) {
  EXPECT_EQ(EligibilityName(Eligibility::kEligible), "ELIGIBLE");
  EXPECT_EQ(EligibilityName(Eligibility::kNoRating), "NO_RATING");
  EXPECT_EQ(EligibilityName(Eligibility::kRatingBelowTier),
            "RATING_BELOW_TIER");
  EXPECT_EQ(EligibilityName(Eligibility::kNoAttestation), "NO_ATTESTATION");
  EXPECT_EQ(EligibilityName(Eligibility::kAttestationExpired),
            "ATTESTATION_EXPIRED");
  EXPECT_EQ(EligibilityName(Eligibility::kBelowPerformanceFloor),
            "BELOW_PERFORMANCE_FLOOR");
  EXPECT_EQ(EligibilityName(Eligibility::kCapacityExceeded),
            "CAPACITY_EXCEEDED");
  EXPECT_EQ(EligibilityName(static_cast<Eligibility>(200)), "UNKNOWN");
}

// ---------------------------------------------------------------- initial

TEST_F(RegistryTest, InitialRowsAreNoRating) {
  for (AccountId a : {kA, kB, kC}) {
    EXPECT_EQ(Row(a, kStd), kNoRatingRow);
    EXPECT_EQ(Row(a, kPrm), kNoRatingRow);
  }
  EXPECT_EQ(Row(AccountId{99}, kStd), kNoRatingRow);
  EXPECT_EQ(Row(kA, 7), kNoRatingRow);
  EXPECT_EQ(reg_.next_change(), Timestamp{0});
  Advance(At(1'000 * kDay));
  EXPECT_TRUE(changes_.empty());
}

// ---------------------------------------------------------------- rejects

TEST_F(RegistryTest, UndecodablePayloadIsMalformed) {
  ExpectRejectedBytes("", kT0, RejectCode::kMalformedReferenceData);
  ExpectRejectedBytes("\x01\x09", kT0, RejectCode::kMalformedReferenceData);
  std::string trailing = EncodeReferencePayload(
      Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1"));
  trailing.push_back('x');
  ExpectRejectedBytes(trailing, kT0, RejectCode::kMalformedReferenceData);
}

TEST_F(RegistryTest, RatingOfUnknownOperatorIsRejected) {
  // Also a bad tier: the operator is checked first.
  ExpectRejected(Rating("PROV-Z", Tier::kNone, kT0, At(kDay), "R1"), kT0,
                 RejectCode::kUnknownOperator);
  ExpectRejected(Rating("", Tier::kGold, kT0, At(kDay), "R1"), kT0,
                 RejectCode::kUnknownOperator);
}

TEST_F(RegistryTest, RatingWithoutTierIsInvalid) {
  // Also expired: the tier is checked first.
  ExpectRejected(Rating("PROV-A", Tier::kNone, At(-2 * kDay), At(-kDay), "R1"),
                 kT0, RejectCode::kInvalidRating);
}

TEST_F(RegistryTest, RatingExpiringAtOrBeforeEffectiveIsInvalid) {
  ExpectRejected(Rating("PROV-A", Tier::kGold, At(kDay), At(kDay), "R1"), kT0,
                 RejectCode::kInvalidRating);
  ExpectRejected(Rating("PROV-A", Tier::kGold, At(kDay), At(kDay - 1), "R1"),
                 kT0, RejectCode::kInvalidRating);
}

TEST_F(RegistryTest, RatingExpiringAtOrBeforeNowIsExpired) {
  ExpectRejected(Rating("PROV-A", Tier::kGold, At(-kDay), kT0, "R1"), kT0,
                 RejectCode::kRatingExpired);
  EXPECT_EQ(Apply(Rating("PROV-A", Tier::kGold, At(-kDay), At(1), "R1"), kT0),
            RejectCode::kNone);
}

TEST_F(RegistryTest, RatingReferenceIsUniquePerOperatorRevokedIncluded) {
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  // Expired too: expiry is checked before the reference.
  ExpectRejected(Rating("PROV-A", Tier::kSilver, At(-kDay), kT0, "R1"), kT0,
                 RejectCode::kRatingExpired);
  ExpectRejected(Rating("PROV-A", Tier::kSilver, kT0, At(kDay), "R1"), kT0,
                 RejectCode::kDuplicateRatingReference);
  ASSERT_EQ(Apply(RatingRevoke{"PROV-A", "R1", "RATER"}, kT0),
            RejectCode::kNone);
  ExpectRejected(Rating("PROV-A", Tier::kSilver, kT0, At(kDay), "R1"), kT0,
                 RejectCode::kDuplicateRatingReference);
  // The same reference for another operator is another rating.
  Rate("PROV-B", Tier::kGold, kT0, "R1");
}

TEST_F(RegistryTest, RatingReferenceAndAgencyMustBe1To128Bytes) {
  ExpectRejected(Rating("PROV-A", Tier::kGold, kT0, At(kDay), ""), kT0,
                 RejectCode::kInvalidRating);
  ExpectRejected(
      Rating("PROV-A", Tier::kGold, kT0, At(kDay), std::string(129, 'r')), kT0,
      RejectCode::kInvalidRating);
  ExpectRejected(Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1", ""), kT0,
                 RejectCode::kInvalidRating);
  ExpectRejected(
      Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1", std::string(129, 'a')),
      kT0, RejectCode::kInvalidRating);
  EXPECT_EQ(Apply(Rating("PROV-A", Tier::kGold, kT0, At(kDay),
                         std::string(128, 'r'), std::string(128, 'a')),
                  kT0),
            RejectCode::kNone);
}

TEST_F(RegistryTest, RevokeOfUnknownRatingIsRejected) {
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  ExpectRejected(RatingRevoke{"PROV-A", "R2", "RATER"}, kT0,
                 RejectCode::kUnknownRating);
  ExpectRejected(RatingRevoke{"PROV-B", "R1", "RATER"}, kT0,
                 RejectCode::kUnknownRating);
  ExpectRejected(RatingRevoke{"PROV-Z", "R1", "RATER"}, kT0,
                 RejectCode::kUnknownRating);
}

TEST_F(RegistryTest, AgencyCannotRevokeAnotherAgencysRating) {
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  ExpectRejected(RatingRevoke{"PROV-A", "R1", "OTHER-RATER"}, kT0,
                 RejectCode::kUnknownRating);
}

TEST_F(RegistryTest, RevokeOfRevokedRatingIsRejected) {
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  ASSERT_EQ(Apply(RatingRevoke{"PROV-A", "R1", "RATER"}, kT0),
            RejectCode::kNone);
  ExpectRejected(RatingRevoke{"PROV-A", "R1", "RATER"}, kT0,
                 RejectCode::kUnknownRating);
}

TEST_F(RegistryTest, MalformedKeyRegistrationIsRejected) {
  const std::string pk(32, 'k');
  ExpectRejected(AttesterKeyRegister{"", pk, "ATTEST"}, kT0,
                 RejectCode::kMalformedReferenceData);
  ExpectRejected(AttesterKeyRegister{std::string(129, 'i'), pk, "ATTEST"}, kT0,
                 RejectCode::kMalformedReferenceData);
  ExpectRejected(AttesterKeyRegister{kKey1, std::string(31, 'k'), "ATTEST"},
                 kT0, RejectCode::kMalformedReferenceData);
  ExpectRejected(AttesterKeyRegister{kKey1, std::string(33, 'k'), "ATTEST"},
                 kT0, RejectCode::kMalformedReferenceData);
  ExpectRejected(AttesterKeyRegister{kKey1, pk, ""}, kT0,
                 RejectCode::kMalformedReferenceData);
  EXPECT_EQ(
      Apply(AttesterKeyRegister{std::string(128, 'i'), pk, "ATTEST"}, kT0),
      RejectCode::kNone);
}

TEST_F(RegistryTest, KeyIdStaysTakenAfterRevocation) {
  AddKey(kKey1);
  ExpectRejected(AttesterKeyRegister{kKey1, std::string(32, 'x'), "OTHER"}, kT0,
                 RejectCode::kDuplicateAttesterKey);
  ASSERT_EQ(Apply(AttesterKeyRevoke{kKey1}, kT0), RejectCode::kNone);
  ExpectRejected(AttesterKeyRegister{kKey1, std::string(32, 'x'), "OTHER"}, kT0,
                 RejectCode::kDuplicateAttesterKey);
}

TEST_F(RegistryTest, RevokeOfUnknownOrRevokedKeyIsRejected) {
  ExpectRejected(AttesterKeyRevoke{kKey1}, kT0,
                 RejectCode::kUnknownAttesterKey);
  AddKey(kKey1);
  ASSERT_EQ(Apply(AttesterKeyRevoke{kKey1}, kT0), RejectCode::kNone);
  ExpectRejected(AttesterKeyRevoke{kKey1}, kT0,
                 RejectCode::kAttesterKeyRevoked);
}

// Each attestation below fails one check and, where it can, every later
// one too, so the expected code pins the order of the checks.
class RegistryAttestationRejectTest : public RegistryTest {
 protected:
  RegistryAttestationRejectTest() {
    AddKey(kKey1);
    AddKey(kKey2);
    EXPECT_EQ(Apply(AttesterKeyRevoke{kKey2}, kT0), RejectCode::kNone);
    accepted_ = Att("PROV-A", "n1", 300'000, At(-kHour));
    Accept(accepted_, kT0);
  }

  // Fails the nonce and attestation id checks.
  Attestation Replay() {
    Attestation a = Att("PROV-A", "n2", 300'000, At(-kHour));
    a.nonce = accepted_.nonce;
    a.attestation_id = accepted_.attestation_id;
    return a;
  }
  // Also fails the model, recipe, count and future checks.
  Attestation WrongEverything() {
    Attestation a = Replay();
    a.gpu_model = "NVIDIA H100";
    a.recipe = "other-recipe";
    a.gpu_count = 4;
    a.gpu_uuids.resize(4);
    a.measured_at = At(kHour);
    return a;
  }

  Attestation accepted_;
};

TEST_F(RegistryAttestationRejectTest, CanonicalMustParse) {
  AttestationSubmit m = SubmitOf(WrongEverything(), "PROV-Z");
  m.canonical.insert(m.canonical.size() - 1, "\r");
  ExpectRejected(m, kT0, RejectCode::kMalformedReferenceData);
  m.canonical = "garbage";
  ExpectRejected(m, kT0, RejectCode::kMalformedReferenceData);
}

TEST_F(RegistryAttestationRejectTest, SignatureMustBe64Bytes) {
  AttestationSubmit m = SubmitOf(WrongEverything(), "PROV-Z");
  m.signature.resize(63);
  ExpectRejected(m, kT0, RejectCode::kMalformedReferenceData);
  m = SubmitOf(Att("PROV-A", "n2", 300'000, kT0));
  m.signature.resize(65, 's');
  ExpectRejected(m, kT0, RejectCode::kMalformedReferenceData);
}

TEST_F(RegistryAttestationRejectTest, ProviderMustBeTheSubmitter) {
  Attestation a = WrongEverything();
  a.attester_key_id = "ed25519:unknown";
  ExpectRejected(SubmitOf(a, "PROV-Z"), kT0, RejectCode::kProviderMismatch);
  ExpectRejected(SubmitOf(Att("PROV-A", "n2", 300'000, kT0), "PROV-B"), kT0,
                 RejectCode::kProviderMismatch);
}

TEST_F(RegistryAttestationRejectTest, SubmitterMustBeAProvider) {
  Attestation a = WrongEverything();
  a.provider = "PROV-Z";
  a.attester_key_id = "ed25519:unknown";
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kUnknownOperator);
}

TEST_F(RegistryAttestationRejectTest, KeyMustBeKnown) {
  Attestation a = WrongEverything();
  a.attester_key_id = "ed25519:unknown";
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kUnknownAttesterKey);
}

TEST_F(RegistryAttestationRejectTest, KeyMustNotBeRevoked) {
  Attestation a = WrongEverything();
  a.attester_key_id = kKey2;
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kAttesterKeyRevoked);
}

TEST_F(RegistryAttestationRejectTest, SomeGradeMustHaveTheGpuModel) {
  ExpectRejected(SubmitOf(WrongEverything()), kT0, RejectCode::kWrongGpuModel);
}

TEST_F(RegistryAttestationRejectTest, SomeGradeMustUseTheRecipe) {
  Attestation a = WrongEverything();
  a.gpu_model = "NVIDIA B200";
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kUnknownRecipe);
}

TEST_F(RegistryAttestationRejectTest, GpuCountMustBeTheGradesNodeSize) {
  Attestation a = WrongEverything();
  a.gpu_model = "NVIDIA B200";
  a.recipe = "ref-8k1k-i100";
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kWrongGpuCount);
}

TEST_F(RegistryAttestationRejectTest, MeasuredAtMustNotBeInTheFuture) {
  Attestation a = Replay();
  a.measured_at = At(kSec);
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kAttestationInFuture);
  a = Att("PROV-A", "n2", 300'000, kT0);
  EXPECT_EQ(Submit(a, kT0), RejectCode::kNone);
}

TEST_F(RegistryAttestationRejectTest, AttestationOfExactlyTheMaxAgeIsStale) {
  // The largest max age of the B200 grades on the recipe is STD's 30 days.
  Attestation a = Replay();
  a.measured_at = At(-30 * kDay);
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kAttestationStale);
  a = Att("PROV-A", "n2", 300'000, At(-30 * kDay + kSec));
  EXPECT_EQ(Submit(a, kT0), RejectCode::kNone);
}

TEST_F(RegistryAttestationRejectTest, NonceMustBeNew) {
  ExpectRejected(SubmitOf(Replay()), kT0, RejectCode::kNonceReused);
  // Another provider's nonce is used too.
  Attestation a = Att("PROV-B", "n1", 300'000, At(-kHour));
  a.nonce = accepted_.nonce;
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kNonceReused);
}

TEST_F(RegistryAttestationRejectTest, AttestationIdMustBeNew) {
  Attestation a = Att("PROV-A", "n2", 300'000, At(-kHour));
  a.attestation_id = accepted_.attestation_id;
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kDuplicateAttestationId);
}

TEST_F(RegistryAttestationRejectTest, RejectedNonceAndIdStayFree) {
  Attestation a = Att("PROV-A", "n2", 300'000, At(kHour));  // future
  ExpectRejected(SubmitOf(a), kT0, RejectCode::kAttestationInFuture);
  EXPECT_EQ(Submit(a, At(kHour)), RejectCode::kNone);
}

// ------------------------------------------------------------ eligibility

TEST_F(RegistryTest, GoldWith300TokensIsEligibleForBothGrades) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  EXPECT_EQ(Describe(changes_), "4/0 NO_ATTESTATION 0; 4/1 NO_ATTESTATION 0");
  Accept(Att("PROV-A", "n1", 300'000, At(-kHour)), kT0);
  EXPECT_EQ(Describe(changes_), "4/0 ELIGIBLE 1; 4/1 ELIGIBLE 1");
  Accept(Att("PROV-A", "n2", 300'000, At(-kHour)), kT0);
  EXPECT_EQ(Describe(changes_), "4/0 ELIGIBLE 2; 4/1 ELIGIBLE 2");
  EXPECT_EQ(Row(kA, kStd), Eligible(2));
  EXPECT_EQ(Row(kA, kPrm), Eligible(2));
  EXPECT_EQ(Row(kB, kStd), kNoRatingRow);
}

TEST_F(RegistryTest, BronzeWith210TokensIsEligibleForStdOnly) {
  AddKey(kKey1);
  Accept(Att("PROV-B", "n1", 210'000, At(-kHour)), kT0);
  EXPECT_TRUE(changes_.empty());  // no rating: still NO_RATING
  Rate("PROV-B", Tier::kBronze, kT0, "R1");
  EXPECT_EQ(Describe(changes_), "5/0 ELIGIBLE 1; 5/1 RATING_BELOW_TIER 0");
  EXPECT_EQ(Row(kB, kStd), Eligible(1));
  EXPECT_EQ(Row(kB, kPrm), kBelowTier);
}

TEST_F(RegistryTest, UnderperformIsEligibleForNeither) {
  AddKey(kKey1);
  Accept(Att("PROV-C", "n1", 300'000, At(-kHour)), kT0);
  Rate("PROV-C", Tier::kUnderperform, kT0, "R1");
  EXPECT_EQ(Row(kC, kStd), kBelowTier);
  EXPECT_EQ(Row(kC, kPrm), kBelowTier);
}

TEST_F(RegistryTest, GoldWith210TokensIsBelowThePremiumFloor) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 210'000, At(-kHour)), kT0);
  EXPECT_EQ(Row(kA, kStd), Eligible(1));
  EXPECT_EQ(Row(kA, kPrm), kBelowFloor);
}

TEST_F(RegistryTest, TheFloorIsInclusive) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kPlatinum, kT0, "R1");
  Accept(Att("PROV-A", "n1", 285'000, At(-kHour)), kT0);
  Accept(Att("PROV-A", "n2", 284'999, At(-kHour)), kT0);
  EXPECT_EQ(Row(kA, kPrm), Eligible(1));
  EXPECT_EQ(Row(kA, kStd), Eligible(2));
}

TEST_F(RegistryTest, OldAttestationIsExpiredForPremiumOnly) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 300'000, At(-10 * kDay)), kT0);
  EXPECT_EQ(Row(kA, kStd), Eligible(1));
  EXPECT_EQ(Row(kA, kPrm), kExpired);
}

TEST_F(RegistryTest, CapacityCountsDistinctNodes) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 300'000, At(-2 * kHour)), kT0);
  Accept(Att("PROV-A", "n1", 300'000, At(-kHour)), kT0);
  EXPECT_TRUE(changes_.empty());  // still one node
  Accept(Att("PROV-A", "n2", 300'000, At(-kHour)), kT0);
  EXPECT_EQ(Row(kA, kStd), Eligible(2));
  EXPECT_EQ(Row(kA, kPrm), Eligible(2));
}

TEST_F(RegistryTest, LaterMeasurementOfANodeWinsEvenIfWorse) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 300'000, At(-2 * kHour)), kT0);
  Accept(Att("PROV-A", "n1", 250'000, At(-kHour)), kT0);
  // STD keeps its node at the new, lower speed (a changed row too).
  EXPECT_EQ(Describe(changes_),
            "4/0 ELIGIBLE 1; 4/1 BELOW_PERFORMANCE_FLOOR 0");
  EXPECT_EQ(reg_.row(kA, kStd).milli_tokens, 250'000u);
  // Accepted later but measured earlier: does not count.
  Accept(Att("PROV-A", "n1", 300'000, At(-3 * kHour)), kT0);
  EXPECT_TRUE(changes_.empty());
  // Same measured_at: the one accepted later counts.
  Accept(Att("PROV-A", "n1", 300'000, At(-kHour)), kT0);
  EXPECT_EQ(Describe(changes_), "4/0 ELIGIBLE 1; 4/1 ELIGIBLE 1");
  EXPECT_EQ(reg_.row(kA, kStd).milli_tokens, 300'000u);
}

TEST_F(RegistryTest, DowngradeChangesExactlyTheAffectedRows) {
  AddKey(kKey1);
  for (const char* firm : {"PROV-A", "PROV-B", "PROV-C"}) {
    Rate(firm, Tier::kGold, kT0, std::string("R-") + firm);
    Accept(Att(firm, "n1", 300'000, At(-kHour)), kT0);
  }
  // A later-effective Bronze rating supersedes A's Gold one.
  ASSERT_EQ(
      Apply(Rating("PROV-A", Tier::kBronze, At(kSec), At(100 * kDay), "R-A-2"),
            At(kSec)),
      RejectCode::kNone);
  EXPECT_EQ(Describe(changes_), "4/1 RATING_BELOW_TIER 0");
  // Revoking the Bronze one brings Gold back.
  ASSERT_EQ(Apply(RatingRevoke{"PROV-A", "R-A-2", "RATER"}, At(2 * kSec)),
            RejectCode::kNone);
  EXPECT_EQ(Describe(changes_), "4/1 ELIGIBLE 1");
  // Revoking the Gold one leaves nothing.
  ASSERT_EQ(Apply(RatingRevoke{"PROV-A", "R-PROV-A", "RATER"}, At(3 * kSec)),
            RejectCode::kNone);
  EXPECT_EQ(Describe(changes_), "4/0 NO_RATING 0; 4/1 NO_RATING 0");
  EXPECT_EQ(Row(kB, kPrm), Eligible(1));
  EXPECT_EQ(Row(kC, kPrm), Eligible(1));
}

TEST_F(RegistryTest, RatingsWithTheSameEffectiveTimeLaterAcceptedWins) {
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Rate("PROV-A", Tier::kUnderperform, kT0, "R2");
  EXPECT_EQ(Describe(changes_),
            "4/0 RATING_BELOW_TIER 0; 4/1 RATING_BELOW_TIER 0");
}

TEST_F(RegistryTest, RatingExpiresAtExactlyExpires) {
  AddKey(kKey1);
  ASSERT_EQ(Apply(Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1"), kT0),
            RejectCode::kNone);
  Accept(Att("PROV-A", "n1", 300'000, kT0), kT0);
  EXPECT_EQ(reg_.next_change(), At(kDay));
  Advance(At(kDay - 1));
  EXPECT_TRUE(changes_.empty());
  EXPECT_EQ(Row(kA, kPrm), Eligible(1));
  Advance(At(kDay));
  EXPECT_EQ(Describe(changes_), "4/0 NO_RATING 0; 4/1 NO_RATING 0");
  // Next: the attestation ages out of PRM at 7 days (row already NO_RATING).
  EXPECT_EQ(reg_.next_change(), At(7 * kDay));
}

TEST_F(RegistryTest, AttestationExpiresAtExactlyMeasuredAtPlusMaxAge) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  const Timestamp measured = At(-kHour);
  Accept(Att("PROV-A", "n1", 300'000, measured), kT0);
  EXPECT_EQ(reg_.next_change(), Timestamp{measured.nanos + 7 * kDay});

  Advance(Timestamp{measured.nanos + 7 * kDay - 1});
  EXPECT_TRUE(changes_.empty());
  EXPECT_EQ(Row(kA, kPrm), Eligible(1));
  Advance(Timestamp{measured.nanos + 7 * kDay});
  EXPECT_EQ(Describe(changes_), "4/1 ATTESTATION_EXPIRED 0");
  EXPECT_EQ(reg_.next_change(), Timestamp{measured.nanos + 30 * kDay});

  Advance(Timestamp{measured.nanos + 30 * kDay - 1});
  EXPECT_TRUE(changes_.empty());
  Advance(Timestamp{measured.nanos + 30 * kDay});
  EXPECT_EQ(Describe(changes_), "4/0 ATTESTATION_EXPIRED 0");
  EXPECT_EQ(reg_.next_change(), At(365 * kDay));  // the rating's expiry
}

TEST_F(RegistryTest, AFreshAttestationRenewsAnExpiredNode) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 300'000, kT0), kT0);
  Advance(At(7 * kDay));
  EXPECT_EQ(Row(kA, kPrm), kExpired);
  Accept(Att("PROV-A", "n1", 300'000, At(7 * kDay)), At(7 * kDay));
  EXPECT_EQ(Describe(changes_), "4/1 ELIGIBLE 1");
  EXPECT_EQ(reg_.next_change(), At(14 * kDay));
}

TEST_F(RegistryTest, NextChangeIsTheEarliestFutureBoundary) {
  EXPECT_EQ(reg_.next_change(), Timestamp{0});
  AddKey(kKey1);
  EXPECT_EQ(reg_.next_change(), Timestamp{0});
  // Effective now, expires in 20 days.
  ASSERT_EQ(Apply(Rating("PROV-A", Tier::kGold, kT0, At(20 * kDay), "R1"), kT0),
            RejectCode::kNone);
  EXPECT_EQ(reg_.next_change(), At(20 * kDay));
  // A future rating of B: effective in 2 days.
  ASSERT_EQ(
      Apply(Rating("PROV-B", Tier::kGold, At(2 * kDay), At(40 * kDay), "R1"),
            kT0),
      RejectCode::kNone);
  EXPECT_EQ(reg_.next_change(), At(2 * kDay));
  Accept(Att("PROV-A", "n1", 300'000, At(-6 * kDay)), kT0);
  EXPECT_EQ(reg_.next_change(), At(kDay));  // PRM age-out

  const std::vector<Timestamp> expected = {
      At(2 * kDay),   // B's rating takes effect
      At(20 * kDay),  // A's rating expires
      At(24 * kDay),  // A's node ages out of STD
      At(40 * kDay),  // B's rating expires
      Timestamp{0}};
  Advance(At(kDay));
  for (Timestamp next : expected) {
    EXPECT_EQ(reg_.next_change(), next);
    // Cheap and idempotent before the boundary.
    if (next.nanos != 0) {
      Advance(Timestamp{next.nanos - 1});
      EXPECT_TRUE(changes_.empty());
      EXPECT_EQ(reg_.next_change(), next);
      Advance(next);
      Advance(next);
      EXPECT_TRUE(changes_.empty());
    }
  }
}

TEST_F(RegistryTest, FutureEffectiveRatingTakesEffectAtEffective) {
  AddKey(kKey1);
  Accept(Att("PROV-A", "n1", 300'000, kT0), kT0);
  ASSERT_EQ(
      Apply(Rating("PROV-A", Tier::kGold, At(kDay), At(5 * kDay), "R1"), kT0),
      RejectCode::kNone);
  EXPECT_TRUE(changes_.empty());
  EXPECT_EQ(Row(kA, kStd), kNoRatingRow);
  EXPECT_EQ(reg_.next_change(), At(kDay));
  Advance(At(kDay - 1));
  EXPECT_TRUE(changes_.empty());
  Advance(At(kDay));
  EXPECT_EQ(Describe(changes_), "4/0 ELIGIBLE 1; 4/1 ELIGIBLE 1");
  EXPECT_EQ(reg_.next_change(), At(5 * kDay));
}

TEST_F(RegistryTest, EarlierRatingReturnsWhenALaterOneExpires) {
  AddKey(kKey1);
  Accept(Att("PROV-A", "n1", 300'000, kT0), kT0);
  Rate("PROV-A", Tier::kBronze, kT0, "R1");  // a year
  ASSERT_EQ(
      Apply(Rating("PROV-A", Tier::kGold, At(kDay), At(2 * kDay), "R2"), kT0),
      RejectCode::kNone);
  Advance(At(kDay));
  EXPECT_EQ(Describe(changes_), "4/1 ELIGIBLE 1");
  Advance(At(2 * kDay));
  EXPECT_EQ(Describe(changes_), "4/1 RATING_BELOW_TIER 0");
}

TEST_F(RegistryTest, KeyRevocationRemovesNodesSignedWithIt) {
  AddKey(kKey1);
  AddKey(kKey2);
  Rate("PROV-A", Tier::kGold, kT0, "R-A");
  Rate("PROV-C", Tier::kGold, kT0, "R-C");
  Accept(Att("PROV-A", "n1", 300'000, kT0, kKey1), kT0);
  Accept(Att("PROV-A", "n2", 300'000, kT0, kKey2), kT0);
  Accept(Att("PROV-C", "n1", 300'000, kT0, kKey1), kT0);
  EXPECT_EQ(Row(kA, kStd), Eligible(2));
  ASSERT_EQ(Apply(AttesterKeyRevoke{kKey1}, At(kSec)), RejectCode::kNone);
  EXPECT_EQ(Describe(changes_),
            "4/0 ELIGIBLE 1; 4/1 ELIGIBLE 1; "
            "6/0 NO_ATTESTATION 0; 6/1 NO_ATTESTATION 0");
  std::string pk;
  std::string attester;
  bool revoked = false;
  ASSERT_TRUE(reg_.key(kKey1, &pk, &attester, &revoked));
  EXPECT_TRUE(revoked);
  // Revoked-key attestations no longer set a boundary: only A's n2 does.
  EXPECT_EQ(reg_.next_change(), At(7 * kDay));
}

TEST_F(RegistryTest, ApplyAfterAMissedBoundaryRecomputesEveryone) {
  AddKey(kKey1);
  ASSERT_EQ(Apply(Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1"), kT0),
            RejectCode::kNone);
  // No AdvanceTime(): a rejected command changes nothing...
  ExpectRejected(AttesterKeyRevoke{"nope"}, At(2 * kDay),
                 RejectCode::kUnknownAttesterKey);
  EXPECT_EQ(Row(kA, kStd), kNoAttestation);
  // ... an accepted one brings every row up to its time.
  Rate("PROV-B", Tier::kGold, At(2 * kDay), "R1");
  EXPECT_EQ(Describe(changes_),
            "4/0 NO_RATING 0; 4/1 NO_RATING 0; "
            "5/0 NO_ATTESTATION 0; 5/1 NO_ATTESTATION 0");
}

TEST_F(RegistryTest, TimeNeverRunsBackwards) {
  AddKey(kKey1);
  ASSERT_EQ(Apply(Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R1"), kT0),
            RejectCode::kNone);
  Advance(At(kDay));
  EXPECT_EQ(Row(kA, kStd), kNoRatingRow);
  Advance(kT0);
  EXPECT_TRUE(changes_.empty());
  EXPECT_EQ(Row(kA, kStd), kNoRatingRow);
  // A command stamped earlier is judged at the registry's time.
  ExpectRejected(Rating("PROV-A", Tier::kGold, kT0, At(kDay), "R2"), kT0,
                 RejectCode::kRatingExpired);
}

// ---------------------------------------------------------------- queries

TEST_F(RegistryTest, QueriesReturnAcceptanceOrder) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R2");
  Rate("PROV-A", Tier::kSilver, kT0, "R1");
  ASSERT_EQ(Apply(RatingRevoke{"PROV-A", "R2", "RATER"}, kT0),
            RejectCode::kNone);
  const auto ratings = reg_.ratings("PROV-A");
  ASSERT_EQ(ratings.size(), 2u);
  EXPECT_EQ(ratings[0].rating.reference, "R2");
  EXPECT_EQ(ratings[0].rating.tier, Tier::kGold);
  EXPECT_EQ(ratings[0].rating.operator_firm, "PROV-A");
  EXPECT_TRUE(ratings[0].revoked);
  EXPECT_EQ(ratings[1].rating.reference, "R1");
  EXPECT_FALSE(ratings[1].revoked);
  EXPECT_TRUE(reg_.ratings("PROV-B").empty());
  EXPECT_TRUE(reg_.ratings("PROV-Z").empty());

  const Attestation a1 = Att("PROV-A", "n2", 300'000, At(-kHour));
  const Attestation a2 = Att("PROV-A", "n1", 200'000, At(-2 * kHour));
  Accept(a1, kT0);
  Accept(a2, At(kSec));
  Accept(Att("PROV-B", "n1", 300'000, kT0), At(kSec));
  const auto atts = reg_.attestations("PROV-A");
  ASSERT_EQ(atts.size(), 2u);
  EXPECT_EQ(atts[0].attestation.attestation_id, a1.attestation_id);
  EXPECT_EQ(atts[0].accepted_at, kT0);
  EXPECT_EQ(EncodeCanonicalAttestation(atts[1].attestation),
            EncodeCanonicalAttestation(a2));
  EXPECT_EQ(atts[1].accepted_at, At(kSec));
  EXPECT_EQ(reg_.attestations("PROV-B").size(), 1u);
  EXPECT_TRUE(reg_.attestations("PROV-C").empty());
  EXPECT_TRUE(reg_.attestations("PROV-Z").empty());
}

TEST_F(RegistryTest, KeyQuery) {
  ASSERT_EQ(
      Apply(AttesterKeyRegister{kKey1, std::string(32, '\x01'), "ATT"}, kT0),
      RejectCode::kNone);
  std::string pk;
  std::string attester;
  bool revoked = true;
  ASSERT_TRUE(reg_.key(kKey1, &pk, &attester, &revoked));
  EXPECT_EQ(pk, std::string(32, '\x01'));
  EXPECT_EQ(attester, "ATT");
  EXPECT_FALSE(revoked);
  EXPECT_TRUE(reg_.key(kKey1, nullptr, nullptr, nullptr));
  EXPECT_FALSE(reg_.key(kKey2, &pk, &attester, &revoked));
}

TEST_F(RegistryTest, CopiesAreIndependent) {
  AddKey(kKey1);
  Registry copy = reg_;
  EXPECT_EQ(copy.Hash(), reg_.Hash());
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  EXPECT_NE(copy.Hash(), reg_.Hash());
  EXPECT_TRUE(copy.ratings("PROV-A").empty());
}

// ------------------------------------------------ determinism and snapshots

// One step of a scripted run: the engine calls AdvanceTime() with every
// command's time, then Apply() for reference data.
struct Step {
  Timestamp t;
  std::string payload;      // empty: time only
  bool apply_only = false;  // skip AdvanceTime(): Apply() crosses boundaries
};

class RegistryScriptTest : public RegistryTest {
 protected:
  // A run with ratings, keys, attestations, revocations, rejects and
  // boundaries crossed both by AdvanceTime() and by Apply().
  std::vector<Step> Script() {
    std::vector<Step> s;
    auto add = [&s](Timestamp t, const ReferenceMessage& m) {
      s.push_back({t, EncodeReferencePayload(m)});
    };
    auto att = [&](const char* firm, const char* node, uint64_t milli,
                   Timestamp measured, const std::string& key) {
      return SubmitOf(Att(firm, node, milli, measured, key));
    };
    auto tick = [&s](Timestamp t) { s.push_back({t, "", false}); };
    add(kT0, AttesterKeyRegister{kKey1, std::string(32, 'a'), "ATTEST"});
    add(kT0, AttesterKeyRegister{kKey2, std::string(32, 'b'), "ATTEST"});
    add(kT0, Rating("PROV-A", Tier::kGold, kT0, At(20 * kDay), "A1"));
    add(kT0, Rating("PROV-B", Tier::kBronze, kT0, At(60 * kDay), "B1"));
    add(At(kSec), att("PROV-A", "n1", 300'000, At(-kHour), kKey1));
    add(At(kSec), att("PROV-A", "n2", 290'000, kT0, kKey2));
    add(At(2 * kSec), att("PROV-B", "n1", 210'000, kT0, kKey1));
    add(At(2 * kSec), att("PROV-C", "n1", 300'000, kT0, kKey1));
    add(At(3 * kSec),
        Rating("PROV-C", Tier::kPlatinum, At(3 * kDay), At(30 * kDay), "C1"));
    add(At(3 * kSec), Rating("PROV-Z", Tier::kGold, kT0, At(kDay), "Z1"));
    s.push_back({At(4 * kSec), "\x01\x07", false});
    tick(At(kDay));
    tick(At(3 * kDay));
    add(At(4 * kDay), att("PROV-A", "n1", 250'000, At(4 * kDay), kKey1));
    add(At(4 * kDay),
        Rating("PROV-A", Tier::kSilver, At(5 * kDay), At(50 * kDay), "A2"));
    tick(At(6 * kDay));
    add(At(7 * kDay), AttesterKeyRevoke{kKey2});
    add(At(7 * kDay), RatingRevoke{"PROV-B", "B1", "OTHER"});
    tick(At(8 * kDay));
    add(At(9 * kDay), RatingRevoke{"PROV-A", "A2", "RATER"});
    // Crosses several boundaries without an AdvanceTime() of its own.
    s.push_back({At(35 * kDay),
                 EncodeReferencePayload(
                     att("PROV-B", "n2", 300'000, At(34 * kDay), kKey1)),
                 true});
    tick(At(35 * kDay));
    tick(At(61 * kDay));
    add(At(62 * kDay),
        Rating("PROV-B", Tier::kGold, At(62 * kDay), At(90 * kDay), "B2"));
    tick(At(70 * kDay));
    return s;
  }

  // Runs steps [from, to) on `r`; appends what happened to `log`.
  static void Run(Registry& r, const std::vector<Step>& steps, std::size_t from,
                  std::size_t to, std::string* log) {
    for (std::size_t i = from; i < to; ++i) {
      std::vector<EligibilityChange> changes;
      if (!steps[i].apply_only) {
        r.AdvanceTime(steps[i].t, &changes);
        *log += std::to_string(i) + " time: " + Describe(changes) + "\n";
      }
      if (steps[i].payload.empty()) continue;
      changes.clear();
      const RejectCode rc = r.Apply(steps[i].payload, steps[i].t, &changes);
      *log += std::to_string(i) + " " + std::string(RejectCodeName(rc)) + ": " +
              Describe(changes) + "; next " +
              std::to_string(r.next_change().nanos) + "\n";
    }
  }
};

TEST_F(RegistryScriptTest, SameSequenceGivesSameHashAndSnapshot) {
  const std::vector<Step> steps = Script();
  Registry a(DefaultConfig());
  Registry b(DefaultConfig());
  std::string log_a;
  std::string log_b;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Run(a, steps, i, i + 1, &log_a);
    Run(b, steps, i, i + 1, &log_b);
    ASSERT_EQ(a.Hash(), b.Hash()) << "step " << i;
    ASSERT_EQ(SaveOf(a), SaveOf(b)) << "step " << i;
  }
  EXPECT_EQ(log_a, log_b);
  // The script exercises what it should.
  EXPECT_NE(log_a.find("UNKNOWN_OPERATOR"), std::string::npos) << log_a;
  EXPECT_NE(log_a.find("MALFORMED_REFERENCE_DATA"), std::string::npos);
  EXPECT_NE(log_a.find("UNKNOWN_RATING"), std::string::npos);
  EXPECT_NE(log_a.find("ATTESTATION_EXPIRED"), std::string::npos);
  EXPECT_NE(Registry(DefaultConfig()).Hash(), a.Hash());
}

TEST_F(RegistryScriptTest, SnapshotAnywhereThenContinuingMatchesNoSnapshot) {
  const std::vector<Step> steps = Script();
  Registry full(DefaultConfig());
  std::string full_log;
  Run(full, steps, 0, steps.size(), &full_log);

  for (std::size_t cut = 0; cut <= steps.size(); ++cut) {
    SCOPED_TRACE("cut after step " + std::to_string(cut));
    Registry before(DefaultConfig());
    std::string log;
    Run(before, steps, 0, cut, &log);
    const std::string snap = SaveOf(before);

    // Load into a registry that already holds other state: it is replaced.
    Registry after(DefaultConfig());
    ASSERT_EQ(after.Apply(EncodeReferencePayload(AttesterKeyRegister{
                              "other", std::string(32, 'o'), "X"}),
                          kT0, nullptr),
              RejectCode::kNone);
    std::string_view in = snap;
    const Status st = after.Load(&in);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(after.Hash(), before.Hash());
    EXPECT_EQ(after.next_change(), before.next_change());
    EXPECT_EQ(SaveOf(after), snap);

    Run(after, steps, cut, steps.size(), &log);
    EXPECT_EQ(log, full_log);
    EXPECT_EQ(after.Hash(), full.Hash());
    EXPECT_EQ(SaveOf(after), SaveOf(full));
  }
}

TEST_F(RegistryScriptTest, LoadConsumesOnlyItsOwnBytes) {
  const std::vector<Step> steps = Script();
  std::string log;
  Run(reg_, steps, 0, 12, &log);
  std::string bytes = SaveOf(reg_);
  const std::size_t size = bytes.size();
  bytes += "rest";
  Registry r(DefaultConfig());
  std::string_view in = bytes;
  ASSERT_TRUE(r.Load(&in).ok());
  EXPECT_EQ(in, "rest");
  EXPECT_EQ(SaveOf(r).size(), size);
}

TEST_F(RegistryScriptTest, LoadRejectsEveryTruncation) {
  const std::vector<Step> steps = Script();
  std::string log;
  Run(reg_, steps, 0, steps.size(), &log);
  const std::string snap = SaveOf(reg_);
  Registry r(DefaultConfig());
  const uint64_t hash = r.Hash();
  for (std::size_t n = 0; n < snap.size(); ++n) {
    std::string_view in = std::string_view(snap).substr(0, n);
    const Status st = r.Load(&in);
    ASSERT_EQ(st.code(), StatusCode::kDataLoss) << "at " << n;
    ASSERT_EQ(in.size(), n);  // not advanced
    ASSERT_EQ(r.Hash(), hash);
  }
}

TEST_F(RegistryScriptTest, LoadRejectsATruncatedBodyWithAMatchingLength) {
  const std::vector<Step> steps = Script();
  std::string log;
  Run(reg_, steps, 0, steps.size(), &log);
  const std::string snap = SaveOf(reg_);
  Registry r(DefaultConfig());
  for (std::size_t n = 8; n < snap.size(); ++n) {
    std::string cut = snap.substr(0, n);
    const auto body = static_cast<uint32_t>(n - 8);
    for (int i = 0; i < 4; ++i) cut[4 + i] = static_cast<char>(body >> (8 * i));
    std::string_view in = cut;
    ASSERT_EQ(r.Load(&in).code(), StatusCode::kDataLoss) << "at " << n;
  }
}

TEST_F(RegistryScriptTest, LoadSurvivesRandomBytes) {
  const std::vector<Step> steps = Script();
  std::string log;
  Run(reg_, steps, 0, steps.size(), &log);
  const std::string snap = SaveOf(reg_);
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    std::string bytes;
    if (seed % 3 == 0) {
      // Pure noise behind a plausible header.
      bytes.resize(8 + rng() % 400);
      for (char& c : bytes) c = static_cast<char>(rng());
      const auto body = static_cast<uint32_t>(bytes.size() - 8);
      bytes[0] = 1;
      bytes[1] = bytes[2] = bytes[3] = 0;
      for (int i = 0; i < 4; ++i) {
        bytes[4 + i] = static_cast<char>(body >> (8 * i));
      }
    } else {
      // A valid snapshot with a few bytes changed.
      bytes = snap;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) {
        bytes[8 + rng() % (bytes.size() - 8)] = static_cast<char>(rng());
      }
    }
    Registry r(DefaultConfig());
    std::string_view in = bytes;
    const Status st = r.Load(&in);
    if (st.ok()) {
      // Whatever loaded is a consistent registry.
      std::string again;
      r.Save(&again);
      Registry r2(DefaultConfig());
      std::string_view in2 = again;
      ASSERT_TRUE(r2.Load(&in2).ok());
      EXPECT_EQ(r2.Hash(), r.Hash());
      EXPECT_EQ(again, bytes);
    } else {
      EXPECT_EQ(st.code(), StatusCode::kDataLoss);
    }
  }
}

TEST_F(RegistryTest, LoadRejectsAnotherVersion) {
  std::string snap = SaveOf(reg_);
  snap[0] = 4;  // the next format, not written yet
  std::string_view in = snap;
  const Status st = reg_.Load(&in);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("version"), std::string::npos) << st.message();
}

TEST_F(RegistryTest, LoadRejectsTrailingBytesInsideTheBody) {
  std::string snap = SaveOf(reg_) + "x";
  snap[4] = static_cast<char>(snap[4] + 1);  // body length
  std::string_view in = snap;
  const Status st = reg_.Load(&in);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("trailing"), std::string::npos) << st.message();
}

TEST_F(RegistryTest, LoadRejectsASnapshotOfAnotherConfig) {
  ReferenceConfig other = DefaultConfig();
  other.providers[0].firm = "PROV-X";
  Registry r(other);
  std::string snap = SaveOf(r);
  std::string_view in = snap;
  Status st = reg_.Load(&in);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("PROV-C"), std::string::npos) << st.message();

  other = DefaultConfig();
  other.grades.pop_back();
  snap = SaveOf(Registry(other));
  in = snap;
  st = reg_.Load(&in);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("grade count"), std::string::npos)
      << st.message();
}

TEST_F(RegistryTest, SaveLoadRoundTripKeepsHashAndBytes) {
  AddKey(kKey1);
  Rate("PROV-A", Tier::kGold, kT0, "R1");
  Accept(Att("PROV-A", "n1", 300'000, At(-kHour)), kT0);
  Advance(At(kHour));
  const std::string snap = SaveOf(reg_);
  Registry r(DefaultConfig());
  std::string_view in = snap;
  ASSERT_TRUE(r.Load(&in).ok());
  EXPECT_EQ(r.Hash(), reg_.Hash());
  EXPECT_EQ(SaveOf(r), snap);
  EXPECT_EQ(r.row(kA, kPrm), reg_.row(kA, kPrm));
  EXPECT_EQ(r.row(kA, kPrm).nodes, 1u);
  EXPECT_EQ(r.next_change(), reg_.next_change());
  EXPECT_EQ(r.attestations("PROV-A").size(), 1u);
  EXPECT_TRUE(r.key(kKey1, nullptr, nullptr, nullptr));
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// `snap` as an older format `version` wrote it: the last 4 bytes (a count
// of 0 the older format has not) cut off, the version and body length
// rewritten.
std::string OlderFormat(std::string snap, uint8_t version) {
  snap.resize(snap.size() - 4);
  snap[0] = static_cast<char>(version);
  uint32_t length = 0;  // the body's, little-endian
  for (int i = 0; i < 4; ++i) {
    length |= static_cast<uint32_t>(static_cast<uint8_t>(snap[4 + i]))
              << (8 * i);
  }
  length -= 4;
  for (int i = 0; i < 4; ++i) {
    snap[4 + i] = static_cast<char>((length >> (8 * i)) & 0xff);
  }
  return snap;
}

// The users (registry_users.cc): seeded from the config, changed only by
// valid commands, kept by a snapshot.
class RegistryUsersTest : public ::testing::Test {
 protected:
  static ReferenceConfig WithUsers() {
    ReferenceConfig c = DefaultConfig();
    c.users = {ReferenceUser{"trader-a",
                             "FIRM-A",
                             1,
                             4,
                             "TRADER_A",
                             "pbkdf2-sha256$1$00$00",
                             true,
                             {}}};
    return c;
  }
  static UserAdd Add(std::string name, std::string comp_id) {
    return UserAdd{ReferenceUser{std::move(name),
                                 "FIRM-A",
                                 1,
                                 4,
                                 std::move(comp_id),
                                 "pbkdf2-sha256$1$00$01",
                                 true,
                                 {}}};
  }
  RejectCode Apply(const ReferenceMessage& m) {
    return reg_.Apply(EncodeReferencePayload(m), kT0, nullptr);
  }

  Registry reg_{WithUsers()};
};

TEST_F(RegistryUsersTest, TheConfigSeedsTheUsers) {
  const ReferenceUser* u = reg_.user("trader-a");
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(u->enabled);
  EXPECT_EQ(u->fix_sender_comp_id, "TRADER_A");
}

TEST_F(RegistryUsersTest, ValidCommandsChangeTheUsers) {
  ASSERT_EQ(Apply(Add("trader-z", "TRADER_Z")), RejectCode::kNone);
  ASSERT_EQ(Apply(UserSetEnabled{"trader-a", false}), RejectCode::kNone);
  ASSERT_EQ(Apply(UserSetPassword{"trader-a", "pbkdf2-sha256$1$00$02"}),
            RejectCode::kNone);
  EXPECT_NE(reg_.user("trader-z"), nullptr);
  EXPECT_FALSE(reg_.user("trader-a")->enabled);
  EXPECT_EQ(reg_.user("trader-a")->password_hash, "pbkdf2-sha256$1$00$02");
  EXPECT_EQ(reg_.users().size(), 2u);
}

TEST_F(RegistryUsersTest, BadCommandsAreRejectedAndChangeNothing) {
  const uint64_t hash = reg_.Hash();
  EXPECT_EQ(Apply(Add("trader-a", "TRADER_Z")), RejectCode::kDuplicateUser);
  EXPECT_EQ(Apply(Add("trader-z", "TRADER_A")), RejectCode::kDuplicateUser);
  EXPECT_EQ(Apply(Add("has space", "")), RejectCode::kInvalidUser);
  UserAdd no_role = Add("trader-z", "");
  no_role.user.role = 0;
  EXPECT_EQ(Apply(no_role), RejectCode::kInvalidUser);
  UserAdd plain = Add("trader-z", "");
  plain.user.password_hash = "plaintext";
  EXPECT_EQ(Apply(plain), RejectCode::kInvalidUser);
  EXPECT_EQ(Apply(UserSetEnabled{"nobody", false}), RejectCode::kUnknownUser);
  EXPECT_EQ(Apply(UserSetPassword{"nobody", "pbkdf2-sha256$1$00$02"}),
            RejectCode::kUnknownUser);
  EXPECT_EQ(Apply(UserSetPassword{"trader-a", ""}), RejectCode::kInvalidUser);
  EXPECT_EQ(reg_.Hash(), hash);
}

// Format 1, written before the users: it loads, and the users are the
// config's.
TEST_F(RegistryUsersTest, AFormatOneSnapshotLoadsWithTheConfigsUsers) {
  Registry empty(DefaultConfig());
  // Without the user count (0) at the end.
  const std::string snap = OlderFormat(SaveOf(empty), 1);
  std::string_view in = snap;
  const Status st = reg_.Load(&in);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(in.empty());
  EXPECT_NE(reg_.user("trader-a"), nullptr);
}

TEST_F(RegistryUsersTest, ASnapshotKeepsTheUsersOverTheConfigs) {
  ASSERT_EQ(Apply(Add("trader-z", "TRADER_Z")), RejectCode::kNone);
  ASSERT_EQ(Apply(UserSetEnabled{"trader-a", false}), RejectCode::kNone);
  const std::string snap = SaveOf(reg_);
  // Loaded into a registry whose config has other users: the snapshot's
  // users replace them.
  ReferenceConfig other = WithUsers();
  other.users.push_back(
      ReferenceUser{"trader-y", "FIRM-A", 1, 4, "", "", true, {}});
  Registry loaded(other);
  std::string_view in = snap;
  ASSERT_TRUE(loaded.Load(&in).ok());
  EXPECT_EQ(loaded.Hash(), reg_.Hash());
  EXPECT_EQ(loaded.user("trader-y"), nullptr);
  ASSERT_NE(loaded.user("trader-z"), nullptr);
  EXPECT_FALSE(loaded.user("trader-a")->enabled);
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

// The users' API keys (registry_users.cc): seeded from the config's
// api_keys, added (ed25519 only) and revoked only by valid commands, kept
// by a snapshot.
class RegistryApiKeysTest : public ::testing::Test {
 protected:
  // trader-a logs on by FIX password too; api-only has only its key.
  static ReferenceConfig WithKeys() {
    ReferenceConfig c = DefaultConfig();
    ReferenceUser a{"trader-a", "FIRM-A",   1,
                    4,          "TRADER_A", "pbkdf2-sha256$1$00$00",
                    true,       {}};
    a.api_keys = {ReferenceApiKey{"a-hmac", kApiKeyHmacSha256, "", false}};
    ReferenceUser b{"api-only", "FIRM-A", 1, 4, "", "", true, {}};
    b.api_keys = {Key("b-1")};
    c.users = {a, b};
    return c;
  }
  static ReferenceApiKey Key(std::string id) {
    return ReferenceApiKey{std::move(id), kApiKeyEd25519, std::string(32, 'k'),
                           false};
  }
  RejectCode Apply(const ReferenceMessage& m) {
    return reg_.Apply(EncodeReferencePayload(m), kT0, nullptr);
  }
  const std::vector<ReferenceApiKey>& KeysOf(const std::string& name) {
    return reg_.user(name)->api_keys;
  }

  Registry reg_{WithKeys()};
};

TEST_F(RegistryApiKeysTest, TheConfigSeedsTheApiKeys) {
  ASSERT_EQ(KeysOf("trader-a").size(), 1u);
  EXPECT_EQ(KeysOf("trader-a")[0].kind, kApiKeyHmacSha256);
  ASSERT_EQ(KeysOf("api-only").size(), 1u);
  EXPECT_EQ(reg_.user_of_api_key("b-1"), reg_.user("api-only"));
  EXPECT_EQ(reg_.user_of_api_key("nope"), nullptr);
}

TEST_F(RegistryApiKeysTest, AUserRotatesItsOnlyKeyByAddingThenRevoking) {
  ASSERT_EQ(Apply(ApiKeyAdd{"api-only", Key("b-2")}), RejectCode::kNone);
  ASSERT_EQ(Apply(ApiKeyRevoke{"api-only", "b-1"}), RejectCode::kNone);
  ASSERT_EQ(KeysOf("api-only").size(), 2u);
  EXPECT_TRUE(KeysOf("api-only")[0].revoked);
  EXPECT_EQ(KeysOf("api-only")[1].id, "b-2");
  EXPECT_FALSE(KeysOf("api-only")[1].revoked);
  // A revoked key's owner is still known: its id is never used again.
  EXPECT_EQ(reg_.user_of_api_key("b-1"), reg_.user("api-only"));
}

TEST_F(RegistryApiKeysTest, AUserWithAFixPasswordMayRevokeItsLastKey) {
  EXPECT_EQ(Apply(ApiKeyRevoke{"trader-a", "a-hmac"}), RejectCode::kNone);
  EXPECT_TRUE(KeysOf("trader-a")[0].revoked);
}

TEST_F(RegistryApiKeysTest, BadApiKeyCommandsAreRejectedAndChangeNothing) {
  const uint64_t hash = reg_.Hash();
  EXPECT_EQ(Apply(ApiKeyAdd{"nobody", Key("z-1")}), RejectCode::kUnknownUser);
  // Ids are unique over all users, revoked keys included.
  EXPECT_EQ(Apply(ApiKeyAdd{"api-only", Key("b-1")}),
            RejectCode::kDuplicateApiKey);
  EXPECT_EQ(Apply(ApiKeyAdd{"api-only", Key("a-hmac")}),
            RejectCode::kDuplicateApiKey);
  ReferenceApiKey short_key = Key("b-2");
  short_key.public_key.pop_back();
  EXPECT_EQ(Apply(ApiKeyAdd{"api-only", short_key}),
            RejectCode::kInvalidApiKey);
  // An HMAC key would journal its secret: only ed25519 keys are added.
  EXPECT_EQ(
      Apply(ApiKeyAdd{"api-only",
                      ReferenceApiKey{"b-2", kApiKeyHmacSha256, "", false}}),
      RejectCode::kInvalidApiKey);
  EXPECT_EQ(Apply(ApiKeyAdd{"api-only", Key("has space")}),
            RejectCode::kInvalidApiKey);
  EXPECT_EQ(Apply(ApiKeyRevoke{"nobody", "b-1"}), RejectCode::kUnknownUser);
  EXPECT_EQ(Apply(ApiKeyRevoke{"api-only", "nope"}),
            RejectCode::kUnknownApiKey);
  // Another user's key is unknown for this one.
  EXPECT_EQ(Apply(ApiKeyRevoke{"api-only", "a-hmac"}),
            RejectCode::kUnknownApiKey);
  // api-only has no other way to log on.
  EXPECT_EQ(Apply(ApiKeyRevoke{"api-only", "b-1"}), RejectCode::kLastApiKey);
  EXPECT_EQ(reg_.Hash(), hash);
}

// Adding and revoking keys cannot grow a user's list without end: revoked
// keys count, as their ids are never used again.
TEST_F(RegistryApiKeysTest, AUserHasAtMostTheKeyLimitRevokedOnesIncluded) {
  std::size_t n = KeysOf("api-only").size();
  for (int k = 0; n < kMaxApiKeysPerUser; ++k, ++n) {
    ASSERT_EQ(Apply(ApiKeyAdd{"api-only", Key("r-" + std::to_string(k))}),
              RejectCode::kNone);
    ASSERT_EQ(Apply(ApiKeyRevoke{"api-only", "r-" + std::to_string(k)}),
              RejectCode::kNone);
  }
  const uint64_t hash = reg_.Hash();
  EXPECT_EQ(Apply(ApiKeyAdd{"api-only", Key("one-more")}),
            RejectCode::kApiKeyLimit);
  EXPECT_EQ(KeysOf("api-only").size(), kMaxApiKeysPerUser);
  EXPECT_EQ(reg_.Hash(), hash);
  // Another user is not limited by this one's keys.
  EXPECT_EQ(Apply(ApiKeyAdd{"trader-a", Key("a-2")}), RejectCode::kNone);
}

TEST_F(RegistryApiKeysTest, ARevokedKeyCannotBeRevokedAgain) {
  ASSERT_EQ(Apply(ApiKeyAdd{"api-only", Key("b-2")}), RejectCode::kNone);
  ASSERT_EQ(Apply(ApiKeyRevoke{"api-only", "b-1"}), RejectCode::kNone);
  EXPECT_EQ(Apply(ApiKeyRevoke{"api-only", "b-1"}), RejectCode::kUnknownApiKey);
}

TEST_F(RegistryApiKeysTest, ASnapshotKeepsTheApiKeysOverTheConfigs) {
  ASSERT_EQ(Apply(ApiKeyAdd{"api-only", Key("b-2")}), RejectCode::kNone);
  ASSERT_EQ(Apply(ApiKeyRevoke{"api-only", "b-1"}), RejectCode::kNone);
  const std::string snap = SaveOf(reg_);
  // Loaded into a registry whose config has other keys: the snapshot's
  // keys replace them.
  ReferenceConfig other = WithKeys();
  other.users[1].api_keys.push_back(Key("b-9"));
  Registry loaded(other);
  std::string_view in = snap;
  const Status st = loaded.Load(&in);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(loaded.Hash(), reg_.Hash());
  EXPECT_EQ(loaded.user("api-only")->api_keys, KeysOf("api-only"));
  EXPECT_EQ(loaded.user_of_api_key("b-9"), nullptr);
}

// Format 2, written before the API keys: it loads, and each user's keys
// are the config's.
TEST_F(RegistryApiKeysTest, AFormatTwoSnapshotLoadsWithTheConfigsApiKeys) {
  ReferenceConfig keyless = DefaultConfig();
  keyless.users = {
      ReferenceUser{"api-only", "FIRM-A", 1, 4, "", "", false, {}}};
  // Without the key count (0) of its one user at the end.
  const std::string snap = OlderFormat(SaveOf(Registry(keyless)), 2);
  std::string_view in = snap;
  const Status st = reg_.Load(&in);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(in.empty());
  ASSERT_NE(reg_.user("api-only"), nullptr);
  EXPECT_FALSE(reg_.user("api-only")->enabled);  // the snapshot's
  ASSERT_EQ(KeysOf("api-only").size(), 1u);      // the config's
  EXPECT_EQ(KeysOf("api-only")[0].id, "b-1");
  EXPECT_EQ(reg_.user("trader-a"), nullptr);
}

TEST_F(RegistryApiKeysTest, ASnapshotWithAKeyIdTwiceIsDataLoss) {
  ReferenceConfig twice = WithKeys();
  twice.users[0].api_keys.push_back(Key("b-1"));
  const std::string snap = SaveOf(Registry(twice));
  std::string_view in = snap;
  const Status st = reg_.Load(&in);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss) << st.ToString();
}

}  // namespace
}  // namespace cfx::exchange
