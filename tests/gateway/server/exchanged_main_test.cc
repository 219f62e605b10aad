// cfx-exchanged's start-up rules (gateway/exchanged_main.cc): demo
// identities serve loopback only and are announced in the log, and the data
// dir and every file in it are private to the server's user, whatever the
// umask it was started with.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/gateway/server/exchanged_process.h"
#include "tests/support/run_tool.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace cfx::gateway::server_test {
namespace {

#if defined(CFX_EXCHANGED) && defined(CFX_EXCHANGE_CONFIG)

namespace fs = std::filesystem;
using cfx::testing::Contains;

// Sets the process umask for its lifetime (a child inherits it).
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : saved_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(saved_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t saved_;
};

unsigned ModeOf(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return 07777;
  return static_cast<unsigned>(st.st_mode & 07777);
}

TEST(ExchangedMain, DataDirAndEveryFileInItArePrivate) {
  cfx::testing::TempDir tmp;
  const std::string data = tmp.Sub("data");
  {
    ScopedUmask lax(022);
    Exchanged server;
    ASSERT_TRUE(server.Start(data));
    // An order, so that the journal, the FIX store and the ledger all hold
    // something.
    ClientPtr trader = server.LogOnWithRetry(DemoLogon("trader-a"));
    ASSERT_NE(trader, nullptr);
    ASSERT_TRUE(trader->Send(NewOrder(1, w::SIDE_BUY, kPrice, 1)).ok());
    ASSERT_TRUE(
        trader
            ->ReceiveUntil(
                [](const w::Envelope& e) { return e.has_execution_report(); },
                kWait)
            .has_value());
    server.Kill(SIGTERM);  // clean stop: a final snapshot
  }
  EXPECT_EQ(ModeOf(data), 0700u);
  int files = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(data)) {
    const unsigned mode = ModeOf(e.path());
    EXPECT_EQ(mode & 077u, 0u) << e.path() << " has mode " << std::oct << mode;
    if (e.is_regular_file()) ++files;
  }
  EXPECT_GT(files, 3);  // journal, snapshot, FIX store and ClOrdID files ...
}

TEST(ExchangedMain, WideDataDirGetsAWarning) {
  cfx::testing::TempDir tmp;
  const std::string data = tmp.Sub("data");
  ASSERT_EQ(::mkdir(data.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(data.c_str(), 0755), 0);
  Exchanged server;
  ASSERT_TRUE(server.Start(data));
  server.Kill(SIGTERM);
  EXPECT_TRUE(
      Contains(server.log(), "WARNING: data dir " + data + " has mode 755"))
      << server.log();
}

TEST(ExchangedMain, DemoIdentitiesAreAnnouncedInTheLog) {
  cfx::testing::TempDir tmp;
  Exchanged server;
  ASSERT_TRUE(server.Start(tmp.Sub("data")));
  server.Kill(SIGTERM);
  EXPECT_TRUE(Contains(server.log(),
                       "WARNING: demo identities with published credentials "
                       "are in use ("))
      << server.log();
  EXPECT_TRUE(Contains(server.log(), "admin")) << server.log();
}

TEST(ExchangedMain, DemoIdentitiesRefuseANonLoopbackAddress) {
  cfx::testing::TempDir tmp;
  std::ifstream in(CFX_EXCHANGE_CONFIG);
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  const std::string loopback = "bind_address: \"127.0.0.1\"";
  const std::size_t at = config.find(loopback);
  ASSERT_NE(at, std::string::npos);
  config.replace(at, loopback.size(), "bind_address: \"0.0.0.0\"");
  const std::string path = tmp.Sub("exchange.textproto");
  std::ofstream(path) << config;

  const cfx::testing::ToolResult r = cfx::testing::RunTool(
      std::string(CFX_EXCHANGED) + " --config " + path + " --data-dir " +
          tmp.Sub("data") + " --protobuf-port 0 --fix-port 0 --http-port 0",
      tmp.Sub("stderr"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err,
                       "refusing to start: the fix, protobuf and http "
                       "listeners bind 0.0.0.0"))
      << r.err;
  EXPECT_FALSE(fs::exists(tmp.Sub("data")));
}

TEST(ExchangedMain, PlaintextListenerOffLoopbackRefusesToStart) {
  cfx::testing::TempDir tmp;
  const std::string path = tmp.Sub("exchange.textproto");
  std::ofstream(path) << "network { bind_address: \"0.0.0.0\" }\n";
  const cfx::testing::ToolResult r = cfx::testing::RunTool(
      std::string(CFX_EXCHANGED) + " --config " + path + " --data-dir " +
          tmp.Sub("data"),
      tmp.Sub("stderr"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err,
                       "refusing to start: the plaintext listeners fix "
                       "0.0.0.0:9878, protobuf 0.0.0.0:9879 and http "
                       "0.0.0.0:9880 bind a non-loopback address without "
                       "TLS"))
      << r.err;
  EXPECT_FALSE(fs::exists(tmp.Sub("data")));
}

// The shipped config's TLS listeners open once the data dir has the demo
// certificate (as deploy/demo-certs makes it); SIGHUP reloads it and the
// server keeps running.
TEST(ExchangedMain, ShippedConfigServesTlsAndSighupReloadsTheCertificate) {
  cfx::testing::TempDir tmp;
  const std::string data = tmp.Sub("data");
  ASSERT_EQ(::mkdir(data.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((data + "/tls").c_str(), 0700), 0);
  ASSERT_TRUE(cfx::testing::WriteTestCerts(data + "/tls"));
  Exchanged server;
  ASSERT_TRUE(server.Start(data));
  EXPECT_TRUE(Contains(server.log(), ", fix TLS 127.0.0.1:")) << server.log();
  EXPECT_TRUE(Contains(server.log(), ", protobuf TLS 127.0.0.1:"))
      << server.log();
  EXPECT_TRUE(Contains(server.log(), ", https 127.0.0.1:")) << server.log();
  fs::copy_file(data + "/tls/server2.crt", data + "/tls/server.crt",
                fs::copy_options::overwrite_existing);
  fs::copy_file(data + "/tls/server2.key", data + "/tls/server.key",
                fs::copy_options::overwrite_existing);
  server.Signal(SIGHUP);
  EXPECT_TRUE(server.WaitForLog("tls: reloaded " + data + "/tls/server.crt",
                                kWait))
      << server.log();
  // Still serving after the reload.
  ClientPtr trader = server.LogOnWithRetry(DemoLogon("trader-a"));
  EXPECT_NE(trader, nullptr);
  server.Kill(SIGTERM);
}

TEST(ExchangedMain, ShippedConfigWithoutTheCertificateStartsWithoutTls) {
  cfx::testing::TempDir tmp;
  Exchanged server;
  ASSERT_TRUE(server.Start(tmp.Sub("data")));
  server.Kill(SIGTERM);
  EXPECT_TRUE(Contains(server.log(), "WARNING: no TLS listeners: "))
      << server.log();
  EXPECT_FALSE(Contains(server.log(), "fix TLS")) << server.log();
}

#else

TEST(ExchangedMain, DataDirAndEveryFileInItArePrivate) {
  GTEST_SKIP() << "built without cfx-exchanged";
}

#endif

}  // namespace
}  // namespace cfx::gateway::server_test
