#include "settlement/ledger_format.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "exchange/civil_date.h"

namespace cfx::settlement::internal {

bool DecodeGroupKey(std::string_view k, Movement* m) {
  if (k.size() != kGroupKeySize || k[0] != kMovementPrefix) return false;
  m->date = DateFromBits(GetBigEndian(k.data() + 1, 8));
  m->kind = static_cast<MovementKind>(static_cast<uint8_t>(k[9]));
  m->account = static_cast<uint32_t>(GetBigEndian(k.data() + 10, 4));
  m->ref = 0;
  m->amount = exchange::Amount{};
  return true;
}

// Why a group value is malformed, or "" if it is not.
std::string GroupValueProblem(std::string_view value) {
  if (value.empty() || value.size() % kPairSize != 0) {
    return "value of " + std::to_string(value.size()) +
           " bytes, expected a positive multiple of " +
           std::to_string(kPairSize);
  }
  const std::size_t n = value.size() / kPairSize;
  for (std::size_t i = 1; i < n; ++i) {
    if (PairRef(value, i) <= PairRef(value, i - 1)) {
      return "refs not strictly ascending at ref " +
             std::to_string(PairRef(value, i));
    }
  }
  return "";
}

// FNV-1a over 8-byte little-endian words, then the remaining bytes.
uint64_t Fnv(uint64_t h, const char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) h = (h ^ GetLittleEndian(p + i, 8)) * kFnvPrime;
  for (; i < n; ++i) h = (h ^ static_cast<uint8_t>(p[i])) * kFnvPrime;
  return h;
}

void SortRun(std::vector<Movement>& run, std::size_t accounts) {
  const auto lower = [](const Movement& a, const Movement& b) {
    return KeyLess(a, b);
  };
  if (std::is_sorted(run.begin(), run.end(), lower)) return;
  const std::size_t first_kind =
      static_cast<uint8_t>(MovementKind::kVariationMargin);
  auto bucket = [&](const Movement& m) {
    return (static_cast<uint8_t>(m.kind) - first_kind) * accounts + m.account;
  };
  std::vector<uint32_t> start(3 * accounts + 1, 0);
  for (const Movement& m : run) ++start[bucket(m) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<Movement> sorted(run.size());
  for (const Movement& m : run) sorted[start[bucket(m)]++] = m;
  run.swap(sorted);
  for (std::size_t i = 0; i < run.size();) {
    std::size_t j = i + 1;
    while (j < run.size() && KindAccount(run[j]) == KindAccount(run[i])) ++j;
    if (j - i > 1)
      std::sort(run.begin() + static_cast<std::ptrdiff_t>(i),
                run.begin() + static_cast<std::ptrdiff_t>(j), lower);
    i = j;
  }
}

std::string FormatDate(int64_t days) {
  constexpr int64_t kLimit = 1'000'000'000;  // keeps the arithmetic exact
  if (days > kLimit || days < -kLimit) return "day " + std::to_string(days);
  return exchange::FormatDay(days);
}

std::string KindText(MovementKind k) {
  std::string_view name = MovementKindName(k);
  if (!name.empty()) return std::string(name);
  return "kind " + std::to_string(static_cast<unsigned>(k));
}

// "account 3 VARIATION_MARGIN ref 7".
std::string KeyText(const Movement& m) {
  return "account " + std::to_string(m.account) + " " + KindText(m.kind) +
         " ref " + std::to_string(m.ref);
}
// "date 2026-12-04 account 3 VARIATION_MARGIN ref 7".
std::string FullKeyText(const Movement& m) {
  return "date " + FormatDate(m.date) + " " + KeyText(m);
}

std::string Int128Text(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  // Negate through unsigned so the most negative value is exact.
  __extension__ unsigned __int128 u = negative
                                          ? -static_cast<unsigned __int128>(v)
                                          : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace cfx::settlement::internal
