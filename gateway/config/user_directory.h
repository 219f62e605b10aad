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

// The users as the journal has them (docs/config.md, "Users"), for the
// logon checks of both gateways: whether a user is enabled, and its
// password hash. Seeded from the engine's registry as recovered; updated
// with each user command the engine accepted (pb::ReferenceDesk).
//
// A name the directory does not hold is judged by the config alone (tests
// that build a gateway without one).
//
// Thread: the gateway thread. Memory: one entry per user.
class UserDirectory {
 public:
  void Seed(const std::vector<exchange::ReferenceUser>& users);
  void Update(const exchange::ReferenceUser& user);

  // nullptr when the directory does not hold `name`.
  const exchange::ReferenceUser* Find(std::string_view name) const;
  // False only for a user it holds as disabled.
  bool Enabled(std::string_view name) const;
  // The user's password hash: the directory's if it holds the user, else
  // `config_hash`.
  const std::string& PasswordHash(std::string_view name,
                                  const std::string& config_hash) const;

 private:
  std::map<std::string, exchange::ReferenceUser, std::less<>> users_;
};

// The registry's seed: the config's users as ReferenceUser (never their
// API key secrets).
std::vector<exchange::ReferenceUser> SeedUsers(
    const std::vector<UserConfig>& users);

// Makes `config`'s users those of `journal` (the recovered registry's):
// a user the config has keeps its API keys, clearing member and demo
// flag, and takes the journal's firm, role, account, FIX SenderCompID and
// password hash; a user only the journal has (added at run time) is
// appended; a user only the config has (added to the file after the
// exchange's state was recorded) is dropped, with its name in *dropped.
// Rebuilds the config's lookups.
void ApplyJournalUsers(const std::vector<exchange::ReferenceUser>& journal,
                       ServerConfig* config,
                       std::vector<std::string>* dropped);

}  // namespace cfx::gateway
