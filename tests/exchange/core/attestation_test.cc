#include "exchange/core/reference/attestation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace cfx::exchange {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// 2026-03-01T12:34:56Z
constexpr int64_t kMeasuredAtSeconds = 1772368496;

Attestation Sample() {
  Attestation a;
  a.attestation_id = "att-0001";
  a.provider = "PROV-A";
  a.node_id = "node-17";
  a.gpu_model = "NVIDIA B200";
  a.gpu_count = 2;
  a.gpu_uuids = {"GPU-aaaa", "GPU-bbbb"};
  a.driver_version = "570.124.06";
  a.recipe = "ref-8k1k-i100";
  a.output_milli_tokens_per_s_per_gpu = 287'500;
  a.measured_at = Timestamp{kMeasuredAtSeconds * kSecond};
  a.nonce = "n-5f2c";
  a.attester_key_id = "ed25519:0123456789abcdef";
  return a;
}

constexpr std::string_view kSampleCanonical =
    "CFX-ATTESTATION-V1\n"
    "attestation_id=att-0001\n"
    "provider=PROV-A\n"
    "node_id=node-17\n"
    "gpu_model=NVIDIA B200\n"
    "gpu_count=2\n"
    "gpu_uuids=GPU-aaaa,GPU-bbbb\n"
    "driver_version=570.124.06\n"
    "recipe=ref-8k1k-i100\n"
    "output_tokens_per_s_per_gpu=287.500\n"
    "measured_at=2026-03-01T12:34:56Z\n"
    "nonce=n-5f2c\n"
    "attester_key_id=ed25519:0123456789abcdef\n";

// The sample's canonical text with the value of line `field` replaced.
std::string WithValue(std::string_view field, std::string_view value) {
  std::string s(kSampleCanonical);
  const std::string key = "\n" + std::string(field) + "=";
  const std::size_t start = s.find(key);
  EXPECT_NE(start, std::string::npos) << field;
  const std::size_t value_start = start + key.size();
  const std::size_t end = s.find('\n', value_start);
  s.replace(value_start, end - value_start, value);
  return s;
}

// Expects Parse(bytes) to fail with kInvalidArgument and a message that
// starts with "<field>: ".
void ExpectRejected(std::string_view bytes, std::string_view field) {
  Result<Attestation> r = ParseCanonicalAttestation(bytes);
  ASSERT_FALSE(r.has_value()) << "accepted:\n" << bytes;
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.error().message().rfind(std::string(field) + ": ", 0), 0u)
      << "message \"" << r.error().message() << "\" does not name " << field;
}

void ExpectValueRejected(std::string_view field,
                         const std::vector<std::string>& values) {
  for (const std::string& v : values) {
    SCOPED_TRACE(std::string(field) + "=" + v);
    ExpectRejected(WithValue(field, v), field);
  }
}

void ExpectEqual(const Attestation& x, const Attestation& y) {
  EXPECT_EQ(x.attestation_id, y.attestation_id);
  EXPECT_EQ(x.provider, y.provider);
  EXPECT_EQ(x.node_id, y.node_id);
  EXPECT_EQ(x.gpu_model, y.gpu_model);
  EXPECT_EQ(x.gpu_count, y.gpu_count);
  EXPECT_EQ(x.gpu_uuids, y.gpu_uuids);
  EXPECT_EQ(x.driver_version, y.driver_version);
  EXPECT_EQ(x.recipe, y.recipe);
  EXPECT_EQ(x.output_milli_tokens_per_s_per_gpu,
            y.output_milli_tokens_per_s_per_gpu);
  EXPECT_EQ(x.measured_at, y.measured_at);
  EXPECT_EQ(x.nonce, y.nonce);
  EXPECT_EQ(x.attester_key_id, y.attester_key_id);
}

TEST(Attestation, EncodesTheDocumentedCanonicalText) {
  EXPECT_EQ(EncodeCanonicalAttestation(Sample()), kSampleCanonical);
}

