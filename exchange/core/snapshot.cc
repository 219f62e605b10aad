// The engine's persistent state in canonical order: Engine::StateHash(),
// Engine::SaveSnapshot() and Engine::LoadSnapshot().

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/core/engine.h"
#include "exchange/core/engine_state.h"
#include "exchange/core/order_book.h"
#include "exchange/core/order_pool.h"
#include "exchange/core/state_fields.h"
#include "exchange/core/state_hash.h"

namespace cfx::exchange {

using internal::Book;
using internal::EngineState;
using internal::FieldInteger;
using internal::ForEachOrderInPriority;
using internal::ForEachPosition;
using internal::Order;
using internal::OrderField;
using internal::PositionRow;
using internal::SetReference;
using internal::VisitOrderFields;
using internal::VisitSpotTradeFields;

namespace {

// Marks a killed account in the state hash ("KILL").
constexpr uint64_t kKilledHashTag = 0x4b494c4c;

}  // namespace

uint64_t Engine::StateHash() const noexcept {
  StateHasher h;
  h.Add(s_->next_order_id);
  h.Add(s_->next_trade_id);
  // The table key counts once set, so unseeded engines (tests without a
  // journal) hash as the reference book of the matching tests does.
  if (const SipKey& k = s_->client_order_ids.key(); k != SipKey{}) {
    h.Add(k.k0);
    h.Add(k.k1);
  }
  for (uint32_t id = 0; id < s_->books.size(); ++id) {
    const Book& b = s_->books[id];
    if (!b.listed) continue;
    h.Add(id);
    h.Add(static_cast<uint64_t>(b.state));
    h.Add(b.reference.units);
    if (b.config.initial_state == InstrumentState::kNone) {
      h.Add(b.delivery_day);
    }
    // A scheduled open counts once there is one, so states without one
    // hash as they did before pre-opens had a length.
    if (b.open_at != 0) h.Add(b.open_at);
    ForEachOrderInPriority(*s_, b, [&h](const Order& o) {
      VisitOrderFields(o, [&h](OrderField f, auto v) {
        // The hash leaves out the resolved STP mode, as the reference book
        // of the differential tests does (docs/matching.md, "State hash").
        if (f != OrderField::kStp)
          h.Add(static_cast<uint64_t>(FieldInteger(v)));
      });
    });
  }
  ForEachPosition(*s_, [&h](uint32_t a, uint32_t i, int64_t p) {
    h.Add(a);
    h.Add(i);
    h.Add(p);
  });
  for (uint32_t a = 0; a < s_->accounts.size(); ++a) {
    const internal::AccountRow& r = s_->accounts[a];
    if (!r.configured || (r.collateral == 0 && r.settled_date == 0)) continue;
    h.Add(a);
    h.Add(r.collateral);
    h.Add(r.settled_date);
  }
  // Kill switches count only when on, so states without one hash as they
  // did before kill switches existed.
  for (uint32_t a = 0; a < s_->accounts.size(); ++a) {
    if (!s_->accounts[a].killed) continue;
    h.Add(kKilledHashTag);
    h.Add(a);
  }
  if (s_->client_order_ids.size() != 0) {
    uint64_t sum = 0;
    s_->client_order_ids.ForEach([&sum](uint32_t account, uint64_t id) {
      sum += ClientOrderIdHashTerm(account, id);
    });
    h.Add(s_->client_order_ids.size());
    h.Add(sum);
  }
  for (const internal::SpotTrade& t : s_->spot_trades) {
    VisitSpotTradeFields(t, [&h](auto v) { h.Add(v); });
  }
  // Reference data counts once there is any, so engines without it hash as
  // the reference book of the matching tests does.
  const uint64_t registry = s_->registry->Hash();
  if (registry != s_->empty_registry_hash) h.Add(registry);
  return h.value();
}

namespace {

constexpr uint32_t kSnapshotMagic = 0x53584643;  // "CFXS"
// 2: the client order ids of the trading day follow the positions.
// 3: each instrument's delivery day; the reference-data registry at the end.
// 4: each account's collateral and last settlement date, before the
//    registry.
// 5: (the oldest read) as 4, the reference-data registry as today.
// 6: each account's kill switch (a byte, 0 or 1) after its settlement date.
//    Version 5 still loads, with every kill switch off.
// 7: each instrument's scheduled open after its delivery day. Versions 5
//    and 6 still load, with no scheduled open.
constexpr uint16_t kSnapshotVersion = 7;
constexpr uint16_t kOldestSnapshotVersion = 5;

Status SnapshotError(const ByteReader& r, const std::string& what) {
  return DataLossError("snapshot: " + what + " at byte " +
                       std::to_string(r.position()));
}

// Reads one field of the state walk (state_fields.h) as SaveSnapshot()
// wrote it: an enum as its underlying integer.
template <typename T>
void GetField(ByteReader& r, T& field) {
  if constexpr (std::is_enum_v<T>) {
    field = static_cast<T>(r.Get<std::underlying_type_t<T>>());
  } else {
    field = r.Get<T>();
  }
}

}  // namespace

std::string Engine::SaveSnapshot() const {
  std::string out;
  ByteWriter w(&out);
  w.Put(kSnapshotMagic);
  w.Put(kSnapshotVersion);
  w.Put(s_->last_seq.value);
  w.Put(s_->next_order_id);
  w.Put(s_->next_trade_id);
  w.Put(s_->client_order_ids.key().k0);
  w.Put(s_->client_order_ids.key().k1);
  uint32_t listed = 0;
  for (const Book& b : s_->books) listed += b.listed ? 1 : 0;
  w.Put(listed);
  for (uint32_t id = 0; id < s_->books.size(); ++id) {
    const Book& b = s_->books[id];
    if (!b.listed) continue;
    w.Put(id);
    w.Put(static_cast<uint8_t>(b.state));
    w.Put(b.reference.units);
    w.Put(b.delivery_day);
    w.Put(b.open_at);
    uint32_t count = 0;
    ForEachOrderInPriority(*s_, b, [&](const Order&) { ++count; });
    w.Put(count);
    ForEachOrderInPriority(*s_, b, [&w](const Order& o) {
      VisitOrderFields(o, [&w](OrderField, auto v) { w.Put(FieldInteger(v)); });
    });
  }
  uint32_t positions = 0;
  for (const PositionRow& r : s_->positions)
    positions += r.position != 0 ? 1 : 0;
  w.Put(positions);
  ForEachPosition(*s_, [&w](uint32_t a, uint32_t i, int64_t p) {
    w.Put(a);
    w.Put(i);
    w.Put(p);
  });
  w.Put(s_->client_order_ids.size());
  s_->client_order_ids.ForEach([&w](uint32_t account, uint64_t id) {
    w.Put(account);
    w.Put(id);
  });
  w.Put(static_cast<uint32_t>(s_->spot_trades.size()));
  for (const internal::SpotTrade& t : s_->spot_trades) {
    VisitSpotTradeFields(t, [&w](auto v) { w.Put(v); });
  }
  uint32_t accounts = 0;
  for (const internal::AccountRow& a : s_->accounts) {
    accounts += a.configured ? 1 : 0;
  }
  w.Put(accounts);
  for (uint32_t a = 0; a < s_->accounts.size(); ++a) {
    const internal::AccountRow& r = s_->accounts[a];
    if (!r.configured) continue;
    w.Put(a);
    w.Put(r.collateral);
    w.Put(r.settled_date);
    w.Put(static_cast<uint8_t>(r.killed ? 1 : 0));
  }
  s_->registry->Save(&out);
  return out;
}

namespace {

// Reads the listed instruments and their resting orders, then registers the
// orders in order id order.
Status LoadBooks(EngineState& s, ByteReader& r, uint16_t version) {
  internal::OrderBook book(s);
  std::vector<uint32_t> slots;
  const uint32_t books = r.Get<uint32_t>();
  uint32_t listed = 0;
  for (const Book& b : s.books) listed += b.listed ? 1 : 0;
  if (!r.ok() || books != listed) {
    return SnapshotError(r, "instrument count differs from the config");
  }
  for (uint32_t n = 0; n < books; ++n) {
    const uint32_t id = r.Get<uint32_t>();
    if (!r.ok() || id == 0 || id >= s.books.size() || !s.books[id].listed) {
      return SnapshotError(
          r, "instrument " + std::to_string(id) + " is not in the config");
    }
    Book& b = s.books[id];
    const auto state = r.Get<uint8_t>();
    const Price ref{r.Get<int64_t>()};
    const int64_t day = r.Get<int64_t>();
    const int64_t open_at = version >= 7 ? r.Get<int64_t>() : 0;
    const bool slot = b.config.initial_state == InstrumentState::kNone;
    if ((state == 0 && !slot) ||
        state > static_cast<uint8_t>(InstrumentState::kExpired)) {
      return SnapshotError(r, "bad instrument state");
    }
    if (day < 0 || day > 2'932'896 || (day != 0 && !slot)) {
      return SnapshotError(r, "bad delivery day");
    }
    if (open_at < 0 ||
        (open_at != 0 && state != static_cast<uint8_t>(InstrumentState::kPreOpen))) {
      return SnapshotError(r, "bad scheduled open");
    }
    b.delivery_day = day;
    b.open_at = open_at;
    if (ref.units <= 0 || ref > b.config.max_price) {
      return SnapshotError(r, "bad reference price");
    }
    b.state = static_cast<InstrumentState>(state);
    SetReference(b, ref);
    const uint32_t count = r.Get<uint32_t>();
    if (!r.ok() || count > s.limits.max_orders - s.resting) {
      return SnapshotError(r, "more orders than the order pool holds");
    }
    for (uint32_t j = 0; j < count; ++j) {
      Order o;
      VisitOrderFields(o,
                       [&r](OrderField, auto& field) { GetField(r, field); });
      o.instrument = InstrumentId{id};
      if (!r.ok()) return SnapshotError(r, "truncated order");
      const bool valid =
          o.id.value != 0 && o.id.value < s.next_order_id &&
          s.index.Find(o.id.value) == 0 && o.account.value != 0 &&
          o.account.value < s.accounts.size() &&
          s.accounts[o.account.value].configured &&
          (o.side == Side::kBuy || o.side == Side::kSell) &&
          o.price.units > 0 && o.price <= b.config.max_price &&
          o.price.units % b.config.tick.units == 0 && o.leaves.lots > 0 &&
          o.filled.lots >= 0 && o.filled.lots <= o.quantity.lots &&
          // leaves + filled <= quantity, without the sum's overflow
          o.leaves.lots <= o.quantity.lots - o.filled.lots &&
          (o.tif == TimeInForce::kDay || o.tif == TimeInForce::kGtc ||
           o.tif == TimeInForce::kGtd) &&
          o.stp != StpMode::kAccountDefault &&
          static_cast<uint8_t>(o.stp) <=
              static_cast<uint8_t>(StpMode::kDecrement) &&
          (o.flags & ~kKnownFlags) == 0 &&
          ((o.tif == TimeInForce::kGtd) == (o.expire_time.nanos != 0));
      if (!valid) {
        return SnapshotError(r, "invalid order " + std::to_string(o.id.value));
      }
      const uint32_t k = internal::AllocSlot(s);
      s.orders[k] = o;
      s.index.Insert(o.id.value, k);  // for the duplicate check; redone below
      book.RestoreRest(k);
      slots.push_back(k);
    }
    // Only a book that has not opened since its pre-open may be crossed.
    if (b.state == InstrumentState::kOpen && internal::Crossed(b)) {
      return SnapshotError(r,
                           "crossed book in instrument " + std::to_string(id));
    }
  }
  std::sort(slots.begin(), slots.end(), [&](uint32_t x, uint32_t y) {
    return s.orders[x].id < s.orders[y].id;
  });
  for (uint32_t k : slots) {
    s.index.Erase(s.orders[k].id.value);
    internal::RegisterOrder(s, k);
  }
  return Status::Ok();
}

// Reads the positions, the client order ids of the day, the spot trades and
// the accounts' collateral (and from version 6 their kill switches).
Status LoadTables(EngineState& s, ByteReader& r, uint16_t version) {
  const uint32_t positions = r.Get<uint32_t>();
  if (!r.ok()) return SnapshotError(r, "truncated positions");
  for (uint32_t j = 0; j < positions; ++j) {
    const uint32_t a = r.Get<uint32_t>();
    const uint32_t i = r.Get<uint32_t>();
    const int64_t p = r.Get<int64_t>();
    if (!r.ok() || a >= s.accounts.size() || i >= s.limits.max_instruments) {
      return SnapshotError(r, "bad position entry");
    }
    s.positions[static_cast<std::size_t>(a) * s.limits.max_instruments + i]
        .position = p;
  }
  const uint32_t ids = r.Get<uint32_t>();
  if (!r.ok()) return SnapshotError(r, "truncated client order ids");
  if (ids > s.limits.max_client_order_ids) {
    return SnapshotError(r, "more client order ids than the table holds");
  }
  for (uint32_t j = 0; j < ids; ++j) {
    const uint32_t a = r.Get<uint32_t>();
    const uint64_t id = r.Get<uint64_t>();
    if (!r.ok() || a == 0 || a >= s.accounts.size() ||
        !s.accounts[a].configured || id == 0) {
      return SnapshotError(r, "bad client order id entry");
    }
    const internal::ClientOrderIdSet::Probe p = s.client_order_ids.Find(a, id);
    if (p.found) return SnapshotError(r, "duplicate client order id entry");
    if (!p.room) return SnapshotError(r, "client order id probe run full");
    s.client_order_ids.Insert(p, a, id);
  }
  const uint32_t trades = r.Get<uint32_t>();
  if (!r.ok() || trades > s.spot_trades.capacity()) {
    return SnapshotError(r, "bad spot trade count");
  }
  for (uint32_t j = 0; j < trades; ++j) {
    internal::SpotTrade t;
    VisitSpotTradeFields(t, [&r](auto& field) { GetField(r, field); });
    if (!r.ok() || t.trade_id == 0 || t.trade_id >= s.next_trade_id ||
        (j > 0 && t.trade_id <= s.spot_trades.back().trade_id) ||
        t.instrument == 0 || t.instrument >= s.books.size() ||
        t.buyer >= s.accounts.size() || t.seller >= s.accounts.size() ||
        t.busted > 1 || t.quantity <= 0 || t.price <= 0) {
      return SnapshotError(r, "bad spot trade entry");
    }
    s.spot_trades.push_back(t);
  }
  uint32_t configured = 0;
  for (const internal::AccountRow& a : s.accounts) {
    configured += a.configured ? 1 : 0;
  }
  const uint32_t accounts = r.Get<uint32_t>();
  if (!r.ok() || accounts != configured) {
    return SnapshotError(r, "account count differs from the config");
  }
  uint32_t previous = 0;
  for (uint32_t j = 0; j < accounts; ++j) {
    const uint32_t a = r.Get<uint32_t>();
    const int64_t collateral = r.Get<int64_t>();
    const int64_t date = r.Get<int64_t>();
    const uint8_t killed = version >= 6 ? r.Get<uint8_t>() : uint8_t{0};
    if (!r.ok() || a <= previous || a >= s.accounts.size() ||
        !s.accounts[a].configured || date < 0 || date > 2'932'896 ||
        killed > 1) {
      return SnapshotError(r, "bad account entry");
    }
    if (killed != 0 && s.accounts[a].head != 0) {
      return SnapshotError(r, "killed account " + std::to_string(a) +
                                  " has resting orders");
    }
    s.accounts[a].collateral = collateral;
    s.accounts[a].settled_date = date;
    s.accounts[a].killed = killed != 0;
    previous = a;
  }
  return Status::Ok();
}

}  // namespace

Status Engine::SetTableKey(const SipKey& key) {
  if (key == SipKey{}) return InvalidArgumentError("table key: zero key");
  const EngineState& s = *s_;
  if (s.client_order_ids.key() == key) return Status::Ok();
  if (s.last_seq.value != 0 || s.next_order_id != 1 ||
      s.client_order_ids.size() != 0 || s.client_order_ids.key() != SipKey{}) {
    return FailedPreconditionError(
        "table key: set only on a fresh engine, once");
  }
  s_->client_order_ids.SetKey(key);
  return Status::Ok();
}

const SipKey& Engine::table_key() const noexcept {
  return s_->client_order_ids.key();
}

Status Engine::LoadSnapshot(std::string_view bytes) {
  EngineState& s = *s_;
  if (s.last_seq.value != 0 || s.resting != 0 || s.next_order_id != 1) {
    return FailedPreconditionError("snapshot: engine already has state");
  }
  ByteReader r(bytes);
  if (r.Get<uint32_t>() != kSnapshotMagic) return SnapshotError(r, "bad magic");
  const auto version = r.Get<uint16_t>();
  if (version < kOldestSnapshotVersion || version > kSnapshotVersion) {
    return SnapshotError(r, "unsupported version " + std::to_string(version));
  }
  s.last_seq = Seq{r.Get<uint64_t>()};
  s.next_order_id = r.Get<uint64_t>();
  s.next_trade_id = r.Get<uint64_t>();
  if (!r.ok() || s.next_order_id == 0 || s.next_trade_id == 0) {
    return SnapshotError(r, "bad header");
  }
  SipKey key;
  key.k0 = r.Get<uint64_t>();
  key.k1 = r.Get<uint64_t>();
  if (!r.ok()) return SnapshotError(r, "truncated table key");
  // The journal's seed set the engine's key before the snapshot was read;
  // a snapshot of another journal (or none, or an unseeded engine's) in a
  // seeded one would hash the tables unlike the live engine did.
  if (s.client_order_ids.key() != SipKey{} && key != s.client_order_ids.key()) {
    return SnapshotError(r, "table key differs from the journal's seed");
  }
  s.client_order_ids.SetKey(key);
  CFX_RETURN_IF_ERROR(LoadBooks(s, r, version));
  CFX_RETURN_IF_ERROR(LoadTables(s, r, version));
  std::string_view rest = bytes.substr(r.position());
  if (Status st = s.registry->Load(&rest); !st.ok()) {
    return DataLossError("snapshot: reference data at byte " +
                         std::to_string(r.position()) + ": " + st.message());
  }
  if (!rest.empty()) {
    return DataLossError("snapshot: " + std::to_string(rest.size()) +
                         " trailing bytes");
  }
  s.next_reference_change = s.registry->next_change().nanos;
  internal::RefreshPreOpen(s);
  for (uint32_t a = 0; a < s.accounts.size(); ++a) {
    for (uint32_t g = 0; g < s.grades; ++g) {
      s.eligibility[static_cast<std::size_t>(a) * kMaxGrades + g] =
          s.registry->row(AccountId{a}, g);
    }
  }
  return Status::Ok();
}

}  // namespace cfx::exchange
