// The island's FIX::MessageStore (session_store.h). Compiled as C++14 with
// the rest of the QuickFIX island (STYLE.md §10). Errors are thrown as
// QuickFIX's MessageStore contract requires (FIX::IOException from the
// store, FIX::ConfigError from the factory): FIX::Session catches them, and
// the engine catches what leaves a Session.
//
// File format (native byte order, i.e. little-endian on our targets): a
// sequence of records, each a 16-byte RecordHeader followed by `length`
// payload bytes. The checksum covers the header's first 12 bytes and the
// payload. The first record is the header record; after it come message
// and sequence-number records in the order they were made. A reset
// truncates the file and starts a new one.
//
//   header     payload: "CFXFIXS1", int64 creation time (s since the epoch,
//              UTC), int32 nanoseconds, int32 0.
//   seqnums    payload: int32 next sender MsgSeqNum, int32 next target
//              MsgSeqNum. The last one in the file counts.
//   message    seq: MsgSeqNum; payload: the message as sent. A later record
//              for the same MsgSeqNum replaces an earlier one.

#include <fcntl.h>
#include <quickfix/Exceptions.h>
#include <quickfix/FieldConvertors.h>
#include <quickfix/FieldTypes.h>
#include <quickfix/MessageStore.h>
#include <quickfix/SessionID.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/fix/session_store.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

namespace {

struct RecordHeader {
  uint32_t tag;     // kRecordMagic | type
  uint32_t length;  // payload bytes
  int32_t seq;      // message records: MsgSeqNum; else 0
  uint32_t checksum;
};
static_assert(sizeof(RecordHeader) == 16, "RecordHeader is 16 bytes");

const uint32_t kRecordMagic = 0x53584300u;  // "\0CXS" in the file
const uint32_t kTypeHeader = 1;
const uint32_t kTypeSeqNums = 2;
const uint32_t kTypeMessage = 3;

const char kHeaderMagic[8] = {'C', 'F', 'X', 'F', 'I', 'X', 'S', '1'};
const std::size_t kHeaderPayload = 24;
const std::size_t kSeqNumsPayload = 8;

// Index entries pack (payload offset << 24 | length): messages up to 16 MiB,
// files up to 1 TiB. 0 is "no message".
const int kLengthBits = 24;
const uint64_t kMaxMessageBytes = (uint64_t{1} << kLengthBits) - 1;
const uint64_t kMaxFileBytes = uint64_t{1} << 40;

// A store writes as soon as its buffer holds this much, and gives back a
// buffer that grew past kMaxKeptBuffer once written.
const std::size_t kFlushBytes = 1 << 20;
const std::size_t kMaxKeptBuffer = 4 << 20;

// MsgSeqNums further than this past the end of the dense index go to a map.
const std::size_t kMaxIndexGap = 1 << 16;

// Recovery reads the file in chunks of this size.
const std::size_t kReadChunk = 1 << 20;

// getCreationTime() answers the wall clock's now plus this (12 hours).
const int kNeutralCreationOffsetSeconds = 12 * 3600;

// The UtcTimeStamp of `ns` nanoseconds since the epoch.
FIX::UtcTimeStamp StampOfNanos(int64_t ns) {
  int64_t seconds = ns / 1000000000;
  int64_t nanos = ns % 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    --seconds;
  }
  return FIX::UtcTimeStamp(static_cast<time_t>(seconds),
                           static_cast<int>(nanos), 9);
}

// A 64-bit multiply-xorshift hash folded to 32 bits: every step is a
// bijection of the state, so a change to any word always changes the
// 64-bit result; detects torn and garbled records (not an adversary).
uint64_t Mix(uint64_t h, const char* p, std::size_t n) {
  const uint64_t kMul = 0x9E3779B97F4A7C15ull;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w ^ (static_cast<uint64_t>(n) << 56)) * kMul;
  h ^= h >> 31;
  return h;
}

uint32_t Checksum(const RecordHeader& header, const char* payload) {
  uint64_t h = Mix(0x6366787374ull, reinterpret_cast<const char*>(&header),
                   offsetof(RecordHeader, checksum));
  h = Mix(h, payload, header.length);
  h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<uint32_t>(h >> 32);
}