TEST(Attestation, ParseOfEncodingRoundTrips) {
  Result<Attestation> r = ParseCanonicalAttestation(kSampleCanonical);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ExpectEqual(r.value(), Sample());
  EXPECT_EQ(EncodeCanonicalAttestation(r.value()), kSampleCanonical);
  EXPECT_TRUE(ValidateAttestation(r.value()).ok());
}

TEST(Attestation, RoundTripsSixtyFourGpusAndLimitValues) {
  Attestation a = Sample();
  a.gpu_count = 64;
  a.gpu_uuids.clear();
  for (int i = 0; i < 64; ++i) {
    a.gpu_uuids.push_back("GPU-" + std::to_string(i));
  }
  a.attestation_id = std::string(128, 'x');
  a.gpu_model = "~ !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}";
  a.output_milli_tokens_per_s_per_gpu = kAttestationMaxMilliTokensPerSPerGpu;
  a.measured_at = Timestamp{0};
  ASSERT_TRUE(ValidateAttestation(a).ok());
  const std::string bytes = EncodeCanonicalAttestation(a);
  Result<Attestation> r = ParseCanonicalAttestation(bytes);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ExpectEqual(r.value(), a);
  EXPECT_EQ(EncodeCanonicalAttestation(r.value()), bytes);
}

