#pragma once

#include <google/protobuf/stubs/logging.h>

#include <string>

namespace cfx::fuzz {

// A broken invariant: crash, so that libFuzzer keeps the input.
inline void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// Protobuf logs every parse failure (invalid UTF-8 in a string field, a
// text-format syntax error); a fuzzer produces one on most runs.
inline void SilenceProtobufLog() {
  google::protobuf::SetLogHandler(
      [](google::protobuf::LogLevel, const char*, int, const std::string&) {});
}

}  // namespace cfx::fuzz
