#include "gateway/tools/attest/measurement_json.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "gateway/crypto/base64.h"
#include "gateway/crypto/ed25519.h"
#include "gateway/session/attestation_signature.h"

namespace cfx::gateway::attest {

namespace {

using exchange::Attestation;

constexpr std::string_view kKeyIdField = "attester_key_id";
constexpr std::string_view kTokensField = "output_tokens_per_s_per_gpu";

// A JSON string literal of `s`.
std::string Quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20 || u == 0x7F) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0x0F]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

// The measurement object, its lines indented by `indent`, without a final
// newline.
std::string MeasurementObject(const Attestation& a, std::string_view indent) {
  const std::string in = std::string(indent) + "  ";
  std::string out = "{\n";
  auto member = [&](std::string_view name, const std::string& value,
                    bool last = false) {
    out += in + Quote(name) + ": " + value + (last ? "\n" : ",\n");
  };
  member("attestation_id", Quote(a.attestation_id));
  member("provider", Quote(a.provider));
  member("node_id", Quote(a.node_id));
  member("gpu_model", Quote(a.gpu_model));
  member("gpu_count", std::to_string(a.gpu_count));
  std::string uuids = "[";
  for (std::size_t i = 0; i < a.gpu_uuids.size(); ++i) {
    uuids += "\n" + in + "  " + Quote(a.gpu_uuids[i]);
    if (i + 1 < a.gpu_uuids.size()) uuids += ",";
  }
  uuids += a.gpu_uuids.empty() ? "]" : "\n" + in + "]";
  member("gpu_uuids", uuids);
  member("driver_version", Quote(a.driver_version));
  member("recipe", Quote(a.recipe));
  member(kTokensField,
         exchange::FormatMilliTokens(a.output_milli_tokens_per_s_per_gpu));
  member("measured_at", Quote(exchange::FormatAttestationTime(a.measured_at)));
  member("nonce", Quote(a.nonce));
  member(kKeyIdField, Quote(a.attester_key_id), /*last=*/true);
  out += std::string(indent) + "}";
  return out;
}

}  // namespace

std::string MeasurementJson(const Attestation& a) {
  return MeasurementObject(a, "") + "\n";
}

Result<std::string> SignAttestationJson(const Attestation& a,
                                        std::string_view private_key) {
  CFX_RETURN_IF_ERROR(exchange::ValidateAttestation(a));
  Result<std::string> public_key = crypto::PublicKeyOf(private_key);
  if (!public_key.has_value()) return public_key.error();
  const std::string key_id = AttesterKeyId(public_key.value());
  if (a.attester_key_id != key_id) {
    return InvalidArgumentError(std::string(kKeyIdField) +
                                ": the measurement names " + a.attester_key_id +
                                " but the key is " + key_id);
  }
  Result<std::string> sig = crypto::Sign(private_key, EncodeCanonicalAttestation(a));
  if (!sig.has_value()) return sig.error();
  return SignedAttestationJson(a, sig.value());
}

std::string SignedAttestationJson(const Attestation& a,
                                  std::string_view signature) {
  std::string out = "{\n  \"measurement\": ";
  out += MeasurementObject(a, "  ");
  out += ",\n  \"canonical\": ";
  out += Quote(EncodeCanonicalAttestation(a));
  out += ",\n  \"signature\": ";
  out += Quote(crypto::Base64Encode(signature));
  out += "\n}\n";
  return out;
}

}  // namespace cfx::gateway::attest
