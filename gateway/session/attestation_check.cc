#include "gateway/session/attestation_check.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cfx/attest/v1/attestation.pb.h"
#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"

namespace cfx::gateway::attest {

namespace {

namespace pb = ::google::protobuf;
namespace av1 = ::cfx::attest::v1;
using exchange::Attestation;

// Measurement and signed-file fields, in canonical order.
enum class JsonType { kString, kCount, kStringArray, kNumber };
struct FieldSpec {
  std::string_view name;
  JsonType type;
};
constexpr FieldSpec kMeasurementFields[] = {
    {"attestation_id", JsonType::kString},
    {"provider", JsonType::kString},
    {"node_id", JsonType::kString},
    {"gpu_model", JsonType::kString},
    {"gpu_count", JsonType::kCount},
    {"gpu_uuids", JsonType::kStringArray},
    {"driver_version", JsonType::kString},
    {"recipe", JsonType::kString},
    {"output_tokens_per_s_per_gpu", JsonType::kNumber},
    {"measured_at", JsonType::kString},
    {"nonce", JsonType::kString},
    {"attester_key_id", JsonType::kString},
};
constexpr std::string_view kKeyIdField = "attester_key_id";
constexpr std::string_view kTokensField = "output_tokens_per_s_per_gpu";

// A valid id used to validate a measurement whose key id is still to be
// filled in.
constexpr std::string_view kUnfilledKeyId = "ed25519:0000000000000000";

constexpr double kMaxTokensPerSPerGpu = 1'000'000.0;
// How far x * 1000 may be from an integer and still count as 3 decimals:
// absorbs binary rounding of decimal input, nothing a 4th digit could be.
constexpr double kMilliTolerance = 1e-6;

Status FieldError(std::string_view field, std::string_view problem) {
  std::string m(field);
  m += ": ";
  m += problem;
  return InvalidArgumentError(std::move(m));
}

// `s` as one printable line of at most 40 bytes, for quoting input in a
// message.
std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u >= 0x20 && u < 0x7F ? c : '?');
  }
  if (s.size() > 40) out += "...";
  return out;
}

// The first line of a protobuf parser error, without its code prefix.
std::string ProtobufReason(const pb::util::Status& s) {
  std::string m = s.ToString();
  const std::string_view prefix = "INVALID_ARGUMENT:";
  if (m.rfind(prefix, 0) == 0) m.erase(0, prefix.size());
  const std::size_t nl = m.find('\n');
  if (nl != std::string::npos) m.resize(nl);
  return m;
}

pb::util::JsonParseOptions StrictOptions() {
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  return options;
}

// Parses `json` as a generic JSON object, to check names and JSON types
// before the typed parse (whose messages name neither well).
Result<pb::Struct> ParseObject(std::string_view json, std::string_view what) {
  pb::Struct object;
  pb::util::Status s = pb::util::JsonStringToMessage(
      pb::StringPiece(json.data(), json.size()), &object, StrictOptions());
  if (!s.ok()) {
    std::string reason = ProtobufReason(s);
    // Struct's map says "... Repeated map key: 'nonce' is already set."
    const std::string_view dup = "Repeated map key: '";
    const std::size_t at = reason.find(dup);
    if (at != std::string::npos) {
      const std::size_t start = at + dup.size();
      const std::size_t end = reason.find('\'', start);
      return FieldError(what, "duplicate field \"" +
                                  Printable(reason.substr(start, end - start)) +
                                  "\"");
    }
    return FieldError(what, "not a JSON object: " + reason);
  }
  return object;
}

// The first (in byte order) key of `object` not in `known`, if any.
Status CheckNoUnknownKeys(const pb::Struct& object,
                          const std::vector<std::string_view>& known,
                          std::string_view what) {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : object.fields()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      unknown.push_back(key);
    }
  }
  if (unknown.empty()) return Status::Ok();
  std::sort(unknown.begin(), unknown.end());
  return FieldError(what,
                    "unknown field \"" + Printable(unknown.front()) + "\"");
}

