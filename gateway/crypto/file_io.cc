#include "gateway/crypto/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace cfx::gateway::crypto {

namespace {

Status ErrnoError(const std::string& path, int err) {
  std::string m = path + ": " + std::strerror(err);
  if (err == ENOENT) return NotFoundError(std::move(m));
  if (err == EEXIST) return Status(StatusCode::kAlreadyExists, std::move(m));
  return InvalidArgumentError(std::move(m));
}

// Writes all of `data` to `fd`; returns 0 or an errno value.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

Result<std::string> ReadSmallFile(const std::string& path,
                                  std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError(path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgumentError(path + ": not a regular file");
  }
  std::string out;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoError(path, err);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {
      ::close(fd);
      return InvalidArgumentError(path + ": larger than " +
                                  std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return out;
}

Status WriteNewFile(const std::string& path, std::string_view data,
                    unsigned mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                        static_cast<mode_t>(mode));
  if (fd < 0) return ErrnoError(path, errno);
  int err = 0;
  // open() applies the umask, which may only narrow `mode`; set it exactly.
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) err = errno;
  if (err == 0) err = WriteAll(fd, data);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path.c_str());
    return ErrnoError(path, err);
  }
  return Status::Ok();
}

Status WriteFile(const std::string& path, std::string_view data) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError(path, errno);
  int err = WriteAll(fd, data);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return ErrnoError(path, err);
  return Status::Ok();
}

}  // namespace cfx::gateway::crypto
