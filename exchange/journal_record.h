#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/core/command.h"
#include "exchange/core/status.h"

namespace cfx::exchange {

// Journal record framing (docs/journal.md):
//   u8 version | u8 kind | u16 reserved (0) | u32 payload length |
//   u32 CRC-32C of the payload | payload
// All integers little-endian. Keys are the big-endian seq.
inline constexpr uint8_t kRecordVersion = 1;
inline constexpr std::size_t kRecordHeaderSize = 12;
inline constexpr std::size_t kCommandPayloadSize = 64;

// kCommandsWithPayloads: a command record holding kReferenceData commands,
// whose variable-length payloads follow the commands (docs/journal.md).
enum class RecordKind : uint8_t {
  kCommand = 1,
  kSnapshot = 2,
  kCommandsWithPayloads = 3,
};

// 8-byte big-endian key, so RocksDB's bytewise order is seq order.
std::string SeqKey(Seq seq);
// Returns false unless `key` is exactly 8 bytes.
bool ParseSeqKey(std::string_view key, Seq* seq);

// A command record holds one or more consecutive commands (one sequencer
// batch) and is stored under the seq of its first command.

// Replaces `out` with the record of cmds[0, n); reuses its capacity.
// REQUIRES: n >= 1 and the seqs are consecutive.
void EncodeCommandRecords(const Command* cmds, std::size_t n, std::string* out);

// As above; payloads[i] is the payload of cmds[i], used for kReferenceData
// commands (ignored for others). Writes a kCommandsWithPayloads record when
// the batch holds a kReferenceData command, else the plain record.
// `payloads` may be null: no payloads.
void EncodeCommandRecords(const Command* cmds, std::size_t n,
                          const std::string_view* payloads, std::string* out);

// Appends the record of the single command `cmd` to `out`.
void EncodeCommandRecord(const Command& cmd, std::string* out);

// Writes the 8-byte big-endian key for `seq` into `out`.
void EncodeSeqKey(Seq seq, char (&out)[8]);

// Decodes a command record stored under `key_seq` into `out`. Returns
// kDataLoss describing what is wrong: short or long record, unknown version
// or kind, checksum mismatch, a payload that is not whole commands, or a
// seq that differs from key_seq + its position. Accepts both command record
// kinds; if `payloads` is not null it receives one string per command (the
// payload of a kReferenceData command, empty for others).
Status DecodeCommandRecords(Seq key_seq, std::string_view record,
                            std::vector<Command>* out,
                            std::vector<std::string>* payloads = nullptr);

// As DecodeCommandRecords, for a record that must hold exactly one command.
Status DecodeCommandRecord(Seq key_seq, std::string_view record, Command* cmd);

void EncodeSnapshotRecord(std::string_view snapshot, std::string* out);
// Returns the snapshot payload, or kDataLoss.
Status DecodeSnapshotRecord(std::string_view record,
                            std::string_view* snapshot);

}  // namespace cfx::exchange
