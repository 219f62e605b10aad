#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/text_format.h"
#include "gateway/config/server_config.h"
#include "index/index_service.h"

namespace cfx::gateway::pb {

// The protobuf gateway's desk for the CFX index (DESIGN.md §4,
// docs/protocol.md "Index"): answers IndexQuery and IndexExplainRequest from
// the index service, and turns a new print or restatement into the
// IndexPrint every session gets.
//
// The index is public, so any logged-on user may ask; only the explanation
// depends on who asks: the admin sees the firms behind the trades, anyone
// else only which sides are its own firm's ("YOU"), with no label for any
// other firm. Who asks comes from the session's user only.
//
// Answers larger than one frame are split into several messages (`more`).
//
// Thread: the gateway thread, which also feeds the index service. Memory:
// allocates (cold path).
class IndexDesk {
 public:
  // At most this many days per IndexQuery.
  static constexpr int64_t kMaxQueryDays = 1'000;
  // An IndexPrint carries at most this many trade ids (trade_count has the
  // full number).
  static constexpr int kMaxTradeIds = 4'000;
  // The serialized size an answer message is kept below, well inside the
  // 65,536-byte frame.
  static constexpr std::size_t kMaxMessageBytes = 60'000;

  // `index` may be null (a server without the index): every request is then
  // refused INDEX_UNAVAILABLE. It must remain live while the desk is.
  explicit IndexDesk(const index::IndexService* index) : index_(index) {}

  // The answer to `q`: one or more IndexPrintList envelopes (all but the
  // last with more = true), or one ReferenceAck refusing it: UNKNOWN_GRADE,
  // INVALID_DATE, INVALID_DATE_RANGE (from after to), DATE_RANGE_TOO_LONG
  // (more than kMaxQueryDays, or with all_revisions more than
  // IndexService::kMaxRevisionsPerRequest prints), INDEX_UNAVAILABLE.
  std::vector<wire::v1::Envelope> Query(const wire::v1::IndexQuery& q) const;

  // The answer to `m` for `user`: one or more IndexExplanation envelopes
  // (all but the last with more = true), or one ReferenceAck refusing it:
  // UNKNOWN_GRADE, INVALID_DATE, NO_INDEX_PRINT, INDEX_UNAVAILABLE.
  std::vector<wire::v1::Envelope> Explain(
      const UserConfig& user, const wire::v1::IndexExplainRequest& m) const;

  // `p` on the wire, its text from index::ReadingOf(). REQUIRES: the desk
  // has an index.
  void ToWire(const index::Print& p, wire::v1::IndexPrint* out) const;

 private:
  const index::IndexService* index_;
};

// The published fields of a print received as `m` (ToWire()'s inverse, for
// clients such as the cfx tool): its day, revision, time, level, value,
// counts, percentiles, partitions, USD per million tokens, T as published
// (attested_milli_tokens) and trade ids. What the wire does not carry stays
// as in a default Print: grade, carry_run and the exact attested_tokens; so
// does a field that does not decode (an unknown level, a date or rate that
// does not parse).
index::Print PrintFromWire(const wire::v1::IndexPrint& m);

namespace internal {

// Micro-dollars (or micro-GPU-hours) as a decimal with at least
// `min_decimals` places (exchange/text_format.h), for the desks.
using exchange::FormatMicros;

// `s` for a reject text: printable ASCII only (others become '?'), cut at
// 40 characters, in quotes. Shared by the desks.
std::string Quote(std::string_view s);

// A ReferenceAck refusing request `request_id` with `reason` and `text`.
wire::v1::Envelope Refuse(uint64_t request_id, wire::v1::RejectReason reason,
                          std::string text);

}  // namespace internal

}  // namespace cfx::gateway::pb
