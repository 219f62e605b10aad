// RegistryState: the users, their API keys and the commands on them
// (docs/config.md, "Users" and "API keys"). The gateways decide who may
// send a command (the admin, from the session's role; for API keys also
// the user itself); the registry decides whether it is valid.

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

constexpr std::size_t kEd25519PublicKeyBytes = 32;

// An active key of `u` with id `key_id`, or nullptr.
const ReferenceApiKey* ActiveKey(const ReferenceUser& u,
                                 std::string_view key_id) {
  for (const ReferenceApiKey& k : u.api_keys) {
    if (k.id == key_id && !k.revoked) return &k;
  }
  return nullptr;
}

}  // namespace

bool ApiKeyOk(const ReferenceApiKey& k) {
  if (!Token(k.id)) return false;
  if (k.kind == kApiKeyEd25519) {
    return k.public_key.size() == kEd25519PublicKeyBytes;
  }
  return k.kind == kApiKeyHmacSha256 && k.public_key.empty();
}

bool RegistryState::ApiKeyTaken(std::string_view key_id) const {
  for (const auto& [n, u] : users) {
    for (const ReferenceApiKey& k : u.api_keys) {
      if (k.id == key_id) return true;
    }
  }
  return false;
}

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
      !u.enabled || !u.api_keys.empty() || !PasswordHashOk(u.password_hash) ||
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

RejectCode RegistryState::Check(const ApiKeyAdd& m, Timestamp) const {
  if (users.find(m.user) == users.end()) return RejectCode::kUnknownUser;
  // Only Ed25519 keys are added: an HMAC secret would be journaled.
  if (m.key.kind != kApiKeyEd25519 || m.key.revoked || !ApiKeyOk(m.key)) {
    return RejectCode::kInvalidApiKey;
  }
  if (ApiKeyTaken(m.key.id)) return RejectCode::kDuplicateApiKey;
  // Revoked ids stay (never reused), so the bound counts them: no login
  // can grow the registry without end by adding and revoking keys.
  if (users.find(m.user)->second.api_keys.size() >= kMaxApiKeysPerUser) {
    return RejectCode::kApiKeyLimit;
  }
  return RejectCode::kNone;
}

void RegistryState::Commit(ApiKeyAdd m, Timestamp, std::vector<bool>&) {
  users.find(m.user)->second.api_keys.push_back(std::move(m.key));
}

RejectCode RegistryState::Check(const ApiKeyRevoke& m, Timestamp) const {
  auto it = users.find(m.user);
  if (it == users.end()) return RejectCode::kUnknownUser;
  const ReferenceUser& u = it->second;
  if (ActiveKey(u, m.key_id) == nullptr) return RejectCode::kUnknownApiKey;
  // Nobody is locked out: another active key, or a FIX password logon.
  const bool password_logon =
      !u.password_hash.empty() && !u.fix_sender_comp_id.empty();
  bool other_key = false;
  for (const ReferenceApiKey& k : u.api_keys) {
    other_key |= !k.revoked && k.id != m.key_id;
  }
  if (!other_key && !password_logon) return RejectCode::kLastApiKey;
  return RejectCode::kNone;
}

void RegistryState::Commit(const ApiKeyRevoke& m, Timestamp,
                           std::vector<bool>&) {
  for (ReferenceApiKey& k : users.find(m.user)->second.api_keys) {
    if (k.id == m.key_id) k.revoked = true;
  }
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

const ReferenceUser* Registry::user_of_api_key(std::string_view key_id) const {
  for (const auto& [name, u] : s_->users) {
    for (const ReferenceApiKey& k : u.api_keys) {
      if (k.id == key_id) return &u;
    }
  }
  return nullptr;
}

}  // namespace cfx::exchange