TEST(Attestation, TokensRenderWithExactlyThreeDecimals) {
  EXPECT_EQ(FormatMilliTokens(287'500), "287.500");
  EXPECT_EQ(FormatMilliTokens(1), "0.001");
  EXPECT_EQ(FormatMilliTokens(1'000), "1.000");
  EXPECT_EQ(FormatMilliTokens(200'010), "200.010");
  EXPECT_EQ(FormatMilliTokens(1'000'000'000), "1000000.000");
}

TEST(Attestation, TimeRendersAsUtcSeconds) {
  EXPECT_EQ(FormatAttestationTime(Timestamp{0}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatAttestationTime(Timestamp{kMeasuredAtSeconds * kSecond}),
            "2026-03-01T12:34:56Z");
  // 2024-02-29T23:59:59Z, a leap day.
  EXPECT_EQ(FormatAttestationTime(Timestamp{1709251199 * kSecond}),
            "2024-02-29T23:59:59Z");
}

TEST(Attestation, ParsesLeapDaysAndRejectsNonLeapFeb29) {
  Result<Timestamp> leap = ParseAttestationTime("2024-02-29T23:59:59Z");
  ASSERT_TRUE(leap.has_value());
  EXPECT_EQ(leap.value().nanos, 1709251199 * kSecond);
  EXPECT_TRUE(ParseAttestationTime("2000-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseAttestationTime("2100-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseAttestationTime("2025-02-29T00:00:00Z").has_value());
}

TEST(Attestation, ParsesTheLastRepresentableSecond) {
  Result<Timestamp> t = ParseAttestationTime("2262-04-11T23:47:16Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatAttestationTime(t.value()), "2262-04-11T23:47:16Z");
  EXPECT_FALSE(ParseAttestationTime("2262-04-11T23:47:17Z").has_value());
  EXPECT_FALSE(ParseAttestationTime("9999-12-31T23:59:59Z").has_value());
}

TEST(Attestation, RejectsBadHeader) {
  std::string s(kSampleCanonical);
  s[0] = 'X';
  ExpectRejected(s, "header");
  ExpectRejected(kSampleCanonical.substr(kSampleCanonical.find('\n') + 1),
                 "header");
  ExpectRejected("", "header");
}

TEST(Attestation, RejectsCrlfLineEndings) {
  std::string crlf;
  for (char c : kSampleCanonical) {
    if (c == '\n') crlf.push_back('\r');
    crlf.push_back(c);
  }
  ExpectRejected(crlf, "header");
  std::string one(kSampleCanonical);
  one.insert(one.find("\nrecipe="), "\r");
  ExpectRejected(one, "driver_version");
}

TEST(Attestation, RejectsTrailingBytes) {
  ExpectRejected(std::string(kSampleCanonical) + "x", "attester_key_id");
  ExpectRejected(std::string(kSampleCanonical) + "\n", "attester_key_id");
  ExpectRejected(std::string(kSampleCanonical) + "extra=1\n",
                 "attester_key_id");
}

TEST(Attestation, RejectsMissingFinalNewline) {
  std::string_view s = kSampleCanonical;
  s.remove_suffix(1);
  ExpectRejected(s, "attester_key_id");
}

TEST(Attestation, RejectsMissingReorderedAndUnknownLines) {
  std::string missing(kSampleCanonical);
  const std::size_t start = missing.find("node_id=");
  missing.erase(start, missing.find('\n', start) + 1 - start);
  ExpectRejected(missing, "node_id");

  std::string swapped(kSampleCanonical);
  swapped.replace(swapped.find("provider=PROV-A\nnode_id=node-17"),
                  std::string_view("provider=PROV-A\nnode_id=node-17").size(),
                  "node_id=node-17\nprovider=PROV-A");
  ExpectRejected(swapped, "provider");

  std::string upper(kSampleCanonical);
  upper.replace(upper.find("nonce="), 5, "NONCE");
  ExpectRejected(upper, "nonce");

  // Truncated after the recipe line.
  std::string_view cut = kSampleCanonical;
  cut = cut.substr(0, cut.find("output_tokens"));
  ExpectRejected(cut, "output_tokens_per_s_per_gpu");
}

TEST(Attestation, RejectsMalformedTextFields) {
  const std::vector<std::string> bad = {
      "",     " lead",   "trail ",   std::string(129, 'a'),
      "a\tb", "del\x7f", "\xc3\xa9", "nul\x01",
  };
  for (std::string_view field :
       {"attestation_id", "provider", "node_id", "gpu_model", "driver_version",
        "recipe", "nonce", "attester_key_id"}) {
    ExpectValueRejected(field, bad);
  }
}

TEST(Attestation, RejectsMalformedGpuCount) {
  ExpectValueRejected(
      "gpu_count", {"", "0", "02", "65", "100", "-2", "+2", "2.0", " 2", "2 ",
                    "x", "99999999999999999999999"});
}

TEST(Attestation, RejectsMalformedGpuUuids) {
  ExpectValueRejected(
      "gpu_uuids",
      {"", "GPU-aaaa", "GPU-aaaa,", ",GPU-aaaa", "GPU-aaaa,,GPU-bbbb",
       "GPU-aaaa, GPU-bbbb", "GPU-a a,GPU-bbbb", "GPU-aaaa,GPU-bbbb,GPU-cccc",
       std::string(129, 'u') + ",GPU-bbbb"});
}

TEST(Attestation, RejectsDuplicateGpuUuids) {
  ExpectValueRejected("gpu_uuids", {"GPU-aaaa,GPU-aaaa"});
  Attestation a = Sample();
  a.gpu_uuids = {"GPU-aaaa", "GPU-aaaa"};
  Status s = ValidateAttestation(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "gpu_uuids: duplicate uuid \"GPU-aaaa\"");
}

TEST(Attestation, RejectsUuidCountDifferentFromGpuCount) {
  Result<Attestation> r = ParseCanonicalAttestation(
      WithValue("gpu_uuids", "GPU-aaaa,GPU-bbbb,GPU-cccc"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "gpu_uuids: count 3 != gpu_count 2");
}

TEST(Attestation, RejectsMalformedTokens) {
  ExpectValueRejected(
      "output_tokens_per_s_per_gpu",
      {"", "287", "287.", "287.5", "287.50", "287.5000", "0287.500", "00.500",
       "-287.500", "+287.500", ".500", "287,500", "287.5x0", " 287.500",
       "287.500 ", "0.000", "1000000.001", "99999999.000", "1e3.000"});
}

TEST(Attestation, AcceptsZeroIntegerPartOfTokens) {
  Result<Attestation> r = ParseCanonicalAttestation(
      WithValue("output_tokens_per_s_per_gpu", "0.250"));
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().output_milli_tokens_per_s_per_gpu, 250u);
}

TEST(Attestation, RejectsBadDates) {
  ExpectValueRejected(
      "measured_at",
      {"2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-03-01T24:00:00Z",
       "2026-03-01T12:60:00Z", "2026-03-01T12:00:60Z", "2026-13-01T00:00:00Z",
       "2026-00-01T00:00:00Z", "2026-03-00T00:00:00Z", "1969-12-31T23:59:59Z",
       "2026-03-01T12:34:56", "2026-03-01 12:34:56Z", "2026-03-01T12:34:56z",
       "2026-03-01T12:34:56.000Z", "2026-03-01T12:34:56+00:00",
       "2026-3-01T12:34:56Z", "20260301T123456Z", "", "+026-03-01T12:34:56Z"});
}

// Strictness as a property: every mutation of the sample is either rejected
// or re-encodes to exactly the same bytes.
TEST(Attestation, EveryAcceptedMutationReencodesToTheSameBytes) {
  const uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (uint32_t s : {1u, 2u, 3u, seed}) {
    std::mt19937 rng(s);
    const std::string alphabet = "0123456789.,:-=TZ \n\rGPU-abx";
    for (int i = 0; i < 5000; ++i) {
      std::string b(kSampleCanonical);
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const std::size_t pos = rng() % b.size();
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0:
            b[pos] = c;
            break;
          case 1:
            b.insert(b.begin() + static_cast<std::ptrdiff_t>(pos), c);
            break;
          default:
            b.erase(pos, 1);
            break;
        }
      }
      Result<Attestation> r = ParseCanonicalAttestation(b);
      if (!r.has_value()) continue;
      ASSERT_EQ(EncodeCanonicalAttestation(r.value()), b) << "seed " << s;
      ASSERT_TRUE(ValidateAttestation(r.value()).ok()) << b;
    }
  }
}

TEST(Attestation, ValidateNamesTheFirstBadField) {
  struct Case {
    void (*mutate)(Attestation&);
    std::string_view message;
  };
  const Case cases[] = {
      {[](Attestation& a) { a.attestation_id.clear(); },
       "attestation_id: empty"},
      {[](Attestation& a) { a.provider = " P"; }, "provider: leading space"},
      {[](Attestation& a) { a.node_id = std::string(129, 'n'); },
       "node_id: longer than 128 bytes"},
      {[](Attestation& a) { a.gpu_model = "B200\n"; },
       "gpu_model: not printable ASCII"},
      {[](Attestation& a) { a.gpu_count = 0; }, "gpu_count: not in 1..64"},
      {[](Attestation& a) { a.gpu_uuids[1] = "a,b"; },
       "gpu_uuids: uuid contains ',' or ' '"},
      {[](Attestation& a) { a.driver_version = "1 "; },
       "driver_version: trailing space"},
      {[](Attestation& a) { a.recipe.clear(); }, "recipe: empty"},
      {[](Attestation& a) { a.output_milli_tokens_per_s_per_gpu = 0; },
       "output_tokens_per_s_per_gpu: not positive"},
      {[](Attestation& a) { a.measured_at.nanos += 1; },
       "measured_at: not whole seconds"},
      {[](Attestation& a) { a.measured_at.nanos = -kSecond; },
       "measured_at: before 1970"},
      {[](Attestation& a) { a.nonce.clear(); }, "nonce: empty"},
      {[](Attestation& a) { a.attester_key_id = "\x80"; },
       "attester_key_id: not printable ASCII"},
  };
  for (const Case& c : cases) {
    Attestation a = Sample();
    c.mutate(a);
    Status s = ValidateAttestation(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(s.message(), c.message);
  }
  EXPECT_TRUE(ValidateAttestation(Sample()).ok());
}

}  // namespace
}  // namespace cfx::exchange
