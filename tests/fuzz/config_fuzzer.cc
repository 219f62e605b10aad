// libFuzzer target for the exchange server's configuration text
// (gateway/config/server_config.h): arbitrary bytes are parsed as a
// text-format cfx.config.v1.ExchangeConfig, defaulted and validated, as
// `exchanged --config` and `cfx config check` do. Checked, besides
// ASan/UBSan: an error is kInvalidArgument naming the file, and an accepted
// config passes the engine's own validation with one instrument row per
// engine instrument and one account row per engine account.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "exchange/core/engine_config.h"
#include "gateway/config/server_config.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using cfx::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  cfx::fuzz::SilenceProtobufLog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = cfx::gateway::ParseServerConfig(text, "fuzz.textproto");
  if (!config.has_value()) {
    Check(config.error().code() == cfx::StatusCode::kInvalidArgument);
    Check(config.error().message().rfind("fuzz.textproto:", 0) == 0);
    return 0;
  }
  const cfx::gateway::ServerConfig& c = config.value();
  Check(cfx::exchange::ValidateEngineConfig(c.engine).ok());
  Check(c.instruments.size() == c.engine.instruments.size());
  Check(c.accounts.size() == c.engine.accounts.size());
  return 0;
}
