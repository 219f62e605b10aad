#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

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
// Thread: the gateway thread. Memory: one map entry per nonce within the
// horizon (logons are bounded by the logon rate).
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

  // kFresh: first use, now recorded (on disk when open). kReused: this key
  // used this nonce within the horizon. kNotRecorded: the file write
  // failed; the nonce is not taken.
  Use TryUse(std::string_view api_key, std::string_view nonce,
             int64_t timestamp_ns);

  // Forgets nonces with timestamps before `horizon_ns`.
  void Expire(int64_t horizon_ns);

  std::size_t size() const { return nonces_.size(); }

 private:
  Status Rewrite();

  std::map<std::pair<std::string, std::string>, int64_t> nonces_;
  std::string path_;
  int fd_ = -1;
  std::size_t lines_ = 0;  // lines in the file
  bool broken_ = false;    // an append failed: rewrite before the next
};

}  // namespace cfx::gateway::pb
