// TLS on every listener (network.tls, docs/config.md "TLS"): the protobuf,
// FIX and HTTPS listeners of an in-process exchange handshake with our
// clients and with openssl s_client and curl; a wrong CA, an expired
// certificate and a missing or foreign client certificate (mutual TLS) are
// refused; the certificate is reloaded under live sessions; a handshake
// that never finishes is closed at the pre-logon deadline; and a plaintext
// listener off loopback refuses to start.

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "gateway/asio.h"
#include "gateway/session/tls.h"
#include "gateway/tools/cli/demo.h"
#include "gateway/tools/cli/exit_codes.h"
#include "gateway/tools/cli/fix_initiator.h"
#include "tests/gateway/fix/fix_test_client.h"
#include "tests/gateway/server/server_fixture.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace cfx::gateway::server_test {
namespace {

using asio::ip::tcp;
using cfx::testing::Contains;
using SteadyClock = std::chrono::steady_clock;

// The certificates of test_certs.h in a temp dir, made once per test.
class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cfx::testing::WriteTestCerts(certs_.path()));
  }

  std::string File(const std::string& name) const { return certs_.Sub(name); }

  // The demo config with every TLS listener on loopback (ephemeral ports:
  // TestServer overrides them), the server certificate `server` and, for
  // mutual TLS, the client CA.
  ServerConfig Config(const std::string& server = "server",
                      const std::string& client_ca = "") const {
    ServerConfig config = DemoConfig();
    TlsListenerConfig tls;
    tls.bind_address = "127.0.0.1";
    tls.fix_port = 1;
    tls.protobuf_port = 1;
    tls.https_port = 1;
    tls.certificate_file = File(server + ".crt");
    tls.private_key_file = File(server + ".key");
    if (!client_ca.empty()) tls.client_ca_file = File(client_ca);
    config.network.tls = tls;
    config.session.pre_logon_timeout_ms = 500;
    return config;
  }

  TlsClientOptions Trusting(const std::string& ca) const {
    TlsClientOptions o;
    o.ca_file = File(ca);
    return o;
  }

  cfx::testing::TempDir certs_;
};

Result<std::unique_ptr<client::Client>> TlsLogOn(uint16_t port,
                                                 const TlsClientOptions& tls,
                                                 const std::string& user) {
  auto c = client::Client::Connect("127.0.0.1", port, kWait, "", &tls);
  if (!c.has_value()) return c.error();
  auto ack = c.value()->Logon(DemoLogon(user), kWait);
  if (!ack.has_value()) return ack.error();
  return std::move(c).value();
}

// An order round trip on a logged-on session: the order's report arrives.
::testing::AssertionResult OrderAcknowledged(client::Client& c, uint64_t id) {
  if (!c.Send(NewOrder(id, w::SIDE_BUY, kPrice, 1)).ok()) {
    return ::testing::AssertionFailure() << "send failed";
  }
  auto r = c.ReceiveUntil(
      [id](const w::Envelope& e) {
        return e.has_execution_report() &&
               e.execution_report().client_order_id() == id;
      },
      kWait);
  if (!r.has_value()) {
    return ::testing::AssertionFailure() << r.error().ToString();
  }
  return ::testing::AssertionSuccess();
}

cli::FixSessionOptions TraderA() {
  cli::FixSessionOptions fo;
  fo.sender_comp_id = "TRADER_A";
  fo.username = "trader-a";
  fo.password = "demo-trader-a";
  return fo;
}

