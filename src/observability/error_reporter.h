// Where a 500 (1709) goes besides the log: an error-tracking service. The request path
// calls report() and moves on; delivery, if any, happens elsewhere. Called from many
// threads at once (network and store threads), so implementations are thread-safe.
#pragma once

#include <string>

#include "core/clock.h"

namespace licensed {

// One internal error, already stripped of anything secret: the license key is masked
// (redaction.h) and no signing material or request body is included.
struct ErrorReport {
  UnixMillis at = 0;
  std::string message;     // stable text, so the tracker groups repeats together
  std::string request_id;  // the X-Request-Id the client got
  std::string endpoint;    // "activate", "heartbeat", "status", "deactivate"
  std::string route;       // "/api/v1/license/activate"
  int error_code = 1709;
  std::string masked_license_key;  // empty when the request had none yet
};

class ErrorReporter {
 public:
  virtual ~ErrorReporter() = default;
  // Never waits on the network; may drop the report (a full queue, a shut-down
  // reporter), since losing an error report must never slow an answer down.
  virtual void report(ErrorReport report) = 0;
};

}  // namespace licensed
