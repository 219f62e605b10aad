#include "exchange/journal_record.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/crc32c.h"
#include "tests/support/command_assertions.h"

namespace cfx::exchange {
namespace {

// Every field set to a distinct, non-zero value whose bytes show where it
// lands in the record.
Command EveryFieldSet() {
  Command c;
  c.seq = Seq{0x0102030405060708};
  c.ts = Timestamp{0x1112131415161718};
  c.type = CommandType::kNewOrder;
  c.side = Side::kSell;
  c.order_type = OrderType::kLimit;
  c.tif = TimeInForce::kGtd;
  c.stp = StpMode::kDecrement;
  c.flags = kFlagPostOnly;
  c.state = InstrumentState::kHalted;
  c.reserved = 0x7f;
  c.account = AccountId{0x21222324};
  c.instrument = InstrumentId{0x31323334};
  c.client_order_id = ClientOrderId{0x4142434445464748};
  c.target = 0x5152535455565758;
  c.price = Price{0x6162636465666768};
  c.quantity = Quantity{0x7172737475767778};
  return c;
}

using testing::ExpectSameCommand;

std::string Encode(const Command& c) {
  std::string record;
  EncodeCommandRecord(c, &record);
  return record;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : bytes) {
    const auto b = static_cast<uint8_t>(ch);
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

TEST(JournalRecord, Crc32cIsCastagnoli) {
  // The standard CRC-32C check value (RFC 3720, leveldb crc32c_test).
  EXPECT_EQ(Crc32c("123456789", 9), 0xe3069283u);
}

TEST(JournalRecord, SeqKeyIsEightBytesBigEndian) {
  EXPECT_EQ(Hex(SeqKey(Seq{0x0102030405060708})), "0102030405060708");
  EXPECT_EQ(Hex(SeqKey(Seq{1})), "0000000000000001");
  // Bytewise order is seq order, across byte boundaries.
  EXPECT_LT(SeqKey(Seq{255}), SeqKey(Seq{256}));
  EXPECT_LT(SeqKey(Seq{0xffffffff}), SeqKey(Seq{0x100000000}));
  Seq back;
  ASSERT_TRUE(ParseSeqKey(SeqKey(Seq{0xfedcba9876543210}), &back));
  EXPECT_EQ(back, Seq{0xfedcba9876543210});
}

TEST(JournalRecord, ParseSeqKeyRejectsOtherLengths) {
  Seq s;
  EXPECT_FALSE(ParseSeqKey("", &s));
  EXPECT_FALSE(ParseSeqKey(std::string(7, '\0'), &s));
  EXPECT_FALSE(ParseSeqKey(std::string(9, '\0'), &s));
}

TEST(JournalRecord, RoundTripsEveryField) {
  const Command c = EveryFieldSet();
  const std::string record = Encode(c);
  ASSERT_EQ(record.size(), kRecordHeaderSize + kCommandPayloadSize);
  Command back;
  const Status st = DecodeCommandRecord(c.seq, record, &back);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ExpectSameCommand(c, back);
}

TEST(JournalRecord, RoundTripsExtremeValues) {
  Command c;
  c.seq = Seq{UINT64_MAX};
  c.ts = Timestamp{INT64_MIN};
  c.type = static_cast<CommandType>(0xff);
  c.side = static_cast<Side>(0xff);
  c.order_type = static_cast<OrderType>(0xff);
  c.tif = static_cast<TimeInForce>(0xff);
  c.stp = static_cast<StpMode>(0xff);
  c.flags = 0xff;
  c.state = static_cast<InstrumentState>(0xff);
  c.reserved = 0xff;
  c.account = AccountId{UINT32_MAX};
  c.instrument = InstrumentId{UINT32_MAX};
  c.client_order_id = ClientOrderId{UINT64_MAX};
  c.target = UINT64_MAX;
  c.price = Price{INT64_MIN};
  c.quantity = Quantity{INT64_MAX};
  Command back;
  const Status st = DecodeCommandRecord(c.seq, Encode(c), &back);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ExpectSameCommand(c, back);
}

TEST(JournalRecord, LayoutIsAsDocumented) {
  // docs/journal.md, "Command record": header then the 64-byte payload,
  // every integer little-endian.
  const std::string record = Encode(EveryFieldSet());
  const std::string payload = record.substr(kRecordHeaderSize);
  EXPECT_EQ(Hex(payload),
            "0807060504030201"    //  0 u64 seq
            "1817161514131211"    //  8 i64 ts
            "01"                  // 16 u8 type
            "02"                  // 17 u8 side
            "01"                  // 18 u8 order_type
            "05"                  // 19 u8 tif
            "04"                  // 20 u8 stp
            "01"                  // 21 u8 flags
            "03"                  // 22 u8 state
            "7f"                  // 23 u8 reserved
            "24232221"            // 24 u32 account
            "34333231"            // 28 u32 instrument
            "4847464544434241"    // 32 u64 client_order_id
            "5857565554535251"    // 40 u64 target
            "6867666564636261"    // 48 i64 price
            "7877767574737271");  // 56 i64 quantity
  const uint32_t crc = Crc32c(payload.data(), payload.size());
  std::string crc_le;
  for (int i = 0; i < 4; ++i)
    crc_le += static_cast<char>((crc >> (8 * i)) & 0xffu);
  EXPECT_EQ(Hex(record.substr(0, kRecordHeaderSize)),
            "01"          // u8 version
            "01"          // u8 kind: command
            "0000"        // u16 reserved
            "40000000" +  // u32 payload length 64
                Hex(crc_le));
}

TEST(JournalRecord, DocumentedExampleRecord) {
  // The example in docs/journal.md: "42 2026-12-01T00:00:01.000000000Z
  // NEW_ORDER acct=1 inst=3 BUY LIMIT GTC 5 @ 5.8300 cl=17".
  Command c;
  c.seq = Seq{42};
  c.ts = Timestamp{1'796'083'201'000'000'000};
  c.type = CommandType::kNewOrder;
  c.side = Side::kBuy;
  c.order_type = OrderType::kLimit;
  c.tif = TimeInForce::kGtc;
  c.account = AccountId{1};
  c.instrument = InstrumentId{3};
  c.client_order_id = ClientOrderId{17};
  c.price = Price{58'300};
  c.quantity = Quantity{5};
  EXPECT_EQ(Hex(Encode(c)),
            "0101000040000000a917e5f4"
            "2a00000000000000"
            "00caa6be27f8ec18"
            "0101010200000000"
            "01000000"
            "03000000"
            "1100000000000000"
            "0000000000000000"
            "bce3000000000000"
            "0500000000000000");
}

TEST(JournalRecord, EveryTruncationIsDataLossTruncated) {
  const Command c = EveryFieldSet();
  const std::string record = Encode(c);
  for (std::size_t n = 0; n < record.size(); ++n) {
    Command back;
    const Status st = DecodeCommandRecord(
        c.seq, std::string_view(record).substr(0, n), &back);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss) << "length " << n;
    EXPECT_NE(st.message().find("truncated"), std::string::npos)
        << "length " << n << ": " << st.message();
  }
}

TEST(JournalRecord, FlippedPayloadByteIsChecksumMismatch) {
  const Command c = EveryFieldSet();
  const std::string record = Encode(c);
  for (std::size_t i = kRecordHeaderSize; i < record.size(); ++i) {
    for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
      std::string bad = record;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      Command back;
      const Status st = DecodeCommandRecord(c.seq, bad, &back);
      EXPECT_EQ(st.code(), StatusCode::kDataLoss) << "byte " << i;
      EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos)
          << "byte " << i << ": " << st.message();
    }
  }
}

TEST(JournalRecord, FlippedChecksumByteIsChecksumMismatch) {
  const Command c = EveryFieldSet();
  const std::string record = Encode(c);
  for (std::size_t i = 8; i < kRecordHeaderSize; ++i) {
    std::string bad = record;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    Command back;
    const Status st = DecodeCommandRecord(c.seq, bad, &back);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss);
    EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos)
        << st.message();
  }
}

