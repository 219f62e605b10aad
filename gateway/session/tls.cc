#include "gateway/session/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <exception>

namespace cfx::gateway {

namespace {

// "<what> <file>: <reason>".
Status FileError(const char* what, const std::string& file,
                 const boost::system::error_code& ec) {
  return InvalidArgumentError(std::string("tls: ") + what + " " + file + ": " +
                              TlsErrorText(ec));
}

// TLS 1.2 and 1.3 only; no compression, no renegotiation.
Status Restrict(ssl::context& context) {
  SSL_CTX* ctx = context.native_handle();
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    return InternalError("tls: cannot require TLS 1.2");
  }
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE);
  return Status::Ok();
}

Result<std::unique_ptr<ssl::context>> NewContext(ssl::context::method method) {
  // The constructor throws only when OpenSSL cannot allocate a context.
  try {
    auto context = std::make_unique<ssl::context>(method);
    CFX_RETURN_IF_ERROR(Restrict(*context));
    return context;
  } catch (const std::exception& e) {
    return InternalError(std::string("tls: cannot create a context: ") +
                         e.what());
  }
}

}  // namespace

std::string TlsErrorText(const boost::system::error_code& ec) {
  if (ec.category() == asio::error::get_ssl_category()) {
    // OpenSSL's reason string without the library and function codes.
    const char* reason =
        ERR_reason_error_string(static_cast<unsigned long>(ec.value()));
    if (reason != nullptr) return reason;
  }
  if (ec == asio::ssl::error::stream_truncated) {
    return "connection closed during the handshake";
  }
  return ec.message();
}

Result<std::shared_ptr<ssl::context>> TlsServerContext::Build(
    const TlsFiles& files) {
  auto made = NewContext(ssl::context::tls_server);
  if (!made.has_value()) return made.error();
  std::shared_ptr<ssl::context> context = std::move(made).value();
  boost::system::error_code ec;
  context->use_certificate_chain_file(files.certificate_file, ec);
  if (ec) return FileError("certificate", files.certificate_file, ec);
  context->use_private_key_file(files.private_key_file, ssl::context::pem, ec);
  if (ec) return FileError("private key", files.private_key_file, ec);
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    ERR_clear_error();
    return InvalidArgumentError("tls: private key " + files.private_key_file +
                                " does not match certificate " +
                                files.certificate_file);
  }
  if (!files.client_ca_file.empty()) {
    context->load_verify_file(files.client_ca_file, ec);
    if (ec) return FileError("client CA", files.client_ca_file, ec);
    // The CA names sent in the CertificateRequest, so a client with several
    // certificates picks the right one.
    STACK_OF(X509_NAME)* names =
        SSL_load_client_CA_file(files.client_ca_file.c_str());
    if (names != nullptr) {
      SSL_CTX_set_client_CA_list(context->native_handle(), names);
    }
    context->set_verify_mode(
        ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
    if (ec) return FileError("client CA", files.client_ca_file, ec);
  }
  ERR_clear_error();
  return context;
}

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::Load(
    const TlsFiles& files) {
  auto context = Build(files);
  if (!context.has_value()) return context.error();
  std::unique_ptr<TlsServerContext> out(new TlsServerContext(files));
  out->current_ = std::move(context).value();
  return out;
}

std::shared_ptr<ssl::context> TlsServerContext::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

Status TlsServerContext::Reload() {
  auto context = Build(files_);
  if (!context.has_value()) return context.error();
  {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = std::move(context).value();
  }
  reloads_.fetch_add(1, std::memory_order_relaxed);
  return Status::Ok();
}

Result<std::shared_ptr<ssl::context>> MakeTlsClientContext(
    const TlsClientOptions& options, const std::string& server_name) {
  auto made = NewContext(ssl::context::tls_client);
  if (!made.has_value()) return made.error();
  std::shared_ptr<ssl::context> context = std::move(made).value();
  boost::system::error_code ec;
  if (options.ca_file.empty()) {
    context->set_default_verify_paths(ec);
    if (ec) return FileError("default CA store", "", ec);
  } else {
    context->load_verify_file(options.ca_file, ec);
    if (ec) return FileError("CA", options.ca_file, ec);
  }
  if (!options.certificate_file.empty()) {
    context->use_certificate_chain_file(options.certificate_file, ec);
    if (ec) return FileError("certificate", options.certificate_file, ec);
    context->use_private_key_file(options.private_key_file, ssl::context::pem,
                                  ec);
    if (ec) return FileError("private key", options.private_key_file, ec);
  }
  context->set_verify_mode(ssl::verify_peer, ec);
  if (ec) return FileError("verify mode", "", ec);
  // The name is checked by OpenSSL during the handshake: a DNS name or an
  // IP address against subjectAltName.
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(context->native_handle());
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  const int set =
      X509_VERIFY_PARAM_set1_ip_asc(param, server_name.c_str()) == 1
          ? 1
          : X509_VERIFY_PARAM_set1_host(param, server_name.c_str(),
                                        server_name.size());
  ERR_clear_error();
  if (set != 1) {
    return InvalidArgumentError("tls: bad server name \"" + server_name +
                                "\"");
  }
  return context;
}

void Stream::AsyncHandshake(
    ssl::stream_base::handshake_type type,
    std::function<void(boost::system::error_code)> done) {
  if (tls_ == nullptr) {
    asio::post(get_executor(), [done = std::move(done)] {
      done(boost::system::error_code());
    });
    return;
  }
  if (type == ssl::stream_base::client) {
    // SNI: the name the client context verifies (set1_host / set1_ip).
    X509_VERIFY_PARAM* param = SSL_get0_param(tls_->native_handle());
    char* host = X509_VERIFY_PARAM_get0_host(param, 0);
    if (host != nullptr) SSL_set_tlsext_host_name(tls_->native_handle(), host);
  }
  tls_->async_handshake(type, std::move(done));
}

void Stream::Close() {
  boost::system::error_code ignored;
  asio::ip::tcp::socket& s = socket();
  if (!s.is_open()) return;
  s.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  s.close(ignored);
}

std::string TlsFailureLog::Failed(const std::string& where,
                                  const boost::system::error_code& ec) {
  ++failures_;
  const auto now = std::chrono::steady_clock::now();
  if (last_.has_value() && now - *last_ < every_) {
    ++unlogged_;
    return std::string();
  }
  last_ = now;
  std::string line = where + ": TLS handshake failed: " + TlsErrorText(ec);
  if (unlogged_ > 0) {
    line += " (and " + std::to_string(unlogged_) + " more not logged)";
    unlogged_ = 0;
  }
  return line;
}

}  // namespace cfx::gateway
