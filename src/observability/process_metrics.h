// The process's own figures in /metrics under the names every Prometheus client library
// uses (process_cpu_seconds_total, process_resident_memory_bytes, process_open_fds, ...),
// so standard dashboards and alerts work on licensed as they are. Read from /proc and
// getrusage when scraped.
#pragma once

#include "observability/server_metrics.h"

namespace licensed {

void add_process_metrics(ServerMetrics& metrics);

}  // namespace licensed
