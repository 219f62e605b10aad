#pragma once

// The message store's own types (session_store.h), shared by the files of
// the C++14 QuickFIX island (STYLE.md §10) that implement it and by nothing
// else: session_store_quickfix.cc (records, writing, the factory) and
// session_store_recovery_quickfix.cc (opening a file: the scan, a torn
// tail, the import of a QuickFIX FileStore set). Errors are thrown as
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

#include <quickfix/Exceptions.h>
#include <quickfix/FieldTypes.h>
#include <quickfix/MessageStore.h>
#include <quickfix/SessionID.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gateway/fix/session_store.h"

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

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

// getCreationTime() answers the wall clock's now plus this (12 hours).
const int kNeutralCreationOffsetSeconds = 12 * 3600;

// The UtcTimeStamp of `ns` nanoseconds since the epoch.
FIX::UtcTimeStamp StampOfNanos(int64_t ns);

// The checksum of a record: its header's first 12 bytes and its payload.
uint32_t Checksum(const RecordHeader& header, const char* payload);

// strerror(errno).
std::string Errno();

// Reads all of [offset, offset + size) into `out`. False on an error or a
// short file (errno is then 0).
bool ReadAt(int fd, uint64_t offset, char* out, std::size_t size);

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
  std::vector<AppendStore*> dirty_;  // with records or seqnums to write
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
#pragma GCC diagnostic pop

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
