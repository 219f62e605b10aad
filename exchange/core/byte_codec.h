#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace cfx::exchange {

// Little-endian fixed-width encoding for snapshots and journal records.
// Cold path: ByteWriter appends to a std::string.
class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}
  template <typename T>
  void Put(T v) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    char buf[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      buf[i] = static_cast<char>(u & 0xffu);
      if constexpr (sizeof(T) > 1) u = static_cast<U>(u >> 8);
    }
    out_->append(buf, sizeof(T));
  }
  void PutBytes(std::string_view b) { out_->append(b); }

 private:
  std::string* out_;
};

// Reads what ByteWriter wrote. Never reads past the end: after a short
// read ok() is false and every later Get returns 0.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  template <typename T>
  T Get() {
    static_assert(std::is_integral_v<T>);
    if (!ok_ || in_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return T{};
    }
    using U = std::make_unsigned_t<T>;
    U u = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      u = static_cast<U>(
          u | (static_cast<U>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i)));
    }
    pos_ += sizeof(T);
    return static_cast<T>(u);
  }
  bool ok() const { return ok_; }
  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return ok_ ? in_.size() - pos_ : 0; }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace cfx::exchange
