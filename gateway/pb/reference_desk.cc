#include "gateway/pb/reference_desk.h"

#include <cstdio>
#include <utility>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/reference/reference_payload.h"
#include "gateway/session/attestation_check.h"
#include "gateway/session/attestation_signature.h"

namespace cfx::gateway::pb {
namespace {

namespace w = wire::v1;
using exchange::Eligibility;
using exchange::RejectCode;
using exchange::Timestamp;

constexpr std::size_t kMaxText = 128;

w::RejectReason Reason(RejectCode code) {
  return static_cast<w::RejectReason>(static_cast<int>(code));
}

bool TextOk(const std::string& s) {
  if (s.empty() || s.size() > kMaxText) return false;
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

std::string Tokens(uint64_t milli) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu.%03llu",
                static_cast<unsigned long long>(milli / 1'000),
                static_cast<unsigned long long>(milli % 1'000));
  return buf;
}

}  // namespace

ReferenceDesk::ReferenceDesk(const ServerConfig& config,
                             exchange::PayloadArena* arena)
    : config_(config), arena_(arena), view_(config.engine.reference) {}

Status ReferenceDesk::Seed(const exchange::Registry& recovered) {
  view_ = recovered;
  return Status::Ok();
}

ReferenceDesk::Request ReferenceDesk::Refuse(uint64_t request_id,
                                             w::RejectReason reason,
                                             std::string text) const {
  Request r;
  r.ack.set_request_id(request_id);
  r.ack.set_accepted(false);
  r.ack.set_reason(reason);
  r.ack.set_text(std::move(text));
  return r;
}

ReferenceDesk::Request ReferenceDesk::Command(uint64_t request_id,
                                              const UserConfig& user,
                                              std::string payload) {
  const int64_t slot =
      arena_ == nullptr ? -1 : arena_->Put(payload, /*holders=*/2);
  if (slot < 0) {
    return Refuse(request_id, w::REJECT_REASON_SYSTEM_BUSY,
                  "reference data is arriving faster than it is journaled; "
                  "try again");
  }
  Request r;
  r.submit = true;
  r.ack.set_request_id(request_id);
  r.cmd.type = exchange::CommandType::kReferenceData;
  r.cmd.account = user.account;
  r.cmd.client_order_id = exchange::ClientOrderId{next_token_++};
  r.cmd.set_payload_slot(static_cast<uint64_t>(slot));
  r.cmd.set_payload_size(static_cast<int64_t>(payload.size()));
  building_ = Pending{};
  building_.request_id = request_id;
  building_.payload = std::move(payload);
  return r;
}

ReferenceDesk::Request ReferenceDesk::RatingSet(const UserConfig& user,
                                                const w::RatingSet& m,
                                                Timestamp now) {
  if (user.role != Role::kRatingAgency) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the rating agency sets ratings");
  }
  if (m.tier() < w::RATING_TIER_PLATINUM ||
      m.tier() > w::RATING_TIER_UNDERPERFORM) {
    return Refuse(m.request_id(), w::REJECT_REASON_INVALID_RATING,
                  "tier: not a rating tier");
  }
  if (!TextOk(m.reference())) {
    return Refuse(m.request_id(), w::REJECT_REASON_INVALID_RATING,
                  "reference: 1-128 printable characters");
  }
  exchange::RatingSet r;
  r.operator_firm = m.operator_firm();
  r.tier = static_cast<exchange::Tier>(m.tier());
  r.effective = m.effective_ns() == 0 ? now : Timestamp{m.effective_ns()};
  r.expires = Timestamp{m.expires_ns()};
  r.agency = user.firm;
  r.reference = m.reference();
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::RatingRevoke(const UserConfig& user,
                                                   const w::RatingRevoke& m) {
  if (user.role != Role::kRatingAgency) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the rating agency revokes ratings");
  }
  exchange::RatingRevoke r;
  r.operator_firm = m.operator_firm();
  r.reference = m.reference();
  r.agency = user.firm;
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::KeyRegister(
    const UserConfig& user, const w::AttesterKeyRegister& m) {
  if (user.role != Role::kAdmin) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin registers attester keys");
  }
  if (m.public_key().size() != exchange::kEd25519PublicKeyBytes) {
    return Refuse(m.request_id(), w::REJECT_REASON_MALFORMED_REFERENCE_DATA,
                  "public_key: not 32 bytes");
  }
  if (!TextOk(m.attester())) {
    return Refuse(m.request_id(), w::REJECT_REASON_MALFORMED_REFERENCE_DATA,
                  "attester: 1-128 printable characters");
  }
  exchange::AttesterKeyRegister r;
  r.key_id = attest::AttesterKeyId(m.public_key());
  r.public_key = m.public_key();
  r.attester = m.attester();
  Request out =
      Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
  if (out.submit) building_.key_id = r.key_id;
  return out;
}

ReferenceDesk::Request ReferenceDesk::KeyRevoke(const UserConfig& user,
                                                const w::AttesterKeyRevoke& m) {
  if (user.role != Role::kAdmin) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only the admin revokes attester keys");
  }
  exchange::AttesterKeyRevoke r;
  r.key_id = m.key_id();
  Request out =
      Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
  if (out.submit) building_.key_id = r.key_id;
  return out;
}

ReferenceDesk::Request ReferenceDesk::AttestationSubmit(
    const UserConfig& user, const w::AttestationSubmit& m) {
  if (user.role != Role::kProvider) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only providers submit attestations");
  }
  Result<attest::SignedAttestation> parsed =
      attest::ParseSignedAttestation(m.signed_attestation());
  if (!parsed.has_value()) {
    return Refuse(m.request_id(), w::REJECT_REASON_MALFORMED_REFERENCE_DATA,
                  parsed.error().message());
  }
  const attest::SignedAttestation& s = parsed.value();
  if (s.attestation.provider != user.firm) {
    return Refuse(m.request_id(), w::REJECT_REASON_PROVIDER_MISMATCH,
                  "the attestation is for provider " + s.attestation.provider +
                      ", not " + user.firm);
  }
  std::string public_key, attester;
  bool revoked = false;
  if (!view_.key(s.attestation.attester_key_id, &public_key, &attester,
                 &revoked)) {
    return Refuse(
        m.request_id(), w::REJECT_REASON_UNKNOWN_ATTESTER_KEY,
        "attester key " + s.attestation.attester_key_id + " is not registered");
  }
  if (revoked) {
    return Refuse(
        m.request_id(), w::REJECT_REASON_ATTESTER_KEY_REVOKED,
        "attester key " + s.attestation.attester_key_id + " is revoked");
  }
  if (Status st = attest::VerifySignedAttestation(s, public_key); !st.ok()) {
    return Refuse(m.request_id(), w::REJECT_REASON_BAD_SIGNATURE, st.message());
  }
  exchange::AttestationSubmit r;
  r.submitter = user.firm;
  r.canonical = s.canonical;
  r.signature = s.signature;
  return Command(m.request_id(), user, exchange::EncodeReferencePayload(r));
}

