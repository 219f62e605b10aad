// Logon nonces are used once, also across restarts (docs/protocol.md,
// "Session" 2): the store on its own (gateway/pb/logon_nonces.h) and a
// captured signed Logon sent again after the server restarted.
#include "gateway/pb/logon_nonces.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/gateway/server/server_fixture.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::pb {
namespace {

namespace w = cfx::wire::v1;
using Use = LogonNonces::Use;
namespace st = server_test;

constexpr int64_t kSecond = 1'000'000'000;

// Opens a store on `path` and uses each (nonce, timestamp) of key "key"
// once: each fresh, then reused.
void UseOnce(const std::string& path,
             const std::vector<std::pair<std::string, int64_t>>& uses) {
  LogonNonces n;
  ASSERT_TRUE(n.Open(path, 0).ok());
  for (const auto& [nonce, ts] : uses) {
    EXPECT_EQ(n.TryUse("key", nonce, ts), Use::kFresh) << nonce;
    EXPECT_EQ(n.TryUse("key", nonce, ts + 1), Use::kReused) << nonce;
  }
}

TEST(LogonNoncesTest, ANonceUsedBeforeReopeningIsStillUsed) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/nonces";
  UseOnce(path, {{"nonce-one", 100 * kSecond}});
  LogonNonces again;
  ASSERT_TRUE(again.Open(path, 0).ok());
  EXPECT_EQ(again.TryUse("key", "nonce-one", 102 * kSecond), Use::kReused);
  EXPECT_EQ(again.TryUse("other-key", "nonce-one", 102 * kSecond), Use::kFresh);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(LogonNoncesTest, NoncesOlderThanTheHorizonAreForgottenOnReopen) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/nonces";
  UseOnce(path, {{"old-nonce", 10 * kSecond}, {"new-nonce", 50 * kSecond}});
  LogonNonces again;
  ASSERT_TRUE(again.Open(path, 40 * kSecond).ok());
  EXPECT_EQ(again.size(), 1u);
  EXPECT_EQ(again.TryUse("key", "new-nonce", 60 * kSecond), Use::kReused);
}

TEST(LogonNoncesTest, ATornLastLineIsSkipped) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/nonces";
  {
    std::ofstream out(path);
    out << "5000000000 key kept-nonce\n7000000000 key";
  }
  LogonNonces n;
  ASSERT_TRUE(n.Open(path, 0).ok());
  EXPECT_EQ(n.size(), 1u);
  EXPECT_EQ(n.TryUse("key", "kept-nonce", 6 * kSecond), Use::kReused);
}

// Record() takes a nonce at once (a second use is refused before any
// sync) and numbers it; one Sync() covers every nonce recorded before it,
// and they are on disk after it.
TEST(LogonNoncesTest, OneSyncCoversEveryNonceRecordedBeforeIt) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/nonces";
  {
    LogonNonces n;
    ASSERT_TRUE(n.Open(path, 0).ok());
    uint64_t tickets[3] = {};
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(n.Record("key", "batched-" + std::to_string(i),
                         10 * kSecond, &tickets[i]),
                Use::kFresh);
    }
    EXPECT_LT(tickets[0], tickets[1]);
    EXPECT_LT(tickets[1], tickets[2]);
    uint64_t unused = 0;
    EXPECT_EQ(n.Record("key", "batched-1", 11 * kSecond, &unused),
              Use::kReused);
    uint64_t through = 0;
    ASSERT_TRUE(n.Sync(&through));
    EXPECT_EQ(through, tickets[2]);
    // Nothing more to sync: the same ticket.
    ASSERT_TRUE(n.Sync(&through));
    EXPECT_EQ(through, tickets[2]);
  }
  LogonNonces again;
  ASSERT_TRUE(again.Open(path, 0).ok());
  EXPECT_EQ(again.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(again.TryUse("key", "batched-" + std::to_string(i), 12 * kSecond),
              Use::kReused);
  }
}

TEST(LogonNoncesTest, AnUnwritableFileFailsOpen) {
  testing::TempDir dir;
  LogonNonces n;
  EXPECT_FALSE(n.Open(dir.path() + "/missing/dir/nonces", 0).ok());
}

TEST(PbLogonReplayTest, ACapturedLogonIsRefusedAfterARestart) {
  st::TestServer server;
  ASSERT_TRUE(server.Start().ok());
  client::LogonParams p = st::DemoLogon("trader-a");
  p.nonce = "captured-nonce-1";
  p.timestamp_ns = st::WallNowNs();
  const std::string logon = st::Frame(st::LogonMessage(p));
  {
    auto c = st::RawConnection::Connect(server.port());
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    ASSERT_TRUE(c.value()->Write(logon).ok());
    auto ack = c.value()->Read();
    ASSERT_TRUE(ack.has_value()) << ack.error().ToString();
    ASSERT_TRUE(ack.value().has_logon_ack()) << st::Describe(ack.value());
  }
  ASSERT_TRUE(server.Stop().ok());
  const Status restarted = server.Start();
  ASSERT_TRUE(restarted.ok()) << restarted.ToString();

  auto c = st::RawConnection::Connect(server.port());
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  ASSERT_TRUE(c.value()->Write(logon).ok());
  auto r = c.value()->Read();
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_TRUE(r.value().has_logon_reject()) << st::Describe(r.value());
  EXPECT_EQ(r.value().logon_reject().reason(),
            w::LOGON_REJECT_REASON_NONCE_REUSED);

  // A fresh logon of the same user still works.
  client::LogonParams fresh = st::DemoLogon("trader-a");
  auto ok = st::LogOn(server.port(), fresh);
  EXPECT_TRUE(ok.has_value()) << ok.error().ToString();
}

}  // namespace
}  // namespace cfx::gateway::pb
