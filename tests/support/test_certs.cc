#include "tests/support/test_certs.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <memory>

namespace cfx::testing {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
template <typename T>
using Ptr = std::unique_ptr<T, Free>;

std::string Drain(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : "";
}

bool AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

}  // namespace

TestCert MakeCert(const CertSpec& spec, const TestCert* issuer) {
  Ptr<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (key == nullptr) return {};
  Ptr<X509> cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), spec.not_before_s);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), spec.not_after_s);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1, -1,
      0);

  Ptr<X509> issuer_cert;
  Ptr<EVP_PKEY> issuer_key;
  if (issuer != nullptr) {
    Ptr<BIO> cb(BIO_new_mem_buf(issuer->cert_pem.data(),
                                static_cast<int>(issuer->cert_pem.size())));
    Ptr<BIO> kb(BIO_new_mem_buf(issuer->key_pem.data(),
                                static_cast<int>(issuer->key_pem.size())));
    issuer_cert.reset(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
    issuer_key.reset(
        PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
    if (issuer_cert == nullptr || issuer_key == nullptr) return {};
  }
  X509* signer = issuer != nullptr ? issuer_cert.get() : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));

  bool ok = AddExtension(cert.get(), signer, NID_basic_constraints,
                         spec.ca ? "critical,CA:TRUE" : "critical,CA:FALSE") &&
            AddExtension(cert.get(), signer, NID_subject_key_identifier,
                         "hash") &&
            AddExtension(cert.get(), signer, NID_authority_key_identifier,
                         "keyid:always");
  if (spec.ca) {
    ok = ok && AddExtension(cert.get(), signer, NID_key_usage,
                            "critical,keyCertSign,cRLSign");
  } else {
    ok = ok &&
         AddExtension(cert.get(), signer, NID_key_usage,
                      "critical,digitalSignature") &&
         AddExtension(cert.get(), signer, NID_ext_key_usage,
                      "serverAuth,clientAuth");
  }
  if (!spec.alt_names.empty()) {
    std::string sans;
    for (const std::string& n : spec.alt_names) {
      sans += (sans.empty() ? "" : ",") + n;
    }
    ok = ok && AddExtension(cert.get(), signer, NID_subject_alt_name, sans);
  }
  if (!ok) return {};
  EVP_PKEY* sign_key = issuer != nullptr ? issuer_key.get() : key.get();
  if (X509_sign(cert.get(), sign_key, EVP_sha256()) == 0) return {};

  TestCert out;
  Ptr<BIO> cb(BIO_new(BIO_s_mem()));
  Ptr<BIO> kb(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(cb.get(), cert.get()) != 1) return {};
  if (PEM_write_bio_PrivateKey(kb.get(), key.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) != 1) {
    return {};
  }
  out.cert_pem = Drain(cb.get());
  out.key_pem = Drain(kb.get());
  return out;
}

bool WriteTextFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        0600);
  if (fd < 0) return false;
  const bool ok =
      ::write(fd, text.data(), text.size()) ==
      static_cast<ssize_t>(text.size());
  return ::close(fd) == 0 && ok;
}

bool WriteTestCerts(const std::string& dir) {
  const std::vector<std::string> names = {"DNS:localhost", "IP:127.0.0.1"};
  const TestCert ca = MakeCert({.common_name = "CFX test CA", .ca = true,
                                .not_after_s = 10 * 86'400},
                               nullptr);
  const TestCert other_ca = MakeCert(
      {.common_name = "Other CA", .ca = true, .not_after_s = 10 * 86'400},
      nullptr);
  const TestCert client_ca = MakeCert(
      {.common_name = "CFX client CA", .ca = true, .not_after_s = 10 * 86'400},
      nullptr);
  const TestCert server =
      MakeCert({.common_name = "localhost", .alt_names = names}, &ca);
  const TestCert server2 =
      MakeCert({.common_name = "localhost", .alt_names = names}, &ca);
  const TestCert expired = MakeCert({.common_name = "localhost",
                                     .alt_names = names,
                                     .not_before_s = -3 * 86'400,
                                     .not_after_s = -86'400},
                                    &ca);
  const TestCert client = MakeCert({.common_name = "trader-a"}, &client_ca);
  const TestCert stranger = MakeCert({.common_name = "trader-a"}, &other_ca);
  const auto put = [&dir](const std::string& name, const TestCert& c) {
    return !c.cert_pem.empty() &&
           WriteTextFile(dir + "/" + name + ".crt", c.cert_pem) &&
           WriteTextFile(dir + "/" + name + ".key", c.key_pem);
  };
  return put("ca", ca) && put("other-ca", other_ca) &&
         put("client-ca", client_ca) && put("server", server) &&
         put("server2", server2) && put("expired", expired) &&
         put("client", client) && put("stranger", stranger);
}

}  // namespace cfx::testing
