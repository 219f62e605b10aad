// The island's FIX::MessageStore (session_store.h, session_store_quickfix.h):
// records, their checksums, writing, reads for resends, and the factory.
// Compiled as C++14 with the rest of the QuickFIX island (STYLE.md §10).
// Opening a store's file is session_store_recovery_quickfix.cc.

#include "gateway/fix/session_store_quickfix.h"

#include <fcntl.h>
#include <quickfix/FieldConvertors.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

namespace {

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

}  // namespace

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

uint32_t Checksum(const RecordHeader& header, const char* payload) {
  uint64_t h = Mix(0x6366787374ull, reinterpret_cast<const char*>(&header),
                   offsetof(RecordHeader, checksum));
  h = Mix(h, payload, header.length);
  h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
  return static_cast<uint32_t>(h >> 32);
}

std::string Errno() { return std::strerror(errno); }

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

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated"
// The exception specifications QuickFIX's interface requires (C++14 only).

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
      ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
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
