#include "gateway/crypto/ed25519.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "gateway/session/attestation_signature.h"
#include "tests/gateway/crypto/ed25519_test_vector.h"
#include "tests/support/temp_dir.h"

namespace cfx::gateway::crypto {
namespace {

using test_vector::kRfcPrivate;
using test_vector::kRfcPublic;
using test_vector::kRfcSignature;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, std::string_view data) {
  std::ofstream(path, std::ios::binary) << data;
}

bool HaveOpenssl() {
  return std::system("openssl version >/dev/null 2>&1") == 0;
}

// Runs a shell command; its exit status.
int Shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Ed25519, SignMatchesRfc8032TestVector) {
  Result<std::string> pub = PublicKeyOf(kRfcPrivate);
  ASSERT_TRUE(pub.has_value()) << pub.error().ToString();
  EXPECT_EQ(pub.value(), kRfcPublic);
  Result<std::string> sig = Sign(kRfcPrivate, "");
  ASSERT_TRUE(sig.has_value()) << sig.error().ToString();
  EXPECT_EQ(sig.value(), kRfcSignature);
  EXPECT_TRUE(Verify(kRfcPublic, "", kRfcSignature));
}

TEST(Ed25519, GeneratedKeySignsAndVerifies) {
  Result<Ed25519KeyPair> pair = GenerateKeyPair();
  ASSERT_TRUE(pair.has_value()) << pair.error().ToString();
  EXPECT_EQ(pair.value().private_key.size(), 32u);
  EXPECT_EQ(pair.value().public_key.size(), 32u);
  EXPECT_EQ(PublicKeyOf(pair.value().private_key).value(),
            pair.value().public_key);
  Result<std::string> sig = Sign(pair.value().private_key, "hello\n");
  ASSERT_TRUE(sig.has_value());
  EXPECT_EQ(sig.value().size(), 64u);
  EXPECT_TRUE(Verify(pair.value().public_key, "hello\n", sig.value()));
}

TEST(Ed25519, GeneratedKeysDiffer) {
  Result<Ed25519KeyPair> a = GenerateKeyPair();
  Result<Ed25519KeyPair> b = GenerateKeyPair();
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_NE(a.value().private_key, b.value().private_key);
  EXPECT_NE(a.value().public_key, b.value().public_key);
}

TEST(Ed25519, WrongLengthsAreRejected) {
  const std::string sig = Sign(kRfcPrivate, "m").value();
  EXPECT_FALSE(Verify(kRfcPublic.substr(1), "m", sig));
  EXPECT_FALSE(Verify(kRfcPublic, "m", sig.substr(1)));
  EXPECT_FALSE(Verify(kRfcPublic, "m", sig + "x"));
  EXPECT_FALSE(Verify("", "m", ""));
  Result<std::string> short_key = Sign(kRfcPrivate.substr(1), "m");
  ASSERT_FALSE(short_key.has_value());
  EXPECT_EQ(short_key.error().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(PublicKeyOf(kRfcPrivate + "x").has_value());
}

TEST(Ed25519, KeyIdMatchesOpensslDigestOfTheSpkiKey) {
  if (!HaveOpenssl()) GTEST_SKIP() << "no openssl binary";
  cfx::testing::TempDir dir;
  Ed25519KeyPair pair = GenerateKeyPair().value();
  ASSERT_TRUE(WritePublicKeyFile(dir.Sub("k.pub"), pair.public_key).ok());
  // The raw key is the last 32 bytes of the DER SubjectPublicKeyInfo.
  ASSERT_EQ(Shell("openssl pkey -pubin -in " + dir.Sub("k.pub") +
                  " -outform DER | tail -c 32 | openssl dgst -sha256 -r > " +
                  dir.Sub("digest")),
            0);
  EXPECT_EQ(attest::AttesterKeyId(pair.public_key),
            "ed25519:" + ReadAll(dir.Sub("digest")).substr(0, 16));
}

class KeyFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir_.path().empty()); }
  cfx::testing::TempDir dir_;
};

TEST_F(KeyFilesTest, PemFilesRoundTrip) {
  ASSERT_TRUE(WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate).ok());
  ASSERT_TRUE(WritePublicKeyFile(dir_.Sub("k.pub"), kRfcPublic).ok());
  EXPECT_EQ(ReadPrivateKeyFile(dir_.Sub("k.key")).value(), kRfcPrivate);
  EXPECT_EQ(ReadPublicKeyFile(dir_.Sub("k.pub")).value(), kRfcPublic);
  EXPECT_EQ(
      ReadAll(dir_.Sub("k.key")).rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  EXPECT_EQ(ReadAll(dir_.Sub("k.pub")).rfind("-----BEGIN PUBLIC KEY-----\n", 0),
            0u);
}

TEST_F(KeyFilesTest, PrivateKeyFileHasMode0600) {
  const mode_t old = ::umask(0);  // the mode must not depend on the umask
  const Status s = WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate);
  ::umask(old);
  ASSERT_TRUE(s.ok()) << s.ToString();
  struct stat st {};
  ASSERT_EQ(::stat(dir_.Sub("k.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(KeyFilesTest, WritingNeverReplacesAFile) {
  WriteAll(dir_.Sub("k.key"), "keep me");
  Status s = WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate);
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message().rfind(dir_.Sub("k.key") + ": ", 0), 0u) << s.message();
  EXPECT_EQ(ReadAll(dir_.Sub("k.key")), "keep me");
  WriteAll(dir_.Sub("k.pub"), "keep me");
  EXPECT_EQ(WritePublicKeyFile(dir_.Sub("k.pub"), kRfcPublic).code(),
            StatusCode::kAlreadyExists);
}

