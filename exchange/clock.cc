#include "exchange/clock.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

namespace cfx::exchange {

Timestamp WallClock::Now() const noexcept {
  return Timestamp{std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count()};
}

Status SimulatedClock::Set(Timestamp t) {
  int64_t cur = now_.load(std::memory_order_acquire);
  if (t.nanos < cur) {
    return InvalidArgumentError("simulated clock cannot move backwards");
  }
  now_.store(t.nanos, std::memory_order_release);
  return Status::Ok();
}

Result<Timestamp> ParseUtcTimestamp(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char z = 0;
  const std::string str(text);
  int consumed = 0;
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &y, &mo, &d, &h,
                  &mi, &s, &z, &consumed) != 7 ||
      z != 'Z' || consumed != static_cast<int>(str.size()) ||
      str.size() != 20 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
      mi > 59 || s > 59 || y < 1970 || y > 2200) {
    return InvalidArgumentError(
        "'" + str + "' is not a UTC time like 2026-12-01T00:00:00Z");
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const time_t secs = timegm(&tm);
  std::tm back{};
  gmtime_r(&secs, &back);
  if (back.tm_mday != d || back.tm_mon != mo - 1) {
    return InvalidArgumentError("'" + str + "' is not a calendar date");
  }
  return Timestamp{static_cast<int64_t>(secs) * 1'000'000'000};
}

std::string FormatUtcTimestamp(Timestamp t) {
  const time_t secs = static_cast<time_t>(t.nanos / 1'000'000'000);
  const int64_t ns = t.nanos % 1'000'000'000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64 "Z",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, ns);
  return buf;
}

}  // namespace cfx::exchange
