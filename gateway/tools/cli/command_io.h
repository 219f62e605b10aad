#pragma once

#include <google/protobuf/message.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>

#include "exchange/core/status.h"
#include "gateway/tools/cli/exit_codes.h"

namespace cfx::gateway::cli {

// What every command of the cfx tool shares: its one error line and exit
// code, how it prints results to stdout, and the checks of its arguments.
//
// Thread: the command's. Output is flushed after each call, so stdout and
// stderr interleave in the order written.

// `s` with line breaks as spaces and without trailing spaces.
std::string OneLine(std::string s);

// Prints the one error line ("cfx: <message>") and returns `code`.
int Fail(int code, const std::string& message);

// A failed client call: a timeout exits 4, anything else 3.
int FailStatus(const Status& s, const std::string& prefix = "");

// Writes `text` to stdout and flushes it.
void Print(const std::string& text);
// `json` and a newline.
void PrintJson(const std::string& json);
// A protobuf message as one JSON object: field names as in the .proto, every
// field printed.
std::string ProtoJson(const google::protobuf::Message& m);

// `text` as a duration of at least 1ms (ParseDuration); the error names
// `flag`.
Result<std::chrono::milliseconds> ParsePositiveMillis(const std::string& text,
                                                      const std::string& flag);

// CLI11 reads unsigned options with strtoull(base 0), which takes "-1",
// "0x10" and octal "010". This check allows plain decimal digits only and
// drops leading zeros, so "010" is 10.
CLI::Validator DecimalDigits();

// A usage error for a date argument that is not YYYY-MM-DD, else kExitOk.
int CheckDate(const std::string& date, const std::string& what);

}  // namespace cfx::gateway::cli
