#include "gateway/tools/attest/measurement_json.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "exchange/core/reference/attestation.h"
#include "gateway/session/attestation_check.h"
#include "gateway/crypto/ed25519.h"
#include "tests/gateway/session/attestation_samples.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::attest {
namespace {

using crypto::WritePrivateKeyFile;
using exchange::Attestation;
using test_samples::MeasurementText;
using test_samples::Sample;
using test_samples::TestKey;

TEST(MeasurementJson, WrittenMeasurementParsesBackEqual) {
  const Attestation a = Sample();
  const std::string json = MeasurementJson(a);
  EXPECT_NE(json.find("\"output_tokens_per_s_per_gpu\": 287.500,"),
            std::string::npos)
      << json;
  Result<Attestation> b = ParseMeasurementJson(json);
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(EncodeCanonicalAttestation(b.value()),
            EncodeCanonicalAttestation(a));
}

TEST(SignedAttestation, SigningRefusesAMeasurementNamingAnotherKey) {
  Result<Attestation> a =
      ParseMeasurementJson(MeasurementText("ed25519:0123456789abcdef"));
  ASSERT_TRUE(a.has_value());
  Result<std::string> s = SignAttestationJson(a.value(), TestKey().private_key);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message(),
            "attester_key_id: the measurement names ed25519:0123456789abcdef "
            "but the key is " +
                AttesterKeyId(TestKey().public_key));
}

TEST(SignedAttestation, OpensslSignatureOfTheCanonicalBytesVerifies) {
  if (std::system("openssl version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no openssl binary";
  }
  cfx::testing::TempDir dir;
  ASSERT_TRUE(
      WritePrivateKeyFile(dir.Sub("k.key"), TestKey().private_key).ok());
  const Attestation a = Sample();
  std::ofstream(dir.Sub("canonical.txt"), std::ios::binary)
      << EncodeCanonicalAttestation(a);
  // The command docs/attestations.md gives attesters.
  const int status = std::system(
      ("openssl pkeyutl -sign -rawin -inkey " + dir.Sub("k.key") + " -in " +
       dir.Sub("canonical.txt") + " -out " + dir.Sub("sig.bin"))
          .c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::ifstream in(dir.Sub("sig.bin"), std::ios::binary);
  std::stringstream sig;
  sig << in.rdbuf();
  ASSERT_EQ(sig.str().size(), 64u);
  Result<SignedAttestation> s =
      ParseSignedAttestation(SignedAttestationJson(a, sig.str()));
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  EXPECT_TRUE(VerifySignedAttestation(s.value(), TestKey().public_key).ok());
}

}  // namespace
}  // namespace cfx::gateway::attest
