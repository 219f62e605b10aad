#include "gateway/http/index_page.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "exchange/clock.h"
#include "gateway/config/instrument_table.h"
#include "index/print_reading.h"

namespace cfx::gateway {

namespace {

using index::Level;
using index::Print;

// Chart geometry, in SVG user units: the plot area and the legend to its
// right.
constexpr int kWidth = 960;
constexpr int kHeight = 440;
constexpr int kPlotLeft = 90;
constexpr int kPlotRight = 730;
constexpr int kPlotTop = 30;
constexpr int kPlotBottom = 370;
constexpr int kLegendLeft = 760;
constexpr int kMaxXLabels = 7;
constexpr int kYTicks = 5;

// Line colours, one per grade in turn; red is kept for DISRUPTED.
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                    "#8c564b", "#17becf", "#e377c2", "#7f7f7f"};
constexpr const char* kDisruptedColour = "#d62728";

// The characters HTML text and attribute values spell as entities.
constexpr std::pair<char, std::string_view> kHtmlEntities[] = {
    {'&', "&amp;"},  {'<', "&lt;"},   {'>', "&gt;"},
    {'"', "&quot;"}, {'\'', "&#39;"},
};

// Text for HTML content and attribute values.
void AppendEscaped(std::string_view s, std::string* out) {
  for (const char c : s) {
    const auto* entity =
        std::find_if(std::begin(kHtmlEntities), std::end(kHtmlEntities),
                     [c](const auto& e) { return e.first == c; });
    if (entity != std::end(kHtmlEntities)) {
      out->append(entity->second);
    } else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
      out->push_back(c);  // control characters have no place in a name
    }
  }
}

std::string Escaped(std::string_view s) {
  std::string out;
  AppendEscaped(s, &out);
  return out;
}

