#include "tests/support/run_tool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cfx::testing {

ToolResult RunTool(const std::string& command, const std::string& stderr_file) {
  ToolResult r;
  const std::string cmd = command + " 2>" + stderr_file;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
    r.out.append(buf, n);
  }
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(stderr_file, std::ios::binary);
  std::stringstream ss;
  ss << err.rdbuf();
  r.err = ss.str();
  return r;
}

ToolResult RunCfxAs(const std::string& tool, uint16_t port,
                    const std::string& user, const std::string& args,
                    const std::string& stderr_file) {
  return RunTool(std::string(kWithoutCfxEnv) + tool + " --port " +
                     std::to_string(port) + " --api-key " + user + " " +
                     args + " </dev/null",
                 stderr_file);
}

void ExpectCfxError(const ToolResult& r, int code, const std::string& reason) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("cfx: ", 0), 0u) << r.err;
  EXPECT_TRUE(Contains(r.err, reason)) << r.err;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace cfx::testing
