#include "index/index_records.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "exchange/core/byte_codec.h"

namespace cfx::index::internal {

using exchange::ByteReader;
using exchange::ByteWriter;

namespace {

void PutBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
  }
}

// The fields of a trade record, in record order: the one list that
// EncodeTrade and DecodeTrade walk. `field` is called with each.
template <typename Trade, typename F>
void TradeFields(Trade& t, F&& field) {
  field(t.trade_id);
  field(t.ts_ns);
  field(t.price.micros);
  field(t.lots);
  field(t.seller);
  field(t.buyer);
  field(t.seller_group);
  field(t.buyer_group);
  field(t.seller_milli_tokens);
  field(t.busted_at_ns);
}

// Reads a limb array of the exact T; false when it does not fit the record.
bool GetWide(ByteReader& r, WideUint* v) {
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || r.remaining() / 8 < n) return false;
  std::vector<uint64_t> limbs(n);
  for (uint64_t& limb : limbs) limb = r.Get<uint64_t>();
  *v = WideUint::FromLimbs(std::move(limbs));
  return r.ok() && v->limbs().size() == n;
}

}  // namespace

uint64_t GetBigEndian(std::string_view in, std::size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v = (v << 8) | static_cast<uint8_t>(in[pos + static_cast<std::size_t>(i)]);
  }
  return v;
}

std::string TradeKey(uint32_t grade, uint64_t id) {
  std::string k = "t";
  k.push_back(static_cast<char>(grade));
  PutBigEndian(&k, id, 8);
  return k;
}
std::string PrintKey(uint32_t grade, int64_t day, uint32_t revision) {
  std::string k = "p";
  k.push_back(static_cast<char>(grade));
  PutBigEndian(&k, static_cast<uint64_t>(day) ^ (uint64_t{1} << 63), 8);
  PutBigEndian(&k, revision, 4);
  return k;
}

std::string EncodeTrade(const IndexTrade& t) {
  std::string out;
  ByteWriter w(&out);
  TradeFields(t, [&w](const auto& v) { w.Put(v); });
  return out;
}
bool DecodeTrade(std::string_view in, IndexTrade* t) {
  ByteReader r(in);
  TradeFields(*t,
              [&r](auto& v) { v = r.Get<std::remove_cvref_t<decltype(v)>>(); });
  return r.ok() && r.remaining() == 0 && t->lots > 0 && t->price.micros > 0;
}

std::string EncodePrint(const Print& p) {
  std::string out;
  ByteWriter w(&out);
  w.Put<uint32_t>(p.grade);
  w.Put<int64_t>(p.day);
  w.Put<uint32_t>(p.revision);
  w.Put<int64_t>(p.computed_at_ns);
  w.Put<uint8_t>(static_cast<uint8_t>(p.level));
  w.Put<uint8_t>(p.has_value ? 1 : 0);
  w.Put<int64_t>(p.value.micros);
  w.Put<uint32_t>(p.trade_count);
  w.Put<uint32_t>(p.sellers);
  w.Put<uint32_t>(p.buyers);
  w.Put<int64_t>(p.gpu_hours);
  w.Put<int64_t>(p.p25.micros);
  w.Put<int64_t>(p.p75.micros);
  w.Put<uint32_t>(p.partitions_used);
  w.Put<uint8_t>(p.has_upm ? 1 : 0);
  w.Put<int64_t>(p.usd_per_million_tokens_micros);
  w.Put<uint64_t>(p.attested_milli_tokens);
  w.Put<uint32_t>(p.carry_run);
  w.Put<uint32_t>(static_cast<uint32_t>(p.trade_ids.size()));
  for (uint64_t id : p.trade_ids) w.Put<uint64_t>(id);
  for (const WideUint* v : {&p.attested_tokens.num, &p.attested_tokens.den}) {
    w.Put<uint32_t>(static_cast<uint32_t>(v->limbs().size()));
    for (uint64_t limb : v->limbs()) w.Put<uint64_t>(limb);
  }
  return out;
}
bool DecodePrint(std::string_view in, Print* p) {
  ByteReader r(in);
  p->grade = r.Get<uint32_t>();
  p->day = r.Get<int64_t>();
  p->revision = r.Get<uint32_t>();
  p->computed_at_ns = r.Get<int64_t>();
  const uint8_t level = r.Get<uint8_t>();
  p->has_value = r.Get<uint8_t>() != 0;
  p->value.micros = r.Get<int64_t>();
  p->trade_count = r.Get<uint32_t>();
  p->sellers = r.Get<uint32_t>();
  p->buyers = r.Get<uint32_t>();
  p->gpu_hours = r.Get<int64_t>();
  p->p25.micros = r.Get<int64_t>();
  p->p75.micros = r.Get<int64_t>();
  p->partitions_used = r.Get<uint32_t>();
  p->has_upm = r.Get<uint8_t>() != 0;
  p->usd_per_million_tokens_micros = r.Get<int64_t>();
  p->attested_milli_tokens = r.Get<uint64_t>();
  p->carry_run = r.Get<uint32_t>();
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || r.remaining() / 8 < n || level == 0 ||
      level > static_cast<uint8_t>(Level::kDisrupted)) {
    return false;
  }
  p->level = static_cast<Level>(level);
  p->trade_ids.resize(n);
  for (uint32_t i = 0; i < n; ++i) p->trade_ids[i] = r.Get<uint64_t>();
  if (r.ok() && r.remaining() == 0) {  // a record without the exact T
    p->attested_tokens = ReducedRatio(WideUint(p->attested_milli_tokens),
                                      WideUint(p->attested_milli_tokens != 0));
    return true;
  }
  WideUint num;
  WideUint den;
  if (!GetWide(r, &num) || !GetWide(r, &den) || r.remaining() != 0) {
    return false;
  }
  // The exact T must be in lowest terms and agree with its published form.
  p->attested_tokens = ReducedRatio(num, den);
  if (!(p->attested_tokens.num == num && p->attested_tokens.den == den)) {
    return false;
  }
  int64_t milli = 0;
  if (den.is_zero()) return num.is_zero() && p->attested_milli_tokens == 0;
  return RoundHalfUp(num, den, 1, &milli) &&
         static_cast<uint64_t>(milli) == p->attested_milli_tokens;
}

}  // namespace cfx::index::internal
