// Framing of the protobuf protocol (gateway/pb/frame.h): the header, and a
// FrameReader fed in arbitrary pieces.
#include "gateway/pb/frame.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cfx/wire/v1/wire.pb.h"

namespace cfx::gateway::pb {
namespace {

namespace w = cfx::wire::v1;

std::string Header(uint32_t length, uint16_t magic) {
  std::string h(6, '\0');
  h[0] = static_cast<char>(length >> 24);
  h[1] = static_cast<char>(length >> 16);
  h[2] = static_cast<char>(length >> 8);
  h[3] = static_cast<char>(length);
  h[4] = static_cast<char>(magic >> 8);
  h[5] = static_cast<char>(magic);
  return h;
}

std::string Framed(std::string_view payload) {
  std::string out = Header(
      static_cast<uint32_t>(payload.size() + kFrameHeaderSize), kFrameMagic);
  out.append(payload);
  return out;
}

// Feeds `bytes` in pieces of `piece` bytes and returns every payload.
std::vector<std::string> ReadAll(FrameReader& r, std::string_view bytes,
                                 std::size_t piece) {
  std::vector<std::string> out;
  while (!bytes.empty()) {
    const std::size_t n = std::min(piece, bytes.size());
    const std::size_t took =
        r.Feed(reinterpret_cast<const uint8_t*>(bytes.data()), n);
    EXPECT_GT(took, 0u);
    if (took == 0) break;
    bytes.remove_prefix(took);
    std::string_view payload;
    while (r.Next(&payload)) out.emplace_back(payload);
    if (r.error() != FrameError::kNone) break;
  }
  return out;
}

TEST(PbFrame, AppendFrameWritesBigEndianLengthAndMagic) {
  w::Envelope e;
  e.mutable_heartbeat();
  std::string out = "x";  // appends after what is there
  ASSERT_TRUE(AppendFrame(e, &out));
  const std::string payload = e.SerializeAsString();
  std::string want = "x";
  want += Framed(payload);
  EXPECT_EQ(out, want);
  EXPECT_EQ(static_cast<uint8_t>(out[5]), 0x47);
  EXPECT_EQ(static_cast<uint8_t>(out[6]), 0x00);
}

TEST(PbFrame, AppendFrameRefusesAMessageAboveTheLimit) {
  w::Envelope e;
  e.mutable_logout()->set_text(std::string(kMaxFrameSize, 'x'));
  std::string out = "keep";
  EXPECT_FALSE(AppendFrame(e, &out));
  EXPECT_EQ(out, "keep");
}

TEST(PbFrame, HeaderBoundsAreInclusive) {
  std::size_t total = 0;
  std::string h = Header(6, kFrameMagic);
  EXPECT_EQ(
      ParseFrameHeader(reinterpret_cast<const uint8_t*>(h.data()), &total),
      FrameError::kNone);
  EXPECT_EQ(total, 6u);
  h = Header(static_cast<uint32_t>(kMaxFrameSize), kFrameMagic);
  EXPECT_EQ(
      ParseFrameHeader(reinterpret_cast<const uint8_t*>(h.data()), &total),
      FrameError::kNone);
  EXPECT_EQ(total, kMaxFrameSize);
}

TEST(PbFrame, HeaderErrorsAreNamed) {
  std::size_t total = 0;
  const struct {
    uint32_t length;
    uint16_t magic;
    FrameError error;
  } cases[] = {
      {0, kFrameMagic, FrameError::kTooShort},
      {5, kFrameMagic, FrameError::kTooShort},
      {static_cast<uint32_t>(kMaxFrameSize + 1), kFrameMagic,
       FrameError::kTooLong},
      {0xffffffffu, kFrameMagic, FrameError::kTooLong},
      {10, 0x4701, FrameError::kBadMagic},
      {10, 0x0047, FrameError::kBadMagic},
  };
  for (const auto& c : cases) {
    const std::string h = Header(c.length, c.magic);
    EXPECT_EQ(
        ParseFrameHeader(reinterpret_cast<const uint8_t*>(h.data()), &total),
        c.error)
        << c.length << " " << c.magic;
  }
}

TEST(PbFrame, ReaderYieldsFramesFedOneByteAtATime) {
  const std::string bytes = Framed("abc") + Framed("") + Framed("defgh");
  FrameReader r;
  EXPECT_EQ(ReadAll(r, bytes, 1),
            (std::vector<std::string>{"abc", "", "defgh"}));
  EXPECT_EQ(r.error(), FrameError::kNone);
  EXPECT_EQ(r.buffered(), 0u);
}

TEST(PbFrame, ReaderKeepsAPartialFrameUntilItCompletes) {
  const std::string bytes = Framed("hello");
  FrameReader r;
  std::string_view payload;
  r.Feed(reinterpret_cast<const uint8_t*>(bytes.data()), 8);
  EXPECT_FALSE(r.Next(&payload));
  EXPECT_EQ(r.error(), FrameError::kNone);
  EXPECT_EQ(r.buffered(), 8u);
  r.Feed(reinterpret_cast<const uint8_t*>(bytes.data()) + 8, bytes.size() - 8);
  ASSERT_TRUE(r.Next(&payload));
  EXPECT_EQ(payload, "hello");
}

TEST(PbFrame, ReaderPassesManyMaximalFramesInOddPieces) {
  // Back-to-back 64 KiB frames force the buffer to compact again and again.
  std::mt19937_64 rng(7);
  std::string bytes;
  std::vector<std::string> want;
  for (int i = 0; i < 6; ++i) {
    std::string p(
        kMaxFrameSize - kFrameHeaderSize - static_cast<std::size_t>(i), '\0');
    for (char& ch : p) ch = static_cast<char>(rng());
    bytes += Framed(p);
    want.push_back(std::move(p));
  }
  for (const std::size_t piece : {std::size_t{1}, std::size_t{4093},
                                  std::size_t{65'537}, std::size_t{131'072}}) {
    SCOPED_TRACE("piece " + std::to_string(piece));
    FrameReader r;
    EXPECT_EQ(ReadAll(r, bytes, piece), want);
    EXPECT_EQ(r.error(), FrameError::kNone);
  }
}

TEST(PbFrame, HeaderErrorIsStickyAndStopsTheStream) {
  const std::string bytes =
      Framed("ok") + Header(3, kFrameMagic) + Framed("never");
  FrameReader r;
  EXPECT_EQ(ReadAll(r, bytes, bytes.size()), (std::vector<std::string>{"ok"}));
  EXPECT_EQ(r.error(), FrameError::kTooShort);
  std::string_view payload;
  const std::string more = Framed("still never");
  r.Feed(reinterpret_cast<const uint8_t*>(more.data()), more.size());
  EXPECT_FALSE(r.Next(&payload));
  EXPECT_EQ(r.error(), FrameError::kTooShort);
}

TEST(PbFrame, ErrorsAreDetectedBeforeThePayloadArrives) {
  // A peer announcing 4 GiB is cut off at its header, not waited for.
  FrameReader r;
  const std::string h = Header(0xfffffff0u, kFrameMagic);
  r.Feed(reinterpret_cast<const uint8_t*>(h.data()), h.size());
  std::string_view payload;
  EXPECT_FALSE(r.Next(&payload));
  EXPECT_EQ(r.error(), FrameError::kTooLong);
}

}  // namespace
}  // namespace cfx::gateway::pb
