#include "gateway/pb/index_desk.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include "exchange/core/reference/attestation.h"
#include "gateway/config/instrument_table.h"
#include "index/index_name.h"
#include "index/print_reading.h"

namespace cfx::gateway::pb {

namespace w = cfx::wire::v1;

namespace internal {

std::string Quote(std::string_view s) {
  constexpr std::size_t kMaxQuoted = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < kMaxQuoted; ++i) {
    const char c = s[i];
    out += c >= 0x20 && c < 0x7f ? c : '?';
  }
  if (s.size() > kMaxQuoted) out += "...";
  return out + "\"";
}

w::Envelope Refuse(uint64_t request_id, w::RejectReason reason,
                   std::string text) {
  w::Envelope e;
  w::ReferenceAck* ack = e.mutable_reference_ack();
  ack->set_request_id(request_id);
  ack->set_accepted(false);
  ack->set_reason(reason);
  ack->set_text(std::move(text));
  return e;
}

}  // namespace internal

namespace {

using internal::FormatMicros;
using internal::Quote;
using internal::Refuse;

// The published precision of values: $0.001.
constexpr int kDecimals = 3;
// Added to each repeated element's size for its tag and length prefix.
constexpr std::size_t kElementOverhead = 8;

// The grade index of `name`, or the refusal in *refusal.
std::optional<uint32_t> Grade(const index::IndexService& index,
                              const std::string& name, uint64_t request_id,
                              w::Envelope* refusal) {
  if (name.empty()) {
    *refusal = Refuse(request_id, w::REJECT_REASON_UNKNOWN_GRADE,
                      "grade is required, e.g. \"B200-STD\"");
    return std::nullopt;
  }
  const int32_t g = index.FindGrade(name);
  if (g < 0) {
    std::string known;
    for (const std::string& grade : index.config().grades) {
      known += (known.empty() ? "" : ", ") + grade;
    }
    *refusal = Refuse(request_id, w::REJECT_REASON_UNKNOWN_GRADE,
                      "no grade " + Quote(name) + " (grades: " +
                          (known.empty() ? "none" : known) + ")");
    return std::nullopt;
  }
  return static_cast<uint32_t>(g);
}

// The day of a non-empty `field` date, or the refusal in *refusal.
std::optional<int64_t> Day(const std::string& date, const char* field,
                           uint64_t request_id, w::Envelope* refusal) {
  std::optional<int64_t> day = ParseDay(date);
  if (!day.has_value()) {
    *refusal = Refuse(request_id, w::REJECT_REASON_INVALID_DATE,
                      std::string(field) + " " + Quote(date) +
                          " is not a calendar date YYYY-MM-DD between "
                          "1970-01-01 and 9999-12-31");
  }
  return day;
}

std::string IndexName(const index::IndexService& index, uint32_t grade) {
  const auto& grades = index.config().grades;
  return index::IndexName(grade < grades.size() ? grades[grade] : "?");
}

std::string FirmName(const index::IndexConfig& config, uint32_t firm) {
  if (firm < config.firm_names.size() && !config.firm_names[firm].empty()) {
    return config.firm_names[firm];
  }
  return "firm " + std::to_string(firm);
}

// What a participant sees of one side of a contributing trade: kOwnFirm
// when the asking firm is that side, nothing otherwise. No label names
// another firm, so no token repeats across its trades and a participant
// cannot follow another firm's trades through the day
// (docs/index-methodology.md, "Explain view").
constexpr std::string_view kOwnFirm = "YOU";

// The index's id of `user`'s firm; 0 (no firm's id) when it has none.
uint32_t OwnFirm(const index::IndexConfig& config, const UserConfig& user) {
  if (user.firm.empty()) return 0;
  for (uint32_t f = 1; f < config.firm_names.size(); ++f) {
    if (config.firm_names[f] == user.firm) return f;
  }
  return 0;
}

std::string SideSeenBy(uint32_t own_firm, uint32_t firm) {
  return own_firm != 0 && firm == own_firm ? std::string(kOwnFirm)
                                           : std::string();
}

}  // namespace

