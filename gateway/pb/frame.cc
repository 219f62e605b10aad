#include "gateway/pb/frame.h"

#include <google/protobuf/message_lite.h>

#include <cstring>

namespace cfx::gateway::pb {

std::string_view FrameErrorName(FrameError e) {
  switch (e) {
    case FrameError::kNone:
      return "none";
    case FrameError::kTooShort:
      return "frame shorter than its 6-byte header";
    case FrameError::kTooLong:
      return "frame longer than 65536 bytes";
    case FrameError::kBadMagic:
      return "frame magic is not 0x4700";
  }
  return "unknown frame error";
}

FrameError ParseFrameHeader(const uint8_t* header, std::size_t* total) {
  const uint32_t length = (uint32_t{header[0]} << 24) |
                          (uint32_t{header[1]} << 16) |
                          (uint32_t{header[2]} << 8) | uint32_t{header[3]};
  const uint16_t magic =
      static_cast<uint16_t>((uint16_t{header[4]} << 8) | uint16_t{header[5]});
  if (length < kFrameHeaderSize) return FrameError::kTooShort;
  if (length > kMaxFrameSize) return FrameError::kTooLong;
  if (magic != kFrameMagic) return FrameError::kBadMagic;
  *total = length;
  return FrameError::kNone;
}

bool AppendFrame(const google::protobuf::MessageLite& message,
                 std::string* out) {
  const std::size_t payload = message.ByteSizeLong();
  const std::size_t total = payload + kFrameHeaderSize;
  if (total > kMaxFrameSize) return false;
  const std::size_t at = out->size();
  out->resize(at + total);
  auto* p = reinterpret_cast<uint8_t*>(out->data() + at);
  p[0] = static_cast<uint8_t>(total >> 24);
  p[1] = static_cast<uint8_t>(total >> 16);
  p[2] = static_cast<uint8_t>(total >> 8);
  p[3] = static_cast<uint8_t>(total);
  p[4] = static_cast<uint8_t>(kFrameMagic >> 8);
  p[5] = static_cast<uint8_t>(kFrameMagic & 0xff);
  message.SerializeWithCachedSizesToArray(p + kFrameHeaderSize);
  return true;
}

FrameReader::FrameReader() : buffer_(2 * kMaxFrameSize, '\0') {}

std::size_t FrameReader::Feed(const uint8_t* data, std::size_t n) {
  if (WritableSize() < n) Compact();
  const std::size_t take = n < WritableSize() ? n : WritableSize();
  std::memcpy(WritableSpace(), data, take);
  Commit(take);
  return take;
}

void FrameReader::Compact() {
  if (begin_ == 0) return;
  std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
}

bool FrameReader::Next(std::string_view* payload) {
  if (error_ != FrameError::kNone) return false;
  if (end_ - begin_ < kFrameHeaderSize) {
    // Keep room for a whole frame behind the partial one.
    if (buffer_.size() - begin_ < kMaxFrameSize) Compact();
    return false;
  }
  const auto* p = reinterpret_cast<const uint8_t*>(buffer_.data() + begin_);
  std::size_t total = 0;
  error_ = ParseFrameHeader(p, &total);
  if (error_ != FrameError::kNone) return false;
  if (end_ - begin_ < total) {
    if (buffer_.size() - begin_ < kMaxFrameSize) Compact();
    return false;
  }
  *payload = std::string_view(buffer_.data() + begin_ + kFrameHeaderSize,
                              total - kFrameHeaderSize);
  begin_ += total;
  if (begin_ == end_) begin_ = end_ = 0;
  return true;
}

}  // namespace cfx::gateway::pb
