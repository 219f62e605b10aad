// The `admin key` commands of the cfx tool: add, revoke and list the API
// keys of users (docs/cli.md, "API keys"). The admin names any user; any
// other user names itself, to rotate its own key.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

namespace {

struct KeyArgs {
  std::string user;
  std::string key_id;
  std::string public_key_file;
  std::string public_key;
};

int RunKeyAdd(const GlobalOptions& g, const KeyArgs& a) {
  if (a.public_key_file.empty() == a.public_key.empty()) {
    return Fail(kExitUsage,
                "give the key as --public-key-file F.pub or --public-key "
                "BASE64, one of them");
  }
  std::string public_key = a.public_key;
  if (!a.public_key_file.empty()) {
    Result<std::string> raw = crypto::ReadPublicKeyFile(a.public_key_file);
    if (!raw.has_value()) return Fail(kExitUsage, raw.error().message());
    public_key = crypto::Base64Encode(raw.value());
  }
  w::Envelope e;
  w::ApiKeyAdd* m = e.mutable_api_key_add();
  m->set_request_id(RequestId());
  m->set_user(a.user);
  m->set_key_id(a.key_id);
  m->set_public_key(public_key);
  return RunReference(
      g, "key add", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("added API key " + a.key_id + " of user " + a.user + ", seq " +
              std::to_string(ack.seq()) + "\n");
      });
}

int RunKeyRevoke(const GlobalOptions& g, const KeyArgs& a) {
  w::Envelope e;
  w::ApiKeyRevoke* m = e.mutable_api_key_revoke();
  m->set_request_id(RequestId());
  m->set_user(a.user);
  m->set_key_id(a.key_id);
  return RunReference(
      g, "key revoke", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("revoked API key " + a.key_id + " of user " + a.user + ", seq " +
              std::to_string(ack.seq()) + "\n");
      });
}

int RunKeyList(const GlobalOptions& g, const std::string& user) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::ApiKeyListRequest* q = e.mutable_api_key_list_request();
  q->set_request_id(RequestId());
  q->set_user(user);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "key list", "the key list", std::chrono::milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_api_key_list() || m.api_key_list().request_id() != id) {
          return Refusal(c, "key list", id, m);
        }
        const w::ApiKeyList& l = m.api_key_list();
        if (c.json()) {
          PrintJson(ProtoJson(l));
          return kExitOk;
        }
        Print("API keys of user " + l.user() + ":\n");
        Print("key id                   kind         status   public key\n");
        for (const w::ApiKeyInfo& k : l.keys()) {
          char line[256];
          std::snprintf(line, sizeof line, "%-24s %-12s %-8s %s\n",
                        k.id().c_str(), k.kind().c_str(),
                        k.revoked() ? "revoked" : "active",
                        k.public_key().empty() ? "-" : k.public_key().c_str());
          Print(line);
        }
        return kExitOk;
      });
}

}  // namespace

void AddApiKeyCommands(CLI::App& admin, const std::shared_ptr<GlobalOptions>& g,
                       int* exit_code) {
  CLI::App* key = admin.add_subcommand(
      "key",
      "Add, revoke and list users' Ed25519 API keys (the admin: any user's; "
      "a user: its own)");
  key->require_subcommand(1);
  auto args = std::make_shared<KeyArgs>();
  CLI::App* add =
      key->add_subcommand("add", "Add an Ed25519 API key; it logs on at once");
  add->add_option("--user", args->user, "the key's user")->required();
  add->add_option("--key-id", args->key_id,
                  "the new key's id (unique, never used again)")
      ->required();
  add->add_option("--public-key-file", args->public_key_file,
                  "PREFIX.pub as cfx keygen wrote it");
  add->add_option("--public-key", args->public_key,
                  "base64 of the public key, as cfx keygen prints it");
  add->callback([g, args, exit_code] { *exit_code = RunKeyAdd(*g, *args); });
  CLI::App* revoke = key->add_subcommand(
      "revoke",
      "Revoke an API key: its sessions are logged out, its logons refused");
  revoke->add_option("--user", args->user, "the key's user")->required();
  revoke->add_option("--key-id", args->key_id, "the key to revoke")->required();
  revoke->callback(
      [g, args, exit_code] { *exit_code = RunKeyRevoke(*g, *args); });
  CLI::App* list =
      key->add_subcommand("list", "A user's API keys, revoked ones included");
  list->add_option("--user", args->user,
                   "the user (default: the one logged on)");
  list->callback(
      [g, args, exit_code] { *exit_code = RunKeyList(*g, args->user); });
}

}  // namespace cfx::gateway::cli
