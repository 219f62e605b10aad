// Registry's persistent form: its canonical hash (Registry::Hash()), its
// snapshot (Save()) and loading one (Load()). Format: below, and
// docs/journal.md, "Snapshot".

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/core/reference/registry.h"
#include "exchange/core/reference/registry_fields.h"
#include "exchange/core/reference/registry_state.h"
#include "exchange/core/state_hash.h"

namespace cfx::exchange {

using internal::AttestationRecord;
using internal::KeyRecord;
using internal::ProviderState;
using internal::RatingRecord;
using internal::RegistryState;
using internal::ValidName;

namespace {

// Registry::Save() format version (the u32 in front of everything).
// 2: the users. 3: the users' API keys. Format 1 (without users) still
// loads: the users are then the config's, as before the first user
// command; so does format 2 (users without API keys): each user's keys are
// then the config's, as before the first API key command.
constexpr uint32_t kSnapshotVersion = 3;
constexpr uint32_t kSnapshotVersionWithoutApiKeys = 2;
constexpr uint32_t kSnapshotVersionWithoutUsers = 1;

// Feeds a string as its length, then its bytes in 8-byte little-endian
// chunks (the last one zero-padded).
void HashString(StateHasher& h, std::string_view s) {
  h.Add(static_cast<uint64_t>(s.size()));
  for (std::size_t i = 0; i < s.size(); i += 8) {
    uint64_t chunk = 0;
    for (std::size_t j = 0; j < 8 && i + j < s.size(); ++j) {
      chunk |= static_cast<uint64_t>(static_cast<uint8_t>(s[i + j])) << (8 * j);
    }
    h.Add(chunk);
  }
}

}  // namespace

namespace internal {

// Every value as a u64; strings by HashString. The fields: registry_fields.h.
uint64_t HashRegistry(const RegistryState& s) {
  StateHasher h;
  VisitRegistryFields(s, [&h](RegistryField f, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if (!HashedField(f)) return;
    if constexpr (std::is_same_v<T, std::string_view>) {
      HashString(h, value);
    } else if constexpr (std::is_same_v<T, FieldCount>) {
      h.Add(static_cast<uint64_t>(value.n));
    } else {
      h.Add(static_cast<uint64_t>(value));
    }
  });
  return h.value();
}

// Snapshot body format, little-endian; strings are u32 length + bytes:
//
//   i64 now (ns)
//   u32 grade count (must equal the config's)
//   u32 provider count (must equal the config's)
//   per provider in account order:
//     u32 account, str firm (must equal the config's, in that order)
//     u32 rating count, then per rating in acceptance order:
//       u8 tier (1..5), i64 effective, i64 expires, str agency,
//       str reference, u8 revoked (0/1)
//   u32 key count, then per key in id order (bytewise ascending):
//     str key id, str public key (32 bytes), str attester, u8 revoked
//   u32 attestation count, then per attestation in acceptance order:
//     str canonical encoding, str signature (64 bytes), i64 accepted_at
//   u32 user count, then per user in name order (bytewise ascending):
//     str name, str firm, u8 role (1..6), i64 account, str FIX
//     SenderCompID, str password hash, u8 enabled,
//     u32 API key count, then per key in the order added:
//       str key id, u8 kind (1 ed25519, 2 hmac-sha256), str public key
//       (ed25519: 32 bytes; hmac-sha256: empty, the secret is never
//       stored), u8 revoked
//
// The rows and next_change are not stored: they are recomputed at `now`,
// which reproduces them exactly (rows always equal the eligibility at the
// last time seen, and no boundary lies between the last recompute and it).
std::string SaveRegistryBody(const RegistryState& s) {
  std::string body;
  ByteWriter w(&body);
  VisitRegistryFields(s, [&w](RegistryField f, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    if (!SavedField(f)) return;
    if constexpr (std::is_same_v<T, std::string_view>) {
      w.Put(static_cast<uint32_t>(value.size()));
      w.PutBytes(value);
    } else if constexpr (std::is_same_v<T, FieldCount>) {
      w.Put(value.n);
    } else if constexpr (std::is_same_v<T, bool>) {
      w.Put(static_cast<uint8_t>(value ? 1 : 0));
    } else {
      w.Put(value);
    }
  });
  return body;
}

}  // namespace internal

uint64_t Registry::Hash() const { return internal::HashRegistry(*s_); }

// Format: u32 format version (1), u32 length of the body, the body
// (internal::SaveRegistryBody).
void Registry::Save(std::string* out) const {
  const std::string body = internal::SaveRegistryBody(*s_);
  ByteWriter header(out);
  header.Put(kSnapshotVersion);
  header.Put(static_cast<uint32_t>(body.size()));
  out->append(body);
}

namespace {

// Reads the snapshot body; the first failure names the field and its byte
// offset from the start of the registry snapshot.
class SnapshotReader {
 public:
  SnapshotReader(std::string_view body, std::size_t base)
      : body_(body), base_(base) {}

