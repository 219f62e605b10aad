// The firms, clearing_members, accounts and users sections of the config.
#include <optional>

#include "gateway/config/config_builder.h"
#include "gateway/config/password.h"
#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"

namespace cfx::gateway::config_internal {

Status Builder::BuildFirms() {
  for (int i = 0; i < in_.firms_size(); ++i) {
    const pb::Firm& f = in_.firms(i);
    const FieldPath path = Root().Field("firms", static_cast<size_t>(i));
    CFX_RETURN_IF_ERROR(CheckNewName(firms_, "firms", static_cast<size_t>(i),
                                     f.name(), "firm"));
    out_.firms.push_back(FirmInfo{f.name(), f.affiliation_group()});
  }
  return Status::Ok();
}

Status Builder::BuildClearingMembers() {
  for (int i = 0; i < in_.clearing_members_size(); ++i) {
    const pb::ClearingMember& cm = in_.clearing_members(i);
    const size_t idx = static_cast<size_t>(i);
    const FieldPath path = Root().Field("clearing_members", idx);
    CFX_RETURN_IF_ERROR(CheckNewName(clearing_members_, "clearing_members", idx,
                                     cm.name(), "clearing member"));
    CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), cm.firm()));
    const auto [it, inserted] = cm_by_firm_.emplace(cm.firm(), cm.name());
    if (!inserted) {
      return Error(path.Field("firm"), "firm " + Quote(cm.firm()) +
                                           " already is clearing member " +
                                           Quote(it->second));
    }
    out_.clearing_members.push_back(ClearingMemberInfo{cm.name(), cm.firm()});
  }
  return Status::Ok();
}

Status Builder::BuildAccounts() {
  const exchange::EngineLimits& limits = out_.engine.limits;
  for (int i = 0; i < in_.accounts_size(); ++i) {
    const pb::Account& a = in_.accounts(i);
    const size_t idx = static_cast<size_t>(i);
    const FieldPath path = Root().Field("accounts", idx);
    CFX_RETURN_IF_ERROR(
        CheckNewName(accounts_, "accounts", idx, a.name(), "account"));
    CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), a.firm()));
    if (a.clearing_member().empty()) {
      return Error(path.Field("clearing_member"),
                   "clearing_member is required");
    }
    if (clearing_members_.find(a.clearing_member()) ==
        clearing_members_.end()) {
      return Error(path.Field("clearing_member"),
                   "unknown clearing member " + Quote(a.clearing_member()));
    }
    AccountInfo info;
    info.id = exchange::AccountId{static_cast<uint32_t>(idx + 1)};
    if (info.id.value >= limits.max_accounts) {
      return ErrorAtLine(
          LimitLine(in_.limits().max_accounts() != 0, "max_accounts", path),
          Root().Field("limits").Field("max_accounts"),
          std::to_string(limits.max_accounts) +
              " is too small: account ids reach " +
              std::to_string(info.id.value) + " at account " + Quote(a.name()) +
              " (max_accounts must exceed the highest id)");
    }
    info.name = a.name();
    info.firm = a.firm();
    info.clearing_member = a.clearing_member();
    if (!a.collateral().empty()) {
      const std::optional<int64_t> micros =
          internal::ParseFixedDecimal(a.collateral(), kAmountDecimals);
      if (!micros.has_value()) {
        return Error(path.Field("collateral"),
                     Quote(a.collateral()) +
                         " is not a USD decimal with at most 6 decimals "
                         "(e.g. \"10000000.00\")");
      }
      info.collateral = exchange::Amount{*micros};
    }
    switch (a.stp_mode()) {
      case pb::STP_MODE_UNSPECIFIED:
      case pb::STP_MODE_CANCEL_NEWEST:
        info.stp = exchange::StpMode::kCancelNewest;
        break;
      case pb::STP_MODE_CANCEL_OLDEST:
        info.stp = exchange::StpMode::kCancelOldest;
        break;
      case pb::STP_MODE_CANCEL_BOTH:
        info.stp = exchange::StpMode::kCancelBoth;
        break;
      case pb::STP_MODE_DECREMENT:
        info.stp = exchange::StpMode::kDecrement;
        break;
      default:
        return Error(path.Field("stp_mode"),
                     "unknown stp_mode " + std::to_string(a.stp_mode()));
    }
    out_.engine.accounts.push_back(
        exchange::AccountConfig{info.id, info.stp, info.collateral});
    out_.accounts.push_back(std::move(info));
  }
  return Status::Ok();
}

