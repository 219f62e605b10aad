#include "gateway/tools/cli/keygen_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/cli/command_io.h"

namespace cfx::gateway::cli {

namespace {

struct KeygenArgs {
  std::string out;
  std::string id;
};

int RunKeygen(const KeygenArgs& args) {
  Result<std::string> public_key = crypto::WriteNewKeyPair(args.out);
  if (!public_key.has_value()) {
    return Fail(kExitRejected, public_key.error().message());
  }
  std::string id = args.id;
  if (id.empty()) {
    const std::size_t slash = args.out.find_last_of('/');
    id = slash == std::string::npos ? args.out : args.out.substr(slash + 1);
  }
  std::printf(
      "wrote %s.key (private key, mode 0600: log on with cfx --key %s.key) "
      "and %s.pub\n"
      "add to the user's entry in the exchange config:\n"
      "  api_keys { id: \"%s\" kind: KIND_ED25519 public_key: \"%s\" }\n",
      args.out.c_str(), args.out.c_str(), args.out.c_str(), id.c_str(),
      crypto::Base64Encode(public_key.value()).c_str());
  return kExitOk;
}

}  // namespace

void AddKeygenCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<KeygenArgs>();
  CLI::App* keygen = app.add_subcommand(
      "keygen",
      "Create an Ed25519 API key pair: PREFIX.key (private, mode 0600) and "
      "PREFIX.pub; print the config entry of its public key");
  keygen->add_option("--out", args->out, "Path prefix of the key files")
      ->required();
  keygen->add_option("--id", args->id,
                     "API key id in the printed config entry (default: the "
                     "file name of PREFIX)");
  keygen->callback([args, exit_code] { *exit_code = RunKeygen(*args); });
}

}  // namespace cfx::gateway::cli
