#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

// A GPU performance attestation (DESIGN.md §3): an attester measured a
// provider's node on a recipe and signed the result with Ed25519. The
// signature covers the canonical encoding below, byte for byte; the
// measurement format and this encoding are published in
// docs/attestations.md so an attester can produce one without our code.
struct Attestation {
  std::string attestation_id;          // unique per attestation
  std::string provider;                // the provider firm, e.g. "PROV-A"
  std::string node_id;                 // the provider's name for the node
  std::string gpu_model;               // e.g. "NVIDIA B200"
  uint32_t gpu_count = 0;              // GPUs in the node, e.g. 8
  std::vector<std::string> gpu_uuids;  // gpu_count distinct ids
  std::string driver_version;          // e.g. "570.124.06"
  std::string recipe;                  // e.g. "ref-8k1k-i100"
  // Output tokens/s per GPU in thousandths: 287.5 tokens/s = 287'500.
  uint64_t output_milli_tokens_per_s_per_gpu = 0;
  Timestamp measured_at;  // whole seconds, UTC
  std::string nonce;      // never used twice
  // The signing key's id: "ed25519:" + the first 16 lower-case hex digits
  // of SHA-256 of its 32 raw bytes (computed in gateway/tools/attest/).
  std::string attester_key_id;
};

// Limits of the canonical encoding.
inline constexpr std::size_t kAttestationMaxFieldBytes = 128;
inline constexpr uint32_t kAttestationMaxGpus = 64;
inline constexpr std::size_t kEd25519PublicKeyBytes = 32;
inline constexpr std::size_t kEd25519SignatureBytes = 64;
// output_tokens_per_s_per_gpu lies in 0.001 ..= 1,000,000.000 tokens/s.
inline constexpr uint64_t kAttestationMaxMilliTokensPerSPerGpu = 1'000'000'000;

// The canonical encoding: UTF-8 text, one field per line in this order, each
// line "name=value\n", preceded by a header line:
//
//   CFX-ATTESTATION-V1
//   attestation_id=<text>
//   provider=<text>
//   node_id=<text>
//   gpu_model=<text>
//   gpu_count=<decimal, no leading zeros, 1..64>
//   gpu_uuids=<uuid>,<uuid>,...      (gpu_count entries, in the given order)
//   driver_version=<text>
//   recipe=<text>
//   output_tokens_per_s_per_gpu=<decimal with exactly 3 fraction digits>
//   measured_at=<YYYY-MM-DDTHH:MM:SSZ>
//   nonce=<text>
//   attester_key_id=<text>
//
// <text> is 1..128 bytes of printable ASCII (0x20..0x7E) without leading or
// trailing spaces; a uuid is the same without ',' or ' '. Every line ends
// with "\n", the last one included; nothing follows it.
std::string EncodeCanonicalAttestation(const Attestation& a);

// Parses exactly the bytes EncodeCanonicalAttestation() produces: any other
// byte sequence (field order, missing or extra fields, "\r", a bad number or
// date, duplicate gpu uuids, gpu_uuids count != gpu_count, ...) is
// kInvalidArgument with a message naming the field. So
// Encode(Parse(bytes)) == bytes for every accepted input.
Result<Attestation> ParseCanonicalAttestation(std::string_view bytes);

// Checks the fields as the canonical encoding would (lengths, characters,
// counts, uuids distinct); kInvalidArgument naming the field.
Status ValidateAttestation(const Attestation& a);

// measured_at as text: "YYYY-MM-DDTHH:MM:SSZ" (UTC, proleptic Gregorian).
// REQUIRES: t is whole seconds, not before 1970 (otherwise the output is
// unspecified). Timestamp's int64 nanoseconds end at 2262-04-11T23:47:16Z.
std::string FormatAttestationTime(Timestamp t);

// Parses exactly the text FormatAttestationTime() produces for a valid time;
// anything else (other lengths, "24:00:00", Feb 30, a year outside
// 1970..9999, a zone other than "Z", fractions) is kInvalidArgument, and so
// is a valid date after 2262-04-11T23:47:16Z, which Timestamp cannot hold.
Result<Timestamp> ParseAttestationTime(std::string_view text);

// output_tokens_per_s_per_gpu as text: the integer part, ".", then exactly
// 3 fraction digits (287'500 -> "287.500").
std::string FormatMilliTokens(uint64_t milli);

// Parses exactly the text FormatMilliTokens() produces (no sign, no leading
// zeros, exactly 3 fraction digits), within
// 1..kAttestationMaxMilliTokensPerSPerGpu; otherwise kInvalidArgument.
Result<uint64_t> ParseMilliTokens(std::string_view text);

}  // namespace cfx::exchange
