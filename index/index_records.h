#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "index/methodology.h"

// The index service's store records (IndexService, index_service.h): the
// keys and the encoding of a trade and a print. Pure functions: no I/O.
namespace cfx::index::internal {

// Store layout, format version 1: every key starts with
// a one-byte kind; integers in keys are big-endian so keys sort by them.
//   'v'                          -> u32 format version (kFormatVersion)
//   's'                          -> u64 last applied seq
//   't' u8 grade, u64 trade id   -> IndexTrade
//   'p' u8 grade, u64 day + 2^63, u32 revision -> Print
// A print record ends with its exact T (two limb arrays); a record written
// before T was kept exactly ends after its trade ids and reads T as its
// published thousandths.
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr char kVersionKey[] = "v";
inline constexpr char kSeqKey[] = "s";

// The `bytes`-byte big-endian integer at `pos` of `in`.
uint64_t GetBigEndian(std::string_view in, std::size_t pos, int bytes);

std::string TradeKey(uint32_t grade, uint64_t id);
std::string PrintKey(uint32_t grade, int64_t day, uint32_t revision);

std::string EncodeTrade(const IndexTrade& t);
// False unless `in` is a whole trade record of a valid trade.
bool DecodeTrade(std::string_view in, IndexTrade* t);
std::string EncodePrint(const Print& p);
// False unless `in` is a whole print record, its exact T in lowest terms
// and agreeing with its published thousandths.
bool DecodePrint(std::string_view in, Print* p);

}  // namespace cfx::index::internal
