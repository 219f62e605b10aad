#pragma once

#include <google/protobuf/generated_enum_reflection.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/status.h"

namespace cfx::gateway::cli {

// Parses a duration: one or more <digits><unit> groups, unit one of ms, s,
// m, h, d ("90s", "15m", "6h", "2d", "1h30m", "250ms"). Returns
// kInvalidArgument for anything else (signs, decimals, spaces, a missing or
// unknown unit) and for totals above INT64_MAX nanoseconds.
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);

// "TRADE" for EXEC_TYPE_TRADE: the value's name without the prefix its enum
// type's name gives (ExecType -> "EXEC_TYPE_"); the number for a value the
// enum does not know.
std::string ShortEnumName(const google::protobuf::EnumDescriptor* type,
                          int value);
template <typename E>
std::string EnumName(E value) {
  return ShortEnumName(google::protobuf::GetEnumDescriptor<E>(),
                       static_cast<int>(value));
}

// "2026-12-01T00:00:00.000000000Z" (UTC) for nanoseconds since the epoch.
std::string FormatTime(int64_t ns);

// `s` as a JSON string literal, quotes included.
std::string JsonString(std::string_view s);

// Builds one JSON object, keys in the order added.
class JsonObject {
 public:
  JsonObject& Str(std::string_view key, std::string_view value);
  JsonObject& Int(std::string_view key, int64_t value);
  JsonObject& Uint(std::string_view key, uint64_t value);
  JsonObject& Bool(std::string_view key, bool value);
  // `json` must already be valid JSON (an array or an object).
  JsonObject& Raw(std::string_view key, std::string_view json);
  // "{...}".
  std::string str() const { return body_ + "}"; }

 private:
  void Key(std::string_view key);

  std::string body_ = "{";
};

}  // namespace cfx::gateway::cli
