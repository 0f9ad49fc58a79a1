#include "core/periodic_job.h"

#include <utility>

namespace licensed {

PeriodicJob::PeriodicJob(std::chrono::milliseconds interval, std::function<void()> work)
    : interval_(interval), work_(std::move(work)), thread_([this] { run(); }) {}

PeriodicJob::~PeriodicJob() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PeriodicJob::run() {
  MutexLock lock(mu_);
  for (;;) {
    const auto next_run = std::chrono::steady_clock::now() + interval_;
    // Until the next run is due, or the destructor asks to stop.
    while (!stopping_) {
      if (lock.wait_until(wake_, next_run) == std::cv_status::timeout) break;
    }
    if (stopping_) return;
    lock.unlock();
    work_();
    lock.lock();
  }
}

}  // namespace licensed
