#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// Registers `cfx keygen --out PREFIX [--id KEYID]` on `app` (docs/cli.md,
// "API keys"): writes a fresh Ed25519 API key pair, PREFIX.key (the private
// key, PEM, mode 0600, for `cfx --key`) and PREFIX.pub (PEM), and prints
// the exchange config's api_keys entry for it (the public key in base64;
// KEYID defaults to PREFIX's file name). Needs no server. Exit codes as
// commands.h; the command writes its exit code to `*exit_code`, which must
// remain live while `app` parses. No private key byte is printed.
void AddKeygenCommand(CLI::App& app, int* exit_code);

}  // namespace cfx::gateway::cli
