// ReferenceDesk: the admin's user commands and the user list
// (docs/protocol.md, "Users"). The desk refuses what it can tell is wrong
// with a specific reason; the registry (exchange/core/reference/
// registry_users.cc) judges the command again when it is sequenced.

#include <string>
#include <utility>
#include <variant>

#include "exchange/core/reference/reference_payload.h"
#include "gateway/pb/reference_desk.h"

namespace cfx::gateway::pb {
namespace {

namespace w = wire::v1;

constexpr std::size_t kMinPassword = 8;
constexpr std::size_t kMaxPassword = 128;

// 1-64 printable ASCII characters, no space: the config's rule for names
// (the registry allows up to 128).
bool Token(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (c <= 0x20 || c > 0x7e) return false;
  }
  return true;
}

bool PasswordOk(const std::string& p) {
  return p.size() >= kMinPassword && p.size() <= kMaxPassword;
}

}  // namespace

std::string UserNamed(std::string_view payload) {
  Result<exchange::ReferenceMessage> m =
      exchange::DecodeReferencePayload(payload);
  if (!m.has_value()) return {};
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, exchange::UserAdd>) {
          return x.user.name;
        } else if constexpr (std::is_same_v<T, exchange::UserSetEnabled> ||
                             std::is_same_v<T, exchange::UserSetPassword>) {
          return x.name;
        } else if constexpr (std::is_same_v<T, exchange::ApiKeyAdd> ||
                             std::is_same_v<T, exchange::ApiKeyRevoke>) {
          return x.user;
        } else {
          return std::string();
        }
      },
      m.value());
}

