#include "gateway/session/attestation_signature.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "gateway/crypto/ed25519.h"
#include "tests/gateway/crypto/ed25519_test_vector.h"

namespace cfx::gateway::attest {
namespace {

using crypto::Ed25519KeyPair;
using crypto::GenerateKeyPair;
using crypto::Sign;
using crypto::Verify;
using crypto::test_vector::kRfcPrivate;
using crypto::test_vector::kRfcPublic;

TEST(Ed25519, EveryFlippedSignatureBitFailsVerification) {
  const std::string message = "CFX-ATTESTATION-V1\n";
  const std::string sig = Sign(kRfcPrivate, message).value();
  for (std::size_t bit = 0; bit < sig.size() * 8; ++bit) {
    std::string bad = sig;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    EXPECT_FALSE(Verify(kRfcPublic, message, bad)) << "bit " << bit;
  }
}

TEST(Ed25519, FlippedMessageBitFailsVerification) {
  const std::string message = "CFX-ATTESTATION-V1\n";
  const std::string sig = Sign(kRfcPrivate, message).value();
  std::string bad = message;
  bad[3] = static_cast<char>(bad[3] ^ 1);
  EXPECT_FALSE(Verify(kRfcPublic, bad, sig));
  EXPECT_FALSE(Verify(kRfcPublic, message + "x", sig));
}

TEST(Ed25519, SignatureOfAnotherKeyFailsVerification) {
  Result<Ed25519KeyPair> other = GenerateKeyPair();
  ASSERT_TRUE(other.has_value());
  const std::string sig = Sign(other.value().private_key, "m").value();
  EXPECT_FALSE(Verify(kRfcPublic, "m", sig));
  EXPECT_TRUE(Verify(other.value().public_key, "m", sig));
}

// Expected id computed with the openssl CLI:
//   echo d75a9801...07511a | xxd -r -p | openssl dgst -sha256
//   -> 21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9
TEST(Ed25519, KeyIdIsPrefixOfSha256OfRawPublicKey) {
  EXPECT_EQ(AttesterKeyId(kRfcPublic), "ed25519:21fe31dfa154a261");
  EXPECT_TRUE(IsAttesterKeyId(AttesterKeyId(kRfcPublic)));
}

TEST(Ed25519, KeyIdFormIsChecked) {
  EXPECT_TRUE(IsAttesterKeyId("ed25519:0123456789abcdef"));
  EXPECT_FALSE(IsAttesterKeyId("ed25519:0123456789ABCDEF"));
  EXPECT_FALSE(IsAttesterKeyId("ed25519:0123456789abcde"));
  EXPECT_FALSE(IsAttesterKeyId("ed25519:0123456789abcdef0"));
  EXPECT_FALSE(IsAttesterKeyId("ed448:0123456789abcdef"));
  EXPECT_FALSE(IsAttesterKeyId("ed25519:0123456789abcdeg"));
  EXPECT_FALSE(IsAttesterKeyId(""));
}

}  // namespace
}  // namespace cfx::gateway::attest