// The value of `key`, or null if it is absent or JSON null.
const pb::Value* Get(const pb::Struct& object, std::string_view key) {
  auto it = object.fields().find(std::string(key));
  if (it == object.fields().end() ||
      it->second.kind_case() == pb::Value::kNullValue) {
    return nullptr;
  }
  return &it->second;
}

// Names, presence and JSON types of a measurement object.
Status CheckMeasurementShape(const pb::Struct& object, KeyIdField key_id) {
  std::vector<std::string_view> names;
  for (const FieldSpec& f : kMeasurementFields) names.push_back(f.name);
  CFX_RETURN_IF_ERROR(CheckNoUnknownKeys(object, names, "measurement"));
  for (const FieldSpec& f : kMeasurementFields) {
    const pb::Value* v = Get(object, f.name);
    if (v == nullptr) {
      if (f.name == kKeyIdField && key_id == KeyIdField::kOptional) continue;
      return FieldError(f.name, "missing");
    }
    switch (f.type) {
      case JsonType::kString:
        if (v->kind_case() != pb::Value::kStringValue) {
          return FieldError(f.name, "not a JSON string");
        }
        break;
      case JsonType::kCount: {
        const double n = v->number_value();
        if (v->kind_case() != pb::Value::kNumberValue || !(n >= 1) ||
            n > exchange::kAttestationMaxGpus || n != std::floor(n)) {
          return FieldError(f.name, "not an integer in 1..64");
        }
        break;
      }
      case JsonType::kStringArray: {
        if (v->kind_case() != pb::Value::kListValue) {
          return FieldError(f.name, "not an array of strings");
        }
        for (const pb::Value& item : v->list_value().values()) {
          if (item.kind_case() != pb::Value::kStringValue) {
            return FieldError(f.name, "not an array of strings");
          }
        }
        break;
      }
      case JsonType::kNumber:
        if (v->kind_case() != pb::Value::kNumberValue) {
          return FieldError(f.name, "not a JSON number");
        }
        break;
    }
  }
  return Status::Ok();
}

Result<uint64_t> MilliTokens(double x) {
  if (!(x > 0)) return FieldError(kTokensField, "not positive");
  if (x > kMaxTokensPerSPerGpu) {
    return FieldError(kTokensField, "more than 1000000");
  }
  const double scaled = x * 1000;
  const long long milli = std::llround(scaled);
  if (std::fabs(scaled - static_cast<double>(milli)) > kMilliTolerance) {
    return FieldError(kTokensField, "more than 3 decimals");
  }
  if (milli <= 0) return FieldError(kTokensField, "not positive");
  return static_cast<uint64_t>(milli);
}

// The Attestation of a shape-checked measurement message.
Result<Attestation> ToAttestation(const av1::Measurement& m,
                                  KeyIdField key_id) {
  Attestation a;
  a.attestation_id = m.attestation_id();
  a.provider = m.provider();
  a.node_id = m.node_id();
  a.gpu_model = m.gpu_model();
  a.gpu_count = m.gpu_count();
  a.gpu_uuids.assign(m.gpu_uuids().begin(), m.gpu_uuids().end());
  a.driver_version = m.driver_version();
  a.recipe = m.recipe();
  Result<uint64_t> milli = MilliTokens(m.output_tokens_per_s_per_gpu());
  if (!milli.has_value()) return milli.error();
  a.output_milli_tokens_per_s_per_gpu = milli.value();
  Result<exchange::Timestamp> t =
      exchange::ParseAttestationTime(m.measured_at());
  if (!t.has_value()) return t.error();
  a.measured_at = t.value();
  a.nonce = m.nonce();
  a.attester_key_id = m.attester_key_id();

  const bool fill_later =
      key_id == KeyIdField::kOptional && !m.has_attester_key_id();
  Attestation check = a;
  if (fill_later) check.attester_key_id = kUnfilledKeyId;
  CFX_RETURN_IF_ERROR(exchange::ValidateAttestation(check));
  if (!IsAttesterKeyId(check.attester_key_id)) {
    return FieldError(kKeyIdField, "not \"ed25519:\" and 16 hex digits");
  }
  return a;
}