  template <typename T>
  T Get(const char* field) {
    if (!status_.ok()) return T{};
    ByteReader r(body_.substr(pos_));
    T v = r.template Get<T>();
    if (!r.ok()) {
      Fail(std::string("truncated ") + field);
      return T{};
    }
    pos_ += sizeof(T);
    return v;
  }

  std::string Str(const char* field) {
    const uint32_t n = Get<uint32_t>(field);
    if (!status_.ok()) return {};
    if (body_.size() - pos_ < n) {
      Fail(std::string("truncated ") + field + " (length " + std::to_string(n) +
           ")");
      return {};
    }
    std::string v(body_.substr(pos_, n));
    pos_ += n;
    return v;
  }

  bool Bool(const char* field) {
    const uint8_t v = Get<uint8_t>(field);
    if (v > 1) Fail(std::string("bad ") + field + " flag");
    return v == 1;
  }

  // A count of items each at least `min_bytes` long: refused when the rest
  // cannot hold that many, so a corrupt count cannot make Load allocate.
  uint32_t Count(const char* field, std::size_t min_bytes) {
    const uint32_t n = Get<uint32_t>(field);
    if (status_.ok() && n > (body_.size() - pos_) / min_bytes) {
      Fail(std::string("bad ") + field + " " + std::to_string(n));
      return 0;
    }
    return n;
  }

  void Fail(const std::string& what) {
    if (!status_.ok()) return;
    status_ = DataLossError("registry snapshot: " + what + " at byte " +
                            std::to_string(base_ + pos_));
  }
  // Fails at the position where the current item started.
  void FailAt(std::size_t pos, const std::string& what) {
    pos_ = pos;
    Fail(what);
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return body_.size() - pos_; }

