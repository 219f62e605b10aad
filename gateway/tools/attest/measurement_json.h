#pragma once

#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "exchange/core/status.h"
#include "gateway/session/attestation_check.h"

namespace cfx::gateway::attest {

// Writing and signing the JSON files of attestations (docs/attestations.md),
// in the formats that gateway/session/attestation_check.h (included here
// for the tools, which read them too) reads and checks.

// The measurement JSON of `a`, fields in canonical order, 2-space indent,
// output_tokens_per_s_per_gpu as a number with exactly 3 decimals,
// measured_at as text. REQUIRES: ValidateAttestation(a).ok().
std::string MeasurementJson(const exchange::Attestation& a);

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

}  // namespace cfx::gateway::attest