void IndexDesk::ToWire(const index::Print& p, w::IndexPrint* out) const {
  const auto& grades = index_->config().grades;
  const std::string grade =
      p.grade < grades.size() ? grades[p.grade] : std::string();
  const index::PrintReading r = index::ReadingOf(p);
  out->set_grade(grade);
  out->set_index(index::IndexName(grade));
  out->set_date(FormatDay(p.day));
  out->set_revision(p.revision);
  out->set_restated(r.restated);
  out->set_computed_at_ns(p.computed_at_ns);
  const int level = static_cast<int>(p.level);
  out->set_level(w::IndexLevel_IsValid(level)
                     ? static_cast<w::IndexLevel>(level)
                     : w::INDEX_LEVEL_UNSPECIFIED);
  out->set_level_name(std::string(r.level));
  out->set_disrupted(r.disrupted);
  out->set_has_value(p.has_value);
  if (r.value.has_value()) {
    out->set_value(*r.value);
    out->set_value_micros(p.value.micros);
  }
  out->set_trade_count(p.trade_count);
  out->set_distinct_sellers(p.sellers);
  out->set_distinct_buyers(p.buyers);
  out->set_gpu_hours(p.gpu_hours);
  if (r.p25.has_value() && r.p75.has_value()) {
    out->set_p25(*r.p25);
    out->set_p25_micros(p.p25.micros);
    out->set_p75(*r.p75);
    out->set_p75_micros(p.p75.micros);
  }
  for (const uint32_t k : r.partitions_used) out->add_partitions_used(k);
  if (r.usd_per_million_tokens.has_value()) {
    out->set_usd_per_million_tokens(*r.usd_per_million_tokens);
    out->set_usd_per_million_tokens_micros(p.usd_per_million_tokens_micros);
  }
  if (r.attested_tokens_per_s_per_gpu.has_value()) {
    out->set_attested_tokens_per_s_per_gpu(*r.attested_tokens_per_s_per_gpu);
  }
  const std::size_t ids =
      std::min(p.trade_ids.size(), static_cast<std::size_t>(kMaxTradeIds));
  out->mutable_trade_ids()->Reserve(static_cast<int>(ids));
  for (std::size_t i = 0; i < ids; ++i) out->add_trade_ids(p.trade_ids[i]);
}

index::Print PrintFromWire(const w::IndexPrint& m) {
  index::Print p;
  p.day = ParseDay(m.date()).value_or(0);
  p.revision = m.revision();
  p.computed_at_ns = m.computed_at_ns();
  const int level = static_cast<int>(m.level());
  p.level = level >= static_cast<int>(index::Level::k1a) &&
                    level <= static_cast<int>(index::Level::kDisrupted)
                ? static_cast<index::Level>(level)
                : index::Level::kNone;
  p.has_value = m.has_value();
  p.value.micros = m.value_micros();
  p.trade_count = m.trade_count();
  p.sellers = m.distinct_sellers();
  p.buyers = m.distinct_buyers();
  p.gpu_hours = m.gpu_hours();
  p.p25.micros = m.p25_micros();
  p.p75.micros = m.p75_micros();
  for (const uint32_t k : m.partitions_used()) {
    if (k >= 1 && k <= 32) p.partitions_used |= uint32_t{1} << (k - 1);
  }
  p.has_upm = !m.usd_per_million_tokens().empty();
  p.usd_per_million_tokens_micros = m.usd_per_million_tokens_micros();
  // "" (unknown) or text that is not a rate: no T.
  const Result<uint64_t> tokens =
      exchange::ParseMilliTokens(m.attested_tokens_per_s_per_gpu());
  if (tokens.has_value()) p.attested_milli_tokens = tokens.value();
  p.trade_ids.assign(m.trade_ids().begin(), m.trade_ids().end());
  return p;
}

