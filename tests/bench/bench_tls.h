#pragma once

// TLS for the benchmarks' blocking raw-socket clients (`cfx-bench gateway
// --tls`, `cfx-bench fix --tls`): a certificate set for the in-process
// server, and a client stream over a connected socket that reads and writes
// like read(2) and write(2).

#include <openssl/ssl.h>
#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "exchange/core/status.h"
#include "gateway/config/server_config.h"

namespace cfx::bench {

// The server side of a --tls run: test certificates written under `dir`
// (tests/support/test_certs.h: ca.crt, server.crt and server.key for
// localhost and 127.0.0.1) and the config's TLS listeners pointed at them
// (FIX, protobuf and HTTPS on the config's bind address; the ports come
// from the server options). Returns the CA file clients must trust.
Result<std::string> EnableBenchTls(const std::string& dir,
                                   gateway::ServerConfig& config);

// A client TLS context (TLS 1.2 or 1.3) that trusts only `ca_file` and
// checks the server's name is "localhost". Creating one ignores SIGPIPE in
// the process (OpenSSL writes with write(2)). Thread: a context may be
// shared by the connections of several threads once made.
class BenchTlsContext {
 public:
  static Result<std::unique_ptr<BenchTlsContext>> Create(
      const std::string& ca_file);
  ~BenchTlsContext();
  BenchTlsContext(const BenchTlsContext&) = delete;
  BenchTlsContext& operator=(const BenchTlsContext&) = delete;

  SSL_CTX* ctx() const { return ctx_; }

 private:
  explicit BenchTlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

// One client connection's bytes: plaintext on `fd`, or TLS once Start()
// succeeded. Read() and Write() answer as read(2) and write(2) do: > 0
// bytes; Read() 0 when the peer closed; -1 with errno set, EAGAIN when the
// socket's timeout ran out first (SO_RCVTIMEO / SO_SNDTIMEO), EPROTO on a
// TLS error. The stream does not own `fd`.
//
// Thread: one at a time.
class BenchStream {
 public:
  BenchStream() = default;
  ~BenchStream();
  BenchStream(const BenchStream&) = delete;
  BenchStream& operator=(const BenchStream&) = delete;

  void Attach(int fd) { fd_ = fd; }
  // The TLS handshake over the attached socket, verifying the server's
  // certificate; the error names OpenSSL's reason.
  Status StartTls(const BenchTlsContext& context);
  bool tls() const { return ssl_ != nullptr; }

  ssize_t Read(void* buf, std::size_t n);
  ssize_t Write(const void* buf, std::size_t n);

 private:
  // errno for an SSL_read/SSL_write that returned `ret` <= 0.
  ssize_t Fail(int ret);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
};

}  // namespace cfx::bench
