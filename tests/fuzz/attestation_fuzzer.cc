// libFuzzer target for submitted attestations (docs/attestations.md): the
// same bytes are read as a measurement JSON, as a signed attestation file
// (whose signature is then checked against one fixed key, the RFC 8032 test
// key, so that the seed's valid signature reaches the verifier) and as a
// canonical encoding. Checked, besides ASan/UBSan: every error is
// kInvalidArgument with a message, an accepted measurement validates and its
// canonical encoding reads back to the same fields, and a signed file's
// canonical text is the encoding of its measurement.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/reference/attestation.h"
#include "gateway/session/attestation_check.h"
#include "tests/gateway/crypto/ed25519_test_vector.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace attest = cfx::gateway::attest;
namespace ex = cfx::exchange;

using cfx::fuzz::Check;

template <typename R>
void CheckRejected(const R& r) {
  if (r.has_value()) return;
  Check(r.error().code() == cfx::StatusCode::kInvalidArgument);
  Check(!r.error().message().empty());
}

void CheckCanonicalRoundTrip(const ex::Attestation& a) {
  Check(ex::ValidateAttestation(a).ok());
  const std::string canonical = ex::EncodeCanonicalAttestation(a);
  auto again = ex::ParseCanonicalAttestation(canonical);
  Check(again.has_value());
  Check(ex::EncodeCanonicalAttestation(again.value()) == canonical);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  for (auto key_id : {attest::KeyIdField::kRequired,
                      attest::KeyIdField::kOptional}) {
    auto m = attest::ParseMeasurementJson(bytes, key_id);
    CheckRejected(m);
    if (m.has_value() && key_id == attest::KeyIdField::kRequired) {
      CheckCanonicalRoundTrip(m.value());
    }
  }

  auto s = attest::ParseSignedAttestation(bytes);
  CheckRejected(s);
  if (s.has_value()) {
    Check(s.value().canonical ==
          ex::EncodeCanonicalAttestation(s.value().attestation));
    Check(s.value().signature.size() == ex::kEd25519SignatureBytes);
    const cfx::Status v = attest::VerifySignedAttestation(
        s.value(), cfx::gateway::crypto::test_vector::kRfcPublic);
    Check(v.ok() || (v.code() == cfx::StatusCode::kInvalidArgument &&
                     !v.message().empty()));
  }

  auto c = ex::ParseCanonicalAttestation(bytes);
  CheckRejected(c);
  if (c.has_value()) {
    Check(ex::EncodeCanonicalAttestation(c.value()) == bytes);
  }
  return 0;
}