 private:
  std::string_view body_;
  std::size_t base_;
  std::size_t pos_ = 0;
  Status status_;
};

// Reads the ratings of provider `pi` into `s`.
void LoadRatings(SnapshotReader& r, RegistryState& s, uint32_t pi) {
  const ReferenceProvider& cp = s.config.providers[pi];
  // tier, 2 times, 2 strings, revoked.
  const uint32_t count = r.Count("rating count", 1 + 8 + 8 + 4 + 4 + 1);
  for (uint32_t k = 0; r.ok() && k < count; ++k) {
    const std::size_t rat = r.position();
    RatingRecord rec;
    rec.rating.operator_firm = cp.firm;
    const uint8_t tier = r.Get<uint8_t>("rating tier");
    rec.rating.effective = Timestamp{r.Get<int64_t>("rating effective")};
    rec.rating.expires = Timestamp{r.Get<int64_t>("rating expires")};
    rec.rating.agency = r.Str("rating agency");
    rec.rating.reference = r.Str("rating reference");
    rec.revoked = r.Bool("rating revoked");
    if (!r.ok()) break;
    rec.rating.tier = static_cast<Tier>(tier);
    const std::string which = cp.firm + " rating " + std::to_string(k);
    if (tier < static_cast<uint8_t>(Tier::kPlatinum) ||
        tier > static_cast<uint8_t>(Tier::kUnderperform)) {
      r.FailAt(rat, which + ": bad tier " + std::to_string(tier));
    } else if (!(rec.rating.expires > rec.rating.effective)) {
      r.FailAt(rat, which + ": expires not after effective");
    } else if (!ValidName(rec.rating.agency) ||
               !ValidName(rec.rating.reference)) {
      r.FailAt(rat, which + ": bad agency or reference");
    } else {
      for (const RatingRecord& other : s.providers[pi].ratings) {
        if (other.rating.reference == rec.rating.reference) {
          r.FailAt(rat, which + ": duplicate reference");
        }
      }
    }
    s.providers[pi].ratings.push_back(std::move(rec));
  }
}

// Reads the grade and provider counts, then each provider with its ratings,
// into `s`.
void LoadProviders(SnapshotReader& r, RegistryState& s) {
  const uint32_t grades = r.Get<uint32_t>("grade count");
  if (r.ok() && grades != s.config.grades.size()) {
    r.Fail("grade count " + std::to_string(grades) + " != configured " +
           std::to_string(s.config.grades.size()));
  }
  const uint32_t providers = r.Get<uint32_t>("provider count");
  if (r.ok() && providers != s.providers.size()) {
    r.Fail("provider count " + std::to_string(providers) + " != configured " +
           std::to_string(s.providers.size()));
  }

  for (std::size_t i = 0; r.ok() && i < s.by_account.size(); ++i) {
    const uint32_t pi = s.by_account[i];
    const ReferenceProvider& cp = s.config.providers[pi];
    const std::size_t at = r.position();
    const uint32_t account = r.Get<uint32_t>("provider account");
    const std::string firm = r.Str("provider firm");
    if (r.ok() && (account != cp.account.value || firm != cp.firm)) {
      r.FailAt(at, "provider " + std::to_string(i) + " is not account " +
                       std::to_string(cp.account.value) + " " + cp.firm);
    }
    LoadRatings(r, s, pi);
  }
}

// Reads the attester keys into `s`.
void LoadKeys(SnapshotReader& r, RegistryState& s) {
  // 3 strings, revoked.
  const uint32_t keys = r.Count("key count", 4 + 4 + 4 + 1);
  for (uint32_t k = 0; r.ok() && k < keys; ++k) {
    const std::size_t at = r.position();
    std::string id = r.Str("key id");
    KeyRecord rec;
    rec.public_key = r.Str("key public key");
    rec.attester = r.Str("key attester");
    rec.revoked = r.Bool("key revoked");
    if (!r.ok()) break;
    const std::string which = "key " + std::to_string(k);
    if (!ValidName(id) || rec.public_key.size() != kEd25519PublicKeyBytes ||
        !ValidName(rec.attester)) {
      r.FailAt(at, which + ": bad id, public key or attester");
    } else if (!s.keys.empty() && !(s.keys.rbegin()->first < id)) {
      r.FailAt(at, which + ": ids not strictly ascending");
    } else {
      s.keys.emplace_hint(s.keys.end(), std::move(id), std::move(rec));
    }
  }
}

// Reads the attestations into `s`.
void LoadAttestations(SnapshotReader& r, RegistryState& s) {
  // 2 strings, accepted_at.
  const uint32_t count = r.Count("attestation count", 4 + 4 + 8);
  for (uint32_t k = 0; r.ok() && k < count; ++k) {
    const std::size_t at = r.position();
    AttestationRecord rec;
    rec.canonical = r.Str("attestation canonical");
    rec.signature = r.Str("attestation signature");
    rec.accepted_at = Timestamp{r.Get<int64_t>("attestation accepted_at")};
    if (!r.ok()) break;
    const std::string which = "attestation " + std::to_string(k);
    Result<Attestation> a = ParseCanonicalAttestation(rec.canonical);
    if (!a.has_value()) {
      r.FailAt(at, which + ": " + a.error().message());
      break;
    }
    rec.attestation = std::move(a).value();
    const Attestation& att = rec.attestation;
    if (rec.signature.size() != kEd25519SignatureBytes) {
      r.FailAt(at, which + ": signature not 64 bytes");
    } else if (s.FindProvider(att.provider) == nullptr) {
      r.FailAt(at, which + ": unknown provider " + att.provider);
    } else if (s.keys.count(att.attester_key_id) == 0) {
      r.FailAt(at, which + ": unknown key " + att.attester_key_id);
    } else if (att.measured_at > rec.accepted_at || rec.accepted_at > s.now ||
               (!s.attestations.empty() &&
                rec.accepted_at < s.attestations.back().accepted_at)) {
      r.FailAt(at, which + ": times out of order");
    } else if (s.nonces.count(att.nonce) != 0) {
      r.FailAt(at, which + ": nonce used twice");
    } else if (s.attestation_ids.count(att.attestation_id) != 0) {
      r.FailAt(at, which + ": duplicate attestation_id");
    } else {
      s.AddAttestation(std::move(rec));
    }
  }
}

// The API keys of user `name` as the config seeds them; none if the config
// has no such user.
std::vector<ReferenceApiKey> SeedApiKeys(const RegistryState& s,
                                         std::string_view name) {
  for (const ReferenceUser& u : s.config.users) {
    if (u.name == name) return u.api_keys;
  }
  return {};
}

// Reads one user's API keys; "" or what is wrong with them.
std::string LoadApiKeys(SnapshotReader& r, const RegistryState& s,
                        std::vector<ReferenceApiKey>* keys) {
  // id, kind, public key, revoked.
  const uint32_t count = r.Count("API key count", 4 + 1 + 4 + 1);
  for (uint32_t k = 0; r.ok() && k < count; ++k) {
    ReferenceApiKey key;
    key.id = r.Str("API key id");
    key.kind = r.Get<uint8_t>("API key kind");
    key.public_key = r.Str("API key public key");
    key.revoked = r.Bool("API key revoked");
    if (!r.ok()) return {};
    if (!internal::ApiKeyOk(key)) {
      return "API key " + std::to_string(k) + ": bad field";
    }
    bool twice = s.ApiKeyTaken(key.id);
    for (const ReferenceApiKey& earlier : *keys) twice |= earlier.id == key.id;
    if (twice) return "API key id " + key.id + " used twice";
    keys->push_back(std::move(key));
  }
  return {};
}

// Reads the users into `s`, replacing the config's: from the first
// snapshot on, the journal is the truth. Before format 3 the users' API
// keys are the config's.
void LoadUsers(SnapshotReader& r, uint32_t version, RegistryState& s) {
  s.users.clear();
  // 4 strings, role, account, enabled.
  const uint32_t count = r.Count("user count", 4 * 4 + 1 + 8 + 1);
  for (uint32_t k = 0; r.ok() && k < count; ++k) {
    const std::size_t at = r.position();
    ReferenceUser u;
    u.name = r.Str("user name");
    u.firm = r.Str("user firm");
    u.role = r.Get<uint8_t>("user role");
    u.account = static_cast<uint64_t>(r.Get<int64_t>("user account"));
    u.fix_sender_comp_id = r.Str("user FIX SenderCompID");
    u.password_hash = r.Str("user password hash");
    u.enabled = r.Bool("user enabled");
    std::vector<ReferenceApiKey> keys;
    std::string bad_key;
    if (version == kSnapshotVersionWithoutApiKeys) {
      keys = SeedApiKeys(s, u.name);
    } else {
      bad_key = LoadApiKeys(r, s, &keys);
    }
    if (!r.ok()) break;
    const std::string which = "user " + std::to_string(k);
    UserAdd add{u};
    add.user.enabled = true;
    const RejectCode valid = s.Check(add, s.now);
    if (!s.users.empty() && !(s.users.rbegin()->first < u.name)) {
      r.FailAt(at, which + ": names not strictly ascending");
    } else if (valid == RejectCode::kInvalidUser) {
      r.FailAt(at, which + ": bad field");
    } else if (valid != RejectCode::kNone) {
      r.FailAt(at, which + ": FIX SenderCompID used twice");
    } else if (!bad_key.empty()) {
      r.FailAt(at, which + ": " + bad_key);
    } else {
      u.api_keys = std::move(keys);
      std::string name = u.name;
      s.users.emplace_hint(s.users.end(), std::move(name), std::move(u));
    }
  }
}

}  // namespace

Status Registry::Load(std::string_view* in) {
  constexpr std::size_t kHeaderBytes = 8;
  ByteReader header(*in);
  const uint32_t version = header.Get<uint32_t>();
  const uint32_t length = header.Get<uint32_t>();
  if (!header.ok()) {
    return DataLossError("registry snapshot: truncated header (" +
                         std::to_string(in->size()) + " bytes)");
  }
  if (version != kSnapshotVersion &&
      version != kSnapshotVersionWithoutApiKeys &&
      version != kSnapshotVersionWithoutUsers) {
    return DataLossError("registry snapshot: unsupported format version " +
                         std::to_string(version));
  }
  if (in->size() - kHeaderBytes < length) {
    return DataLossError("registry snapshot: body of " +
                         std::to_string(length) + " bytes, only " +
                         std::to_string(in->size() - kHeaderBytes) + " left");
  }
  SnapshotReader r(in->substr(kHeaderBytes, length), kHeaderBytes);
  auto s = std::make_unique<RegistryState>(s_->config);

  s->now = Timestamp{r.Get<int64_t>("now")};
  LoadProviders(r, *s);
  LoadKeys(r, *s);
  LoadAttestations(r, *s);
  if (version != kSnapshotVersionWithoutUsers) LoadUsers(r, version, *s);

  if (r.ok() && r.remaining() != 0) {
    r.Fail(std::to_string(r.remaining()) + " trailing bytes");
  }
  if (!r.ok()) return r.status();

  s->RecomputeAll(s->now, nullptr);
  s->next_change = s->NextChange(s->now);
  s_ = std::move(s);
  in->remove_prefix(kHeaderBytes + length);
  return Status::Ok();
}

}  // namespace cfx::exchange
