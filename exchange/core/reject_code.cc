#include "exchange/core/reject_code.h"

namespace cfx::exchange {

std::string_view RejectCodeName(RejectCode code) noexcept {
  switch (code) {
    case RejectCode::kNone:
      return "NONE";
    case RejectCode::kUnknownCommand:
      return "UNKNOWN_COMMAND";
    case RejectCode::kUnknownInstrument:
      return "UNKNOWN_INSTRUMENT";
    case RejectCode::kUnknownAccount:
      return "UNKNOWN_ACCOUNT";
    case RejectCode::kInvalidSide:
      return "INVALID_SIDE";
    case RejectCode::kInvalidOrderType:
      return "INVALID_ORDER_TYPE";
    case RejectCode::kInvalidTimeInForce:
      return "INVALID_TIME_IN_FORCE";
    case RejectCode::kInvalidStpMode:
      return "INVALID_STP_MODE";
    case RejectCode::kInvalidPrice:
      return "INVALID_PRICE";
    case RejectCode::kPriceNotOnTick:
      return "PRICE_NOT_ON_TICK";
    case RejectCode::kPriceOutOfRange:
      return "PRICE_OUT_OF_RANGE";
    case RejectCode::kQuantityBelowMinimum:
      return "QUANTITY_BELOW_MINIMUM";
    case RejectCode::kQuantityAboveMaximum:
      return "QUANTITY_ABOVE_MAXIMUM";
    case RejectCode::kMissingExpireTime:
      return "MISSING_EXPIRE_TIME";
    case RejectCode::kExpireTimeInPast:
      return "EXPIRE_TIME_IN_PAST";
    case RejectCode::kMarketOrderNeedsIocOrFok:
      return "MARKET_ORDER_NEEDS_IOC_OR_FOK";
    case RejectCode::kPostOnlyNotAllowed:
      return "POST_ONLY_NOT_ALLOWED";
    case RejectCode::kInvalidFlags:
      return "INVALID_FLAGS";
    case RejectCode::kInvalidInstrumentState:
      return "INVALID_INSTRUMENT_STATE";
    case RejectCode::kInvalidReferencePrice:
      return "INVALID_REFERENCE_PRICE";
    case RejectCode::kDuplicateClientOrderId:
      return "DUPLICATE_CLIENT_ORDER_ID";
    case RejectCode::kPriceOutsideBand:
      return "PRICE_OUTSIDE_BAND";
    case RejectCode::kPositionLimitExceeded:
      return "POSITION_LIMIT_EXCEEDED";
    case RejectCode::kNotionalOverflow:
      return "NOTIONAL_OVERFLOW";
    case RejectCode::kInsufficientMargin:
      return "INSUFFICIENT_MARGIN";
    case RejectCode::kGradeNotEligible:
      return "GRADE_NOT_ELIGIBLE";
    case RejectCode::kPostOnlyWouldCross:
      return "POST_ONLY_WOULD_CROSS";
    case RejectCode::kUnknownOrder:
      return "UNKNOWN_ORDER";
    case RejectCode::kReplaceQuantityNotAboveFilled:
      return "REPLACE_QUANTITY_NOT_ABOVE_FILLED";
    case RejectCode::kReplaceNoChange:
      return "REPLACE_NO_CHANGE";
    case RejectCode::kOrderBookFull:
      return "ORDER_BOOK_FULL";
    case RejectCode::kInstrumentNotOpen:
      return "INSTRUMENT_NOT_OPEN";
    case RejectCode::kInstrumentExpired:
      return "INSTRUMENT_EXPIRED";
    case RejectCode::kInvalidStateTransition:
      return "INVALID_STATE_TRANSITION";
    case RejectCode::kSystemBusy:
      return "SYSTEM_BUSY";
    case RejectCode::kSequenceOutOfOrder:
      return "SEQUENCE_OUT_OF_ORDER";
    case RejectCode::kClientOrderIdLimit:
      return "CLIENT_ORDER_ID_LIMIT";
  }
  return "UNKNOWN_REJECT_CODE";
}

std::string_view CancelReasonName(CancelReason reason) noexcept {
  switch (reason) {
    case CancelReason::kNone:
      return "NONE";
    case CancelReason::kUserRequest:
      return "USER_REQUEST";
    case CancelReason::kMassCancel:
      return "MASS_CANCEL";
    case CancelReason::kIocRemainder:
      return "IOC_REMAINDER";
    case CancelReason::kFokNotFilled:
      return "FOK_NOT_FILLED";
    case CancelReason::kSelfTradePrevention:
      return "SELF_TRADE_PREVENTION";
    case CancelReason::kMarketProtection:
      return "MARKET_PROTECTION";
    case CancelReason::kInstrumentExpired:
      return "INSTRUMENT_EXPIRED";
    case CancelReason::kGradeEligibilityLost:
      return "GRADE_ELIGIBILITY_LOST";
    case CancelReason::kExpired:
      return "EXPIRED";
  }
  return "UNKNOWN_CANCEL_REASON";
}

}  // namespace cfx::exchange
