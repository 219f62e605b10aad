#include "gateway/pb/session.h"

#include <algorithm>

#include "gateway/session/metrics.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

void Outbox::Send(Session& s, const w::Envelope& e) {
  if (!Frame(e)) return;
  SendFramed(s, false, 0);
}

bool Outbox::Frame(const w::Envelope& e) {
  frame_.clear();
  framed_type_ = static_cast<int>(e.body_case());
  return AppendFrame(e, &frame_);
}

void Outbox::SendFramed(Session& s, bool sequenced, uint64_t seq) {
  if (metrics_ != nullptr) metrics_->MessageSent(framed_type_);
  SendBytes(s, frame_, sequenced, seq);
}

void Outbox::Reject(Session& s, w::SessionRejectReason reason,
                    const char* message_type, const char* field,
                    const std::string& text, uint64_t client_order_id) {
  reject_.Clear();
  w::SessionReject* r = reject_.mutable_session_reject();
  r->set_reason(reason);
  r->set_text(text);
  r->set_message_type(message_type);
  if (field != nullptr) r->set_field(field);
  r->set_client_order_id(client_order_id);
  if (metrics_ != nullptr) metrics_->SessionReject(reason);
  Send(s, reject_);
}

void Outbox::Forget(Session& s) {
  dirty_.erase(std::remove(dirty_.begin(), dirty_.end(), &s), dirty_.end());
  s.dirty = false;
}

}  // namespace cfx::gateway::pb
