#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "exchange/core/status.h"

namespace cfx::gateway::crypto {

// Small-file helpers for key, measurement and signed-attestation files.
// Every error message starts with the path: "m.json: No such file or
// directory".

// The whole content of the file at `path`; kInvalidArgument if it is larger
// than `max_bytes` or not a regular file, kNotFound if it does not exist.
Result<std::string> ReadSmallFile(const std::string& path,
                                  std::size_t max_bytes);

// Creates `path` with permission bits `mode` (exactly those: the umask does
// not widen them), writes `data` and syncs it. kAlreadyExists if `path`
// exists; never replaces a file. On a failed write the file is removed.
Status WriteNewFile(const std::string& path, std::string_view data,
                    unsigned mode);

// Creates or truncates `path` (mode 0644 less the umask) and writes `data`.
Status WriteFile(const std::string& path, std::string_view data);

}  // namespace cfx::gateway::crypto