std::vector<w::Envelope> IndexDesk::Query(const w::IndexQuery& q) const {
  const uint64_t id = q.request_id();
  std::vector<w::Envelope> out(1);
  if (index_ == nullptr) {
    out[0] = Refuse(id, w::REJECT_REASON_INDEX_UNAVAILABLE,
                    "this exchange keeps no index");
    return out;
  }
  const std::optional<uint32_t> grade = Grade(*index_, q.grade(), id, &out[0]);
  if (!grade.has_value()) return out;
  std::optional<int64_t> from;
  std::optional<int64_t> to;
  if (!q.from_date().empty()) {
    from = Day(q.from_date(), "from_date", id, &out[0]);
    if (!from.has_value()) return out;
  }
  if (!q.to_date().empty()) {
    to = Day(q.to_date(), "to_date", id, &out[0]);
    if (!to.has_value()) return out;
  }
  using Revisions = index::IndexService::HistoryRevisions;
  const Revisions revisions =
      q.all_revisions() ? Revisions::kAll : Revisions::kLatest;
  std::vector<index::Print> prints;
  const index::Print* latest = index_->Latest(*grade);
  if (!from.has_value() && !to.has_value()) {
    // The latest print's day: its latest revision, or all of them.
    if (latest != nullptr) from = to = latest->day;
  }
  if (!from.has_value() && !to.has_value()) {
    // No print yet.
  } else if (!to.has_value() && (latest == nullptr || latest->day < *from)) {
    // From a day after the latest print: nothing yet.
  } else {
    if (!to.has_value()) to = latest->day;
    if (!from.has_value())
      from = std::max<int64_t>(0, *to - (kMaxQueryDays - 1));
    if (*from > *to) {
      out[0] = Refuse(id, w::REJECT_REASON_INVALID_DATE_RANGE,
                      "from_date " + FormatDay(*from) + " is after to_date " +
                          FormatDay(*to));
      return out;
    }
    const int64_t days = *to - *from + 1;
    if (days > kMaxQueryDays) {
      out[0] = Refuse(id, w::REJECT_REASON_DATE_RANGE_TOO_LONG,
                      FormatDay(*from) + " to " + FormatDay(*to) + " is " +
                          std::to_string(days) + " days; at most " +
                          std::to_string(kMaxQueryDays) + " per request");
      return out;
    }
    if (revisions == Revisions::kAll) {
      const std::size_t n = index_->RevisionCount(*grade, *from, *to);
      if (n > index::IndexService::kMaxRevisionsPerRequest) {
        out[0] = Refuse(
            id, w::REJECT_REASON_DATE_RANGE_TOO_LONG,
            FormatDay(*from) + " to " + FormatDay(*to) + " holds " +
                std::to_string(n) + " revisions; at most " +
                std::to_string(index::IndexService::kMaxRevisionsPerRequest) +
                " per request with all_revisions");
        return out;
      }
    }
    prints = index_->History(*grade, *from, *to, revisions);
  }

  out[0].Clear();
  w::IndexPrintList* list = out[0].mutable_index_print_list();
  list->set_request_id(id);
  std::size_t used = out[0].ByteSizeLong();
  for (const index::Print& p : prints) {
    w::IndexPrint wire_print;
    ToWire(p, &wire_print);
    const std::size_t n = wire_print.ByteSizeLong() + kElementOverhead;
    if (used + n > kMaxMessageBytes && list->prints_size() > 0) {
      list->set_more(true);
      out.emplace_back();
      list = out.back().mutable_index_print_list();
      list->set_request_id(id);
      used = out.back().ByteSizeLong();
    }
    *list->add_prints() = std::move(wire_print);
    used += n;
  }
  return out;
}