TEST(JournalRecord, UnknownVersionIsRejected) {
  const Command c = EveryFieldSet();
  for (const uint8_t version : {uint8_t{0}, uint8_t{2}, uint8_t{255}}) {
    std::string bad = Encode(c);
    bad[0] = static_cast<char>(version);
    Command back;
    const Status st = DecodeCommandRecord(c.seq, bad, &back);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss);
    EXPECT_NE(st.message().find("unsupported record version " +
                                std::to_string(version)),
              std::string::npos)
        << st.message();
  }
}

TEST(JournalRecord, WrongKindIsRejected) {
  const Command c = EveryFieldSet();
  Command back;
  std::string snapshot;
  EncodeSnapshotRecord(Encode(c).substr(kRecordHeaderSize), &snapshot);
  Status st = DecodeCommandRecord(c.seq, snapshot, &back);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("unexpected record kind 2"), std::string::npos)
      << st.message();

  std::string_view payload;
  st = DecodeSnapshotRecord(Encode(c), &payload);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("unexpected record kind 1"), std::string::npos)
      << st.message();
}

TEST(JournalRecord, NonzeroReservedHeaderFieldIsRejected) {
  const Command c = EveryFieldSet();
  std::string bad = Encode(c);
  bad[3] = 1;
  Command back;
  const Status st = DecodeCommandRecord(c.seq, bad, &back);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("reserved"), std::string::npos) << st.message();
}