bool ReferenceDesk::RefuseUserCommand(const UserConfig& user,
                                      const w::Envelope& m,
                                      Request* refusal) const {
  uint64_t id = 0;
  std::string name;
  switch (m.body_case()) {
    case w::Envelope::kUserAdd:
      id = m.user_add().request_id();
      name = m.user_add().name();
      break;
    case w::Envelope::kUserSetEnabled:
      id = m.user_set_enabled().request_id();
      name = m.user_set_enabled().name();
      break;
    case w::Envelope::kUserSetPassword:
      id = m.user_set_password().request_id();
      name = m.user_set_password().name();
      break;
    default:
      return false;
  }
  auto refuse = [&](w::RejectReason reason, std::string text) {
    *refusal = Refuse(id, reason, std::move(text));
    return true;
  };
  if (user.role != Role::kAdmin) {
    return refuse(w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin manages users");
  }
  if (!Token(name)) {
    return refuse(w::REJECT_REASON_INVALID_USER,
                  "name: 1-64 printable characters, no space");
  }
  const exchange::ReferenceUser* known = view_.user(name);
  if (m.has_user_add()) {
    const w::UserAdd& a = m.user_add();
    if (known != nullptr) {
      return refuse(w::REJECT_REASON_DUPLICATE_USER,
                    "user " + name + " exists");
    }
    if (config_.FindFirm(a.firm()) == nullptr) {
      return refuse(w::REJECT_REASON_INVALID_USER,
                    "firm: not a configured firm");
    }
    if (a.role() <= w::ROLE_UNSPECIFIED || a.role() > w::ROLE_ADMIN) {
      return refuse(w::REJECT_REASON_INVALID_USER, "role: required");
    }
    const bool trading =
        a.role() == w::ROLE_TRADER || a.role() == w::ROLE_PROVIDER;
    if (trading) {
      const AccountInfo* account = config_.FindAccount(a.account());
      if (account == nullptr || account->firm != a.firm()) {
        return refuse(w::REJECT_REASON_INVALID_USER,
                      "account: a trader or provider needs a trading account "
                      "of its firm");
      }
    } else if (!a.account().empty()) {
      return refuse(w::REJECT_REASON_INVALID_USER,
                    "account: only traders and providers have one");
    }
    if (a.role() == w::ROLE_CLEARING_MEMBER) {
      bool found = false;
      for (const ClearingMemberInfo& c : config_.clearing_members) {
        found |= c.firm == a.firm();
      }
      if (!found) {
        return refuse(w::REJECT_REASON_INVALID_USER,
                      "firm: not a clearing member's firm");
      }
    }
    if (!a.fix_sender_comp_id().empty()) {
      if (!Token(a.fix_sender_comp_id())) {
        return refuse(w::REJECT_REASON_INVALID_USER,
                      "fix_sender_comp_id: 1-64 printable characters, no space");
      }
      for (const exchange::ReferenceUser& u : view_.users()) {
        if (u.fix_sender_comp_id == a.fix_sender_comp_id()) {
          return refuse(w::REJECT_REASON_DUPLICATE_USER,
                        "fix_sender_comp_id " + a.fix_sender_comp_id() +
                            " is user " + u.name + "'s");
        }
      }
    }
    if (!PasswordOk(a.password())) {
      return refuse(w::REJECT_REASON_INVALID_USER, "password: 8-128 bytes");
    }
    return false;
  }
  if (known == nullptr) {
    return refuse(w::REJECT_REASON_UNKNOWN_USER, "no user " + name);
  }
  if (m.has_user_set_enabled() && !m.user_set_enabled().enabled() &&
      name == user.name) {
    return refuse(w::REJECT_REASON_INVALID_USER,
                  "the admin cannot disable its own user");
  }
  if (m.has_user_set_password() && !PasswordOk(m.user_set_password().password())) {
    return refuse(w::REJECT_REASON_INVALID_USER, "password: 8-128 bytes");
  }
  return false;
}

ReferenceDesk::Request ReferenceDesk::UserAdd(const UserConfig& user,
                                              const w::UserAdd& m,
                                              std::string password_hash) {
  exchange::UserAdd r;
  r.user.name = m.name();
  r.user.firm = m.firm();
  r.user.role = static_cast<uint8_t>(m.role());
  const AccountInfo* account = config_.FindAccount(m.account());
  r.user.account = account == nullptr ? 0 : account->id.value;
  r.user.fix_sender_comp_id = m.fix_sender_comp_id();
  r.user.password_hash = std::move(password_hash);
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::UserSetEnabled(
    const UserConfig& user, const w::UserSetEnabled& m) {
  exchange::UserSetEnabled r;
  r.name = m.name();
  r.enabled = m.enabled();
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::UserSetPassword(
    const UserConfig& user, const w::UserSetPassword& m,
    std::string password_hash) {
  exchange::UserSetPassword r;
  r.name = m.name();
  r.password_hash = std::move(password_hash);
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

bool ReferenceDesk::Users(const UserConfig& user, uint64_t request_id,
                          w::UserList* list, w::ReferenceAck* ack) const {
  if (user.role != Role::kAdmin) {
    *ack = Refuse(request_id, w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin lists users")
               .ack;
    return false;
  }
  list->Clear();
  list->set_request_id(request_id);
  for (const exchange::ReferenceUser& u : view_.users()) {
    w::UserInfo* o = list->add_users();
    o->set_name(u.name);
    o->set_firm(u.firm);
    o->set_role(static_cast<w::Role>(u.role));
    const AccountInfo* account =
        config_.account(exchange::AccountId{static_cast<uint32_t>(u.account)});
    if (account != nullptr) o->set_account(account->name);
    o->set_fix_sender_comp_id(u.fix_sender_comp_id);
    o->set_enabled(u.enabled);
    o->set_has_password(!u.password_hash.empty());
    for (const exchange::ReferenceApiKey& k : u.api_keys) {
      if (k.revoked) {
        o->add_revoked_api_keys(k.id);
      } else {
        o->add_api_keys(k.id);
      }
    }
  }
  return true;
}

const exchange::ReferenceUser* ReferenceDesk::changed_user() const {
  return changed_user_.empty() ? nullptr : view_.user(changed_user_);
}

}  // namespace cfx::gateway::pb
