// The cfx commands answered by the exchange's reference desk: operator
// ratings, attestations and attester keys, and spot delivery failures.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "exchange/clock.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;
using std::chrono::milliseconds;

namespace {

std::string UtcText(int64_t ns) {
  return ns == 0 ? "-" : exchange::FormatUtcTimestamp(exchange::Timestamp{ns});
}

void PrintStanding(
    const google::protobuf::RepeatedPtrField<w::GradeStanding>& standing) {
  for (const w::GradeStanding& g : standing) {
    std::string line = "  " + g.grade() + ": ";
    if (g.eligible()) {
      line += "eligible, " + std::to_string(g.attested_nodes()) +
              " attested node" + (g.attested_nodes() == 1 ? "" : "s") + "\n";
    } else {
      line += "not eligible: " + g.missing() + "\n";
    }
    Print(line);
  }
}

}  // namespace

int RunReference(const GlobalOptions& g, const std::string& subject,
                 const w::Envelope& e, uint64_t request_id,
                 const std::function<void(const w::ReferenceAck&)>& done) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      subject, "the answer", milliseconds(0), [&](const w::Envelope& m) {
        if (!m.has_reference_ack() ||
            m.reference_ack().request_id() != request_id) {
          return kKeepWaiting;
        }
        const w::ReferenceAck& ack = m.reference_ack();
        if (c.json()) PrintJson(ProtoJson(ack));
        if (!ack.accepted()) {
          return Fail(kExitRejected,
                      subject + " rejected: " +
                          ReasonText(EnumName(ack.reason()), ack.text()));
        }
        if (!c.json()) done(ack);
        return kExitOk;
      });
}

