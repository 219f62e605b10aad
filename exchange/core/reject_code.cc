#include "exchange/core/reject_code.h"

#include <cstddef>
#include <string_view>

namespace cfx::exchange {
namespace {

template <typename Enum>
struct NameEntry {
  Enum value;
  std::string_view name;
};

// The name of `value` in `table`, or `unknown` when it has none.
template <typename Enum, std::size_t N>
constexpr std::string_view NameIn(const NameEntry<Enum> (&table)[N], Enum value,
                                  std::string_view unknown) {
  for (const NameEntry<Enum>& e : table) {
    if (e.value == value) return e.name;
  }
  return unknown;
}

// Every code and its name, in declaration order (reject_code.h).
constexpr NameEntry<RejectCode> kRejectCodeNames[] = {
    {RejectCode::kNone, "NONE"},
    {RejectCode::kUnknownCommand, "UNKNOWN_COMMAND"},
    {RejectCode::kUnknownInstrument, "UNKNOWN_INSTRUMENT"},
    {RejectCode::kUnknownAccount, "UNKNOWN_ACCOUNT"},
    {RejectCode::kInvalidSide, "INVALID_SIDE"},
    {RejectCode::kInvalidOrderType, "INVALID_ORDER_TYPE"},
    {RejectCode::kInvalidTimeInForce, "INVALID_TIME_IN_FORCE"},
    {RejectCode::kInvalidStpMode, "INVALID_STP_MODE"},
    {RejectCode::kInvalidPrice, "INVALID_PRICE"},
    {RejectCode::kPriceNotOnTick, "PRICE_NOT_ON_TICK"},
    {RejectCode::kPriceOutOfRange, "PRICE_OUT_OF_RANGE"},
    {RejectCode::kQuantityBelowMinimum, "QUANTITY_BELOW_MINIMUM"},
    {RejectCode::kQuantityAboveMaximum, "QUANTITY_ABOVE_MAXIMUM"},
    {RejectCode::kMissingExpireTime, "MISSING_EXPIRE_TIME"},
    {RejectCode::kExpireTimeInPast, "EXPIRE_TIME_IN_PAST"},
    {RejectCode::kMarketOrderNeedsIocOrFok, "MARKET_ORDER_NEEDS_IOC_OR_FOK"},
    {RejectCode::kPostOnlyNotAllowed, "POST_ONLY_NOT_ALLOWED"},
    {RejectCode::kInvalidFlags, "INVALID_FLAGS"},
    {RejectCode::kInvalidInstrumentState, "INVALID_INSTRUMENT_STATE"},
    {RejectCode::kInvalidReferencePrice, "INVALID_REFERENCE_PRICE"},
    {RejectCode::kDuplicateClientOrderId, "DUPLICATE_CLIENT_ORDER_ID"},
    {RejectCode::kInvalidAmount, "INVALID_AMOUNT"},
    {RejectCode::kInvalidSettlementDate, "INVALID_SETTLEMENT_DATE"},
    {RejectCode::kPriceOutsideBand, "PRICE_OUTSIDE_BAND"},
    {RejectCode::kPositionLimitExceeded, "POSITION_LIMIT_EXCEEDED"},
    {RejectCode::kNotionalOverflow, "NOTIONAL_OVERFLOW"},
    {RejectCode::kInsufficientMargin, "INSUFFICIENT_MARGIN"},
    {RejectCode::kGradeNotEligible, "GRADE_NOT_ELIGIBLE"},
    {RejectCode::kPostOnlyWouldCross, "POST_ONLY_WOULD_CROSS"},
    {RejectCode::kUnknownOrder, "UNKNOWN_ORDER"},
    {RejectCode::kReplaceQuantityNotAboveFilled,
     "REPLACE_QUANTITY_NOT_ABOVE_FILLED"},
    {RejectCode::kReplaceNoChange, "REPLACE_NO_CHANGE"},
    {RejectCode::kOrderBookFull, "ORDER_BOOK_FULL"},
    {RejectCode::kInstrumentNotOpen, "INSTRUMENT_NOT_OPEN"},
    {RejectCode::kInstrumentExpired, "INSTRUMENT_EXPIRED"},
    {RejectCode::kInvalidStateTransition, "INVALID_STATE_TRANSITION"},
    {RejectCode::kInvalidListing, "INVALID_LISTING"},
    {RejectCode::kInvalidFixingDay, "INVALID_FIXING_DAY"},
    {RejectCode::kAlreadySettled, "ALREADY_SETTLED"},
    {RejectCode::kNotAllowedInPreOpen, "NOT_ALLOWED_IN_PRE_OPEN"},
    {RejectCode::kInvalidPreOpenLength, "INVALID_PRE_OPEN_LENGTH"},
    {RejectCode::kAccountKilled, "ACCOUNT_KILLED"},
    {RejectCode::kMalformedReferenceData, "MALFORMED_REFERENCE_DATA"},
    {RejectCode::kUnknownOperator, "UNKNOWN_OPERATOR"},
    {RejectCode::kInvalidRating, "INVALID_RATING"},
    {RejectCode::kRatingExpired, "RATING_EXPIRED"},
    {RejectCode::kDuplicateRatingReference, "DUPLICATE_RATING_REFERENCE"},
    {RejectCode::kUnknownRating, "UNKNOWN_RATING"},
    {RejectCode::kUnknownAttesterKey, "UNKNOWN_ATTESTER_KEY"},
    {RejectCode::kAttesterKeyRevoked, "ATTESTER_KEY_REVOKED"},
    {RejectCode::kDuplicateAttesterKey, "DUPLICATE_ATTESTER_KEY"},
    {RejectCode::kAttestationStale, "ATTESTATION_STALE"},
    {RejectCode::kAttestationInFuture, "ATTESTATION_IN_FUTURE"},
    {RejectCode::kNonceReused, "NONCE_REUSED"},
    {RejectCode::kWrongGpuModel, "WRONG_GPU_MODEL"},
    {RejectCode::kWrongGpuCount, "WRONG_GPU_COUNT"},
    {RejectCode::kUnknownRecipe, "UNKNOWN_RECIPE"},
    {RejectCode::kProviderMismatch, "PROVIDER_MISMATCH"},
    {RejectCode::kDuplicateAttestationId, "DUPLICATE_ATTESTATION_ID"},
    {RejectCode::kBadSignature, "BAD_SIGNATURE"},
    {RejectCode::kUnknownTrade, "UNKNOWN_TRADE"},
    {RejectCode::kTradeAlreadyBusted, "TRADE_ALREADY_BUSTED"},
    {RejectCode::kFailureDeadlinePassed, "FAILURE_DEADLINE_PASSED"},
    {RejectCode::kUnknownUser, "UNKNOWN_USER"},
    {RejectCode::kDuplicateUser, "DUPLICATE_USER"},
    {RejectCode::kInvalidUser, "INVALID_USER"},
    {RejectCode::kUnknownApiKey, "UNKNOWN_API_KEY"},
    {RejectCode::kDuplicateApiKey, "DUPLICATE_API_KEY"},
    {RejectCode::kInvalidApiKey, "INVALID_API_KEY"},
    {RejectCode::kLastApiKey, "LAST_API_KEY"},
    {RejectCode::kApiKeyLimit, "API_KEY_LIMIT"},
    {RejectCode::kSystemBusy, "SYSTEM_BUSY"},
    {RejectCode::kSequenceOutOfOrder, "SEQUENCE_OUT_OF_ORDER"},
    {RejectCode::kClientOrderIdLimit, "CLIENT_ORDER_ID_LIMIT"},
};

constexpr NameEntry<CancelReason> kCancelReasonNames[] = {
    {CancelReason::kNone, "NONE"},
    {CancelReason::kUserRequest, "USER_REQUEST"},
    {CancelReason::kMassCancel, "MASS_CANCEL"},
    {CancelReason::kIocRemainder, "IOC_REMAINDER"},
    {CancelReason::kFokNotFilled, "FOK_NOT_FILLED"},
    {CancelReason::kSelfTradePrevention, "SELF_TRADE_PREVENTION"},
    {CancelReason::kMarketProtection, "MARKET_PROTECTION"},
    {CancelReason::kInstrumentExpired, "INSTRUMENT_EXPIRED"},
    {CancelReason::kGradeEligibilityLost, "GRADE_ELIGIBILITY_LOST"},
    {CancelReason::kExpired, "EXPIRED"},
    {CancelReason::kKillSwitch, "KILL_SWITCH"},
};

}  // namespace

std::string_view RejectCodeName(RejectCode code) noexcept {
  return NameIn(kRejectCodeNames, code, "UNKNOWN_REJECT_CODE");
}

std::string_view CancelReasonName(CancelReason reason) noexcept {
  return NameIn(kCancelReasonNames, reason, "UNKNOWN_CANCEL_REASON");
}

}  // namespace cfx::exchange
