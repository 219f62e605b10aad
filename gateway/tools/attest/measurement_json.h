#pragma once

#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/status.h"

namespace cfx::gateway::attest {

// The JSON files of attestations (docs/attestations.md), parsed with
// protobuf's JSON parser into cfx.attest.v1 messages
// (proto/cfx/attest/v1/attestation.proto) and checked field by field.
//
// A measurement is a JSON object with exactly the Attestation fields:
//   attestation_id, provider, node_id, gpu_model, driver_version, recipe,
//   nonce, attester_key_id: strings, as the canonical <text>
//   gpu_count: integer 1..64
//   gpu_uuids: array of gpu_count distinct strings
//   output_tokens_per_s_per_gpu: number > 0, <= 1000000, at most 3 decimals
//   measured_at: string "YYYY-MM-DDTHH:MM:SSZ" (UTC)
//
// A signed attestation is {"measurement": {...}, "canonical": "<the
// canonical encoding of the measurement>", "signature": "<standard base64
// of the 64-byte Ed25519 signature of the canonical bytes>"}.
//
// Errors are kInvalidArgument with one line naming the field:
// "measured_at: no such day in that month", "signature: not 64 bytes of
// base64", "measurement: unknown field \"foo\"".

// Whether a measurement may leave out attester_key_id (for `cfx attest
// sign`, which fills it in from the key).
enum class KeyIdField { kRequired, kOptional };

// Parses a measurement. With KeyIdField::kOptional a missing
// attester_key_id leaves it empty; otherwise it is an error.
Result<exchange::Attestation> ParseMeasurementJson(
    std::string_view json, KeyIdField key_id = KeyIdField::kRequired);

// The measurement JSON of `a`, fields in canonical order, 2-space indent,
// output_tokens_per_s_per_gpu as a number with exactly 3 decimals,
// measured_at as text. REQUIRES: ValidateAttestation(a).ok().
std::string MeasurementJson(const exchange::Attestation& a);

struct SignedAttestation {
  exchange::Attestation attestation;
  std::string canonical;  // == EncodeCanonicalAttestation(attestation)
  std::string signature;  // 64 raw bytes
};

// Parses a signed attestation file and checks that "canonical" is exactly
// the canonical encoding of "measurement" ("canonical: does not match the
// measurement" otherwise). Does not check the signature: see
// VerifySignedAttestation().
Result<SignedAttestation> ParseSignedAttestation(std::string_view json);

// Checks that `s` names the key `public_key` (attester_key_id ==
// AttesterKeyId(public_key)) and that its signature over the canonical
// bytes verifies with that key. kInvalidArgument with the reason otherwise.
Status VerifySignedAttestation(const SignedAttestation& s,
                               std::string_view public_key);

// The signed attestation file of `a`, signed with the 32-byte
// `private_key`: a JSON object with "measurement", "canonical" and
// "signature", 2-space indent, ending in a newline. kInvalidArgument if
// ValidateAttestation(a) fails or a.attester_key_id is not the key's id.
Result<std::string> SignAttestationJson(const exchange::Attestation& a,
                                        std::string_view private_key);

// The signed attestation file for an existing 64-byte signature (as from
// `openssl pkeyutl -sign`); no check that it verifies.
// REQUIRES: ValidateAttestation(a).ok(), signature.size() == 64.
std::string SignedAttestationJson(const exchange::Attestation& a,
                                  std::string_view signature);

// Standard base64 with padding (RFC 4648 §4), and its strict inverse:
// rejects whitespace, other alphabets, missing padding and non-zero unused
// bits, so every byte string has exactly one accepted encoding.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64DecodeStrict(std::string_view text);

}  // namespace cfx::gateway::attest
