#pragma once

#include <gtest/gtest.h>

#include <string>

#include "exchange/core/reference/attestation.h"
#include "gateway/session/attestation_check.h"
#include "gateway/session/attestation_signature.h"
#include "gateway/crypto/ed25519.h"

namespace cfx::gateway::attest::test_samples {

// The measurement the attestation tests read, write and sign, and its key
// (tests/gateway/session/attestation_check_test.cc,
// tests/gateway/tools/attest/measurement_json_test.cc).

// One fixed key pair for the whole run: generated once, so the signed
// files of the tests are reproducible within a run.
inline const crypto::Ed25519KeyPair& TestKey() {
  static const crypto::Ed25519KeyPair key = crypto::GenerateKeyPair().value();
  return key;
}

// A measurement with every field; `key_id` replaces attester_key_id's value.
inline std::string MeasurementText(const std::string& key_id) {
  return R"({
  "attestation_id": "att-0001",
  "provider": "PROV-A",
  "node_id": "node-17",
  "gpu_model": "NVIDIA B200",
  "gpu_count": 2,
  "gpu_uuids": ["GPU-aaaa", "GPU-bbbb"],
  "driver_version": "570.124.06",
  "recipe": "ref-8k1k-i100",
  "output_tokens_per_s_per_gpu": 287.5,
  "measured_at": "2026-03-01T12:34:56Z",
  "nonce": "n-5f2c",
  "attester_key_id": ")" +
         key_id + R"("
})";
}

inline std::string Measurement() {
  return MeasurementText(AttesterKeyId(TestKey().public_key));
}

inline exchange::Attestation Sample() {
  Result<exchange::Attestation> a = ParseMeasurementJson(Measurement());
  EXPECT_TRUE(a.has_value()) << a.error().ToString();
  return a.value();
}

}  // namespace cfx::gateway::attest::test_samples
