#pragma once

#include <cstdint>
#include <string>

#include "exchange/core/reference/attestation.h"

namespace cfx::exchange::testing {

// A well-formed attestation for tests: `firm`'s node `node`, 8 NVIDIA B200
// GPUs on recipe ref-8k1k-i100 (what both DESIGN.md grades require), at
// `tokens` whole output tokens/s per GPU, measured at `measured_at` (rounded
// down to whole seconds, as the canonical encoding holds it), signed with
// key `key_id`. The attestation id, GPU uuids and nonce derive from `serial`,
// so distinct serials give distinct attestations.
inline Attestation TestAttestation(const std::string& firm,
                                   const std::string& node, uint64_t tokens,
                                   Timestamp measured_at,
                                   const std::string& key_id, int serial) {
  constexpr int64_t kSecond = 1'000'000'000;
  Attestation a;
  a.attestation_id = firm + "-" + node + "-" + std::to_string(serial);
  a.provider = firm;
  a.node_id = node;
  a.gpu_model = "NVIDIA B200";
  a.gpu_count = 8;
  for (int g = 0; g < 8; ++g) {
    a.gpu_uuids.push_back("GPU-" + a.attestation_id + "-" + std::to_string(g));
  }
  a.driver_version = "570.124.06";
  a.recipe = "ref-8k1k-i100";
  a.output_milli_tokens_per_s_per_gpu = tokens * 1'000;
  a.measured_at = Timestamp{measured_at.nanos / kSecond * kSecond};
  a.nonce = "nonce-" + a.attestation_id;
  a.attester_key_id = key_id;
  return a;
}

}  // namespace cfx::exchange::testing