// The PEM of the certificate a TLS server on `port` presents (verified
// against `ca`), or the handshake error.
std::string PeerCertificatePem(uint16_t port, const std::string& ca) {
  asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return "connect: " + ec.message();
  TlsClientOptions o;
  o.ca_file = ca;
  auto context = MakeTlsClientContext(o, "127.0.0.1");
  if (!context.has_value()) return context.error().message();
  Stream stream(std::move(socket), context.value());
  std::optional<boost::system::error_code> result;
  stream.AsyncHandshake(ssl::stream_base::client,
                        [&](boost::system::error_code e) { result = e; });
  io.run_for(kWait);
  if (!result.has_value()) return "handshake timed out";
  if (*result) return "handshake: " + TlsErrorText(*result);
  X509* cert = SSL_get1_peer_certificate(stream.tls_stream()->native_handle());
  if (cert == nullptr) return "no certificate";
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  X509_free(cert);
  stream.Close();
  return pem;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Connects to `port`, sends `bytes` and waits for the server to close the
// connection; returns how long that took, or nullopt when it stayed open
// for kWait.
std::optional<Millis> ClosedAfter(uint16_t port, const std::string& bytes) {
  asio::io_context io;
  tcp::socket socket(io);
  boost::system::error_code ec;
  socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return std::nullopt;
  const auto start = SteadyClock::now();
  if (!bytes.empty()) asio::write(socket, asio::buffer(bytes), ec);
  std::array<char, 4096> buf{};
  bool closed = false;
  std::function<void()> read = [&] {
    socket.async_read_some(asio::buffer(buf),
                           [&](boost::system::error_code e, std::size_t) {
                             if (e) {
                               closed = true;
                               return;
                             }
                             read();  // an alert: keep reading to the close
                           });
  };
  read();
  io.run_for(kWait);
  if (!closed) return std::nullopt;
  return std::chrono::duration_cast<Millis>(SteadyClock::now() - start);
}

std::string Metrics(uint16_t http_port) {
  const cfx::testing::ToolResult r = cfx::testing::RunTool(
      "curl -s http://127.0.0.1:" + std::to_string(http_port) + "/metrics",
      "/dev/null");
  return r.out;
}

TEST_F(TlsTest, ProtobufLogonAndOrderOverTls) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.protobuf_tls_port(), 0);
  auto c = TlsLogOn(server.protobuf_tls_port(), Trusting("ca.crt"), "trader-a");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_TRUE(OrderAcknowledged(*c.value(), 1));
  // The plaintext listener still serves loopback.
  auto plain = LogOn(server.port(), DemoLogon("trader-b"));
  EXPECT_TRUE(plain.has_value()) << plain.error().ToString();
}

TEST_F(TlsTest, FixLogonOverTls) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.fix_tls_port(), 0);
  const TlsClientOptions tls = Trusting("ca.crt");
  auto fix = cli::FixInitiator::Connect("127.0.0.1", server.fix_tls_port(),
                                        TraderA(), kWait, &tls);
  ASSERT_TRUE(fix.has_value()) << fix.error().ToString();
  fix.value()->Logout(kWait);
}

TEST_F(TlsTest, HttpsAnswersCurlAndOpensslSClient) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.https_port(), 0);
  const std::string port = std::to_string(server.https_port());
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult curl = cfx::testing::RunTool(
      "curl -sS --cacert " + File("ca.crt") + " https://localhost:" + port +
          "/healthz",
      tmp.Sub("curl.err"));
  EXPECT_EQ(curl.exit_code, 0) << curl.err;
  EXPECT_TRUE(Contains(curl.out, "\"status\":\"ok\"")) << curl.out;
  // The protobuf listener, to a client that is not ours.
  const cfx::testing::ToolResult s_client = cfx::testing::RunTool(
      "openssl s_client -brief -verify_return_error -CAfile " + File("ca.crt") +
          " -verify_ip 127.0.0.1 -connect 127.0.0.1:" +
          std::to_string(server.protobuf_tls_port()) + " </dev/null",
      tmp.Sub("s_client.err"));
  EXPECT_EQ(s_client.exit_code, 0) << s_client.err;
  EXPECT_TRUE(Contains(s_client.err, "Verification: OK")) << s_client.err;
}

