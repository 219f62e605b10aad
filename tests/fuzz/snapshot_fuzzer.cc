// libFuzzer target for engine snapshots (exchange/core/snapshot.cc,
// docs/journal.md "Snapshot"): arbitrary bytes are loaded into a fresh
// engine with Engine::LoadSnapshot, as recovery does, and into a fresh
// reference registry with Registry::Load (the registry's section of a
// snapshot, exchange/core/reference/registry_snapshot.cc). Checked, besides
// ASan/UBSan: errors are kDataLoss with a message, and a snapshot that loads
// saves to one that loads into another fresh engine with the same state hash
// and seq, and saves the same bytes again.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "exchange/core/engine.h"
#include "exchange/core/reference/registry.h"
#include "tests/fuzz/fuzz_market.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace ex = cfx::exchange;

using cfx::fuzz::Check;

const ex::EngineConfig& Config() { return ex::fuzz::FuzzMarketConfig(); }

std::unique_ptr<ex::Engine> Fresh() {
  auto e = ex::Engine::Create(Config());
  Check(e.has_value());
  return std::move(e).value();
}

void CheckDataLoss(const cfx::Status& st) {
  Check(st.code() == cfx::StatusCode::kDataLoss && !st.message().empty());
}

void LoadEngine(std::string_view bytes) {
  auto engine = Fresh();
  const cfx::Status st = engine->LoadSnapshot(bytes);
  if (!st.ok()) {
    CheckDataLoss(st);
    return;
  }
  const std::string saved = engine->SaveSnapshot();
  auto again = Fresh();
  Check(again->LoadSnapshot(saved).ok());
  Check(again->StateHash() == engine->StateHash());
  Check(again->last_seq() == engine->last_seq());
  Check(again->SaveSnapshot() == saved);
}

void LoadRegistry(std::string_view bytes) {
  ex::Registry registry(Config().reference);
  std::string_view in = bytes;
  const cfx::Status st = registry.Load(&in);
  if (!st.ok()) {
    CheckDataLoss(st);
    return;
  }
  Check(in.size() <= bytes.size());
  std::string saved;
  registry.Save(&saved);
  ex::Registry again(Config().reference);
  std::string_view view = saved;
  Check(again.Load(&view).ok() && view.empty());
  std::string resaved;
  again.Save(&resaved);
  Check(resaved == saved);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  LoadEngine(bytes);
  LoadRegistry(bytes);
  return 0;
}
