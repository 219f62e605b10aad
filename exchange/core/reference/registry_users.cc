// RegistryState: the users and the admin's commands on them (docs/config.md,
// "Users"). The gateways decide who may send a command (the admin, from the
// session's role); the registry decides whether it is valid.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/reference/registry.h"
#include "exchange/core/reference/registry_state.h"

namespace cfx::exchange {
namespace internal {
namespace {

constexpr uint8_t kMaxRole = 6;  // cfx.config.v1.ROLE_ADMIN
constexpr std::string_view kPasswordScheme = "pbkdf2-sha256$";

// 1-128 printable ASCII characters, no space.
bool Token(std::string_view s) {
  if (!ValidName(s)) return false;
  for (char c : s) {
    if (c <= 0x20 || c > 0x7e) return false;
  }
  return true;
}

// Empty (no password logon) or a PBKDF2 hash as the gateway writes it; the
// gateway checks the whole encoding, the registry its scheme and length.
bool PasswordHashOk(std::string_view h) {
  return h.empty() ||
         (h.size() <= 512 && h.substr(0, kPasswordScheme.size()) ==
                                 kPasswordScheme);
}

}  // namespace

bool RegistryState::CompIdTaken(std::string_view comp_id,
                                std::string_view name) const {
  if (comp_id.empty()) return false;
  for (const auto& [n, u] : users) {
    if (n != name && u.fix_sender_comp_id == comp_id) return true;
  }
  return false;
}

RejectCode RegistryState::Check(const UserAdd& m, Timestamp) const {
  const ReferenceUser& u = m.user;
  if (!Token(u.name) || !Token(u.firm) || u.role == 0 || u.role > kMaxRole ||
      !u.enabled || !PasswordHashOk(u.password_hash) ||
      (!u.fix_sender_comp_id.empty() && !Token(u.fix_sender_comp_id))) {
    return RejectCode::kInvalidUser;
  }
  if (users.find(u.name) != users.end() ||
      CompIdTaken(u.fix_sender_comp_id, u.name)) {
    return RejectCode::kDuplicateUser;
  }
  return RejectCode::kNone;
}

void RegistryState::Commit(UserAdd m, Timestamp, std::vector<bool>&) {
  std::string name = m.user.name;
  users.emplace(std::move(name), std::move(m.user));
}

RejectCode RegistryState::Check(const UserSetEnabled& m, Timestamp) const {
  return users.find(m.name) == users.end() ? RejectCode::kUnknownUser
                                           : RejectCode::kNone;
}

void RegistryState::Commit(const UserSetEnabled& m, Timestamp,
                           std::vector<bool>&) {
  users.find(m.name)->second.enabled = m.enabled;
}

RejectCode RegistryState::Check(const UserSetPassword& m, Timestamp) const {
  if (users.find(m.name) == users.end()) return RejectCode::kUnknownUser;
  if (m.password_hash.empty() || !PasswordHashOk(m.password_hash)) {
    return RejectCode::kInvalidUser;
  }
  return RejectCode::kNone;
}

void RegistryState::Commit(UserSetPassword m, Timestamp, std::vector<bool>&) {
  users.find(m.name)->second.password_hash = std::move(m.password_hash);
}

}  // namespace internal

std::vector<ReferenceUser> Registry::users() const {
  std::vector<ReferenceUser> out;
  out.reserve(s_->users.size());
  for (const auto& [name, u] : s_->users) out.push_back(u);
  return out;
}

const ReferenceUser* Registry::user(std::string_view name) const {
  auto it = s_->users.find(name);
  return it == s_->users.end() ? nullptr : &it->second;
}

}  // namespace cfx::exchange
