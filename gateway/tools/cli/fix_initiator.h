#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/core/status.h"
#include "gateway/session/tls.h"

namespace cfx::gateway::cli {

// One received FIX message: its MsgType(35) and every field in wire order.
struct FixMessage {
  std::string type;
  std::vector<std::pair<int, std::string>> fields;

  // The value of the first `tag`, or "" when absent.
  std::string Get(int tag) const;
  bool Has(int tag) const;
  // Whether the first `tag` is the one character `value` (an ExecType(150)
  // or OrdStatus(39) value of gateway/fix/fix_tags.h).
  bool Is(int tag, char value) const;
  // "35=8|11=...|..." with '|' for SOH, for error messages.
  std::string Text() const;
};

// Body fields of an outbound message, in order, by tag number
// (gateway/fix/fix_tags.h); the header (BeginString(8), BodyLength(9),
// MsgType(35), MsgSeqNum(34), SenderCompID(49), SendingTime(52),
// TargetCompID(56)) and the trailer (CheckSum(10)) are added by the
// initiator.
using FixFields = std::vector<std::pair<int, std::string>>;

struct FixSessionOptions {
  std::string sender_comp_id;  // e.g. "TRADER_A"
  std::string target_comp_id = "CFX";
  std::string username;  // Username(553), e.g. "trader-a"
  std::string password;  // Password(554); sent in the Logon only
  // HeartBtInt(108).
  int heartbeat_seconds = 30;
};

// A minimal FIX 4.4 initiator over one TCP socket, plaintext or TLS, for
// `cfx demo`
// (docs/fix.md): Logon with Username/Password and ResetSeqNumFlag=Y,
// application messages out, tag=value framing with BodyLength(9) and
// CheckSum(10) both ways, Heartbeat and TestRequest answers, a GapFill
// answer to ResendRequest (nothing is ever resent), Logout. It is not a
// general FIX engine: it keeps no message store and does not check
// inbound sequence numbers. QuickFIX cannot be used from C++20 code
// (STYLE.md §10), hence this raw client.
//
// Every call blocks until it is done or its timeout has passed; nothing
// happens between calls (heartbeats go out only while Receive waits).
// SendingTime(52) is the wall clock, as the acceptor checks it.
//
// Errors: kUnavailable (cannot connect, connection closed, a Logout from
// the acceptor: its Text is in the message), kResourceExhausted (timeout;
// the connection stays usable), kDataLoss (bytes that are not FIX 4.4 or a
// wrong CheckSum: the connection is closed).
//
// Thread: one thread at a time. Memory: grows its buffers to the largest
// message seen.
class FixInitiator {
 public:
  ~FixInitiator();
  FixInitiator(const FixInitiator&) = delete;
  FixInitiator& operator=(const FixInitiator&) = delete;

  // Connects to host:port and logs on; returns once the acceptor's Logon
  // arrived. A Logout answer (wrong password, unknown user) is
  // kUnavailable "logon refused: <Text>". With `tls`, over TLS: the
  // acceptor's certificate must chain to tls->ca_file (else the system
  // CAs) and name `host`; a failed handshake is kUnavailable.
  static Result<std::unique_ptr<FixInitiator>> Connect(
      const std::string& host, uint16_t port, const FixSessionOptions& options,
      std::chrono::milliseconds timeout,
      const TlsClientOptions* tls = nullptr);

  // Sends one application message of MsgType `type` with `fields`.
  Status Send(std::string_view type, const FixFields& fields);

  // The next application message (anything but Heartbeat, TestRequest,
  // ResendRequest, SequenceReset), answering the session messages on the
  // way. A Logout from the acceptor ends the session: kUnavailable.
  Result<FixMessage> Receive(std::chrono::milliseconds timeout);

  // Receives until `pred` is true and returns that message; others are
  // dropped. `timeout` bounds the whole wait.
  Result<FixMessage> ReceiveUntil(
      const std::function<bool(const FixMessage&)>& pred,
      std::chrono::milliseconds timeout);

  // Sends Logout and waits up to `timeout` for the acceptor's, then closes.
  // Idempotent.
  void Logout(std::chrono::milliseconds timeout);

  // Current UTC wall-clock time as FIX UTCTimestamp "YYYYMMDD-HH:MM:SS.sss".
  static std::string UtcNow();

 private:
  FixInitiator(int fd, FixSessionOptions options);

  Status SendMessage(std::string_view type, const FixFields& fields,
                     bool poss_dup = false, uint64_t seq_override = 0);
  Status WriteAll(std::string_view bytes);
  // A complete message from the buffer into *out; false when incomplete.
  Result<bool> TakeMessage(FixMessage* out);
  // Answers session-level messages; true when `m` is for the caller.
  Result<bool> HandleSession(const FixMessage& m);
  void CloseSocket();
  // The TLS handshake on fd_ within `timeout`.
  Status StartTls(const std::string& host, const TlsClientOptions& tls,
                  std::chrono::milliseconds timeout);
  // recv() / send() through TLS when it is on: > 0 bytes, 0 closed, < 0
  // error (errno EINTR: try again).
  long ReadSome(char* buffer, std::size_t size);
  long WriteSome(const char* data, std::size_t size);
  // Bytes already decrypted and waiting: poll() would not see them.
  bool Buffered() const;

  int fd_ = -1;
  std::shared_ptr<ssl::context> tls_context_;
  SSL* ssl_ = nullptr;
  FixSessionOptions options_;
  uint64_t next_out_seq_ = 1;
  bool logout_sent_ = false;
  std::string in_;
  std::chrono::steady_clock::time_point last_send_;
};

}  // namespace cfx::gateway::cli