std::string Errno() { return std::strerror(errno); }

// FileStore's name for a session: BeginString-Sender-Target[-Qualifier].
std::string SessionName(const FIX::SessionID& id) {
  std::string name = id.getBeginString().getString() + "-" +
                     id.getSenderCompID().getString() + "-" +
                     id.getTargetCompID().getString();
  if (!id.getSessionQualifier().empty()) {
    name += "-" + id.getSessionQualifier();
  }
  return name;
}

// `name` as a file name: bytes other than [A-Za-z0-9._-] become %XX (a
// CompID with '/' stays inside the store directory).
std::string FileName(const std::string& name) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
        (u >= '0' && u <= '9') || u == '.' || u == '_' || u == '-') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  if (!out.empty() && out[0] == '.') out.replace(0, 1, "%2E");
  return out;
}

// Reads all of [offset, offset + size) into `out`. False on an error or a
// short file (errno is then 0).
bool ReadAt(int fd, uint64_t offset, char* out, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = 0;
      return false;
    }
    out += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

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

class AppendStore;

class SessionStores::Impl : public FIX::MessageStoreFactory {
 public:
  Impl(const std::string& dir, std::function<void(const std::string&)> log,
       std::function<int64_t()> now_ns)
      : dir_(dir), log_(std::move(log)), now_ns_(std::move(now_ns)) {}
  ~Impl() override;

  FIX::MessageStore* create(const FIX::SessionID& id) override;
  void destroy(FIX::MessageStore* store) override;

  bool Flush();
  bool Dirty() const { return !dirty_.empty(); }
  bool Failing(const std::string& target_comp_id) const;

  // From the stores.
  void Queue(AppendStore* store) { dirty_.push_back(store); }
  void Log(const std::string& line) const {
    if (log_) log_(line);
  }
  // The creation time of a new or reset store: the exchange clock's now.
  FIX::UtcTimeStamp Now() const {
    FIX::UtcTimeStamp t;  // the wall clock without an exchange clock
    if (now_ns_) t = StampOfNanos(now_ns_());
    return t;
  }
  bool Creation(const std::string& target_comp_id, int64_t* ns) const;

 private:
  const std::string dir_;
  const std::function<void(const std::string&)> log_;
  const std::function<int64_t()> now_ns_;
  std::vector<AppendStore*> stores_;  // live, owned by their Sessions
  // The live stores by TargetCompID (the engine asks per message).
  std::unordered_map<std::string, const AppendStore*> by_target_;
  std::vector<AppendStore*> dirty_;   // with records or seqnums to write
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
// The exception specifications QuickFIX's interface requires (C++14 only).

// One session's store. Owned by its FIX::Session (through the factory).
class AppendStore : public FIX::MessageStore {
 public:
  // Takes `fd` (the open file at `path`).
  AppendStore(SessionStores::Impl* owner, std::string path, std::string name,
              std::string target_comp_id, int fd)
      : owner_(owner),
        path_(std::move(path)),
        name_(std::move(name)),
        target_comp_id_(std::move(target_comp_id)),
        fd_(fd) {}
  ~AppendStore() override {
    queued_ = true;  // never queued again: the last Flush
    Flush();
    ::close(fd_);
  }

  const std::string& target_comp_id() const { return target_comp_id_; }
  bool failing() const { return failing_; }
  // The owner took it off its dirty list.
  void Unqueue() { queued_ = false; }

  // Recovers the file's state (see the file comment); throws
  // FIX::IOException if the file cannot be read or repaired.
  void Load();
  // Imports a QuickFIX FileStore set with this file prefix into the (empty)
  // file. False if there is none or its sequence numbers are unreadable.
  bool Import(const std::string& file_store_prefix);

  // Writes the buffered records. False (records kept) on a write error.
  bool Flush();

  bool set(int seq,
           const std::string& message) throw(FIX::IOException) override;
  void get(int begin, int end, std::vector<std::string>& out) const
      throw(FIX::IOException) override;

