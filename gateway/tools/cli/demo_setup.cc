#include "gateway/tools/cli/demo_run.h"

#include "exchange/core/money.h"

namespace cfx::gateway::cli::internal {

Result<w::ReferenceAck> Demo::AskReference(Session& s, w::Envelope e,
                                           const std::string& what) {
  const uint64_t id = ++next_request_;
  switch (e.body_case()) {
    case w::Envelope::kRatingSet:
      e.mutable_rating_set()->set_request_id(id);
      break;
    case w::Envelope::kAttesterKeyRegister:
      e.mutable_attester_key_register()->set_request_id(id);
      break;
    case w::Envelope::kAttestationSubmit:
      e.mutable_attestation_submit()->set_request_id(id);
      break;
    default:
      return InvalidArgumentError("not a reference request");
  }
  Result<w::Envelope> r = s.Ask(&e, what, [id](const w::Envelope& m) {
    return m.has_reference_ack() && m.reference_ack().request_id() == id;
  });
  if (!r.has_value()) return r.error();
  const w::ReferenceAck& ack = r.value().reference_ack();
  if (!ack.accepted()) {
    return Refused(s.user() + ": " + what + " refused: " +
                   ReasonText(EnumName(ack.reason()), ack.text()));
  }
  return ack;
}

Status Demo::SetClock(int64_t t) {
  if (t <= now_) return Status::Ok();
  w::Envelope e;
  e.mutable_clock_request()->set_set_time_ns(t);
  Result<w::Envelope> r = admin_->Ask(
      &e, "clock", [](const w::Envelope& m) { return m.has_clock_report(); });
  if (!r.has_value()) return r.error();
  now_ = r.value().clock_report().now_ns();
  return Status::Ok();
}

Status Demo::Connect() {
  Result<SessionPtr> admin = Session::Open(o_, "admin");
  if (!admin.has_value()) return admin.error();
  admin_ = std::move(admin).value();
  // Every session gets each new index print; the admin's keeps them.
  admin_->set_other([this](const w::Envelope& m) {
    if (m.has_index_print() && m.index_print().grade() == kGrade) {
      prints_[m.index_print().date()] = m.index_print();
    }
  });
  w::Envelope read;
  read.mutable_clock_request()->set_read(true);
  Result<w::Envelope> clock =
      admin_->Ask(&read, "clock",
                  [](const w::Envelope& m) { return m.has_clock_report(); });
  if (!clock.has_value()) return clock.error();
  if (!clock.value().clock_report().simulated()) {
    return Refused("cfx demo needs a server started with --clock=simulated");
  }
  now_ = clock.value().clock_report().now_ns();
  // The exchange's business days: Monday to Friday minus its holidays.
  std::vector<int64_t> holidays;
  for (const std::string& h : clock.value().clock_report().holidays()) {
    const std::optional<int64_t> day = ParseDay(h);
    if (!day.has_value()) {
      return Refused("the exchange sent a holiday that is not a date: " +
                     OneLine(h));
    }
    holidays.push_back(*day);
  }
  calendar_ = settlement::BusinessCalendar(std::move(holidays));
  for (std::size_t i = 0; i < kProviders.size(); ++i) {
    Result<SessionPtr> s = Session::Open(o_, kProviders[i]);
    if (!s.has_value()) return s.error();
    providers_[i] = std::move(s).value();
  }
  for (std::size_t i = 0; i < kTraders.size(); ++i) {
    Result<SessionPtr> s = Session::Open(o_, kTraders[i]);
    if (!s.has_value()) return s.error();
    traders_[i] = std::move(s).value();
  }
  return Status::Ok();
}

// The exchange ends every FIX session at the end of its trading day (the
// daily session window on the exchange clock, docs/fix.md) and starts the
// next with sequence numbers at 1; trader-a logs on again for each day, as
// a venue's FIX client does.
Status Demo::FixSessionFor(int64_t day) {
  if (fix_ != nullptr && fix_day_ == day) return Status::Ok();
  if (fix_ != nullptr) fix_->Logout(kLogoutWait);
  fix_.reset();
  FixSessionOptions fo;
  fo.sender_comp_id = "TRADER_A";
  fo.username = "trader-a";
  fo.password = "demo-trader-a";
  Result<std::unique_ptr<FixInitiator>> fix =
      FixInitiator::Connect(o_.host, o_.fix_port, fo, o_.timeout,
                            o_.tls ? &*o_.tls : nullptr);
  if (!fix.has_value()) return fix.error();
  fix_ = std::move(fix).value();
  fix_day_ = day;
  return Status::Ok();
}

// The futures to trade, the days to run and the price level to start from.
Status Demo::LoadMarket() {
  const int64_t first = calendar_.NextOrSame(IndexDayOf(now_));
  w::Envelope list;
  list.mutable_instrument_list_request();
  Result<w::Envelope> r =
      admin_->Ask(&list, "instrument list",
                  [](const w::Envelope& m) { return m.has_instrument_list(); });
  if (!r.has_value()) return r.error();
  for (const w::Instrument& i : r.value().instrument_list().instruments()) {
    if (i.kind() != w::INSTRUMENT_KIND_FUTURE || i.grade() != kGrade ||
        i.symbol().rfind(kRoot, 0) != 0 ||
        (i.state() != w::INSTRUMENT_STATE_OPEN &&
         i.state() != w::INSTRUMENT_STATE_PRE_OPEN)) {
      continue;
    }
    const std::optional<int64_t> ltd = ParseDay(i.last_trading_day());
    if (!ltd.has_value() || *ltd < first) continue;
    futures_.push_back({i.symbol(), *ltd, 0});
  }
  std::sort(futures_.begin(), futures_.end(),
            [](const Future& a, const Future& b) {
              return a.last_trading_day < b.last_trading_day;
            });
  if (futures_.empty()) {
    return Refused("no open " + std::string(kRoot) + " futures to trade");
  }
  if (futures_.size() > 2) futures_.resize(2);
  // A little contango: the later month trades a few cents higher.
  for (std::size_t i = 0; i < futures_.size(); ++i) {
    futures_[i].premium = (2 + 4 * static_cast<int64_t>(i)) * kTick;
  }
  const int64_t last = NextBusinessDay(futures_[0].last_trading_day);
  for (int64_t d = first;
       d <= last || (o_.days > 0 && static_cast<int>(days_.size()) < o_.days);
       d = NextBusinessDay(d)) {
    days_.push_back(d);
  }
  if (o_.days > 0 && days_.size() > static_cast<std::size_t>(o_.days)) {
    days_.resize(static_cast<std::size_t>(o_.days));
  }

  // Start from the latest fixing, else the grade's initial reference.
  w::Envelope grades;
  grades.mutable_grade_list_request();
  Result<w::Envelope> g =
      admin_->Ask(&grades, "grade list",
                  [](const w::Envelope& m) { return m.has_grade_list(); });
  if (!g.has_value()) return g.error();
  for (const w::Grade& x : g.value().grade_list().grades()) {
    if (x.name() == kGrade) level_ = x.initial_reference_price();
  }
  w::Envelope q;
  const uint64_t id = ++next_request_;
  q.mutable_index_query()->set_request_id(id);
  q.mutable_index_query()->set_grade(kGrade);
  Result<w::Envelope> latest =
      admin_->Ask(&q, "index query", [id](const w::Envelope& m) {
        return (m.has_index_print_list() &&
                m.index_print_list().request_id() == id &&
                !m.index_print_list().more()) ||
               (m.has_reference_ack() && m.reference_ack().request_id() == id);
      });
  if (!latest.has_value()) return latest.error();
  if (latest.value().has_index_print_list()) {
    for (const w::IndexPrint& p : latest.value().index_print_list().prints()) {
      // Micro-dollars to price units, on the tick.
      if (p.has_value())
        level_ =
            (exchange::PriceFromIndex(exchange::IndexPrice{p.value_micros()})
                 .units +
             kTick / 2) /
            kTick * kTick;
    }
  }
  if (level_ <= 0) level_ = 58'000;
  return Status::Ok();
}

// Each provider attests kNodes nodes, measured an hour ago and signed with
// the demo's attester key.
Status Demo::Attest() {
  ++attest_round_;
  const int64_t measured = (now_ - kHour) / kSecond * kSecond;
  for (std::size_t i = 0; i < kProviders.size(); ++i) {
    const std::string firm = kProviderFirms[i];
    for (int n = 0; n < kNodes; ++n) {
      char node[16];
      std::snprintf(node, sizeof node, "node-%02d", n);
      exchange::Attestation a;
      a.attestation_id = firm + "-" + node + "-" + run_id_ + "-" +
                         std::to_string(attest_round_);
      a.provider = firm;
      a.node_id = node;
      a.gpu_model = "NVIDIA B200";
      a.gpu_count = 8;
      for (int gpu = 0; gpu < 8; ++gpu) {
        a.gpu_uuids.push_back("GPU-" + firm + "-" + node + "-" +
                              std::to_string(gpu) + "-" + run_id_);
      }
      a.driver_version = "570.124.06";
      a.recipe = "ref-8k1k-i100";
      a.output_milli_tokens_per_s_per_gpu = kProviderTokens[i] * 1'000;
      a.measured_at = exchange::Timestamp{measured};
      a.nonce = "demo-" + a.attestation_id;
      a.attester_key_id = key_id_;
      Result<std::string> json =
          attest::SignAttestationJson(a, key_.private_key);
      if (!json.has_value()) return json.error();
      w::Envelope e;
      e.mutable_attestation_submit()->set_signed_attestation(json.value());
      Result<w::ReferenceAck> ack = AskReference(
          *providers_[i], std::move(e), std::string("attestation ") + node);
      if (!ack.has_value()) return ack.error();
    }
  }
  attested_at_ = now_;
  return Status::Ok();
}

Status Demo::Setup() {
  Result<crypto::Ed25519KeyPair> k = crypto::GenerateKeyPair();
  if (!k.has_value()) return k.error();
  key_ = std::move(k).value();
  w::Envelope reg;
  reg.mutable_attester_key_register()->set_public_key(key_.public_key);
  reg.mutable_attester_key_register()->set_attester("ATTEST");
  Result<w::ReferenceAck> ack =
      AskReference(*admin_, std::move(reg), "attester key register");
  if (!ack.has_value()) return ack.error();
  key_id_ = ack.value().key_id();
  // "ed25519:" + 16 hex digits: unique per run, so ids and nonces are too.
  run_id_ = key_id_.substr(key_id_.find(':') + 1);

  Result<SessionPtr> rater = Session::Open(o_, "rater");
  if (!rater.has_value()) return rater.error();
  for (std::size_t i = 0; i < kProviderFirms.size(); ++i) {
    w::Envelope e;
    w::RatingSet* r = e.mutable_rating_set();
    r->set_operator_firm(kProviderFirms[i]);
    r->set_tier(kProviderTiers[i]);
    r->set_expires_ns(now_ + 365 * kDay);
    r->set_reference("demo-" + run_id_ + "-" + kProviderFirms[i]);
    Result<w::ReferenceAck> rated =
        AskReference(*rater.value(), std::move(e),
                     std::string("rating of ") + kProviderFirms[i]);
    if (!rated.has_value()) return rated.error();
  }
  rater.value()->Close();
  CFX_RETURN_IF_ERROR(Attest());

  out_ << "cfx demo: " << days_.size() << " business days from "
       << FormatDay(days_.front()) << " to " << FormatDay(days_.back())
       << ", seed " << o_.seed << "\n";
  out_ << "setup: attester key " << key_id_ << "; rated PROV-A PLATINUM, "
       << "PROV-B GOLD, PROV-C GOLD; " << kNodes
       << " nodes attested each at 301, 292, 297 tokens/s/GPU\n";
  out_ << "futures:";
  for (const Future& f : futures_) {
    out_ << " " << f.symbol << " (last trading day "
         << FormatDay(f.last_trading_day) << ")";
  }
  out_ << "\n" << std::flush;
  return Status::Ok();
}

}  // namespace cfx::gateway::cli::internal
