#pragma once

// The FIX sessions' message stores (docs/fix.md, "Sequence numbers and
// recovery"): QuickFIX's MessageStore for the island, replacing its
// FileStore. Internal to the island: included only by
// gateway/fix/*_quickfix.{h,cc}. C++14, and no QuickFIX header: the factory
// is handed out as a forward-declared FIX type.
//
// One append-only file per session, <dir>/<BeginString>-<SenderCompID>-
// <TargetCompID>.store, of checksummed records: a header (creation time),
// sent messages (MsgSeqNum and the bytes as sent), and sequence-number
// records (next sender and target MsgSeqNum; the last one counts). The
// stores keep the sequence numbers and an index MsgSeqNum -> file offset in
// memory (8 bytes a message); message bytes stay in the file (and in the
// page cache) and are read back for resends. Records are buffered and
// written by Flush(), one write(2) per store with records; a store also
// writes when its buffer passes 1 MiB. Nothing is fsynced: a store survives
// a crash of the process, not a power loss.
//
// Opening a store scans its file; a torn or corrupt tail (a crash during a
// write) is cut off at the last complete record, with one log line. Where a
// session has no .store file yet but a QuickFIX FileStore set (.seqnums,
// .session, .header, .body) exists, that set is imported once: sequence
// numbers, creation time and stored messages.
//
// Thread: one thread (the Engine's). Memory: per store, the index, the
// unwritten records, and the open file.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace FIX {
class MessageStoreFactory;
}  // namespace FIX

namespace cfx {
namespace gateway {
namespace fix {
namespace internal {

class SessionStores {
 public:
  // Stores under `dir` (must exist). `log` gets one line per recovery or
  // write-failure event; it must remain live while the stores are.
  // `now_ns` is the exchange clock (ns since the epoch), the creation time
  // of a new or reset store; empty = the wall clock.
  //
  // The daily window follows the exchange clock, and the engine applies it
  // (it resets a session whose window ended, CreationNs()): FIX::Session
  // checks its window against the wall clock in places (after every
  // message, in its constructor and setResponder). So the stores answer
  // FIX::Session's getCreationTime() with a time that is in the same window
  // as any time near the wall clock's now, within the all-day window the
  // engine gives FIX::Session, which therefore never starts a new window by
  // itself.
  SessionStores(const std::string& dir,
                std::function<void(const std::string&)> log,
                std::function<int64_t()> now_ns = nullptr);
  // Writes what is still buffered (stores are destroyed by their Sessions,
  // which must be gone first).
  ~SessionStores();
  SessionStores(const SessionStores&) = delete;
  SessionStores& operator=(const SessionStores&) = delete;

  // The factory to construct FIX::Sessions with. create() throws
  // FIX::ConfigError when the store's file cannot be opened or read.
  FIX::MessageStoreFactory& factory();

  // Writes the buffered records of every store to the OS. Returns false if
  // some store could not write (it keeps its records and tries again at the
  // next Flush; see Failing()).
  bool Flush();
  // True if a store has records or sequence numbers to write.
  bool Dirty() const;

  // True while the store of the session with this TargetCompID holds records
  // its last Flush could not write.
  bool Failing(const std::string& target_comp_id) const;

  // The creation time (the last reset) of the store of the session with
  // this TargetCompID, ns since the epoch on the exchange clock; false if
  // there is no such store.
  bool CreationNs(const std::string& target_comp_id, int64_t* ns) const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace internal
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
