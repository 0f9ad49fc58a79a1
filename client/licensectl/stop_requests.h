// What ends `licensectl heartbeat --every`: SIGTERM or SIGINT on POSIX systems; on
// Windows, which has no such signals for a console program, Ctrl+C, Ctrl+Break, the
// console closing, the user logging off or the system shutting down
// (SetConsoleCtrlHandler).
#pragma once

#include <chrono>

namespace licensed::client {

class StopRequests {
 public:
  // From here on a stop request is kept until waited for, and no longer ends the
  // process by itself.
  StopRequests();
  StopRequests(const StopRequests&) = delete;
  StopRequests& operator=(const StopRequests&) = delete;

  // Waits `period`, or less when a stop is requested (before or meanwhile): true then.
  bool wait(std::chrono::milliseconds period);
};

}  // namespace licensed::client
