#include "gateway/tools/cli/command_io.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "gateway/config/instrument_table.h"
#include "gateway/tools/cli/text.h"

namespace cfx::gateway::cli {

using std::chrono::milliseconds;

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

int Fail(int code, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "cfx: %s\n", OneLine(message).c_str());
  return code;
}

int FailStatus(const Status& s, const std::string& prefix) {
  return Fail(s.code() == StatusCode::kResourceExhausted ? kExitTimeout
                                                         : kExitConnection,
              prefix + s.message());
}

void Print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void PrintJson(const std::string& json) { Print(json + "\n"); }

std::string ProtoJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  o.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

Result<milliseconds> ParsePositiveMillis(const std::string& text,
                                         const std::string& flag) {
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  if (!d.has_value()) {
    return InvalidArgumentError(flag + ": " + d.error().message());
  }
  const auto ms = std::chrono::duration_cast<milliseconds>(d.value());
  if (ms.count() <= 0) {
    return InvalidArgumentError(flag + ": must be at least 1ms");
  }
  return ms;
}

CLI::Validator DecimalDigits() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty() ||
            s.find_first_not_of("0123456789") != std::string::npos) {
          return "expected a whole decimal number, not \"" + s + "\"";
        }
        s.erase(0, std::min(s.find_first_not_of('0'), s.size() - 1));
        return std::string();
      },
      "", "DIGITS");
}

int CheckDate(const std::string& date, const std::string& what) {
  if (date.empty() || ParseDay(date).has_value()) return kExitOk;
  return Fail(kExitUsage,
              what + ": \"" + OneLine(date) + "\" is not a date (YYYY-MM-DD)");
}

}  // namespace cfx::gateway::cli
