#include "gateway/session/attestation_check.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/attestation.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/attest/measurement_json.h"
#include "tests/gateway/session/attestation_samples.h"

namespace cfx::gateway::attest {
namespace {

using crypto::Base64Encode;
using crypto::Ed25519KeyPair;
using crypto::GenerateKeyPair;
using exchange::Attestation;
using test_samples::Measurement;
using test_samples::MeasurementText;
using test_samples::Sample;
using test_samples::TestKey;

// `text` with the first occurrence of `from` replaced by `to`.
std::string Replace(std::string text, std::string_view from,
                    std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The measurement with the member line of `field` removed.
std::string Without(std::string_view field) {
  std::string text = Measurement();
  // Built by appends: GCC 12 -O3 warns (-Wrestrict) on "\"" + ... + "\"".
  std::string key(1, '"');
  key.append(field);
  key.push_back('"');
  const std::size_t at = text.find(key);
  EXPECT_NE(at, std::string::npos) << field;
  const std::size_t line_start = text.rfind('\n', at) + 1;
  const std::size_t line_end = text.find('\n', at) + 1;
  text.erase(line_start, line_end - line_start);
  // The last member lost: drop the comma before it.
  if (field == "attester_key_id") {
    const std::size_t comma = text.rfind(',');
    text.erase(comma, 1);
  }
  return text;
}

std::string SignedFile() {
  Result<std::string> s = SignAttestationJson(Sample(), TestKey().private_key);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s.value();
}

void ExpectMeasurementError(const std::string& json, std::string_view message) {
  Result<Attestation> r = ParseMeasurementJson(json);
  ASSERT_FALSE(r.has_value()) << "accepted: " << json;
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.error().message(), message) << json;
}

void ExpectSignedError(const std::string& json, std::string_view message) {
  Result<SignedAttestation> r = ParseSignedAttestation(json);
  ASSERT_FALSE(r.has_value()) << "accepted: " << json;
  EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.error().message(), message) << json;
}

void ExpectMessageStartsWith(const Status& s, std::string_view prefix) {
  EXPECT_EQ(s.message().rfind(std::string(prefix), 0), 0u) << s.message();
}

// ------------------------------------------------------------ measurement

TEST(MeasurementJson, ParsesEveryField) {
  Result<Attestation> r = ParseMeasurementJson(Measurement());
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const Attestation& a = r.value();
  EXPECT_EQ(a.attestation_id, "att-0001");
  EXPECT_EQ(a.provider, "PROV-A");
  EXPECT_EQ(a.node_id, "node-17");
  EXPECT_EQ(a.gpu_model, "NVIDIA B200");
  EXPECT_EQ(a.gpu_count, 2u);
  EXPECT_EQ(a.gpu_uuids, (std::vector<std::string>{"GPU-aaaa", "GPU-bbbb"}));
  EXPECT_EQ(a.driver_version, "570.124.06");
  EXPECT_EQ(a.recipe, "ref-8k1k-i100");
  EXPECT_EQ(a.output_milli_tokens_per_s_per_gpu, 287'500u);
  EXPECT_EQ(a.measured_at.nanos, int64_t{1772368496} * 1'000'000'000);
  EXPECT_EQ(a.nonce, "n-5f2c");
  EXPECT_EQ(a.attester_key_id, AttesterKeyId(TestKey().public_key));
}

TEST(MeasurementJson, TokensBecomeMilliTokens) {
  const struct {
    std::string_view json;
    uint64_t milli;
  } cases[] = {{"287.5", 287'500},          {"0.001", 1},
               {"200.01", 200'010},         {"300", 300'000},
               {"999999.999", 999'999'999}, {"1000000", 1'000'000'000},
               {"2.875e2", 287'500},        {"287.500", 287'500}};
  for (const auto& c : cases) {
    Result<Attestation> r =
        ParseMeasurementJson(Replace(Measurement(), "287.5", c.json));
    ASSERT_TRUE(r.has_value()) << c.json << ": " << r.error().ToString();
    EXPECT_EQ(r.value().output_milli_tokens_per_s_per_gpu, c.milli) << c.json;
  }
}

TEST(MeasurementJson, MoreThanThreeDecimalsAreRejected) {
  for (std::string_view v : {"287.5001", "0.0005", "1.0001", "287.50001"}) {
    ExpectMeasurementError(Replace(Measurement(), "287.5", v),
                           "output_tokens_per_s_per_gpu: more than 3 decimals");
  }
}

TEST(MeasurementJson, NonPositiveOrAbsurdTokensAreRejected) {
  for (std::string_view v : {"0", "-287.5", "-0"}) {
    ExpectMeasurementError(Replace(Measurement(), "287.5", v),
                           "output_tokens_per_s_per_gpu: not positive");
  }
  for (std::string_view v : {"1000000.001", "1e7", "1e300"}) {
    ExpectMeasurementError(Replace(Measurement(), "287.5", v),
                           "output_tokens_per_s_per_gpu: more than 1000000");
  }
  for (std::string_view v : {"\"287.5\"", "\"NaN\"", "\"Infinity\"", "true"}) {
    ExpectMeasurementError(Replace(Measurement(), "287.5", v),
                           "output_tokens_per_s_per_gpu: not a JSON number");
  }
}

TEST(MeasurementJson, EveryMissingFieldIsNamed) {
  for (std::string_view field :
       {"attestation_id", "provider", "node_id", "gpu_model", "gpu_count",
        "gpu_uuids", "driver_version", "recipe", "output_tokens_per_s_per_gpu",
        "measured_at", "nonce", "attester_key_id"}) {
    ExpectMeasurementError(Without(field), std::string(field) + ": missing");
  }
}

TEST(MeasurementJson, NullCountsAsMissing) {
  ExpectMeasurementError(Replace(Measurement(), "\"PROV-A\"", "null"),
                         "provider: missing");
}

TEST(MeasurementJson, UnknownFieldIsRejected) {
  ExpectMeasurementError(
      Replace(Measurement(), "\"nonce\"", "\"region\": \"US\",\n  \"nonce\""),
      "measurement: unknown field \"region\"");
}

TEST(MeasurementJson, CamelCaseNamesAreUnknownFields) {
  ExpectMeasurementError(Replace(Measurement(), "\"node_id\"", "\"nodeId\""),
                         "measurement: unknown field \"nodeId\"");
}

TEST(MeasurementJson, DuplicateFieldIsRejected) {
  ExpectMeasurementError(
      Replace(Measurement(), "\"nonce\"", "\"nonce\": \"x\",\n  \"nonce\""),
      "measurement: duplicate field \"nonce\"");
}

TEST(MeasurementJson, MalformedJsonIsRejected) {
  for (std::string_view json : {"", "not json", "[]", "\"text\"",
                                "{\"attestation_id\": \"a\"", "{} trailing"}) {
    Result<Attestation> r = ParseMeasurementJson(json);
    ASSERT_FALSE(r.has_value()) << json;
    ExpectMessageStartsWith(r.error(), "measurement: not a JSON object: ");
    EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
  }
}

TEST(MeasurementJson, WrongJsonTypesAreNamed) {
  const struct {
    std::string_view from, to, message;
  } cases[] = {
      {"\"att-0001\"", "1", "attestation_id: not a JSON string"},
      {"\"PROV-A\"", "[\"PROV-A\"]", "provider: not a JSON string"},
      {"\"node-17\"", "true", "node_id: not a JSON string"},
      {"2,", "\"2\",", "gpu_count: not an integer in 1..64"},
      {"2,", "2.5,", "gpu_count: not an integer in 1..64"},
      {"2,", "0,", "gpu_count: not an integer in 1..64"},
      {"2,", "65,", "gpu_count: not an integer in 1..64"},
      {"2,", "-2,", "gpu_count: not an integer in 1..64"},
      {"2,", "1e20,", "gpu_count: not an integer in 1..64"},
      {"[\"GPU-aaaa\", \"GPU-bbbb\"]", "\"GPU-aaaa,GPU-bbbb\"",
       "gpu_uuids: not an array of strings"},
      {"[\"GPU-aaaa\", \"GPU-bbbb\"]", "[\"GPU-aaaa\", 2]",
       "gpu_uuids: not an array of strings"},
      {"\"2026-03-01T12:34:56Z\"", "1772368496",
       "measured_at: not a JSON string"},
  };
  for (const auto& c : cases) {
    ExpectMeasurementError(Replace(Measurement(), c.from, c.to), c.message);
  }
}

TEST(MeasurementJson, BadValuesAreNamed) {
  const struct {
    std::string_view from, to, message;
  } cases[] = {
      {"\"PROV-A\"", "\" PROV-A\"", "provider: leading space"},
      {"\"PROV-A\"", "\"\"", "provider: empty"},
      {"\"node-17\"", "\"node\\n17\"", "node_id: not printable ASCII"},
      {"\"NVIDIA B200\"", "\"NVIDIA B200\\u00e9\"",
       "gpu_model: not printable ASCII"},
      {"[\"GPU-aaaa\", \"GPU-bbbb\"]", "[\"GPU-aaaa\", \"GPU-aaaa\"]",
       "gpu_uuids: duplicate uuid \"GPU-aaaa\""},
      {"[\"GPU-aaaa\", \"GPU-bbbb\"]", "[\"GPU-aaaa\"]",
       "gpu_uuids: count 1 != gpu_count 2"},
      {"[\"GPU-aaaa\", \"GPU-bbbb\"]", "[\"GPU-aaaa\", \"GPU b\"]",
       "gpu_uuids: uuid contains ',' or ' '"},
      {"\"2026-03-01T12:34:56Z\"", "\"2026-02-30T12:34:56Z\"",
       "measured_at: no such day in that month"},
      {"\"2026-03-01T12:34:56Z\"", "\"2026-03-01T24:00:00Z\"",
       "measured_at: hour not in 00..23"},
      {"\"2026-03-01T12:34:56Z\"", "\"2026-03-01T12:34:56.5Z\"",
       "measured_at: not YYYY-MM-DDTHH:MM:SSZ"},
      {"\"2026-03-01T12:34:56Z\"", "\"2026-03-01T12:34:56+00:00\"",
       "measured_at: not YYYY-MM-DDTHH:MM:SSZ"},
      {"\"2026-03-01T12:34:56Z\"", "\"yesterday\"",
       "measured_at: not YYYY-MM-DDTHH:MM:SSZ"},
  };
  for (const auto& c : cases) {
    ExpectMeasurementError(Replace(Measurement(), c.from, c.to), c.message);
  }
  ExpectMeasurementError(MeasurementText("key-1"),
                         "attester_key_id: not \"ed25519:\" and 16 hex digits");
}

TEST(MeasurementJson, KeyIdMayBeLeftOutOnlyWhenOptional) {
  const std::string json = Without("attester_key_id");
  Result<Attestation> r = ParseMeasurementJson(json, KeyIdField::kOptional);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_EQ(r.value().attester_key_id, "");
  ExpectMeasurementError(json, "attester_key_id: missing");
  // Present, it is checked even when optional.
  Result<Attestation> bad =
      ParseMeasurementJson(MeasurementText("x"), KeyIdField::kOptional);
  ASSERT_FALSE(bad.has_value());
  ExpectMessageStartsWith(bad.error(), "attester_key_id: ");
}

// ------------------------------------------------------------ signed file

TEST(SignedAttestation, SignedFileParsesAndVerifies) {
  const std::string file = SignedFile();
  Result<SignedAttestation> s = ParseSignedAttestation(file);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_EQ(s.value().canonical, EncodeCanonicalAttestation(Sample()));
  EXPECT_EQ(s.value().signature.size(), 64u);
  EXPECT_EQ(s.value().attestation.attestation_id, "att-0001");
  const Status v = VerifySignedAttestation(s.value(), TestKey().public_key);
  EXPECT_TRUE(v.ok()) << v.ToString();
}

TEST(SignedAttestation, FlippedSignatureBitFailsVerification) {
  SignedAttestation s = ParseSignedAttestation(SignedFile()).value();
  s.signature[10] = static_cast<char>(s.signature[10] ^ 0x04);
  // Through the file format, as a verifier would see it.
  const std::string file = SignedAttestationJson(s.attestation, s.signature);
  Result<SignedAttestation> parsed = ParseSignedAttestation(file);
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  const Status v =
      VerifySignedAttestation(parsed.value(), TestKey().public_key);
  EXPECT_EQ(v.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v.message(), "signature: does not verify with key " +
                             AttesterKeyId(TestKey().public_key));
}

TEST(SignedAttestation, FlippedCanonicalBitIsCaughtBeforeTheSignature) {
  // 'A' ^ 1 == '@', in the canonical text only.
  ExpectSignedError(
      Replace(SignedFile(), "provider=PROV-A", "provider=PROV-@"),
      "canonical: does not match the measurement (first difference: "
      "provider)");
}

TEST(SignedAttestation, FlippedMeasurementBitIsCaughtBeforeTheSignature) {
  ExpectSignedError(
      Replace(SignedFile(), "\"nonce\": \"n-5f2c\"", "\"nonce\": \"n-5f2b\""),
      "canonical: does not match the measurement (first difference: nonce)");
}

TEST(SignedAttestation, ConsistentlyTamperedFileFailsTheSignature) {
  std::string file = SignedFile();
  file = Replace(file, "\"nonce\": \"n-5f2c\"", "\"nonce\": \"n-5f2b\"");
  file = Replace(file, "nonce=n-5f2c", "nonce=n-5f2b");
  Result<SignedAttestation> s = ParseSignedAttestation(file);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  const Status v = VerifySignedAttestation(s.value(), TestKey().public_key);
  ExpectMessageStartsWith(v, "signature: does not verify");
}

TEST(SignedAttestation, AnotherKeyIsRejected) {
  const Ed25519KeyPair other = GenerateKeyPair().value();
  SignedAttestation s = ParseSignedAttestation(SignedFile()).value();
  const Status v = VerifySignedAttestation(s, other.public_key);
  EXPECT_EQ(v.message(),
            "attester_key_id: " + AttesterKeyId(TestKey().public_key) +
                " is not the given key (" + AttesterKeyId(other.public_key) +
                ")");
  // Renamed to the other key, the signature still is not the other key's.
  const std::string old_id = AttesterKeyId(TestKey().public_key);
  const std::string new_id = AttesterKeyId(other.public_key);
  std::string file = SignedFile();
  file = Replace(file, "\"attester_key_id\": \"" + old_id,
                 "\"attester_key_id\": \"" + new_id);
  file =
      Replace(file, "attester_key_id=" + old_id, "attester_key_id=" + new_id);
  Result<SignedAttestation> renamed = ParseSignedAttestation(file);
  ASSERT_TRUE(renamed.has_value()) << renamed.error().ToString();
  ExpectMessageStartsWith(
      VerifySignedAttestation(renamed.value(), other.public_key),
      "signature: does not verify");
}

TEST(SignedAttestation, MalformedSignatureIsRejected) {
  const std::string file = SignedFile();
  const std::size_t at = file.find("\"signature\": \"") + 14;
  const std::string sig = file.substr(at, file.find('"', at) - at);
  ASSERT_EQ(sig.size(), 88u);
  const std::string replaced_sigs[] = {
      sig.substr(0, 84),                           // 63 bytes... and short
      sig.substr(0, 86),                           // no padding
      sig + "AAAA",                                // 67 bytes
      "",                                          // nothing
      sig.substr(0, 40) + "\\n" + sig.substr(40),  // a newline inside
      sig.substr(0, 40) + "-" + sig.substr(41),    // url-safe alphabet
      sig.substr(0, 85) + "B==",  // non-zero bits under the padding
      Base64Encode(std::string(63, 'x')),
  };
  for (const std::string& bad : replaced_sigs) {
    ExpectSignedError(Replace(file, sig, bad),
                      "signature: not 64 bytes of base64");
  }
}

TEST(SignedAttestation, MissingOrMistypedPartsAreNamed) {
  const std::string file = SignedFile();
  const std::size_t sig_at = file.find(",\n  \"signature\"");
  ExpectSignedError(file.substr(0, sig_at) + "\n}", "signature: missing");
  ExpectSignedError(
      Replace(file, "\"signature\"", "\"extra\": 1,\n  \"signature\""),
      "signed attestation: unknown field \"extra\"");
  ExpectSignedError("{\"canonical\": \"x\", \"signature\": \"y\"}",
                    "measurement: missing");
  ExpectSignedError(
      "{\"measurement\": \"x\", \"canonical\": \"x\", \"signature\": \"y\"}",
      "measurement: not a JSON object");
  ExpectSignedError(
      Replace(file, "\"canonical\": \"", "\"canonical\": 1, \"x\": \""),
      "signed attestation: unknown field \"x\"");
  ExpectSignedError(
      "{\"measurement\": {}, \"canonical\": 1, \"signature\": \"y\"}",
      "canonical: not a JSON string");
  ExpectSignedError(Replace(file, "\"measured_at\": \"2026-03-01T12:34:56Z\"",
                            "\"measured_at\": \"2026-03-01T12:34:56\""),
                    "measured_at: not YYYY-MM-DDTHH:MM:SSZ");
  ExpectSignedError(Replace(file, "\"nonce\": \"n-5f2c\",\n", ""),
                    "nonce: missing");
  ExpectSignedError(Replace(file, "\"gpu_model\"", "\"gpuModel\""),
                    "measurement: unknown field \"gpuModel\"");
  Result<SignedAttestation> not_json = ParseSignedAttestation("{");
  ASSERT_FALSE(not_json.has_value());
  ExpectMessageStartsWith(not_json.error(),
                          "signed attestation: not a JSON object: ");
}

}  // namespace
}  // namespace cfx::gateway::attest
