#include "exchange/core/reference/attestation.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exchange/civil_date.h"

namespace cfx::exchange {

namespace {

constexpr std::string_view kHeaderLine = "CFX-ATTESTATION-V1";
constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kSecondsPerDay = 86'400;
constexpr int kMinYear = 1970;
constexpr int kMaxYear = 9999;

// Field names in canonical order.
constexpr std::string_view kAttestationId = "attestation_id";
constexpr std::string_view kProvider = "provider";
constexpr std::string_view kNodeId = "node_id";
constexpr std::string_view kGpuModel = "gpu_model";
constexpr std::string_view kGpuCount = "gpu_count";
constexpr std::string_view kGpuUuids = "gpu_uuids";
constexpr std::string_view kDriverVersion = "driver_version";
constexpr std::string_view kRecipe = "recipe";
constexpr std::string_view kTokens = "output_tokens_per_s_per_gpu";
constexpr std::string_view kMeasuredAt = "measured_at";
constexpr std::string_view kNonce = "nonce";
constexpr std::string_view kAttesterKeyId = "attester_key_id";

Status FieldError(std::string_view field, std::string_view problem) {
  std::string m(field);
  m += ": ";
  m += problem;
  return InvalidArgumentError(std::move(m));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Why `value` is not valid <text> (or, with `uuid`, a valid uuid); empty if
// it is.
std::string_view TextProblem(std::string_view value, bool uuid) {
  if (value.empty()) return "empty";
  if (value.size() > kAttestationMaxFieldBytes) return "longer than 128 bytes";
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7E) return "not printable ASCII";
    if (uuid && (c == ',' || c == ' ')) return "contains ',' or ' '";
  }
  if (value.front() == ' ') return "leading space";
  if (value.back() == ' ') return "trailing space";
  return {};
}

Status CheckText(std::string_view field, std::string_view value) {
  std::string_view problem = TextProblem(value, /*uuid=*/false);
  if (!problem.empty()) return FieldError(field, problem);
  return Status::Ok();
}

Status CheckGpus(uint32_t gpu_count, const std::vector<std::string>& uuids) {
  if (gpu_count < 1 || gpu_count > kAttestationMaxGpus) {
    return FieldError(kGpuCount, "not in 1..64");
  }
  if (uuids.size() != gpu_count) {
    return FieldError(kGpuUuids, "count " + std::to_string(uuids.size()) +
                                     " != gpu_count " +
                                     std::to_string(gpu_count));
  }
  for (const std::string& u : uuids) {
    std::string_view problem = TextProblem(u, /*uuid=*/true);
    if (!problem.empty()) {
      return FieldError(kGpuUuids, "uuid " + std::string(problem));
    }
  }
  std::vector<std::string_view> sorted(uuids.begin(), uuids.end());
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    return FieldError(kGpuUuids,
                      "duplicate uuid \"" + std::string(*dup) + "\"");
  }
  return Status::Ok();
}

Status CheckMilliTokens(uint64_t milli) {
  if (milli == 0) return FieldError(kTokens, "not positive");
  if (milli > kAttestationMaxMilliTokensPerSPerGpu) {
    return FieldError(kTokens, "more than 1000000.000");
  }
  return Status::Ok();
}

Status CheckTime(Timestamp t) {
  if (t.nanos % kNanosPerSecond != 0) {
    return FieldError(kMeasuredAt, "not whole seconds");
  }
  // Timestamp's int64 nanoseconds end in 2262, well before year 9999.
  if (t.nanos < 0) return FieldError(kMeasuredAt, "before 1970");
  return Status::Ok();
}

void AppendDigits(std::string& out, int64_t v, int width) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0 || n < width);
  while (n > 0) out.push_back(buf[--n]);
}

