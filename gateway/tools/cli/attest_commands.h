#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace cfx::gateway::cli {

// Registers the `attest` subcommand group of the cfx tool on `app` with the
// offline attester commands (docs/attestations.md), which need no server:
//   keygen --out PREFIX            writes PREFIX.key (0600) and PREFIX.pub,
//                                  prints the key id
//   sign MEASUREMENT --key KEY [--out FILE]
//                                  writes the signed attestation JSON
//   verify FILE --pub PUB          checks a signed attestation
// and returns the group, so that other files can add their subcommands
// (`submit`, `list`) to it; it requires exactly one.
//
// Exit codes as commands.h: 0 ok, 1 failure (a bad file, key or
// signature) with one line "cfx: ..." on stderr, 2 bad arguments. The
// command that runs writes its exit code to `*exit_code`, which must remain
// live while `app` parses. No command prints private key bytes.
CLI::App* AddAttestCommands(CLI::App& app, int* exit_code);

}  // namespace cfx::gateway::cli