std::vector<w::Envelope> IndexDesk::Explain(
    const UserConfig& user, const w::IndexExplainRequest& m) const {
  const uint64_t id = m.request_id();
  std::vector<w::Envelope> out(1);
  if (index_ == nullptr) {
    out[0] = Refuse(id, w::REJECT_REASON_INDEX_UNAVAILABLE,
                    "this exchange keeps no index");
    return out;
  }
  const std::optional<uint32_t> grade = Grade(*index_, m.grade(), id, &out[0]);
  if (!grade.has_value()) return out;
  int64_t day = 0;
  if (m.date().empty()) {
    const index::Print* latest = index_->Latest(*grade);
    if (latest == nullptr) {
      out[0] = Refuse(id, w::REJECT_REASON_NO_INDEX_PRINT,
                      "no print of " + IndexName(*index_, *grade) + " yet");
      return out;
    }
    day = latest->day;
  } else {
    const std::optional<int64_t> d = Day(m.date(), "date", id, &out[0]);
    if (!d.has_value()) return out;
    day = *d;
  }
  auto explained = index_->Explain(*grade, day);
  if (!explained.has_value()) {
    out[0] = Refuse(
        id, w::REJECT_REASON_NO_INDEX_PRINT,
        "no print of " + IndexName(*index_, *grade) + " for " + FormatDay(day));
    return out;
  }
  const index::Print& print = explained.value().first;
  const index::Explanation& ex = explained.value().second;
  const index::IndexConfig& config = index_->config();
  const bool admin = user.role == Role::kAdmin;

  out[0].Clear();
  w::IndexExplanation* x = out[0].mutable_index_explanation();
  x->set_request_id(id);
  ToWire(print, x->mutable_print());
  x->set_level_name(std::string(index::LevelName(print.level)));
  for (const std::string& note : ex.notes) x->add_notes(note);
  for (const index::PartitionValue& pv : ex.partitions) {
    w::IndexPartition* o = x->add_partitions();
    o->set_partition(pv.partition);
    o->set_trade_count(pv.trades);
    o->set_vwm(FormatMicros(pv.vwm.micros, kDecimals));
    o->set_vwm_micros(pv.vwm.micros);
  }
  std::size_t used = out[0].ByteSizeLong();
  // Starts the next message when `n` more bytes would not fit this one.
  const auto room = [&](std::size_t n) {
    if (used + n <= kMaxMessageBytes ||
        (x->trades_size() == 0 && x->excluded_size() == 0)) {
      return;
    }
    x->set_more(true);
    out.emplace_back();
    x = out.back().mutable_index_explanation();
    x->set_request_id(id);
    used = out.back().ByteSizeLong();
  };
  const bool trimmed =
      print.level == index::Level::k1b || print.level == index::Level::k2;
  const uint32_t own = OwnFirm(config, user);
  for (const index::ContributingTrade& c : ex.trades) {
    w::IndexContributingTrade t;
    t.set_trade_id(c.trade.trade_id);
    t.set_age_days(static_cast<uint32_t>(std::max<int64_t>(c.age, 0)));
    t.set_price(FormatMicros(c.trade.price.micros, kDecimals));
    t.set_price_micros(c.trade.price.micros);
    t.set_gpu_hours(c.gpu_hours);
    t.set_weight(FormatMicros(c.weight, kDecimals));
    t.set_weight_micros(c.weight);
    if (trimmed) {
      // The methodology counts kept weight x 4 (exact quarters); the view
      // shows micro-GPU-hours, half-up.
      const int64_t kept = (c.kept_weight + 2) / 4;
      t.set_kept_weight(FormatMicros(kept, kDecimals));
      t.set_kept_weight_micros(kept);
    }
    t.set_partition(c.partition);
    t.set_seller(admin ? FirmName(config, c.trade.seller)
                       : SideSeenBy(own, c.trade.seller));
    t.set_buyer(admin ? FirmName(config, c.trade.buyer)
                      : SideSeenBy(own, c.trade.buyer));
    const std::size_t n = t.ByteSizeLong() + kElementOverhead;
    room(n);
    *x->add_trades() = std::move(t);
    used += n;
  }
  for (const index::ExcludedTrade& e : ex.excluded) {
    w::IndexExcludedTrade t;
    t.set_trade_id(e.trade.trade_id);
    t.set_age_days(static_cast<uint32_t>(std::max<int64_t>(e.age, 0)));
    t.set_price(FormatMicros(e.trade.price.micros, kDecimals));
    t.set_price_micros(e.trade.price.micros);
    t.set_reason(std::string(e.reason));
    const std::size_t n = t.ByteSizeLong() + kElementOverhead;
    room(n);
    *x->add_excluded() = std::move(t);
    used += n;
  }
  return out;
}

}  // namespace cfx::gateway::pb