// Parses exactly `width` ASCII digits.
bool ParseFixedDigits(std::string_view s, int64_t& out) {
  out = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

// Parses a decimal without sign or leading zeros, at most `max_digits`
// digits. Returns a problem description, empty on success.
std::string_view ParseDecimal(std::string_view s, std::size_t max_digits,
                              uint64_t& out) {
  if (s.empty()) return "not a number";
  for (char c : s) {
    if (!IsDigit(c)) return "not a number";
  }
  if (s.size() > 1 && s.front() == '0') return "leading zero";
  if (s.size() > max_digits) return "too large";
  out = 0;
  for (char c : s) out = out * 10 + static_cast<uint64_t>(c - '0');
  return {};
}

// Reads canonical lines one by one.
class LineReader {
 public:
  explicit LineReader(std::string_view bytes) : rest_(bytes) {}

  // The value of the next line, which must be "<field>=<value>\n".
  Result<std::string_view> Field(std::string_view field) {
    Result<std::string_view> line = Line(field);
    if (!line.has_value()) return line.error();
    std::string_view l = line.value();
    if (l.size() <= field.size() || l.substr(0, field.size()) != field ||
        l[field.size()] != '=') {
      const std::size_t eq = l.find('=');
      std::string got(
          l.substr(0, std::min<std::size_t>(
                          eq == std::string_view::npos ? l.size() : eq, 32)));
      return FieldError(field, "missing (line starts with \"" + got + "\")");
    }
    return l.substr(field.size() + 1);
  }

  // The next line without its "\n"; `what` names it in errors.
  Result<std::string_view> Line(std::string_view what) {
    if (rest_.empty()) return FieldError(what, "missing");
    const std::size_t nl = rest_.find('\n');
    if (nl == std::string_view::npos) {
      return FieldError(what, "no final newline");
    }
    std::string_view line = rest_.substr(0, nl);
    rest_.remove_prefix(nl + 1);
    if (line.find('\r') != std::string_view::npos) {
      return FieldError(what, "carriage return");
    }
    return line;
  }

  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

}  // namespace

std::string FormatAttestationTime(Timestamp t) {
  int64_t s = t.nanos / kNanosPerSecond;
  if (t.nanos % kNanosPerSecond < 0) --s;  // floor
  int64_t days = s / kSecondsPerDay;
  int64_t sod = s % kSecondsPerDay;
  if (sod < 0) {
    sod += kSecondsPerDay;
    --days;
  }
  const CivilDate c = CivilFromDays(days);
  // t before year 0: unspecified, keep 4 digits
  const int64_t y = c.year < 0 ? 0 : c.year;
  std::string out;
  out.reserve(20);
  AppendDigits(out, y, 4);
  out.push_back('-');
  AppendDigits(out, c.month, 2);
  out.push_back('-');
  AppendDigits(out, c.day, 2);
  out.push_back('T');
  AppendDigits(out, sod / 3600, 2);
  out.push_back(':');
  AppendDigits(out, sod / 60 % 60, 2);
  out.push_back(':');
  AppendDigits(out, sod % 60, 2);
  out.push_back('Z');
  return out;
}

Result<Timestamp> ParseAttestationTime(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SSZ
  // 0123456789012345678 9
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || text[13] != ':' || text[16] != ':' ||
      text[19] != 'Z') {
    return FieldError(kMeasuredAt, "not YYYY-MM-DDTHH:MM:SSZ");
  }
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!ParseFixedDigits(text.substr(0, 4), y) ||
      !ParseFixedDigits(text.substr(5, 2), mo) ||
      !ParseFixedDigits(text.substr(8, 2), d) ||
      !ParseFixedDigits(text.substr(11, 2), h) ||
      !ParseFixedDigits(text.substr(14, 2), mi) ||
      !ParseFixedDigits(text.substr(17, 2), s)) {
    return FieldError(kMeasuredAt, "not YYYY-MM-DDTHH:MM:SSZ");
  }
  if (y < kMinYear || y > kMaxYear) {
    return FieldError(kMeasuredAt, "year not in 1970..9999");
  }
  if (mo < 1 || mo > 12) return FieldError(kMeasuredAt, "month not in 01..12");
  if (d < 1 || d > DaysInMonth(y, mo)) {
    return FieldError(kMeasuredAt, "no such day in that month");
  }
  if (h > 23) return FieldError(kMeasuredAt, "hour not in 00..23");
  if (mi > 59) return FieldError(kMeasuredAt, "minute not in 00..59");
  if (s > 59) return FieldError(kMeasuredAt, "second not in 00..59");
  const int64_t secs =
      DaysFromCivil(y, mo, d) * kSecondsPerDay + h * 3600 + mi * 60 + s;
  // Timestamp counts int64 nanoseconds, which end at 2262-04-11T23:47:16Z.
  if (secs > std::numeric_limits<int64_t>::max() / kNanosPerSecond) {
    return FieldError(kMeasuredAt, "after 2262-04-11T23:47:16Z");
  }
  return Timestamp{secs * kNanosPerSecond};
}

std::string FormatMilliTokens(uint64_t milli) {
  std::string out = std::to_string(milli / 1000);
  out.push_back('.');
  AppendDigits(out, static_cast<int64_t>(milli % 1000), 3);
  return out;
}

Result<uint64_t> ParseMilliTokens(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) {
    return FieldError(kTokens, "no '.' and 3 fraction digits");
  }
  std::string_view frac = text.substr(dot + 1);
  if (frac.size() != 3) {
    return FieldError(kTokens, "not exactly 3 fraction digits");
  }
  uint64_t whole = 0;
  std::string_view problem =
      ParseDecimal(text.substr(0, dot), /*max_digits=*/7, whole);
  if (!problem.empty()) return FieldError(kTokens, problem);
  int64_t f = 0;
  if (!ParseFixedDigits(frac, f)) return FieldError(kTokens, "not a number");
  const uint64_t milli = whole * 1000 + static_cast<uint64_t>(f);
  CFX_RETURN_IF_ERROR(CheckMilliTokens(milli));
  return milli;
}

