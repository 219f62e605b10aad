#include "tests/bench/cpu_sample.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace cfx::bench {

double PhaseCpu::process_seconds() const {
  double s = 0;
  for (const ThreadCpu& t : threads) s += t.seconds;
  return s;
}

namespace {

// The CPU time of thread `tid` of this process: the kernel's per-thread CPU
// clock (nanoseconds, the clock pthread_getcpuclockid() names; Linux
// encodes it as ~tid << 3 | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED), else
// utime + stime from /proc (clock ticks).
double ThreadCpuSeconds(int tid, const std::string& stat_tail) {
  const auto clock = static_cast<clockid_t>((~tid) * 8 | 6);
  timespec ts{};
  if (clock_gettime(clock, &ts) == 0) {
    return static_cast<double>(ts.tv_sec) +
           static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  // Fields after "(comm) ": state is field 3, utime 14, stime 15.
  std::istringstream in(stat_tail);
  std::string field;
  uint64_t utime = 0;
  uint64_t stime = 0;
  for (int i = 3; i <= 15 && (in >> field); ++i) {
    if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

CpuSample SampleCpu() {
  CpuSample s;
  const int main_tid = getpid();
  std::string process_name;
  std::getline(std::ifstream("/proc/self/comm"), process_name);
  if (DIR* d = opendir("/proc/self/task")) {
    while (const dirent* e = readdir(d)) {
      const int tid = std::atoi(e->d_name);
      if (tid <= 0) continue;
      std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/stat");
      std::string line;
      if (!std::getline(f, line)) continue;
      const std::size_t open = line.find('(');
      const std::size_t close = line.rfind(')');
      if (open == std::string::npos || close == std::string::npos ||
          close < open) {
        continue;
      }
      TaskSample t;
      t.tid = tid;
      t.name = line.substr(open + 1, close - open - 1);
      // Threads nobody named carry the process's name.
      if (tid == main_tid) {
        t.name = "main";
      } else if (t.name == process_name) {
        t.name = "(unnamed)";
      }
      t.seconds = ThreadCpuSeconds(tid, line.substr(close + 1));
      s.tasks.push_back(std::move(t));
    }
    closedir(d);
  }
  std::ifstream stat("/proc/stat");
  std::string cpu;
  stat >> cpu;
  // user nice system idle iowait irq softirq steal: busy = all but idle,
  // iowait and steal.
  uint64_t v[8] = {};
  for (uint64_t& x : v) stat >> x;
  s.machine_busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
  return s;
}

PhaseCpu DiffCpu(const CpuSample& before, const CpuSample& after,
                 double wall_seconds, std::string_view keep_idle_prefix) {
  PhaseCpu p;
  p.wall_seconds = wall_seconds;
  p.cpus = static_cast<uint32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  p.machine_busy_seconds = static_cast<double>(after.machine_busy_ticks -
                                               before.machine_busy_ticks) /
                           static_cast<double>(sysconf(_SC_CLK_TCK));
  std::map<int, double> start;
  for (const TaskSample& t : before.tasks) start[t.tid] = t.seconds;
  std::map<std::string, ThreadCpu> by_name;
  for (const TaskSample& t : after.tasks) {
    auto it = start.find(t.tid);
    const double used =
        std::max(0.0, t.seconds - (it == start.end() ? 0.0 : it->second));
    ThreadCpu& g = by_name[t.name];
    g.name = t.name;
    ++g.threads;
    g.seconds += used;
  }
  for (auto& [name, g] : by_name) {
    const bool keep_idle =
        !keep_idle_prefix.empty() && name.rfind(keep_idle_prefix, 0) == 0;
    if (g.seconds > 0 || keep_idle) p.threads.push_back(g);
  }
  std::sort(p.threads.begin(), p.threads.end(),
            [](const ThreadCpu& a, const ThreadCpu& b) {
              return a.seconds > b.seconds;
            });
  return p;
}

bool IsClientThread(const std::string& name) {
  return name.rfind("bench-", 0) == 0 || name == "main";
}

double CpuBoundRate(const PhaseCpu& cpu, uint64_t orders) {
  if (orders == 0) return 0;
  const auto n = static_cast<double>(orders);
  double busiest = 0;
  for (const ThreadCpu& t : cpu.threads) {
    if (t.threads == 1 && !IsClientThread(t.name)) {
      busiest = std::max(busiest, t.seconds);
    }
  }
  const double total = cpu.process_seconds();
  if (total <= 0 || busiest <= 0) return 0;
  return std::min(static_cast<double>(cpu.cpus) * n / total, n / busiest);
}

void PrintCpuJson(std::FILE* out, const PhaseCpu& c, uint64_t orders) {
  const double n = static_cast<double>(std::max<uint64_t>(1, orders));
  std::fprintf(out,
               "{\"wall_s\":%.3f,\"cpus\":%u,\"machine_busy_s\":%.3f,"
               "\"process_s\":%.3f,\"threads\":[",
               c.wall_seconds, c.cpus, c.machine_busy_seconds,
               c.process_seconds());
  for (std::size_t i = 0; i < c.threads.size(); ++i) {
    const ThreadCpu& t = c.threads[i];
    std::fprintf(out,
                 "%s{\"name\":\"%s\",\"threads\":%u,\"cpu_s\":%.4f,"
                 "\"ms_per_1k_orders\":%.4f}",
                 i == 0 ? "" : ",", t.name.c_str(), t.threads, t.seconds,
                 1e6 * t.seconds / n);
  }
  std::fprintf(out, "]}");
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

std::string CpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos) return "";
      const std::size_t from = line.find_first_not_of(' ', colon + 1);
      return from == std::string::npos ? "" : line.substr(from);
    }
  }
  return "";
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size();
  return m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

}  // namespace cfx::bench