// A coordinate with one decimal.
std::string Coord(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string LevelText(Level level) {
  const std::string_view name = index::LevelName(level);
  return name.empty() ? std::string("none") : std::string(name);
}

std::string ValueText(const Print& p) {
  return index::ReadingOf(p).value.value_or("none");
}

// 1, 2 or 5 x 10^k micro-dollars: the smallest such step with at most
// kYTicks intervals over `span`.
int64_t NiceStep(int64_t span) {
  int64_t scale = 1;
  for (;;) {
    for (const int64_t m : {1, 2, 5}) {
      if (m * scale * kYTicks >= span) return m * scale;
    }
    if (scale > std::numeric_limits<int64_t>::max() / 100) return scale * 10;
    scale *= 10;
  }
}

int64_t FloorTo(int64_t v, int64_t step) {
  const int64_t q = v / step;
  return (v % step != 0 && v < 0 ? q - 1 : q) * step;
}

int64_t CeilTo(int64_t v, int64_t step) {
  const int64_t q = v / step;
  return (v % step != 0 && v > 0 ? q + 1 : q) * step;
}

// The marker of one print, centred on (x, y), in `colour`.
void AppendMarker(const Print& p, double x, double y, const char* colour,
                  std::string* out) {
  const std::string cx = Coord(x), cy = Coord(y);
  switch (p.level) {
    case Level::k1a:
    case Level::k1b:
      *out += "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"4.5\" fill=\"" +
              colour + "\" stroke=\"" + colour + "\"/>";
      break;
    case Level::k2:
      *out += "<circle cx=\"" + cx + "\" cy=\"" + cy +
              "\" r=\"4.5\" fill=\"#ffffff\" stroke=\"" + colour +
              "\" stroke-width=\"2\"/>";
      break;
    case Level::k3:
      *out += "<rect x=\"" + Coord(x - 4.5) + "\" y=\"" + Coord(y - 4.5) +
              "\" width=\"9\" height=\"9\" fill=\"" + colour + "\"/>";
      break;
    case Level::k4:
      *out += "<polygon points=\"" + cx + "," + Coord(y - 5.5) + " " +
              Coord(x + 5.5) + "," + Coord(y + 4.5) + " " + Coord(x - 5.5) +
              "," + Coord(y + 4.5) + "\" fill=\"" + colour + "\"/>";
      break;
    case Level::kDisrupted:
    case Level::kNone:
      *out += "<path d=\"M" + Coord(x - 5) + " " + Coord(y - 5) + "L" +
              Coord(x + 5) + " " + Coord(y + 5) + "M" + Coord(x - 5) + " " +
              Coord(y + 5) + "L" + Coord(x + 5) + " " + Coord(y - 5) +
              "\" stroke=\"" + kDisruptedColour +
              "\" stroke-width=\"2.5\" fill=\"none\"/>";
      break;
  }
}

// A legend entry for a level: its marker and a label.
void AppendLevelKey(Level level, const char* label, int y, std::string* out) {
  Print p;
  p.level = level;
  *out += "<g class=\"level-key\">";
  AppendMarker(p, kLegendLeft + 10, y - 4, "#444444", out);
  *out += "<text x=\"" + std::to_string(kLegendLeft + 24) + "\" y=\"" +
          std::to_string(y) + "\">" + label + "</text></g>";
}

// The chart's axes: the days and values of every print, the value axis
// rounded out to its ticks, and where a day and a value land in the plot.
struct ChartScale {
  int64_t day_min = std::numeric_limits<int64_t>::max();
  int64_t day_max = std::numeric_limits<int64_t>::min();
  int64_t y_lo = 0;
  int64_t y_hi = 0;
  int64_t step = 1;
  std::size_t print_count = 0;

  explicit ChartScale(const std::vector<IndexSeries>& series) {
    int64_t v_min = std::numeric_limits<int64_t>::max();
    int64_t v_max = std::numeric_limits<int64_t>::min();
    for (const IndexSeries& s : series) {
      for (const Print& p : s.prints) {
        ++print_count;
        day_min = std::min(day_min, p.day);
        day_max = std::max(day_max, p.day);
        if (p.has_value) {
          v_min = std::min(v_min, p.value.micros);
          v_max = std::max(v_max, p.value.micros);
        }
      }
    }
    if (v_min > v_max) {  // no value at all: an arbitrary $0-$1 scale
      v_min = 0;
      v_max = 1'000'000;
    }
    // Some room around a flat line, then round the scale out to its ticks.
    const int64_t pad = std::max<int64_t>((v_max - v_min) / 10, 10'000);
    step = NiceStep(v_max - v_min + 2 * pad);
    y_lo = FloorTo(std::max<int64_t>(v_min - pad, 0), step);
    y_hi = CeilTo(v_max + pad, step);
  }

  double XOf(int64_t day) const {
    if (day_max <= day_min) return (kPlotLeft + kPlotRight) / 2.0;
    return kPlotLeft + static_cast<double>(day - day_min) *
                           (kPlotRight - kPlotLeft) /
                           static_cast<double>(day_max - day_min);
  }
  double YOf(int64_t v) const {
    return kPlotBottom - static_cast<double>(v - y_lo) *
                             (kPlotBottom - kPlotTop) /
                             static_cast<double>(y_hi - y_lo);
  }
};

// The plot's frame, the value gridlines and labels, the fixing dates and,
// with no print at all, a note saying so.
void AppendAxes(const ChartScale& scale, std::string* out) {
  *out += "<rect x=\"" + std::to_string(kPlotLeft) + "\" y=\"" +
          std::to_string(kPlotTop) + "\" width=\"" +
          std::to_string(kPlotRight - kPlotLeft) + "\" height=\"" +
          std::to_string(kPlotBottom - kPlotTop) +
          "\" fill=\"#fafafa\" stroke=\"#999999\"/>";

  // Y axis: gridlines and labels at each tick.
  *out += "<g class=\"y-axis\" text-anchor=\"end\">";
  for (int64_t v = scale.y_lo; v <= scale.y_hi; v += scale.step) {
    const std::string y = Coord(scale.YOf(v));
    *out += "<line x1=\"" + std::to_string(kPlotLeft) + "\" y1=\"" + y +
            "\" x2=\"" + std::to_string(kPlotRight) + "\" y2=\"" + y +
            "\" stroke=\"#e0e0e0\"/>";
    *out += "<text x=\"" + std::to_string(kPlotLeft - 6) + "\" y=\"" +
            Coord(scale.YOf(v) + 4) + "\">" + FormatMicros(v, 3) + "</text>";
  }
  *out += "<text transform=\"translate(18 " +
          std::to_string((kPlotTop + kPlotBottom) / 2) +
          ") rotate(-90)\" text-anchor=\"middle\">USD per GPU-hour</text>";
  *out += "</g>";

  // X axis: fixing dates, at most kMaxXLabels of them, evenly spaced.
  *out += "<g class=\"x-axis\" text-anchor=\"middle\">";
  if (scale.print_count > 0) {
    const int64_t span = scale.day_max - scale.day_min;
    const int64_t every = span / (kMaxXLabels - 1) + 1;
    for (int64_t d = scale.day_min; d <= scale.day_max; d += every) {
      *out += "<text x=\"" + Coord(scale.XOf(d)) + "\" y=\"" +
              std::to_string(kPlotBottom + 18) + "\">" + Escaped(FormatDay(d)) +
              "</text>";
    }
  }
  *out += "<text x=\"" + std::to_string((kPlotLeft + kPlotRight) / 2) +
          "\" y=\"" + std::to_string(kPlotBottom + 40) +
          "\">fixing date (UTC)</text>";
  *out += "</g>";

  if (scale.print_count == 0) {
    *out += "<text class=\"empty\" x=\"" +
            std::to_string((kPlotLeft + kPlotRight) / 2) + "\" y=\"" +
            std::to_string((kPlotTop + kPlotBottom) / 2) +
            "\" text-anchor=\"middle\">No index prints yet</text>";
  }
}

// One grade's polyline through its valued prints, then its markers.
void AppendSeries(const IndexSeries& s, const char* colour,
                  const ChartScale& scale, std::string* out) {
  const std::string name = Escaped(IndexName(s.grade));
  std::string points;
  for (const Print& p : s.prints) {
    if (!p.has_value) continue;
    if (!points.empty()) points += ' ';
    points += Coord(scale.XOf(p.day)) + "," + Coord(scale.YOf(p.value.micros));
  }
  if (!points.empty()) {
    *out += "<polyline class=\"series\" data-index=\"" + name +
            "\" fill=\"none\" stroke=\"" + colour +
            "\" stroke-width=\"2\" points=\"" + points + "\"/>";
  }
  for (const Print& p : s.prints) {
    const std::string level = LevelText(p.level);
    const std::string date = FormatDay(p.day);
    const double y = p.has_value ? scale.YOf(p.value.micros) : kPlotBottom;
    *out += "<g class=\"print\" data-index=\"" + name + "\" data-date=\"" +
            Escaped(date) + "\" data-level=\"" + Escaped(level) + "\">";
    std::string title = IndexName(s.grade) + " " + date + ": " + ValueText(p) +
                        " USD/GPU-hour, level " + level;
    if (p.revision > 0) {
      title += ", restated (revision " + std::to_string(p.revision) + ")";
    }
    *out += "<title>" + Escaped(title) + "</title>";
    AppendMarker(p, scale.XOf(p.day), y, colour, out);
    *out += "</g>";
  }
}

// The legend: the grades, then the level markers.
void AppendLegend(const std::vector<IndexSeries>& series, std::string* out) {
  int y = kPlotTop + 10;
  *out += "<g class=\"legend\">";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    *out += "<line x1=\"" + std::to_string(kLegendLeft) + "\" y1=\"" +
            std::to_string(y - 4) + "\" x2=\"" +
            std::to_string(kLegendLeft + 20) + "\" y2=\"" +
            std::to_string(y - 4) + "\" stroke=\"" + colour +
            "\" stroke-width=\"3\"/>";
    *out += "<text x=\"" + std::to_string(kLegendLeft + 24) + "\" y=\"" +
            std::to_string(y) + "\">" + Escaped(IndexName(series[i].grade)) +
            "</text>";
    y += 18;
  }
  y += 8;
  AppendLevelKey(Level::k1a, "level 1a / 1b", y, out);
  AppendLevelKey(Level::k2, "level 2", y + 18, out);
  AppendLevelKey(Level::k3, "level 3", y + 36, out);
  AppendLevelKey(Level::k4, "level 4", y + 54, out);
  AppendLevelKey(Level::kDisrupted, "DISRUPTED", y + 72, out);
  *out += "</g>";
}

void AppendChart(const std::vector<IndexSeries>& series, std::string* out) {
  const ChartScale scale(series);
  *out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
          std::to_string(kWidth) + "\" height=\"" + std::to_string(kHeight) +
          "\" viewBox=\"0 0 " + std::to_string(kWidth) + " " +
          std::to_string(kHeight) +
          "\" role=\"img\" aria-label=\"CFX index history\" "
          "font-family=\"sans-serif\" font-size=\"12\">";
  *out += "<title>CFX index history</title>";
  AppendAxes(scale, out);
  for (std::size_t i = 0; i < series.size(); ++i) {
    AppendSeries(series[i], kColours[i % std::size(kColours)], scale, out);
  }
  AppendLegend(series, out);
  *out += "</svg>";
}

void AppendTable(const std::vector<IndexSeries>& series, std::string* out) {
  *out +=
      "<table><thead><tr><th>index</th><th>date</th><th>value (USD per "
      "GPU-hour)</th><th>level</th><th>trades</th><th>revision</th>"
      "</tr></thead><tbody>";
  for (const IndexSeries& s : series) {
    const std::string name = Escaped(IndexName(s.grade));
    *out +=
        "<tr><td><a href=\"/api/v1/index/" + name + "\">" + name + "</a></td>";
    if (s.prints.empty()) {
      *out += "<td colspan=\"5\">no print yet</td></tr>";
      continue;
    }
    const Print& p = s.prints.back();
    *out += "<td>" + Escaped(FormatDay(p.day)) + "</td><td>" +
            Escaped(ValueText(p)) + "</td><td>" + Escaped(LevelText(p.level)) +
            "</td><td>" + std::to_string(p.trade_count) + "</td><td>" +
            std::to_string(p.revision) + "</td></tr>";
  }
  *out += "</tbody></table>";
}

}  // namespace

