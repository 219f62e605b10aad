#include "gateway/pb/logon_nonces.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace cfx::gateway::pb {

namespace {

// Rewrites only when the file has this many lines more than live nonces.
constexpr std::size_t kStaleLinesBeforeRewrite = 1'024;
// Expire() scans the map at most once per this much horizon.
constexpr int64_t kExpireEveryNs = 1'000'000'000;

Status IoError(const std::string& what, const std::string& path) {
  return Status(StatusCode::kUnavailable,
                "logon nonces: " + what + " " + path + ": " +
                    std::strerror(errno));
}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string Line(int64_t ts, std::string_view key, std::string_view nonce) {
  std::string s = std::to_string(ts);
  s += ' ';
  s.append(key);
  s += ' ';
  s.append(nonce);
  s += '\n';
  return s;
}

}  // namespace

LogonNonces::~LogonNonces() {
  if (fd_ >= 0) ::close(fd_);
}

Status LogonNonces::Open(const std::string& path, int64_t horizon_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  path_ = path;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      // A torn last line (a crash mid-write) or any malformed line is
      // skipped: its logon was never acknowledged.
      std::istringstream fields(line);
      int64_t ts = 0;
      std::string key;
      std::string nonce;
      if (!(fields >> ts >> key >> nonce) || ts < horizon_ns) continue;
      nonces_[{key, nonce}] = ts;
    }
  }
  return Rewrite();
}

Status LogonNonces::Rewrite() {
  const std::string tmp = path_ + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        0600);
  if (fd < 0) return IoError("cannot create", tmp);
  std::string all;
  for (const auto& [k, ts] : nonces_) all += Line(ts, k.first, k.second);
  const bool ok = ::fchmod(fd, 0600) == 0 && WriteAll(fd, all) &&
                  ::fdatasync(fd) == 0;
  ::close(fd);
  if (!ok) return IoError("cannot write", tmp);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    return IoError("cannot rename to", path_);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) return IoError("cannot open", path_);
  lines_ = nonces_.size();
  broken_ = false;
  return Status();
}

LogonNonces::Use LogonNonces::Record(std::string_view api_key,
                                     std::string_view nonce,
                                     int64_t timestamp_ns, uint64_t* ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, fresh] = nonces_.emplace(
      std::make_pair(std::string(api_key), std::string(nonce)), timestamp_ns);
  if (!fresh) return Use::kReused;
  if (path_.empty()) {
    *ticket = ++written_;
    return Use::kFresh;
  }
  if (broken_) {
    // A failed append may have left half a line: a fresh file, with this
    // nonce in it (synced).
    if (Rewrite().ok()) {
      *ticket = ++written_;
      return Use::kFresh;
    }
  } else if (WriteAll(fd_, Line(timestamp_ns, api_key, nonce))) {
    ++lines_;
    *ticket = ++written_;
    unsynced_.push_back(it->first);
    return Use::kFresh;
  }
  broken_ = true;
  nonces_.erase(it);
  return Use::kNotRecorded;
}

bool LogonNonces::Sync(uint64_t* through) {
  std::lock_guard<std::mutex> lock(mu_);
  *through = written_;
  if (unsynced_.empty()) return true;
  if (::fdatasync(fd_) == 0) {
    unsynced_.clear();
    return true;
  }
  // Not durable, so not taken: forgotten, and the file rewritten before the
  // next line.
  for (const auto& k : unsynced_) nonces_.erase(k);
  unsynced_.clear();
  broken_ = true;
  return false;
}

LogonNonces::Use LogonNonces::TryUse(std::string_view api_key,
                                     std::string_view nonce,
                                     int64_t timestamp_ns) {
  uint64_t ticket = 0;
  const Use use = Record(api_key, nonce, timestamp_ns, &ticket);
  if (use != Use::kFresh) return use;
  uint64_t through = 0;
  return Sync(&through) ? Use::kFresh : Use::kNotRecorded;
}

void LogonNonces::Expire(int64_t horizon_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!broken_ && scanned_ && horizon_ns >= scanned_horizon_ns_ &&
      horizon_ns - scanned_horizon_ns_ < kExpireEveryNs) {
    return;
  }
  scanned_ = true;
  scanned_horizon_ns_ = horizon_ns;
  for (auto it = nonces_.begin(); it != nonces_.end();) {
    it = it->second < horizon_ns ? nonces_.erase(it) : std::next(it);
  }
  if (!path_.empty() &&
      (broken_ || lines_ > nonces_.size() + kStaleLinesBeforeRewrite)) {
    Rewrite().ok();  // on failure the longer file stays; it is still right
  }
}

std::size_t LogonNonces::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nonces_.size();
}

}  // namespace cfx::gateway::pb