ReferenceDesk::Request ReferenceDesk::SpotFailure(
    const UserConfig& user, const w::SpotFailureReport& m) {
  if ((user.role != Role::kTrader && user.role != Role::kProvider) ||
      user.account.value == 0) {
    return Refuse(m.request_id(), w::REJECT_REASON_NOT_AUTHORIZED,
                  "only a party to the trade reports a delivery failure");
  }
  if (m.trade_id() == 0) {
    return Refuse(m.request_id(), w::REJECT_REASON_UNKNOWN_TRADE,
                  "trade_id: required");
  }
  Request r;
  r.submit = true;
  r.ack.set_request_id(m.request_id());
  r.cmd.type = exchange::CommandType::kReportFailure;
  r.cmd.account = user.account;
  r.cmd.set_trade_id(exchange::TradeId{m.trade_id()});
  r.cmd.client_order_id = exchange::ClientOrderId{next_token_++};
  building_ = Pending{};
  building_.request_id = m.request_id();
  building_.trade_id = m.trade_id();
  return r;
}

void ReferenceDesk::Submitted(const Request& r, uint64_t session_id) {
  Pending p = std::move(building_);
  building_ = Pending{};
  p.session_id = session_id;
  pending_.emplace(r.cmd.client_order_id.value, std::move(p));
}

void ReferenceDesk::Abandon(const Request& r) {
  building_ = Pending{};
  if (r.cmd.type == exchange::CommandType::kReferenceData &&
      arena_ != nullptr) {
    arena_->Release(r.cmd.payload_slot());
    arena_->Release(r.cmd.payload_slot());
  }
}

bool ReferenceDesk::OnEvent(const exchange::Event& e, uint64_t* session_id,
                            w::ReferenceAck* ack) {
  const bool result_of_ours =
      e.type == exchange::EventType::kReferenceAccepted ||
      e.type == exchange::EventType::kTradeBusted ||
      (e.type == exchange::EventType::kRejected &&
       (e.command == exchange::CommandType::kReferenceData ||
        e.command == exchange::CommandType::kReportFailure));
  if (!result_of_ours) return false;
  auto it = pending_.find(e.client_order_id.value);
  if (it == pending_.end()) return false;
  Pending p = std::move(it->second);
  pending_.erase(it);
  changed_user_.clear();
  if (e.type == exchange::EventType::kReferenceAccepted) {
    // The view applies what the engine applied, at the same time.
    view_.Apply(p.payload, e.ts, nullptr);
    changed_user_ = UserNamed(p.payload);
  }
  *session_id = p.session_id;
  ack->Clear();
  ack->set_request_id(p.request_id);
  ack->set_seq(e.seq.value);
  ack->set_key_id(p.key_id);
  ack->set_trade_id(p.trade_id);
  if (e.type == exchange::EventType::kRejected) {
    ack->set_accepted(false);
    ack->set_reason(Reason(e.reject_code()));
    ack->set_text(std::string(exchange::RejectCodeName(e.reject_code())));
  } else {
    ack->set_accepted(true);
  }
  return true;
}