std::string EncodeCanonicalAttestation(const Attestation& a) {
  std::string out;
  out.reserve(512 + a.gpu_uuids.size() * 48);
  auto line = [&out](std::string_view name, std::string_view value) {
    out.append(name);
    out.push_back('=');
    out.append(value);
    out.push_back('\n');
  };
  out.append(kHeaderLine);
  out.push_back('\n');
  line(kAttestationId, a.attestation_id);
  line(kProvider, a.provider);
  line(kNodeId, a.node_id);
  line(kGpuModel, a.gpu_model);
  line(kGpuCount, std::to_string(a.gpu_count));
  std::string uuids;
  for (std::size_t i = 0; i < a.gpu_uuids.size(); ++i) {
    if (i > 0) uuids.push_back(',');
    uuids.append(a.gpu_uuids[i]);
  }
  line(kGpuUuids, uuids);
  line(kDriverVersion, a.driver_version);
  line(kRecipe, a.recipe);
  line(kTokens, FormatMilliTokens(a.output_milli_tokens_per_s_per_gpu));
  line(kMeasuredAt, FormatAttestationTime(a.measured_at));
  line(kNonce, a.nonce);
  line(kAttesterKeyId, a.attester_key_id);
  return out;
}

Status ValidateAttestation(const Attestation& a) {
  CFX_RETURN_IF_ERROR(CheckText(kAttestationId, a.attestation_id));
  CFX_RETURN_IF_ERROR(CheckText(kProvider, a.provider));
  CFX_RETURN_IF_ERROR(CheckText(kNodeId, a.node_id));
  CFX_RETURN_IF_ERROR(CheckText(kGpuModel, a.gpu_model));
  CFX_RETURN_IF_ERROR(CheckGpus(a.gpu_count, a.gpu_uuids));
  CFX_RETURN_IF_ERROR(CheckText(kDriverVersion, a.driver_version));
  CFX_RETURN_IF_ERROR(CheckText(kRecipe, a.recipe));
  CFX_RETURN_IF_ERROR(CheckMilliTokens(a.output_milli_tokens_per_s_per_gpu));
  CFX_RETURN_IF_ERROR(CheckTime(a.measured_at));
  CFX_RETURN_IF_ERROR(CheckText(kNonce, a.nonce));
  CFX_RETURN_IF_ERROR(CheckText(kAttesterKeyId, a.attester_key_id));
  return Status::Ok();
}

Result<Attestation> ParseCanonicalAttestation(std::string_view bytes) {
  LineReader r(bytes);
  Attestation a;

  Result<std::string_view> header = r.Line("header");
  if (!header.has_value()) return header.error();
  if (header.value() != kHeaderLine) {
    return FieldError("header", "not CFX-ATTESTATION-V1");
  }

  // Reads a <text> field into `out`.
  auto text = [&r](std::string_view field, std::string& out) -> Status {
    Result<std::string_view> v = r.Field(field);
    if (!v.has_value()) return v.error();
    CFX_RETURN_IF_ERROR(CheckText(field, v.value()));
    out.assign(v.value());
    return Status::Ok();
  };

  CFX_RETURN_IF_ERROR(text(kAttestationId, a.attestation_id));
  CFX_RETURN_IF_ERROR(text(kProvider, a.provider));
  CFX_RETURN_IF_ERROR(text(kNodeId, a.node_id));
  CFX_RETURN_IF_ERROR(text(kGpuModel, a.gpu_model));

  {
    Result<std::string_view> v = r.Field(kGpuCount);
    if (!v.has_value()) return v.error();
    uint64_t n = 0;
    std::string_view problem = ParseDecimal(v.value(), /*max_digits=*/2, n);
    if (!problem.empty()) return FieldError(kGpuCount, problem);
    if (n < 1 || n > kAttestationMaxGpus) {
      return FieldError(kGpuCount, "not in 1..64");
    }
    a.gpu_count = static_cast<uint32_t>(n);
  }
  {
    Result<std::string_view> v = r.Field(kGpuUuids);
    if (!v.has_value()) return v.error();
    std::string_view rest = v.value();
    while (true) {
      const std::size_t comma = rest.find(',');
      a.gpu_uuids.emplace_back(rest.substr(0, comma));
      if (a.gpu_uuids.size() > kAttestationMaxGpus) {
        return FieldError(kGpuUuids, "more than 64 uuids");
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    CFX_RETURN_IF_ERROR(CheckGpus(a.gpu_count, a.gpu_uuids));
  }

  CFX_RETURN_IF_ERROR(text(kDriverVersion, a.driver_version));
  CFX_RETURN_IF_ERROR(text(kRecipe, a.recipe));

  {
    Result<std::string_view> v = r.Field(kTokens);
    if (!v.has_value()) return v.error();
    Result<uint64_t> milli = ParseMilliTokens(v.value());
    if (!milli.has_value()) return milli.error();
    a.output_milli_tokens_per_s_per_gpu = milli.value();
  }
  {
    Result<std::string_view> v = r.Field(kMeasuredAt);
    if (!v.has_value()) return v.error();
    Result<Timestamp> t = ParseAttestationTime(v.value());
    if (!t.has_value()) return t.error();
    a.measured_at = t.value();
  }

  CFX_RETURN_IF_ERROR(text(kNonce, a.nonce));
  CFX_RETURN_IF_ERROR(text(kAttesterKeyId, a.attester_key_id));

  if (!r.done()) {
    return FieldError(kAttesterKeyId, "trailing bytes after the last line");
  }
  return a;
}

}  // namespace cfx::exchange