namespace {

struct RatingArgs {
  std::string operator_firm;
  std::string tier;
  std::string effective;
  std::string expires;
  std::string reference;
};

int RunRatingSet(const GlobalOptions& g, const RatingArgs& a) {
  static const std::pair<const char*, w::RatingTier> kTiers[] = {
      {"platinum", w::RATING_TIER_PLATINUM},
      {"gold", w::RATING_TIER_GOLD},
      {"silver", w::RATING_TIER_SILVER},
      {"bronze", w::RATING_TIER_BRONZE},
      {"underperform", w::RATING_TIER_UNDERPERFORM}};
  std::string tier = a.tier;
  for (char& ch : tier) ch = static_cast<char>(std::tolower(ch));
  w::RatingTier t = w::RATING_TIER_UNSPECIFIED;
  for (const auto& [name, value] : kTiers) {
    if (tier == name) t = value;
  }
  if (t == w::RATING_TIER_UNSPECIFIED) {
    return Fail(kExitUsage,
                "tier must be platinum, gold, silver, bronze or underperform");
  }
  w::Envelope e;
  w::RatingSet* m = e.mutable_rating_set();
  m->set_request_id(RequestId());
  m->set_operator_firm(a.operator_firm);
  m->set_tier(t);
  m->set_reference(a.reference);
  if (!a.effective.empty()) {
    Result<exchange::Timestamp> ts = exchange::ParseUtcTimestamp(a.effective);
    if (!ts.has_value()) return Fail(kExitUsage, ts.error().message());
    m->set_effective_ns(ts.value().nanos);
  }
  Result<exchange::Timestamp> ts = exchange::ParseUtcTimestamp(a.expires);
  if (!ts.has_value()) return Fail(kExitUsage, ts.error().message());
  m->set_expires_ns(ts.value().nanos);
  return RunReference(
      g, "rating", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("rated " + a.operator_firm + " " + tier + " (reference " +
              a.reference + "), seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunRatingRevoke(const GlobalOptions& g, const RatingArgs& a) {
  w::Envelope e;
  w::RatingRevoke* m = e.mutable_rating_revoke();
  m->set_request_id(RequestId());
  m->set_operator_firm(a.operator_firm);
  m->set_reference(a.reference);
  return RunReference(
      g, "rating revoke", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("revoked rating " + a.reference + " of " + a.operator_firm +
              ", seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunRatingShow(const GlobalOptions& g, const std::string& firm) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::RatingQuery* q = e.mutable_rating_query();
  q->set_request_id(RequestId());
  q->set_operator_firm(firm);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "rating query", "the rating report", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_rating_report() || m.rating_report().request_id() != id) {
          return kKeepWaiting;
        }
        const w::RatingReport& r = m.rating_report();
        if (c.json()) {
          PrintJson(ProtoJson(r));
          return kExitOk;
        }
        if (r.ratings().empty()) {
          Print("no ratings of " + r.operator_firm() + " visible to you\n");
        }
        for (const w::Rating& x : r.ratings()) {
          Print(r.operator_firm() + " " + EnumName(x.tier()) + " " +
                UtcText(x.effective_ns()) + " .. " + UtcText(x.expires_ns()) +
                " by " + x.agency() + " ref " + x.reference() +
                (x.revoked() ? " REVOKED" : "") +
                (x.in_force() ? " (in force)" : "") + "\n");
        }
        if (!r.standing().empty()) {
          Print("standing:\n");
          PrintStanding(r.standing());
        }
        return kExitOk;
      });
}

int RunAttestSubmit(const GlobalOptions& g, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(kExitUsage, "cannot open " + path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (text.size() > 60'000) return Fail(kExitUsage, path + ": too large");
  w::Envelope e;
  w::AttestationSubmit* m = e.mutable_attestation_submit();
  m->set_request_id(RequestId());
  m->set_signed_attestation(std::move(text));
  return RunReference(
      g, "attestation", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("attestation accepted, seq " + std::to_string(ack.seq()) + "\n");
      });
}

int RunAttestList(const GlobalOptions& g) {
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  e.mutable_attestation_list_request()->set_request_id(RequestId());
  const uint64_t id = e.attestation_list_request().request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  return c.Await(
      "attestation list", "the attestation list", milliseconds(0),
      [&](const w::Envelope& m) {
        if (!m.has_attestation_list() ||
            m.attestation_list().request_id() != id) {
          return kKeepWaiting;
        }
        const w::AttestationList& l = m.attestation_list();
        if (c.json()) {
          PrintJson(ProtoJson(l));
          return kExitOk;
        }
        if (l.attestations().empty()) Print("no attestations\n");
        for (const w::AttestationInfo& a : l.attestations()) {
          Print(a.attestation_id() + "  node " + a.node_id() + "  " +
                std::to_string(a.gpu_count()) + "x " + a.gpu_model() + "  " +
                a.recipe() + "  " + a.output_tokens_per_s_per_gpu() +
                " tok/s/GPU  measured " + UtcText(a.measured_at_ns()) +
                "  key " + a.attester_key_id() + "\n");
        }
        if (!l.standing().empty()) {
          Print("standing:\n");
          PrintStanding(l.standing());
        }
        return kExitOk;
      });
}

int RunKeyRegister(const GlobalOptions& g, const std::string& pub_path,
                   const std::string& attester) {
  Result<std::string> pub = crypto::ReadPublicKeyFile(pub_path);
  if (!pub.has_value()) return Fail(kExitUsage, pub.error().message());
  w::Envelope e;
  w::AttesterKeyRegister* m = e.mutable_attester_key_register();
  m->set_request_id(RequestId());
  m->set_public_key(pub.value());
  m->set_attester(attester);
  return RunReference(g, "key registration", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("registered " + ack.key_id() + " for " +
                              attester + ", seq " + std::to_string(ack.seq()) +
                              "\n");
                      });
}

int RunKeyRevoke(const GlobalOptions& g, const std::string& key_id) {
  w::Envelope e;
  w::AttesterKeyRevoke* m = e.mutable_attester_key_revoke();
  m->set_request_id(RequestId());
  m->set_key_id(key_id);
  return RunReference(g, "key revocation", e, m->request_id(),
                      [&](const w::ReferenceAck& ack) {
                        Print("revoked " + key_id + ", seq " +
                              std::to_string(ack.seq()) + "\n");
                      });
}

int RunReportFailure(const GlobalOptions& g, uint64_t trade_id) {
  w::Envelope e;
  w::SpotFailureReport* m = e.mutable_spot_failure_report();
  m->set_request_id(RequestId());
  m->set_trade_id(trade_id);
  return RunReference(
      g, "failure report", e, m->request_id(), [&](const w::ReferenceAck& ack) {
        Print("trade " + std::to_string(trade_id) + " busted, seq " +
              std::to_string(ack.seq()) + "\n");
      });
}

}  // namespace

void AddRatingCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                       int* exit_code) {
  CLI::App* rating = app.add_subcommand(
      "rating", "Operator ratings: set and revoke (rating agency), show");
  rating->require_subcommand(1);
  auto ra = std::make_shared<RatingArgs>();
  CLI::App* rset = rating->add_subcommand(
      "set", "Rate an operator, e.g. rating set PROV-A gold --expires ...");
  rset->add_option("OPERATOR", ra->operator_firm, "The provider firm")
      ->required();
  rset->add_option("TIER", ra->tier,
                   "platinum, gold, silver, bronze or underperform")
      ->required();
  rset->add_option("--expires", ra->expires, "UTC, YYYY-MM-DDTHH:MM:SSZ")
      ->required();
  rset->add_option("--effective", ra->effective,
                   "UTC, YYYY-MM-DDTHH:MM:SSZ (default: now)");
  rset->add_option("--reference", ra->reference,
                   "The agency's id of the rating, unique per operator")
      ->required();
  rset->callback([g, ra, exit_code] { *exit_code = RunRatingSet(*g, *ra); });
  CLI::App* rrevoke =
      rating->add_subcommand("revoke", "Withdraw one of your ratings");
  rrevoke->add_option("OPERATOR", ra->operator_firm, "The provider firm")
      ->required();
  rrevoke->add_option("REFERENCE", ra->reference, "The rating's reference")
      ->required();
  rrevoke->callback(
      [g, ra, exit_code] { *exit_code = RunRatingRevoke(*g, *ra); });
  CLI::App* rshow = rating->add_subcommand(
      "show", "Show an operator's ratings (default: your own firm's)");
  rshow->add_option("OPERATOR", ra->operator_firm, "The provider firm");
  rshow->callback([g, ra, exit_code] {
    *exit_code = RunRatingShow(*g, ra->operator_firm);
  });
}