Status Builder::BuildUsers() {
  std::unordered_map<std::string, size_t> users;
  std::unordered_map<std::string, std::string> sender_comp_ids;  // -> user
  std::unordered_map<std::string, std::string> api_keys;         // -> user
  for (int i = 0; i < in_.users_size(); ++i) {
    const pb::User& u = in_.users(i);
    const size_t idx = static_cast<size_t>(i);
    const FieldPath path = Root().Field("users", idx);
    CFX_RETURN_IF_ERROR(CheckNewName(users, "users", idx, u.name(), "user"));
    CFX_RETURN_IF_ERROR(CheckFirm(path.Field("firm"), u.firm()));
    UserConfig user;
    user.name = u.name();
    user.firm = u.firm();
    const FieldPath role_path = path.Field("role");
    if (u.role() == pb::ROLE_UNSPECIFIED) {
      return Error(role_path, "role is required");
    }
    if (u.role() < pb::ROLE_TRADER || u.role() > pb::ROLE_ADMIN) {
      return Error(role_path, "unknown role " + std::to_string(u.role()));
    }
    user.role = static_cast<Role>(u.role());
    const FieldPath account_path = path.Field("account");
    const bool trades =
        user.role == Role::kTrader || user.role == Role::kProvider;
    if (trades) {
      if (u.account().empty()) {
        return Error(account_path, "a " + std::string(RoleName(user.role)) +
                                       " needs a trading account");
      }
      const auto it = accounts_.find(u.account());
      if (it == accounts_.end()) {
        return Error(account_path, "unknown account " + Quote(u.account()));
      }
      const AccountInfo& account = out_.accounts[it->second];
      if (account.firm != user.firm) {
        return Error(account_path,
                     "account " + Quote(account.name) + " belongs to firm " +
                         Quote(account.firm) + ", not " + Quote(user.firm));
      }
      user.account = account.id;
    } else if (!u.account().empty()) {
      return Error(account_path,
                   "only traders and providers have a trading account "
                   "(role " +
                       std::string(RoleName(user.role)) + ")");
    }
    if (user.role == Role::kClearingMember) {
      const auto it = cm_by_firm_.find(user.firm);
      if (it == cm_by_firm_.end()) {
        return Error(path.Field("firm"),
                     "firm " + Quote(user.firm) +
                         " is not the firm of any clearing member");
      }
      user.clearing_member = it->second;
    }
    if (!u.fix_sender_comp_id().empty()) {
      const FieldPath p = path.Field("fix_sender_comp_id");
      if (!IsName(u.fix_sender_comp_id())) {
        return Error(p, Quote(u.fix_sender_comp_id()) +
                            " is not a CompID (1-64 printable ASCII "
                            "characters, no blanks)");
      }
      if (u.fix_sender_comp_id() == kExchangeCompId) {
        return Error(p, "\"CFX\" is the exchange's own CompID");
      }
      const auto [it, inserted] =
          sender_comp_ids.emplace(u.fix_sender_comp_id(), u.name());
      if (!inserted) {
        return Error(p, "duplicate FIX SenderCompID " +
                            Quote(u.fix_sender_comp_id()) + " (also user " +
                            Quote(it->second) + ")");
      }
      user.fix_sender_comp_id = u.fix_sender_comp_id();
    }
    if (!u.password_hash().empty()) {
      if (!IsWellFormedPasswordHash(u.password_hash())) {
        return Error(path.Field("password_hash"),
                     "malformed password hash; expected "
                     "\"pbkdf2-sha256$<iterations>$<salt hex>$<32-byte "
                     "hash hex>\"");
      }
      user.password_hash = u.password_hash();
    }
    for (int k = 0; k < u.api_keys_size(); ++k) {
      const pb::ApiKey& key = u.api_keys(k);
      const FieldPath kp = path.Field("api_keys", static_cast<size_t>(k));
      if (key.id().empty()) return Error(kp.Field("id"), "id is required");
      if (!IsName(key.id())) {
        return Error(kp.Field("id"),
                     Quote(key.id()) +
                         " is not a key id (1-64 printable ASCII "
                         "characters, no blanks)");
      }
      const auto [it, inserted] = api_keys.emplace(key.id(), u.name());
      if (!inserted) {
        return Error(kp.Field("id"), "duplicate API key id " + Quote(key.id()) +
                                         " (also user " + Quote(it->second) +
                                         ")");
      }
      Result<ApiKey> built = BuildApiKey(kp, u, key);
      if (!built.has_value()) return built.error();
      user.api_keys.push_back(std::move(built).value());
    }
    out_.users.push_back(std::move(user));
  }
  return Status::Ok();
}