// The name of the canonical line where `got` first differs from `want`.
std::string FirstDifferentLine(std::string_view got, std::string_view want) {
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i >= want.size()) return "bytes after the last line";
  // rfind() yields npos on the first line, and npos + 1 == 0.
  const std::size_t start = i == 0 ? 0 : want.rfind('\n', i - 1) + 1;
  std::string_view line = want.substr(start);
  return std::string(line.substr(0, line.find_first_of("=\n")));
}

}  // namespace

Result<Attestation> ParseMeasurementJson(std::string_view json,
                                         KeyIdField key_id) {
  Result<pb::Struct> object = ParseObject(json, "measurement");
  if (!object.has_value()) return object.error();
  CFX_RETURN_IF_ERROR(CheckMeasurementShape(object.value(), key_id));
  av1::Measurement m;
  pb::util::Status s = pb::util::JsonStringToMessage(
      pb::StringPiece(json.data(), json.size()), &m, StrictOptions());
  if (!s.ok()) return FieldError("measurement", ProtobufReason(s));
  return ToAttestation(m, key_id);
}

Result<SignedAttestation> ParseSignedAttestation(std::string_view json) {
  Result<pb::Struct> object = ParseObject(json, "signed attestation");
  if (!object.has_value()) return object.error();
  CFX_RETURN_IF_ERROR(CheckNoUnknownKeys(
      object.value(), {"measurement", "canonical", "signature"},
      "signed attestation"));
  const pb::Value* measurement = Get(object.value(), "measurement");
  if (measurement == nullptr) return FieldError("measurement", "missing");
  if (measurement->kind_case() != pb::Value::kStructValue) {
    return FieldError("measurement", "not a JSON object");
  }
  for (std::string_view name : {"canonical", "signature"}) {
    const pb::Value* v = Get(object.value(), name);
    if (v == nullptr) return FieldError(name, "missing");
    if (v->kind_case() != pb::Value::kStringValue) {
      return FieldError(name, "not a JSON string");
    }
  }
  CFX_RETURN_IF_ERROR(CheckMeasurementShape(measurement->struct_value(),
                                            KeyIdField::kRequired));

  av1::SignedAttestation file;
  pb::util::Status s = pb::util::JsonStringToMessage(
      pb::StringPiece(json.data(), json.size()), &file, StrictOptions());
  if (!s.ok()) return FieldError("signed attestation", ProtobufReason(s));

  SignedAttestation out;
  Result<Attestation> a =
      ToAttestation(file.measurement(), KeyIdField::kRequired);
  if (!a.has_value()) return a.error();
  out.attestation = std::move(a).value();

  out.canonical = file.canonical();
  const std::string expected = EncodeCanonicalAttestation(out.attestation);
  if (out.canonical != expected) {
    return FieldError("canonical",
                      "does not match the measurement (first difference: " +
                          FirstDifferentLine(out.canonical, expected) + ")");
  }

  Result<std::string> sig = crypto::Base64DecodeStrict(file.signature());
  if (!sig.has_value() ||
      sig.value().size() != exchange::kEd25519SignatureBytes) {
    return FieldError("signature", "not 64 bytes of base64");
  }
  out.signature = std::move(sig).value();
  return out;
}

Status VerifySignedAttestation(const SignedAttestation& s,
                               std::string_view public_key) {
  if (public_key.size() != exchange::kEd25519PublicKeyBytes) {
    return InvalidArgumentError("public key: not 32 bytes");
  }
  const std::string key_id = AttesterKeyId(public_key);
  if (s.attestation.attester_key_id != key_id) {
    return FieldError(kKeyIdField, s.attestation.attester_key_id +
                                       " is not the given key (" + key_id +
                                       ")");
  }
  if (s.canonical != EncodeCanonicalAttestation(s.attestation)) {
    return FieldError("canonical", "does not match the measurement");
  }
  if (!crypto::Verify(public_key, s.canonical, s.signature)) {
    return FieldError("signature", "does not verify with key " + key_id);
  }
  return Status::Ok();
}

}  // namespace cfx::gateway::attest
