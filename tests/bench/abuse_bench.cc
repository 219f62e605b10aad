#include "tests/bench/abuse_bench.h"

#include <algorithm>
#include <fstream>

#include "tests/bench/abuse_logon.h"

namespace cfx::bench {

namespace {

// One line per workload; each runs in its own file, abuse_<name>.cc.
constexpr AbuseWorkload kAbuseWorkloads[] = {
    {"hash-flood",
     "client order ids that collide in the engine's table vs random ids",
     RunHashFloodAbuse},
    {"resume-storm",
     "100 protobuf resumes from far back at once vs a quiet victim session",
     RunResumeStormAbuse},
    {"logon-flood", "a victim's order round trip vs floods of failed logons",
     RunLogonFloodAbuse},
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The medians over the runs of figure `k`: quiet, attack, ratio (the
// median of the per-run ratios, each taken within one run).
struct FigureMedians {
  double quiet = 0;
  double attack = 0;
  double ratio = 0;
};

FigureMedians MediansOf(const std::vector<AbuseRun>& runs, std::size_t k) {
  std::vector<double> q, a, r;
  for (const AbuseRun& run : runs) {
    if (k >= run.figures.size()) continue;
    q.push_back(run.figures[k].quiet);
    a.push_back(run.figures[k].attack);
    r.push_back(run.figures[k].ratio());
  }
  return {Median(q), Median(a), Median(r)};
}

bool Verified(const std::vector<AbuseRun>& runs) {
  return std::all_of(runs.begin(), runs.end(),
                     [](const AbuseRun& r) { return r.problems.empty(); });
}

void PrintHuman(std::FILE* out, const AbuseWorkload& w,
                const std::vector<AbuseRun>& runs, const std::string& load) {
  std::fprintf(out, "abuse %s: %s\n", w.name, w.what);
  std::fprintf(out, "  %zu run%s, load average %s at the start\n", runs.size(),
               runs.size() == 1 ? "" : "s", load.c_str());
  std::fprintf(out, "  %-26s %14s %14s %8s %8s  runs (ratio)\n", "figure",
               "quiet", "attack", "ratio", "target");
  const AbuseRun& first = runs.front();
  for (std::size_t k = 0; k < first.figures.size(); ++k) {
    const AbuseFigure& f = first.figures[k];
    const FigureMedians m = MediansOf(runs, k);
    char target[16] = "-";
    if (f.target > 0) std::snprintf(target, sizeof target, "<= %.1f", f.target);
    std::string per_run;
    for (const AbuseRun& r : runs) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%s%.2f", per_run.empty() ? "" : " ",
                    r.figures[k].ratio());
      per_run += buf;
    }
    const std::string label = f.name + " (" + f.unit + ")";
    std::fprintf(out, "  %-26s %14.1f %14.1f %8.2f %8s  %s\n", label.c_str(),
                 m.quiet, m.attack, m.ratio, target, per_run.c_str());
  }
  for (const std::string& n : first.notes)
    std::fprintf(out, "  %s\n", n.c_str());
  for (const AbuseRun& r : runs) {
    for (const std::string& p : r.problems)
      std::fprintf(out, "  PROBLEM: %s\n", p.c_str());
  }
  std::fprintf(out, "  verified       %s\n\n",
               Verified(runs) ? "yes" : "NO (problems above)");
}

// Text of `s` as a JSON string's contents (quotes and backslashes escaped,
// control characters dropped).
std::string JsonText(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out;
}

void PrintJson(std::FILE* out, const AbuseWorkload& w,
               const std::vector<AbuseRun>& runs, const std::string& load) {
  std::fprintf(out,
               "{\"workload\":\"abuse\",\"abuse\":\"%s\",\"runs\":%zu,"
               "\"load_average\":\"%s\",\"figures\":[",
               w.name, runs.size(), load.c_str());
  const AbuseRun& first = runs.front();
  for (std::size_t k = 0; k < first.figures.size(); ++k) {
    const AbuseFigure& f = first.figures[k];
    const FigureMedians m = MediansOf(runs, k);
    std::fprintf(out,
                 "%s{\"name\":\"%s\",\"unit\":\"%s\",\"quiet\":%.3f,"
                 "\"attack\":%.3f,\"ratio\":%.4f,\"target\":%.2f,"
                 "\"meets_target\":%s,\"ratio_runs\":[",
                 k == 0 ? "" : ",", f.name.c_str(), f.unit.c_str(), m.quiet,
                 m.attack, m.ratio, f.target,
                 f.target <= 0 || m.ratio <= f.target ? "true" : "false");
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::fprintf(out, "%s%.4f", i == 0 ? "" : ",",
                   runs[i].figures[k].ratio());
    }
    std::fprintf(out, "]}");
  }
  std::fprintf(out, "],\"problems\":[");
  bool comma = false;
  for (const AbuseRun& r : runs) {
    for (const std::string& p : r.problems) {
      std::fprintf(out, "%s\"%s\"", comma ? "," : "", JsonText(p).c_str());
      comma = true;
    }
  }
  std::fprintf(out, "],\"verified\":%s}\n", Verified(runs) ? "true" : "false");
}

// Runs one workload options.runs times; false when a run could not be made,
// reported figures disagree in shape, or a run found problems.
bool RunOne(const AbuseWorkload& w, const AbuseOptions& o, bool json) {
  const std::string load = LoadAverage();
  std::vector<AbuseRun> runs;
  for (uint32_t i = 0; i < o.runs; ++i) {
    Result<AbuseRun> r = w.run(o, i);
    if (!r.has_value()) {
      std::fprintf(stderr, "cfx-bench abuse %s: %s\n", w.name,
                   r.error().ToString().c_str());
      return false;
    }
    runs.push_back(std::move(r).value());
    if (!runs.empty() &&
        runs.back().figures.size() != runs.front().figures.size()) {
      std::fprintf(stderr,
                   "cfx-bench abuse %s: runs report different figures\n",
                   w.name);
      return false;
    }
    if (!o.quiet) {
      std::string line;
      for (const AbuseFigure& f : runs.back().figures) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s ratio %.2f",
                      line.empty() ? "" : ", ", f.name.c_str(), f.ratio());
        line += buf;
      }
      std::fprintf(stderr, "cfx-bench abuse %s: run %u: %s\n", w.name, i + 1,
                   line.c_str());
    }
  }
  if (runs.empty()) return false;
  (json ? PrintJson : PrintHuman)(stdout, w, runs, load);
  std::fflush(stdout);
  return Verified(runs);
}

}  // namespace

std::span<const AbuseWorkload> AbuseWorkloads() { return kAbuseWorkloads; }

int RunAbuse(const std::string& workload, const AbuseOptions& options,
             bool json) {
  bool ran = false;
  bool ok = true;
  for (const AbuseWorkload& w : AbuseWorkloads()) {
    if (workload != "all" && workload != w.name) continue;
    ran = true;
    ok = RunOne(w, options, json) && ok;
  }
  if (!ran) {
    std::fprintf(stderr, "cfx-bench abuse: no workload %s\n", workload.c_str());
    return 1;
  }
  return ok ? 0 : 1;
}

}  // namespace cfx::bench
