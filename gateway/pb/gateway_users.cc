// Gateway: the admin's user commands and the API key commands
// (docs/protocol.md, "Users" and "API keys"). A
// password is hashed (PBKDF2, tens of milliseconds) on the credential
// checker's workers, never on the gateway thread; only its hash goes into
// the command and the journal. A user the engine disabled has its sessions
// logged out at once, on both protocols; so has a session whose API key
// was revoked.

#include <openssl/crypto.h>

#include <memory>
#include <string>
#include <utility>

#include "gateway/config/password.h"
#include "gateway/pb/gateway.h"
#include "gateway/session/credential_check.h"

namespace cfx::gateway::pb {
namespace {

namespace w = wire::v1;

constexpr char kHashBusyText[] =
    "the exchange's credential checks are busy; try again";

}  // namespace

void Gateway::OnUserRequest(Session& s, const w::Envelope& m) {
  if (m.has_user_list_request()) {
    w::ReferenceAck ack;
    out_.Clear();
    if (desk_.Users(*s.user, m.user_list_request().request_id(),
                    out_.mutable_user_list(), &ack)) {
      outbox_.Send(s, out_);
      return;
    }
    out_.Clear();
    *out_.mutable_reference_ack() = std::move(ack);
    SendDeskAck(s, /*rejected=*/true);
    return;
  }
  ReferenceDesk::Request refusal;
  if (desk_.RefuseUserCommand(*s.user, m, &refusal)) {
    out_.Clear();
    *out_.mutable_reference_ack() = std::move(refusal.ack);
    SendDeskAck(s, /*rejected=*/true);
    return;
  }
  if (m.has_user_set_enabled()) {
    SubmitReference(s, desk_.UserSetEnabled(*s.user, m.user_set_enabled()));
    return;
  }
  // Hash the password on a worker; build the command back on this thread.
  std::string password = m.has_user_add() ? m.user_add().password()
                                          : m.user_set_password().password();
  auto hash = std::make_shared<std::string>();
  auto check = [hash, pw = std::move(password)]() mutable {
    *hash = HashPassword(pw, NewSalt(), kDefaultPasswordIterations);
    OPENSSL_cleanse(pw.data(), pw.size());
    return !hash->empty();
  };
  std::weak_ptr<char> alive = alive_;
  auto done = [this, alive, id = s.id, m, hash](bool ok) {
    if (alive.expired()) return;
    auto it = sessions_.find(id);
    if (it == sessions_.end() ||
        it->second->state != Session::State::kActive) {
      return;  // the session is gone: nothing was submitted
    }
    Session& session = *it->second;
    const uint64_t request_id = m.has_user_add()
                                    ? m.user_add().request_id()
                                    : m.user_set_password().request_id();
    if (!ok) {
      out_.Clear();
      w::ReferenceAck* ack = out_.mutable_reference_ack();
      ack->set_request_id(request_id);
      ack->set_reason(w::REJECT_REASON_SYSTEM_BUSY);
      ack->set_text("the password could not be hashed");
      SendDeskAck(session, /*rejected=*/true);
      return;
    }
    SubmitReference(
        session, m.has_user_add()
                     ? desk_.UserAdd(*session.user, m.user_add(),
                                     std::move(*hash))
                     : desk_.UserSetPassword(*session.user,
                                             m.user_set_password(),
                                             std::move(*hash)));
  };
  if (!checker_->TrySubmit(io_, std::move(check), std::move(done),
                           /*costly=*/false)) {
    out_.Clear();
    w::ReferenceAck* ack = out_.mutable_reference_ack();
    ack->set_request_id(m.has_user_add() ? m.user_add().request_id()
                                         : m.user_set_password().request_id());
    ack->set_reason(w::REJECT_REASON_SYSTEM_BUSY);
    ack->set_text(kHashBusyText);
    SendDeskAck(s, /*rejected=*/true);
  }
}

void Gateway::OnApiKeyRequest(Session& s, const w::Envelope& m) {
  if (m.has_api_key_add()) {
    SubmitReference(s, desk_.ApiKeyAdd(*s.user, m.api_key_add()));
    return;
  }
  if (m.has_api_key_revoke()) {
    SubmitReference(s, desk_.ApiKeyRevoke(*s.user, m.api_key_revoke()));
    return;
  }
  w::ReferenceAck ack;
  out_.Clear();
  if (desk_.ApiKeys(*s.user, m.api_key_list_request(),
                    out_.mutable_api_key_list(), &ack)) {
    outbox_.Send(s, out_);
    return;
  }
  out_.Clear();
  *out_.mutable_reference_ack() = std::move(ack);
  SendDeskAck(s, /*rejected=*/true);
}

void Gateway::OnUserChanged(const exchange::ReferenceUser& user) {
  if (deps_.users != nullptr) deps_.users->Update(user);
  for (auto& [id, sp] : sessions_) {
    Session& s = *sp;
    if (s.state != Session::State::kActive || s.user == nullptr ||
        s.user->name != user.name) {
      continue;
    }
    // A disabled user, or the key the session logged on with revoked.
    bool key_revoked = false;
    for (const exchange::ReferenceApiKey& k : user.api_keys) {
      key_revoked |= k.id == s.api_key && k.revoked;
    }
    const char* why = !user.enabled ? kUserDisabledText
                      : key_revoked ? kApiKeyRevokedText
                                    : nullptr;
    if (why == nullptr) continue;
    out_.Clear();
    out_.mutable_logout()->set_text(why);
    outbox_.Send(s, out_);
    s.state = Session::State::kClosing;
    if (deps_.log) {
      deps_.log("protobuf: " + user.name + ": logged out: " + why);
    }
  }
  if (deps_.user_changed) deps_.user_changed(user);
}

}  // namespace cfx::gateway::pb
