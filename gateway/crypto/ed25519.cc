#include "gateway/crypto/ed25519.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <unistd.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "exchange/core/reference/attestation.h"
#include "gateway/crypto/openssl_key.h"
#include "gateway/crypto/file_io.h"

namespace cfx::gateway::crypto {

namespace {

// PEM key files are a few hundred bytes.
constexpr std::size_t kMaxKeyFileBytes = 64 * 1024;

using internal::Bytes;
using internal::MdCtx;
using internal::Pkey;
using internal::PublicPkey;

struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using Bio = std::unique_ptr<BIO, BioFree>;

// An OpenSSL failure: clears OpenSSL's error queue so it does not leak into
// unrelated later calls.
Status OpenSslError(std::string what) {
  ERR_clear_error();
  return InternalError("OpenSSL: " + what);
}

Pkey PrivatePkey(std::string_view private_key) {
  return Pkey(EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, Bytes(private_key), private_key.size()));
}

Result<std::string> RawPrivate(EVP_PKEY* pkey) {
  std::string out(kEd25519PrivateKeyBytes, '\0');
  std::size_t len = out.size();
  if (EVP_PKEY_get_raw_private_key(
          pkey, reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
      len != kEd25519PrivateKeyBytes) {
    OPENSSL_cleanse(out.data(), out.size());
    return OpenSslError("cannot read the raw private key");
  }
  return out;
}

Result<std::string> RawPublic(EVP_PKEY* pkey) {
  std::string out(kEd25519PublicKeyBytes, '\0');
  std::size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(
          pkey, reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
      len != kEd25519PublicKeyBytes) {
    return OpenSslError("cannot read the raw public key");
  }
  return out;
}

Status CheckPrivateKeyLength(std::string_view private_key) {
  if (private_key.size() != kEd25519PrivateKeyBytes) {
    return InvalidArgumentError("an Ed25519 private key is 32 bytes, not " +
                                std::to_string(private_key.size()));
  }
  return Status::Ok();
}

// The PEM text a BIO holds.
std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  if (len <= 0 || data == nullptr) return {};
  return std::string(data, static_cast<std::size_t>(len));
}

// Passphrase callback that refuses: an encrypted key fails instead of
// prompting on the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

// The mem BIO of `pem`, read-only.
Bio ReadBio(std::string_view pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

Status WithPath(const std::string& path, const Status& s) {
  return Status(s.code(), path + ": " + s.message());
}

}  // namespace

bool Verify(std::string_view public_key, std::string_view message,
            std::string_view signature) {
  if (public_key.size() != kEd25519PublicKeyBytes ||
      signature.size() != kEd25519SignatureBytes) {
    return false;
  }
  Pkey pkey = PublicPkey(public_key);
  MdCtx ctx(EVP_MD_CTX_new());
  const bool ok =
      pkey != nullptr && ctx != nullptr &&
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) ==
          1 &&
      EVP_DigestVerify(ctx.get(), Bytes(signature), signature.size(),
                       Bytes(message), message.size()) == 1;
  // A bad signature leaves an error on OpenSSL's queue.
  ERR_clear_error();
  return ok;
}

Result<Ed25519KeyPair> GenerateKeyPair() {
  PkeyCtx ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* raw = nullptr;
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_keygen(ctx.get(), &raw) != 1) {
    return OpenSslError("Ed25519 key generation failed");
  }
  Pkey pkey(raw);
  Result<std::string> priv = RawPrivate(pkey.get());
  if (!priv.has_value()) return priv.error();
  Result<std::string> pub = RawPublic(pkey.get());
  if (!pub.has_value()) return pub.error();
  return Ed25519KeyPair{std::move(priv).value(), std::move(pub).value()};
}

Result<std::string> PublicKeyOf(std::string_view private_key) {
  CFX_RETURN_IF_ERROR(CheckPrivateKeyLength(private_key));
  Pkey pkey = PrivatePkey(private_key);
  if (pkey == nullptr) return OpenSslError("not an Ed25519 private key");
  return RawPublic(pkey.get());
}

Result<std::string> Sign(std::string_view private_key,
                         std::string_view message) {
  CFX_RETURN_IF_ERROR(CheckPrivateKeyLength(private_key));
  Pkey pkey = PrivatePkey(private_key);
  MdCtx ctx(EVP_MD_CTX_new());
  if (pkey == nullptr || ctx == nullptr) {
    return OpenSslError("cannot set up Ed25519 signing");
  }
  std::string sig(kEd25519SignatureBytes, '\0');
  std::size_t len = sig.size();
  // Ed25519 hashes internally (PureEdDSA): no digest, one-shot only.
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) !=
          1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()),
                     &len, Bytes(message), message.size()) != 1 ||
      len != kEd25519SignatureBytes) {
    return OpenSslError("Ed25519 signing failed");
  }
  return sig;
}

