// libFuzzer target for the protobuf frame decoder: arbitrary bytes go to a
// gateway::pb::FrameReader the way the gateway's socket loop feeds it (reads
// of any size into WritableSpace()), and every payload it yields is parsed
// as a cfx.wire.v1.Envelope, as Gateway::OnFrame does. Checked, besides
// ASan/UBSan: the reader always has room for the next read until it reports
// an error, errors are sticky, payloads respect the frame limits, and a
// parsed Envelope survives AppendFrame -> FrameReader -> parse unchanged.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "cfx/wire/v1/wire.pb.h"
#include "gateway/pb/frame.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace pb = cfx::gateway::pb;
namespace w = cfx::wire::v1;

using cfx::fuzz::Check;

// Re-frames a parsed Envelope and reads it back.
void CheckRoundTrip(const w::Envelope& e) {
  std::string framed;
  if (!pb::AppendFrame(e, &framed)) return;  // re-encoded above the limit
  pb::FrameReader r;
  Check(r.Feed(reinterpret_cast<const uint8_t*>(framed.data()),
               framed.size()) == framed.size());
  std::string_view payload;
  Check(r.Next(&payload));
  w::Envelope again;
  Check(again.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
  Check(again.SerializeAsString() == e.SerializeAsString());
  Check(!r.Next(&payload));
  Check(r.error() == pb::FrameError::kNone);
  Check(r.buffered() == 0);
}

void OnPayload(std::string_view payload) {
  Check(payload.size() <= pb::kMaxFrameSize - pb::kFrameHeaderSize);
  w::Envelope e;
  if (e.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    CheckRoundTrip(e);
  }
}

// Feeds `data` in reads of at most `read_size` bytes, as the socket loop
// does, and handles every frame.
void Stream(const uint8_t* data, std::size_t size, std::size_t read_size) {
  pb::FrameReader reader;
  std::size_t consumed = 0;
  std::string_view payload;
  while (consumed < size) {
    // The gateway issues its next read into WritableSpace(): it must never
    // be empty while the stream is healthy, or the session would stall.
    Check(reader.WritableSize() > 0);
    std::size_t n = size - consumed;
    if (n > read_size) n = read_size;
    if (n > reader.WritableSize()) n = reader.WritableSize();
    std::memcpy(reader.WritableSpace(), data + consumed, n);
    reader.Commit(n);
    consumed += n;
    while (reader.Next(&payload)) OnPayload(payload);
    if (reader.error() != pb::FrameError::kNone) {
      // Sticky: the connection is closed, nothing more comes out.
      const pb::FrameError error = reader.error();
      Check(!reader.Next(&payload));
      Check(reader.error() == error);
      Check(!pb::FrameErrorName(error).empty());
      return;
    }
  }
  Check(reader.buffered() < pb::kMaxFrameSize);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cfx::fuzz::SilenceProtobufLog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first two bytes choose how the stream is cut into reads.
  const std::size_t read_size =
      1 +
      ((std::size_t{data[0]} << 8 | data[1]) * 3u) % (2 * pb::kMaxFrameSize);
  data += 2;
  size -= 2;
  Stream(data, size, read_size);

  // The same bytes as one Envelope payload, so the parser is reached at once
  // rather than only after the fuzzer has found a valid header.
  if (size + pb::kFrameHeaderSize <= pb::kMaxFrameSize) {
    std::string framed(pb::kFrameHeaderSize, '\0');
    const auto total = static_cast<uint32_t>(size + pb::kFrameHeaderSize);
    framed[0] = static_cast<char>(total >> 24);
    framed[1] = static_cast<char>(total >> 16);
    framed[2] = static_cast<char>(total >> 8);
    framed[3] = static_cast<char>(total);
    framed[4] = static_cast<char>(pb::kFrameMagic >> 8);
    framed[5] = static_cast<char>(pb::kFrameMagic & 0xff);
    framed.append(reinterpret_cast<const char*>(data), size);
    Stream(reinterpret_cast<const uint8_t*>(framed.data()), framed.size(),
           read_size);
  }
  return 0;
}
