#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/status.h"

namespace cfx::gateway::pb {

// The protobuf logon nonces already used (docs/protocol.md, "Session"):
// (API key, nonce) with the logon's timestamp, kept while that timestamp
// is newer than a horizon (twice the logon window), in memory and, once
// Open() has named a file, on disk, so a captured Logon is refused after a
// restart as before it.
//
// The file (mode 0600) holds one line per nonce, "<timestamp_ns> <api key>
// <nonce>" (both printable ASCII without spaces, as Logon requires); a line
// is synced before the logon is acknowledged. Open() keeps the lines within
// the horizon and rewrites the file with only those; Expire() rewrites it
// once most of its lines are stale.
//
// Thread: Open() before any other call; then the others from any thread (a
// mutex, held through a sync: the protobuf gateway calls them on the
// credential checker's workers only, so that no sync holds the gateway
// thread). Memory: one map entry per nonce within the horizon, plus the ones
// recorded since the last Expire() that scanned (logons are bounded by the
// logon rate).
class LogonNonces {
 public:
  enum class Use : uint8_t { kFresh, kReused, kNotRecorded };

  LogonNonces() = default;
  ~LogonNonces();
  LogonNonces(const LogonNonces&) = delete;
  LogonNonces& operator=(const LogonNonces&) = delete;

  // Loads and then appends to `path` (created 0600 if absent), forgetting
  // nonces with timestamps before `horizon_ns`. Without Open() the nonces
  // live in memory only. kUnavailable if the file cannot be read or written.
  Status Open(const std::string& path, int64_t horizon_ns);

  // kFresh: first use, now recorded (on disk when open, synced). kReused:
  // this key used this nonce within the horizon. kNotRecorded: the file
  // write or sync failed; the nonce is not taken. Record() then Sync().
  Use TryUse(std::string_view api_key, std::string_view nonce,
             int64_t timestamp_ns);

  // TryUse() in two steps, so that one sync covers many logons: Record()
  // takes the nonce and appends its line without syncing it (kFresh, with
  // *ticket: its number, increasing from 1); Sync() syncs every line
  // appended so far, with *through = the last ticket it covers: true when
  // they are durable; false when the sync failed, and the nonces recorded
  // since the last Sync() are forgotten (not taken). A nonce is durable,
  // and may be acknowledged, only once a Sync() through its ticket
  // returned true.
  Use Record(std::string_view api_key, std::string_view nonce,
             int64_t timestamp_ns, uint64_t* ticket);
  bool Sync(uint64_t* through);

  // Forgets nonces with timestamps before `horizon_ns`, scanning at most
  // once per second of horizon (a call within 1 s of the horizon of the
  // last scan does nothing, unless a write failed).
  void Expire(int64_t horizon_ns);

  std::size_t size() const;

 private:
  Status Rewrite();  // REQUIRES: mu_ held (or Open())

  mutable std::mutex mu_;  // guards the members below
  bool scanned_ = false;               // an Expire() has scanned
  int64_t scanned_horizon_ns_ = 0;     // the horizon of the last one
  std::map<std::pair<std::string, std::string>, int64_t> nonces_;
  std::string path_;
  int fd_ = -1;
  std::size_t lines_ = 0;  // lines in the file
  uint64_t written_ = 0;   // tickets given by Record()
  // The nonces Record() appended since the last Sync().
  std::vector<std::pair<std::string, std::string>> unsynced_;
  bool broken_ = false;    // an append failed: rewrite before the next
};

}  // namespace cfx::gateway::pb
