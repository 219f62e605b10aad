#include "gateway/config/user_directory.h"

#include <iterator>
#include <utility>

namespace cfx::gateway {

void UserDirectory::Seed(const std::vector<exchange::ReferenceUser>& users,
                         const ServerConfig* config) {
  config_ = config;
  users_.clear();
  keys_.clear();
  added_.clear();
  for (const exchange::ReferenceUser& u : users) Update(u);
}

void UserDirectory::Update(const exchange::ReferenceUser& user) {
  users_.insert_or_assign(user.name, user);
  if (config_ == nullptr) return;
  const UserConfig* seeded = config_->FindUserByName(user.name);
  if (seeded == nullptr) {
    // In place: sessions hold its address.
    added_[user.name] = UserConfigOf(user, nullptr, *config_);
  }
  IndexKeys(user);
}

void UserDirectory::IndexKeys(const exchange::ReferenceUser& user) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    it = it->second.user == user.name ? keys_.erase(it) : std::next(it);
  }
  const UserConfig* seeded = config_->FindUserByName(user.name);
  const UserConfig of = UserConfigOf(user, seeded, *config_);
  for (const ApiKey& k : of.api_keys) {
    keys_.insert_or_assign(k.id, KeyEntry{user.name, k});
  }
}

const exchange::ReferenceUser* UserDirectory::Find(
    std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

bool UserDirectory::Enabled(std::string_view name) const {
  const exchange::ReferenceUser* u = Find(name);
  return u == nullptr || u->enabled;
}

const std::string& UserDirectory::PasswordHash(
    std::string_view name, const std::string& config_hash) const {
  const exchange::ReferenceUser* u = Find(name);
  return u == nullptr ? config_hash : u->password_hash;
}

const UserConfig* UserDirectory::FindUserByApiKey(std::string_view key_id,
                                                  const ApiKey** key) const {
  auto it = keys_.find(key_id);
  if (it == keys_.end()) return nullptr;
  const UserConfig* user = FindUserConfig(it->second.user);
  if (user == nullptr) return nullptr;
  if (key != nullptr) *key = &it->second.key;
  return user;
}

const UserConfig* UserDirectory::FindUserConfig(std::string_view name) const {
  if (config_ == nullptr) return nullptr;
  if (const UserConfig* user = config_->FindUserByName(name)) return user;
  auto added = added_.find(name);
  return added == added_.end() ? nullptr : &added->second;
}

bool UserDirectory::KeyActive(std::string_view name,
                              std::string_view key_id) const {
  auto it = keys_.find(key_id);
  return it != keys_.end() && it->second.user == name;
}

exchange::EngineConfig SeededEngineConfig(const ServerConfig& config) {
  exchange::EngineConfig engine = config.engine;
  engine.reference.users = SeedUsers(config.users);
  return engine;
}

std::vector<exchange::ReferenceUser> SeedUsers(
    const std::vector<UserConfig>& users) {
  std::vector<exchange::ReferenceUser> out;
  out.reserve(users.size());
  for (const UserConfig& u : users) {
    exchange::ReferenceUser r;
    r.name = u.name;
    r.firm = u.firm;
    r.role = static_cast<uint8_t>(u.role);
    r.account = u.account.value;
    r.fix_sender_comp_id = u.fix_sender_comp_id;
    r.password_hash = u.password_hash;
    for (const ApiKey& k : u.api_keys) {
      const bool ed25519 = k.kind == ApiKeyKind::kEd25519;
      r.api_keys.push_back(exchange::ReferenceApiKey{
          k.id,
          ed25519 ? exchange::kApiKeyEd25519 : exchange::kApiKeyHmacSha256,
          ed25519 ? k.public_key : std::string(), false});
    }
    out.push_back(std::move(r));
  }
  return out;
}

UserConfig UserConfigOf(const exchange::ReferenceUser& r,
                        const UserConfig* seeded, const ServerConfig& config) {
  UserConfig u = seeded != nullptr ? *seeded : UserConfig{};
  u.name = r.name;
  u.firm = r.firm;
  u.role = static_cast<Role>(r.role);
  u.account = exchange::AccountId{static_cast<uint32_t>(r.account)};
  u.fix_sender_comp_id = r.fix_sender_comp_id;
  u.password_hash = r.password_hash;
  if (u.role == Role::kClearingMember && u.clearing_member.empty()) {
    for (const ClearingMemberInfo& c : config.clearing_members) {
      if (c.firm == u.firm) u.clearing_member = c.name;
    }
  }
  u.api_keys.clear();
  for (const exchange::ReferenceApiKey& k : r.api_keys) {
    if (k.revoked) continue;
    if (k.kind == exchange::kApiKeyEd25519) {
      u.api_keys.push_back(ApiKey::Ed25519(k.id, k.public_key));
      continue;
    }
    // An HMAC secret lives only in the config file.
    if (seeded == nullptr) continue;
    for (const ApiKey& c : seeded->api_keys) {
      if (c.id == k.id && c.kind == ApiKeyKind::kHmacSha256 &&
          !c.secret.empty()) {
        u.api_keys.push_back(c);
      }
    }
  }
  return u;
}

void ApplyJournalUsers(const std::vector<exchange::ReferenceUser>& journal,
                       ServerConfig* config,
                       std::vector<std::string>* dropped) {
  std::vector<UserConfig> users;
  users.reserve(journal.size());
  for (const exchange::ReferenceUser& r : journal) {
    users.push_back(UserConfigOf(r, config->FindUserByName(r.name), *config));
  }
  for (const UserConfig& u : config->users) {
    bool kept = false;
    for (const exchange::ReferenceUser& r : journal) kept |= r.name == u.name;
    if (!kept && dropped != nullptr) dropped->push_back(u.name);
  }
  config->users = std::move(users);
  config->RebuildIndex();
}

}  // namespace cfx::gateway