// A FIX session typed into openssl s_client: a Logon and a Logout, each
// answered in kind over the TLS port (the server verified against the CA).
TEST_F(TlsTest, OpensslSClientLogsOnAndOutOverFixTls) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  cfx::testing::TempDir tmp;
  const std::string now = fix_test::FixUtcNow();
  const std::string session =
      fix_test::BuildFixMessage(
          "FIX.4.4", {{35, "A"}, {34, "1"}, {49, "TRADER_A"}, {52, now},
                      {56, "CFX"}, {98, "0"}, {108, "30"}, {141, "Y"},
                      {553, "trader-a"}, {554, "demo-trader-a"}}) +
      fix_test::BuildFixMessage("FIX.4.4", {{35, "5"}, {34, "2"},
                                            {49, "TRADER_A"}, {52, now},
                                            {56, "CFX"}});
  ASSERT_TRUE(cfx::testing::WriteTextFile(tmp.Sub("session.fix"), session));
  const cfx::testing::ToolResult r = cfx::testing::RunTool(
      "timeout 30 openssl s_client -quiet -verify_return_error -CAfile " +
          File("ca.crt") + " -verify_ip 127.0.0.1 -connect 127.0.0.1:" +
          std::to_string(server.fix_tls_port()) + " <" + tmp.Sub("session.fix"),
      tmp.Sub("s_client.err"));
  // s_client ends on its own: the exchange closed after its Logout. It
  // closes without a TLS close_notify (Stream::Close), which OpenSSL 3
  // reports as "unexpected eof while reading", so the exit status says
  // nothing here; the answers below do.
  EXPECT_TRUE(Contains(r.err, "Verification: OK") ||
              Contains(r.err, "verify return:1"))
      << r.err;
  const std::size_t logon = r.out.find("\x01" "35=A\x01");
  const std::size_t logout = r.out.find("\x01" "35=5\x01");
  ASSERT_NE(logon, std::string::npos) << r.out << r.err;
  ASSERT_NE(logout, std::string::npos) << r.out << r.err;
  EXPECT_LT(logon, logout);
  EXPECT_TRUE(Contains(r.out, "\x01" "56=TRADER_A\x01")) << r.out;
}

// openssl s_client trusting another CA: refused on the FIX and protobuf TLS
// ports (curl covers HTTPS below).
TEST_F(TlsTest, OpensslSClientWithAnotherCaIsRefused) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  cfx::testing::TempDir tmp;
  for (const uint16_t port :
       {server.fix_tls_port(), server.protobuf_tls_port()}) {
    const cfx::testing::ToolResult r = cfx::testing::RunTool(
        "timeout 30 openssl s_client -brief -verify_return_error -CAfile " +
            File("other-ca.crt") + " -verify_ip 127.0.0.1 -connect 127.0.0.1:" +
            std::to_string(port) + " </dev/null",
        tmp.Sub("s_client.err"));
    EXPECT_EQ(r.exit_code, 1) << port << ": " << r.err;
    EXPECT_TRUE(Contains(r.err, "unable to verify the first certificate") ||
                Contains(r.err, "unable to get local issuer certificate"))
        << port << ": " << r.err;
  }
}

TEST_F(TlsTest, WrongCaIsRefusedOnEveryListener) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  const TlsClientOptions wrong = Trusting("other-ca.crt");
  auto c = client::Client::Connect("127.0.0.1", server.protobuf_tls_port(),
                                   kWait, "", &wrong);
  ASSERT_FALSE(c.has_value());
  EXPECT_TRUE(Contains(c.error().message(), "certificate verify failed"))
      << c.error().ToString();
  auto fix = cli::FixInitiator::Connect("127.0.0.1", server.fix_tls_port(),
                                        TraderA(), kWait, &wrong);
  ASSERT_FALSE(fix.has_value());
  EXPECT_TRUE(Contains(fix.error().message(), "TLS handshake"))
      << fix.error().ToString();
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult curl = cfx::testing::RunTool(
      "curl -sS --cacert " + File("other-ca.crt") + " https://localhost:" +
          std::to_string(server.https_port()) + "/healthz",
      tmp.Sub("curl.err"));
  EXPECT_EQ(curl.exit_code, 60) << curl.err;  // peer certificate not trusted
  // The failures are counted; the server goes on serving.
  auto good =
      TlsLogOn(server.protobuf_tls_port(), Trusting("ca.crt"), "trader-a");
  EXPECT_TRUE(good.has_value()) << good.error().ToString();
  const std::string metrics = Metrics(server.http_port());
  EXPECT_TRUE(Contains(
      metrics,
      "cfx_tls_handshakes_total{port=\"protobuf\",result=\"ok\"} 1"))
      << metrics;
}

