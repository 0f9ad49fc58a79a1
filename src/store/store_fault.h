// The one way both stores report a fault: logged by name (throttled, so a fault that
// repeats for every request does not flood the log), and turned into the client's error:
// 1708 for faults that pass, 1709 for the rest.
#pragma once

#include <string>

#include "core/api_error.h"
#include "core/log_throttle.h"

namespace licensed {

// `detail` names the fault and the operation, never a bound value; it lands in the log
// and in ApiError::detail (for the operator), never in the client's answer.
ApiError store_fault(LogThrottle& throttle, bool transient, std::string detail);

}  // namespace licensed