TEST_F(KeyFilesTest, ReadErrorsNameTheFile) {
  ASSERT_TRUE(WritePublicKeyFile(dir_.Sub("k.pub"), kRfcPublic).ok());
  ASSERT_TRUE(WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate).ok());
  WriteAll(dir_.Sub("junk"), "not a key\n");
  struct Case {
    Result<std::string> result;
    std::string path;
    std::string_view reason;
  };
  const Case cases[] = {
      {ReadPrivateKeyFile(dir_.Sub("k.pub")), dir_.Sub("k.pub"),
       "not an unencrypted PEM private key"},
      {ReadPrivateKeyFile(dir_.Sub("junk")), dir_.Sub("junk"),
       "not an unencrypted PEM private key"},
      {ReadPublicKeyFile(dir_.Sub("k.key")), dir_.Sub("k.key"),
       "not a PEM public key"},
      {ReadPublicKeyFile(dir_.Sub("junk")), dir_.Sub("junk"),
       "not a PEM public key"},
      {ReadPublicKeyFile(dir_.Sub("missing")), dir_.Sub("missing"),
       "No such file"},
      {ReadPrivateKeyFile(dir_.path()), dir_.path(), "not a regular file"},
  };
  for (const Case& c : cases) {
    ASSERT_FALSE(c.result.has_value()) << c.path;
    const std::string& m = c.result.error().message();
    EXPECT_EQ(m.rfind(c.path + ": ", 0), 0u) << m;
    EXPECT_NE(m.find(c.reason), std::string::npos) << m;
  }
}

TEST_F(KeyFilesTest, ErrorsNeverContainPrivateKeyBytes) {
  ASSERT_TRUE(WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate).ok());
  const std::string pem = ReadAll(dir_.Sub("k.key"));
  // A private key where a public one is expected.
  Result<std::string> r = ReadPublicKeyFile(dir_.Sub("k.key"));
  ASSERT_FALSE(r.has_value());
  const std::string body = pem.substr(pem.find('\n') + 1, 20);
  EXPECT_EQ(r.error().message().find(body), std::string::npos);
  EXPECT_EQ(r.error().message().find(kRfcPrivate), std::string::npos);
}

TEST_F(KeyFilesTest, OpensslReadsOurKeyFiles) {
  if (!HaveOpenssl()) GTEST_SKIP() << "no openssl binary";
  ASSERT_TRUE(WritePrivateKeyFile(dir_.Sub("k.key"), kRfcPrivate).ok());
  ASSERT_TRUE(WritePublicKeyFile(dir_.Sub("k.pub"), kRfcPublic).ok());
  EXPECT_EQ(Shell("openssl pkey -in " + dir_.Sub("k.key") + " -pubout -out " +
                  dir_.Sub("derived.pub") + " 2>/dev/null"),
            0);
  EXPECT_EQ(ReadAll(dir_.Sub("derived.pub")), ReadAll(dir_.Sub("k.pub")));
  EXPECT_EQ(Shell("openssl pkey -pubin -in " + dir_.Sub("k.pub") +
                  " -noout 2>/dev/null"),
            0);
}

TEST_F(KeyFilesTest, ReadsKeysMadeByOpenssl) {
  if (!HaveOpenssl()) GTEST_SKIP() << "no openssl binary";
  ASSERT_EQ(Shell("openssl genpkey -algorithm ed25519 -out " +
                  dir_.Sub("o.key") + " && openssl pkey -in " +
                  dir_.Sub("o.key") + " -pubout -out " + dir_.Sub("o.pub")),
            0);
  Result<std::string> priv = ReadPrivateKeyFile(dir_.Sub("o.key"));
  Result<std::string> pub = ReadPublicKeyFile(dir_.Sub("o.pub"));
  ASSERT_TRUE(priv.has_value()) << priv.error().ToString();
  ASSERT_TRUE(pub.has_value()) << pub.error().ToString();
  EXPECT_EQ(PublicKeyOf(priv.value()).value(), pub.value());
}

TEST_F(KeyFilesTest, EncryptedAndNonEd25519KeysAreRejected) {
  if (!HaveOpenssl()) GTEST_SKIP() << "no openssl binary";
  ASSERT_EQ(Shell("openssl genpkey -algorithm ed25519 -aes-256-cbc -pass "
                  "pass:secret -out " +
                  dir_.Sub("enc.key") + " </dev/null"),
            0);
  Result<std::string> enc = ReadPrivateKeyFile(dir_.Sub("enc.key"));
  ASSERT_FALSE(enc.has_value());
  EXPECT_NE(enc.error().message().find("not an unencrypted PEM private key"),
            std::string::npos)
      << enc.error().message();

  ASSERT_EQ(
      Shell("openssl genpkey -algorithm ed448 -out " + dir_.Sub("ed448.key") +
            " && openssl pkey -in " + dir_.Sub("ed448.key") + " -pubout -out " +
            dir_.Sub("ed448.pub")),
      0);
  Result<std::string> ed448 = ReadPrivateKeyFile(dir_.Sub("ed448.key"));
  ASSERT_FALSE(ed448.has_value());
  EXPECT_EQ(ed448.error().message(),
            dir_.Sub("ed448.key") + ": not an Ed25519 key");
  Result<std::string> ed448_pub = ReadPublicKeyFile(dir_.Sub("ed448.pub"));
  ASSERT_FALSE(ed448_pub.has_value());
  EXPECT_EQ(ed448_pub.error().message(),
            dir_.Sub("ed448.pub") + ": not an Ed25519 key");
}

}  // namespace
}  // namespace cfx::gateway::crypto