Result<ApiKey> Builder::BuildApiKey(const FieldPath& kp, const pb::User& u,
                                    const pb::ApiKey& key) const {
  const std::string whose =
      "API key " + Quote(key.id()) + " of user " + Quote(u.name()) + ": ";
  pb::ApiKey::Kind kind = key.kind();
  if (kind == pb::ApiKey::KIND_UNSPECIFIED) {
    kind = key.public_key().empty() ? pb::ApiKey::KIND_HMAC_SHA256
                                    : pb::ApiKey::KIND_ED25519;
  }
  if (kind == pb::ApiKey::KIND_ED25519) {
    if (!key.secret().empty()) {
      return Error(kp.Field("secret"),
                   whose + "an ed25519 key has no secret (the exchange "
                           "holds only its public_key)");
    }
    if (key.public_key().empty()) {
      return Error(kp.Field("public_key"),
                   whose + "public_key is required (base64 of the 32-byte "
                           "Ed25519 public key, as `cfx keygen` prints it)");
    }
    Result<std::string> raw = crypto::Base64DecodeStrict(key.public_key());
    if (!raw.has_value()) {
      return Error(kp.Field("public_key"),
                   whose + "public_key is not base64 (" +
                       raw.error().message() + ")");
    }
    if (raw.value().size() != crypto::kEd25519PublicKeyBytes) {
      return Error(kp.Field("public_key"),
                   whose + "public_key is " +
                       std::to_string(raw.value().size()) +
                       " bytes; an Ed25519 public key is 32");
    }
    return ApiKey::Ed25519(key.id(), std::move(raw).value());
  }
  if (kind != pb::ApiKey::KIND_HMAC_SHA256) {
    return Error(kp.Field("kind"),
                 whose + "unknown kind " + std::to_string(key.kind()));
  }
  if (!key.public_key().empty()) {
    return Error(kp.Field("public_key"),
                 whose + "an hmac-sha256 key has a secret, no public_key");
  }
  if (key.secret().size() < kMinApiSecretBytes) {
    return Error(kp.Field("secret"),
                 whose + (key.secret().empty()
                              ? std::string("secret is required")
                              : "secret must be at least " +
                                    std::to_string(kMinApiSecretBytes) +
                                    " bytes (random; prefer an ed25519 key)"));
  }
  // One PBKDF2 per HMAC key, at load: a secret that is the password would
  // let one captured logon be cracked offline like a password.
  if (!u.password_hash().empty() &&
      VerifyPassword(u.password_hash(), key.secret())) {
    return Error(kp.Field("secret"),
                 whose + "secret equals the user's password; use a random "
                         "secret of at least " +
                     std::to_string(kMinApiSecretBytes) +
                     " bytes, or an ed25519 key");
  }
  return ApiKey::Hmac(key.id(), key.secret());
}

}  // namespace cfx::gateway::config_internal
