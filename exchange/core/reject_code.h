#pragma once

#include <cstdint>
#include <string_view>

namespace cfx::exchange {

// Why a command was refused. Ranged by stage (exchange-core's
// CommandResultCode): 1xxx validation, 2xxx risk, 3xxx matching,
// 4xxx state/admin, 9xxx system. Values are part of the wire and journal
// contract: append, never renumber.
enum class RejectCode : uint16_t {
  kNone = 0,

  // 1xxx: the command itself is malformed or does not fit the instrument.
  kUnknownCommand = 1001,
  kUnknownInstrument = 1002,
  kUnknownAccount = 1003,
  kInvalidSide = 1004,
  kInvalidOrderType = 1005,
  kInvalidTimeInForce = 1006,
  kInvalidStpMode = 1007,
  kInvalidPrice = 1008,  // zero or negative limit price
  kPriceNotOnTick = 1009,
  kPriceOutOfRange = 1010,  // above the instrument's maximum price
  kQuantityBelowMinimum = 1011,
  kQuantityAboveMaximum = 1012,
  kMissingExpireTime = 1013,  // GTD without an expire time
  kExpireTimeInPast = 1014,
  kMarketOrderNeedsIocOrFok = 1015,
  kPostOnlyNotAllowed = 1016,  // post-only on a market, IOC or FOK order
  kInvalidFlags = 1017,
  kInvalidInstrumentState = 1018,  // admin command with an unknown state
  kInvalidReferencePrice = 1019,
  // The account already used this client order id on a new order accepted
  // in the current trading day (client order ids are idempotency keys).
  kDuplicateClientOrderId = 1020,
  // kCollateral: amount 0, or one that takes the collateral beyond the
  // 64-bit range.
  kInvalidAmount = 1021,
  // kCollateral: a settlement date after 9999-12-31.
  kInvalidSettlementDate = 1022,

  // 2xxx: pre-trade risk.
  kPriceOutsideBand = 2001,
  kPositionLimitExceeded = 2002,
  kNotionalOverflow = 2003,
  // An order or replace that adds to the account's worst-case initial
  // margin beyond its collateral, or a withdrawal that would leave the
  // collateral below the margin requirement or below zero.
  kInsufficientMargin = 2004,
  kGradeNotEligible = 2005,

  // 3xxx: matching.
  kPostOnlyWouldCross = 3001,
  kUnknownOrder = 3002,  // also: another account's order
  kReplaceQuantityNotAboveFilled = 3003,
  kReplaceNoChange = 3004,
  kOrderBookFull = 3005,  // no free slot in the order pool

  // 4xxx: instrument state and admin.
  kInstrumentNotOpen = 4001,
  kInstrumentExpired = 4002,
  kInvalidStateTransition = 4003,
  // A listing on an instrument slot that holds a live instrument, or with a
  // bad delivery day (spot listing calendar).
  kInvalidListing = 4004,
  // An index fixing command with a day outside 1970-01-02 .. 9999-12-31.
  kInvalidFixingDay = 4005,
  // A settlement booking for a date at or before the last date already
  // booked for the account: re-submitting a day's bookings changes nothing.
  kAlreadySettled = 4006,
  // Market, IOC, FOK and post-only orders during a pre-open.
  kNotAllowedInPreOpen = 4007,
  // A pre-open length on another state, or above kMaxPreOpenNanos.
  kInvalidPreOpenLength = 4009,
  // A new order or replace of an account whose kill switch is on
  // (kKillSwitch); it stays refused until a reinstate.
  kAccountKilled = 4008,

  // 5xxx: reference data (ratings, attester keys, attestations) and the spot
  // trade life cycle. docs/attestations.md.
  kMalformedReferenceData = 5001,  // payload does not decode
  kUnknownOperator = 5002,         // not a provider firm
  kInvalidRating = 5003,           // no tier, or expires <= effective
  kRatingExpired = 5004,           // expires <= now
  kDuplicateRatingReference = 5005,
  kUnknownRating = 5006,
  kUnknownAttesterKey = 5007,
  kAttesterKeyRevoked = 5008,
  kDuplicateAttesterKey = 5009,
  kAttestationStale = 5010,     // older than every matching grade allows
  kAttestationInFuture = 5011,  // measured_at after now
  kNonceReused = 5012,
  kWrongGpuModel = 5013,     // no grade has this GPU model
  kWrongGpuCount = 5014,     // gpu_count is not the grade's GPUs per node
  kUnknownRecipe = 5015,     // no grade uses this recipe
  kProviderMismatch = 5016,  // attestation names another provider
  kDuplicateAttestationId = 5017,
  kBadSignature = 5018,  // gateway: signature does not verify
  kUnknownTrade = 5019,  // also: a trade of which the firm is no party
  kTradeAlreadyBusted = 5020,
  kFailureDeadlinePassed = 5021,  // after 12:00 UTC of the delivery day
  // Users (docs/config.md, "Users"): an admin command naming no user; a user
  // name or FIX SenderCompID already taken; a field out of its rules.
  kUnknownUser = 5022,
  kDuplicateUser = 5023,
  kInvalidUser = 5024,
  // API keys of users (docs/config.md, "API keys"): a key id the user does
  // not have active (also: another user's key, as if unknown); a key id
  // already used by any user (ids are never reused); a key that is not an
  // Ed25519 public key of 32 bytes or whose id breaks the rules; revoking
  // the last active key of a user who has no FIX password logon either;
  // a user that has kMaxApiKeysPerUser keys already, revoked ones included.
  kUnknownApiKey = 5025,
  kDuplicateApiKey = 5026,
  kInvalidApiKey = 5027,
  kLastApiKey = 5028,
  kApiKeyLimit = 5029,

  // 9xxx: system.
  kSystemBusy = 9001,
  kSequenceOutOfOrder = 9002,  // seq not above the last applied seq
  kClientOrderIdLimit = 9003,  // the day's client order id table is full
};

// Stable, upper-snake name of a code, e.g. "PRICE_OUTSIDE_BAND". Used in
// FIX Text(58), protobuf reject text, CLI errors and logs. A new code gets
// its name in kRejectCodeNames (reject_code.cc).
std::string_view RejectCodeName(RejectCode code) noexcept;

// Why an order left the book without filling.
enum class CancelReason : uint16_t {
  kNone = 0,
  kUserRequest = 1,
  kMassCancel = 2,
  kIocRemainder = 3,  // IOC or market order remainder
  kFokNotFilled = 4,
  kSelfTradePrevention = 5,
  kMarketProtection = 6,  // market order stopped at its protection band
  kInstrumentExpired = 7,
  kGradeEligibilityLost = 8,
  kExpired = 9,  // DAY at session close, GTD at its time
  kKillSwitch = 10,  // the account's kill switch was turned on
};

// As RejectCodeName(), from kCancelReasonNames (reject_code.cc).
std::string_view CancelReasonName(CancelReason reason) noexcept;

}  // namespace cfx::exchange
