#pragma once

// Certificates for TLS tests, made with OpenSSL's APIs: P-256 keys, X.509 v3
// certificates with chosen validity, subjectAltName and CA flag, signed by
// a given issuer (or self-signed), written as PEM into a directory.

#include <string>
#include <vector>

namespace cfx::testing {

struct TestCert {
  std::string cert_pem{};
  std::string key_pem{};
};

struct CertSpec {
  std::string common_name{};
  // "DNS:localhost", "IP:127.0.0.1", ...; empty: no subjectAltName.
  std::vector<std::string> alt_names{};
  bool ca = false;
  // Validity relative to now, in seconds.
  long not_before_s = -3600;
  long not_after_s = 86'400;
};

// A certificate for `spec`, signed by `issuer` (null: self-signed). An
// empty cert_pem when OpenSSL fails (the test then fails on loading it).
TestCert MakeCert(const CertSpec& spec, const TestCert* issuer);

// Writes `text` to `path` (mode 0600); false on error.
bool WriteTextFile(const std::string& path, const std::string& text);

// The files TLS tests use, under `dir`:
//   ca.crt                 the CA that signs the server certificates
//   server.crt/.key        localhost, 127.0.0.1, signed by ca
//   server2.crt/.key       the same names, another key (reload tests)
//   expired.crt/.key       the same names, expired yesterday
//   other-ca.crt           a CA nothing here is signed by
//   client-ca.crt          the CA of the client certificates
//   client.crt/.key        a client certificate signed by client-ca
//   stranger.crt/.key      a client certificate signed by other-ca
// Returns false if any could not be written.
bool WriteTestCerts(const std::string& dir);

}  // namespace cfx::testing
