#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "exchange/core/status.h"

namespace cfx::bench {

// A fresh directory for one benchmark run, removed with everything in it
// when the object is destroyed. Benchmarks keep their own copy of this
// rather than use tests/support/temp_dir.h: a tool does not depend on test
// code.
class ScratchDir {
 public:
  // Creates `<parent>/<prefix>-XXXXXX` (mkdtemp's template); parent "" =
  // $TMPDIR, else /tmp. Returns kInternal when it cannot be created.
  static Result<std::unique_ptr<ScratchDir>> Create(const std::string& parent,
                                                    const std::string& prefix) {
    const char* tmp = std::getenv("TMPDIR");
    const std::string base =
        !parent.empty() ? parent : (tmp != nullptr ? tmp : "/tmp");
    std::string dir = base + "/" + prefix + "-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) {
      return Status(StatusCode::kInternal,
                    "cannot create a directory under " + base);
    }
    return std::unique_ptr<ScratchDir>(new ScratchDir(std::move(dir)));
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace cfx::bench
