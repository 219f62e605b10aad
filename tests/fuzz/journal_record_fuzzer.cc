// libFuzzer target for journal records (exchange/journal_record.h,
// docs/journal.md): arbitrary bytes are decoded as a command record and as a
// snapshot record, and the commands of a record that decodes are replayed
// into a fresh engine as recovery does (exchange/recovery.cc: Engine::Apply
// with each command's payload). The bytes are also tried behind a header
// with the right length and CRC-32C, so that the fuzzer reaches the command
// decoding without finding the checksum. Checked, besides ASan/UBSan:
// errors are kDataLoss with a message, a decoded record holds consecutive
// seqs from its key and re-encodes to a record that decodes to the same
// commands, and replay never moves the engine backwards.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/crc32c.h"
#include "exchange/journal_record.h"
#include "tests/fuzz/fuzz_market.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace ex = cfx::exchange;

using cfx::fuzz::Check;

void DiscardEvents(void*, const ex::Event*, std::size_t) {}

void Replay(const std::vector<ex::Command>& cmds,
            const std::vector<std::string>& payloads) {
  auto engine = ex::Engine::Create(ex::fuzz::FuzzMarketConfig());
  Check(engine.has_value());
  ex::Event buffer[64];
  ex::EventSink sink(buffer, 64, &DiscardEvents, nullptr);
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    const ex::Seq before = engine.value()->last_seq();
    engine.value()->Apply(cmds[i], payloads[i], sink);
    Check(engine.value()->last_seq() >= before);
  }
  sink.Flush();
  (void)engine.value()->StateHash();
}

bool SameCommands(const std::vector<ex::Command>& a,
                  const std::vector<ex::Command>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(ex::Command)) != 0) return false;
  }
  return true;
}

void DecodeCommands(ex::Seq key, std::string_view record) {
  std::vector<ex::Command> cmds;
  std::vector<std::string> payloads;
  const cfx::Status st = ex::DecodeCommandRecords(key, record, &cmds, &payloads);
  if (!st.ok()) {
    Check(st.code() == cfx::StatusCode::kDataLoss && !st.message().empty());
    return;
  }
  Check(!cmds.empty() && payloads.size() == cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    Check(cmds[i].seq.value == key.value + i);
  }
  std::vector<std::string_view> views(payloads.begin(), payloads.end());
  std::string again;
  ex::EncodeCommandRecords(cmds.data(), cmds.size(), views.data(), &again);
  std::vector<ex::Command> cmds2;
  std::vector<std::string> payloads2;
  Check(ex::DecodeCommandRecords(key, again, &cmds2, &payloads2).ok());
  Check(SameCommands(cmds, cmds2) && payloads == payloads2);
  Replay(cmds, payloads);
}

void DecodeSnapshot(std::string_view record) {
  std::string_view snapshot;
  const cfx::Status st = ex::DecodeSnapshotRecord(record, &snapshot);
  if (!st.ok()) {
    Check(st.code() == cfx::StatusCode::kDataLoss && !st.message().empty());
  }
}

// `header` (version, kind, reserved) + the length and CRC-32C of `payload`.
std::string WithHeader(const uint8_t* header, std::string_view payload) {
  std::string out(ex::kRecordHeaderSize, '\0');
  std::memcpy(out.data(), header, 4);
  const auto n = static_cast<uint32_t>(payload.size());
  const uint32_t crc = ex::Crc32c(payload.data(), payload.size());
  for (int i = 0; i < 4; ++i) {
    out[static_cast<std::size_t>(4 + i)] = static_cast<char>(n >> (8 * i));
    out[static_cast<std::size_t>(8 + i)] = static_cast<char>(crc >> (8 * i));
  }
  out.append(payload);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  // The first byte is the key's seq (small, so that replay accepts it).
  if (size < 5) return 0;
  const ex::Seq key{1u + data[0]};
  const std::string_view record(reinterpret_cast<const char*>(data + 1),
                                size - 1);
  DecodeCommands(key, record);
  DecodeSnapshot(record);
  // Bytes 1..4 as the header's first four, the rest as the payload.
  const std::string framed = WithHeader(data + 1, record.substr(4));
  DecodeCommands(key, framed);
  DecodeSnapshot(framed);
  return 0;
}