void WriteIndexPrint(std::string_view grade, const Print& p, JsonWriter* w) {
  const index::PrintReading r = index::ReadingOf(p);
  // A string, or null for a field the print does not have.
  const auto string_or_null = [w](const std::optional<std::string>& s) {
    if (s.has_value()) {
      w->String(*s);
    } else {
      w->Null();
    }
  };
  w->BeginObject();
  w->Key("index").String(IndexName(grade));
  w->Key("grade").String(grade);
  w->Key("date").String(FormatDay(p.day));
  w->Key("revision").Uint(p.revision);
  w->Key("restated").Bool(r.restated);
  w->Key("computed_at")
      .String(
          exchange::FormatUtcTimestamp(exchange::Timestamp{p.computed_at_ns}));
  w->Key("level").String(r.level);
  w->Key("disrupted").Bool(r.disrupted);
  w->Key("value");
  string_or_null(r.value);
  w->Key("trade_count").Uint(p.trade_count);
  w->Key("distinct_sellers").Uint(p.sellers);
  w->Key("distinct_buyers").Uint(p.buyers);
  w->Key("gpu_hours").Int(p.gpu_hours);
  w->Key("p25");
  string_or_null(r.p25);
  w->Key("p75");
  string_or_null(r.p75);
  w->Key("partitions_used").BeginArray();
  for (const uint32_t k : r.partitions_used) w->Uint(k);
  w->EndArray();
  w->Key("usd_per_million_tokens");
  string_or_null(r.usd_per_million_tokens);
  w->Key("attested_tokens_per_s_per_gpu");
  string_or_null(r.attested_tokens_per_s_per_gpu);
  w->Key("trade_ids").BeginArray();
  for (const uint64_t id : p.trade_ids) w->Uint(id);
  w->EndArray();
  w->EndObject();
}

std::string RenderIndexPage(const std::vector<IndexSeries>& series) {
  std::string out;
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>CFX index</title><style>"
      "body{font-family:sans-serif;margin:2em;color:#222}"
      "table{border-collapse:collapse;margin-top:1em}"
      "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}"
      "</style></head><body>";
  out += "<h1>CFX rental price index</h1>";
  out +=
      "<p>Daily fixings of the CFX-&lt;grade&gt; index in USD per GPU-hour, "
      "from completed spot trades (docs/index-methodology.md). A marker's "
      "shape shows the print's level; hover a marker for its date, value and "
      "level. JSON: <a href=\"/api/v1/index\">/api/v1/index</a>.</p>";
  AppendChart(series, &out);
  AppendTable(series, &out);
  out += "</body></html>\n";
  return out;
}

}  // namespace cfx::gateway
