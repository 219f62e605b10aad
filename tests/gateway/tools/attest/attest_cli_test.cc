// Runs `cfx attest keygen | sign | verify`
// (gateway/tools/cli/attest_commands.h) as a process, offline: exit codes,
// one-line errors, files and their modes. Lives here rather than in
// tests/gateway/tools/cli/ so attestation tests stay together; CFX_TOOL comes
// from tests/gateway/tools/cli/tests.cmake.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/tools/attest/measurement_json.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"

#ifndef CFX_TOOL
#error "CFX_TOOL must name the cfx binary"
#endif

namespace cfx::gateway::attest {
namespace {

using crypto::PublicKeyOf;
using crypto::ReadPrivateKeyFile;
using crypto::ReadPublicKeyFile;
using ::cfx::testing::Contains;
using ::cfx::testing::Lines;
using ::cfx::testing::RunTool;
using ::cfx::testing::ToolResult;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr char kMeasurement[] = R"({
  "attestation_id": "att-0001",
  "provider": "PROV-A",
  "node_id": "node-17",
  "gpu_model": "NVIDIA B200",
  "gpu_count": 2,
  "gpu_uuids": ["GPU-aaaa", "GPU-bbbb"],
  "driver_version": "570.124.06",
  "recipe": "ref-8k1k-i100",
  "output_tokens_per_s_per_gpu": 287.5,
  "measured_at": "2026-03-01T12:34:56Z",
  "nonce": "n-5f2c"
}
)";

class AttestCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty()) << "mkdtemp failed";
    std::ofstream(Path("m.json")) << kMeasurement;
  }

  std::string Path(const std::string& name) const { return tmp_.Sub(name); }

  // Runs `cfx <args>` in the temp dir; stdout and stderr captured apart.
  ToolResult Run(const std::string& args) const {
    return RunTool("cd " + tmp_.path() + " && " + std::string(CFX_TOOL) + " " +
                       args + " </dev/null",
                   Path("stderr"));
  }

  // Runs keygen for `prefix`; its key id.
  std::string Keygen(const std::string& prefix) {
    const ToolResult r = Run("attest keygen --out " + prefix);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return Lines(r.out).empty() ? "" : Lines(r.out).front();
  }

  // Expects exit code `code` and one stderr line "cfx: ..." holding
  // `reason`, nothing on stdout.
  void ExpectFailure(const std::string& args, int code,
                     const std::string& reason) {
    SCOPED_TRACE(args);
    const ToolResult r = Run(args);
    ::cfx::testing::ExpectCfxError(r, code, reason);
    if (HasFatalFailure()) return;
    EXPECT_EQ(r.out, "");
  }

  cfx::testing::TempDir tmp_;
};

TEST_F(AttestCliTest, KeygenSignVerifyRoundTrip) {
  const std::string id = Keygen("att");
  EXPECT_TRUE(IsAttesterKeyId(id)) << id;

  const ToolResult sign =
      Run("attest sign m.json --key att.key --out signed.json");
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  EXPECT_EQ(sign.out, "");
  EXPECT_EQ(sign.err, "");

  const ToolResult verify = Run("attest verify signed.json --pub att.pub");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_EQ(verify.out, "OK attestation att-0001 signed by " + id + "\n");
  EXPECT_EQ(verify.err, "");
}