void AddAttestServerCommands(CLI::App& attest,
                             const std::shared_ptr<GlobalOptions>& g,
                             int* exit_code) {
  auto file = std::make_shared<std::string>();
  CLI::App* submit =
      attest.add_subcommand("submit", "Submit a signed attestation (provider)");
  submit->add_option("FILE", *file, "As written by `cfx attest sign`")
      ->required();
  submit->callback(
      [g, file, exit_code] { *exit_code = RunAttestSubmit(*g, *file); });
  attest
      .add_subcommand("list",
                      "List your attestations and grade standing "
                      "(provider)")
      ->callback([g, exit_code] { *exit_code = RunAttestList(*g); });
  CLI::App* key = attest.add_subcommand(
      "key", "Register or revoke attester public keys (admin)");
  key->require_subcommand(1);
  auto attester = std::make_shared<std::string>();
  CLI::App* reg = key->add_subcommand("register", "Register a public key");
  reg->add_option("PUB", *file, "The attester's .pub file")->required();
  reg->add_option("--attester", *attester, "The attester firm")->required();
  reg->callback([g, file, attester, exit_code] {
    *exit_code = RunKeyRegister(*g, *file, *attester);
  });
  CLI::App* rev = key->add_subcommand("revoke", "Revoke a key");
  rev->add_option("KEY_ID", *file, "e.g. ed25519:0123456789abcdef")->required();
  rev->callback([g, file, exit_code] { *exit_code = RunKeyRevoke(*g, *file); });
}

void AddSpotCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                     int* exit_code) {
  CLI::App* spot = app.add_subcommand("spot", "Spot trade life cycle");
  spot->require_subcommand(1);
  auto trade_id = std::make_shared<uint64_t>(0);
  CLI::App* failure = spot->add_subcommand(
      "report-failure",
      "Report that delivery of a spot trade failed (either side, before "
      "12:00 UTC of the delivery day): the trade is busted");
  failure->add_option("TRADE_ID", *trade_id, "The trade id")->required();
  failure->callback([g, trade_id, exit_code] {
    *exit_code = RunReportFailure(*g, *trade_id);
  });
}

}  // namespace cfx::gateway::cli