TEST(JournalRecord, TrailingBytesAreRejected) {
  const Command c = EveryFieldSet();
  Command back;
  const Status st = DecodeCommandRecord(c.seq, Encode(c) + "x", &back);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("oversized record"), std::string::npos)
      << st.message();
}

TEST(JournalRecord, PayloadOfAnotherSizeIsRejected) {
  // A well-formed record (length and checksum agree) whose payload is not
  // the 64 bytes of a version-1 command.
  const std::string payload(63, 'p');
  std::string record;
  EncodeSnapshotRecord(payload, &record);
  record[1] = static_cast<char>(RecordKind::kCommand);
  Command back;
  const Status st = DecodeCommandRecord(Seq{1}, record, &back);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find(
                "command payload is 63 bytes, not a positive multiple of 64"),
            std::string::npos)
      << st.message();
}

TEST(JournalRecord, SeqThatDiffersFromTheKeyIsRejected) {
  Command c = EveryFieldSet();
  c.seq = Seq{42};
  Command back;
  const Status st = DecodeCommandRecord(Seq{43}, Encode(c), &back);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("record under key 43 holds seq 42 at position 0"),
            std::string::npos)
      << st.message();
}

TEST(JournalRecord, DecodeFailureLeavesTheOutputUntouched) {
  const Command c = EveryFieldSet();
  Command back;
  back.seq = Seq{7};
  ASSERT_FALSE(DecodeCommandRecord(Seq{1}, Encode(c), &back).ok());
  EXPECT_EQ(back.seq, Seq{7});
}

TEST(JournalRecord, SnapshotRecordRoundTrips) {
  for (const std::string& bytes :
       {std::string(), std::string("CFXS snapshot\0bytes", 19),
        std::string(100'000, '\xab')}) {
    std::string record;
    EncodeSnapshotRecord(bytes, &record);
    ASSERT_EQ(record.size(), kRecordHeaderSize + bytes.size());
    EXPECT_EQ(record[1], static_cast<char>(RecordKind::kSnapshot));
    std::string_view back;
    const Status st = DecodeSnapshotRecord(record, &back);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(back, bytes);
  }
}

TEST(JournalRecord, CorruptSnapshotRecordIsRejected) {
  std::string record;
  EncodeSnapshotRecord(std::string(1000, 's'), &record);
  std::string_view back;
  std::string flipped = record;
  flipped[500] = 't';
  EXPECT_NE(
      DecodeSnapshotRecord(flipped, &back).message().find("checksum mismatch"),
      std::string::npos);
  EXPECT_NE(DecodeSnapshotRecord(std::string_view(record).substr(0, 999), &back)
                .message()
                .find("truncated"),
            std::string::npos);
}

}  // namespace
}  // namespace cfx::exchange

