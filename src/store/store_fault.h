// The one way both stores report a fault: logged by name (throttled, so a fault that
// repeats for every request does not flood the log), and returned as the internal
// status: kUnavailable for faults that pass, kInternal for the rest. Each surface says
// what that means to its clients (1708 or 1709 on the License API).
#pragma once

#include <string>

#include "core/log_throttle.h"
#include "core/status.h"

namespace licensed {

// `detail` names the fault and the operation, never a bound value; it lands in the log
// and in Error::message (for the operator), never in a client's answer.
Error store_fault(LogThrottle& throttle, bool transient, std::string detail);

}  // namespace licensed
