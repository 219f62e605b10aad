#include "exchange/core/reference/reference_payload.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "exchange/core/byte_codec.h"

namespace cfx::exchange {

namespace {

constexpr std::size_t kMaxStringBytes = std::numeric_limits<uint16_t>::max();

// Appends fields; remembers whether one could not be encoded.
class PayloadWriter {
 public:
  explicit PayloadWriter(std::string* out) : w_(out) {}

  void U8(uint8_t v) { w_.Put(v); }
  void I64(int64_t v) { w_.Put(v); }
  void Str(std::string_view s) {
    if (s.size() > kMaxStringBytes) {
      ok_ = false;
      return;
    }
    w_.Put(static_cast<uint16_t>(s.size()));
    w_.PutBytes(s);
  }
  bool ok() const { return ok_; }

 private:
  ByteWriter w_;
  bool ok_ = true;
};

// Reads fields in order. The first failure is kept, names the field and
// its byte offset; later reads return zeros and empty strings.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view in) : in_(in) {}

  uint8_t U8(const char* field) {
    return static_cast<uint8_t>(Fixed(field, 1));
  }
  int64_t I64(const char* field) {
    return static_cast<int64_t>(Fixed(field, 8));
  }
  std::string Str(const char* field) {
    const auto n = static_cast<std::size_t>(Fixed(field, 2));
    if (!ok()) return {};
    if (in_.size() - pos_ < n) {
      Fail(std::string("truncated ") + field + " (length " + std::to_string(n) +
           ")");
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }

  void Fail(std::string what) {
    if (!ok()) return;
    error_ = std::move(what) + " at byte " + std::to_string(pos_);
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::size_t remaining() const { return in_.size() - pos_; }

 private:
  // A little-endian unsigned integer of `width` bytes.
  uint64_t Fixed(const char* field, std::size_t width) {
    if (!ok()) return 0;
    if (in_.size() - pos_ < width) {
      Fail(std::string("truncated ") + field);
      return 0;
    }
    uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i]))
           << (8 * i);
    }
    pos_ += width;
    return v;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  std::string error_;
};

template <typename T>
constexpr ReferenceKind KindOf() {
  if constexpr (std::is_same_v<T, RatingSet>) return ReferenceKind::kRatingSet;
  if constexpr (std::is_same_v<T, RatingRevoke>) {
    return ReferenceKind::kRatingRevoke;
  }
  if constexpr (std::is_same_v<T, AttesterKeyRegister>) {
    return ReferenceKind::kAttesterKeyRegister;
  }
  if constexpr (std::is_same_v<T, AttesterKeyRevoke>) {
    return ReferenceKind::kAttesterKeyRevoke;
  }
  if constexpr (std::is_same_v<T, AttestationSubmit>) {
    return ReferenceKind::kAttestationSubmit;
  }
  if constexpr (std::is_same_v<T, UserAdd>) return ReferenceKind::kUserAdd;
  if constexpr (std::is_same_v<T, UserSetEnabled>) {
    return ReferenceKind::kUserSetEnabled;
  }
  if constexpr (std::is_same_v<T, UserSetPassword>) {
    return ReferenceKind::kUserSetPassword;
  }
  if constexpr (std::is_same_v<T, ApiKeyAdd>) return ReferenceKind::kApiKeyAdd;
  if constexpr (std::is_same_v<T, ApiKeyRevoke>) {
    return ReferenceKind::kApiKeyRevoke;
  }
}

void EncodeFields(const RatingSet& m, PayloadWriter& w) {
  w.Str(m.operator_firm);
  w.U8(static_cast<uint8_t>(m.tier));
  w.I64(m.effective.nanos);
  w.I64(m.expires.nanos);
  w.Str(m.agency);
  w.Str(m.reference);
}

void EncodeFields(const RatingRevoke& m, PayloadWriter& w) {
  w.Str(m.operator_firm);
  w.Str(m.reference);
  w.Str(m.agency);
}

void EncodeFields(const AttesterKeyRegister& m, PayloadWriter& w) {
  w.Str(m.key_id);
  w.Str(m.public_key);
  w.Str(m.attester);
}

void EncodeFields(const AttesterKeyRevoke& m, PayloadWriter& w) {
  w.Str(m.key_id);
}

void EncodeFields(const AttestationSubmit& m, PayloadWriter& w) {
  w.Str(m.submitter);
  w.Str(m.canonical);
  w.Str(m.signature);
}

void EncodeFields(const UserAdd& m, PayloadWriter& w) {
  w.Str(m.user.name);
  w.Str(m.user.firm);
  w.U8(m.user.role);
  w.I64(static_cast<int64_t>(m.user.account));
  w.Str(m.user.fix_sender_comp_id);
  w.Str(m.user.password_hash);
}

void EncodeFields(const UserSetEnabled& m, PayloadWriter& w) {
  w.Str(m.name);
  w.U8(m.enabled ? 1 : 0);
}

void EncodeFields(const UserSetPassword& m, PayloadWriter& w) {
  w.Str(m.name);
  w.Str(m.password_hash);
}

void EncodeFields(const ApiKeyAdd& m, PayloadWriter& w) {
  w.Str(m.user);
  w.Str(m.key.id);
  w.U8(m.key.kind);
  w.Str(m.key.public_key);
}

void EncodeFields(const ApiKeyRevoke& m, PayloadWriter& w) {
  w.Str(m.user);
  w.Str(m.key_id);
}

