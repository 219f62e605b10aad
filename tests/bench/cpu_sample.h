#pragma once

// Where the CPU goes while a benchmark runs, from /proc: this process's
// threads by name, and the whole machine. Shared by `cfx-bench gateway` and
// `cfx-bench fix`.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cfx::bench {

// CPU time one thread (or the threads sharing a name) used in a phase.
struct ThreadCpu {
  std::string name;  // /proc/self/task/<tid>/comm
  uint32_t threads = 0;
  double seconds = 0;  // utime + stime
};

// Where the CPU went during one measured phase.
struct PhaseCpu {
  double wall_seconds = 0;
  // This process's threads, grouped by name, most CPU first.
  std::vector<ThreadCpu> threads;
  // The whole machine (/proc/stat, all processes), in busy CPU seconds, and
  // its number of CPUs: what the other engineers' builds took shows here.
  double machine_busy_seconds = 0;
  uint32_t cpus = 0;
  double process_seconds() const;
};

// One thread of this process at one moment: its name ("main" for the main
// thread, "(unnamed)" for one that still carries the process's name) and
// the CPU it has used since it started.
struct TaskSample {
  int tid = 0;
  std::string name;
  double seconds = 0;
};

// Every thread of this process, and the machine's busy clock ticks so far.
struct CpuSample {
  std::vector<TaskSample> tasks;
  uint64_t machine_busy_ticks = 0;
};

CpuSample SampleCpu();

// The CPU used between two samples, `wall_seconds` apart. Threads that used
// none are left out, except those whose name starts with `keep_idle_prefix`
// when it is not empty (so an idle server thread still shows as idle).
PhaseCpu DiffCpu(const CpuSample& before, const CpuSample& after,
                 double wall_seconds, std::string_view keep_idle_prefix = {});

// A thread of the benchmark's clients ("bench-..." and the main thread)
// rather than of the server under test.
bool IsClientThread(const std::string& name);

// Orders/s the process could sustain with every CPU to itself, from the CPU
// each of `orders` cost in the phase: the lower of all CPUs / (server +
// client CPU per order) and one CPU / the busiest server thread's CPU per
// order. An estimate that the machine's other load does not move (much),
// unlike the measured rate; idle polling counts as cost, so it errs low.
// 0 when nothing was measured.
double CpuBoundRate(const PhaseCpu& cpu, uint64_t orders);

// {"wall_s":..,"cpus":..,"machine_busy_s":..,"process_s":..,"threads":[
// {"name":..,"threads":..,"cpu_s":..,"ms_per_1k_orders":..},...]}, per
// `orders` orders.
void PrintCpuJson(std::FILE* out, const PhaseCpu& cpu, uint64_t orders);

// The 1, 5 and 15 minute load averages of /proc/loadavg: "4.88 2.68 2.36".
std::string LoadAverage();

// The first "model name" of /proc/cpuinfo, e.g. "AMD EPYC"; "" if none.
std::string CpuModel();

// The median of `v` (the mean of the middle two for an even count); 0 when
// empty.
double Median(std::vector<double> v);

}  // namespace cfx::bench
