#pragma once

#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/status.h"

namespace cfx::gateway::attest {

// Reading and checking the JSON files of attestations (docs/attestations.md),
// as the protobuf gateway does for a submitted attestation: parsed with
// protobuf's JSON parser into cfx.attest.v1 messages
// (proto/cfx/attest/v1/attestation.proto) and checked field by field.
// Writing and signing them are the attest tools'
// (gateway/tools/attest/measurement_json.h).
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

}  // namespace cfx::gateway::attest
