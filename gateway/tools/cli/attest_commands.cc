#include "gateway/tools/cli/attest_commands.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "exchange/core/reference/attestation.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/crypto/file_io.h"
#include "gateway/tools/attest/measurement_json.h"
#include "gateway/tools/cli/command_io.h"
#include "gateway/tools/cli/commands.h"

namespace cfx::gateway::cli {

namespace {

using attest::KeyIdField;

// Measurement and signed files are a few KB; anything this large is wrong.
constexpr std::size_t kMaxAttestationFileBytes = 1024 * 1024;

struct AttestArgs {
  std::string out;  // keygen prefix, or sign's output file
  std::string input;
  std::string key;
  std::string pub;
};

// Prints the one error line and returns kExitRejected (1).
int Fail(const std::string& message) {
  return cli::Fail(kExitRejected, message);
}

int RunKeygen(const AttestArgs& args) {
  Result<std::string> public_key = crypto::WriteNewKeyPair(args.out);
  if (!public_key.has_value()) return Fail(public_key.error().message());
  std::printf("%s\n", attest::AttesterKeyId(public_key.value()).c_str());
  return kExitOk;
}

int RunSign(const AttestArgs& args) {
  Result<std::string> text =
      crypto::ReadSmallFile(args.input, kMaxAttestationFileBytes);
  if (!text.has_value()) return Fail(text.error().message());
  Result<exchange::Attestation> a =
      attest::ParseMeasurementJson(text.value(), KeyIdField::kOptional);
  if (!a.has_value()) return Fail(args.input + ": " + a.error().message());

  Result<std::string> key = crypto::ReadPrivateKeyFile(args.key);
  if (!key.has_value()) return Fail(key.error().message());
  Result<std::string> pub = crypto::PublicKeyOf(key.value());
  if (!pub.has_value()) {
    crypto::Wipe(key.value());
    return Fail(args.key + ": " + pub.error().message());
  }
  const std::string key_id = attest::AttesterKeyId(pub.value());
  if (a.value().attester_key_id.empty()) {
    a.value().attester_key_id = key_id;
  } else if (a.value().attester_key_id != key_id) {
    crypto::Wipe(key.value());
    return Fail(args.input + ": attester_key_id is " +
                a.value().attester_key_id + " but " + args.key + " is " +
                key_id + "; refusing to sign");
  }
  Result<std::string> signed_json =
      attest::SignAttestationJson(a.value(), key.value());
  crypto::Wipe(key.value());
  if (!signed_json.has_value()) {
    return Fail(args.input + ": " + signed_json.error().message());
  }
  if (args.out.empty()) {
    std::fputs(signed_json.value().c_str(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : Fail("cannot write stdout");
  }
  Status s = crypto::WriteFile(args.out, signed_json.value());
  if (!s.ok()) return Fail(s.message());
  return kExitOk;
}

int RunVerify(const AttestArgs& args) {
  Result<std::string> text =
      crypto::ReadSmallFile(args.input, kMaxAttestationFileBytes);
  if (!text.has_value()) return Fail(text.error().message());
  Result<attest::SignedAttestation> signed_att =
      attest::ParseSignedAttestation(text.value());
  if (!signed_att.has_value()) {
    return Fail(args.input + ": " + signed_att.error().message());
  }
  Result<std::string> pub = crypto::ReadPublicKeyFile(args.pub);
  if (!pub.has_value()) return Fail(pub.error().message());
  Status s = attest::VerifySignedAttestation(signed_att.value(), pub.value());
  if (!s.ok()) return Fail(args.input + ": " + s.message());
  const exchange::Attestation& a = signed_att.value().attestation;
  std::printf("OK attestation %s signed by %s\n", a.attestation_id.c_str(),
              a.attester_key_id.c_str());
  return kExitOk;
}

}  // namespace

CLI::App* AddAttestCommands(CLI::App& app, int* exit_code) {
  CLI::App* group = app.add_subcommand(
      "attest", "GPU performance attestations (docs/attestations.md)");
  group->require_subcommand(1);

  auto keygen_args = std::make_shared<AttestArgs>();
  CLI::App* keygen = group->add_subcommand(
      "keygen",
      "Create an Ed25519 attester key pair: PREFIX.key (private, mode 0600) "
      "and PREFIX.pub; print the key id");
  keygen->add_option("--out", keygen_args->out, "Path prefix of the key files")
      ->required();
  keygen->callback(
      [keygen_args, exit_code] { *exit_code = RunKeygen(*keygen_args); });

  auto sign_args = std::make_shared<AttestArgs>();
  CLI::App* sign = group->add_subcommand(
      "sign", "Sign a measurement JSON file with an attester key (offline)");
  sign->add_option("MEASUREMENT", sign_args->input, "Measurement JSON file")
      ->required();
  sign->add_option("--key", sign_args->key, "Private key file (PREFIX.key)")
      ->required();
  sign->add_option("--out", sign_args->out,
                   "Write the signed attestation here (default: stdout)");
  sign->callback([sign_args, exit_code] { *exit_code = RunSign(*sign_args); });

  auto verify_args = std::make_shared<AttestArgs>();
  CLI::App* verify = group->add_subcommand(
      "verify", "Check a signed attestation file against a public key");
  verify->add_option("FILE", verify_args->input, "Signed attestation file")
      ->required();
  verify->add_option("--pub", verify_args->pub, "Public key file (PREFIX.pub)")
      ->required();
  verify->callback(
      [verify_args, exit_code] { *exit_code = RunVerify(*verify_args); });
  return group;
}

}  // namespace cfx::gateway::cli
