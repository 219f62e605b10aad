#include "tests/bench/bench_tls.h"

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <climits>
#include <unistd.h>

#include "tests/support/test_certs.h"

namespace cfx::bench {

namespace {

// OpenSSL's reason for the last error on this thread, or `fallback`.
std::string OpenSslReason(const char* fallback) {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return fallback;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

}  // namespace

Result<std::string> EnableBenchTls(const std::string& dir,
                                   gateway::ServerConfig& config) {
  if (!testing::WriteTestCerts(dir)) {
    return InternalError("cannot write the TLS test certificates in " + dir);
  }
  gateway::TlsListenerConfig tls;
  tls.bind_address = config.network.bind_address;
  // Any non-zero port opens the listener; the server options give the
  // ephemeral ones actually bound.
  tls.fix_port = 1;
  tls.protobuf_port = 1;
  tls.https_port = 1;
  tls.certificate_file = dir + "/server.crt";
  tls.private_key_file = dir + "/server.key";
  config.network.tls = tls;
  return dir + "/ca.crt";
}

Result<std::unique_ptr<BenchTlsContext>> BenchTlsContext::Create(
    const std::string& ca_file) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return InternalError(OpenSslReason("SSL_CTX_new"));
  std::unique_ptr<BenchTlsContext> c(new BenchTlsContext(ctx));
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
    return InvalidArgumentError(ca_file + ": " + OpenSslReason("cannot load"));
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  // Non-blocking clients (cfx-bench fix) retry a write that would block
  // with what is then unsent, from a buffer that may have moved or grown.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                            SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // OpenSSL writes to the socket with write(2): a server that closes first
  // must fail the write (EPIPE), not kill the benchmark.
  std::signal(SIGPIPE, SIG_IGN);
  return c;
}

BenchTlsContext::~BenchTlsContext() { SSL_CTX_free(ctx_); }

BenchStream::~BenchStream() {
  if (ssl_ != nullptr) SSL_free(ssl_);
}

Status BenchStream::StartTls(const BenchTlsContext& context) {
  if (ssl_ != nullptr) return FailedPreconditionError("TLS already started");
  ssl_ = SSL_new(context.ctx());
  if (ssl_ == nullptr) return InternalError(OpenSslReason("SSL_new"));
  if (SSL_set_fd(ssl_, fd_) != 1 ||
      SSL_set_tlsext_host_name(ssl_, "localhost") != 1 ||
      SSL_set1_host(ssl_, "localhost") != 1) {
    return InternalError(OpenSslReason("cannot set up the TLS session"));
  }
  const int ret = SSL_connect(ssl_);
  if (ret != 1) {
    const long verify = SSL_get_verify_result(ssl_);
    std::string why = OpenSslReason("handshake failed");
    if (verify != X509_V_OK) {
      why += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
    }
    return Status(StatusCode::kUnavailable, "TLS handshake: " + why);
  }
  return Status::Ok();
}

ssize_t BenchStream::Fail(int ret) {
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (errno == 0) return 0;  // closed without close_notify
      return -1;
    default:
      ERR_clear_error();
      errno = EPROTO;
      return -1;
  }
}

ssize_t BenchStream::Read(void* buf, std::size_t n) {
  if (ssl_ == nullptr) return recv(fd_, buf, n, 0);
  errno = 0;
  const int ret =
      SSL_read(ssl_, buf, static_cast<int>(n > INT_MAX ? INT_MAX : n));
  return ret > 0 ? ret : Fail(ret);
}

ssize_t BenchStream::Write(const void* buf, std::size_t n) {
  if (ssl_ == nullptr) return send(fd_, buf, n, MSG_NOSIGNAL);
  errno = 0;
  const int ret =
      SSL_write(ssl_, buf, static_cast<int>(n > INT_MAX ? INT_MAX : n));
  return ret > 0 ? ret : Fail(ret);
}

}  // namespace cfx::bench
