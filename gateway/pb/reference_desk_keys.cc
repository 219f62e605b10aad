// ReferenceDesk: the API key commands and list (docs/protocol.md, "API
// keys"). The admin may name any user, anyone else only itself; another
// user is answered exactly as a user that does not exist, and another
// user's key exactly as a key that does not exist. The registry's own
// rules (exchange/core/reference/registry_users.cc) judge the command on a
// copy of the view first, so that a refusal carries its reason; the engine
// judges it again when it is sequenced.

#include <string>
#include <utility>

#include "exchange/core/reference/reference_payload.h"
#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/pb/reference_desk.h"

namespace cfx::gateway::pb {
namespace {

namespace w = wire::v1;
using exchange::RejectCode;

// 1-64 printable ASCII characters, no space: the config's rule for ids.
bool KeyIdOk(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (c <= 0x20 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

const exchange::ReferenceUser* ReferenceDesk::KeyOwner(
    const UserConfig& caller, const std::string& name) const {
  if (caller.role != Role::kAdmin && name != caller.name) return nullptr;
  return view_.user(name);
}

ReferenceDesk::Request ReferenceDesk::SubmitKeyCommand(
    uint64_t request_id, const UserConfig& caller, const std::string& user,
    const std::string& key_id, std::string payload) {
  const RejectCode code =
      exchange::Registry(view_).Apply(payload, exchange::Timestamp{}, nullptr);
  switch (code) {
    case RejectCode::kNone:
      return Command(request_id, caller, std::move(payload));
    case RejectCode::kUnknownUser:
      return Refuse(request_id, w::REJECT_REASON_UNKNOWN_USER,
                    "no user " + user);
    case RejectCode::kUnknownApiKey:
      return Refuse(request_id, w::REJECT_REASON_UNKNOWN_API_KEY,
                    "user " + user + " has no active API key " + key_id);
    case RejectCode::kDuplicateApiKey:
      return Refuse(
          request_id, w::REJECT_REASON_DUPLICATE_API_KEY,
          "API key id " + key_id + " is taken (an id is never used again)");
    case RejectCode::kApiKeyLimit:
      return Refuse(request_id, w::REJECT_REASON_API_KEY_LIMIT,
                    "user " + user + " has " +
                        std::to_string(exchange::kMaxApiKeysPerUser) +
                        " API keys, revoked ones included: the most");
    case RejectCode::kLastApiKey:
      return Refuse(request_id, w::REJECT_REASON_LAST_API_KEY,
                    "API key " + key_id + " is the last way user " + user +
                        " can log on: add another key first");
    default:
      return Refuse(request_id, w::REJECT_REASON_INVALID_API_KEY,
                    std::string(exchange::RejectCodeName(code)));
  }
}

ReferenceDesk::Request ReferenceDesk::ApiKeyAdd(const UserConfig& caller,
                                                const w::ApiKeyAdd& m) {
  if (KeyOwner(caller, m.user()) == nullptr) {
    return Refuse(m.request_id(), w::REJECT_REASON_UNKNOWN_USER,
                  "no user " + m.user());
  }
  if (!KeyIdOk(m.key_id())) {
    return Refuse(m.request_id(), w::REJECT_REASON_INVALID_API_KEY,
                  "key_id: 1-64 printable characters, no space");
  }
  Result<std::string> raw = crypto::Base64DecodeStrict(m.public_key());
  if (!raw.has_value() ||
      raw.value().size() != crypto::kEd25519PublicKeyBytes) {
    return Refuse(m.request_id(), w::REJECT_REASON_INVALID_API_KEY,
                  "public_key: base64 of a 32-byte Ed25519 public key, as "
                  "cfx keygen prints it");
  }
  exchange::ApiKeyAdd r;
  r.user = m.user();
  r.key.id = m.key_id();
  r.key.kind = exchange::kApiKeyEd25519;
  r.key.public_key = std::move(raw).value();
  return SubmitKeyCommand(m.request_id(), caller, m.user(), m.key_id(),
                          exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::ApiKeyRevoke(const UserConfig& caller,
                                                   const w::ApiKeyRevoke& m) {
  if (KeyOwner(caller, m.user()) == nullptr) {
    return Refuse(m.request_id(), w::REJECT_REASON_UNKNOWN_USER,
                  "no user " + m.user());
  }
  exchange::ApiKeyRevoke r;
  r.user = m.user();
  r.key_id = m.key_id();
  return SubmitKeyCommand(m.request_id(), caller, m.user(), m.key_id(),
                          exchange::EncodeReferencePayload(r));
}

bool ReferenceDesk::ApiKeys(const UserConfig& caller,
                            const w::ApiKeyListRequest& q, w::ApiKeyList* list,
                            w::ReferenceAck* ack) const {
  const std::string name = q.user().empty() ? caller.name : q.user();
  const exchange::ReferenceUser* owner = KeyOwner(caller, name);
  if (owner == nullptr) {
    *ack =
        Refuse(q.request_id(), w::REJECT_REASON_UNKNOWN_USER, "no user " + name)
            .ack;
    return false;
  }
  list->Clear();
  list->set_request_id(q.request_id());
  list->set_user(name);
  for (const exchange::ReferenceApiKey& k : owner->api_keys) {
    w::ApiKeyInfo* o = list->add_keys();
    o->set_id(k.id);
    const bool ed25519 = k.kind == exchange::kApiKeyEd25519;
    o->set_kind(std::string(ApiKeyKindName(ed25519 ? ApiKeyKind::kEd25519
                                                   : ApiKeyKind::kHmacSha256)));
    o->set_revoked(k.revoked);
    if (ed25519) o->set_public_key(crypto::Base64Encode(k.public_key));
  }
  return true;
}

}  // namespace cfx::gateway::pb
