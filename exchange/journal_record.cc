#include "exchange/journal_record.h"

#include <type_traits>
#include <vector>

#include "exchange/core/byte_codec.h"
#include "exchange/crc32c.h"

namespace cfx::exchange {
namespace {

void PutHeader(RecordKind kind, std::string_view payload, std::string* out) {
  ByteWriter w(out);
  w.Put(kRecordVersion);
  w.Put(static_cast<uint8_t>(kind));
  w.Put(uint16_t{0});
  w.Put(static_cast<uint32_t>(payload.size()));
  w.Put(Crc32c(payload.data(), payload.size()));
}

Status CheckHeader(RecordKind kind, std::string_view record,
                   std::string_view* payload, RecordKind* found = nullptr) {
  if (record.size() < kRecordHeaderSize) {
    return DataLossError("truncated record: " + std::to_string(record.size()) +
                         " bytes, header needs " +
                         std::to_string(kRecordHeaderSize));
  }
  ByteReader r(record);
  const auto version = r.Get<uint8_t>();
  const auto k = r.Get<uint8_t>();
  const auto reserved = r.Get<uint16_t>();
  const auto length = r.Get<uint32_t>();
  const auto crc = r.Get<uint32_t>();
  if (version != kRecordVersion) {
    return DataLossError("unsupported record version " +
                         std::to_string(version));
  }
  // A command record may also be one with reference-data payloads.
  const bool with_payloads =
      kind == RecordKind::kCommand &&
      k == static_cast<uint8_t>(RecordKind::kCommandsWithPayloads);
  if (found != nullptr) *found = static_cast<RecordKind>(k);
  if (k != static_cast<uint8_t>(kind) && !with_payloads) {
    return DataLossError("unexpected record kind " + std::to_string(k));
  }
  if (reserved != 0) {
    return DataLossError("nonzero reserved header field " +
                         std::to_string(reserved));
  }
  if (record.size() - kRecordHeaderSize != length) {
    return DataLossError((record.size() - kRecordHeaderSize < length
                              ? "truncated record: payload "
                              : "oversized record: payload ") +
                         std::to_string(record.size() - kRecordHeaderSize) +
                         " bytes, header says " + std::to_string(length));
  }
  *payload = record.substr(kRecordHeaderSize);
  if (Crc32c(payload->data(), payload->size()) != crc) {
    return DataLossError("checksum mismatch");
  }
  return Status::Ok();
}

}  // namespace

std::string SeqKey(Seq seq) {
  std::string k(8, '\0');
  for (int i = 0; i < 8; ++i) {
    k[static_cast<std::size_t>(i)] =
        static_cast<char>((seq.value >> (8 * (7 - i))) & 0xffu);
  }
  return k;
}

bool ParseSeqKey(std::string_view key, Seq* seq) {
  if (key.size() != 8) return false;
  uint64_t v = 0;
  for (char c : key) v = (v << 8) | static_cast<uint8_t>(c);
  *seq = Seq{v};
  return true;
}

void EncodeSeqKey(Seq seq, char (&out)[8]) {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((seq.value >> (8 * (7 - i))) & 0xffu);
  }
}

namespace {

// Writes the 64-byte payload of `c` at `p`.
void PutCommand(const Command& c, char* p) {
  auto put = [&p](auto v) {
    using T = decltype(v);
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      *p++ = static_cast<char>(u & 0xffu);
      if constexpr (sizeof(T) > 1) u = static_cast<U>(u >> 8);
    }
  };
  put(c.seq.value);
  put(c.ts.nanos);
  put(static_cast<uint8_t>(c.type));
  put(static_cast<uint8_t>(c.side));
  put(static_cast<uint8_t>(c.order_type));
  put(static_cast<uint8_t>(c.tif));
  put(static_cast<uint8_t>(c.stp));
  put(c.flags);
  put(static_cast<uint8_t>(c.state));
  put(c.reserved);
  put(c.account.value);
  put(c.instrument.value);
  put(c.client_order_id.value);
  put(c.target);
  put(c.price.units);
  put(c.quantity.lots);
}

