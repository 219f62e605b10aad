// Opening a FIX session's store (session_store_quickfix.h): the scan of its
// records, the cut of a torn or corrupt tail, and the one-time import of a
// QuickFIX FileStore set. Compiled as C++14 with the rest of the QuickFIX
// island (STYLE.md §10).

#include <fcntl.h>
#include <quickfix/FieldConvertors.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gateway/fix/session_store_quickfix.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

namespace {

// Recovery reads the file in chunks of this size.
const std::size_t kReadChunk = 1 << 20;

// Sequential reads of a file through a window of at least kReadChunk bytes.
class FileReader {
 public:
  FileReader(int fd, uint64_t size) : fd_(fd), size_(size) {}

  // [offset, offset + n), valid until the next call; nullptr on a read
  // error (errno set) or past the end of the file.
  const char* At(uint64_t offset, std::size_t n) {
    if (offset >= start_ && offset + n <= start_ + length_) {
      return buffer_.data() + (offset - start_);
    }
    if (offset > size_ || n > size_ - offset) {
      errno = 0;
      return nullptr;
    }
    const std::size_t want = static_cast<std::size_t>(
        std::min<uint64_t>(std::max(n, kReadChunk), size_ - offset));
    if (buffer_.size() < want) buffer_.resize(want);
    start_ = offset;
    length_ = 0;
    if (!ReadAt(fd_, offset, buffer_.data(), want)) return nullptr;
    length_ = want;
    return buffer_.data();
  }

 private:
  int fd_;
  uint64_t size_;
  std::vector<char> buffer_;
  uint64_t start_ = 0;
  std::size_t length_ = 0;
};

}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
// The exception specifications QuickFIX's interface requires (C++14 only).

// Reads the records of [0, size): the state they describe, and in
// *good_end the end of the last complete, consistent record. False (with
// *why) if the file has more bytes than that.
bool AppendStore::Scan(uint64_t size, uint64_t* good_end, std::string* why) {
  FileReader reader(fd_, size);
  uint64_t offset = 0;
  *good_end = 0;
  while (offset < size) {
    if (size - offset < sizeof(RecordHeader)) {
      *why = "a partial record";
      return false;
    }
    const char* p = reader.At(offset, sizeof(RecordHeader));
    if (p == nullptr) {
      throw FIX::IOException("cannot read " + path_ + ": " + Errno());
    }
    RecordHeader header;
    std::memcpy(&header, p, sizeof(header));
    const uint32_t type = header.tag & 0xffu;
    if ((header.tag & ~0xffu) != kRecordMagic || type < kTypeHeader ||
        type > kTypeMessage) {
      *why = "an unknown record";
      return false;
    }
    if (header.length > size - offset - sizeof(RecordHeader)) {
      *why = "a partial record";
      return false;
    }
    p = reader.At(offset + sizeof(RecordHeader), header.length);
    if (p == nullptr) {
      throw FIX::IOException("cannot read " + path_ + ": " + Errno());
    }
    if (Checksum(header, p) != header.checksum) {
      *why = "a record with a bad checksum";
      return false;
    }
    if ((offset == 0) != (type == kTypeHeader)) {
      *why = "a misplaced header record";
      return false;
    }
    if (type == kTypeHeader) {
      int64_t seconds = 0;
      int32_t nanos = 0;
      if (header.length != kHeaderPayload ||
          std::memcmp(p, kHeaderMagic, sizeof(kHeaderMagic)) != 0) {
        *why = "an unknown file header";
        return false;
      }
      std::memcpy(&seconds, p + 8, sizeof(seconds));
      std::memcpy(&nanos, p + 16, sizeof(nanos));
      if (nanos < 0 || nanos >= 1000000000) {
        *why = "an unknown file header";
        return false;
      }
      creation_ = FIX::UtcTimeStamp(static_cast<time_t>(seconds), nanos, 9);
    } else if (type == kTypeSeqNums) {
      int32_t sender = 0;
      int32_t target = 0;
      if (header.length == kSeqNumsPayload) {
        std::memcpy(&sender, p, 4);
        std::memcpy(&target, p + 4, 4);
      }
      if (sender < 1 || target < 1) {
        *why = "a bad sequence-number record";
        return false;
      }
      next_sender_ = sender;
      next_target_ = target;
    } else {
      if (header.seq < 1 || header.length > kMaxMessageBytes) {
        *why = "a bad message record";
        return false;
      }
      Index(header.seq,
            (offset + sizeof(RecordHeader)) << kLengthBits | header.length);
    }
    offset += sizeof(RecordHeader) + header.length;
    *good_end = offset;
  }
  return true;
}

