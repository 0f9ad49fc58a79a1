#include "stop_requests.h"

#include <algorithm>

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>

#include <csignal>
#include <ctime>
#endif

namespace licensed::client {

#if defined(_WIN32)

namespace {

// Set by the console's control handler (which runs on a thread the system starts for
// it); never reset: the first stop ends the loop.
HANDLE stop_event() {
  static const HANDLE event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  return event;
}

BOOL WINAPI on_console_event(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
      SetEvent(stop_event());
      return TRUE;  // handled: the loop ends the program itself
    default:
      return FALSE;
  }
}

}  // namespace

StopRequests::StopRequests() {
  (void)stop_event();
  SetConsoleCtrlHandler(on_console_event, TRUE);
}

bool StopRequests::wait(std::chrono::milliseconds period) {
  const auto ms = static_cast<DWORD>(std::min<long long>(period.count(), INFINITE - 1));
  return WaitForSingleObject(stop_event(), ms) == WAIT_OBJECT_0;
}

#else

namespace {

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

StopRequests::StopRequests() {
  // Blocked, so they wait in the pending set for sigtimedwait instead of ending us.
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

bool StopRequests::wait(std::chrono::milliseconds period) {
  const sigset_t set = stop_signals();
  timespec wait{};
  wait.tv_sec = static_cast<time_t>(period.count() / 1000);
  wait.tv_nsec = static_cast<long>(period.count() % 1000) * 1'000'000;
  return sigtimedwait(&set, nullptr, &wait) > 0;
}

#endif

}  // namespace licensed::client
