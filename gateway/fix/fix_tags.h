#pragma once

// Named FIX tag numbers used by the FIX gateway and by the cfx tool's FIX
// initiator (gateway/tools/cli/fix_initiator.h): the FIX 4.4 standard tags
// (session-level and application) under their standard names, and the
// exchange's user-defined tags (58xx) under the names of its data dictionary
// (gateway/fix/spec/CFX-FIX44.xml, docs/fix.md); then the values of
// MsgType(35), ExecType(150), OrdStatus(39) and the reject reasons. Plain
// constants, so that both the C++20 gateway and the C++14 QuickFIX island
// (STYLE.md §10) can include this header.
namespace cfx {
namespace gateway {
namespace fix {
namespace tag {

// FIX 4.4 standard tags.
constexpr int kAccount = 1;
constexpr int kAvgPx = 6;
constexpr int kBeginSeqNo = 7;
constexpr int kBeginString = 8;
constexpr int kBodyLength = 9;
constexpr int kCheckSum = 10;
constexpr int kClOrdID = 11;
constexpr int kCumQty = 14;
constexpr int kCurrency = 15;
constexpr int kExecID = 17;
constexpr int kExecInst = 18;
constexpr int kLastPx = 31;
constexpr int kLastQty = 32;
constexpr int kLinesOfText = 33;
constexpr int kMsgSeqNum = 34;
constexpr int kMsgType = 35;
constexpr int kNewSeqNo = 36;
constexpr int kOrderID = 37;
constexpr int kOrderQty = 38;
constexpr int kOrdStatus = 39;
constexpr int kOrdType = 40;
constexpr int kOrigClOrdID = 41;
constexpr int kOrigTime = 42;
constexpr int kPossDupFlag = 43;
constexpr int kPrice = 44;
constexpr int kRefSeqNum = 45;
constexpr int kSenderCompID = 49;
constexpr int kSendingTime = 52;
constexpr int kSide = 54;
constexpr int kSymbol = 55;
constexpr int kTargetCompID = 56;
constexpr int kText = 58;
constexpr int kTimeInForce = 59;
constexpr int kTransactTime = 60;
constexpr int kEncryptMethod = 98;
constexpr int kCxlRejReason = 102;
constexpr int kOrdRejReason = 103;
constexpr int kHeartBtInt = 108;
constexpr int kTestReqID = 112;
constexpr int kOrigSendingTime = 122;
constexpr int kGapFillFlag = 123;
constexpr int kExpireTime = 126;
constexpr int kResetSeqNumFlag = 141;
constexpr int kNoRelatedSym = 146;
constexpr int kHeadline = 148;
constexpr int kExecType = 150;
constexpr int kLeavesQty = 151;
constexpr int kSecurityType = 167;
constexpr int kMaturityMonthYear = 200;
constexpr int kContractMultiplier = 231;
constexpr int kMDReqID = 262;
constexpr int kSubscriptionRequestType = 263;
constexpr int kMarketDepth = 264;
constexpr int kMDUpdateType = 265;
constexpr int kNoMDEntryTypes = 267;
constexpr int kNoMDEntries = 268;
constexpr int kMDEntryType = 269;
constexpr int kMDEntryPx = 270;
constexpr int kMDEntrySize = 271;
constexpr int kMDEntryDate = 272;
constexpr int kMDEntryTime = 273;
constexpr int kMDUpdateAction = 279;
constexpr int kMDReqRejReason = 281;
constexpr int kSecurityReqID = 320;
constexpr int kSecurityResponseID = 322;
constexpr int kSecurityStatusReqID = 324;
constexpr int kSecurityTradingStatus = 326;
constexpr int kNumberOfOrders = 346;
constexpr int kRefMsgType = 372;
constexpr int kExecRestatementReason = 378;
constexpr int kBusinessRejectRefID = 379;
constexpr int kBusinessRejectReason = 380;
constexpr int kCxlRejResponseTo = 434;
constexpr int kMassCancelRequestType = 530;
constexpr int kMassCancelResponse = 531;
constexpr int kMassCancelRejectReason = 532;
constexpr int kTotalAffectedOrders = 533;
constexpr int kMaturityDate = 541;
constexpr int kUsername = 553;
constexpr int kPassword = 554;
constexpr int kSecurityListRequestType = 559;
constexpr int kSecurityRequestResult = 560;
constexpr int kAccountType = 581;
constexpr int kNoPositions = 702;
constexpr int kPosType = 703;
constexpr int kLongQty = 704;
constexpr int kShortQty = 705;
constexpr int kPosAmtType = 707;
constexpr int kPosAmt = 708;
constexpr int kPosReqID = 710;
constexpr int kClearingBusinessDate = 715;
constexpr int kPosMaintRptID = 721;
constexpr int kPosReqType = 724;
constexpr int kTotalNumPosReports = 727;
constexpr int kPosReqResult = 728;
constexpr int kPosReqStatus = 729;
constexpr int kSettlPrice = 730;
constexpr int kSettlPriceType = 731;
constexpr int kPriorSettlPrice = 734;
constexpr int kNoPosAmt = 753;
constexpr int kOrdStatusReqID = 790;
constexpr int kCopyMsgIndicator = 797;
constexpr int kTrdMatchID = 880;
constexpr int kMarginExcess = 899;
constexpr int kTotalNetValue = 900;
constexpr int kCashOutstanding = 901;
constexpr int kCollRptID = 908;
constexpr int kCollInquiryID = 909;
constexpr int kCollStatus = 910;
constexpr int kTotNumReports = 911;
constexpr int kCollInquiryStatus = 945;
constexpr int kCollInquiryResult = 946;
constexpr int kMinPriceIncrement = 969;
constexpr int kTradeID = 1003;

// CFX user-defined tags.
constexpr int kCfxGrade = 5801;
constexpr int kCfxContractUnit = 5802;
constexpr int kCfxIndexLevel = 5810;
constexpr int kCfxIndexDisrupted = 5811;
constexpr int kCfxIndexRevision = 5812;
constexpr int kCfxIndexComputedAt = 5813;
constexpr int kCfxIndexTradeCount = 5814;
constexpr int kCfxIndexDistinctSellers = 5815;
constexpr int kCfxIndexDistinctBuyers = 5816;
constexpr int kCfxIndexGPUHours = 5817;
constexpr int kCfxIndexP25 = 5818;
constexpr int kCfxIndexP75 = 5819;
constexpr int kCfxIndexPartitionsUsed = 5820;
constexpr int kCfxIndexUSDPerMillionTokens = 5821;
constexpr int kCfxIndexAttestedTokensPerGPU = 5822;
constexpr int kCfxIndexTradeIDs = 5823;
constexpr int kCfxSettlementTier = 5830;
constexpr int kCfxFinalSettlementDisrupted = 5831;
constexpr int kCfxInitialMargin = 5832;
constexpr int kCfxCollateral = 5833;
constexpr int kCfxMarginCallAmount = 5834;
constexpr int kCfxCollateralNow = 5835;
constexpr int kCfxMarginCallStatus = 5836;

}  // namespace tag

// MsgType(35) values: the messages of the dictionary the gateway reads or
// writes.
namespace msg_type {
// Session level.
constexpr const char* kHeartbeat = "0";
constexpr const char* kTestRequest = "1";
constexpr const char* kResendRequest = "2";
constexpr const char* kReject = "3";
constexpr const char* kSequenceReset = "4";
constexpr const char* kLogout = "5";
constexpr const char* kLogon = "A";
// Application level.
constexpr const char* kNewOrderSingle = "D";
constexpr const char* kOrderCancelRequest = "F";
constexpr const char* kOrderCancelReplaceRequest = "G";
constexpr const char* kOrderMassCancelRequest = "q";
constexpr const char* kOrderStatusRequest = "H";
constexpr const char* kExecutionReport = "8";
constexpr const char* kOrderCancelReject = "9";
constexpr const char* kOrderMassCancelReport = "r";
constexpr const char* kBusinessMessageReject = "j";
constexpr const char* kMarketDataRequest = "V";
constexpr const char* kMarketDataSnapshotFullRefresh = "W";
constexpr const char* kMarketDataIncrementalRefresh = "X";
constexpr const char* kMarketDataRequestReject = "Y";
constexpr const char* kSecurityListRequest = "x";
constexpr const char* kSecurityList = "y";
constexpr const char* kSecurityStatusRequest = "e";
constexpr const char* kSecurityStatus = "f";
constexpr const char* kRequestForPositions = "AN";
constexpr const char* kRequestForPositionsAck = "AO";
constexpr const char* kPositionReport = "AP";
constexpr const char* kCollateralInquiry = "BB";
constexpr const char* kCollateralInquiryAck = "BG";
constexpr const char* kCollateralReport = "BA";
constexpr const char* kNews = "B";
}  // namespace msg_type

// Side(54) values.
namespace side {
constexpr char kBuy = '1';
constexpr char kSell = '2';
}  // namespace side

// OrdType(40) values.
namespace ord_type {
constexpr char kMarket = '1';
constexpr char kLimit = '2';
}  // namespace ord_type

// TimeInForce(59) values.
namespace time_in_force {
constexpr char kDay = '0';
constexpr char kGoodTillCancel = '1';
constexpr char kImmediateOrCancel = '3';
constexpr char kFillOrKill = '4';
constexpr char kGoodTillDate = '6';
}  // namespace time_in_force

// ExecType(150) values.
namespace exec_type {
constexpr char kNew = '0';
constexpr char kCanceled = '4';
constexpr char kReplaced = '5';
constexpr char kRejected = '8';
constexpr char kExpired = 'C';
constexpr char kRestated = 'D';
constexpr char kTrade = 'F';
constexpr char kTradeCancel = 'H';
constexpr char kOrderStatus = 'I';
}  // namespace exec_type

// OrdStatus(39) values.
namespace ord_status {
constexpr char kNew = '0';
constexpr char kPartiallyFilled = '1';
constexpr char kFilled = '2';
constexpr char kCanceled = '4';
constexpr char kRejected = '8';
constexpr char kPendingNew = 'A';
constexpr char kExpired = 'C';
}  // namespace ord_status

// OrdRejReason(103) values.
namespace ord_rej_reason {
constexpr int kUnknownSymbol = 1;
constexpr int kExchangeClosed = 2;
constexpr int kOrderExceedsLimit = 3;
constexpr int kUnknownOrder = 5;
constexpr int kDuplicateOrder = 6;
constexpr int kUnsupportedOrderCharacteristic = 11;
constexpr int kIncorrectQuantity = 13;
constexpr int kUnknownAccount = 15;
constexpr int kPriceExceedsCurrentPriceBand = 16;
constexpr int kOther = 99;
}  // namespace ord_rej_reason

// CxlRejReason(102) values.
namespace cxl_rej_reason {
constexpr int kUnknownOrder = 1;
constexpr int kBrokerExchangeOption = 2;
constexpr int kDuplicateClOrdIDReceived = 6;
constexpr int kOther = 99;
}  // namespace cxl_rej_reason

// BusinessRejectReason(380) values.
namespace business_reject_reason {
constexpr int kOther = 0;
constexpr int kUnknownSecurity = 2;
constexpr int kUnsupportedMessageType = 3;
constexpr int kApplicationNotAvailable = 4;
constexpr int kConditionallyRequiredFieldMissing = 5;
constexpr int kNotAuthorized = 6;
}  // namespace business_reject_reason

// MDReqRejReason(281) values.
namespace md_req_rej_reason {
constexpr int kUnknownSymbol = 0;
constexpr int kDuplicateMDReqID = 1;
constexpr int kInsufficientBandwidth = 2;
constexpr int kUnsupportedSubscriptionRequestType = 4;
constexpr int kUnsupportedMarketDepth = 5;
constexpr int kUnsupportedMDUpdateType = 6;
constexpr int kUnsupportedMDEntryType = 8;
}  // namespace md_req_rej_reason

// MassCancelRejectReason(532) values.
namespace mass_cancel_reject_reason {
constexpr int kMassCancelNotSupported = 0;
constexpr int kInvalidOrUnknownSecurity = 1;
constexpr int kOther = 99;
}  // namespace mass_cancel_reject_reason
}  // namespace fix
}  // namespace gateway
}  // namespace cfx