namespace cfx::exchange {
namespace {

std::vector<Command> ReferenceBatch() {
  std::vector<Command> cmds(3);
  for (uint64_t i = 0; i < 3; ++i) {
    cmds[i].seq = Seq{100 + i};
    cmds[i].ts = Timestamp{5'000};
    cmds[i].type = CommandType::kNewOrder;
  }
  cmds[1].type = CommandType::kReferenceData;
  return cmds;
}

TEST(JournalRecord, PayloadsRoundTripBesideTheirCommands) {
  const std::vector<Command> cmds = ReferenceBatch();
  const std::string_view payloads[3] = {"ignored", "the payload", ""};
  std::string record;
  EncodeCommandRecords(cmds.data(), cmds.size(), payloads, &record);
  EXPECT_EQ(static_cast<uint8_t>(record[1]),
            static_cast<uint8_t>(RecordKind::kCommandsWithPayloads));
  std::vector<Command> out;
  std::vector<std::string> got;
  ASSERT_TRUE(DecodeCommandRecords(Seq{100}, record, &out, &got).ok());
  ASSERT_EQ(out.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) ExpectSameCommand(out[i], cmds[i]);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "");
  EXPECT_EQ(got[1], "the payload");
  EXPECT_EQ(got[2], "");
  // Callers that want only the commands get them.
  ASSERT_TRUE(DecodeCommandRecords(Seq{100}, record, &out).ok());
  EXPECT_EQ(out.size(), 3u);
}

TEST(JournalRecord, BatchWithoutReferenceDataKeepsThePlainRecord) {
  std::vector<Command> cmds = ReferenceBatch();
  cmds[1].type = CommandType::kCancel;
  const std::string_view payloads[3] = {"a", "b", "c"};
  std::string with, plain;
  EncodeCommandRecords(cmds.data(), cmds.size(), payloads, &with);
  EncodeCommandRecords(cmds.data(), cmds.size(), &plain);
  EXPECT_EQ(with, plain);
}

TEST(JournalRecord, EveryTruncatedOrExtendedPayloadRecordIsDataLoss) {
  const std::vector<Command> cmds = ReferenceBatch();
  const std::string_view payloads[3] = {"", "0123456789", ""};
  std::string record;
  EncodeCommandRecords(cmds.data(), cmds.size(), payloads, &record);
  std::vector<Command> out;
  std::vector<std::string> got;
  for (std::size_t n = 0; n < record.size(); ++n) {
    const Status st =
        DecodeCommandRecords(Seq{100}, record.substr(0, n), &out, &got);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss) << "length " << n;
  }
  // A payload length that runs past the end, with a valid checksum.
  std::string body = record.substr(kRecordHeaderSize);
  body[body.size() - 14] = 0x7f;  // the u32 length of the payload
  std::string forged;
  {
    std::string header(kRecordHeaderSize, '\0');
    header[0] = static_cast<char>(kRecordVersion);
    header[1] = static_cast<char>(RecordKind::kCommandsWithPayloads);
    const uint32_t len = static_cast<uint32_t>(body.size());
    const uint32_t crc = Crc32c(body.data(), body.size());
    for (int i = 0; i < 4; ++i) {
      header[4 + i] = static_cast<char>((len >> (8 * i)) & 0xffu);
      header[8 + i] = static_cast<char>((crc >> (8 * i)) & 0xffu);
    }
    forged = header + body;
  }
  const Status st = DecodeCommandRecords(Seq{100}, forged, &out, &got);
  EXPECT_EQ(st.code(), StatusCode::kDataLoss);
  EXPECT_NE(st.message().find("seq 101"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace cfx::exchange
