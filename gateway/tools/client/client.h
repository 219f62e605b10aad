#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/status.h"
#include "gateway/session/tls.h"

namespace cfx::gateway::client {

// What a Logon sends (wire.proto, "Logon").
struct LogonParams {
  std::string api_key;
  // The Ed25519 private key (32-byte seed) the Logon is signed with, for an
  // ed25519 API key; never sent. Empty: `secret` signs.
  std::string private_key;
  // The HMAC key the Logon is signed with, for an hmac-sha256 API key;
  // never sent.
  std::string secret;
  // Asked of the server; 0 = the server default (5,000 ms).
  uint32_t heartbeat_interval_ms = 0;
  // true keeps the account's resting orders when the session ends.
  bool cancel_on_disconnect_opt_out = false;
  // Set: ask for a retransmission of order-entry messages after this
  // position (seq, index).
  std::optional<uint64_t> resume_after_seq;
  uint32_t resume_after_index = 0;
  // Empty = 24 random hex characters.
  std::string nonce;
  // Nanoseconds since the epoch; 0 = now (wall clock).
  int64_t timestamp_ns = 0;
};

// The Logon.signature of `p` at `timestamp_ns` with `nonce`: Ed25519 with
// p.private_key when set, else HMAC-SHA256 with p.secret (docs/protocol.md,
// "Logon"). kInvalidArgument for a private key that is not 32 bytes.
Result<std::string> LogonSignatureOf(const LogonParams& p,
                                     int64_t timestamp_ns,
                                     std::string_view nonce);

// A blocking client of the protobuf gateway (DESIGN.md §6): one TCP
// connection, plaintext or TLS, one frame per Envelope. Used by the cfx tool, by tests and by
// the benchmark.
//
// Every call blocks until it is done or its timeout has passed; the client
// runs its own private Asio io_context on the caller's thread and starts no
// thread. Nothing happens between calls: heartbeats go out only while
// Receive() or ReceiveUntil() waits.
//
// Errors, as Status codes (status.h has no DEADLINE_EXCEEDED and no
// UNAUTHENTICATED, so the closest ones stand in):
//   kResourceExhausted   a timeout: the time budget ran out; the connection
//                        stays usable.
//   kUnavailable         cannot connect, the connection was closed or lost,
//                        or the client is not connected.
//   kFailedPrecondition  the server refused the Logon (LogonReject), or
//                        refused it with a SessionReject.
//   kDataLoss            the server sent bytes that do not parse.
//   kInvalidArgument     a message too large for one frame.
//
// Thread: not thread-safe; one thread at a time. Memory: a 128 KiB frame
// buffer, allocated in Connect().
class Client {
 public:
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Connects to host:port (a numeric address, or a name resolved without a
  // time bound) with TCP_NODELAY, from the local address `source` when it
  // is not empty. Returns kUnavailable when the connection is refused or
  // not made within `timeout`, or `source` cannot be bound.
  // With `tls`, the connection is TLS: the server's certificate must chain
  // to tls->ca_file (else the system CAs) and name tls->server_name (else
  // `host`); a failed handshake is kUnavailable "TLS handshake with
  // <peer> failed: <reason>". The handshake counts within `timeout`.
  static Result<std::unique_ptr<Client>> Connect(
      const std::string& host, uint16_t port,
      std::chrono::milliseconds timeout, const std::string& source = "",
      const TlsClientOptions* tls = nullptr);

  // Sends a signed Logon and waits for the answer. Returns the LogonAck, or
  // kFailedPrecondition "logon rejected: AUTHENTICATION_FAILED: <text>" for
  // a LogonReject (the server then closes the connection, and so does the
  // client). Heartbeats from the server before the answer are skipped; any
  // other message before it is an error. After the ack, Receive() sends
  // heartbeats at the interval the ack names.
  Result<wire::v1::LogonAck> Logon(const LogonParams& p,
                                   std::chrono::milliseconds timeout);

  // Sends one Envelope as one frame. A write that does not finish within 10
  // seconds closes the connection (kUnavailable).
  Status Send(const wire::v1::Envelope& e);
  // Sends `bytes` unframed, as they are (tests: malformed input).
  Status SendRaw(std::string_view bytes);

  // The next message from the server, including the server's Heartbeats.
  // While waiting, sends a Heartbeat whenever nothing was sent for the
  // heartbeat interval, so a waiting client stays alive; answers nothing
  // else by itself. Frames the server sent before closing are returned
  // before the close is reported.
  //   kResourceExhausted  nothing arrived within `timeout` (the connection
  //                       stays usable).
  //   kUnavailable        "connection closed by server", or lost.
  //   kDataLoss           a frame header is malformed (the connection is
  //                       closed), or a frame's Envelope does not parse
  //                       (the connection stays up; the frame is skipped).
  Result<wire::v1::Envelope> Receive(std::chrono::milliseconds timeout);

  // Receives until `pred(envelope)` is true and returns that envelope. Other
  // messages go to `other` when it is set, and are dropped otherwise.
  // `timeout` bounds the whole wait. Errors as Receive().
  Result<wire::v1::Envelope> ReceiveUntil(
      const std::function<bool(const wire::v1::Envelope&)>& pred,
      std::chrono::milliseconds timeout,
      const std::function<void(const wire::v1::Envelope&)>& other = nullptr);

  // Closes the connection; idempotent. Sends nothing (no Logout).
  void Close();
  bool connected() const;

  // The interval Receive() keeps between sends: the LogonAck's, or zero (no
  // heartbeats) before a Logon.
  std::chrono::milliseconds heartbeat_interval() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace cfx::gateway::client
