#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "exchange/core/status.h"
#include "exchange/core/types.h"

namespace cfx::exchange {

// Reference data enters the exchange as a Command of type kReferenceData
// whose variable-length payload is journaled with it (docs/journal.md). The
// payload is one of the messages below in a small binary encoding:
//
//   u8 format version (1) | u8 kind (ReferenceKind) | fields in order
//
// integers little-endian, strings as u16 length + bytes, no trailing bytes.
// The gateway builds payloads from the authenticated session (the acting
// firm is never taken from a client's field); the registry decodes them.
inline constexpr uint8_t kReferencePayloadVersion = 1;
inline constexpr std::size_t kReferencePayloadMaxBytes = 8'192;

enum class ReferenceKind : uint8_t {
  kNone = 0,
  kRatingSet = 1,
  kRatingRevoke = 2,
  kAttesterKeyRegister = 3,
  kAttesterKeyRevoke = 4,
  kAttestationSubmit = 5,
  kUserAdd = 6,
  kUserSetEnabled = 7,
  kUserSetPassword = 8,
  kApiKeyAdd = 9,
  kApiKeyRevoke = 10,
};

// Rating tiers, best first; numbers equal cfx.config.v1.RatingTier.
enum class Tier : uint8_t {
  kNone = 0,
  kPlatinum = 1,
  kGold = 2,
  kSilver = 3,
  kBronze = 4,
  kUnderperform = 5,
};

// Rating agency: operator `operator_firm` is rated `tier` for
// [effective, expires). `agency` is the submitting user's firm; `reference`
// is the agency's own id of the rating, unique per operator.
struct RatingSet {
  std::string operator_firm;
  Tier tier = Tier::kNone;
  Timestamp effective;
  Timestamp expires;
  std::string agency;
  std::string reference;
};

// Rating agency: withdraws the operator's rating `reference`.
struct RatingRevoke {
  std::string operator_firm;
  std::string reference;
  std::string agency;
};

// Admin: registers an attester's Ed25519 public key under its id
// (gateway/tools/attest computes the id from the key).
struct AttesterKeyRegister {
  std::string key_id;
  std::string public_key;  // 32 raw bytes
  std::string attester;    // the attester firm, e.g. "ATTEST"
};

// Admin: revokes a key. Attestations signed with it stop counting.
struct AttesterKeyRevoke {
  std::string key_id;
};

// Provider: submits an attestation whose signature the gateway has verified
// against the registered key. `canonical` is the signed canonical encoding
// (exchange/core/reference/attestation.h); `submitter` is the submitting
// session's firm.
struct AttestationSubmit {
  std::string submitter;
  std::string canonical;
  std::string signature;  // 64 raw bytes
};

// API key kinds; numbers equal cfx.config.v1.ApiKey.Kind.
inline constexpr uint8_t kApiKeyEd25519 = 1;
inline constexpr uint8_t kApiKeyHmacSha256 = 2;
// Keys an ApiKeyAdd may bring a user to at most, revoked ones included
// (API_KEY_LIMIT beyond).
inline constexpr std::size_t kMaxApiKeysPerUser = 64;

// A protobuf logon key of a user as the registry keeps it (docs/config.md,
// "API keys"): the config's api_keys seed them, ApiKeyAdd (ed25519 only) and
// ApiKeyRevoke change them. Never a secret: an hmac-sha256 key's secret
// stays in the config file, only its id and kind are here.
struct ReferenceApiKey {
  std::string id;
  uint8_t kind = kApiKeyEd25519;
  std::string public_key;  // ed25519: 32 raw bytes; hmac-sha256: empty
  bool revoked = false;    // not in ApiKeyAdd's payload: a key starts active
  friend bool operator==(const ReferenceApiKey&,
                         const ReferenceApiKey&) = default;
};

// A user of the exchange as the registry keeps it (docs/config.md,
// "Users"): the config's users seed it, the admin's commands below change
// it. Only what decides a logon and a session's identity is here: never a
// plaintext password (a PBKDF2 hash, gateway/config/password.h). `role`
// equals cfx.config.v1.Role; `account` is 0 for none.
struct ReferenceUser {
  std::string name;
  std::string firm;
  uint8_t role = 0;
  uint64_t account = 0;
  std::string fix_sender_comp_id;  // empty: no FIX access
  std::string password_hash;       // empty: no password logon
  bool enabled = true;  // not in UserAdd's payload: a user starts enabled
  // In the order added; revoked keys stay (an id is never used again). Not
  // in UserAdd's payload: a user starts with none.
  std::vector<ReferenceApiKey> api_keys;
  friend bool operator==(const ReferenceUser&, const ReferenceUser&) = default;
};

// Admin: adds a user (enabled).
struct UserAdd {
  ReferenceUser user;
  friend bool operator==(const UserAdd&, const UserAdd&) = default;
};

// Admin: disables (its sessions are logged out, logons refused) or enables
// a user.
struct UserSetEnabled {
  std::string name;
  bool enabled = false;
  friend bool operator==(const UserSetEnabled&,
                         const UserSetEnabled&) = default;
};

// Admin: replaces a user's password hash (the gateway hashed the password).
struct UserSetPassword {
  std::string name;
  std::string password_hash;
  friend bool operator==(const UserSetPassword&,
                         const UserSetPassword&) = default;
};

// The admin, or the user itself, adds an Ed25519 key to user `user`.
struct ApiKeyAdd {
  std::string user;
  ReferenceApiKey key;
  friend bool operator==(const ApiKeyAdd&, const ApiKeyAdd&) = default;
};

// The admin, or the user itself, revokes key `key_id` of user `user`: the
// sessions logged on with it are logged out, its logons refused.
struct ApiKeyRevoke {
  std::string user;
  std::string key_id;
  friend bool operator==(const ApiKeyRevoke&, const ApiKeyRevoke&) = default;
};

using ReferenceMessage =
    std::variant<RatingSet, RatingRevoke, AttesterKeyRegister,
                 AttesterKeyRevoke, AttestationSubmit, UserAdd, UserSetEnabled,
                 UserSetPassword, ApiKeyAdd, ApiKeyRevoke>;

// Returns the payload, or "" (which never decodes) when `m` cannot be
// encoded: a string longer than the u16 length allows (65,535 bytes) or a
// payload longer than kReferencePayloadMaxBytes. Field values are not
// checked: the registry judges them (a tier above kUnderperform encodes,
// and then does not decode).
std::string EncodeReferencePayload(const ReferenceMessage& m);

// kInvalidArgument naming what is wrong (version, kind, a truncated field,
// trailing bytes, a length above kReferencePayloadMaxBytes, an unknown tier,
// i.e. one above kUnderperform; Tier::kNone decodes and the registry
// rejects it).
Result<ReferenceMessage> DecodeReferencePayload(std::string_view bytes);

}  // namespace cfx::exchange