TEST_F(TlsTest, NameMismatchIsRefused) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  TlsClientOptions o = Trusting("ca.crt");
  o.server_name = "exchange.example";
  auto c = client::Client::Connect("127.0.0.1", server.protobuf_tls_port(),
                                   kWait, "", &o);
  ASSERT_FALSE(c.has_value());
  EXPECT_TRUE(Contains(c.error().message(), "certificate verify failed"))
      << c.error().ToString();
}

TEST_F(TlsTest, ExpiredCertificateIsRefused) {
  TestServer server(Config("expired"));
  ASSERT_TRUE(server.Start().ok());
  const TlsClientOptions tls = Trusting("ca.crt");
  auto c = client::Client::Connect("127.0.0.1", server.protobuf_tls_port(),
                                   kWait, "", &tls);
  ASSERT_FALSE(c.has_value());
  EXPECT_TRUE(Contains(c.error().message(), "certificate verify failed"))
      << c.error().ToString();
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult curl = cfx::testing::RunTool(
      "curl -sS --cacert " + File("ca.crt") + " https://localhost:" +
          std::to_string(server.https_port()) + "/healthz",
      tmp.Sub("curl.err"));
  EXPECT_EQ(curl.exit_code, 60) << curl.err;
  EXPECT_TRUE(Contains(curl.err, "expired")) << curl.err;
}

TEST_F(TlsTest, MutualTlsAcceptsAClientCertificateFromTheCa) {
  TestServer server(Config("server", "client-ca.crt"));
  ASSERT_TRUE(server.Start().ok());
  TlsClientOptions o = Trusting("ca.crt");
  o.certificate_file = File("client.crt");
  o.private_key_file = File("client.key");
  auto c = TlsLogOn(server.protobuf_tls_port(), o, "trader-a");
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_TRUE(OrderAcknowledged(*c.value(), 1));
  auto fix = cli::FixInitiator::Connect("127.0.0.1", server.fix_tls_port(),
                                        TraderA(), kWait, &o);
  EXPECT_TRUE(fix.has_value()) << fix.error().ToString();
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult curl = cfx::testing::RunTool(
      "curl -sS --cacert " + File("ca.crt") + " --cert " + File("client.crt") +
          " --key " + File("client.key") + " https://localhost:" +
          std::to_string(server.https_port()) + "/healthz",
      tmp.Sub("curl.err"));
  EXPECT_EQ(curl.exit_code, 0) << curl.err;
}