RatingSet DecodeRatingSet(PayloadReader& r) {
  RatingSet m;
  m.operator_firm = r.Str("operator_firm");
  const uint8_t tier = r.U8("tier");
  if (r.ok() && tier > static_cast<uint8_t>(Tier::kUnderperform)) {
    r.Fail("unknown tier " + std::to_string(tier));
  }
  m.tier = static_cast<Tier>(tier);
  m.effective = Timestamp{r.I64("effective")};
  m.expires = Timestamp{r.I64("expires")};
  m.agency = r.Str("agency");
  m.reference = r.Str("reference");
  return m;
}

RatingRevoke DecodeRatingRevoke(PayloadReader& r) {
  RatingRevoke m;
  m.operator_firm = r.Str("operator_firm");
  m.reference = r.Str("reference");
  m.agency = r.Str("agency");
  return m;
}

AttesterKeyRegister DecodeAttesterKeyRegister(PayloadReader& r) {
  AttesterKeyRegister m;
  m.key_id = r.Str("key_id");
  m.public_key = r.Str("public_key");
  m.attester = r.Str("attester");
  return m;
}

AttesterKeyRevoke DecodeAttesterKeyRevoke(PayloadReader& r) {
  AttesterKeyRevoke m;
  m.key_id = r.Str("key_id");
  return m;
}

AttestationSubmit DecodeAttestationSubmit(PayloadReader& r) {
  AttestationSubmit m;
  m.submitter = r.Str("submitter");
  m.canonical = r.Str("canonical");
  m.signature = r.Str("signature");
  return m;
}

UserAdd DecodeUserAdd(PayloadReader& r) {
  UserAdd m;
  m.user.name = r.Str("name");
  m.user.firm = r.Str("firm");
  m.user.role = r.U8("role");
  m.user.account = static_cast<uint64_t>(r.I64("account"));
  m.user.fix_sender_comp_id = r.Str("fix_sender_comp_id");
  m.user.password_hash = r.Str("password_hash");
  return m;
}

UserSetEnabled DecodeUserSetEnabled(PayloadReader& r) {
  UserSetEnabled m;
  m.name = r.Str("name");
  const uint8_t enabled = r.U8("enabled");
  if (r.ok() && enabled > 1) {
    r.Fail("enabled " + std::to_string(enabled) + " is not 0 or 1");
  }
  m.enabled = enabled == 1;
  return m;
}

UserSetPassword DecodeUserSetPassword(PayloadReader& r) {
  UserSetPassword m;
  m.name = r.Str("name");
  m.password_hash = r.Str("password_hash");
  return m;
}

ApiKeyAdd DecodeApiKeyAdd(PayloadReader& r) {
  ApiKeyAdd m;
  m.user = r.Str("user");
  m.key.id = r.Str("key_id");
  m.key.kind = r.U8("kind");
  m.key.public_key = r.Str("public_key");
  return m;
}

ApiKeyRevoke DecodeApiKeyRevoke(PayloadReader& r) {
  ApiKeyRevoke m;
  m.user = r.Str("user");
  m.key_id = r.Str("key_id");
  return m;
}

}  // namespace

std::string EncodeReferencePayload(const ReferenceMessage& m) {
  std::string out;
  PayloadWriter w(&out);
  w.U8(kReferencePayloadVersion);
  std::visit(
      [&w](const auto& msg) {
        using T = std::decay_t<decltype(msg)>;
        w.U8(static_cast<uint8_t>(KindOf<T>()));
        EncodeFields(msg, w);
      },
      m);
  if (!w.ok() || out.size() > kReferencePayloadMaxBytes) return {};
  return out;
}

Result<ReferenceMessage> DecodeReferencePayload(std::string_view bytes) {
  if (bytes.size() > kReferencePayloadMaxBytes) {
    return InvalidArgumentError(
        "reference payload: " + std::to_string(bytes.size()) +
        " bytes, more than " + std::to_string(kReferencePayloadMaxBytes));
  }
  PayloadReader r(bytes);
  const uint8_t version = r.U8("version");
  if (r.ok() && version != kReferencePayloadVersion) {
    r.Fail("unsupported version " + std::to_string(version));
  }
  const uint8_t kind = r.U8("kind");
  if (!r.ok()) return InvalidArgumentError("reference payload: " + r.error());

  ReferenceMessage m;
  switch (static_cast<ReferenceKind>(kind)) {
    case ReferenceKind::kRatingSet:
      m = DecodeRatingSet(r);
      break;
    case ReferenceKind::kRatingRevoke:
      m = DecodeRatingRevoke(r);
      break;
    case ReferenceKind::kAttesterKeyRegister:
      m = DecodeAttesterKeyRegister(r);
      break;
    case ReferenceKind::kAttesterKeyRevoke:
      m = DecodeAttesterKeyRevoke(r);
      break;
    case ReferenceKind::kAttestationSubmit:
      m = DecodeAttestationSubmit(r);
      break;
    case ReferenceKind::kUserAdd:
      m = DecodeUserAdd(r);
      break;
    case ReferenceKind::kUserSetEnabled:
      m = DecodeUserSetEnabled(r);
      break;
    case ReferenceKind::kUserSetPassword:
      m = DecodeUserSetPassword(r);
      break;
    case ReferenceKind::kApiKeyAdd:
      m = DecodeApiKeyAdd(r);
      break;
    case ReferenceKind::kApiKeyRevoke:
      m = DecodeApiKeyRevoke(r);
      break;
    case ReferenceKind::kNone:
    default:
      r.Fail("unknown kind " + std::to_string(kind));
      break;
  }
  if (r.ok() && r.remaining() != 0) {
    r.Fail(std::to_string(r.remaining()) + " trailing bytes");
  }
  if (!r.ok()) return InvalidArgumentError("reference payload: " + r.error());
  return m;
}

}  // namespace cfx::exchange
