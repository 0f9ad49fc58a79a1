// Runs a piece of background work every `interval` on a thread of its own until it is
// destroyed: the server's periodic sweeps (expired remembered nonces, the stores'
// payment grace). The work reads its own Clock, so tests call it directly with a moved
// clock instead of waiting for the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>

#include "core/mutex.h"

namespace licensed {

class PeriodicJob {
 public:
  // The first run comes one interval after construction.
  PeriodicJob(std::chrono::milliseconds interval, std::function<void()> work);
  // Stops the thread; a run under way finishes first.
  ~PeriodicJob();
  PeriodicJob(const PeriodicJob&) = delete;
  PeriodicJob& operator=(const PeriodicJob&) = delete;

 private:
  void run();

  const std::chrono::milliseconds interval_;
  const std::function<void()> work_;
  Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace licensed