TEST_F(AttestCliTest, KeygenWritesPemFilesWithAPrivateMode) {
  const std::string id = Keygen("att");
  struct stat st {};
  ASSERT_EQ(::stat(Path("att.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<std::string> pub = ReadPublicKeyFile(Path("att.pub"));
  ASSERT_TRUE(pub.has_value()) << pub.error().ToString();
  EXPECT_EQ(AttesterKeyId(pub.value()), id);
  Result<std::string> priv = ReadPrivateKeyFile(Path("att.key"));
  ASSERT_TRUE(priv.has_value()) << priv.error().ToString();
  EXPECT_EQ(PublicKeyOf(priv.value()).value(), pub.value());
}

TEST_F(AttestCliTest, KeygenNeverPrintsThePrivateKey) {
  const ToolResult r = Run("attest keygen --out att");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string pem = ReadAll(Path("att.key"));
  const std::vector<std::string> lines = Lines(pem);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_FALSE(Contains(r.out + r.err, lines[1])) << r.out << r.err;
  EXPECT_EQ(Lines(r.out).size(), 1u);
}

TEST_F(AttestCliTest, KeygenRefusesToOverwriteAKey) {
  Keygen("att");
  const std::string before = ReadAll(Path("att.key"));
  ExpectFailure("attest keygen --out att", 1,
                "att.key: already exists; refusing to overwrite a key");
  EXPECT_EQ(ReadAll(Path("att.key")), before);
}

TEST_F(AttestCliTest, SignWritesToStdoutAndFillsTheKeyId) {
  const std::string id = Keygen("att");
  const ToolResult r = Run("attest sign m.json --key att.key");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<SignedAttestation> s = ParseSignedAttestation(r.out);
  ASSERT_TRUE(s.has_value()) << s.error().ToString() << "\n" << r.out;
  EXPECT_EQ(s.value().attestation.attester_key_id, id);
  EXPECT_TRUE(VerifySignedAttestation(
                  s.value(), ReadPublicKeyFile(Path("att.pub")).value())
                  .ok());
}

TEST_F(AttestCliTest, SignRefusesAMeasurementNamingAnotherKey) {
  Keygen("att");
  std::string m = kMeasurement;
  m.replace(m.find("\"nonce\""), 0,
            "\"attester_key_id\": \"ed25519:0123456789abcdef\",\n  ");
  std::ofstream(Path("other.json")) << m;
  ExpectFailure("attest sign other.json --key att.key", 1,
                "attester_key_id is ed25519:0123456789abcdef but att.key is "
                "ed25519:");
}

TEST_F(AttestCliTest, SignRejectsAMalformedMeasurementNamingTheField) {
  Keygen("att");
  std::string m = kMeasurement;
  m.replace(m.find("287.5"), 5, "287.5001");
  std::ofstream(Path("bad.json")) << m;
  ExpectFailure("attest sign bad.json --key att.key", 1,
                "bad.json: output_tokens_per_s_per_gpu: more than 3 decimals");
  ExpectFailure("attest sign missing.json --key att.key", 1, "missing.json");
  ExpectFailure("attest sign m.json --key att.pub", 1,
                "att.pub: not an unencrypted PEM private key");
}

TEST_F(AttestCliTest, VerifyRejectsATamperedFile) {
  Keygen("att");
  ASSERT_EQ(Run("attest sign m.json --key att.key --out signed.json").exit_code,
            0);
  std::string file = ReadAll(Path("signed.json"));
  file.replace(file.find("\"node-17\""), 9, "\"node-18\"");
  std::ofstream(Path("tampered.json")) << file;
  ExpectFailure("attest verify tampered.json --pub att.pub", 1,
                "tampered.json: canonical: does not match the measurement");
}

TEST_F(AttestCliTest, VerifyRejectsAnotherKey) {
  Keygen("att");
  Keygen("other");
  ASSERT_EQ(Run("attest sign m.json --key att.key --out signed.json").exit_code,
            0);
  ExpectFailure("attest verify signed.json --pub other.pub", 1,
                "is not the given key");
}

TEST_F(AttestCliTest, MissingArgumentsAreUsageErrors) {
  ExpectFailure("attest", 2, "subcommand");
  ExpectFailure("attest keygen", 2, "--out");
  ExpectFailure("attest sign m.json", 2, "--key");
  ExpectFailure("attest verify signed.json", 2, "--pub");
  ExpectFailure("attest frobnicate", 2, "frobnicate");
}

}  // namespace
}  // namespace cfx::gateway::attest
