#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace google::protobuf {
class MessageLite;
}  // namespace google::protobuf

namespace cfx::gateway::pb {

// Framing of the protobuf protocol (DESIGN.md §6): every frame is
//   [u32 big-endian total length, header included][u16 big-endian 0x4700]
// followed by one serialized cfx.wire.v1.Envelope.
inline constexpr std::size_t kFrameHeaderSize = 6;
inline constexpr uint16_t kFrameMagic = 0x4700;
// Largest frame, header included: 64 KiB.
inline constexpr std::size_t kMaxFrameSize = 64 * 1024;

enum class FrameError : uint8_t {
  kNone = 0,
  kTooShort,  // total length below the 6-byte header
  kTooLong,   // total length above kMaxFrameSize
  kBadMagic,  // the u16 after the length is not 0x4700
};

std::string_view FrameErrorName(FrameError e);

// Checks the 6-byte header at `header`; on success stores the frame's total
// length (header included) in `*total`.
FrameError ParseFrameHeader(const uint8_t* header, std::size_t* total);

// Appends one frame holding `message` to `*out`. Returns false (and appends
// nothing) when the frame would exceed kMaxFrameSize.
bool AppendFrame(const google::protobuf::MessageLite& message,
                 std::string* out);

// Splits a byte stream into frames. Bytes are written into WritableSpace()
// and committed with Commit(); Next() then yields each complete frame's
// payload (the Envelope bytes) until it returns false. A header error is
// sticky: error() stays set and the connection must be closed.
//
// Thread: one connection's I/O thread. Memory: one buffer of
// 2 x kMaxFrameSize, allocated in the constructor.
class FrameReader {
 public:
  FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Where the next read may write, and how much.
  uint8_t* WritableSpace() {
    return reinterpret_cast<uint8_t*>(buffer_.data()) + end_;
  }
  std::size_t WritableSize() const { return buffer_.size() - end_; }
  void Commit(std::size_t n) { end_ += n; }

  // Feeds bytes from memory (tests, fuzzers): copies as much as fits and
  // returns how many bytes were taken.
  std::size_t Feed(const uint8_t* data, std::size_t n);

  // The next complete frame's payload. Returns false when no complete frame
  // is buffered, or on a header error (see error()). The payload is valid
  // until the next call to Next(), Feed() or WritableSpace().
  bool Next(std::string_view* payload);

  FrameError error() const { return error_; }
  std::size_t buffered() const { return end_ - begin_; }

 private:
  void Compact();

  std::string buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  FrameError error_ = FrameError::kNone;
};

}  // namespace cfx::gateway::pb
