#include "observability/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace licensed {
namespace {

// Field `index` (0: total program size, 1: resident set) of /proc/self/statm, in bytes.
double statm_bytes(int index) {
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  for (int i = 0; i <= index && statm; ++i) statm >> pages;
  return statm ? pages * static_cast<double>(::sysconf(_SC_PAGESIZE)) : 0;
}

double cpu_seconds() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double open_descriptors() {
  std::error_code ec;
  double n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

double max_descriptors() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  return static_cast<double>(limit.rlim_cur);
}

}  // namespace

void add_process_metrics(ServerMetrics& metrics) {
  const double started =
      static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  metrics.add_gauge({"process_cpu_seconds_total", "User and system CPU time spent, in seconds.",
                     cpu_seconds, "counter"});
  metrics.add_gauge({"process_resident_memory_bytes", "Resident memory size in bytes.",
                     [] { return statm_bytes(1); }});
  metrics.add_gauge({"process_virtual_memory_bytes", "Virtual memory size in bytes.",
                     [] { return statm_bytes(0); }});
  metrics.add_gauge({"process_open_fds", "Open file descriptors.", open_descriptors});
  metrics.add_gauge(
      {"process_max_fds", "The limit of open file descriptors (RLIMIT_NOFILE).", max_descriptors});
  metrics.add_gauge({"process_start_time_seconds",
                     "When the process started serving, in seconds since the Unix epoch.",
                     [started] { return started; }});
}

}  // namespace licensed