// TLS 1.3: the client may finish its side of the handshake before the
// server has checked its certificate, so the refusal can arrive on the
// first read; either way there is no session.
TEST_F(TlsTest, MutualTlsRefusesNoOrAForeignClientCertificate) {
  TestServer server(Config("server", "client-ca.crt"));
  ASSERT_TRUE(server.Start().ok());
  TlsClientOptions stranger = Trusting("ca.crt");
  stranger.certificate_file = File("stranger.crt");
  stranger.private_key_file = File("stranger.key");
  for (const TlsClientOptions& o : {Trusting("ca.crt"), stranger}) {
    auto c = TlsLogOn(server.protobuf_tls_port(), o, "trader-a");
    EXPECT_FALSE(c.has_value()) << o.certificate_file;
    auto fix = cli::FixInitiator::Connect("127.0.0.1", server.fix_tls_port(),
                                          TraderA(), kWait, &o);
    EXPECT_FALSE(fix.has_value()) << o.certificate_file;
  }
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult curl = cfx::testing::RunTool(
      "curl -sS --cacert " + File("ca.crt") + " https://localhost:" +
          std::to_string(server.https_port()) + "/healthz",
      tmp.Sub("curl.err"));
  EXPECT_NE(curl.exit_code, 0) << curl.out;
  const std::string metrics = Metrics(server.http_port());
  EXPECT_FALSE(Contains(
      metrics, "cfx_tls_handshakes_total{port=\"protobuf\",result=\"ok\"} 1"))
      << metrics;
}

TEST_F(TlsTest, ReloadServesTheNewCertificateAndKeepsLiveSessions) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  auto pb = TlsLogOn(server.protobuf_tls_port(), Trusting("ca.crt"), "trader-a");
  ASSERT_TRUE(pb.has_value()) << pb.error().ToString();
  const TlsClientOptions tls = Trusting("ca.crt");
  auto fix = cli::FixInitiator::Connect("127.0.0.1", server.fix_tls_port(),
                                        TraderA(), kWait, &tls);
  ASSERT_TRUE(fix.has_value()) << fix.error().ToString();
  EXPECT_EQ(PeerCertificatePem(server.protobuf_tls_port(), File("ca.crt")),
            ReadFile(File("server.crt")));

  // The new certificate and key replace the files, then the reload.
  std::filesystem::copy_file(
      File("server2.crt"), File("server.crt"),
      std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(
      File("server2.key"), File("server.key"),
      std::filesystem::copy_options::overwrite_existing);
  ASSERT_TRUE(server.server().ReloadTls().ok());

  // The sessions opened before go on.
  EXPECT_TRUE(OrderAcknowledged(*pb.value(), 1));
  EXPECT_TRUE(fix.value()
                  ->Send("H", {{11, "1"}, {54, "1"}, {55, kSymbol}})
                  .ok());
  EXPECT_TRUE(fix.value()
                  ->ReceiveUntil([](const cli::FixMessage& m) {
                    return m.type == "8";
                  },
                             kWait)
                  .has_value());
  // New handshakes get the new certificate, on every listener.
  const std::string renewed = ReadFile(File("server2.crt"));
  EXPECT_EQ(PeerCertificatePem(server.protobuf_tls_port(), File("ca.crt")),
            renewed);
  EXPECT_EQ(PeerCertificatePem(server.fix_tls_port(), File("ca.crt")),
            renewed);
  EXPECT_EQ(PeerCertificatePem(server.https_port(), File("ca.crt")), renewed);
}

TEST_F(TlsTest, FailedReloadKeepsTheCurrentCertificate) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  const std::string before = ReadFile(File("server.crt"));
  ASSERT_TRUE(cfx::testing::WriteTextFile(File("server.crt"), "not a PEM\n"));
  const Status st = server.server().ReloadTls();
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st.message(), File("server.crt"))) << st.ToString();
  EXPECT_EQ(PeerCertificatePem(server.protobuf_tls_port(), File("ca.crt")),
            before);
}

// A client that opens TCP and never sends a ClientHello is closed at the
// pre-logon deadline (500 ms here; FIX rounds it up to whole seconds), as
// one that never logs on; garbage instead of a ClientHello fails at once.
TEST_F(TlsTest, UnfinishedHandshakeIsClosedAtThePreLogonDeadline) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  for (const uint16_t port : {server.protobuf_tls_port(), server.fix_tls_port(),
                              server.https_port()}) {
    const std::optional<Millis> idle = ClosedAfter(port, "");
    ASSERT_TRUE(idle.has_value()) << "port " << port << " stayed open";
    EXPECT_GE(idle->count(), 400) << port;
    const std::optional<Millis> garbage =
        ClosedAfter(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(garbage.has_value()) << "port " << port << " stayed open";
  }
  // None of it hurt the server.
  auto c = TlsLogOn(server.protobuf_tls_port(), Trusting("ca.crt"), "trader-a");
  EXPECT_TRUE(c.has_value()) << c.error().ToString();
  const std::string metrics = Metrics(server.http_port());
  for (const char* p : {"fix", "protobuf", "http"}) {
    EXPECT_TRUE(Contains(metrics, std::string("cfx_tls_handshakes_total{port=\"") +
                                      p + "\",result=\"failed\"} 2"))
        << p << "\n"
        << metrics;
  }
}

