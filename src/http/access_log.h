// `--access-log`: one line per answered request, with what an operator needs to find it
// again (request id, route, status, latency) and whose it was (signing key id, license
// key masked as redaction.h masks it). Written at info level to the server's log, as
// text or, with --log-format json, as members of the line's object.
#pragma once

#include <string>
#include <string_view>

#include "http/http_service.h"
#include "observability/server_metrics.h"

namespace licensed {

struct AccessLogEntry {
  std::string_view request_id;
  std::string_view route;  // the metrics label; empty when the request was not routed
  unsigned status = 0;
  double seconds = 0;
  // The request, when its body was read whole; null for one refused before that.
  const HttpRequest* request = nullptr;
};

// The fields of the line: "-" for what the request did not say.
struct AccessLogFields {
  std::string key_id;
  std::string license;  // masked
};
AccessLogFields access_log_fields(const HttpRequest* request);

void log_access(const AccessLogEntry& entry);

// Counts an error answer's numbered code (and a 401's cause) in /metrics, read from the
// answer's body: every surface shapes its errors there (docs/protocol.md §3), so this one
// place sees them all.
void record_api_error(ServerMetrics& metrics, std::string_view answer_body);

}  // namespace licensed
