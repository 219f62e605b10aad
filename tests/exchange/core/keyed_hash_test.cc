#include "exchange/core/keyed_hash.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace cfx::exchange {
namespace {

// The reference vectors of SipHash-2-4 (Aumasson and Bernstein; the
// reference implementation's vectors_sip64, read little-endian): key
// 00 01 .. 0f, message 00 01 .. (n - 1) for n = 0..63. Vector 15 is the
// paper's worked example, a129ca6149be45e5.
constexpr uint64_t kSipHash24Vectors[64] = {
    0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull,
    0x85676696d7fb7e2dull, 0xcf2794e0277187b7ull, 0x18765564cd99a68dull,
    0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull, 0x93f5f5799a932462ull,
    0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
    0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull,
    0xa129ca6149be45e5ull, 0x3f2acc7f57c29bdbull, 0x699ae9f52cbe4794ull,
    0x4bc1b3f0968dd39cull, 0xbb6dc91da77961bdull, 0xbed65cf21aa2ee98ull,
    0xd0f2cbb02e3b67c7ull, 0x93536795e3a33e88ull, 0xa80c038ccd5ccec8ull,
    0xb8ad50c6f649af94ull, 0xbce192de8a85b8eaull, 0x17d835b85bbb15f3ull,
    0x2f2e6163076bcfadull, 0xde4daaaca71dc9a5ull, 0xa6a2506687956571ull,
    0xad87a3535c49ef28ull, 0x32d892fad841c342ull, 0x7127512f72f27cceull,
    0xa7f32346f95978e3ull, 0x12e0b01abb051238ull, 0x15e034d40fa197aeull,
    0x314dffbe0815a3b4ull, 0x027990f029623981ull, 0xcadcd4e59ef40c4dull,
    0x9abfd8766a33735cull, 0x0e3ea96b5304a7d0ull, 0xad0c42d6fc585992ull,
    0x187306c89bc215a9ull, 0xd4a60abcf3792b95ull, 0xf935451de4f21df2ull,
    0xa9538f0419755787ull, 0xdb9acddff56ca510ull, 0xd06c98cd5c0975ebull,
    0xe612a3cb9ecba951ull, 0xc766e62cfcadaf96ull, 0xee64435a9752fe72ull,
    0xa192d576b245165aull, 0x0a8787bf8ecb74b2ull, 0x81b3e73d20b49b6full,
    0x7fa8220ba3b2eceaull, 0x245731c13ca42499ull, 0xb78dbfaf3a8d83bdull,
    0xea1ad565322a1a0bull, 0x60e61c23a3795013ull, 0x6606d7e446282b93ull,
    0x6ca4ecb15c5f91e1ull, 0x9f626da15c9625f3ull, 0xe51b38608ef25f57ull,
    0x958a324ceb064572ull,
};

uint64_t Sip24(const SipKey& key, const std::string& m) {
  return SipHash<2, 4>(key, m);
}

SipKey ReferenceKey() {
  return SipKey{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
}

std::string ReferenceMessage(std::size_t n) {
  std::string m;
  for (std::size_t i = 0; i < n; ++i) m.push_back(static_cast<char>(i));
  return m;
}

TEST(KeyedHashTest, SipHash24MatchesTheReferenceVectors) {
  for (std::size_t n = 0; n < 64; ++n) {
    EXPECT_EQ(Sip24(ReferenceKey(), ReferenceMessage(n)), kSipHash24Vectors[n])
        << "message length " << n;
  }
}

TEST(KeyedHashTest, PaperExampleIsVector15) {
  EXPECT_EQ(Sip24(ReferenceKey(), ReferenceMessage(15)), 0xa129ca6149be45e5ull);
}

TEST(KeyedHashTest, TwoWordFormEqualsSipHash13OfTheSixteenBytes) {
  const SipKey key{0x0123456789abcdefull, 0xfedcba9876543210ull};
  const uint64_t pairs[][2] = {{0, 0}, {1, 7}, {~0ull, 3}, {42, ~0ull}};
  for (const auto& p : pairs) {
    std::string bytes;
    for (uint64_t w : p) {
      for (int i = 0; i < 8; ++i)
        bytes.push_back(static_cast<char>(w >> (8 * i)));
    }
    EXPECT_EQ(SipHash13(key, p[0], p[1]), (SipHash<1, 3>(key, bytes)))
        << p[0] << " " << p[1];
  }
}

TEST(KeyedHashTest, OtherKeyOtherHash) {
  const std::string m = ReferenceMessage(16);
  SipKey other = ReferenceKey();
  other.k1 ^= 1;
  EXPECT_NE(Sip24(ReferenceKey(), m), Sip24(other, m));
  EXPECT_NE(SipHash13(ReferenceKey(), 1, 2), SipHash13(other, 1, 2));
}

}  // namespace
}  // namespace cfx::exchange