Command GetCommand(std::string_view payload) {
  ByteReader r(payload);
  Command d;
  d.seq = Seq{r.Get<uint64_t>()};
  d.ts = Timestamp{r.Get<int64_t>()};
  d.type = static_cast<CommandType>(r.Get<uint8_t>());
  d.side = static_cast<Side>(r.Get<uint8_t>());
  d.order_type = static_cast<OrderType>(r.Get<uint8_t>());
  d.tif = static_cast<TimeInForce>(r.Get<uint8_t>());
  d.stp = static_cast<StpMode>(r.Get<uint8_t>());
  d.flags = r.Get<uint8_t>();
  d.state = static_cast<InstrumentState>(r.Get<uint8_t>());
  d.reserved = r.Get<uint8_t>();
  d.account = AccountId{r.Get<uint32_t>()};
  d.instrument = InstrumentId{r.Get<uint32_t>()};
  d.client_order_id = ClientOrderId{r.Get<uint64_t>()};
  d.target = r.Get<uint64_t>();
  d.price = Price{r.Get<int64_t>()};
  d.quantity = Quantity{r.Get<int64_t>()};
  return d;
}

// The body of a kCommandsWithPayloads record: u32 n, the n commands, then
// for each kReferenceData command among them, in order, u32 length and the
// payload bytes.
Status DecodeWithPayloads(Seq key_seq, std::string_view body,
                          std::vector<Command>* out,
                          std::vector<std::string>* payloads) {
  ByteReader r(body);
  const uint32_t n = r.Get<uint32_t>();
  if (!r.ok() || n == 0 || (body.size() - 4) / kCommandPayloadSize < n) {
    return DataLossError("record with payloads: bad command count " +
                         std::to_string(n) + " for " +
                         std::to_string(body.size()) + " bytes");
  }
  std::vector<Command> cmds;
  std::vector<std::string> found(n);
  std::size_t pos = 4 + std::size_t{n} * kCommandPayloadSize;
  for (uint32_t i = 0; i < n; ++i) {
    const Command d = GetCommand(
        body.substr(4 + i * kCommandPayloadSize, kCommandPayloadSize));
    if (d.seq.value != key_seq.value + i) {
      return DataLossError("record under key " + std::to_string(key_seq.value) +
                           " holds seq " + std::to_string(d.seq.value) +
                           " at position " + std::to_string(i));
    }
    cmds.push_back(d);
    if (d.type != CommandType::kReferenceData) continue;
    if (body.size() - pos < 4) {
      return DataLossError("record with payloads: seq " +
                           std::to_string(d.seq.value) +
                           ": truncated payload length");
    }
    ByteReader lr(body.substr(pos, 4));
    const uint32_t len = lr.Get<uint32_t>();
    pos += 4;
    if (body.size() - pos < len) {
      return DataLossError("record with payloads: seq " +
                           std::to_string(d.seq.value) + ": payload of " +
                           std::to_string(len) + " bytes is truncated");
    }
    found[i].assign(body.substr(pos, len));
    pos += len;
  }
  if (pos != body.size()) {
    return DataLossError("record with payloads: " +
                         std::to_string(body.size() - pos) + " trailing bytes");
  }
  *out = std::move(cmds);
  if (payloads != nullptr) *payloads = std::move(found);
  return Status::Ok();
}

}  // namespace

