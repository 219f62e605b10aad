#include "exchange/core/reference/reference_payload.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace cfx::exchange {
namespace {

RatingSet SampleRatingSet() {
  RatingSet m;
  m.operator_firm = "PROV-A";
  m.tier = Tier::kGold;
  m.effective = Timestamp{1'767'225'600'000'000'000};
  m.expires = Timestamp{1'798'761'600'000'000'000};
  m.agency = "RATER";
  m.reference = "R-2026-001";
  return m;
}

AttestationSubmit SampleSubmit() {
  AttestationSubmit m;
  m.submitter = "PROV-A";
  m.canonical = "CFX-ATTESTATION-V1\nattestation_id=a1\n";
  m.signature = std::string(64, '\x7f');
  m.signature[0] = '\0';  // embedded zero bytes survive
  return m;
}

// One message of each kind, with awkward bytes where a field allows them.
std::vector<ReferenceMessage> Samples() {
  return {
      SampleRatingSet(),
      RatingRevoke{"PROV-B", "R-7", "RATER"},
      AttesterKeyRegister{"ed25519:0123456789abcdef", std::string(32, '\xff'),
                          "ATTEST"},
      AttesterKeyRevoke{"ed25519:0123456789abcdef"},
      SampleSubmit(),
      UserAdd{ReferenceUser{"trader-z",
                            "FIRM-A",
                            1,
                            0x0102030405060708,
                            "TRADER_Z",
                            "pbkdf2-sha256$1$00$00",
                            true,
                            {}}},
      UserSetEnabled{"trader-z", true},
      UserSetPassword{"trader-z", "pbkdf2-sha256$1$00$00"},
      ApiKeyAdd{"trader-z",
                ReferenceApiKey{"trader-z-2", kApiKeyEd25519,
                                std::string(31, '\xfe') + '\0', false}},
      ApiKeyRevoke{"trader-z", "trader-z-1"},
  };
}

bool Same(const ReferenceMessage& a, const ReferenceMessage& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, RatingSet>) {
          return x.operator_firm == y.operator_firm && x.tier == y.tier &&
                 x.effective == y.effective && x.expires == y.expires &&
                 x.agency == y.agency && x.reference == y.reference;
        } else if constexpr (std::is_same_v<T, RatingRevoke>) {
          return x.operator_firm == y.operator_firm &&
                 x.reference == y.reference && x.agency == y.agency;
        } else if constexpr (std::is_same_v<T, AttesterKeyRegister>) {
          return x.key_id == y.key_id && x.public_key == y.public_key &&
                 x.attester == y.attester;
        } else if constexpr (std::is_same_v<T, AttesterKeyRevoke>) {
          return x.key_id == y.key_id;
        } else if constexpr (std::is_same_v<T, UserAdd> ||
                             std::is_same_v<T, UserSetEnabled> ||
                             std::is_same_v<T, UserSetPassword> ||
                             std::is_same_v<T, ApiKeyAdd> ||
                             std::is_same_v<T, ApiKeyRevoke>) {
          return x == y;
        } else {
          return x.submitter == y.submitter && x.canonical == y.canonical &&
                 x.signature == y.signature;
        }
      },
      a);
}

TEST(ReferencePayload, EachKindRoundTrips) {
  for (const ReferenceMessage& m : Samples()) {
    SCOPED_TRACE("kind index " + std::to_string(m.index()));
    const std::string bytes = EncodeReferencePayload(m);
    ASSERT_FALSE(bytes.empty());
    EXPECT_EQ(static_cast<uint8_t>(bytes[0]), kReferencePayloadVersion);
    EXPECT_EQ(static_cast<uint8_t>(bytes[1]), m.index() + 1);
    Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
    ASSERT_TRUE(d.has_value()) << d.error().ToString();
    EXPECT_TRUE(Same(m, d.value()));
    EXPECT_EQ(EncodeReferencePayload(d.value()), bytes);
  }
}

TEST(ReferencePayload, EmptyStringsRoundTrip) {
  const ReferenceMessage m = RatingRevoke{"", "", ""};
  Result<ReferenceMessage> d =
      DecodeReferencePayload(EncodeReferencePayload(m));
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(Same(m, d.value()));
}