Result<std::string> PrivateKeyToPem(std::string_view private_key) {
  CFX_RETURN_IF_ERROR(CheckPrivateKeyLength(private_key));
  Pkey pkey = PrivatePkey(private_key);
  Bio bio(BIO_new(BIO_s_mem()));
  // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY").
  if (pkey == nullptr || bio == nullptr ||
      PEM_write_bio_PrivateKey(bio.get(), pkey.get(), nullptr, nullptr, 0,
                               nullptr, nullptr) != 1) {
    return OpenSslError("cannot encode the private key as PEM");
  }
  std::string pem = BioText(bio.get());
  // The mem BIO's buffer held the key: wipe it before it is freed.
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  if (len > 0 && data != nullptr) {
    OPENSSL_cleanse(data, static_cast<std::size_t>(len));
  }
  return pem;
}

Result<std::string> PublicKeyToPem(std::string_view public_key) {
  if (public_key.size() != kEd25519PublicKeyBytes) {
    return InvalidArgumentError("an Ed25519 public key is 32 bytes, not " +
                                std::to_string(public_key.size()));
  }
  Pkey pkey = PublicPkey(public_key);
  Bio bio(BIO_new(BIO_s_mem()));
  if (pkey == nullptr || bio == nullptr ||
      PEM_write_bio_PUBKEY(bio.get(), pkey.get()) != 1) {
    return OpenSslError("cannot encode the public key as PEM");
  }
  return BioText(bio.get());
}

Result<std::string> PrivateKeyFromPem(std::string_view pem) {
  Bio bio = ReadBio(pem);
  if (bio == nullptr) return OpenSslError("out of memory");
  Pkey pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  ERR_clear_error();
  if (pkey == nullptr) {
    return InvalidArgumentError(
        "not an unencrypted PEM private key (BEGIN PRIVATE KEY)");
  }
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) {
    return InvalidArgumentError("not an Ed25519 key");
  }
  return RawPrivate(pkey.get());
}

Result<std::string> PublicKeyFromPem(std::string_view pem) {
  Bio bio = ReadBio(pem);
  if (bio == nullptr) return OpenSslError("out of memory");
  Pkey pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  ERR_clear_error();
  if (pkey == nullptr) {
    return InvalidArgumentError("not a PEM public key (BEGIN PUBLIC KEY)");
  }
  if (EVP_PKEY_get_id(pkey.get()) != EVP_PKEY_ED25519) {
    return InvalidArgumentError("not an Ed25519 key");
  }
  return RawPublic(pkey.get());
}

Status WritePrivateKeyFile(const std::string& path,
                           std::string_view private_key) {
  Result<std::string> pem = PrivateKeyToPem(private_key);
  if (!pem.has_value()) return WithPath(path, pem.error());
  Status s = WriteNewFile(path, pem.value(), 0600);
  OPENSSL_cleanse(pem.value().data(), pem.value().size());
  return s;
}

Status WritePublicKeyFile(const std::string& path,
                          std::string_view public_key) {
  Result<std::string> pem = PublicKeyToPem(public_key);
  if (!pem.has_value()) return WithPath(path, pem.error());
  return WriteNewFile(path, pem.value(), 0644);
}

Result<std::string> ReadPrivateKeyFile(const std::string& path) {
  Result<std::string> text = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!text.has_value()) return text.error();
  Result<std::string> key = PrivateKeyFromPem(text.value());
  OPENSSL_cleanse(text.value().data(), text.value().size());
  if (!key.has_value()) return WithPath(path, key.error());
  return key;
}

Result<std::string> ReadPublicKeyFile(const std::string& path) {
  Result<std::string> text = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!text.has_value()) return text.error();
  Result<std::string> key = PublicKeyFromPem(text.value());
  if (!key.has_value()) return WithPath(path, key.error());
  return key;
}

Result<std::string> WriteNewKeyPair(const std::string& prefix) {
  const std::string key_path = prefix + ".key";
  const std::string pub_path = prefix + ".pub";
  for (const std::string& path : {key_path, pub_path}) {
    if (::access(path.c_str(), F_OK) == 0) {
      return Status(StatusCode::kAlreadyExists,
                    path + ": already exists; refusing to overwrite a key");
    }
  }
  Result<Ed25519KeyPair> pair = GenerateKeyPair();
  if (!pair.has_value()) return pair.error();
  Status s = WritePrivateKeyFile(key_path, pair.value().private_key);
  Wipe(pair.value().private_key);
  if (!s.ok()) return s;
  s = WritePublicKeyFile(pub_path, pair.value().public_key);
  if (!s.ok()) {
    // A private key without its public file is half a key pair.
    ::unlink(key_path.c_str());
    return s;
  }
  return pair.value().public_key;
}

void Wipe(std::string& secret) {
  if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

}  // namespace cfx::gateway::crypto