void EncodeCommandRecords(const Command* cmds, std::size_t n,
                          std::string* out) {
  out->resize(kRecordHeaderSize + n * kCommandPayloadSize);
  char* base = out->data();
  for (std::size_t i = 0; i < n; ++i) {
    PutCommand(cmds[i], base + kRecordHeaderSize + i * kCommandPayloadSize);
  }
  // The header is 12 bytes: write it without a temporary string.
  const uint32_t length = static_cast<uint32_t>(n * kCommandPayloadSize);
  const uint32_t crc = Crc32c(base + kRecordHeaderSize, length);
  base[0] = static_cast<char>(kRecordVersion);
  base[1] = static_cast<char>(RecordKind::kCommand);
  base[2] = 0;
  base[3] = 0;
  for (int i = 0; i < 4; ++i) {
    base[4 + i] = static_cast<char>((length >> (8 * i)) & 0xffu);
    base[8 + i] = static_cast<char>((crc >> (8 * i)) & 0xffu);
  }
}

void EncodeCommandRecords(const Command* cmds, std::size_t n,
                          const std::string_view* payloads, std::string* out) {
  bool any = false;
  if (payloads != nullptr) {
    for (std::size_t i = 0; i < n && !any; ++i) {
      any = cmds[i].type == CommandType::kReferenceData;
    }
  }
  if (!any) return EncodeCommandRecords(cmds, n, out);
  std::string body;
  ByteWriter w(&body);
  w.Put(static_cast<uint32_t>(n));
  body.resize(4 + n * kCommandPayloadSize);
  for (std::size_t i = 0; i < n; ++i) {
    PutCommand(cmds[i], body.data() + 4 + i * kCommandPayloadSize);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (cmds[i].type != CommandType::kReferenceData) continue;
    w.Put(static_cast<uint32_t>(payloads[i].size()));
    body.append(payloads[i]);
  }
  out->clear();
  PutHeader(RecordKind::kCommandsWithPayloads, body, out);
  out->append(body);
}

void EncodeCommandRecord(const Command& c, std::string* out) {
  std::string record;
  EncodeCommandRecords(&c, 1, &record);
  out->append(record);
}

Status DecodeCommandRecords(Seq key_seq, std::string_view record,
                            std::vector<Command>* out,
                            std::vector<std::string>* payloads) {
  std::string_view payload;
  RecordKind kind = RecordKind::kCommand;
  CFX_RETURN_IF_ERROR(
      CheckHeader(RecordKind::kCommand, record, &payload, &kind));
  if (kind == RecordKind::kCommandsWithPayloads) {
    return DecodeWithPayloads(key_seq, payload, out, payloads);
  }
  if (payload.empty() || payload.size() % kCommandPayloadSize != 0) {
    return DataLossError("command payload is " +
                         std::to_string(payload.size()) +
                         " bytes, not a positive multiple of " +
                         std::to_string(kCommandPayloadSize));
  }
  const std::size_t n = payload.size() / kCommandPayloadSize;
  out->clear();
  for (std::size_t i = 0; i < n; ++i) {
    const Command d = GetCommand(
        payload.substr(i * kCommandPayloadSize, kCommandPayloadSize));
    if (d.seq.value != key_seq.value + i) {
      return DataLossError("record under key " + std::to_string(key_seq.value) +
                           " holds seq " + std::to_string(d.seq.value) +
                           " at position " + std::to_string(i));
    }
    out->push_back(d);
  }
  if (payloads != nullptr) {
    payloads->clear();
    payloads->resize(n);
  }
  return Status::Ok();
}

Status DecodeCommandRecord(Seq key_seq, std::string_view record, Command* c) {
  std::vector<Command> cmds;
  CFX_RETURN_IF_ERROR(DecodeCommandRecords(key_seq, record, &cmds));
  if (cmds.size() != 1) {
    return DataLossError("record holds " + std::to_string(cmds.size()) +
                         " commands, expected 1");
  }
  *c = cmds[0];
  return Status::Ok();
}

void EncodeSnapshotRecord(std::string_view snapshot, std::string* out) {
  PutHeader(RecordKind::kSnapshot, snapshot, out);
  out->append(snapshot);
}

Status DecodeSnapshotRecord(std::string_view record,
                            std::string_view* snapshot) {
  return CheckHeader(RecordKind::kSnapshot, record, snapshot);
}

}  // namespace cfx::exchange