TEST(ReferencePayload, LayoutIsLittleEndianWithU16Lengths) {
  // Aggregate initialization: GCC 12 -O3 warns (maybe-uninitialized) on
  // assigning short literals to the members one by one.
  const RatingSet m{"P",           Tier::kBronze, Timestamp{0x0102030405060708},
                    Timestamp{-1}, "AG",          ""};
  const std::string expected(
      "\x01\x01"                          // version, kind
      "\x01\x00P"                         // operator_firm
      "\x04"                              // tier
      "\x08\x07\x06\x05\x04\x03\x02\x01"  // effective
      "\xff\xff\xff\xff\xff\xff\xff\xff"  // expires
      "\x02\x00"
      "AG"         // agency
      "\x00\x00",  // reference
      2 + 3 + 1 + 8 + 8 + 4 + 2);
  EXPECT_EQ(EncodeReferencePayload(m), expected);
}

TEST(ReferencePayload, EveryTruncationIsAnError) {
  for (const ReferenceMessage& m : Samples()) {
    const std::string bytes = EncodeReferencePayload(m);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      Result<ReferenceMessage> d =
          DecodeReferencePayload(std::string_view(bytes).substr(0, n));
      ASSERT_FALSE(d.has_value()) << "kind " << m.index() << " cut at " << n;
      EXPECT_EQ(d.error().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(ReferencePayload, TrailingByteIsAnError) {
  for (const ReferenceMessage& m : Samples()) {
    const std::string bytes = EncodeReferencePayload(m) + '\0';
    Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
    ASSERT_FALSE(d.has_value());
    EXPECT_NE(d.error().message().find("trailing"), std::string::npos)
        << d.error().message();
  }
}

TEST(ReferencePayload, WrongVersionIsAnError) {
  std::string bytes = EncodeReferencePayload(SampleRatingSet());
  for (int v : {0, 2, 255}) {
    bytes[0] = static_cast<char>(v);
    Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
    ASSERT_FALSE(d.has_value());
    EXPECT_NE(d.error().message().find("version"), std::string::npos)
        << d.error().message();
  }
}

TEST(ReferencePayload, UnknownKindIsAnError) {
  std::string bytes = EncodeReferencePayload(AttesterKeyRevoke{"k"});
  for (int k : {0, 11, 255}) {
    bytes[1] = static_cast<char>(k);
    Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
    ASSERT_FALSE(d.has_value());
    EXPECT_NE(d.error().message().find("kind"), std::string::npos)
        << d.error().message();
  }
}

TEST(ReferencePayload, UnknownTierIsAnError) {
  RatingSet m = SampleRatingSet();
  m.tier = static_cast<Tier>(6);
  const std::string bytes = EncodeReferencePayload(m);
  ASSERT_FALSE(bytes.empty());
  Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message().find("tier"), std::string::npos);
}

TEST(ReferencePayload, TierNoneDecodesForTheRegistryToReject) {
  RatingSet m = SampleRatingSet();
  m.tier = Tier::kNone;
  Result<ReferenceMessage> d =
      DecodeReferencePayload(EncodeReferencePayload(m));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(std::get<RatingSet>(d.value()).tier, Tier::kNone);
}

// Encode refuses what it cannot represent by returning "", which never
// decodes.
TEST(ReferencePayload, EncodeRefusesStringAboveU16Limit) {
  AttesterKeyRevoke m{std::string(65'536, 'k')};
  EXPECT_EQ(EncodeReferencePayload(m), "");
  EXPECT_FALSE(DecodeReferencePayload("").has_value());
}

TEST(ReferencePayload, EncodeRefusesPayloadAboveMaxBytes) {
  AttestationSubmit m = SampleSubmit();
  // 2 header bytes + 3 lengths of 2 + strings.
  const std::size_t fixed = 2 + 6 + m.submitter.size() + m.signature.size();
  m.canonical = std::string(kReferencePayloadMaxBytes - fixed, 'c');
  EXPECT_EQ(EncodeReferencePayload(m).size(), kReferencePayloadMaxBytes);
  m.canonical.push_back('c');
  EXPECT_EQ(EncodeReferencePayload(m), "");
}

TEST(ReferencePayload, DecodeRefusesPayloadAboveMaxBytes) {
  std::string bytes = EncodeReferencePayload(AttesterKeyRevoke{"k"});
  bytes.resize(kReferencePayloadMaxBytes + 1, '\0');
  Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message().find("more than"), std::string::npos);
}

TEST(ReferencePayload, StringLengthPastTheEndIsAnError) {
  // kind 4 (key revoke), key_id claims 5 bytes, 2 follow.
  const std::string bytes("\x01\x04\x05\x00ab", 6);
  Result<ReferenceMessage> d = DecodeReferencePayload(bytes);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message().find("key_id"), std::string::npos)
      << d.error().message();
}

}  // namespace
}  // namespace cfx::exchange