void AppendStore::Load() {
  Clear();
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    throw FIX::IOException("cannot stat " + path_ + ": " + Errno());
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  uint64_t good_end = 0;
  std::string why;
  if (!Scan(size, &good_end, &why)) {
    if (good_end == 0) Clear();  // no usable header: a new store
    owner_->Log("fix store " + name_ + ": " + why + " at offset " +
                std::to_string(good_end) + ": dropped the last " +
                std::to_string(size - good_end) +
                " bytes (a write cut short?)" +
                (good_end == 0 ? "; starting at MsgSeqNum 1" : ""));
    if (::ftruncate(fd_, static_cast<off_t>(good_end)) != 0) {
      throw FIX::IOException("cannot truncate " + path_ + ": " + Errno());
    }
  }
  file_size_ = good_end;
  if (file_size_ == 0) {
    StartFile();
    if (!Flush()) throw FIX::IOException("cannot write " + path_);
  }
}

bool AppendStore::Import(const std::string& prefix) {
  int sender = 0;
  int target = 0;
  {
    std::FILE* f = std::fopen((prefix + "seqnums").c_str(), "r");
    if (f == nullptr) return false;
    const int n = std::fscanf(f, "%d : %d", &sender, &target);
    std::fclose(f);
    if (n != 2 || sender < 1 || target < 1) return false;
  }
  Clear();
  if (std::FILE* f = std::fopen((prefix + "session").c_str(), "r")) {
    char text[64] = {};
    if (std::fscanf(f, "%63s", text) == 1) {
      try {
        creation_ = FIX::UtcTimeStampConvertor::convert(std::string(text));
      } catch (const std::exception&) {
      }
    }
    std::fclose(f);
  }
  next_sender_ = sender;
  next_target_ = target;
  AppendHeader();
  std::map<int, std::pair<long, unsigned long> > offsets;
  if (std::FILE* f = std::fopen((prefix + "header").c_str(), "r")) {
    int seq = 0;
    long offset = 0;
    unsigned long length = 0;
    while (std::fscanf(f, "%d,%ld,%lu ", &seq, &offset, &length) == 3) {
      offsets[seq] = std::make_pair(offset, length);
    }
    std::fclose(f);
  }
  std::size_t imported = 0;
  const int body = ::open((prefix + "body").c_str(), O_RDONLY | O_CLOEXEC);
  if (body >= 0) {
    std::string message;
    for (const auto& entry : offsets) {
      if (entry.first < 1 || entry.second.first < 0 ||
          entry.second.second > kMaxMessageBytes) {
        continue;
      }
      message.resize(entry.second.second);
      if (!ReadAt(body, static_cast<uint64_t>(entry.second.first), &message[0],
                  message.size())) {
        continue;
      }
      AppendMessage(entry.first, message.data(), message.size());
      ++imported;
      if (buffer_.size() >= kFlushBytes && !Flush()) break;
    }
    ::close(body);
  }
  AppendSeqNums();
  if (!Flush()) throw FIX::IOException("cannot write " + path_);
  owner_->Log("fix store " + name_ + ": imported the QuickFIX FileStore " +
              prefix + "*: " + std::to_string(imported) +
              " messages, next MsgSeqNums " + std::to_string(sender) + "/" +
              std::to_string(target));
  return true;
}

#pragma GCC diagnostic pop

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
