#pragma once

// Starting a FixTestClient from a GoogleTest test: its store directory
// made, the session started, a failure reported with QuickFIX's reason.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "tests/gateway/fix/fix_test_client.h"

namespace cfx::gateway::fix_test {

// A started client for `o` (connecting and logging on, not waited for), or
// nullptr after ADD_FAILURE() when QuickFIX refuses the settings.
inline std::unique_ptr<FixTestClient> StartFixTestClient(
    const FixClientOptions& o) {
  std::error_code ec;
  std::filesystem::create_directories(o.store_dir, ec);
  auto c = std::make_unique<FixTestClient>(o);
  std::string error;
  if (!c->Start(&error)) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  return c;
}

}  // namespace cfx::gateway::fix_test
