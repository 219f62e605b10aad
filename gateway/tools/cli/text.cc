#include "gateway/tools/cli/text.h"

#include <google/protobuf/descriptor.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "exchange/clock.h"
#include "exchange/text_format.h"

namespace cfx::gateway::cli {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// "EXEC_TYPE_" for "ExecType".
std::string EnumPrefix(std::string_view type_name) {
  std::string out;
  for (std::size_t i = 0; i < type_name.size(); ++i) {
    const char c = type_name[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0) out += '_';
      out += c;
    } else if (c >= 'a' && c <= 'z') {
      out += static_cast<char>(c - 'a' + 'A');
    } else {
      out += c;
    }
  }
  return out + "_";
}

}  // namespace

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  const auto invalid = [&] {
    return InvalidArgumentError("invalid duration \"" +
                                std::string(text.substr(0, 40)) +
                                "\": expected e.g. 90s, 15m, 6h, 2d or 1h30m");
  };
  if (text.empty()) return invalid();
  int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    int64_t n = 0;
    const std::size_t start = i;
    for (; i < text.size() && IsDigit(text[i]); ++i) {
      if (__builtin_mul_overflow(n, int64_t{10}, &n) ||
          __builtin_add_overflow(n, int64_t{text[i] - '0'}, &n)) {
        return invalid();
      }
    }
    if (i == start) return invalid();
    int64_t unit_ns = 0;
    if (text.substr(i, 2) == "ms") {
      unit_ns = 1'000'000;
      i += 2;
    } else if (i < text.size()) {
      switch (text[i]) {
        case 's':
          unit_ns = 1'000'000'000;
          break;
        case 'm':
          unit_ns = int64_t{60} * 1'000'000'000;
          break;
        case 'h':
          unit_ns = int64_t{3600} * 1'000'000'000;
          break;
        case 'd':
          unit_ns = int64_t{86400} * 1'000'000'000;
          break;
        default:
          return invalid();
      }
      ++i;
    } else {
      return invalid();  // a number without a unit
    }
    int64_t part = 0;
    if (__builtin_mul_overflow(n, unit_ns, &part) ||
        __builtin_add_overflow(total, part, &total)) {
      return invalid();
    }
  }
  return std::chrono::nanoseconds(total);
}

std::string ShortEnumName(const google::protobuf::EnumDescriptor* type,
                          int value) {
  const google::protobuf::EnumValueDescriptor* v =
      type != nullptr ? type->FindValueByNumber(value) : nullptr;
  if (v == nullptr) return std::to_string(value);
  const std::string prefix = EnumPrefix(type->name());
  const std::string& name = v->name();
  if (name.size() > prefix.size() &&
      name.compare(0, prefix.size(), prefix) == 0) {
    return name.substr(prefix.size());
  }
  return name;
}

std::string FormatTime(int64_t ns) {
  return exchange::FormatUtcTimestamp(exchange::Timestamp{ns});
}

std::string JsonString(std::string_view s) { return exchange::JsonString(s); }

void JsonObject::Key(std::string_view key) {
  if (body_.size() > 1) body_ += ',';
  body_ += JsonString(key);
  body_ += ':';
}

JsonObject& JsonObject::Str(std::string_view key, std::string_view value) {
  Key(key);
  body_ += JsonString(value);
  return *this;
}

JsonObject& JsonObject::Int(std::string_view key, int64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Uint(std::string_view key, uint64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::Bool(std::string_view key, bool value) {
  Key(key);
  body_ += value ? "true" : "false";
  return *this;
}

JsonObject& JsonObject::Raw(std::string_view key, std::string_view json) {
  Key(key);
  body_ += json;
  return *this;
}

}  // namespace cfx::gateway::cli