void ReferenceDesk::Standing(
    const std::string& firm, Timestamp now,
    google::protobuf::RepeatedPtrField<w::GradeStanding>* out) const {
  exchange::AccountId account;
  for (const exchange::ReferenceProvider& p :
       config_.engine.reference.providers) {
    if (p.firm == firm) account = p.account;
  }
  if (account.value == 0) return;
  exchange::Registry at(view_);
  at.AdvanceTime(now, nullptr);
  for (uint32_t g = 0; g < config_.engine.reference.grades.size(); ++g) {
    const exchange::EligibilityRow row = at.row(account, g);
    w::GradeStanding* s = out->Add();
    s->set_grade(config_.engine.reference.grades[g].name);
    s->set_eligible(row.status == Eligibility::kEligible);
    if (row.status != Eligibility::kEligible) {
      s->set_missing(std::string(exchange::EligibilityName(row.status)));
    }
    s->set_attested_nodes(row.nodes);
  }
}

w::RatingReport ReferenceDesk::Ratings(const UserConfig& user,
                                       const w::RatingQuery& q,
                                       Timestamp now) const {
  w::RatingReport out;
  out.set_request_id(q.request_id());
  const std::string firm =
      q.operator_firm().empty() ? user.firm : q.operator_firm();
  out.set_operator_firm(firm);
  const bool own = user.firm == firm && user.role == Role::kProvider;
  const bool admin = user.role == Role::kAdmin;
  const bool agency = user.role == Role::kRatingAgency;
  if (!own && !admin && !agency) return out;  // as if there were none
  // The rating in force: the latest effective among those in force.
  const auto ratings = view_.ratings(firm);
  int in_force = -1;
  for (int i = 0; i < static_cast<int>(ratings.size()); ++i) {
    const auto& r = ratings[static_cast<std::size_t>(i)];
    if (r.revoked || r.rating.effective > now || r.rating.expires <= now) {
      continue;
    }
    if (in_force < 0 ||
        r.rating.effective >=
            ratings[static_cast<std::size_t>(in_force)].rating.effective) {
      in_force = i;
    }
  }
  for (int i = 0; i < static_cast<int>(ratings.size()); ++i) {
    const auto& r = ratings[static_cast<std::size_t>(i)];
    // An agency sees only the ratings it set.
    if (agency && r.rating.agency != user.firm) continue;
    w::Rating* o = out.add_ratings();
    o->set_operator_firm(firm);
    o->set_tier(static_cast<w::RatingTier>(r.rating.tier));
    o->set_effective_ns(r.rating.effective.nanos);
    o->set_expires_ns(r.rating.expires.nanos);
    o->set_agency(r.rating.agency);
    o->set_reference(r.rating.reference);
    o->set_revoked(r.revoked);
    o->set_in_force(i == in_force);
  }
  if (own || admin) Standing(firm, now, out.mutable_standing());
  return out;
}

w::AttestationList ReferenceDesk::Attestations(const UserConfig& user,
                                               uint64_t request_id,
                                               Timestamp now) const {
  w::AttestationList out;
  out.set_request_id(request_id);
  // Only the provider itself sees its attestations.
  if (user.role != Role::kProvider) return out;
  for (const auto& v : view_.attestations(user.firm)) {
    const exchange::Attestation& a = v.attestation;
    w::AttestationInfo* o = out.add_attestations();
    o->set_attestation_id(a.attestation_id);
    o->set_node_id(a.node_id);
    o->set_gpu_model(a.gpu_model);
    o->set_gpu_count(a.gpu_count);
    o->set_recipe(a.recipe);
    o->set_output_tokens_per_s_per_gpu(
        Tokens(a.output_milli_tokens_per_s_per_gpu));
    o->set_measured_at_ns(a.measured_at.nanos);
    o->set_attester_key_id(a.attester_key_id);
    o->set_accepted_at_ns(v.accepted_at.nanos);
    o->set_driver_version(a.driver_version);
  }
  Standing(user.firm, now, out.mutable_standing());
  return out;
}

}  // namespace cfx::gateway::pb
