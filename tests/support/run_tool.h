#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cfx::testing {

// What a tool run as a child process left behind.
struct ToolResult {
  int exit_code = -1;  // -1: the shell could not start, or a signal ended it
  std::string out;
  std::string err;
};

// Unsets the cfx tool's CFX_* variables for the command that follows, so a
// test does not pick up the environment it runs in.
inline constexpr char kWithoutCfxEnv[] =
    "env -u CFX_HOST -u CFX_PORT -u CFX_API_KEY -u CFX_API_SECRET "
    "-u CFX_API_KEY_FILE -u CFX_TLS -u CFX_CA ";

// Runs `command` with /bin/sh and waits for it: stdout is read from a pipe,
// stderr goes to `stderr_file` (overwritten) and is read back once the
// command has ended, so the two stay apart.
ToolResult RunTool(const std::string& command, const std::string& stderr_file);

// Runs `tool --port <port> --api-key <user> <args>` (a demo config user,
// signing with its published Ed25519 key) with no CFX_* variables and stdin
// /dev/null, as RunTool().
ToolResult RunCfxAs(const std::string& tool, uint16_t port,
                    const std::string& user, const std::string& args,
                    const std::string& stderr_file);

// Expects exit `code` and one stderr line that starts "cfx: " and holds
// `reason`: how the cfx tool reports an error (docs/cli.md).
void ExpectCfxError(const ToolResult& r, int code, const std::string& reason);

// True when `needle` occurs in `haystack`.
bool Contains(const std::string& haystack, const std::string& needle);

// `text` split at '\n', without the newlines.
std::vector<std::string> Lines(const std::string& text);

}  // namespace cfx::testing
