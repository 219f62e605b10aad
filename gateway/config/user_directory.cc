#include "gateway/config/user_directory.h"

#include <utility>

namespace cfx::gateway {

void UserDirectory::Seed(const std::vector<exchange::ReferenceUser>& users) {
  users_.clear();
  for (const exchange::ReferenceUser& u : users) users_.emplace(u.name, u);
}

void UserDirectory::Update(const exchange::ReferenceUser& user) {
  users_.insert_or_assign(user.name, user);
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
    out.push_back(std::move(r));
  }
  return out;
}

void ApplyJournalUsers(const std::vector<exchange::ReferenceUser>& journal,
                       ServerConfig* config,
                       std::vector<std::string>* dropped) {
  std::vector<UserConfig> users;
  users.reserve(journal.size());
  for (const exchange::ReferenceUser& r : journal) {
    const UserConfig* seeded = config->FindUserByName(r.name);
    UserConfig u = seeded != nullptr ? *seeded : UserConfig{};
    u.name = r.name;
    u.firm = r.firm;
    u.role = static_cast<Role>(r.role);
    u.account = exchange::AccountId{static_cast<uint32_t>(r.account)};
    u.fix_sender_comp_id = r.fix_sender_comp_id;
    u.password_hash = r.password_hash;
    users.push_back(std::move(u));
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
