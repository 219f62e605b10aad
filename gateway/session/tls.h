#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>  // before Asio (gateway/asio.h)

#include "exchange/core/status.h"
#include "gateway/asio.h"

// Boost.Asio's TLS streams over OpenSSL 3, after gateway/asio.h.
#include <boost/asio/ssl.hpp>

namespace cfx::gateway {

namespace ssl = asio::ssl;

// Where a TLS listener's certificate comes from (docs/config.md, `tls`).
struct TlsFiles {
  // PEM: the server certificate first, then any intermediates.
  std::string certificate_file{};
  // PEM: the certificate's private key, unencrypted.
  std::string private_key_file{};
  // PEM: the CAs a client certificate must chain to. Empty (the default):
  // no client certificate is asked for. Set: mutual TLS, a client without a
  // certificate signed by one of them fails the handshake.
  std::string client_ca_file{};
};

// A TLS server context built from TlsFiles: TLS 1.2 and 1.3 only, the
// certificate and key (checked to match), and for mutual TLS the client CA
// with verify_peer | verify_fail_if_no_peer_cert.
//
// Reload() builds a new context from the same files and, if that works,
// makes it the one new connections get; connections already open keep the
// context they started with (each Stream holds its own reference), so
// sessions survive a reload. A reload that fails keeps the old context.
//
// Thread: every method from any thread; a mutex guards the current context
// (taken once per accepted connection and per reload, never per message).
class TlsServerContext {
 public:
  // kInvalidArgument naming the file and OpenSSL's reason when a file is
  // missing, unreadable or not PEM, or the key does not match.
  static Result<std::unique_ptr<TlsServerContext>> Load(const TlsFiles& files);

  // The context new connections use.
  std::shared_ptr<ssl::context> Current() const;

  // Rebuilds from the files; on error the current context stays.
  Status Reload();

  const TlsFiles& files() const { return files_; }
  bool mutual() const { return !files_.client_ca_file.empty(); }
  // Successful Reload()s so far.
  uint64_t reloads() const { return reloads_.load(std::memory_order_relaxed); }

 private:
  explicit TlsServerContext(TlsFiles files) : files_(std::move(files)) {}
  static Result<std::shared_ptr<ssl::context>> Build(const TlsFiles& files);

  const TlsFiles files_;
  mutable std::mutex mu_;
  std::shared_ptr<ssl::context> current_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> reloads_{0};
};

// A client's TLS settings (the cfx tool, tests, the benchmark).
struct TlsClientOptions {
  // PEM CA file the server certificate must chain to; empty: the system's
  // default CA store.
  std::string ca_file{};
  // The name the certificate must carry (a DNS name or an IP address,
  // checked against subjectAltName) and the SNI sent. Empty: the host
  // connected to.
  std::string server_name{};
  // PEM client certificate and key for mutual TLS; empty: none.
  std::string certificate_file{};
  std::string private_key_file{};
};

// A client context for `options` verifying the peer against `server_name`
// (non-empty). kInvalidArgument naming the file when one cannot be loaded.
Result<std::shared_ptr<ssl::context>> MakeTlsClientContext(
    const TlsClientOptions& options, const std::string& server_name);

// One TCP connection, plaintext or TLS, with the interface the gateways
// need: async_read_some / async_write_some (so asio::async_write works on
// it), a handshake that is a no-op for plaintext, and Close(). A TLS stream
// holds its context, so a reload does not touch it.
//
// Thread: one io thread, as the socket; at most one read and one write in
// flight at a time (what an ssl::stream allows).
class Stream {
 public:
  using executor_type = asio::ip::tcp::socket::executor_type;
  using TlsStream = ssl::stream<asio::ip::tcp::socket>;

  // Plaintext.
  explicit Stream(asio::ip::tcp::socket socket) : plain_(std::move(socket)) {}
  // TLS with `context` (the handshake still to do).
  Stream(asio::ip::tcp::socket socket, std::shared_ptr<ssl::context> context)
      : context_(std::move(context)),
        tls_(std::make_unique<TlsStream>(std::move(socket), *context_)) {}
  Stream(Stream&&) = default;
  Stream& operator=(Stream&&) = default;

  bool tls() const { return tls_ != nullptr; }
  TlsStream* tls_stream() { return tls_.get(); }
  asio::ip::tcp::socket& socket() {
    return tls_ != nullptr ? tls_->next_layer() : *plain_;
  }
  executor_type get_executor() { return socket().get_executor(); }

  template <typename Buffers, typename Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_ != nullptr) {
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
    }
  }
  template <typename Buffers, typename Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_ != nullptr) {
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_->async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

  // The TLS handshake as `type`; plaintext: `done` is posted with success.
  void AsyncHandshake(ssl::stream_base::handshake_type type,
                      std::function<void(boost::system::error_code)> done);

  // Shuts the TCP connection down and closes it, without a TLS
  // close_notify (nothing waits on the peer). Idempotent.
  void Close();

 private:
  std::shared_ptr<ssl::context> context_;
  std::unique_ptr<TlsStream> tls_;
  std::optional<asio::ip::tcp::socket> plain_;
};

// A handshake error as a short reason for the log and the client, with
// OpenSSL's reason string ("certificate verify failed", "wrong version
// number", "peer did not return a certificate") and never any key material.
std::string TlsErrorText(const boost::system::error_code& ec);

// Counts handshake failures and says which ones to log: the first, then at
// most one per `every` (with the number left out), so a flood of bad
// handshakes does not flood the log.
//
// Thread: one owner (an io thread).
class TlsFailureLog {
 public:
  explicit TlsFailureLog(std::chrono::steady_clock::duration every =
                             std::chrono::seconds(10))
      : every_(every) {}
  // A failure: the line to log ("" = log nothing now).
  std::string Failed(const std::string& where,
                     const boost::system::error_code& ec);
  uint64_t failures() const { return failures_; }

 private:
  std::chrono::steady_clock::duration every_;
  std::optional<std::chrono::steady_clock::time_point> last_;
  uint64_t failures_ = 0;
  uint64_t unlogged_ = 0;
};

}  // namespace cfx::gateway