  int getNextSenderMsgSeqNum() const throw(FIX::IOException) override {
    return next_sender_;
  }
  int getNextTargetMsgSeqNum() const throw(FIX::IOException) override {
    return next_target_;
  }
  void setNextSenderMsgSeqNum(int value) throw(FIX::IOException) override {
    next_sender_ = value;
    SeqNumsChanged();
  }
  void setNextTargetMsgSeqNum(int value) throw(FIX::IOException) override {
    next_target_ = value;
    SeqNumsChanged();
  }
  void incrNextSenderMsgSeqNum() throw(FIX::IOException) override {
    ++next_sender_;
    SeqNumsChanged();
  }
  void incrNextTargetMsgSeqNum() throw(FIX::IOException) override {
    ++next_target_;
    SeqNumsChanged();
  }

  // What FIX::Session compares the time with, in its all-day window: 12
  // hours after the wall clock's now, in the same window as any time within
  // 12 hours of now, so FIX::Session never starts a new window by itself
  // (session_store.h).
  FIX::UtcTimeStamp getCreationTime() const throw(FIX::IOException) override {
    FIX::UtcTimeStamp t;
    t += kNeutralCreationOffsetSeconds;
    return t;
  }
  // The time of the store's last reset (or creation), exchange clock.
  int64_t creation_ns() const {
    return static_cast<int64_t>(creation_.getTimeT()) * 1000000000 +
           static_cast<int64_t>(creation_.getNanosecond());
  }

  void reset() throw(FIX::IOException) override;
  void refresh() throw(FIX::IOException) override;

 private:
  void Clear();
  void StartFile();
  void Append(uint32_t type, int32_t seq, const char* payload,
              std::size_t length);
  void AppendHeader();
  void AppendSeqNums();
  void AppendMessage(int seq, const char* data, std::size_t size);
  void Index(int seq, uint64_t entry);
  void Read(uint64_t entry, std::string* out) const;
  void SeqNumsChanged() {
    seqnums_dirty_ = true;
    Queue();
  }
  void Queue() {
    if (!queued_) {
      queued_ = true;
      owner_->Queue(this);
    }
  }
  bool Scan(uint64_t size, uint64_t* good_end, std::string* why);

  SessionStores::Impl* const owner_;
  const std::string path_;
  const std::string name_;
  const std::string target_comp_id_;
  const int fd_;

  uint64_t file_size_ = 0;  // bytes in the file; buffer_ follows them
  std::string buffer_;      // records not yet written
  bool seqnums_dirty_ = false;
  bool failing_ = false;
  bool queued_ = false;  // in the owner's dirty list