#ifdef CFX_TOOL
TEST_F(TlsTest, CfxToolConnectsWithTlsAndCa) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  cfx::testing::TempDir tmp;
  const cfx::testing::ToolResult ok = cfx::testing::RunCfxAs(
      CFX_TOOL, server.protobuf_tls_port(), "trader-a",
      "--tls --ca " + File("ca.crt") + " instruments", tmp.Sub("ok.err"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(Contains(ok.out, kSymbol)) << ok.out;
  // CFX_CA names the CA, as --ca does.
  const cfx::testing::ToolResult env = cfx::testing::RunTool(
      std::string(cfx::testing::kWithoutCfxEnv) + "CFX_CA=" + File("ca.crt") +
          " " + CFX_TOOL + " --tls --port " +
          std::to_string(server.protobuf_tls_port()) +
          " --api-key trader-a instruments </dev/null",
      tmp.Sub("env.err"));
  EXPECT_EQ(env.exit_code, 0) << env.err;
  const cfx::testing::ToolResult wrong = cfx::testing::RunCfxAs(
      CFX_TOOL, server.protobuf_tls_port(), "trader-a",
      "--tls --ca " + File("other-ca.crt") + " instruments",
      tmp.Sub("wrong.err"));
  cfx::testing::ExpectCfxError(wrong, cli::kExitConnection,
                               "certificate verify failed");
}
#endif

TEST_F(TlsTest, DemoRunsOverTls) {
  TestServer server(Config());
  ASSERT_TRUE(server.Start().ok());
  cli::DemoOptions o;
  o.port = server.protobuf_tls_port();
  o.fix_port = server.fix_tls_port();
  o.tls = Trusting("ca.crt");
  o.days = 1;
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(cli::RunDemo(o, out, err), cli::kExitOk)
      << err.str() << "\n"
      << out.str();
  const std::string metrics = Metrics(server.http_port());
  EXPECT_FALSE(Contains(
      metrics, "cfx_tls_handshakes_total{port=\"fix\",result=\"ok\"} 0"))
      << metrics;
  EXPECT_FALSE(Contains(
      metrics,
      "cfx_tls_handshakes_total{port=\"protobuf\",result=\"ok\"} 0"))
      << metrics;
}

TEST_F(TlsTest, PlaintextListenerOffLoopbackRefusesToStart) {
  ServerConfig config = Config();
  config.network.bind_address = "0.0.0.0";
  TestServer server(config);
  const Status st = server.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(st.message(), "plaintext listeners fix 0.0.0.0:"))
      << st.ToString();
}

TEST_F(TlsTest, MissingCertificateRefusesToStartUnlessSkipIfMissing) {
  ServerConfig config = Config();
  config.network.tls->certificate_file = File("absent.crt");
  {
    TestServer server(config);
    const Status st = server.Start();
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(Contains(st.message(), File("absent.crt"))) << st.ToString();
  }
  config.network.tls->skip_if_missing = true;
  TestServer server(config);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.protobuf_tls_port(), 0);
  EXPECT_EQ(server.fix_tls_port(), 0);
  EXPECT_EQ(server.https_port(), 0);
  EXPECT_NE(server.port(), 0);
}

}  // namespace
}  // namespace cfx::gateway::server_test
