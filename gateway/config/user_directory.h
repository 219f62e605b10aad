#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/reference/reference_payload.h"
#include "gateway/config/server_config.h"

namespace cfx::gateway {

// The Logout text (FIX Text(58), protobuf Logout.text) and logon refusal of
// a user the admin disabled.
inline constexpr char kUserDisabledText[] = "user disabled by the admin";
// The protobuf Logout text of a session whose API key was revoked.
inline constexpr char kApiKeyRevokedText[] = "API key revoked";

// The users as the journal has them (docs/config.md, "Users" and "API
// keys"), for the logon checks of both gateways: whether a user is
// enabled, its password hash, its active API keys. Seeded from the
// engine's registry as recovered; updated with each user or API key
// command the engine accepted (pb::ReferenceDesk).
//
// A name the directory does not hold is judged by the config alone (tests
// that build a gateway without one).
//
// Thread: the gateway thread. Memory: one entry per user and per key.
class UserDirectory {
 public:
  // `config` (its users already ApplyJournalUsers()'s) gives the users'
  // sessions their UserConfig and the hmac-sha256 keys their secrets; null:
  // no API key logons through the directory. Must outlive the directory.
  void Seed(const std::vector<exchange::ReferenceUser>& users,
            const ServerConfig* config);
  void Update(const exchange::ReferenceUser& user);

  // nullptr when the directory does not hold `name`.
  const exchange::ReferenceUser* Find(std::string_view name) const;
  // False only for a user it holds as disabled.
  bool Enabled(std::string_view name) const;
  // The user's password hash: the directory's if it holds the user, else
  // `config_hash`.
  const std::string& PasswordHash(std::string_view name,
                                  const std::string& config_hash) const;

  // The user whose active API key is `key_id`, and the key in *key (valid
  // until the next Update()); nullptr for a key no user has active (unknown
  // or revoked). A user added at run time, which the config lacks, gets a
  // UserConfig of its own here, at a fixed address.
  const UserConfig* FindUserByApiKey(std::string_view key_id,
                                     const ApiKey** key) const;
  // The UserConfig of user `name`: the config's entry, or for a user added
  // at run time the directory's own, at a fixed address; nullptr for a
  // name neither has.
  const UserConfig* FindUserConfig(std::string_view name) const;
  // Whether `key_id` is an active API key of user `name`.
  bool KeyActive(std::string_view name, std::string_view key_id) const;

 private:
  struct KeyEntry {
    std::string user;
    ApiKey key;
  };
  // Re-indexes the active keys of `user`.
  void IndexKeys(const exchange::ReferenceUser& user);

  const ServerConfig* config_ = nullptr;
  std::map<std::string, exchange::ReferenceUser, std::less<>> users_;
  std::map<std::string, KeyEntry, std::less<>> keys_;  // active keys by id
  // Users the config lacks (added at run time), by name.
  std::map<std::string, UserConfig, std::less<>> added_;
};

// The registry's seed: the config's users as ReferenceUser, with their API
// keys' ids, kinds and Ed25519 public keys (never an HMAC secret).
std::vector<exchange::ReferenceUser> SeedUsers(
    const std::vector<UserConfig>& users);

// The engine config an exchange on `config` starts from: config.engine
// with SeedUsers(config.users) as the registry's seed. The server opens its
// journal with it, and `cfx journal verify` replays with it, so that a full
// replay from seq 1 starts from the same users as the server did.
exchange::EngineConfig SeededEngineConfig(const ServerConfig& config);

// The UserConfig of journal user `r`: `seeded` (the config's entry, may be
// null) with the journal's firm, role, account, FIX SenderCompID, password
// hash and active API keys; an hmac-sha256 key takes its secret from
// `seeded` and is left out when the config has no secret for it. A
// clearing member's user acts for the clearing member of its firm.
UserConfig UserConfigOf(const exchange::ReferenceUser& r,
                        const UserConfig* seeded, const ServerConfig& config);

// Makes `config`'s users those of `journal` (the recovered registry's):
// each is UserConfigOf() its config entry, keeping the entry's demo flag;
// a user only the journal has (added at run time) is appended; a user only
// the config has (added to the file after the exchange's state was
// recorded) is dropped, with its name in *dropped. Rebuilds the config's
// lookups.
void ApplyJournalUsers(const std::vector<exchange::ReferenceUser>& journal,
                       ServerConfig* config,
                       std::vector<std::string>* dropped);

}  // namespace cfx::gateway