  int next_sender_ = 1;
  int next_target_ = 1;
  FIX::UtcTimeStamp creation_;
  // MsgSeqNum s at index_[s - 1]; far outliers in sparse_ (every key of
  // sparse_ is above index_.size()).
  std::vector<uint64_t> index_;
  std::map<int, uint64_t> sparse_;
};

void AppendStore::Clear() {
  buffer_.clear();
  seqnums_dirty_ = false;
  next_sender_ = 1;
  next_target_ = 1;
  creation_ = owner_->Now();
  std::vector<uint64_t>().swap(index_);
  sparse_.clear();
}

void AppendStore::Append(uint32_t type, int32_t seq, const char* payload,
                         std::size_t length) {
  RecordHeader header;
  header.tag = kRecordMagic | type;
  header.length = static_cast<uint32_t>(length);
  header.seq = seq;
  header.checksum = 0;
  header.checksum = Checksum(header, payload);
  buffer_.append(reinterpret_cast<const char*>(&header), sizeof(header));
  buffer_.append(payload, length);
  Queue();
}

void AppendStore::AppendHeader() {
  char payload[kHeaderPayload] = {};
  std::memcpy(payload, kHeaderMagic, sizeof(kHeaderMagic));
  const int64_t seconds = static_cast<int64_t>(creation_.getTimeT());
  const int32_t nanos = static_cast<int32_t>(creation_.getNanosecond());
  std::memcpy(payload + 8, &seconds, sizeof(seconds));
  std::memcpy(payload + 16, &nanos, sizeof(nanos));
  Append(kTypeHeader, 0, payload, sizeof(payload));
}

void AppendStore::AppendSeqNums() {
  char payload[kSeqNumsPayload];
  const int32_t sender = next_sender_;
  const int32_t target = next_target_;
  std::memcpy(payload, &sender, 4);
  std::memcpy(payload + 4, &target, 4);
  Append(kTypeSeqNums, 0, payload, sizeof(payload));
  seqnums_dirty_ = false;
}

void AppendStore::AppendMessage(int seq, const char* data, std::size_t size) {
  const uint64_t offset = file_size_ + buffer_.size() + sizeof(RecordHeader);
  Append(kTypeMessage, seq, data, size);
  Index(seq, offset << kLengthBits | size);
}

// A new file: the header and sequence-number records of the current state.
void AppendStore::StartFile() {
  AppendHeader();
  AppendSeqNums();
}

void AppendStore::Index(int seq, uint64_t entry) {
  const std::size_t slot = static_cast<std::size_t>(seq) - 1;
  if (slot >= index_.size()) {
    if (slot - index_.size() > kMaxIndexGap) {
      sparse_[seq] = entry;
      return;
    }
    index_.resize(slot + 1, 0);
    // Keep every sparse_ key above index_.size().
    while (!sparse_.empty() &&
           static_cast<std::size_t>(sparse_.begin()->first) <= index_.size()) {
      index_[static_cast<std::size_t>(sparse_.begin()->first) - 1] =
          sparse_.begin()->second;
      sparse_.erase(sparse_.begin());
    }
  }
  index_[slot] = entry;
}

void AppendStore::Read(uint64_t entry, std::string* out) const {
  uint64_t offset = entry >> kLengthBits;
  std::size_t length = static_cast<std::size_t>(entry & kMaxMessageBytes);
  out->resize(length);
  char* to = &(*out)[0];
  if (offset < file_size_) {
    const std::size_t in_file = static_cast<std::size_t>(
        std::min<uint64_t>(length, file_size_ - offset));
    if (!ReadAt(fd_, offset, to, in_file)) {
      throw FIX::IOException("cannot read " + path_ + ": " +
                             (errno != 0 ? Errno() : "file too short"));
    }
    to += in_file;
    offset += in_file;
    length -= in_file;
  }
  // The rest is not written yet.
  if (length > 0) {
    std::memcpy(to, buffer_.data() + (offset - file_size_), length);
  }
}

bool AppendStore::set(int seq,
                      const std::string& message) throw(FIX::IOException) {
  if (seq < 1) throw FIX::IOException("bad MsgSeqNum for " + path_);
  if (message.size() > kMaxMessageBytes) {
    throw FIX::IOException("message too long for " + path_);
  }
  if (file_size_ + buffer_.size() + sizeof(RecordHeader) + message.size() >=
      kMaxFileBytes) {
    throw FIX::IOException(path_ + " is full");
  }
  AppendMessage(seq, message.data(), message.size());
  if (buffer_.size() >= kFlushBytes) Flush();
  return true;
}

void AppendStore::get(int begin, int end, std::vector<std::string>& out) const
    throw(FIX::IOException) {
  out.clear();
  if (begin < 1) begin = 1;
  if (end < begin) return;
  const std::size_t dense_end =
      std::min(static_cast<std::size_t>(end), index_.size());
  for (std::size_t seq = static_cast<std::size_t>(begin); seq <= dense_end;
       ++seq) {
    const uint64_t entry = index_[seq - 1];
    if (entry == 0) continue;
    out.push_back(std::string());
    Read(entry, &out.back());
  }
  for (std::map<int, uint64_t>::const_iterator it = sparse_.lower_bound(begin);
       it != sparse_.end() && it->first <= end; ++it) {
    out.push_back(std::string());
    Read(it->second, &out.back());
  }
}

bool AppendStore::Flush() {
  if (seqnums_dirty_) AppendSeqNums();
  std::size_t done = 0;
  int error = 0;
  while (done < buffer_.size()) {
    const ssize_t n =
        ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  file_size_ += done;
  if (done < buffer_.size()) {
    buffer_.erase(0, done);
    if (!failing_) {
      failing_ = true;
      owner_->Log("fix store " + name_ +
                  ": cannot write: " + std::strerror(error) + "; holding " +
                  std::to_string(buffer_.size()) +
                  " bytes, the session's output is withheld until written");
    }
    return false;
  }
  buffer_.clear();
  if (buffer_.capacity() > kMaxKeptBuffer) std::string().swap(buffer_);
  if (failing_) {
    failing_ = false;
    owner_->Log("fix store " + name_ + ": written again");
  }
  return true;
}

void AppendStore::reset() throw(FIX::IOException) {
  if (::ftruncate(fd_, 0) != 0) {
    throw FIX::IOException("cannot truncate " + path_ + ": " + Errno());
  }
  file_size_ = 0;
  Clear();
  StartFile();
  Flush();  // a failure keeps the records for the next Flush
}

void AppendStore::refresh() throw(FIX::IOException) {
  if (!Flush()) {
    throw FIX::IOException("cannot refresh " + path_ +
                           ": it holds records it cannot write");
  }
  Load();
}

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

SessionStores::Impl::~Impl() {
  // Sessions destroy their stores first; anything left is written here.
  std::vector<AppendStore*> stores;
  stores.swap(stores_);
  for (AppendStore* store : stores) delete store;
}

FIX::MessageStore* SessionStores::Impl::create(const FIX::SessionID& id) {
  const std::string name = SessionName(id);
  const std::string path = dir_ + "/" + FileName(name) + ".store";
  struct stat st;
  const bool existed = ::stat(path.c_str(), &st) == 0;
  const int fd =
      ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw FIX::ConfigError("cannot open " + path + ": " + Errno());
  std::unique_ptr<AppendStore> store(
      new AppendStore(this, path, name, id.getTargetCompID().getString(), fd));
  try {
    if (existed || !store->Import(dir_ + "/" + name + ".")) store->Load();
  } catch (const FIX::IOException& e) {
    throw FIX::ConfigError(e.what());
  }
  stores_.push_back(store.get());
  by_target_[id.getTargetCompID().getString()] = store.get();
  return store.release();
}

void SessionStores::Impl::destroy(FIX::MessageStore* store) {
  AppendStore* ours = static_cast<AppendStore*>(store);
  std::unordered_map<std::string, const AppendStore*>::iterator it =
      by_target_.find(ours->target_comp_id());
  if (it != by_target_.end() && it->second == ours) by_target_.erase(it);
  stores_.erase(std::remove(stores_.begin(), stores_.end(), ours),
                stores_.end());
  dirty_.erase(std::remove(dirty_.begin(), dirty_.end(), ours), dirty_.end());
  delete ours;
}

bool SessionStores::Impl::Flush() {
  bool ok = true;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < dirty_.size(); ++i) {
    AppendStore* store = dirty_[i];
    if (store->Flush()) {
      store->Unqueue();
    } else {
      dirty_[kept++] = store;
      ok = false;
    }
  }
  dirty_.resize(kept);
  return ok;
}

bool SessionStores::Impl::Failing(const std::string& target_comp_id) const {
  for (const AppendStore* store : stores_) {
    if (store->failing() && store->target_comp_id() == target_comp_id) {
      return true;
    }
  }
  return false;
}

SessionStores::SessionStores(const std::string& dir,
                             std::function<void(const std::string&)> log,
                             std::function<int64_t()> now_ns)
    : impl_(new Impl(dir, std::move(log), std::move(now_ns))) {}

SessionStores::~SessionStores() {}

FIX::MessageStoreFactory& SessionStores::factory() { return *impl_; }

bool SessionStores::Flush() { return impl_->Flush(); }

bool SessionStores::Dirty() const { return impl_->Dirty(); }

bool SessionStores::Impl::Creation(const std::string& target_comp_id,
                                   int64_t* ns) const {
  std::unordered_map<std::string, const AppendStore*>::const_iterator it =
      by_target_.find(target_comp_id);
  if (it == by_target_.end()) return false;
  *ns = it->second->creation_ns();
  return true;
}

bool SessionStores::CreationNs(const std::string& target_comp_id,
                               int64_t* ns) const {
  return impl_->Creation(target_comp_id, ns);
}

bool SessionStores::Failing(const std::string& target_comp_id) const {
  return impl_->Failing(target_comp_id);
}

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
